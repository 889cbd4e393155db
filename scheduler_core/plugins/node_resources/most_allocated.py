"""MostAllocated: favour fuller nodes (bin packing), as a weighted average of used fractions."""

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


def most_requested_score(requested: int, capacity: int) -> int:
    """Used capacity on a 0-100 scale; a request above capacity (non-zero defaults) counts as full."""
    if capacity == 0:
        return 0
    return go_div(min(requested, capacity) * MAX_NODE_SCORE, capacity)


def most_resource_scorer(resources: tuple[ResourceSpec, ...]) -> Scorer:
    return weighted_average(resources, most_requested_score)


def most_requested_score_batch(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """most_requested_score per node; capacity is non-zero (weighted_average_batch drops the rest)."""
    return go_div_batch_fast(np.minimum(requested, capacity) * MAX_NODE_SCORE, capacity)


def most_resource_scorer_batch(resources: tuple[ResourceSpec, ...]) -> BatchScorer:
    def score(requested: list[np.ndarray], allocatable: list[np.ndarray]) -> np.ndarray:
        return weighted_average_batch(resources, requested, allocatable, most_requested_score_batch)

    return score
