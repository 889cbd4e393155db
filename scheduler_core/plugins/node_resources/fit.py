"""NodeResourcesFit (noderesources.Fit): the node must have room for the pod's requests.

Filter compares the pod's requests with what is left of the node's allocatable amounts and lists
every shortfall ("Insufficient cpu", ..., "Too many pods"). A shortfall that no preemption could
cure — the pod asks for more than the node has at all — makes the status
UnschedulableAndUnresolvable from v1.34 on (release/code.py ``fit_unresolvable_beyond_allocatable``;
before, every shortfall is Unschedulable); otherwise it is Unschedulable. Extended resources named in
``ignoredResources`` or in a group of ``ignoredResourceGroups`` are not checked.

With DRAExtendedResource on (v1.36), a requested resource a DeviceClass stands for is left to
DynamicResources on a node that does not advertise it (shouldDelegateResourceToDRA), such a pod is
not signed, and DeviceClass events may queue it.

Scoring uses the configured ``scoringStrategy`` (LeastAllocated by default, on cpu and memory); a
scored resource a DeviceClass stands for counts the node's devices of the class where the node
does not advertise it (dra_totals.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Container, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.dra_class_resolver import DEVICE_CLASS_PREFIX
from scheduler_core.framework.dra_state import DraState
from scheduler_core.plugins.node_resources.dra_totals import DeviceTotals
from scheduler_core.framework.batch import PASS, FilterVerdicts, filter_per_node
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import ResourceFact
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, DeviceClass, Node, Pod, ResourceList
from scheduler_core.plugins.helper import FunctionShapePoint, distinct_values, per_node_values
from scheduler_core.plugins.node_resources.least_allocated import least_resource_scorer, least_resource_scorer_batch
from scheduler_core.plugins.node_resources.most_allocated import most_resource_scorer, most_resource_scorer_batch
from scheduler_core.plugins.node_resources.requested_to_capacity_ratio import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    requested_to_capacity_ratio_scorer,
    requested_to_capacity_ratio_scorer_batch,
)
from scheduler_core.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    parse_resource_specs,
)
from scheduler_core.plugins.node_resources.resource_names import (
    is_extended_resource_name,
    is_scalar_resource_name,
    qualified_name_problems,
)
from scheduler_core.model.resources import pod_requests

REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT = "Insufficient {resource}"

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


# ---------------------------------------------------------------------------- args


@dataclass(frozen=True)
class ScoringStrategy:
    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
    shape: Optional[tuple[FunctionShapePoint, ...]] = None  # requestedToCapacityRatio.shape


@dataclass(frozen=True)
class NodeResourcesFitArgs:
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()
    scoring_strategy: ScoringStrategy = field(default_factory=ScoringStrategy)

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "NodeResourcesFitArgs":
        """v1 defaults (SetDefaults_NodeResourcesFitArgs), then ValidateNodeResourcesFitArgs."""
        raw = raw or {}
        problems: list[ArgsProblem] = []
        ignored = [str(r) for r in raw.get("ignoredResources") or ()]
        groups = [str(g) for g in raw.get("ignoredResourceGroups") or ()]
        for index, name in enumerate(ignored):
            problems.extend(
                ArgsProblem(f"ignoredResources[{index}]", f'Invalid value: "{name}": {msg}')
                for msg in qualified_name_problems(name)
            )
        for index, group in enumerate(groups):
            if "/" in group:
                problems.append(
                    ArgsProblem(
                        f"ignoredResourceGroups[{index}]",
                        f"Invalid value: \"{group}\": resource group name can't contain '/'",
                    )
                )
            problems.extend(
                ArgsProblem(f"ignoredResourceGroups[{index}]", f'Invalid value: "{group}": {msg}')
                for msg in qualified_name_problems(group)
            )
        strategy = _parse_strategy(raw.get("scoringStrategy"), problems)
        if problems:
            raise ArgsError(problems)
        return cls(frozenset(ignored), frozenset(groups), strategy)


def _parse_strategy(raw: Optional[Mapping[str, Any]], problems: list[ArgsProblem]) -> ScoringStrategy:
    if raw is None:
        return ScoringStrategy()
    kind = str(raw.get("type") or "")
    if kind not in STRATEGY_TYPES:
        supported = ", ".join(f'"{t}"' for t in STRATEGY_TYPES)
        problems.append(
            ArgsProblem("scoringStrategy.type", f'Unsupported value: "{kind}": supported values: {supported}')
        )
    resources = parse_resource_specs(raw.get("resources"), "scoringStrategy.resources", problems)
    for index, spec in enumerate(resources):
        if spec.weight <= 0 or spec.weight > 100:
            problems.append(
                ArgsProblem(
                    f"scoringStrategy.resources[{index}].weight",
                    f"Invalid value: {spec.weight}: resource weight of {spec.name} not in valid range (0, 100]",
                )
            )
    shape = None
    ratio = raw.get("requestedToCapacityRatio")
    if ratio is not None:
        shape = _parse_shape(ratio.get("shape") or (), problems)
    elif kind == REQUESTED_TO_CAPACITY_RATIO:
        problems.append(ArgsProblem("scoringStrategy.requestedToCapacityRatio", "Required value"))
    return ScoringStrategy(kind, resources, shape)


def _parse_shape(raw: Sequence[Any], problems: list[ArgsProblem]) -> tuple[FunctionShapePoint, ...]:
    """validateFunctionShape; Go reports these under ``scoringStrategy.shape``."""
    path = "scoringStrategy.shape"
    points = tuple(FunctionShapePoint(int(p.get("utilization", 0)), int(p.get("score", 0))) for p in raw)
    if not points:
        problems.append(ArgsProblem(path, "Required value: at least one point must be specified"))
        return points
    for index in range(1, len(points)):
        if points[index - 1].utilization >= points[index].utilization:
            problems.append(
                ArgsProblem(
                    f"{path}[{index}].utilization",
                    f"Invalid value: {points[index].utilization}: values must be sorted in increasing order",
                )
            )
            break
    for index, point in enumerate(points):
        if not 0 <= point.utilization <= MAX_UTILIZATION:
            problems.append(
                ArgsProblem(
                    f"{path}[{index}].utilization", f"Invalid value: {point.utilization}: not in valid range [0, 100]"
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            problems.append(
                ArgsProblem(f"{path}[{index}].score", f"Invalid value: {point.score}: not in valid range [0, 10]")
            )
    return points


def build_scorer(strategy: ScoringStrategy) -> ResourceAllocationScorer:
    """nodeResourceStrategyTypeMap: the strategy's scorer over the non-zero requests. Like upstream's
    table it passes no feature flag: the pod is scored by its containers' spec requests."""
    if strategy.type == MOST_ALLOCATED:
        scorer = most_resource_scorer(strategy.resources)
        batch_scorer = most_resource_scorer_batch(strategy.resources)
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        scorer = requested_to_capacity_ratio_scorer(strategy.resources, strategy.shape or ())
        batch_scorer = requested_to_capacity_ratio_scorer_batch(strategy.resources, strategy.shape or ())
    else:
        scorer = least_resource_scorer(strategy.resources)
        batch_scorer = least_resource_scorer_batch(strategy.resources)
    return ResourceAllocationScorer(strategy.resources, scorer, use_requested=False, batch_scorer=batch_scorer)


