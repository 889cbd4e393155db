"""TaintToleration's filter_batch / score_batch / normalize_batch against the per-node methods."""

from __future__ import annotations

from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.taint_toleration import TaintToleration
from scheduler_core.release import DEFAULT_RULES, SUPPORTED_RELEASES, rules_for
from tests.scheduler_core.builders import assert_filter_same, assert_score_same, clusters

V1_33 = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == 33)).features


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_batch_methods_match_the_per_node_ones(cluster):
    snapshot, pod, positions = cluster
    plugin, state, table = TaintToleration(DEFAULT_RULES.features), CycleState(), snapshot.table
    assert_filter_same(plugin, state, pod, table, positions)
    assert plugin.pre_score(state, pod, [snapshot.node_infos[p] for p in positions]) is None
    assert_score_same(plugin, state, pod, table, positions)
    # a second pod with the same tolerations reuses the cached per-table verdicts
    assert_filter_same(plugin, state, pod, table, positions[::-1].copy())


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_before_v1_34_each_node_names_its_own_taint_in_the_batch_too(cluster):
    snapshot, pod, positions = cluster
    plugin, state, table = TaintToleration(V1_33), CycleState(), snapshot.table
    assert_filter_same(plugin, state, pod, table, positions)
    assert_filter_same(plugin, state, pod, table, positions[::-1].copy())


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_before_v1_34_two_profiles_sharing_the_node_table_each_judge_the_taints(cluster):
    """Each profile has its own TaintToleration, both read one node table: the verdicts one cached
    (in its own reason codes) must not pass every node for the other (a v1.33 pod of the second
    profile was placed on a node whose NoExecute taint it did not tolerate)."""
    snapshot, pod, positions = cluster
    first, second, table = TaintToleration(V1_33), TaintToleration(V1_33), snapshot.table
    assert_filter_same(first, CycleState(), pod, table, positions)
    assert_filter_same(second, CycleState(), pod, table, positions)
