"""TaintToleration's filter_batch / score_batch / normalize_batch against the per-node methods."""

from __future__ import annotations

from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.taint_toleration import TaintToleration
from tests.scheduler_core.builders import assert_filter_same, assert_score_same, clusters


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_batch_methods_match_the_per_node_ones(cluster):
    snapshot, pod, positions = cluster
    plugin, state, table = TaintToleration(), CycleState(), snapshot.table
    assert_filter_same(plugin, state, pod, table, positions)
    assert plugin.pre_score(state, pod, [snapshot.node_infos[p] for p in positions]) is None
    assert_score_same(plugin, state, pod, table, positions)
    # a second pod with the same tolerations reuses the cached per-table verdicts
    assert_filter_same(plugin, state, pod, table, positions[::-1].copy())