# ---------------------------------------------------------------------------- filtering


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False  # the node is too small even when empty: preemption cannot help


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    requests: ResourceList  # cpu, memory, ephemeral-storage and scalar resources only
    # checked_requests of them, worked out once per cycle: Filter compares them on every node, and
    # preemption's dry run on every potential node again (never changed: callers get copies).
    checked: tuple[tuple[str, int], ...]
    # DRAExtendedResource: the checked resources a DeviceClass stands for; a node that does not
    # advertise one (allocatable 0) leaves it to DynamicResources (shouldDelegateResourceToDRA)
    delegable: frozenset[str] = frozenset()

    def checked_on(self, node_info: NodeInfo) -> Sequence[tuple[str, int]]:
        """What Filter compares on this node: the checked requests less those delegated there."""
        if not self.delegable:
            return self.checked
        allocatable = node_info.allocatable
        return [(name, wanted) for name, wanted in self.checked if not _delegated(name, allocatable, self.delegable)]

    def clone(self) -> "_PreFilterState":
        return self

    def memo_content(self) -> tuple[Any, ...]:
        return (dict(self.requests), self.checked, self.delegable)


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]
    devices: Optional[DeviceTotals] = None  # DRAExtendedResource: a scored resource a class stands for

    def clone(self) -> "_PreScoreState":
        return self


