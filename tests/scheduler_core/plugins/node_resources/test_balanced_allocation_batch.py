"""NodeResourcesBalancedAllocation's score_batch: bit-identical float64 std-dev to the per-node code."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP
from scheduler_core.plugins import node_resources
from scheduler_core.plugins.node_resources.balanced_allocation import (
    balanced_resource_score,
    balanced_resource_score_batch,
)
from tests.scheduler_core.builders import (
    RESOURCE_NAMES,
    assert_same_as_pods_come_and_go,
    assert_score_same,
    clusters,
    pod_moves,
)

amount = st.one_of(st.just(0), st.integers(0, 1000), st.integers(0, 1 << 40), st.integers(0, (1 << 62)))


@settings(max_examples=100, deadline=None)
@given(clusters(), st.lists(st.sampled_from(RESOURCE_NAMES), unique=True, max_size=4))
def test_score_batch_matches_score(cluster, resources):
    snapshot, pod, positions = cluster
    args = {"resources": [{"name": name, "weight": 1} for name in resources]}
    plugin, state = node_resources.new_balanced_allocation(args, None), CycleState()
    if plugin.pre_score(state, pod, snapshot.node_infos) is SKIP:
        return
    assert_score_same(plugin, state, pod, snapshot.table, positions)


@settings(max_examples=100, deadline=None)
@given(clusters(), st.lists(st.sampled_from(RESOURCE_NAMES), unique=True, max_size=4), pod_moves())
def test_score_batch_matches_score_as_pods_come_and_go(cluster, resources, moves):
    """The scores are kept per request between cycles and made again where a pod was bound or
    taken off: still the per-node scores on every ask."""
    snapshot, pod, positions = cluster
    args = {"resources": [{"name": name, "weight": 1} for name in resources]}
    plugin = node_resources.new_balanced_allocation(args, None)
    if plugin.pre_score(CycleState(), pod, snapshot.node_infos) is SKIP:
        return
    assert_same_as_pods_come_and_go(plugin, snapshot, pod, positions, moves, score=True)


@settings(max_examples=500, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda k: st.lists(st.lists(st.tuples(amount, amount), min_size=k, max_size=k), min_size=1, max_size=40)
    )
)
def test_the_std_dev_is_bit_identical(rows):
    """Many random (requested, allocatable) rows, including zero allocatable and values past 2**53."""
    width = len(rows[0])
    requested = [np.asarray([row[i][0] for row in rows], dtype=np.int64) for i in range(width)]
    allocatable = [np.asarray([row[i][1] for row in rows], dtype=np.int64) for i in range(width)]
    expected = [balanced_resource_score([r for r, _ in row], [a for _, a in row]) for row in rows]
    assert balanced_resource_score_batch(requested, allocatable).tolist() == expected


def test_many_random_fractions_are_bit_identical():
    rng = np.random.default_rng(1234)
    for width in (1, 2, 3, 4, 6):
        requested = [rng.integers(0, 1 << 40, 20000) for _ in range(width)]
        allocatable = [np.where(rng.random(20000) < 0.1, 0, rng.integers(1, 1 << 40, 20000)) for _ in range(width)]
        expected = [
            balanced_resource_score([int(r[i]) for r in requested], [int(a[i]) for a in allocatable])
            for i in range(20000)
        ]
        assert balanced_resource_score_batch(requested, allocatable).tolist() == expected
