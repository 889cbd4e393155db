"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used evenly.

Score is ``(1 - std) * 100`` over the fractions requested/allocatable (each capped at 1) of the
configured resources, counting the pod: with two resources ``std`` is half their difference.
It uses the plain requests, so a best-effort pod (no request for any of them) is skipped at
PreScore rather than piling onto one node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional, Sequence

from scheduler_core import names
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.registry import ArgsError, ArgsProblem
from scheduler_core.framework.status import SKIP, MaybeStatus
from scheduler_core.model import Pod
from scheduler_core.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    parse_resource_specs,
)


@dataclass(frozen=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "NodeResourcesBalancedAllocationArgs":
        """v1 defaults, then ValidateNodeResourcesBalancedAllocationArgs (unique names, weight 1)."""
        raw = raw or {}
        problems: list[ArgsProblem] = []
        resources = parse_resource_specs(raw.get("resources"), "resources", problems)
        seen: set[str] = set()
        for index, spec in enumerate(resources):
            if spec.name in seen:
                problems.append(ArgsProblem(f"resources[{index}].name", f'Duplicate value: "{spec.name}"'))
            seen.add(spec.name)
            if spec.weight != 1:
                problems.append(ArgsProblem(f"resources[{index}].weight", f"Invalid value: {spec.weight}: must be 1"))
        if problems:
            raise ArgsError(problems)
        return cls(resources)


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    fractions = [min(req / alloc, 1.0) for req, alloc in zip(requested, allocatable) if alloc != 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        total = 0.0
        for fraction in fractions:  # plain left-to-right addition, as Go sums (not math.fsum)
            total += fraction
        mean = total / len(fractions)
        variance = 0.0
        for fraction in fractions:
            variance += (fraction - mean) * (fraction - mean)
        std = math.sqrt(variance / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]

    def clone(self) -> "_PreScoreState":
        return self


_PRE_SCORE = StateKey[_PreScoreState]("PreScore" + names.NODE_RESOURCES_BALANCED_ALLOCATION)


class BalancedAllocation:
    name: ClassVar[str] = names.NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, args: NodeResourcesBalancedAllocationArgs) -> None:
        self._scorer = ResourceAllocationScorer(args.resources, balanced_resource_score, use_requested=True)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> MaybeStatus:
        requests = self._scorer.pod_request_list(pod)
        if not any(requests):
            return SKIP
        state.write(_PRE_SCORE, _PreScoreState(requests))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            requests = self._scorer.pod_request_list(pod)
            if not any(requests):
                return 0, None
        else:
            requests = pre_score.pod_requests
        return self._scorer.score(node_info, requests)


def new_balanced_allocation(args: Optional[Mapping], handle) -> BalancedAllocation:
    return BalancedAllocation(NodeResourcesBalancedAllocationArgs.parse(args))
