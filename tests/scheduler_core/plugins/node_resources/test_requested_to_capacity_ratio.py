"""node_resources/requested_to_capacity_ratio.py: the broken-line utilisation score
(noderesources/requested_to_capacity_ratio.go, buildRequestedToCapacityRatioScorerFunction)."""

from __future__ import annotations

import numpy as np

from scheduler_core.plugins.helper import FunctionShapePoint
from scheduler_core.plugins.node_resources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
    requested_to_capacity_ratio_scorer_batch,
    scaled_utilization,
    scaled_utilization_batch,
)
from scheduler_core.plugins.node_resources.resource_allocation import ResourceSpec

# Bin packing: utilisation 0 scores 0, 100 scores 10 (x10 on the node score scale).
PACKING = (FunctionShapePoint(0, 0), FunctionShapePoint(100, 10))
CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def test_utilization_is_clamped_to_zero_and_one_hundred():
    assert scaled_utilization(1000, 3000) == 33
    assert scaled_utilization(0, 3000) == 0
    assert scaled_utilization(5000, 3000) == 100
    assert scaled_utilization(1, 0) == 0
    assert scaled_utilization_batch(np.array([1000, 0, 5000, 1]), np.array([3000, 3000, 3000, 0])).tolist() == [
        33,
        0,
        100,
        0,
    ]


def test_the_shape_is_scaled_by_ten_and_the_average_is_rounded():
    score = requested_to_capacity_ratio_scorer(CPU_MEMORY, PACKING)
    # cpu 50% -> 50, memory 25% -> 25: (50 + 25) / 2 = 37.5 -> 38 (math.Round)
    assert score([2000, 2], [4000, 8]) == 38


def test_resources_scoring_zero_are_left_out_of_the_average():
    score = requested_to_capacity_ratio_scorer(CPU_MEMORY, PACKING)
    # memory unused scores 0 and does not count: cpu 50 alone
    assert score([2000, 0], [4000, 8]) == 50
    # a request above capacity scores the shape at 100% utilisation
    assert score([9000, 0], [4000, 8]) == 100


def test_a_spreading_shape_prefers_empty_nodes():
    spreading = (FunctionShapePoint(0, 10), FunctionShapePoint(100, 0))
    score = requested_to_capacity_ratio_scorer((ResourceSpec("cpu", 1),), spreading)
    assert score([1000], [4000]) == 75


def test_the_batch_scores_equal_the_per_node_ones():
    requested = [np.array([2000, 2000, 9000, 0], dtype=np.int64), np.array([2, 0, 0, 0], dtype=np.int64)]
    allocatable = [np.array([4000, 4000, 4000, 0], dtype=np.int64), np.array([8, 8, 8, 0], dtype=np.int64)]
    batch = requested_to_capacity_ratio_scorer_batch(CPU_MEMORY, PACKING)(requested, allocatable)
    one = requested_to_capacity_ratio_scorer(CPU_MEMORY, PACKING)
    assert batch.tolist() == [one([r[i] for r in requested], [a[i] for a in allocatable]) for i in range(4)]
    assert batch.tolist() == [38, 50, 100, 0]
