"""The browser UI end to end: scenario list → editor → run → steps → share → fork, plus XSS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    api_post,
    create_from_demo,
    editor_text,
    expect_editor_text,
    open_step,
    set_editor_text,
    start_run,
    table_rows,
    zoned_scenario,
)

pytestmark = pytest.mark.browser


def test_it_creates_a_scenario_from_a_demo(page, snap):
    page.goto(page.base_url + "/")
    expect(page.locator("#scenarios-table")).to_contain_text("Topology spread: one zone constraint")
    create_from_demo(page)
    expect(page.locator("#validity")).to_have_text("✓ valid · 4 node(s), 4 pod(s), 1 pending")
    expect(page.locator("#save-status")).to_have_text("Saved · version 1")
    snap(page, "editor")


def test_it_marks_a_yaml_error_at_its_line_and_saves_the_fix(page, snap):
    create_from_demo(page)
    text = editor_text(page)
    line = text.splitlines().index("  - maxSkew: 1") + 1
    set_editor_text(page, text.replace("  - maxSkew: 1", "  - maxSkew: 0"))

    expect(page.locator("#validity")).to_have_text("✗ 1 problem(s)")
    expect(page.locator("#error-list")).to_contain_text(f"line {line}")
    page.click("#error-list button.error-jump")  # scrolls the editor to the line
    marked = page.locator(f".error-line[data-line='{line}']")
    expect(marked).to_contain_text("must be between 1 and")
    expect(page.locator(".code-editor .cm-lint-marker-error")).to_have_count(1)
    expect(page.locator("#save-status")).to_contain_text("Unsaved changes")
    snap(page, "editor-error")

    set_editor_text(page, text.replace("  - maxSkew: 1", "  - maxSkew: 2"))
    expect(page.locator(".error-line")).to_have_count(0)
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    page.click("#save-button")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    page.reload()
    expect_editor_text(page, re.compile(r"- maxSkew: 2\n"))


def test_unsaved_edits_survive_a_reload(page):
    create_from_demo(page)
    text = editor_text(page)
    set_editor_text(page, text + "# a note typed but never saved\n")
    page.wait_for_timeout(400)  # the draft is written 200 ms after the last keystroke
    page.reload()
    expect(page.locator("#draft-banner")).to_contain_text("Restored unsaved edits")
    expect_editor_text(page, re.compile("# a note typed but never saved"))
    page.click("#draft-banner button")
    expect_editor_text(page, text)


def test_tables_edit_the_same_document(page, snap):
    create_from_demo(page)
    page.click("#tab-tables")
    expect(page.locator("#nodes-table tbody tr")).to_have_count(4)
    expect(page.locator("#pods-table tbody tr.pending")).to_have_count(1)

    page.locator("#nodes-table tbody tr").nth(0).locator("[data-action=duplicate]").click()
    expect(page.locator("#nodes-table tbody tr")).to_have_count(5)
    expect(page.locator("#nodes-table tbody tr").nth(1).locator("input").first).to_have_value("node1-1")

    labels = page.locator("[data-key='node-1-labels']")
    labels.fill("kubernetes.io/hostname=node1-1, zone=zoneC")
    labels.press("Enter")
    page.click("#add-pod")
    expect(page.locator("#pods-table tbody tr")).to_have_count(5)
    page.locator("#pods-table tbody tr").nth(0).locator("[data-action=remove]").click()
    expect(page.locator("#pods-table tbody tr")).to_have_count(4)
    expect(page.locator("#validity")).to_contain_text("✓ valid · 5 node(s), 4 pod(s), 2 pending")
    snap(page, "editor-tables")

    page.click("#tab-yaml")
    text = editor_text(page)
    assert "name: node1-1" in text and "zone: zoneC" in text and "name: pod-1" in text
    assert "name: p1\n" not in text
    assert text.startswith("# Hand-written"), "comments of untouched documents are kept"
    expect(page.locator("#validity")).to_contain_text("✓ valid · 5 node(s), 4 pod(s), 2 pending")


def test_a_run_steps_through_filter_and_score_with_the_seed_numbers(page, snap):
    create_from_demo(page)
    run_id = start_run(page)
    snap(page, "run-queue")

    open_step(page, run_id, 0, "Filter")
    pts = table_rows(page, "table.matrix")
    header = page.locator("table.matrix thead th").all_text_contents()
    column = header.index("PodTopologySpread")
    assert {row[0]: row[column] for row in pts} == {"node1": "✗", "node2": "✗", "node3": "✓", "node4": "✓"}
    assert {row[0]: row[-1] for row in pts} == {
        "node1": "✗ rejected",
        "node2": "✗ rejected",
        "node3": "✓ feasible",
        "node4": "✓ feasible",
    }
    reason = page.locator("table.matrix tbody tr[data-node=node1] td.cell.fail[data-detail]")
    expect(reason).to_have_attribute(
        "title",
        re.compile(
            "node1 × PodTopologySpread: Unschedulable: node\\(s\\) didn't match pod topology spread constraints"
        ),
    )
    reason.focus()
    expect(page.locator(".cell-detail")).to_contain_text("didn't match pod topology spread constraints")

    spread = page.locator(".spread-hard").first
    expect(spread.locator("[data-fact='global minimum (minMatchNum)']")).to_have_text("1")
    expect(spread.locator("[data-fact='minDomains']")).to_have_text("1")
    assert table_rows(page, ".spread-hard table.skew-table") == [
        ["zoneA", "node1, node2", "2", "2", "✗ no"],
        ["zoneB", "node3, node4", "1", "1", "✓ allowed"],
    ]
    expect(spread.locator(".chart .main-svg").first).to_be_visible()
    expect(spread.locator(".chart text.bartext")).to_have_text(["2 ✗", "1 ✓"])
    expect(spread.locator(".chart .annotation-text")).to_have_text(["maxSkew 1"])
    snap(page, "run-filter", full_page=True)

    # ← / → walk the steps, and the URL names the step.
    page.locator("body").press("ArrowRight")
    expect(page).to_have_url(re.compile(r"cycle=0&step=PreScore"))
    page.locator("body").press("ArrowRight")
    expect(page).to_have_url(re.compile(r"cycle=0&step=Score"))
    heat = page.locator("[data-chart=scores-heatmap]")
    expect(heat.locator(".main-svg").first).to_be_visible()
    scores = table_rows(page, "table.scores-table")
    assert [row[0].lstrip("★ ") for row in scores] == ["node3", "node4"]
    drawn = heat.evaluate("el => ({y: el.data[0].y, z: el.data[0].z})")
    assert [[str(v) for v in row] for row in drawn["z"]] == [row[1:-1] for row in scores]
    page.check("input[name=score-kind][value=raw]")
    expect(page.locator("input[name=score-kind][value=raw]")).to_be_checked()
    raw = table_rows(page, "table.scores-table")
    assert [row[-1] for row in raw] == [row[-1] for row in scores], "totals do not depend on the switch"
    snap(page, "run-score", full_page=True)

    open_step(page, run_id, 0, "Total")
    chosen = page.locator("table.totals-table tbody th", has_text="★").text_content().lstrip("★ ")
    assert chosen in {"node3", "node4"}
    expect(page.locator(".outcome.pass")).to_contain_text(f"Bound to {chosen}")


def test_an_unschedulable_cycle_shows_the_failed_scheduling_line(page):
    create_from_demo(page, "seed_pts_two_constraints")
    # Cordon node4, the only node both constraints allow, from the Nodes table.
    page.click("#tab-tables")
    page.check("[data-key='node-3-unschedulable']")
    page.click("#tab-yaml")
    expect_editor_text(page, re.compile(r"name: node4\n(.*\n)*spec:\n  unschedulable: true\n"))
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    page.click("#save-button")
    expect(page.locator("#save-status")).to_contain_text("version 2")
    run_id = start_run(page)
    open_step(page, run_id, 0, "Filter")
    expect(page.locator(".failed-scheduling")).to_contain_text(re.compile(r"FailedScheduling 0/4 nodes are available"))


def test_a_share_link_opens_read_only_and_forks(page, fresh_page, snap):
    create_from_demo(page)
    run_id = start_run(page)
    open_step(page, run_id, 0, "Filter")
    page.click("#share-button")
    # The field is filled when the POST answers: wait for the link itself, then read it.
    link = page.locator(".share-url")
    expect(link).to_be_visible()
    expect(link).to_have_value(re.compile(r"^https?://[^/]+/share/[\w-]{20,}(\?.*)?$"), timeout=15_000)
    url = link.input_value()
    assert "/share/" in url, url

    visitor = fresh_page()
    visitor.goto(url)
    # A busy 2-core machine (load average 10+) can take several seconds to stream it: as open_step waits.
    expect(visitor.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(visitor.locator(".readonly-banner")).to_be_visible()
    expect(visitor.locator("#step-heading")).to_contain_text("Cycle 1 · default/mypod · Filter")
    assert table_rows(visitor, ".spread-hard table.skew-table") == [
        ["zoneA", "node1, node2", "2", "2", "✗ no"],
        ["zoneB", "node3, node4", "1", "1", "✓ allowed"],
    ]
    expect(visitor.locator(".spread-why .explain-text")).to_have_text(
        "zone allows zoneB (node3, node4): node3, node4 may take the pod."
    )
    expect(visitor.locator("#share-button")).to_have_count(0)
    expect(visitor.locator("#trace-link")).to_have_attribute("href", re.compile(r"/api/runs/\d+/trace\?token="))
    snap(visitor, "share", full_page=True)

    with visitor.expect_download() as download:
        visitor.click("#trace-link")
    assert download.value.suggested_filename == f"trace-run-{run_id}.json"

    visitor.click("#fork-share")
    visitor.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(visitor.locator("#save-status")).to_have_text("Saved · version 1")
    expect(visitor.locator("#scenario-name")).to_have_value(re.compile(r"\(fork\)$"))
    expect(visitor.locator("#validity")).to_contain_text("✓ valid")


def test_the_cluster_view_groups_nodes_and_queues_pending_pods(page, snap):
    scenario_id = create_from_demo(page)
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    expect(page.locator("section.domain")).to_have_count(2)
    expect(page.locator("#group-key")).to_have_value("zone")
    expect(page.locator("section.domain[data-domain=zoneA] .node")).to_have_count(2)
    expect(page.locator(".queue-lane .pod")).to_have_text(["mypod"])
    page.select_option("#group-key", "kubernetes.io/hostname")
    expect(page.locator("section.domain")).to_have_count(4)

    page.goto(f"{page.base_url}/scenarios/{scenario_id}/")
    run_id = start_run(page)
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/?version=1&run={run_id}")
    placed = page.locator("section.domain[data-domain=zoneB] .pod.bound")
    expect(placed).to_have_text(["★ mypod"])
    expect(page.locator(".queue-lane .pod")).to_have_count(0)
    snap(page, "cluster")
    # ★ answers "why did the run put it there?": the run at the cycle that placed it (issue 51 item 10).
    placed.click()
    page.wait_for_url(re.compile(rf"/runs/{run_id}/\?cycle=0"))
    expect(page.locator("#step-heading")).to_contain_text("default/mypod")


AFFINITY_TEXT = """apiVersion: v1
kind: Node
metadata: {name: a1, labels: {kubernetes.io/hostname: a1, zone: zoneA}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {kubernetes.io/hostname: b1, zone: zoneB}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, labels: {app: db}}
spec: {nodeName: a1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c}]
  affinity:
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        podAffinityTerm:
          topologyKey: zone
          labelSelector: {matchLabels: {app: db}}
