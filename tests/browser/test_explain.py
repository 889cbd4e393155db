"""Issue 12: the run view explains — each point tried as a new user would, in Chromium at 1440×900.

Every sentence and number checked here is the engine's: the tests compare what is drawn with the
run's own events and its /explain answer, never with arithmetic done in the browser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, create_from_demo, expect_editor_text, open_step, start_run, table_rows
from tests.scheduler_core.builders import node_text, numbers_scenario, pinned_spec, pod_text, preemption_scenario

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]


def run_text(page, name: str, text: str) -> int:
    created = api_post(page, "/api/scenarios", {"name": name, "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    return start_run(page)


def cycle_events(page, run_id: int, cycle: int = 0) -> list[dict]:
    return page.request.get(f"{page.base_url}/api/runs/{run_id}/events?cycle={cycle}").json()["events"]


def payload(events: list[dict], point: str, plugin: str | None) -> dict:
    return next(e["payload"] for e in events if e["extensionPoint"] == point and e["plugin"] == plugin)


# ---------------------------------------------------------------------------- 1. the first page


def test_the_first_page_fits_at_1440_and_every_row_button_takes_its_click(page, snap):
    long_name = "A scenario with a rather long name to see that it wraps inside its card " * 2
    api_post(page, "/api/scenarios", {"name": long_name.strip(), "text": "", "description": "x" * 300})
    page.goto(page.base_url + "/")
    demos = len(page.request.get(page.base_url + "/api/demos").json())
    expect(page.locator("#scenarios-table tbody tr")).to_have_count(demos + 1)  # the demos and this visitor's own
    table = page.locator("#scenarios-table").bounding_box()
    card = page.locator("section.panel.grow").bounding_box()
    sidebar = page.locator("aside.side").bounding_box()
    assert table["x"] + table["width"] <= card["x"] + card["width"] + 0.5
    assert card["x"] + card["width"] <= sidebar["x"]
    missed = page.evaluate("""() => [...document.querySelectorAll('#scenarios-table .row-actions > *')].flatMap((b) => {
        b.scrollIntoView({block: 'center'});
        const box = b.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit === b || b.contains(hit) ? [] : [`${b.textContent} of ${b.closest('tr').dataset.id} is covered by ${hit && hit.outerHTML.slice(0, 80)}`];
    })""")
    assert missed == []
    labels = page.locator("#scenarios-table .row-actions > *").all_text_contents()
    assert {"Cluster", "Run", "Fork"} <= set(labels) and len(labels) >= 15
    page.evaluate("window.scrollTo(0, 0)")
    snap(page, "scenario-list")


# ---------------------------------------------------------------------------- 2. skew bars


def test_the_conflicting_example_shows_each_constraints_own_verdict_and_why_nothing_fits(page, snap):
    create_from_demo(page, "seed_pts_conflict")
    run_id = start_run(page)
    open_step(page, run_id, 0, "Filter")
    why = "zone allows zoneB (node3); node allows node2 (zoneA): no node is allowed by both."
    expect(page.locator(".cycle-why .explain-text")).to_have_text(why)
    assert page.request.get(f"{page.base_url}/api/runs/{run_id}/cycles/0/explain").json()["headline"] == why

    zone, node_chart = page.locator(".spread-hard").nth(0), page.locator(".spread-hard").nth(1)
    expect(zone.locator("p.allowance")).to_have_text("zone allows zoneB (node3)")
    expect(node_chart.locator("p.allowance")).to_have_text("node allows node2 (zoneA)")
    # Each chart shows its OWN constraint's verdict: zoneB ✓ although node3 failed the node constraint.
    expect(zone.locator(".chart text.bartext")).to_have_text(["2 ✗", "1 ✓"])
    expect(node_chart.locator(".chart text.bartext")).to_have_text(["2 ✗", "1 ✓", "2 ✗"])
    assert table_rows(page, ".spread-hard[data-topology-key=zone] table.skew-table") == [
        ["zoneA", "node1, node2", "3", "2", "✗ no"],
        ["zoneB", "node3", "2", "1", "✓ allowed"],
    ]

    # The drawn bars are the engine's picture, number for number.
    picture = payload(cycle_events(page, run_id), "PreFilter", "PodTopologySpread")["picture"]
    for i, constraint in enumerate(picture["constraints"]):
        drawn = page.locator(f".spread-hard[data-constraint='{i}'] .chart").evaluate(
            "el => ({x: el.data[0].x, y: el.data[0].y})"
        )
        assert drawn == {
            "x": [d["value"] for d in constraint["domains"]],
            "y": [d["skew"] for d in constraint["domains"]],
        }
    snap(page, "run-conflict-filter", full_page=True)


def test_large_counts_are_drawn_as_the_skew_from_the_minimum(page, snap):
    nodes = [node_text(f"n{i}", labels=f", zone: z{i}", pods="500") for i in range(3)]
    running = [
        pod_text(f"w{i}-{k}", node_name=f"n{i}", cpu="0", labels="{app: web}")
        for i, count in enumerate([337, 336, 337])
        for k in range(count)
    ]
    spread = """  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
