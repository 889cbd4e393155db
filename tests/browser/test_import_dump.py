"""A real cluster's dump, dropped on the import as an archive: counts, notices and findings before the
run, the node taints added in one click, the run's recorded-vs-replay line, and "Why here?"."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, editor_text, start_run
from tests.webui import support

pytestmark = pytest.mark.browser

# Builds a File from the archive's bytes and drops it as a person would (a DataTransfer on "drop").
DROP = """([name, encoded]) => {
    const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], name, { type: "application/gzip" }));
    return transfer;
}"""


def test_a_dropped_dump_shows_what_was_read_and_missing_then_the_recorded_answer_beside_the_replay(page, snap):
    archive = support.dump_archive("tar.gz")
    page.goto(page.base_url + "/")
    transfer = page.evaluate_handle(DROP, ["cluster-info.tar.gz", base64.b64encode(archive).decode()])
    page.dispatch_event("#import-drop", "drop", {"dataTransfer": transfer})
    expect(page.locator("#import-chosen")).to_contain_text("cluster-info.tar.gz")
    page.click("#import-form button[type=submit]")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))

    expect(page.locator("#validity")).to_have_text("✓ valid · 2 node(s), 3 pod(s), 2 pending")
    expect(page.locator("#object-counts")).to_contain_text("2 Node")
    expect(page.locator("#object-counts")).to_contain_text("3 Pod")
    expect(page.locator("#notice-list")).to_contain_text("ignored")  # the EventList, the container log
    findings = page.locator("#finding-list > li")
    expect(page.locator("#finding-list > li[data-code=controller-absent]")).to_contain_text(
        "ReplicaSet default/web-7f9c"
    )
    page.locator("#finding-list > li[data-code=controller-absent] summary").click()
    expect(page.locator("#finding-list > li[data-code=controller-absent] pre.kubectl")).to_contain_text(
        "kubectl get replicasets"
    )
    expect(page.locator("#finding-list > li[data-code=node-taints-missing]")).to_have_count(1)
    assert "apiVersion: v1\nkind: Node\n" in editor_text(page)  # filled in from the NodeList
    snap(page, "import-dump-check")

    page.click("#fix-node-taints")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    expect(page.locator("#finding-list > li[data-code=node-taints-missing]")).to_have_count(0)
    assert findings.count() >= 1 and "node.kubernetes.io/not-ready" in editor_text(page)

    start_run(page)
    expect(page.locator("#recorded-summary")).to_have_text(
        "the replay agrees with your cluster on 1 of 2 pending pod(s)"
    )
    expect(page.locator("#recorded-table tr.agree[data-pod='default/web-7f9c-a'] td.verdict")).to_have_text("✓ agree")
    differs = page.locator("#recorded-table tr.disagree[data-pod='default/web-7f9c-b']")
    expect(differs.locator("td.recorded")).to_contain_text("2 Insufficient cpu")
    expect(differs.locator("td.replay")).to_contain_text("1 node(s) had untolerated taint(s)")
    expect(differs.locator("td.causes")).to_contain_text("controller-absent")
    page.locator("#recorded-panel").scroll_into_view_if_needed()
    snap(page, "run-recorded-beside-replay")


def test_why_here_on_the_cluster_view_reruns_a_running_pods_cycle(page, snap):
    scenario = _import_dump(page)
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/cluster/")
    page.locator("span.pod[data-pod='kube-system/coredns-6d4b-x7k2p']").click()
    panel = page.locator("#why-here")
    expect(panel.locator("h3")).to_contain_text("Why is kube-system/coredns-6d4b-x7k2p on worker-1?")
    expect(panel.locator(".why-verdict")).to_contain_text("would go to worker-2")
    expect(panel.locator(".why-ranking tr.current")).to_contain_text("worker-1 (where it runs)")
    expect(panel.locator(".caveat")).to_contain_text("may have changed since the pod was placed")
    snap(page, "cluster-why-here")


def test_a_scenario_without_nodes_is_never_green(page):
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: lonely}\nspec: {containers: [{name: c}]}\n"
    scenario = api_post(page, "/api/scenarios", {"name": "no nodes", "text": text})
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/")
    expect(page.locator("#validity")).to_have_text("⚠ no nodes · 1 pod(s), 1 pending: nothing can be scheduled")
    expect(page.locator("#validity")).to_have_class(re.compile(r"\bwarn\b"))
    expect(page.locator("#notice-list li.loud[data-code=no-nodes]")).to_have_count(1)


def _import_dump(page) -> dict:
    """The dump imported through the API with the browser's own session (cookie + CSRF header)."""
    page.goto(page.base_url + "/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        page.base_url + "/api/scenarios/import",
        headers={"X-CSRFToken": token},
        multipart={
            "file": {"name": "cluster-info.zip", "mimeType": "application/zip", "buffer": support.dump_archive("zip")}
        },
    )
    assert response.ok, response.text()
    return response.json()