"""


def test_the_inter_pod_affinity_heatmap_draws_topology_score(page, snap):
    created = api_post(page, "/api/scenarios", {"name": "preferred affinity", "text": AFFINITY_TEXT})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    run_id = start_run(page)
    open_step(page, run_id, 0, "PreScore")
    chart = page.locator("[data-chart=ipa-topology-score]")
    expect(chart.locator(".main-svg").first).to_be_visible()
    assert chart.evaluate("el => el.data[0].z") == [[10]]
    assert table_rows(page, "table.topology-score-table") == [["zone", "10"]]
    snap(page, "run-prescore-affinity", full_page=True)


XSS_NAME = '<script>window.__xss = "name"</script>"><img src=x onerror="window.__xss=1">'
XSS_TEXT = """apiVersion: v1
kind: Node
metadata:
  name: node1
  labels:
    zone: '"><img src=x onerror="window.__xss=2">'
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: "<script>window.__xss = 3</script>"
spec:
  containers:
  - name: c
"""


def test_untrusted_names_and_labels_render_as_inert_text(page, fresh_page):
    page.goto(page.base_url + "/")
    created = api_post(page, "/api/scenarios", {"name": XSS_NAME, "text": XSS_TEXT})
    share = api_post(page, f"/api/scenarios/{created['id']}/share", {})

    page.goto(page.base_url + "/")
    expect(page.locator("#scenarios-table a.scenario-link", has_text="<script>")).to_have_text(XSS_NAME)

    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#scenario-title")).to_have_text(XSS_NAME)
    expect(page.locator("#error-list")).to_contain_text('"><img src=x onerror="window.__xss=2">')
    expect(page.locator(".inline-error").first).to_contain_text("<img src=x")
    page.click("#tab-tables")
    expect(page.locator("[data-key='node-0-labels']")).to_have_value('zone="><img src=x onerror="window.__xss=2">')

    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/")
    expect(page.locator(".legend")).to_contain_text("app=<script>window.__xss = 3</script>")
    expect(page.locator("section.domain h3").first).to_contain_text('zone="><img src=x')

    visitor = fresh_page()
    visitor.goto(share["url"])
    expect(visitor.locator("#share-title")).to_contain_text(XSS_NAME)

    for p in (page, visitor):
        assert p.evaluate("window.__xss") is None
        assert p.locator("img[src=x]").count() == 0
        assert p.locator("main script").count() == 0


def test_a_large_cluster_is_read_per_domain_one_cycle_at_a_time(page, snap):
    created = api_post(page, "/api/scenarios", {"name": "210 nodes", "text": zoned_scenario()})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    run_id = start_run(page)

    # ?load=cycle: the per-cycle loading of large runs. The picker names every cycle's pod and
    # outcome from the server's cycle index, before those cycles are loaded. Each cycle arrives as
    # its stored columnar segment (binary), never as the JSON events.
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{page.base_url}/runs/{run_id}/?cycle=0&step=Score&load=cycle")
    expect(page.locator(".progress-text")).to_contain_text("loading one cycle at a time")
    expect(page.locator("#cycle-select option")).to_have_text(
        [
            re.compile(r"^cycle 1: default/web-0 → node-\d+$"),
            re.compile(r"^cycle 2: default/web-1 → node-\d+$"),
            re.compile(r"^cycle 3: default/web-2 → node-\d+$"),
        ]
    )
    expect(page.locator("#run-root")).to_have_attribute("data-nodes", "210")
    domains = page.locator("[data-chart=scores-domains]")
    expect(domains.locator(".main-svg").first).to_be_visible()
    rows = table_rows(page, "table.score-domain-table")
    assert sorted(r[0].lstrip("▸▾ ") for r in rows) == ["zone-a", "zone-b", "zone-c"]
    assert sorted(r[1] for r in rows) == ["70", "70", "70"]
    drawn = domains.evaluate("el => el.data[0].y.length")
    assert drawn == 3
    assert any(f"/api/runs/{run_id}/segment?cycle=0" in url for url in asked)
    assert not any("/events?cycle=" in url for url in asked)
    expect(page.locator("[data-chart=score-totals-domains] .main-svg").first).to_be_visible()

    # Drill down into one domain: its nodes only.
    page.select_option("#score-domain", "zone-b")
    expect(page.locator("section.panel h3", has_text="Nodes in zone=zone-b")).to_be_visible()
    zones = {r[1] for r in table_rows(page, "table.scores-table")}
    assert zones == {"zone-b"}, zones
    snap(page, "run-score-domains", full_page=True)

    # Filter: the matrix grouped by zone, a domain opens to its nodes.
    page.click("button.step[data-step=Filter]")
    expect(page.locator("table.matrix.aggregated tbody tr.domain")).to_have_count(3)
    page.locator("table.matrix.aggregated tr.domain button", has_text="zone-a").click()
    expect(page.locator("table.matrix.aggregated tr.drill")).to_have_count(70)

    # PreScore: the soft hostname constraint (210 domains) is drawn as a distribution of counts.
    page.click("button.step[data-step=PreScore]")
    soft = page.locator(".spread-soft").filter(
        has=page.locator("[data-fact=topologyKey]", has_text="kubernetes.io/hostname")
    )
    expect(soft.locator(".chart .main-svg").first).to_be_visible()
    assert "domains by matching-pod count" in soft.locator(".chart").evaluate("el => el.layout.title.text")


def test_payload_omitted_events_are_fetched_in_order(page):
    page.goto(page.base_url + "/")
    result = page.evaluate("""async () => {
        const { completeEvents } = await import("/static/js/socket.js");
        const asked = [];
        const fetchOne = async (seq) => { asked.push(seq); return { events: [{ seq, cycle: 0, payload: { full: seq } }] }; };
        const events = [
            { seq: 4, cycle: 0, payload: { small: 1 } },
            { seq: 5, cycle: 0, payload: null, payloadOmitted: true },
            { seq: 6, cycle: 0, payload: { small: 2 } },
            { seq: 7, cycle: 0, payload: null, payloadOmitted: true },
        ];
        const done = await completeEvents(1, events, fetchOne);
        return { asked: asked.sort(), seqs: done.map((e) => e.seq), payloads: done.map((e) => e.payload) };
    }""")
    assert result["asked"] == [5, 7]
    assert result["seqs"] == [4, 5, 6, 7]
    assert result["payloads"] == [{"small": 1}, {"full": 5}, {"small": 2}, {"full": 7}]


def test_a_queued_run_is_cancelled_from_its_page_and_run_again(page):
    """Cancel wherever work is shown, and a run that did not finish offers Run again (issue 51 item 2).
    The one worker is busy with a big run, so the second run waits queued while its page is open."""
    from tests.webui.support import scenario_text

    big = api_post(page, "/api/scenarios", {"name": "big", "text": scenario_text(500, 1000, 200)})
    small = api_post(page, "/api/scenarios", {"name": "small", "text": scenario_text(3, 2)})
    busy = api_post(page, f"/api/scenarios/{big['id']}/runs", {})
    waiting = api_post(page, f"/api/scenarios/{small['id']}/runs?mode=single", {})
    try:
        page.goto(f"{page.base_url}/runs/{waiting['id']}/")
        expect(page.locator("#run-root")).to_have_attribute("data-status", "streaming")
        expect(page.locator("#run-again")).to_be_hidden()
        page.click("#cancel-run")
        expect(page.locator("#run-root")).to_have_attribute("data-status", "cancelled", timeout=60_000)
        expect(page.locator("#cancel-run")).to_be_hidden()
        page.click("#run-again")
        page.wait_for_url(re.compile(r"/runs/(?!%d/)\d+/$" % waiting["id"]))
        again = int(re.search(r"/runs/(\d+)/", page.url).group(1))
        listed = page.request.get(f"{page.base_url}/api/runs/{again}").json()
        assert (listed["scenario"], listed["version"], listed["mode"]) == (small["id"], 1, "single")
    finally:
        # Frees the one worker for the next tests (a run that has ended answers no; that is fine too).
        token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
        page.request.post(f"{page.base_url}/api/runs/{busy['id']}/cancel", headers={"X-CSRFToken": token})