"""
    run_id = run_text(
        page, "337 336 337", "---\n".join(nodes + running + [pod_text("new", spread, cpu="0", labels="{app: web}")])
    )
    open_step(page, run_id, 0, "Filter")
    chart = page.locator(".spread-hard .chart")
    expect(chart.locator("text.bartext")).to_have_text(["2 ✗", "1 ✓", "2 ✗"])
    drawn = chart.evaluate("el => ({y: el.data[0].y, top: el.layout.yaxis.range[1]})")
    assert drawn["y"] == [2, 1, 2] and drawn["top"] < 10, "the difference is visible, not lost on a 0-400 axis"
    assert table_rows(page, "table.skew-table") == [
        ["z0", "n0", "337", "2", "✗ no"],
        ["z1", "n1", "336", "1", "✓ allowed"],
        ["z2", "n2", "337", "2", "✗ no"],
    ]
    expect(page.locator(".outcome.pass")).to_contain_text("Bound to n1")
    expect(page.locator(".cycle-why .explain-text")).to_have_text(
        "1 of 3 node(s) passed every Filter plugin; rejected: 2 node(s) didn't match pod topology spread constraints "
        "(n0: zone=z0: 337 matching pod(s) + 1 (this pod) − minimum 336 = skew 2 > maxSkew 1; "
        "n2: zone=z2: 337 matching pod(s) + 1 (this pod) − minimum 336 = skew 2 > maxSkew 1)."
    )
    snap(page, "run-skew-large-counts", full_page=True)


# ---------------------------------------------------------------------------- 3. scores and the winner


def test_score_opens_on_weighted_and_the_total_step_explains_the_winner(page, snap):
    create_from_demo(page)
    run_id = start_run(page)
    events = cycle_events(page, run_id)
    open_step(page, run_id, 0, "Score")
    expect(page.locator("input[name=score-kind][value=weighted]")).to_be_checked()
    weighted = {
        p: payload(events, "NormalizeScore", p)["weighted"]
        for p in [e["plugin"] for e in events if e["extensionPoint"] == "NormalizeScore"]
    }
    rows = table_rows(page, "table.scores-table")
    header = page.locator("table.scores-table thead th").all_text_contents()
    for row in rows:
        node_name = row[0].lstrip("★= ")
        for column, plugin in enumerate(header[1:-1], start=1):
            assert row[column] == str(weighted[plugin.split(" (")[0]][node_name])

    open_step(page, run_id, 0, "Total")
    expect(page.locator(".winner-why .explain-text")).to_have_text("node4 beat node3 by 2: NodeResourcesFit +2.")
    assert ["NodeResourcesFit", "×1", "97", "95", "+2"] in table_rows(page, "table.margin-table")
    # Plotly loads after the step's tables: wait for the chart to be drawn before reading it.
    expect(page.locator("[data-chart=totals] .main-svg").first).to_be_visible()
    stacked = page.locator("[data-chart=totals]").evaluate(
        "el => ({mode: el.layout.barmode, traces: el.data.map((t) => ({name: t.name, y: t.y, x: t.x}))})"
    )
    assert stacked["mode"] == "stack"
    for trace in stacked["traces"]:
        plugin = trace["name"].split(" ×")[0]
        assert trace["x"] == [weighted[plugin][n] for n in trace["y"]]
    totals = payload(events, "Total", None)["totalScores"]
    labels = page.locator("[data-chart=totals]").evaluate("el => el.layout.annotations.map((a) => a.text)")
    assert labels == [f"{totals['node3']}", f"{totals['node4']} ★ chosen"]
    snap(page, "run-total-winner", full_page=True)


# ---------------------------------------------------------------------------- 4. Filter reasons


def test_filter_reasons_are_grouped_with_counts_and_open_to_their_nodes(page, snap):
    text = "---\n".join(
        [
            node_text("a", cpu="1"),
            node_text("b", taints="{key: gpu, effect: NoSchedule}"),
            node_text("c", cpu="1"),
            pod_text("web", cpu="2"),
        ]
    )
    run_id = run_text(page, "no room", text)
    open_step(page, run_id, 0, "Filter")
    groups = page.locator("li.reason-group button.reason")
    expect(groups).to_have_text(
        [
            re.compile(r"^2\s+Insufficient cpu — NodeResourcesFit$"),
            re.compile(r"^1\s+node\(s\) had untolerated taint\(s\) — TaintToleration$"),
        ]
    )
    expect(page.locator(".failed-scheduling")).to_contain_text("2 Insufficient cpu")
    groups.first.click()
    expect(page.locator(".reason-nodes ul.node-numbers li")).to_have_text(
        [
            re.compile(r"^a\s+cpu: asks 2000m; free 1000m of 1000m allocatable \(0m requested by 0 pod\(s\)\)$"),
            re.compile(r"^c\s+cpu: asks 2000m; free 1000m of 1000m allocatable"),
        ]
    )
    expect(page.locator("table.matrix tr.marked")).to_have_count(2)
    expect(page.locator("table.matrix tr.marked th")).to_have_text([re.compile("a$"), re.compile("c$")])
    snap(page, "run-filter-reasons", full_page=True)


def test_filter_cells_and_the_why_sentence_carry_the_engines_numbers(page, snap):
    """Issue 28: request against free room, the taint, the port's holder, the label wanted — the
    texts drawn are the /explain answer's, the browser computes none of them."""
    run_id = run_text(page, "numbers", numbers_scenario())
    open_step(page, run_id, 0, "Filter")
    explained = page.request.get(f"{page.base_url}/api/runs/{run_id}/cycles/0/explain").json()
    expect(page.locator(".cycle-why .explain-text")).to_have_text(explained["headline"])
    expect(page.locator(".cycle-why .explain-text")).to_contain_text(
        "full: cpu: asks 2500m; free 1800m of 4000m allocatable (2200m requested by 9 pod(s))"
    )
    nodes = explained["filterDetails"]["nodes"]
    for node, plugin in [
        ("full", "NodeResourcesFit"),
        ("tainted", "TaintToleration"),
        ("ports", "NodePorts"),
        ("hdd", "NodeAffinity"),
    ]:
        cell = page.locator(f"table.matrix tr[data-node='{node}'] td.cell.fail.has-numbers")
        expect(cell).to_have_count(1)
        cell.focus()
        expect(page.locator("p.cell-detail")).to_contain_text(f"{node} × {plugin}: ")
        expect(page.locator("p.cell-detail")).to_contain_text(nodes[node]["plugins"][plugin]["text"])
    expect(page.locator("p.cell-detail")).to_contain_text("nodeSelector wants disktype=ssd; the node has disktype=hdd")
    page.locator("li.reason-group button.reason", has_text="Insufficient cpu").click()
    expect(page.locator(".reason-nodes ul.node-numbers li")).to_have_text(
        [re.compile(r"^full\s+cpu: asks 2500m; free 1800m of 4000m allocatable \(2200m requested by 9 pod\(s\)\)$")]
    )
    snap(page, "run-filter-numbers", full_page=True)


