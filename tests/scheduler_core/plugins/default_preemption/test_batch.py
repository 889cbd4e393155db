"""DefaultPreemption's numeric dry run (plugins/default_preemption/batch.py): when it applies, and
that it answers as DryRunPreemption node by node (the runs to the end are compared in test_vectorized)."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_table import PositionedNodeList
from scheduler_core.framework.preemption.candidates import dry_run_preemption, potential_nodes
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.preemption.victims import Budgets
from scheduler_core.model import CPU, Affinity, LabelSelector, PodAffinity, PodAffinityTerm, Taint
from scheduler_core.plugins import inter_pod_affinity, node_unschedulable, taint_toleration
from scheduler_core.plugins.default_preemption import new
from scheduler_core.plugins.default_preemption import batch
from scheduler_core.plugins.default_preemption.batch import NodeVerdictMemo, numeric_dry_run, numeric_dry_run_applies
from scheduler_core.plugins.node_resources import new_fit
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

TAINT = Taint("dedicated", "gpu", "NoSchedule")


def _cycle(extra=(), vectorized: bool = True, pod=None):
    """One cycle's PreFilter and Filter on four nodes; ``extra`` are plugin factories (args, handle)."""
    nodes = [
        make_node("n1", cpu=2000),
        make_node("n2", cpu=2000, taints=[TAINT]),
        make_node("n3", cpu=1000),
        make_node("n4", cpu=2000),
    ]
    pods = [
        make_pod(f"low-{n}-{i}", node=n, requests={CPU: 500}, priority=i)
        for n in ("n1", "n2", "n3", "n4")
        for i in range(2)
    ] + [make_pod("high", node="n4", requests={CPU: 1000}, priority=50)]
    snapshot = make_snapshot(nodes, pods)
    handle = FakeHandle(snapshot)
    fit = new_fit(None, handle)
    extra = [factory(None, handle) for factory in extra]
    filters = [node_unschedulable.new(None, handle), taint_toleration.new(None, handle), fit, *extra]
    profile = Profile.of({"preFilter": [fit, *extra], "filter": filters, "postFilter": [new(None, handle)]}, {}, 100)
    framework = Framework(profile, snapshot, vectorized)
    handle.framework = framework
    pod = pod or make_pod("incoming", requests={CPU: 1500}, priority=10)
    state = CycleState()
    framework.run_pre_filter(state, pod, snapshot.node_infos)
    statuses = {n.name: framework.run_filter(state, pod, n) for n in snapshot.node_infos}
    to_status = NodeToStatus(
        {k: v for k, v in statuses.items() if v is not None}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    )
    return framework, state, pod, potential_nodes(snapshot.node_infos, to_status)


def _picture(dry_run):
    return (
        [(c.node, [p.key for p in c.victims.pods], c.victims.num_pdb_violations) for c in dry_run.candidates],
        dry_run.node_statuses,
    )


def test_it_answers_as_the_per_node_dry_run_and_reuses_a_verdict_only_while_the_node_is_unchanged():
    framework, state, pod, potential = _cycle()
    checked = numeric_dry_run_applies(framework, state)
    assert checked == [(CPU, 1500)]
    memo, budgets = NodeVerdictMemo(), Budgets(())
    fast = numeric_dry_run(framework, state, pod, potential, checked, budgets, memo=memo)
    assert _picture(fast) == _picture(dry_run_preemption(framework, state, pod, potential))
    assert _picture(numeric_dry_run(framework, state, pod, potential, checked, budgets)) == _picture(fast), "no memo"
    # n2 (tainted) and n3 (too small) are no potential nodes; n4 is still too full without its low pods.
    assert [c.node for c in fast.candidates] == ["n1"] and set(fast.node_statuses) == {"n4"}
    n1 = framework.snapshot.get("n1")
    stamp = (n1, n1.generation, (pod.priority, tuple(checked), budgets), (), None, None)
    [kept] = memo.get_all(["n1"], [stamp])
    assert kept is not None and kept[0].node == "n1"
    # under other budgets (another Budgets object: victims.KeptBudgets makes one when they change)
    other_budgets = (n1, n1.generation, (pod.priority, tuple(checked), Budgets(())), (), None, None)
    assert memo.get_all(["n1", "n9"], [other_budgets, stamp]) == [None, None]
    framework.snapshot.remove_pod(n1.pods[0].pod)  # a pod leaves n1: its generation moves on
    assert memo.get_all(["n1"], [(n1, n1.generation, *stamp[2:])]) == [None]


@pytest.mark.parametrize(
    "extra, vectorized",
    [
        pytest.param(True, True, id="a Filter plugin that reads the node's pods is active: node by node"),
        pytest.param(False, False, id="the per-node reference path asked for"),
    ],
)
def test_it_does_not_apply(extra, vectorized):
    anti = make_pod("incoming", requests={CPU: 1500}, priority=10, labels={"app": "x"})
    anti.affinity = Affinity(
        pod_anti_affinity=PodAffinity(
            required=(PodAffinityTerm(LabelSelector(match_labels=(("app", "x"),)), "kubernetes.io/hostname"),)
        )
    )
    framework, state, _, _ = _cycle((inter_pod_affinity.new,) if extra else (), vectorized, anti)
    assert numeric_dry_run_applies(framework, state) is None


def test_verdicts_kept_by_position_are_read_back_until_the_nodes_pods_change(monkeypatch):
    framework, state, pod, _ = _cycle()
    table = framework.snapshot.table
    # Every node, with its position, as potential_nodes picks them from the table (n2 is tainted:
    # a node-only plugin rejects it, so its verdict is read by its stamp only).
    potential = PositionedNodeList(table.node_infos, np.arange(table.size), table.node_infos)
    checked = numeric_dry_run_applies(framework, state)
    memo, budgets = NodeVerdictMemo(), Budgets(())
    judged: list[str] = []
    real_verdict = batch._verdict
    monkeypatch.setattr(
        batch,
        "_verdict",
        lambda rules, pod, node, *rest: judged.append(node.name) or real_verdict(rules, pod, node, *rest),
    )
    reference = _picture(numeric_dry_run(framework, state, pod, potential, checked, budgets, memo=memo))
    assert reference == _picture(dry_run_preemption(framework, state, pod, potential))
    assert judged == ["n1", "n2", "n3", "n4"]
    memo._by_node.clear()  # the stamps forgotten: n2 is judged again, the others read by position
    judged.clear()
    assert _picture(numeric_dry_run(framework, state, pod, potential, checked, budgets, memo=memo)) == reference
    assert judged == ["n2"]
    n3 = framework.snapshot.get("n3")
    framework.snapshot.remove_pod(n3.pods[0].pod)  # the table logs n3's position
    judged.clear()
    again = numeric_dry_run(framework, state, pod, potential, checked, budgets, memo=memo)
    assert judged == ["n3"], "n2 by its stamp (kept again), the others by position"
    assert _picture(again) == _picture(dry_run_preemption(framework, state, pod, potential))
    judged.clear()
    numeric_dry_run(framework, state, pod, potential, checked, Budgets(()), memo=memo)
    assert judged == ["n1", "n2", "n3", "n4"], "other budgets: another preemptor"
