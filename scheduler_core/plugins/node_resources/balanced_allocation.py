"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used evenly.

A node's balance is ``(1 - std) * 100`` over the fractions requested/allocatable (each capped at
1) of the configured resources: with two resources ``std`` is half their difference. Up to v1.35
the score is the balance with the pod counted in; from v1.36 it is the change the pod makes,
``50 + (50 + balance with the pod - balance without it) / 2`` (release/code.py
``balanced_allocation_scores_the_change``). It uses the plain requests; from v1.33 a best-effort
pod (no request for any of them) is skipped at PreScore rather than piling onto one node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.dra_state import DraState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.framework.status import SKIP, MaybeStatus
from scheduler_core.model import Pod
from scheduler_core.plugins.helper import distinct_values
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.plugins.node_resources.dra_totals import DeviceTotals
from scheduler_core.plugins.node_resources.fit import resources_signature
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


EXACT_FLOAT_LIMIT = 2**53  # int64 -> float64 is exact below this, so numpy's int/int equals Python's


def _std_batch(fractions: list[np.ndarray], count: int) -> np.ndarray:
    """balanced_resource_score's std for nodes sharing the same list of fractions (same op order)."""
    if len(fractions) == 2:
        half_difference: np.ndarray = np.abs((fractions[0] - fractions[1]) / 2)
        return half_difference
    if len(fractions) > 2:
        total = np.zeros(count, dtype=np.float64)
        for fraction in fractions:
            total += fraction
        mean = total / len(fractions)
        variance = np.zeros(count, dtype=np.float64)
        for fraction in fractions:
            variance += (fraction - mean) * (fraction - mean)
        return np.sqrt(variance / len(fractions))
    return np.zeros(count, dtype=np.float64)


def balanced_resource_score_batch(requested: list[np.ndarray], allocatable: list[np.ndarray]) -> np.ndarray:
    """balanced_resource_score per node, bit for bit: nodes are grouped by which resources they offer."""
    count = len(requested[0]) if requested else 0
    if not count:
        return np.zeros(count, dtype=np.int64)
    huge = np.zeros(count, dtype=bool)
    for values in (*requested, *allocatable):
        if np.maximum.reduce(values) >= EXACT_FLOAT_LIMIT or np.minimum.reduce(values) <= -EXACT_FLOAT_LIMIT:
            huge |= np.abs(values) >= EXACT_FLOAT_LIMIT
    offered = [alloc != 0 for alloc in allocatable]
    everywhere = [bool(np.logical_and.reduce(o)) for o in offered]
    fractions = [
        np.minimum(req / (alloc if full else np.where(o, alloc, 1)), 1.0)
        for req, alloc, o, full in zip(requested, allocatable, offered, everywhere)
    ]
    if all(full or not np.logical_or.reduce(o) for o, full in zip(offered, everywhere)):  # one group: the common case
        present = [f for f, full in zip(fractions, everywhere) if full]
        scores = ((1 - _std_batch(present, count)) * MAX_NODE_SCORE).astype(np.int64)
    else:
        scores = np.empty(count, dtype=np.int64)
        pattern = np.zeros(count, dtype=np.int64)
        for index, o in enumerate(offered):
            pattern |= o.astype(np.int64) << index
        for value in distinct_values(pattern):
            group = np.flatnonzero(pattern == value)
            present = [fractions[i][group] for i in range(len(offered)) if value >> i & 1]
            scores[group] = ((1 - _std_batch(present, len(group))) * MAX_NODE_SCORE).astype(np.int64)
    for i in np.flatnonzero(huge).tolist():  # Python's exact int/int division: the reference itself
        scores[i] = balanced_resource_score([int(r[i]) for r in requested], [int(a[i]) for a in allocatable])
    return scores


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]
    devices: Optional[DeviceTotals] = None  # DRAExtendedResource: a scored resource a class stands for

    def clone(self) -> "_PreScoreState":
        return self


_PRE_SCORE = StateKey[_PreScoreState]("PreScore" + names.NODE_RESOURCES_BALANCED_ALLOCATION)


class BalancedAllocation:
    name: ClassVar[str] = names.NODE_RESOURCES_BALANCED_ALLOCATION

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.RESOURCES, resources_signature(pod))]

    def __init__(
        self,
        args: NodeResourcesBalancedAllocationArgs,
        features: Features,
        dra: Optional[Callable[[], DraState]] = None,
    ) -> None:
        # New passes the release's PodLevelResources and InPlacePodVerticalScaling; Fit's scorer
        # has neither (resource_allocation's docstring).
        self._scorer = ResourceAllocationScorer(
            args.resources,
            balanced_resource_score,
            use_requested=True,
            batch_scorer=balanced_resource_score_batch,
            enable_pod_level_resources=features.enable_pod_level_resources,
            enable_in_place_resize=features.enable_in_place_pod_vertical_scaling,
            scores_the_change=features.balanced_allocation_scores_the_change,
        )
        self._skips_best_effort = features.balanced_allocation_skips_best_effort
        self._dra = dra if features.enable_dra_extended_resource else None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        requests = self._scorer.pod_request_list(pod)
        if self._skips_best_effort and not any(requests):
            return SKIP
        devices = None
        if self._dra is not None:
            devices = self._scorer.device_totals(self._dra())
        state.write(_PRE_SCORE, _PreScoreState(requests, devices))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            requests = self._scorer.pod_request_list(pod)
            if self._skips_best_effort and not any(requests):
                return 0, None
        else:
            return self._scorer.score(node_info, pre_score.pod_requests, pre_score.devices)
        return self._scorer.score(node_info, requests)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            requests = self._scorer.pod_request_list(pod)
            if self._skips_best_effort and not any(requests):
                return np.zeros(len(positions), dtype=np.int64)
        else:
            return self._scorer.score_batch(table, positions, pre_score.pod_requests, pre_score.devices)
        return self._scorer.score_batch(table, positions, requests)


def new_balanced_allocation(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> BalancedAllocation:
    dra = (lambda: handle.snapshot.dra) if handle is not None else None  # None: a unit test's
    return BalancedAllocation(NodeResourcesBalancedAllocationArgs.parse(args), features, dra)
