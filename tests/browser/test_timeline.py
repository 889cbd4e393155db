"""A run in the UI is the scheduler run to the end: the timeline lists every attempt, queue move and
cluster change; an attempt opens the stepper; a pod's journey; the queues as an attempt starts; a
share link to one attempt's step.

The scenario: `high` (priority 1000) needs 1.5 CPUs; n1's two low-priority pods hold both its CPUs.
It preempts both, is retried when the first victim is gone (the second still terminating: not
eligible), and binds when the second is gone. `b` needs affinity to `a` (lower priority, pending):
it fails, and `a`'s binding sends it back to the queue (InterPodAffinity's hint); it then binds next
to `a`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, create_from_demo, open_step, start_run

pytestmark = pytest.mark.browser


def pod(name: str, cpu: str, priority: int, extra: str = "", node: str = "", labels: str = "{}") -> str:
    node_line = f"  nodeName: {node}\n" if node else ""
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, labels: {labels}}}\nspec:\n{node_line}"
        f'  priority: {priority}\n  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]\n{extra}'
    )


NODES = [
    f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
    f'status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n'
    for name, cpu in (("n1", "2"), ("n2", "1"))
]
AFFINITY = """  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}
"""
SCENARIO = "---\n".join(
    NODES
    + [
        pod("low-1", "1", 0, node="n1"),
        pod("low-2", "1", 0, node="n1"),
        pod("high", "1500m", 1000),
        pod("a", "100m", 10, labels="{app: a}"),
        pod("b", "100m", 100, AFFINITY),
    ]
)
TERMINATING = "not eligible due to a terminating pod on the nominated node."


def attempts(page) -> list[str]:
    return page.locator("#timeline-panel li.attempt .text").all_text_contents()


def test_the_timeline_steps_through_a_preemption_and_a_retry_caused_by_a_binding(page, snap):
    created = api_post(page, "/api/scenarios", {"name": "preempt and retry", "text": SCENARIO})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    run_id = start_run(page)  # the Run button: a run to the end
    panel = page.locator("#timeline-panel")
    expect(panel.locator("li.attempt")).to_have_count(6)
    told = attempts(page)
    assert told[0] == (
        "default/high (attempt 1): unschedulable — 0/2 nodes are available: 2 Insufficient cpu. "
        "→ preempts default/low-1, default/low-2 on n1"
    )
    assert told[4].startswith("default/high (attempt 2): unschedulable") and told[4].endswith(TERMINATING)
    assert told[5] == "default/high (attempt 3): scheduled to n1"
    expect(panel.locator(".timeline-summary")).to_have_text(
        "At 0:00.600 the run ended after 6 attempt(s). Every pod is placed."
    )
    expect(panel.locator("li.change .text")).to_contain_text(
        ["default/low-1 on n1 terminating (preempted by default/high)"]
    )

    # Attempt 1 of high: the preemption, carried out.
    panel.locator("li.attempt .text").nth(0).click()
    expect(page.locator("#step-heading")).to_contain_text("Cycle 1 · default/high")
    open_step(page, run_id, 0, "PostFilter")
    expect(page.locator(".carried-out")).to_have_text(
        "Evicted default/low-1, default/low-2 and nominated the pod to n1."
    )
    # Attempt 2: retried when low-1 was removed; low-2 still terminating, so no new preemption.
    panel.locator("li.attempt .text").nth(4).click()
    expect(page.locator("#step-heading")).to_contain_text("Cycle 5 · default/high")
    expect(page.locator("#timeline-panel li.attempt.current .text")).to_have_text(told[4])
    page.click("button.step[data-step=PostFilter]")
    expect(page.locator("#step-view")).to_contain_text(TERMINATING)
    # Attempt 3: bound to n1.
    panel.locator("li.attempt .text").nth(5).click()
    expect(page.locator("#step-heading")).to_contain_text("Cycle 6 · default/high")
    snap(page, "run-timeline", full_page=True)

    # b's journey: rejected, moved back by a's binding through InterPodAffinity's hint, bound.
    page.fill("#journey-pod", "default/b")
    page.press("#journey-pod", "Enter")  # the server's entries of that pod (a search: part of a name finds it)
    expect(page.locator("#timeline-counts")).to_contain_text("matching “default/b”")
    expect(panel.locator("li .text")).to_have_text(
        [
            "default/b moved to activeQ: created",
            "default/b (attempt 1): unschedulable — 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod "
            "affinity rules. no new claims to deallocate, preemption: 0/2 nodes are available: 1 Preemption is not helpful "
            "for scheduling, 1 node(s) didn't match pod affinity rules.",
            "default/b moved to backoffQ: pod default/a bound (InterPodAffinity)",
            "default/b moved to activeQ: PopFromBackoffQ",
            "default/b (attempt 2): scheduled to n2",
            "default/b bound to n2",
        ]
    )

    # The cluster view of the run: the victims struck out on n1, where high now runs.
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/?version=1&run={run_id}")
    n1 = page.locator(".node[data-node=n1]")
    expect(n1.locator(".pod.evicted")).to_have_text(["✕ low-1", "✕ low-2"])
    expect(n1.locator(".pod.bound")).to_have_text(["★ high"])
    page.go_back()

    # The queues as b's second attempt started: high waits for its victims, unschedulable.
    open_step(page, run_id, 3, "QueueSort")
    lane = page.locator(".queue-lane")
    expect(lane.locator("[data-queue=unschedulablePods] li")).to_have_text(["default/high"])
    expect(lane.locator("[data-queue=activeQ] p")).to_have_text("empty")


def test_a_share_link_opens_an_attempts_step_with_its_timeline(page, fresh_page):
    created = api_post(page, "/api/scenarios", {"name": "share an attempt", "text": SCENARIO})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    run_id = start_run(page)
    open_step(page, run_id, 4, "PostFilter")
    page.click("#share-button")
    link = page.locator(".share-url")
    expect(link).to_have_value(re.compile(r"/share/[\w-]{20,}"), timeout=15_000)
    visitor = fresh_page()
    visitor.goto(link.input_value())
    expect(visitor.locator("#step-heading")).to_contain_text("Cycle 5 · default/high · PostFilter")
    expect(visitor.locator("#step-view")).to_contain_text(TERMINATING)
    expect(visitor.locator("#timeline-panel li.attempt")).to_have_count(6)
    expect(visitor.locator("#timeline-panel li.attempt.current .text")).to_contain_text("default/high (attempt 2)")


def test_a_pods_claims_show_their_state_class_and_bound_volume(page):
    text = (Path(__file__).resolve().parents[1] / "fixtures" / "statefulset_ebs.yaml").read_text()
    created = api_post(page, "/api/scenarios", {"name": "statefulset", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    run_id = start_run(page)
    cycles = page.request.get(f"{page.base_url}/api/runs/{run_id}/cycles").json()
    web2 = next(c["cycle"] for c in cycles if c["pod"] == "shop/web-2")
    open_step(page, run_id, web2, "QueueSort")
    row = page.locator("table.volumes-table tbody tr").first
    expect(row).to_contain_text("shop/data-web-2 (bound)")
    expect(row).to_contain_text("gp2 · WaitForFirstConsumer")
    expect(row).to_contain_text("pvc-c5e7a9b1-3d4f-4c8e-a5e7-9b1d3f5a7c9e")
    expect(row).to_contain_text("topology.kubernetes.io/zone In us-east-1c")


def test_the_cluster_view_shows_persistent_volumes_by_zone(page):
    text = (Path(__file__).resolve().parents[1] / "fixtures" / "statefulset_ebs.yaml").read_text()
    created = api_post(page, "/api/scenarios", {"name": "statefulset", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/?version=1")
    page.select_option("#group-key", "topology.kubernetes.io/zone")
    section = page.locator(".volumes-by-domain")
    expect(section.locator("h3")).to_have_text("PersistentVolumes by topology.kubernetes.io/zone (4)")
    zone_c = section.locator(".volume-domain[data-domain=us-east-1c]")
    expect(zone_c.locator("li.volume[data-volume=pvc-c5e7a9b1-3d4f-4c8e-a5e7-9b1d3f5a7c9e]")).to_contain_text(
        "→ shop/data-web-2"
    )


def test_two_configurations_of_a_scenario_compared_side_by_side(page, fresh_page):
    here = Path(__file__).resolve().parents[1] / "fixtures" / "compare"
    text = (here / "two_nodes.yaml").read_text()
    created = api_post(page, "/api/scenarios", {"name": "least vs most", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    first = start_run(page)
    # The same cluster with MostAllocated: a second version, run from the editor.
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    page.request.put(
        f"{page.base_url}/api/scenarios/{created['id']}",
        headers={"X-CSRFToken": token, "Content-Type": "application/json"},
        data=__import__("json").dumps({"text": text + "---\n" + (here / "most_allocated.yaml").read_text()}),
    )
    page.reload()
    second = start_run(page)
    page.click("#compare-search")  # the list is asked for when the control is first used
    page.select_option("#compare-with", str(first))
    page.wait_for_url(re.compile(rf"/compare/\?a={second}&b={first}"))
    expect(page.locator(".compare-summary")).to_have_text("1 pod(s) land elsewhere in B than in A.")
    assert page.locator("table.compare-pods tbody tr").all_text_contents() == ["default/webn1n2"]
    page.select_option("#compare-pod", "default/web")
    expect(page.locator("table.compare-scores")).to_contain_text("NodeResourcesFit")
    expect(page).to_have_url(re.compile(r"pod=default%2Fweb"))

    # Shared like a run: a read-only link a visitor opens without an account.
    page.click("#share-comparison")
    link = page.locator(".share-url")
    expect(link).to_have_value(re.compile(r"/share/[\w-]{20,}"), timeout=15_000)
    visitor = fresh_page()
    visitor.goto(link.input_value())
    visitor.wait_for_url(re.compile(r"/compare/\?a=\d+&b=\d+&token="))
    expect(visitor.locator(".compare-summary")).to_have_text("1 pod(s) land elsewhere in B than in A.")
    expect(visitor.locator(".readonly-banner")).to_be_visible()


def test_what_would_make_it_fit_applies_a_suggestion_and_runs_it(page):
    text = (Path(__file__).resolve().parents[1] / "fixtures" / "whatif" / "tainted.yaml").read_text()
    created = api_post(page, "/api/scenarios", {"name": "tainted", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    run_id = start_run(page)
    open_step(page, run_id, 0, "PostFilter")
    page.click("#whatif-button")
    expect(page.locator(".whatif-list li .text")).to_have_text(["tolerate the taint gpu=a100:NoSchedule"])
    page.click(".whatif-list li .whatif-apply")
    page.wait_for_url(re.compile(r"/runs/(?!%d/)\d+/" % run_id))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#timeline-panel li.attempt .text")).to_have_text(["default/p (attempt 1): scheduled to n1"])


def test_a_demo_with_another_configuration_compared_then_a_what_if_applied(page):
    """The conflicting-spread demo: "Try another configuration" runs it with MostAllocated and opens the
    comparison (waiting while the new run works); then the pending pod's smallest change is applied."""
    scenario = create_from_demo(page, "seed_pts_conflict")
    first = start_run(page)
    page.click("#try-config")
    expect(page.locator("#try-config-dialog")).to_be_visible()
    expect(page.locator("#try-config-text")).to_have_value(re.compile(r"kind: KubeSchedulerConfiguration"))
    page.locator("#try-config-text").fill("kind: KubeSchedulerConfiguration\nprofiles: nope\n")
    page.click("#try-config-run")
    expect(page.locator(".try-config-problems li")).not_to_have_count(0)  # named at the configuration's own line
    page.select_option("#try-config-preset", "MostAllocated (bin packing)")
    expect(page.locator("#try-config-text")).to_have_value(re.compile(r"type: MostAllocated"))
    page.click("#try-config-run")
    page.wait_for_url(re.compile(rf"/compare/\?a={first}&b=\d+"))
    expect(page.locator(".compare-summary")).to_be_visible(timeout=60_000)
    expect(page.locator(".compare-summary")).to_have_text(re.compile(r"\S"))
    second = int(re.search(r"b=(\d+)", page.url).group(1))
    versions = page.request.get(f"{page.base_url}/api/scenarios/{scenario}/versions").json()
    assert len(versions) == 1  # the tried configuration is the comparison's, not a version of the scenario
    tried = page.request.get(f"{page.base_url}/api/runs/{second}").json()["scenario"]
    assert page.request.get(f"{page.base_url}/api/scenarios/{tried}").json()["name"].endswith("(another configuration)")

    open_step(page, first, 0, "PostFilter")
    page.click("#whatif-button")
    first_suggestion = page.locator(".whatif-list li .text").first
    expect(first_suggestion).to_have_text(re.compile(r"^raise maxSkew of the .* from 1 to 2$"))
    page.locator(".whatif-list li .whatif-apply").first.click()
    page.wait_for_url(re.compile(r"/runs/(?!%d/|%d/)\d+/" % (first, second)))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#timeline-panel li.attempt .text")).to_have_text(
        [re.compile(r"^default/mypod \(attempt 1\): scheduled to node[23]$")]
    )


