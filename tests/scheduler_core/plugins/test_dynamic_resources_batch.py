"""DynamicResources' score_batch: zero everywhere, as its per-node score for pods without claims."""

from __future__ import annotations

from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.dynamic_resources import DynamicResources
from tests.scheduler_core.builders import assert_score_same, clusters


@settings(max_examples=30, deadline=None)
@given(clusters())
def test_score_batch_matches_score(cluster):
    snapshot, pod, positions = cluster
    assert_score_same(DynamicResources(), CycleState(), pod, snapshot.table, positions)
