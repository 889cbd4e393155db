"""node_resources/most_allocated.py: mostRequestedScore and its weighted average
(noderesources/most_allocated.go, mostResourceScorer)."""

from __future__ import annotations

import numpy as np

from scheduler_core.plugins.node_resources.most_allocated import (
    most_requested_score,
    most_resource_scorer,
    most_resource_scorer_batch,
)
from scheduler_core.plugins.node_resources.resource_allocation import ResourceSpec

CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def test_the_score_is_the_used_fraction_truncated_and_full_above_capacity():
    """mostRequestedScore: a request above capacity (non-zero defaults) counts as a full node."""
    assert most_requested_score(1000, 3000) == 33
    assert most_requested_score(3000, 4000) == 75
    assert most_requested_score(9000, 4000) == 100
    assert most_requested_score(1, 0) == 0


def test_the_node_score_is_a_weighted_average_over_offered_resources():
    score = most_resource_scorer((ResourceSpec("cpu", 2), ResourceSpec("memory", 1)))
    # cpu 25 * 2 + memory 100 * 1 = 150, / 3 = 50
    assert score([1000, 8], [4000, 8]) == 50
    assert score([1000, 8], [4000, 0]) == 25


def test_the_batch_scores_equal_the_per_node_ones():
    requested = [np.array([1000, 9000, 0], dtype=np.int64), np.array([4, 1, 7], dtype=np.int64)]
    allocatable = [np.array([3000, 4000, 4000], dtype=np.int64), np.array([8, 0, 8], dtype=np.int64)]
    batch = most_resource_scorer_batch(CPU_MEMORY)(requested, allocatable)
    one = most_resource_scorer(CPU_MEMORY)
    assert batch.tolist() == [one([r[i] for r in requested], [a[i] for a in allocatable]) for i in range(3)]
    assert batch.tolist() == [41, 100, 43]