_PRE_FILTER = StateKey[_PreFilterState]("PreFilter" + names.NODE_RESOURCES_FIT)
_PRE_SCORE = StateKey[_PreScoreState]("PreScore" + names.NODE_RESOURCES_FIT)

_FIXED_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE)


def compute_pod_request(pod: Pod) -> ResourceList:
    """computePodResourceRequest: the pod's requests the scheduler keeps (framework.Resource)."""
    return {
        name: amount
        for name, amount in pod_requests(pod).items()
        if name in _FIXED_RESOURCES or is_scalar_resource_name(name)
    }


def resources_signature(pod: Pod) -> tuple[Any, ...]:
    """The pod's requests as its signature holds them (computePodResourceRequest marshalled): cpu,
    memory and ephemeral storage always, scalar resources when requested."""
    requests = compute_pod_request(pod)
    fixed = tuple(requests.get(name, 0) for name in _FIXED_RESOURCES)
    scalars = tuple(sorted((name, amount) for name, amount in requests.items() if name not in _FIXED_RESOURCES))
    return fixed, scalars


def _is_ignored(name: str, ignored: frozenset[str], ignored_groups: frozenset[str]) -> bool:
    if not is_extended_resource_name(name):
        return False
    return name in ignored or (bool(ignored_groups) and name.split("/")[0] in ignored_groups)


def checked_requests(
    request: ResourceList, ignored: frozenset[str] = frozenset(), ignored_groups: frozenset[str] = frozenset()
) -> list[tuple[str, int]]:
    """The (resource, amount) pairs fitsRequest checks, in its order: cpu, memory,
    ephemeral-storage, then scalars by name; zero requests and ignored resources left out."""
    scalars = sorted(name for name in request if name not in _FIXED_RESOURCES)
    return [
        (name, request.get(name, 0))
        for name in (*_FIXED_RESOURCES, *scalars)
        if request.get(name, 0) > 0 and not _is_ignored(name, ignored, ignored_groups)
    ]


def fits_request(
    request: ResourceList,
    node_info: NodeInfo,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """fitsRequest: every shortfall, pods first, then cpu, memory, ephemeral-storage, scalars."""
    return shortfalls_of(
        checked_requests(request, ignored, ignored_groups),
        node_info.allocatable,
        node_info.requested,
        len(node_info.pods),
    )


def shortfalls_of(
    checked: Sequence[tuple[str, int]], allocatable: ResourceList, requested: ResourceList, pod_count: int
) -> list[InsufficientResource]:
    """fitsRequest on a node's numbers: ``checked`` as checked_requests gives it, ``requested``
    what the node's ``pod_count`` pods request."""
    shortfalls: list[InsufficientResource] = []
    allowed = allocatable.get(PODS, 0)
    if pod_count + 1 > allowed:
        shortfalls.append(InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, pod_count, allowed))
    for name, wanted in checked:
        capacity = allocatable.get(name, 0)
        used = requested.get(name, 0)
        if wanted > capacity - used:
            shortfalls.append(
                InsufficientResource(
                    name,
                    REASON_INSUFFICIENT.format(resource=name),
                    wanted,
                    used,
                    capacity,
                    unresolvable=wanted > capacity,
                )
            )
    return shortfalls


def shortfall_status(shortfalls: list[InsufficientResource], unresolvable: bool = True) -> MaybeStatus:
    """Fit.filter's answer for these shortfalls (``unresolvable``: the release tells a node too
    small even when empty apart, v1.34 on)."""
    if not shortfalls:
        return None
    reasons = tuple(s.reason for s in shortfalls)
    if unresolvable and any(s.unresolvable for s in shortfalls):
        return Status.unresolvable(*reasons)
    return Status.unschedulable(*reasons)