def test_postfilter_ranks_the_candidates_and_marks_the_criterion_that_decided(page, snap):
    """Issue 28: DefaultPreemption's criteria per candidate, the deciding one marked (◆), the
    chosen node starred — as the /explain answer gives them."""
    run_id = run_text(page, "preempting", preemption_scenario())
    open_step(page, run_id, 0, "PostFilter")
    ranking = page.request.get(f"{page.base_url}/api/runs/{run_id}/cycles/0/explain").json()["preemption"]
    expect(page.locator(".preemption-why .explain-text")).to_have_text(ranking["sentence"])
    expect(page.locator("table.ranking th.deciding")).to_have_text("2. highest victim priority ◆")
    rows = table_rows(page, "table.ranking")
    starts = [c["earliestStart"] for c in ranking["candidates"]]  # the run's stand-in start times
    assert all(starts)
    assert rows == [
        ["★ a", "0", "1", "1", "1", starts[0], "chosen"],
        ["b", "0", "5", "5", "1", starts[1], "criterion 2"],
    ]
    expect(page.locator("table.ranking tr[data-node='b'] td.dropped")).to_have_text("5")
    snap(page, "run-postfilter-ranking", full_page=True)


def test_only_preemption_says_no_node_would_have_room_and_never_above_a_preemption_that_succeeded(page):
    """Issue 28: the DynamicResources card showed preemption's sentence above a successful preemption."""
    run_id = run_text(page, "preempting", preemption_scenario())
    open_step(page, run_id, 0, "PostFilter")
    dra = page.locator("section.panel", has=page.locator("h3", has_text="DynamicResources"))
    expect(dra).to_contain_text("no new claims to deallocate")
    expect(page.locator("section.panel", has=page.locator("h3", has_text="DefaultPreemption"))).to_contain_text("★ a")
    expect(page.get_by_text(re.compile("No candidate node"))).to_have_count(0)


