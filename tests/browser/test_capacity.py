"""Capacity in the cluster view (static/js/capacity.js): "How many more fit?" on the capacity demo's
workload runs its trials on the worker, names what stops the next copy, and opens the deciding
trial's run at the step where that copy stays pending; the share link opens the same run. "How many
more copies fit?" on a pod is answered by the one pass: its method and why, its progress, each
node's copies, the next copy's message or "stopped at --max"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import REPO
from tests.browser.helpers import api_post, create_from_demo, table_rows
from tests.webui.capacity_support import many_copies_text
from tests.webui.support import deployment_text

pytestmark = pytest.mark.browser
ANSWER_MS = 180_000  # trial runs on the one embedded worker of a machine shared with others


def test_how_many_more_fit_opens_the_deciding_step(page):
    scenario_id = create_from_demo(page, "capacity_web")
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    page.locator("tr[data-workload='default/web'] button.capacity-fit").click()
    answer = page.locator("#capacity-answer")
    expect(answer.locator(".capacity-progress")).to_have_text(re.compile(r"Queued|trial \d+ of ~\d+"))
    expect(answer.locator(".capacity-verdict")).to_contain_text("8 more fit", timeout=ANSWER_MS)
    expect(answer).to_contain_text("node-1 3, node-2 2, node-3 3")
    # the trials' count says when rounds ran several at once (the CLI runs the same search one at a time)
    [asked] = page.request.get(f"{page.base_url}/api/capacity/scenarios/{scenario_id}").json()
    at_once = (
        f", up to {asked['width']} at once (the CLI runs the same search one trial at a time, so its count can differ)"
    )
    trials = asked["answer"]["fit"]["trials"]
    expect(answer.locator(".capacity-verdict")).to_contain_text(
        f"{trials} trial runs" + (at_once if asked["width"] > 1 else "") + ")."
    )
    stopper = answer.locator(".capacity-stopper")
    expect(stopper).to_contain_text("Copy 9 stays pending")
    expect(stopper).to_contain_text("3 Insufficient cpu")
    expect(answer.locator(".capacity-why")).to_contain_text("No node passed every Filter plugin")
    stopped = re.search(r"\((default/web-[\w-]+)\)", stopper.inner_text()).group(1)

    answer.locator("#capacity-share").click()
    share_url = answer.locator("a.capacity-share-link").get_attribute("href", timeout=30_000)

    answer.locator("#capacity-deciding-link").click()
    page.wait_for_url(re.compile(r"/runs/\d+/\?cycle=\d+&step=Filter&changeStep=1"))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=ANSWER_MS)
    expect(page.locator("#step-heading")).to_contain_text("Filter")
    expect(page.locator("#run-root")).to_contain_text(stopped)
    expect(page.locator("#run-root")).to_contain_text("Insufficient cpu")

    page.goto(share_url if share_url.startswith("http") else page.base_url + share_url)
    expect(page.locator("body")).to_contain_text(stopped, timeout=60_000)


def test_can_this_node_go_names_the_budget_that_keeps_it(page):
    scenario_id = create_from_demo(page, "capacity_web")
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    page.locator(".node[data-node='node-1'] button.capacity-node-go").click()
    answer = page.locator("#capacity-answer")
    expect(answer.locator("h3")).to_have_text("Can node-1 go?")
    verdict = answer.locator(".capacity-verdicts li[data-node='node-1']")
    expect(verdict).to_contain_text("must stay", timeout=ANSWER_MS)
    expect(verdict).to_contain_text("blocked by budget default/web-pdb")
    expect(answer.locator("#capacity-deciding-link")).to_have_attribute(
        "href", re.compile(r"/runs/\d+/\?changeStep=1$")
    )


def test_a_question_asked_before_the_page_opened_is_followed_and_can_be_cancelled(page):
    """The tab that asked was closed: the cluster view shows the unfinished question with its
    progress and Cancel, and Cancel stops it."""
    scenario = api_post(page, "/api/scenarios", {"name": "long", "text": deployment_text(150, 300)})
    asked = api_post(page, f"/api/capacity/scenarios/{scenario['id']}", {"kind": "removable"})
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/cluster/")
    answer = page.locator("#capacity-answer")
    expect(answer.locator("h3")).to_have_text("Which nodes can go?")
    expect(answer.locator(".capacity-progress")).to_have_text(re.compile(r"Queued|trial \d+ of ~\d+"))
    answer.locator("#capacity-cancel").click()
    expect(answer.locator(".capacity-error")).to_have_text(
        "The question cancelled: cancelled by the owner", timeout=ANSWER_MS
    )
    assert page.request.get(f"{page.base_url}/api/capacity/{asked['id']}").json()["status"] == "cancelled"


def test_a_version_with_steps_offers_the_latest_version_without_them(page):
    """Questions start from the scenario's own run: after a step is added in the Changes panel, the
    panel says why it cannot ask and opens the version before the step, where it can."""
    scenario_id = create_from_demo(page, "capacity_web")
    page.click("#tab-changes")
    page.select_option("#changes-verb", "cordon")
    page.click("#changes-add")
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(1)
    page.click("#save-button")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    page.click("#cluster-link")
    expect(page.locator("#capacity-refused")).to_contain_text("has its own steps")
    expect(page.locator("#capacity-without-steps")).to_have_text(
        "Ask them of version 1 (the latest version without steps)"
    )
    page.click("#capacity-without-steps a")
    page.wait_for_url(re.compile(rf"/scenarios/{scenario_id}/cluster/\?version=1$"))
    expect(page.locator("tr[data-workload='default/web'] button.capacity-fit")).to_be_visible()


# --- how many more copies of a pod fit: the one pass (issue 42) ------------------------------------

PODS = (REPO / "examples" / "capacity_pods.yaml").read_text()


def _cluster_with(page, name: str, text: str) -> int:
    scenario = api_post(page, "/api/scenarios", {"name": name, "text": text})
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/cluster/")
    return scenario["id"]


def _ask_copies(page, pod: str, most: int | None = None) -> None:
    page.locator("#capacity-pod").fill(pod)
    if most is not None:
        page.locator("#capacity-max").fill(str(most))
    page.locator("#capacity-copies").click()


def test_counted_copies_show_the_method_each_nodes_copies_and_the_next_copys_message(page, snap):
    _cluster_with(page, "pods", PODS)
    _ask_copies(page, "default/api-0")
    answer = page.locator("#capacity-answer")
    expect(answer.locator("h3")).to_have_text("How many more copies of default/api-0 fit?")
    expect(answer.locator(".capacity-verdict")).to_contain_text("19 more fit", timeout=ANSWER_MS)
    expect(answer.locator(".capacity-copies-answer .capacity-method")).to_contain_text(
        "Counted: the copies are independent"
    )
    assert table_rows(page, "#capacity-answer table.capacity-per-node") == [
        ["node-1", "7"],
        ["node-2", "7"],
        ["node-3", "5"],
    ]
    expect(answer.locator(".capacity-per-node caption")).to_have_text("Copies per node: 19 on 3 node(s)")
    stopper = answer.locator(".capacity-stopper")
    expect(stopper.locator(".capacity-stopped-by")).to_have_text("default/api-0-copy-20")
    expect(stopper.locator("code")).to_contain_text(
        "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."
    )
    answer.scroll_into_view_if_needed()
    snap(page, "capacity-copies")
    answer.locator("#capacity-deciding-link").click()
    page.wait_for_url(re.compile(r"/runs/\d+/\?cycle=19&step=Filter&changeStep=1"))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=ANSWER_MS)
    expect(page.locator("#run-root")).to_contain_text("default/api-0-copy-20")


def test_placed_copies_show_their_progress_and_stop_at_max(page):
    # Every text the progress line takes is recorded as it changes (no timing): the pass reports
    # every 1000 copies, the worker writes it, the websocket sends it, the page draws it.
    page.add_init_script("""
      window.progressSeen = [];
      new MutationObserver(() => {
        const line = document.querySelector("#capacity-answer .capacity-progress");
        if (line && window.progressSeen.at(-1) !== line.textContent) window.progressSeen.push(line.textContent);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    """)
    _cluster_with(page, "many", many_copies_text(1500))
    _ask_copies(page, "default/p", 2500)
    answer = page.locator("#capacity-answer")
    expect(answer.locator(".capacity-max")).to_have_text(
        "Stopped at the most you asked for (2,500): at least 2,500 fit.", timeout=ANSWER_MS
    )
    expect(answer.locator(".capacity-copies-answer .capacity-method")).to_contain_text(
        "Placed one by one: not counted: 2 DoNotSchedule spread constraints"
    )
    expect(answer.locator(".capacity-rate")).to_contain_text("2,500 copies tried in one pass over the cluster.")
    expect(answer.locator(".capacity-per-node caption")).to_have_text("Copies per node: 2,500 on 1,500 node(s)")
    expect(answer.locator(".capacity-per-node tfoot")).to_have_text("… and 1,400 more node(s)")
    expect(answer.locator(".capacity-stopper")).to_have_count(0)
    # The page subscribes after asking: it draws the reports that reach it (none, on a busy machine,
    # if the pass is quicker than the socket), each in this form; services/test_capacity.py checks
    # that every 1000th copy is reported.
    seen = page.evaluate("window.progressSeen")
    placed = [text for text in seen if "copies placed" in text]
    assert all(re.fullmatch(r"[12],000 copies placed, [\d,]+ per second", text) for text in placed), seen