def shortfall_verdicts(
    request: ResourceList,
    table: NodeTable[NodeInfo],
    positions: np.ndarray,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
    unresolvable: bool = True,
) -> Optional[FilterVerdicts]:
    """fits_request over many nodes, as Fit.filter's statuses (None when every node fits).

    Each failing node's shortfalls become a bit set (``shortfall_keys``); each distinct set seen
    becomes one status, in order of first appearance. A node's set depends on its own columns and
    the checked requests alone: kept per request over the table's nodes (per_node_values).
    """
    checked = checked_requests(request, ignored, ignored_groups)
    infos = table.node_infos
    keys = per_node_values(
        table,
        "fit-shortfalls",
        tuple(checked),
        positions,
        lambda at: shortfall_keys(checked, table, at),
        lambda position: shortfall_key(
            checked, infos[position].allocatable, infos[position].requested, len(infos[position].pods)
        ),
    )
    return shortfall_keys_verdicts(checked, keys, unresolvable)


def checked_shortfall_verdicts(
    checked: list[tuple[str, int]],
    table: NodeTable[NodeInfo],
    positions: np.ndarray,
    added_requested: Optional[dict[str, np.ndarray]] = None,
    added_pods: Optional[np.ndarray] = None,
    unresolvable: bool = True,
) -> Optional[FilterVerdicts]:
    """shortfall_verdicts for checked requests, optionally with more pods counted on each node
    (``added_requested`` per checked resource and ``added_pods``, one value per position)."""
    keys = shortfall_keys(checked, table, positions, added_requested, added_pods)
    return shortfall_keys_verdicts(checked, keys, unresolvable)