def test_a_preemption_that_finds_no_candidate_says_so_with_its_reasons_not_a_cause_of_its_own(page):
    """Every pod at the pending pod's priority: no victim anywhere. The box said "No node would have
    room even after preempting lower-priority pods" where no pod had a lower priority (issue 51)."""
    nodes = "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\nstatus: {{allocatable: {{cpu: '1', pods: '10'}}}}\n"
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: busy-{n}}}\nspec: {{nodeName: {n}, "
        "containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n"
        for n in ("a", "b")
    )
    pending = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n"
    run_id = run_text(page, "no victims", nodes + pending)
    open_step(page, run_id, 0, "PostFilter")
    box = page.locator("section.panel", has=page.locator("h3", has_text="DefaultPreemption"))
    expect(box).to_contain_text("No preemption victims found for incoming pod")
    expect(box).to_contain_text("No candidate node: preemption would not help on any node (the reasons above say why).")
    expect(page.get_by_text(re.compile("lower-priority"))).to_have_count(0)


def test_scoring_steps_of_a_single_feasible_node_are_drawn_as_skipped(page, snap):
    """Issue 28: with one feasible node kube-scheduler runs no PreScore / Score / NormalizeScore; the
    steps say so (the engine's sentence), the stepper strikes them and their numbers are folded away."""
    run_id = run_text(page, "one feasible", (REPO / "webui" / "demos" / "seed_pts_two_constraints.yaml").read_text())
    open_step(page, run_id, 0, "Score")
    scoring = page.request.get(f"{page.base_url}/api/runs/{run_id}/cycles/0/explain").json()["scoring"]
    assert scoring["skipped"] and scoring["node"] == "node4"
    expect(page.locator(".skipped-notice")).to_contain_text(scoring["sentence"])
    for step in ("PreScore", "Score", "NormalizeScore"):
        expect(page.locator(f"ol.steps button.step[data-step='{step}']")).to_have_class(re.compile(r"\bskipped\b"))
    expect(page.locator("ol.steps button.step[data-step='Filter']")).not_to_have_class(re.compile(r"\bskipped\b"))
    numbers = page.locator("details.skipped-numbers")
    expect(numbers).not_to_have_attribute("open", "")
    expect(numbers.locator(":scope > summary")).to_have_text("SchedLab's numbers for the trace (they decided nothing)")
    snap(page, "run-score-skipped", full_page=True)
    open_step(page, run_id, 0, "PreScore")
    expect(page.locator(".skipped-notice")).to_contain_text("only node4 passed Filter")
    open_step(page, run_id, 0, "Total")
    expect(page.locator(".winner-why .explain-text")).to_have_text(
        "node4 was the only node that passed Filter, so it was chosen without scoring "
        "(kube-scheduler runs no PreScore or Score for a single feasible node)."
    )
    expect(page.locator(".skipped-notice")).to_contain_text("they decided nothing")


def test_filter_says_when_pre_filter_narrowed_the_nodes_to_one_that_does_not_exist(page, snap):
    run_id = run_text(
        page, "pinned to a ghost", "---\n".join([node_text("a"), node_text("b"), pod_text("web", pinned_spec("ghost"))])
    )
    open_step(page, run_id, 0, "Filter")
    expect(page.locator(".prefilter-notice")).to_have_text(
        "PreFilter (NodeAffinity) narrowed the nodes to ghost, which is not a node of the cluster: Filter had no node to check."
    )
    expect(page.locator("table.matrix")).to_have_count(0)
    expect(page.locator("li.reason-group button.reason")).to_have_text(
        [re.compile(r"^2\s+node\(s\) didn't satisfy plugin\(s\) \[NodeAffinity\] — NodeAffinity$")]
    )
    snap(page, "run-filter-prefilter", full_page=True)
    page.click("#goto-prefilter")
    expect(page).to_have_url(re.compile(r"cycle=0&step=PreFilter"))
    expect(page.locator(".prefilter-why .explain-text")).to_contain_text("narrowed the nodes to ghost")


def test_filter_says_when_pre_filter_rejected_the_pod(page):
    run_id = run_text(
        page, "conflicting pins", "---\n".join([node_text("a"), node_text("b"), pod_text("web", pinned_spec("a", "b"))])
    )
    open_step(page, run_id, 0, "Filter")
    expect(page.locator("button.step[data-step=Filter]")).to_be_enabled()
    expect(page.locator(".prefilter-notice")).to_have_text(
        "PreFilter rejected the pod (NodeAffinity): pod affinity terms conflict; Filter did not run."
    )
    expect(page.locator("table.matrix")).to_have_count(0)
    page.click("#goto-prefilter")
    expect(page).to_have_url(re.compile(r"step=PreFilter"))


# ---------------------------------------------------------------------------- 6. newcomers


def test_create_blank_opens_a_small_valid_template(page, snap):
    page.goto(page.base_url + "/")
    page.fill("#new-name", "my first scenario")
    page.click("#new-scenario button[type=submit]")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(page.locator("#validity")).to_have_text("✓ valid · 2 node(s), 1 pod(s), 1 pending")
    expect_editor_text(page, re.compile(r"^# A small cluster to start from"))
    snap(page, "editor-blank")
    start_run(page)
    expect(page.locator("#cycle-select option")).to_have_text([re.compile(r"cycle 1: default/web → node-a")])


def test_demo_descriptions_say_what_each_example_teaches(page):
    page.goto(page.base_url + "/")
    descriptions = page.locator("#demo-list .demo-description")
    # every demo the catalogue serves (the seeds and examples/' preemption, steps, capacity and DRA files) is described
    demos = page.request.get(page.base_url + "/api/demos").json()
    assert len(demos) >= 10
    expect(descriptions).to_have_count(len(demos))
    for text in descriptions.all_text_contents():
        assert len(text) > 80 and "maxSkew" not in text and "Hand-written" not in text and not text.endswith(","), text
    expect(page.locator("#demo-list li", has_text="conflicting")).to_contain_text("No node satisfies both")


def test_an_example_demo_runs_to_the_end_from_the_list(page):
    """The stuck rollout of examples/ as a new user meets it: demo -> run -> the stuck line."""
    create_from_demo(page, "rollout_stuck")
    start_run(page)
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#run-stuck")).to_contain_text("rollout(s) stuck: Deployment default/web")


def test_arrows_step_even_when_the_cycle_picker_has_focus(page):
    text = "---\n".join([node_text("a"), node_text("b"), pod_text("one"), pod_text("two")])
    run_id = run_text(page, "two pods", text)
    open_step(page, run_id, 0, "PreFilter")
    page.focus("#cycle-select")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"cycle=0&step=Filter"))
    expect(page.locator("#cycle-select")).to_have_value("0")
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"cycle=0&step=PreFilter"))
    page.keyboard.press("Shift+ArrowRight")
    expect(page).to_have_url(re.compile(r"cycle=1&step=PreFilter"))
    expect(page.locator("#cycle-select")).to_have_value("1")


