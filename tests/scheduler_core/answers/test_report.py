"""The readable report of `trace` without --json."""

from __future__ import annotations

from pathlib import Path

from scheduler_core import load_scenario, simulate
from scheduler_core.answers.filter_details import collect_details
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.answers.report import MAX_NODES_LISTED, render_report, render_timeline
from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "conformance" / "public"


def test_it_explains_a_pending_pod_with_the_kubectl_message():
    scenario = load_scenario((CORPUS / "seed_pts_conflict.yaml").read_bytes())
    text = render_report(list(simulate(scenario)), scenario)
    assert "=> unschedulable: 0/" in text
    assert "PodTopologySpread" in text


def test_it_cuts_long_node_lists():
    scenario = load_scenario((CORPUS / "large_710000.yaml").read_bytes())
    text = render_report(list(simulate(scenario)), scenario)
    assert "… (+" in text


def test_it_says_what_was_left_out_and_why():
    text = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '1', memory: 1Gi, pods: '10'}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: calico-node, namespace: kube-system}
---
apiVersion: v1
kind: Pod
metadata: {name: job-1}
spec: {nodeName: n1, containers: [{name: c}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata: {name: gated}
spec: {schedulingGates: [{name: wait}], containers: [{name: c}]}
"""
    scenario = load_scenario(text)
    lines = render_report(list(simulate(scenario)), scenario).splitlines()
    assert lines[1].startswith("release: replayed as kube-scheduler v1.35.4: the dump does not say")
    assert lines[2:5] == [
        "note: ignored (the scheduler does not read them): 1 DaemonSet",
        "note: 1 finished pod(s) (phase Succeeded or Failed) left out: the scheduler does not see them: Pod default/job-1",
        "note: 1 pending pod(s) with scheduling gates (SchedulingGated): never attempted until the gates are removed: "
        "Pod default/gated",
    ]


def test_it_heads_each_step_of_a_run_with_steps_with_its_summary():
    example = Path(__file__).resolve().parents[3] / "examples" / "changes_scale_drain.yaml"
    scenario = load_scenario(example.read_text())
    text = render_timeline(run_to_the_end(scenario), scenario)
    headings = [line for line in text.splitlines() if line.startswith("== ")]
    assert headings == [
        "== 0:00.000 step 0 — scenario: 4 created, 4 placed, 0 pending",
        "== 0:01.000 step 1 — scale web to 6: 2 created, 2 placed, 0 pending",
        "== 0:02.000 step 2 — maintenance on node-1: 2 created, 2 evicted, 2 placed, 0 pending",
    ]


def test_it_prints_the_numbers_behind_each_listed_rejection():
    scenario = load_scenario(numbers_scenario())
    details = collect_details(scenario, per_plugin=MAX_NODES_LISTED)
    report = render_report(list(simulate(scenario)), scenario, details)
    assert (
        "full: Unschedulable: Insufficient cpu — cpu: asks 2500m; free 1800m of 4000m allocatable "
        "(2200m requested by 9 pod(s))"
    ) in report
    assert (
        "tainted: UnschedulableAndUnresolvable: node(s) had untolerated taint(s) — untolerated taint dedicated=gpu:NoSchedule"
        in report
    )


def test_it_says_when_the_release_skips_scoring_for_one_feasible_node():
    scenario = load_scenario((CORPUS / "seed_pts_two_constraints.yaml").read_bytes())
    report = render_report(list(simulate(scenario)), scenario)
    assert "  one feasible node: kube-scheduler runs no PreScore, Score or NormalizeScore" in report
    assert "Score      NodeResourcesFit: node4=" in report and "(skipped by kube-scheduler)" in report


def test_it_says_when_top_nodes_tie_and_that_the_release_would_pick_at_random():
    scenario = load_scenario("---\n".join([node_text("a"), node_text("b"), pod_text("web")]))
    report = render_report(list(simulate(scenario)), scenario)
    [line] = [line for line in report.splitlines() if line.startswith("  tie:")]
    assert line.startswith("  tie:       2 nodes share the top total ")
    assert line.endswith(
        "(a, b): kube-scheduler would pick one of them at random; this run took a, "
        "the first in node order, as the spec's deterministic rule takes"
    )
    single = load_scenario("---\n".join([node_text("a", cpu="8"), node_text("b"), pod_text("web")]))
    assert "  tie:" not in render_report(list(simulate(single)), single)
