"""The run's other components (scheduler_core.run.standins): they act on the cluster and hand the
deliveries of their writes to the stream; they never call the scheduler."""

from __future__ import annotations

import ast
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.encoding.timeline import timeline_summary
from scheduler_core.run.loop import ClusterRun
from tests.scheduler_core.builders import node_text, pod_text, scenario_text

SOURCE = Path(__file__).resolve().parents[3] / "scheduler_core" / "run" / "standins.py"

# A preemption: the victim is deleted with grace, so the kubelet has a removal to make.
PREEMPTION = scenario_text(
    node_text("n1", cpu="2"),
    pod_text("low", cpu="2", node_name="n1", spec="  priority: 0\n"),
    pod_text("high", cpu="2", spec="  priority: 100\n"),
)


def test_the_stand_ins_import_nothing_of_the_scheduler():
    imported = {node.module for node in ast.walk(ast.parse(SOURCE.read_text())) if isinstance(node, ast.ImportFrom)}
    assert "scheduler_core.run.kube_scheduler" not in imported
    assert "scheduler_core.run.schedule_one" not in imported


def test_without_steps_only_the_kubelet_and_the_claim_controller_act():
    run = ClusterRun(load_scenario(PREEMPTION))
    others = run.stand_ins
    assert others.steps is None
    assert others.next_wake_ms() is None and others.idle()
    assert list(others.begin()) == [] and list(others.all_created()) == [] and list(others.settle()) == []


def test_the_kubelet_removes_a_victim_when_its_grace_is_over_and_the_run_tells_it():
    run = ClusterRun(load_scenario(PREEMPTION))
    timeline = timeline_summary(list(run.run()))
    assert timeline["final"] == {"default/high": "n1", "default/low": "deleted"}
    assert run.stand_ins.idle()  # the removal was made; nothing else is due


def test_the_final_placements_name_a_pod_gone_during_the_run_as_deleted():
    run = ClusterRun(load_scenario(PREEMPTION))
    for _ in run.run():
        pass
    pods = [pod for pod in run.scenario.pods if not pod.is_finished]
    assert run.stand_ins.final(pods) == {"default/high": "n1", "default/low": "deleted"}
