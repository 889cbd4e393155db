"""RequestedToCapacityRatio: score each resource's utilisation through a user-given broken line.

Shape scores are given on a 0-10 scale (MaxCustomPriorityScore) and scaled by 10 to the node score
range. Resources scoring 0 are left out of the weighted average, which is rounded (Go math.Round).
"""

from __future__ import annotations

from typing import Sequence

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.helper import FunctionShapePoint, build_broken_linear_function, go_div, go_round
from scheduler_core.plugins.node_resources.resource_allocation import ResourceSpec, Scorer

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


def scaled_utilization(requested: int, capacity: int) -> int:
    """requested * 100 / capacity with the request clamped to [0, capacity]."""
    if capacity <= 0 or requested <= 0:
        return 0
    if requested >= capacity:
        return MAX_UTILIZATION
    return go_div(requested * MAX_UTILIZATION, capacity)


def requested_to_capacity_ratio_scorer(resources: tuple[ResourceSpec, ...],
                                       shape: Sequence[FunctionShapePoint]) -> Scorer:
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    line = build_broken_linear_function([FunctionShapePoint(p.utilization, p.score * scale) for p in shape])

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
