"""node_resources/least_allocated.py: leastRequestedScore and its weighted average
(noderesources/least_allocated.go, leastResourceScorer)."""

from __future__ import annotations

import numpy as np

from scheduler_core.plugins.node_resources.least_allocated import (
    least_requested_score,
    least_requested_score_batch,
    least_resource_scorer,
    least_resource_scorer_batch,
)
from scheduler_core.plugins.node_resources.resource_allocation import ResourceSpec

CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def test_the_score_is_the_free_fraction_truncated():
    """leastRequestedScore: (capacity - requested) * 100 / capacity, integer division."""
    assert least_requested_score(0, 4000) == 100
    assert least_requested_score(1000, 4000) == 75
    assert least_requested_score(1000, 3000) == 66  # 66.67 truncated
    assert least_requested_score(4000, 4000) == 0


def test_a_request_over_capacity_or_no_capacity_scores_zero():
    assert least_requested_score(5000, 4000) == 0
    assert least_requested_score(0, 0) == 0


def test_the_node_score_weights_each_resource_and_skips_those_the_node_lacks():
    score = least_resource_scorer((ResourceSpec("cpu", 1), ResourceSpec("memory", 3)))
    # cpu 75, memory 50: (75*1 + 50*3) / 4 = 56.25 -> 56
    assert score([1000, 2], [4000, 4]) == 56
    # memory not offered (allocatable 0): cpu alone counts
    assert score([1000, 2], [4000, 0]) == 75
    assert score([0, 0], [0, 0]) == 0


def test_the_batch_scores_equal_the_per_node_ones():
    requested = [np.array([0, 1000, 5000, 2000], dtype=np.int64), np.array([1, 2, 3, 0], dtype=np.int64)]
    allocatable = [np.array([4000, 3000, 4000, 4000], dtype=np.int64), np.array([4, 4, 0, 8], dtype=np.int64)]
    batch = least_resource_scorer_batch(CPU_MEMORY)(requested, allocatable)
    one = least_resource_scorer(CPU_MEMORY)
    assert batch.tolist() == [one([r[i] for r in requested], [a[i] for a in allocatable]) for i in range(4)]
    assert batch.tolist() == [87, 58, 0, 75]
    assert least_requested_score_batch(np.array([5, 1]), np.array([4, 4])).tolist() == [0, 75]
