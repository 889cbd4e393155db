"""LeastAllocated: favour nodes with more room left, as a weighted average of free fractions."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.helper import go_div, go_div_batch_fast
from scheduler_core.plugins.node_resources.resource_allocation import (
    BatchScorer,
    ResourceSpec,
    Scorer,
    weighted_average,
    weighted_average_batch,
)


def least_requested_score(requested: int, capacity: int) -> int:
    """Free capacity on a 0-100 scale; 0 once the request exceeds capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_resource_scorer(resources: tuple[ResourceSpec, ...]) -> Scorer:
    return weighted_average(resources, least_requested_score)


def least_requested_score_batch(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """least_requested_score per node; capacity is non-zero (weighted_average_batch drops the rest)."""
    free = np.maximum(capacity - requested, 0)  # only changes entries the where discards
    return np.where(requested > capacity, 0, go_div_batch_fast(free * MAX_NODE_SCORE, capacity))


def least_resource_scorer_batch(resources: tuple[ResourceSpec, ...]) -> BatchScorer:
    def score(requested: list[np.ndarray], allocatable: list[np.ndarray]) -> np.ndarray:
        return weighted_average_batch(resources, requested, allocatable, least_requested_score_batch)

    return score
