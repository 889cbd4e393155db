"""Small steps the browser tests share."""

from __future__ import annotations

import json
import re

import time

from playwright.sync_api import Page, expect

SEED_DEMO = "seed_pts_single_constraint"


def create_from_demo(page: Page, slug: str = SEED_DEMO) -> int:
    page.goto(page.base_url + "/")
    page.click(f"button.demo-create[data-slug={slug}]")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(page.locator("#validity")).to_contain_text("valid")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def api_post(page: Page, path: str, body: dict) -> dict:
    """A write through the page's own session (cookie + CSRF header, as the UI sends it)."""
    if not any(c["name"] == "csrftoken" for c in page.context.cookies()):
        page.goto(page.base_url + "/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        page.base_url + path, data=json.dumps(body), headers={"Content-Type": "application/json", "X-CSRFToken": token}
    )
    assert response.ok, response.text()
    return response.json()


def set_editor_text(page: Page, text: str) -> None:
    """Replace the YAML as a person would (select all, type), so input events fire."""
    area = page.locator("#yaml-text")
    area.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)


# The editor is CodeMirror: its text lives in its state (only the visible lines are in the DOM).
EDITOR_TEXT = """async () => {
    const { EditorView } = await import("/static/vendor/codemirror/codemirror.mjs");
    const view = EditorView.findFromDOM(document.querySelector(".code-editor .cm-editor"));
    return view ? view.state.doc.toString() : null;
}"""


def editor_text(page: Page) -> str:
    page.locator(".code-editor .cm-editor").wait_for(state="attached")
    return page.evaluate(EDITOR_TEXT)


def expect_editor_text(page: Page, wanted: str | re.Pattern, timeout: float = 10.0) -> str:
    """Waits until the editor's whole text equals `wanted` (or matches the pattern)."""
    deadline = time.monotonic() + timeout
    while True:
        text = editor_text(page)
        if text is not None and (wanted.search(text) if isinstance(wanted, re.Pattern) else text == wanted):
            return text
        assert time.monotonic() < deadline, f"editor text never matched {wanted!r}:\n{text}"
        page.wait_for_timeout(100)


def start_run(page: Page) -> int:
    page.click("#run-button")
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    run_id = int(re.search(r"/runs/(\d+)/", page.url).group(1))
    try:
        expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    except AssertionError as error:  # what the API says of the run beside what the page shows
        stored = page.request.get(f"{page.base_url}/api/runs/{run_id}").json()
        raise AssertionError(f"{error}\nthe API's run {run_id}: {stored}") from error
    return run_id


def open_step(page: Page, run_id: int, cycle: int, step: str, base: str | None = None) -> None:
    page.goto(f"{base or page.base_url}/runs/{run_id}/?cycle={cycle}&step={step}")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#step-heading")).to_contain_text(step if step != "Bind" else "Bind")


def table_rows(page: Page, selector: str) -> list[list[str]]:
    return page.locator(f"{selector} tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))"
    )


def zoned_scenario(nodes: int = 210, pending: int = 3) -> str:
    docs = []
    for i in range(nodes):
        zone = "zone-" + "abc"[i % 3]
        docs.append(f"""apiVersion: v1
kind: Node
metadata: {{name: node-{i}, labels: {{kubernetes.io/hostname: node-{i}, zone: {zone}}}}}
status: {{allocatable: {{cpu: "{4 + i % 5}", memory: 16Gi, pods: "110"}}}}""")
    for i in range(pending):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, labels: {{app: web}}}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}]
  topologySpreadConstraints:
  - {{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: web}}}}}}
  - {{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {{matchLabels: {{app: web}}}}}}""")
    # Over 100 nodes the release scores an adaptive share of them; these tests read every node's score.
    docs.append(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100"
    )
    return "\n---\n".join(docs) + "\n"


# A run whose task message the broker lost is sent again once it has been queued for
# SCHEDLAB_QUEUED_STALE_SECONDS (60 s; it happened once in CI with kombu's own filesystem transport,
# which webui/brokerfs.py has since replaced):
# the wait for a run's end covers that recovery, which is the app's behaviour too.
RUN_END_TIMEOUT = 180.0


def run_to_end(page: Page, scenario_id: int, timeout: float = RUN_END_TIMEOUT) -> dict:
    """Starts a run through the API and waits (polling the API) until it has finished."""
    run = api_post(page, f"/api/scenarios/{scenario_id}/runs", {})
    deadline = time.monotonic() + timeout
    while run["status"] not in ("succeeded", "failed", "cancelled"):
        assert time.monotonic() < deadline, f"run {run['id']} still {run['status']}"
        time.sleep(0.3)
        run = page.request.get(f"{page.base_url}/api/runs/{run['id']}").json()
    return run
