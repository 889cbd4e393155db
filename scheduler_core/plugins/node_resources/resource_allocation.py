"""Scoring by allocation (noderesources.resourceAllocationScorer), shared by Fit and BalancedAllocation.

For each configured resource it pairs the node's allocatable amount with what would be requested
after placing the pod, and hands both lists to a strategy (least/most allocated, requested to
capacity ratio, balanced). A resource the node does not offer (allocatable 0) is left at (0, 0),
which every strategy skips; a scalar resource the pod does not request is skipped the same way.

``use_requested`` picks the amounts: Fit scores with the "non-zero" requests (a container without
a cpu/memory request counts as 100m / 200Mi), BalancedAllocation with the plain requests.

The incoming pod's requests also depend on two feature flags the scorer carries, as upstream's
does: ``enable_pod_level_resources`` (pod-level ``spec.resources.requests`` replace the containers'
sum) and ``enable_in_place_resize`` (a resize under way counts its larger amounts). In v1.35.4
BalancedAllocation sets both from the feature gates, but Fit's strategy table
(``nodeResourceStrategyTypeMap``) builds its scorer without them, so Fit *scores* a pod by its
containers' spec requests even when it states pod-level ones (its Filter does honour them). The
node side (NodeInfo's requested and non-zero requested) is the same for both.

``scores_the_change`` (BalancedAllocation from v1.36, release/code.py): the strategy scores the
node twice, with the pod's requests and without them (the amounts already allocated), and the
score is the change (``scored_change``), as v1.36's ``balancedResourceScorer(requested,
allocated, allocatable)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.args_errors import ArgsProblem
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from scheduler_core.plugins.helper import go_div, go_div_batch_fast, per_node_values
from scheduler_core.framework.dra_state import DraState
from scheduler_core.plugins.node_resources.dra_totals import DeviceTotals, device_totals
from scheduler_core.plugins.node_resources.resource_names import is_scalar_resource_name
from scheduler_core.model.resources import NON_ZERO_DEFAULTS, pod_requests


def scored_change(with_pod: int, without_pod: int) -> int:
    """v1.36's BalancedAllocation score from the balance with and without the pod (both in
    [50, 100], so the sum is never negative and Go's division is Python's floor division)."""
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2


# A strategy: (requested after placing the pod, allocatable), both per configured resource -> score.
Scorer = Callable[[Sequence[int], Sequence[int]], int]
# The same over many nodes: one int64 array per configured resource in each list -> int64 scores.
BatchScorer = Callable[[list[np.ndarray], list[np.ndarray]], np.ndarray]


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))


def parse_resource_specs(
    raw: Optional[Sequence[Mapping[str, Any]]], path: str, problems: list[ArgsProblem]
) -> tuple[ResourceSpec, ...]:
    """v1 defaulting of a ``resources`` list: empty -> cpu and memory; weight 0 -> 1."""
    if not raw:
        return DEFAULT_RESOURCES
    specs = []
    for index, entry in enumerate(raw):
        weight = entry.get("weight") or 0
        if not isinstance(weight, int) or isinstance(weight, bool):
            problems.append(ArgsProblem(f"{path}[{index}].weight", f"Invalid value: {weight!r}: must be an integer"))
            weight = 1
        specs.append(ResourceSpec(str(entry.get("name", "")), weight or 1))
    return tuple(specs)


class ResourceAllocationScorer:
    def __init__(
        self,
        resources: tuple[ResourceSpec, ...],
        scorer: Scorer,
        use_requested: bool,
        batch_scorer: Optional[BatchScorer] = None,
        *,
        enable_pod_level_resources: bool = False,
        enable_in_place_resize: bool = False,
        scores_the_change: bool = False,
    ) -> None:
        self.resources = resources
        self.scorer = scorer
        self.use_requested = use_requested
        self.batch_scorer = batch_scorer
        self.enable_pod_level_resources = enable_pod_level_resources
        self.enable_in_place_resize = enable_in_place_resize
        self.scores_the_change = scores_the_change

    def pod_request_list(self, pod: Pod) -> tuple[int, ...]:
        """calculatePodResourceRequestList: the pod's request for each configured resource."""
        requests = pod_requests(
            pod,
            None if self.use_requested else NON_ZERO_DEFAULTS,
            pod_level=self.enable_pod_level_resources,
            use_status=self.enable_in_place_resize,
        )
        return tuple(requests.get(spec.name, 0) for spec in self.resources)

    def score(
        self, node_info: NodeInfo, pod_request: Sequence[int], devices: Optional[DeviceTotals] = None
    ) -> tuple[int, MaybeStatus]:
        """``devices``: the cycle's device counts when a scored resource is one a DeviceClass stands
        for (DRAExtendedResource): a node that does not advertise it offers its devices of the class."""
        if not self.resources:
            return 0, Status.error("resources not found")
        requested = [0] * len(self.resources)
        allocatable = [0] * len(self.resources)
        for index, spec in enumerate(self.resources):
            alloc, req = self._allocatable_and_requested(node_info, spec.name, pod_request[index], devices)
            if alloc == 0:
                continue
            allocatable[index] = alloc
            requested[index] = req
        if self.scores_the_change:
            allocated = [req - pod_request[i] if allocatable[i] else 0 for i, req in enumerate(requested)]
            return scored_change(self.scorer(requested, allocatable), self.scorer(allocated, allocatable)), None
        return self.scorer(requested, allocatable), None

    def _allocatable_and_requested(
        self, node_info: NodeInfo, name: str, pod_request: int, devices: Optional[DeviceTotals] = None
    ) -> tuple[int, int]:
        """calculateResourceAllocatableRequest: (allocatable, requested including the pod)."""
        if pod_request == 0 and is_scalar_resource_name(name):
            return 0, 0
        allocatable = node_info.allocatable
        if name in (CPU, MEMORY):
            used = node_info.requested if self.use_requested else node_info.non_zero_requested
            return allocatable.get(name, 0), used.get(name, 0) + pod_request
        if name == EPHEMERAL_STORAGE:
            return allocatable.get(name, 0), node_info.requested.get(name, 0) + pod_request
        if not is_scalar_resource_name(name):
            return 0, 0
        if devices is not None and allocatable.get(name, 0) == 0:
            devices_total, devices_used = devices.amounts(node_info.node, name)
            if devices_total > 0:
                return devices_total, devices_used + pod_request
        if name in allocatable:
            return allocatable[name], node_info.requested.get(name, 0) + pod_request
        return 0, 0

    # ------------------------------------------------------------------ the fast path

    def device_totals(self, dra: DraState) -> Optional[DeviceTotals]:
        """getDRAPreScoredParams for the configured resources (DRAExtendedResource on)."""
        return device_totals(dra, tuple(spec.name for spec in self.resources))

    def score_batch(
        self,
        table: NodeTable[NodeInfo],
        positions: np.ndarray,
        pod_request: Sequence[int],
        devices: Optional[DeviceTotals] = None,
    ) -> np.ndarray:
        """``score`` over many nodes: the same (allocatable, requested) pairs as NodeTable columns.
        A node's score depends on its own columns and the pod's request alone: kept per request
        over the table's nodes, made again only where pods changed (per_node_values). With device
        counts (``devices``) a node's amounts are not table columns: scored node by node."""
        if devices is not None:
            infos = table.node_infos
            scored = [self.score(infos[p], pod_request, devices)[0] for p in positions.tolist()]
            return np.asarray(scored, dtype=np.int64)
        if not self.resources:
            return self._score_positions(table, positions, pod_request)
        infos = table.node_infos
        return per_node_values(
            table,
            "resource-allocation",
            (self, tuple(pod_request)),
            positions,
            lambda at: self._score_positions(table, at, pod_request),
            lambda position: self.score(infos[position], pod_request)[0],
        )

    def _score_positions(
        self, table: NodeTable[NodeInfo], positions: np.ndarray, pod_request: Sequence[int]
    ) -> np.ndarray:
        requested: list[np.ndarray] = []
        allocated: list[np.ndarray] = []
        allocatable: list[np.ndarray] = []
        for index, spec in enumerate(self.resources):
            alloc, req = self._allocatable_and_requested_batch(table, positions, spec.name, pod_request[index])
            offered = alloc != 0
            everywhere = bool(np.logical_and.reduce(offered))
            requested.append(req if everywhere else np.where(offered, req, 0))
            if self.scores_the_change:
                used = req - pod_request[index]
                allocated.append(used if everywhere else np.where(offered, used, 0))
            allocatable.append(alloc)
        assert self.batch_scorer is not None  # the batch path is taken only by scorers built with one
        if self.scores_the_change:
            with_pod = self.batch_scorer(requested, allocatable)
            without_pod = self.batch_scorer(allocated, allocatable)
            changed: np.ndarray = MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2
            return changed
        return self.batch_scorer(requested, allocatable)

    def _allocatable_and_requested_batch(
        self, table: NodeTable[NodeInfo], positions: np.ndarray, name: str, pod_request: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """_allocatable_and_requested per position; a node without the resource has allocatable 0."""
        if (pod_request == 0 and is_scalar_resource_name(name)) or not (
            name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource_name(name)
        ):
            zeros = np.zeros(len(positions), dtype=np.int64)
            return zeros, zeros
        if name in (CPU, MEMORY) and not self.use_requested:
            used = table.non_zero_cpu if name == CPU else table.non_zero_memory
        else:
            used = table.requested_of(name)
        return table.allocatable_of(name)[positions], used[positions] + pod_request


def weighted_average(resources: tuple[ResourceSpec, ...], per_resource: Callable[[int, int], int]) -> Scorer:
    """A node's score: per-resource scores averaged by weight; resources the node lacks are skipped."""

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for index, spec in enumerate(resources):
            if allocatable[index] == 0:
                continue
            total += per_resource(requested[index], allocatable[index]) * spec.weight
            weights += spec.weight
        return go_div(total, weights) if weights else 0

    return score


def weighted_average_batch(
    resources: tuple[ResourceSpec, ...],
    requested: list[np.ndarray],
    allocatable: list[np.ndarray],
    resource_score: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Least/MostAllocated's weighted average over the resources a node offers (Go division).

    ``resource_score(requested, capacity)`` sees capacity 1 where the node lacks the resource;
    those entries are dropped.
    """
    count = len(requested[0]) if requested else 0
    total = np.zeros(count, dtype=np.int64)
    weights = np.zeros(count, dtype=np.int64)
    for index, spec in enumerate(resources):
        offered = allocatable[index] != 0
        if np.logical_and.reduce(offered):  # the common case: no masking needed
            total += resource_score(requested[index], allocatable[index]) * spec.weight
            weights += spec.weight
            continue
        value = resource_score(requested[index], np.where(offered, allocatable[index], 1))
        total += np.where(offered, value * spec.weight, 0)
        weights += np.where(offered, spec.weight, 0)
    has_weight = weights != 0
    if np.logical_and.reduce(has_weight):
        return go_div_batch_fast(total, weights)
    return np.where(has_weight, go_div_batch_fast(total, np.where(has_weight, weights, 1)), 0)
