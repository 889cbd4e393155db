"""NodeName's filter_batch against its per-node filter."""

from __future__ import annotations

from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.node_name import NodeName
from tests.scheduler_core.builders import assert_filter_same, clusters


@settings(max_examples=50, deadline=None)
@given(clusters())
def test_filter_batch_matches_filter(cluster):
    snapshot, pod, positions = cluster
    assert_filter_same(NodeName(), CycleState(), pod, snapshot.table, positions)
