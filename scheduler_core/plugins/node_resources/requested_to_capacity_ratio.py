"""RequestedToCapacityRatio: score each resource's utilisation through a user-given broken line.

Shape scores are given on a 0-10 scale (MaxCustomPriorityScore) and scaled by 10 to the node score
range. Resources scoring 0 are left out of the weighted average, which is rounded (Go math.Round).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from scheduler_core.framework import batch
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.helper import (
    FunctionShapePoint,
    build_broken_linear_function,
    build_broken_linear_function_batch,
    go_div,
    go_round,
    go_round_batch,
)
from scheduler_core.plugins.node_resources.resource_allocation import BatchScorer, ResourceSpec, Scorer

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


def scaled_utilization(requested: int, capacity: int) -> int:
    """requested * 100 / capacity with the request clamped to [0, capacity]."""
    if capacity <= 0 or requested <= 0:
        return 0
    if requested >= capacity:
        return MAX_UTILIZATION
    return go_div(requested * MAX_UTILIZATION, capacity)


def scaled_utilization_batch(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """scaled_utilization per node."""
    inside = (capacity > 0) & (requested > 0) & (requested < capacity)
    ratio = batch.go_div(np.where(inside, requested, 0) * MAX_UTILIZATION, np.where(inside, capacity, 1))
    return np.where(inside, ratio, np.where((capacity > 0) & (requested > 0), MAX_UTILIZATION, 0))


def _scaled_shape(shape: Sequence[FunctionShapePoint]) -> list[FunctionShapePoint]:
    """Shape scores (0-10) scaled to the node score range."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return [FunctionShapePoint(p.utilization, p.score * scale) for p in shape]


def requested_to_capacity_ratio_scorer(
    resources: tuple[ResourceSpec, ...], shape: Sequence[FunctionShapePoint]
) -> Scorer:
    line = build_broken_linear_function(_scaled_shape(shape))

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return line(MAX_UTILIZATION)
        return line(scaled_utilization(requested, capacity))

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for index, spec in enumerate(resources):
            if allocatable[index] == 0:
                continue
            value = resource_score(requested[index], allocatable[index])
            if value > 0:
                total += value * spec.weight
                weights += spec.weight
        return go_round(total / weights) if weights else 0

    return score


def requested_to_capacity_ratio_scorer_batch(
    resources: tuple[ResourceSpec, ...], shape: Sequence[FunctionShapePoint]
) -> BatchScorer:
    line = build_broken_linear_function_batch(_scaled_shape(shape))

    def score(requested: list[np.ndarray], allocatable: list[np.ndarray]) -> np.ndarray:
        count = len(requested[0]) if requested else 0
        total = np.zeros(count, dtype=np.int64)
        weights = np.zeros(count, dtype=np.int64)
        for index, spec in enumerate(resources):
            capacity, wanted = allocatable[index], requested[index]
            over = (capacity == 0) | (wanted > capacity)
            value = np.where(
                over,
                line(np.full(count, MAX_UTILIZATION, dtype=np.int64)),
                line(scaled_utilization_batch(wanted, capacity)),
            )
            counted = (capacity != 0) & (value > 0)
            total += np.where(counted, value * spec.weight, 0)
            weights += np.where(counted, spec.weight, 0)
        has_weight = weights != 0
        return np.where(has_weight, go_round_batch(total / np.where(has_weight, weights, 1)), 0)

    return score
