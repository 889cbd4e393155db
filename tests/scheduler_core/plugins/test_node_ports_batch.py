"""NodePorts' filter_batch against its per-node filter (only nodes running pods are looked at)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP
from scheduler_core.plugins.node_ports import NodePorts
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot
from tests.scheduler_core.builders import assert_filter_same, clusters


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_filter_batch_matches_filter(cluster):
    snapshot, pod, positions = cluster
    plugin, state = NodePorts(), CycleState()
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if status is SKIP:
        return
    assert_filter_same(plugin, state, pod, snapshot.table, positions)


def test_without_pre_filter_state_every_node_errors_both_ways():
    snapshot = make_snapshot([make_node("n0"), make_node("n1")])
    assert_filter_same(NodePorts(), CycleState(), make_pod("p"), snapshot.table, np.arange(2))
