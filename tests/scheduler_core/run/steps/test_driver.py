"""Runs with steps (../shared/spec/CHANGES.md, run/steps/driver.py): when each step starts, the
controllers' turns, the step summaries, and the regression fixtures recorded from SchedLab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario import load_scenario
from scheduler_core.encoding.timeline import timeline_summary
from tests.scheduler_core.builders import changes_text, node_text, pod_text, scenario_text, workload_text
from tests.scheduler_core.run.steps.support import run

FIXTURES = (
    Path(__file__).resolve().parents[3] / "fixtures" / "changes"
)  # SchedLab's own recorded output (README.md there)


def test_it_gives_a_new_node_its_daemon_pod_and_none_to_a_node_with_an_untolerated_taint():
    """NodeShouldRunDaemonPod: the added node gets agent-<node>; a NoSchedule taint the template
    does not tolerate means no pod there."""
    text = scenario_text(
        node_text("n1"),
        node_text("t1", taints="{key: dedicated, value: db, effect: NoSchedule}"),
        workload_text("DaemonSet", "agent", cpu="100m"),
        changes_text(["addNodes: {like: n1, count: 1, prefix: n-new-}"]),
    )
    _, _, timeline = run(text)
    assert timeline["final"] == {"default/agent-n1": "n1", "default/agent-n-new-1": "n-new-1"}
    assert timeline["steps"][1]["created"] == ["default/agent-n-new-1"]


def test_it_creates_a_deployments_replica_set_named_by_the_template_hash():
    """A Deployment without a ReplicaSet gets <deployment>-<hash> (../shared/spec/CHANGES.md's hash)."""
    loop, _, timeline = run(
        scenario_text(node_text("n1"), workload_text("Deployment", "web", replicas=2, cpu="1"), changes_text([]))
    )
    replica_set = next(w for w in loop.stand_ins.steps.state.workloads if w.kind == "ReplicaSet")
    assert replica_set.name.startswith("web-") and len(replica_set.name) == len("web-") + 10
    assert sorted(timeline["final"]) == [f"default/{replica_set.name}-1", f"default/{replica_set.name}-2"]


def test_it_scales_a_replica_set_down_deleting_pending_pods_first_then_the_newest():
    """getPodsToDelete as ../shared/spec/CHANGES.md fixes it: the pending pod goes first."""
    text = scenario_text(
        node_text("n1", cpu="2"),
        workload_text("ReplicaSet", "web", replicas=3, cpu="1"),
        changes_text(["scale: {kind: ReplicaSet, name: web, replicas: 1}"]),
    )
    _, _, timeline = run(text)
    assert timeline["steps"][0]["pending"] == ["default/web-3"]
    assert timeline["steps"][1]["deleted"] == ["default/web-3", "default/web-2"]
    assert timeline["final"] == {"default/web-1": "n1", "default/web-2": "deleted", "default/web-3": "deleted"}


def test_it_starts_each_step_one_second_after_the_previous_went_quiet():
    text = scenario_text(node_text("n1"), changes_text(["cordon: {node: n1}"], ["uncordon: {node: n1}"]))
    _, _, timeline = run(text)
    assert [s["at"] for s in timeline["steps"]] == ["0:00.000", "0:01.000", "0:02.000"]


def test_it_keeps_runs_without_a_changes_document_as_they_were():
    """No Changes document: no steps, no step keys, controllers off (a ReplicaSet short of pods
    gets none)."""
    text = scenario_text(node_text("n1"), workload_text("ReplicaSet", "web", replicas=2), pod_text("p"))
    timeline = timeline_summary(run_to_the_end(load_scenario(text)))
    assert "steps" not in timeline and all("step" not in a for a in timeline["attempts"])
    assert timeline["final"] == {"default/p": "n1"}


@pytest.mark.parametrize("case", sorted(p.stem for p in FIXTURES.glob("*.yaml")))
def test_it_answers_as_it_did_when_the_fixture_was_recorded(case):
    text = (FIXTURES / f"{case}.yaml").read_text()
    expected = json.loads((FIXTURES / f"{case}.expected.json").read_text())
    assert timeline_summary(run_to_the_end(load_scenario(text))) == expected