def test_a_cycle_picked_where_the_step_did_not_run_opens_its_first_step(page):
    """From the Total of a placed pod, the picker's unschedulable cycle (no Total there) opens on its
    first step, as Shift+→ does, not on a step that did not run."""
    text = "---\n".join([node_text("a"), pod_text("one"), pod_text("huge", cpu="64")])
    run_id = run_text(page, "one fits", text)
    open_step(page, run_id, 0, "Total")
    page.select_option("#cycle-select", "1")
    expect(page).to_have_url(re.compile(r"cycle=1&step=QueueSort$"))
    expect(page.locator("#step-heading")).to_have_text("Cycle 2 · default/huge · QueueSort")
    page.select_option("#cycle-select", "0")
    expect(page).to_have_url(re.compile(r"cycle=0&step=QueueSort$"))  # it ran there: kept


def test_the_api_docs_describe_every_operation(page, snap):
    spec = page.request.get(page.base_url + "/api/openapi.json").json()
    operations = [op for item in spec["paths"].values() for op in item.values()]
    assert operations and all(op.get("summary") and op.get("description") for op in operations)
    page.goto(page.base_url + "/api/docs")
    expect(page.locator(".opblock-summary-description")).to_have_count(len(operations))
    explain = page.locator(".opblock-summary-description", has_text="Explain one cycle")
    explain.click()
    expect(
        page.locator(".opblock-description-wrapper", has_text="the winner's margin over the runner-up")
    ).to_be_visible()
    explain.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -120)")
    snap(page, "api-docs")