def shortfall_keys(
    checked: list[tuple[str, int]],
    table: NodeTable[NodeInfo],
    positions: np.ndarray,
    added_requested: Optional[dict[str, np.ndarray]] = None,
    added_pods: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Per position, fitsRequest's shortfalls as bits (0: the node fits): bit 1 too many pods,
    bit i + 2 the i-th checked request, and bit 0 when a failed check would fail on the empty node
    too (UnschedulableAndUnresolvable)."""
    pod_count = table.pod_count[positions] if added_pods is None else table.pod_count[positions] + added_pods
    keys: np.ndarray = (pod_count + 1 > table.allocatable_of(PODS)[positions]).astype(np.int64) << 1
    for bit, (name, wanted) in enumerate(checked, start=2):
        capacity = table.allocatable_of(name)[positions]
        requested = table.requested_of(name)[positions]
        if added_requested is not None:
            requested = requested + added_requested[name]
        short = wanted > capacity - requested
        keys |= short.astype(np.int64) << bit
        keys |= short & (wanted > capacity)
    return keys


def shortfall_key(
    checked: list[tuple[str, int]], allocatable: ResourceList, requested: ResourceList, pod_count: int
) -> int:
    """``shortfall_keys`` of one node from its numbers."""
    key = 2 if pod_count + 1 > allocatable.get(PODS, 0) else 0
    for bit, (name, wanted) in enumerate(checked, start=2):
        capacity = allocatable.get(name, 0)
        if wanted > capacity - requested.get(name, 0):
            key |= 1 << bit
            if wanted > capacity:
                key |= 1
    return key


def shortfall_keys_verdicts(
    checked: list[tuple[str, int]], keys: np.ndarray, unresolvable: bool = True
) -> Optional[FilterVerdicts]:
    """Fit.filter's statuses from the nodes' shortfall bits (None when every node fits): one
    status per distinct set, in order of first appearance. Without ``unresolvable`` (before
    v1.34) bit 0 is not told apart: every status is Unschedulable."""
    failed = np.flatnonzero(keys)
    if not len(failed):
        return None
    failed_keys = keys[failed] if unresolvable else keys[failed] & ~1
    distinct = distinct_values(failed_keys)
    distinct.sort(key=lambda k: int((failed_keys == k).argmax()))  # palette in order of first appearance
    reasons = [REASON_TOO_MANY_PODS, *(REASON_INSUFFICIENT.format(resource=name) for name, _ in checked)]
    palette = []
    choice = np.full(len(keys), PASS, dtype=np.int32)
    for index, key in enumerate(distinct):
        found = tuple(reason for bit, reason in enumerate(reasons) if key >> (bit + 1) & 1)
        palette.append(Status.unresolvable(*found) if key & 1 else Status.unschedulable(*found))
        choice[failed[failed_keys == key]] = index
    return FilterVerdicts(palette, choice)


def fits(pod: Pod, node_info: NodeInfo, delegable: Container[str] = ()) -> list[InsufficientResource]:
    """noderesources.Fits: the shortfalls of a pod on a node, nothing ignored (``delegable``: the
    resources a DeviceClass stands for, left to DynamicResources where the node has none)."""
    checked = checked_requests(compute_pod_request(pod))
    if delegable:
        checked = [item for item in checked if not _delegated(item[0], node_info.allocatable, delegable)]
    return shortfalls_of(checked, node_info.allocatable, node_info.requested, len(node_info.pods))


def _delegated(name: str, allocatable: ResourceList, delegable: Container[str]) -> bool:
    """shouldDelegateResourceToDRA: a class stands for the resource and the node advertises none."""
    return name in delegable and allocatable.get(name, 0) <= 0


# ---------------------------------------------------------------------------- plugin


class Fit:
    name: ClassVar[str] = names.NODE_RESOURCES_FIT

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return self.refuses_to_sign(pod) or [(signers.RESOURCES, resources_signature(pod))]

    def refuses_to_sign(self, pod: Pod) -> Optional[signers.Unsignable]:
        if self._dra is not None and self._delegable(compute_pod_request(pod)):
            return signers.Unsignable(
                self.name, "signature disabled when dra extended resources are used in the cluster"
            )
        return None

    def __init__(
        self,
        args: NodeResourcesFitArgs,
        features: Features,
        dra: Optional[Callable[[], DraState]] = None,
    ) -> None:
        self._ignored = args.ignored_resources
        self._ignored_groups = args.ignored_resource_groups
        self._scorer = build_scorer(args.scoring_strategy)
        self.unresolvable = features.fit_unresolvable_beyond_allocatable
        # DRAExtendedResource on: the DRA manager (its DeviceClassResolver), read as it stands
        self._dra = dra if features.enable_dra_extended_resource else None

    def _delegable(self, requests: ResourceList) -> frozenset[str]:
        """The requested resources a DeviceClass stands for (none while DRAExtendedResource is off)."""
        if self._dra is None:
            return frozenset()
        cache = self._dra().class_resolver
        if not cache:
            return frozenset()
        return frozenset(name for name, amount in requests.items() if amount and cache.device_class(name) is not None)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        requests = compute_pod_request(pod)
        checked = tuple(checked_requests(requests, self._ignored, self._ignored_groups))
        delegable = self._delegable(dict(checked))
        state.write(_PRE_FILTER, _PreFilterState(requests, checked, delegable))
        return None, None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on, InPlacePodVerticalScaling GA): pod deletions and
        scale-downs free resources; a node added or with more allocatable may have room (with
        QueueingHints the release registers Add | UpdateNodeAllocatable only)."""
        pod_actions = ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        events = [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_actions), pod_event_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions), self.node_hint),
        ]
        if self._dra is not None:
            class_actions = ActionType.ADD | ActionType.UPDATE
            events.append(ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, class_actions), class_hint))
        return events

    def node_hint(self, pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
        return node_change_hint(pod, old, new, self._delegable(compute_pod_request(pod)))

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            return Status.error(f"error reading {_PRE_FILTER.name!r} from cycleState: not found")
        checked = pre_filter.checked_on(node_info)
        shortfalls = shortfalls_of(checked, node_info.allocatable, node_info.requested, len(node_info.pods))
        return shortfall_status(shortfalls, self.unresolvable)

    def checked_requests(self, state: CycleState) -> Optional[list[tuple[str, int]]]:
        """What filter compares on every node for this cycle's pod (checked_requests of its
        PreFilter state, ignored resources left out); None when PreFilter did not run or when what
        it compares differs by node (a resource DynamicResources may give)."""
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None or pre_filter.delegable:
            return None
        return list(pre_filter.checked)

    def delegates(self, state: CycleState) -> bool:
        """Whether some request of this cycle's pod is left to DynamicResources on nodes without it."""
        pre_filter = state.read_optional(_PRE_FILTER)
        return pre_filter is not None and bool(pre_filter.delegable)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[ResourceFact, ...]:
        """Every shortfall filter found, with the amounts fitsRequest compared (explanations only)."""
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            return ()
        pods = len(node_info.pods)
        checked = pre_filter.checked_on(node_info)
        return tuple(
            ResourceFact(s.reason, s.resource, s.requested, s.used, s.capacity, pods)
            for s in shortfalls_of(checked, node_info.allocatable, node_info.requested, pods)
        )

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            error = Status.error(f"error reading {_PRE_FILTER.name!r} from cycleState: not found")
            return FilterVerdicts.from_mask(np.ones(len(positions), dtype=bool), error)
        if pre_filter.delegable:
            return filter_per_node(self, state, pod, table, positions)
        return shortfall_verdicts(
            pre_filter.requests, table, positions, self._ignored, self._ignored_groups, self.unresolvable
        )

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        state.write(_PRE_SCORE, _PreScoreState(self._scorer.pod_request_list(pod), self._device_totals()))
        return None

    def _device_totals(self) -> Optional[DeviceTotals]:
        """getDRAPreScoredParams (DRAExtendedResource on): the devices to count for a scored
        resource a class stands for, None when there is none."""
        if self._dra is None:
            return None
        return self._scorer.device_totals(self._dra())

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            return self._scorer.score(node_info, self._scorer.pod_request_list(pod))
        return self._scorer.score(node_info, pre_score.pod_requests, pre_score.devices)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            return self._scorer.score_batch(table, positions, self._scorer.pod_request_list(pod))
        return self._scorer.score_batch(table, positions, pre_score.pod_requests, pre_score.devices)


def pod_event_hint(pod: Pod, old: Pod, new: Optional[Pod]) -> QueueingHint:
    """isSchedulableAfterPodEvent: a bound (or nominated) pod was deleted, or a pod was scaled
    down in a resource the pod requests (or the pod itself was scaled down)."""
    if new is None:
        if not old.node_name and not old.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE if _scale_down_helps(pod, old, new) else QueueingHint.QUEUE_SKIP


def node_change_hint(pod: Pod, old: Optional[Node], new: Node, delegable: Container[str] = ()) -> QueueingHint:
    """isSchedulableAfterNodeChange: the pod must fit the node's allocatable when it is empty
    (isFit); an added node then queues it, an updated one only when an amount the pod requests
    (or the pod count) grew (haveAnyRequestedResourcesIncreased). ``delegable``: the requests a
    DeviceClass stands for (DRAExtendedResource), not Fit's to check where the node has none."""
    if fits(pod, NodeInfo(new), delegable):
        return QueueingHint.QUEUE_SKIP
    if old is None:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE if _requested_allocatable_increased(pod, old, new, delegable) else QueueingHint.QUEUE_SKIP


def _requested_allocatable_increased(pod: Pod, old: Node, new: Node, delegable: Container[str] = ()) -> bool:
    """haveAnyRequestedResourcesIncreased (a requested resource the new node leaves to
    DynamicResources counts as increased, as the release has it)."""
    if new.allocatable.get(PODS, 0) > old.allocatable.get(PODS, 0):
        return True
    request = compute_pod_request(pod)
    return any(
        amount > 0
        and (
            new.allocatable.get(name, 0) > old.allocatable.get(name, 0) or _delegated(name, new.allocatable, delegable)
        )
        for name, amount in request.items()
        if name != PODS
    )


def class_hint(pod: Pod, old: Optional[DeviceClass], new: DeviceClass) -> QueueingHint:
    """isSchedulableAfterDeviceClassEvent: a class that now stands for a resource the pod requests
    (its implicit name when added, its extendedResourceName when added or changed)."""
    requests = compute_pod_request(pod)
    if old is not None and old.extended_resource_name == new.extended_resource_name:
        return QueueingHint.QUEUE_SKIP
    if old is None and DEVICE_CLASS_PREFIX + new.name in requests:
        return QueueingHint.QUEUE
    if new.extended_resource_name is not None and new.extended_resource_name in requests:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _scale_down_helps(pod: Pod, old: Pod, new: Pod) -> bool:
    """isSchedulableAfterPodScaleDown."""
    if new.key == pod.key:
        return True
    if not new.node_name:
        return False
    before, after = compute_pod_request(old), compute_pod_request(new)
    return any(amount and before.get(name, 0) > after.get(name, 0) for name, amount in compute_pod_request(pod).items())


def new_fit(args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features) -> Fit:
    dra = (lambda: handle.snapshot.dra) if handle is not None else None  # None: a unit test's
    return Fit(NodeResourcesFitArgs.parse(args), features, dra)
