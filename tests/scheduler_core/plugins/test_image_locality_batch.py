"""ImageLocality's score_batch against its per-node score."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins.image_locality import ImageLocality
from tests.scheduler_core.builders import FakeHandle
from tests.scheduler_core.builders import assert_score_same, clusters


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(clusters())
def test_score_batch_matches_score(cluster):
    snapshot, pod, positions = cluster
    assert_score_same(ImageLocality(FakeHandle(snapshot)), CycleState(), pod, snapshot.table, positions)