def test_compare_with_lists_runs_of_other_scenarios_with_a_search_and_a_demo_comparison_is_shared(page, fresh_page):
    """Issue 28's dead ends: "Compare with…" was empty for a single run (it listed only this
    scenario's runs), and "Share this comparison" was offered on demo runs, then refused."""
    here = Path(__file__).resolve().parents[1] / "fixtures" / "compare"
    other = api_post(page, "/api/scenarios", {"name": "another cluster", "text": (here / "two_nodes.yaml").read_text()})
    page.goto(f"{page.base_url}/scenarios/{other['id']}/")
    other_run = start_run(page)
    demo = next(s for s in page.request.get(f"{page.base_url}/api/scenarios").json() if s["demo"] and s["name"])
    demo_run = api_post(page, f"/api/scenarios/{demo['id']}/runs", {})
    page.goto(f"{page.base_url}/runs/{demo_run['id']}/")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    page.click("#compare-search")
    option = page.locator(f"#compare-with option[value='{other_run}']")
    expect(option).to_have_text(re.compile(rf"^run {other_run} · another cluster v1 \(timeline\)$"))
    page.fill("#compare-search", "no such run")
    expect(option).to_be_hidden()
    expect(page.locator("#compare-with option").first).to_have_text("Compare with… (no run matches)")
    page.fill("#compare-search", "another")
    expect(page.locator("#compare-with option").first).to_have_text("Compare with…")
    page.select_option("#compare-with", str(other_run))
    page.wait_for_url(re.compile(rf"/compare/\?a={demo_run['id']}&b={other_run}"))
    expect(page.locator(".compare-divergence p")).to_have_text(re.compile(r"^The runs part at attempt 1:"))
    page.click("#share-comparison")
    link = page.locator(".share-url")
    expect(link).to_have_value(re.compile(r"/share/[\w-]{20,}"), timeout=15_000)
    visitor = fresh_page()
    visitor.goto(link.input_value())
    visitor.wait_for_url(re.compile(r"/compare/\?a=\d+&b=\d+&token="))
    expect(visitor.locator(".compare-summary")).to_be_visible()
    expect(visitor.locator(".readonly-banner")).to_be_visible()
