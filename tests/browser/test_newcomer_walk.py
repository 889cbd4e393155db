"""Issue 51's acceptance: a newcomer walks the README's order — home → demo → edit → run → step → why →
changes → capacity → share → compare — with nothing but the browser (clicks, typing, keys): no API
call, no database, no CLI. Each step uses the names README.md's Quick start and docs/UI.md give it.

The story, on the preemption demo: small-1 is made to ask 2 CPUs at priority 0, so nothing can make
room for it (no node has 2 CPUs free and it may preempt nobody); big still preempts on node-7. A step
that adds a node like node-1 lets small-1 in, and the comparison of the two runs says so."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
RUN_MS = 60_000  # a busy 2-core machine can take several seconds to stream a run
ANSWER_MS = 180_000  # a capacity question on the one embedded worker


def _wait_for_run(page: Page) -> int:
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)
    return int(re.search(r"/runs/(\d+)/", page.url).group(1))


def _cycle_of(page: Page, pod: str, last: bool = False) -> str:
    """The cycle picker's value for a pod's first (or last) attempt, read off its option's label."""
    options = page.locator("#cycle-select option", has_text=f": {pod} ")
    return (options.last if last else options.first).get_attribute("value")


def test_a_newcomer_walks_the_readme_in_order_with_the_browser_alone(page, fresh_page, snap):
    # 1. home: the scenario list, with the demos and what each teaches.
    page.goto(page.base_url + "/")
    demo = page.locator("button.demo-create[data-slug=preemption]")
    expect(demo).to_have_text("Preemption: a high-priority pod makes room")
    expect(page.locator("#demo-list li", has=demo)).to_contain_text("open the PostFilter step")
    snap(page, "walk-01-home")

    # 2. demo: a scenario of one's own from it, checked by the server.
    demo.click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(page.locator("#save-status")).to_have_text("Saved · version 1")
    expect(page.locator("#validity")).to_have_text("✓ valid · 10 node(s), 48 pod(s), 3 pending")
    snap(page, "walk-02-demo")

    # 3. edit: in the Nodes & Pods tables, small-1 asks 2 CPUs at priority 0; Save.
    page.click("#tab-tables")
    page.fill("#pod-filter", "small-1")
    page.press("#pod-filter", "Enter")
    expect(page.locator("#pods-table tbody tr")).to_have_count(1)
    requests = page.locator("#pods-table input[aria-label='requests of small-1']")
    expect(requests).to_have_value("cpu=500m, memory=128Mi")
    requests.fill("cpu=2, memory=128Mi")
    requests.press("Enter")
    priority = page.locator("#pods-table input[aria-label='priority of small-1']")
    with page.expect_response(lambda r: "/api/validate" in r.url and "priority: 0" in (r.request.post_data or "")):
        priority.fill("0")
        priority.press("Enter")
    expect(page.locator("#validity")).to_have_text("✓ valid · 10 node(s), 48 pod(s), 3 pending")
    expect(page.locator("#pods-table ul.chips[aria-label='requests of small-1']")).to_contain_text("cpu=2")
    page.click("#save-button")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    snap(page, "walk-03-edit")

    # 4. run: ▶ Run, and the run view once every event has arrived.
    page.click("#run-button")
    first_run = _wait_for_run(page)
    expect(page.locator("#run-release")).to_contain_text("Replayed as")
    snap(page, "walk-04-run")

    # 5. step: the stepper, with → (steps) and Shift+→ (cycles); the URL names the step each time.
    expect(page.locator("#step-heading")).to_have_text("Cycle 1 · default/big · QueueSort")
    for step in ("PreFilter", "Filter", "PostFilter"):
        page.locator("body").press("ArrowRight")
        expect(page).to_have_url(re.compile(rf"\?cycle=0&step={step}$"))
        expect(page.locator("#step-heading")).to_have_text(f"Cycle 1 · default/big · {step}")
    # big preempts: the candidates, and why this one.
    expect(page.locator(".preemption-why .explain-text")).to_contain_text("node-7")
    page.locator("body").press("Shift+ArrowRight")
    expect(page).to_have_url(re.compile(r"\?cycle=1&step="))
    expect(page.locator("#step-heading")).to_contain_text("Cycle 2 · default/small-0")
    page.click("button.step[data-step=Total]")
    expect(page).to_have_url(re.compile(r"\?cycle=1&step=Total$"))
    expect(page.locator(".outcome.pass")).to_contain_text("Bound to node-8")
    snap(page, "walk-05-step", full_page=True)

    # 6. why: the pending pod's last attempt, picked in the cycle picker; its Filter step says why.
    page.select_option("#cycle-select", _cycle_of(page, "default/small-1", last=True))
    expect(page.locator("#step-heading")).to_have_text("Cycle 7 · default/small-1 · QueueSort")  # no Total there
    page.click("button.step[data-step=Filter]")
    expect(page).to_have_url(re.compile(r"\?cycle=6&step=Filter$"))
    expect(page.locator(".failed-scheduling")).to_contain_text("0/10 nodes are available: 10 Insufficient cpu.")
    expect(page.locator(".cycle-why .explain-text")).to_contain_text(
        "No node passed every Filter plugin: 10 Insufficient cpu (node-1: cpu: asks 2000m; free 500m of 4000m"
    )
    snap(page, "walk-06-why", full_page=True)

    # 7. changes: the editor's Changes panel adds a node like node-1; ▶ Run saves and runs it.
    page.click("a.button:text-is('Edit scenario')")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    page.click("#tab-changes")
    expect(page.locator("#changes-empty")).to_be_visible()
    page.fill("#changes-name", "add a node like node-1")
    page.select_option("#changes-verb", "addNodes")
    page.select_option("#changes-node", "node-1")
    page.click("#changes-add")
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["add 1 node(s) like node-1 (new-node-1…)✕"])
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    page.click("#run-button")
    second_run = _wait_for_run(page)
    row = page.locator("#steps-summary tr.step-row[data-step='1']")
    expect(row.locator("td.placed .count")).to_have_text("1")
    expect(row.locator("td.pending .count")).to_have_text("0")
    expect(page.locator("#timeline-panel li.step-heading .text")).to_have_text(
        [
            "step 0 — scenario: 2 deleted, 2 placed, 1 pending: default/small-1",
            "step 1 — add a node like node-1: 1 placed, 0 pending",
        ]
    )
    snap(page, "walk-07-changes", full_page=True)

    # 8. capacity: the cluster view's Capacity panel. Questions start from the scenario's own run, so
    # this version (with its step) offers the one before it; there: how many nodes like node-1 would
    # take the pods left pending — the step just tried, asked as a question.
    page.click("a.button:text-is('Cluster view')")
    page.wait_for_url(re.compile(r"/scenarios/\d+/cluster/\?version=3&run="))
    # The run's cluster is drawn as its last step left it: small-1 on the node the step added.
    expect(page.locator("#step-select")).to_have_value("1")
    expect(page.locator("#cluster-root .node[data-node='new-node-1']")).to_contain_text("small-1")
    expect(page.locator("#capacity-refused")).to_contain_text("has its own steps")
    page.click("#capacity-without-steps a")
    page.wait_for_url(re.compile(r"/scenarios/\d+/cluster/\?version=2$"))
    expect(page.locator("#scenario-title")).to_contain_text("· v2")
    page.select_option("#capacity-node", "node-1")
    page.click("#capacity-add-like")
    answer = page.locator("#capacity-answer")
    expect(answer.locator("h3")).to_have_text("How many nodes like node-1?")
    expect(answer.locator(".capacity-verdict")).to_have_text("Nodes like node-1: 1 needed.", timeout=ANSWER_MS)
    expect(answer).to_contain_text("default/small-1")
    snap(page, "walk-08-capacity", full_page=True)
    page.go_back()
    page.wait_for_url(re.compile(r"/cluster/\?version=3&run="))

    # 9. share: a link to the step where small-1 is placed, opened by another visitor (no session), read-only.
    page.go_back()
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)
    page.select_option("#cycle-select", _cycle_of(page, "default/small-1", last=True))
    page.click("button.step[data-step=Total]")
    expect(page).to_have_url(re.compile(rf"/runs/{second_run}/\?cycle=7&step=Total$"))
    expect(page.locator(".outcome.pass")).to_contain_text("new-node-1")
    page.click("#share-button")
    link = page.locator("span.share .share-url")
    expect(link).to_have_value(re.compile(r"/share/[\w-]{20,}"))  # the link keeps the step itself
    visitor = fresh_page()
    visitor.goto(link.input_value())
    expect(visitor.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)
    expect(visitor.locator(".readonly-banner")).to_be_visible()
    expect(visitor.locator("#share-button")).to_have_count(0)
    expect(visitor.locator("#step-heading")).to_have_text("Cycle 8 · default/small-1 · Total")
    expect(visitor.locator(".outcome.pass")).to_contain_text("new-node-1")
    expect(visitor.locator("#steps-summary tr.step-row[data-step='1'] td.placed .count")).to_have_text("1")
    snap(visitor, "walk-09-share", full_page=True)

    # 10. compare: "Compare with…" the first run; the pod that ends differently is small-1.
    page.click("#compare-search")  # the list is asked for when the control is first used
    option = page.locator(f"#compare-with option[value='{first_run}']")
    expect(option).to_have_text(f"run {first_run} · this scenario v2 (timeline)")
    page.select_option("#compare-with", str(first_run))
    page.wait_for_url(re.compile(rf"/compare/\?a={second_run}&b={first_run}$"))
    expect(page.locator(".compare-summary")).to_have_text("1 more stay Pending in B than in A.", timeout=RUN_MS)
    expect(page.locator("table.compare-pods tbody tr")).to_have_text(["default/small-1new-node-1Pending"])
    snap(page, "walk-10-compare", full_page=True)
