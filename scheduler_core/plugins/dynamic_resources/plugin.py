"""DynamicResources (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, v1.35.4).

- PreEnqueue: every claim of the pod must exist, not be terminating and, for a claim made from a
  template, be owned by the pod; otherwise the pod waits (UnschedulableAndUnresolvable).
- PreFilter: writes its state first (so PostFilter can tell "no claims" from "never ran"), skips a
  pod without claims, limits allocated claims to their allocation's node selector, fails on a claim
  whose allocation is in flight or a request whose class does not exist, and builds the structured
  allocator over all slices and the devices in use (allocated or in flight).
- Filter: per node, the allocated claims' node selectors and the allocator's answer for all
  unallocated claims together.
- PostFilter: deallocates one claim that was unavailable on some node and is reserved by nobody
  else (a claim status update), else "still not schedulable".
- Score: only firstAvailable subrequests score; NormalizeScore is the default normalization.
- Reserve marks the allocations in flight; Unreserve takes them back (and the pod's reservation);
  PreBind writes each claim: the finalizer (an update), then allocation and reservedFor (a status
  update). The allocator checks device taints against the requests' tolerations when
  DRADeviceTaints is on (v1.36), and shares devices that allow multiple allocations while
  DRAConsumableCapacity is on (v1.36: the shared devices and what their shares consume come from
  the claims and the allocations in flight).
- DRAExtendedResource (on from v1.36): a pod requesting an extended resource a DeviceClass stands
  for gets a claim of its own (extendeddynamicresources.go): made in memory at PreFilter after the
  pod's claims, fitted to each node at Filter (the resources the node does not advertise, one
  request per container: extended.py), created at PreBind and named in the pod's status,
  deleted by Unreserve once created; one left from an earlier cycle fails every node and PostFilter
  deletes it.
- DRADeviceBindingConditions (on from v1.36, with DRAResourceClaimDeviceStatus): PreBind stamps
  each claim's allocationTimestamp and waits for the binding conditions of the devices it
  allocated (binding.py: the conditions are as the dump has them, so the wait's end is known when
  it begins; the run's clock carries it); Filter finds a claim whose binding failed or timed out
  unavailable, and PostFilter deallocates it. ``bindingTimeout`` comes from the plugin's args.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar, Container, Mapping, Optional

import msgspec
import numpy as np

from scheduler_core.model import names
from scheduler_core.dra import claims as pod_claims
from scheduler_core.plugins.dynamic_resources import binding
from scheduler_core.plugins.dynamic_resources import extended as extended_resources
from scheduler_core.plugins.dynamic_resources.args import DynamicResourcesArgs
from scheduler_core.dra.allocator import (
    AllocationError,
    AllocationMemo,
    Allocator,
    DeviceId,
    Pool,
    counters_left,
    device_matches_node,
    gather_pools,
    selectors_match,
    taint_prevents_allocation,
)
from scheduler_core.framework.batch import default_normalize
from scheduler_core.framework.dra_state import DraState, PoolId, SelectorCache
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey, StateNotFound
from scheduler_core.framework.options import ObjectWriter
from scheduler_core.framework.interfaces import Handle, NodeScore, NodeToStatus, PostFilterResult, PreFilterResult
from scheduler_core.framework.filter_facts import NodeFact
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, Code, MaybeStatus, Status
from scheduler_core.model.labels import node_selector_matches
from scheduler_core.model.resources import pod_requests
from scheduler_core.plugins.node_resources.resource_names import is_dra_extended_resource_name, is_scalar_resource_name
from scheduler_core.model.quantity import format_amount
from scheduler_core.model import (
    ALLOCATION_MODE_ALL,
    FINALIZER,
    FIRST_AVAILABLE_MAX_SIZE,
    AllocationResult,
    ConsumerRef,
    ContainerExtendedResourceRequest,
    Device,
    DeviceClass,
    DeviceRequest,
    DeviceResult,
    DeviceToleration,
    ExactRequest,
    ExtendedResourceClaimStatus,
    Node,
    NodeSelector,
    OwnerReference,
    Pod,
    ResourceClaim,
    ResourceSlice,
    SubRequest,
)
from scheduler_core.plugins.dynamic_resources.picture import (
    CounterLeft,
    ShareLeft,
    DeviceVerdict,
    NodePicture,
    PreFilterPicture,
    RequestVerdict,
    claim_picture,
)
from scheduler_core.plugins.helper import default_normalize_score
from scheduler_core.release import DEFAULT_RULES, Features

REASON_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_DEALLOCATED = "deallocation of ResourceClaim completed"
REASON_STILL_NOT_SCHEDULABLE = "still not schedulable"
# DRAExtendedResource: Filter on a node when the pod's extended resource claim is left from an
# earlier cycle, or asks for a resource neither a device plugin nor a DeviceClass provides there;
# PostFilter once it deleted such a claim
REASON_STALE_EXTENDED_CLAIM = "cannot schedule extended resource claim"
REASON_CANNOT_FIT_RESOURCE = "cannot fit resource"
REASON_CLAIM_DELETED = "deletion of ResourceClaim completed"
# Filter's two verdicts on a node, answered for most nodes of every attempt: statuses are immutable
_CANNOT_ALLOCATE = Status.unresolvable(REASON_CANNOT_ALLOCATE)
_NOT_AVAILABLE = Status.unresolvable(REASON_NOT_AVAILABLE)
# cycleState.Read's ErrNotFound text: PostFilter's answer when PreFilter stored no state.
ERROR_STATE_NOT_FOUND = "not found"
MAX_NODE_SCORE = 100


@dataclass(slots=True)
class _ClaimsState:
    """stateData: the pod's claims as PreFilter found them (replaced as PreBind writes them)."""

    claims: list[ResourceClaim] = field(default_factory=list)
    available_on: list[Optional[NodeSelector]] = field(default_factory=list)  # allocated claims' selectors
    allocator: Optional[Allocator] = None
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    node_failures: dict[str, Status] = field(default_factory=dict)  # Filter's verdicts, memoized per node
    allocations: dict[int, AllocationResult] = field(default_factory=dict)  # set by Reserve
    device_owners: dict[tuple[str, str, str], str] = field(default_factory=dict)
    owners_as_of: Optional[tuple[object, int]] = None  # DraState.devices_generation when taken
    picture: Optional[PreFilterPicture] = None
    # DRAExtendedResource: how many of ``claims`` are the pod's own (the claim for its extended
    # resources, when it has one, comes after them), the pod's scalar requests, and per node the
    # claim Filter fitted to the node and which of its requests serves which container.
    user_count: int = 0
    extended_uid: str = ""  # claimStore.initialExtendedResourceClaimUID
    pod_scalars: dict[str, int] = field(default_factory=dict)
    node_extended: dict[str, tuple[Optional[ResourceClaim], tuple[ContainerExtendedResourceRequest, ...]]] = field(
        default_factory=dict
    )
    # DRADeviceBindingConditions: the allocated claims whose binding failed or timed out (Filter
    # finds them unavailable on every node; the check reads no node, so PreFilter makes it once)
    binding_unavailable: frozenset[int] = frozenset()

    def clone(self) -> "_ClaimsState":
        return self  # the release's Clone returns the same pointer

    def memo_content(self) -> Optional[tuple[()]]:
        """A pod without claims holds nothing here (the plugin is skipped); one with claims: no
        content to compare (Filter memoizes per node here)."""
        return () if not self.claims else None

    def to_allocate(self) -> list[int]:
        return [index for index, claim in enumerate(self.claims) if claim.allocation is None]

    @property
    def extended(self) -> Optional[ResourceClaim]:
        """claimStore.extendedResourceClaim: the claim for the pod's extended resources, if any."""
        return self.claims[self.user_count] if len(self.claims) > self.user_count else None

    def is_extended(self, index: int) -> bool:
        return index == self.user_count


_STATE = StateKey[_ClaimsState]("DynamicResources")


@dataclass(frozen=True, slots=True)
class _Accepted:
    """The devices of a node's pools a class and selectors accept (node pictures)."""

    pools: list[Pool]
    device_class: DeviceClass
    ids: tuple[DeviceId, ...]
    names: tuple[str, ...]  # driver/pool/device
    pool_ids: tuple[PoolId, ...]  # the pools of those devices, each once


@dataclass(frozen=True, slots=True)
class _Asked:
    """A request a node picture shows: of the ``position``-th claim to allocate, the alternative
    pictured (``exact``), its class (None: unknown) and the count wanted as the picture says it."""

    position: int
    claim: ResourceClaim
    request: DeviceRequest
    exact: ExactRequest | SubRequest
    device_class: Optional[DeviceClass]
    wanted: str


def _chosen(results: tuple[DeviceResult, ...], request: str) -> tuple[str, ...]:
    """The devices the allocator chose for the request (a firstAvailable one's results name its
    alternative: ``request/alternative``)."""
    return tuple(result.device for result in results if result.request.split("/")[0] == request)


class DynamicResources:
    name: ClassVar[str] = names.DYNAMIC_RESOURCES

    def __init__(
        self, handle: Handle, features: Features = DEFAULT_RULES.features, args: Optional[DynamicResourcesArgs] = None
    ) -> None:
        self.handle = handle
        self.features = features
        self.args = args if args is not None else DynamicResourcesArgs()
        # isClaimReadyForBinding and the wait at PreBind: with both gates on (v1.36's default)
        self._binding_conditions = (
            features.enable_dra_device_binding_conditions and features.enable_dra_resource_claim_device_status
        )
        # Allocate's answers per node, kept from one cycle's allocator to the next
        self._allocation_memo = AllocationMemo()
        # node pictures: each device's verdict with the holder (its key and claim object) it was made
        # for; per node's pools, class and selectors the devices accepted and their verdicts
        self._device_verdicts: dict[DeviceId, tuple[str, Optional[ResourceClaim], DeviceVerdict]] = {}
        self._accepted_on_node: dict[tuple[str, str, tuple[str, ...]], _Accepted] = {}
        self._node_verdicts: dict[
            tuple[str, str, tuple[str, ...]], tuple[_Accepted, tuple[object, int], tuple[DeviceVerdict, ...]]
        ] = {}
        # node pictures: each slice's devices a class and selectors accept (``_accepted``)
        self._accepted_devices: dict[
            tuple[int, int, tuple[str, ...]], tuple[ResourceSlice, DeviceClass, tuple[tuple[DeviceId, str], ...]]
        ] = {}

    @property
    def dra(self) -> DraState:
        return self.handle.snapshot.dra

    def _writes(self) -> ObjectWriter:
        """The API: claim writes (PreBind, PostFilter, Unreserve's reservation undone)."""
        writes = self.handle.options.object_writes
        assert writes is not None, "the scheduler gives its frameworks an API to write through"
        return writes

    # ------------------------------------------------------------------ signature and events

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return self.refuses_to_sign(pod) or []

    def refuses_to_sign(self, pod: Pod) -> Optional[signers.Unsignable]:
        if pod.resource_claims:
            return signers.Unsignable(self.name, "pods with dra resource claims are not signable")
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with SchedulerQueueingHints on (GA)."""
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE
        add_or_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, add_or_update), self.claim_hint),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM), self.pod_hint
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_or_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_or_update)),
        ]

    def claim_hint(self, pod: Pod, old: Optional[ResourceClaim], new: ResourceClaim) -> QueueingHint:
        return pod_claims.after_claim_change(pod, self.dra, old, new, self.features.claim_owner_message_capitalized)

    def pod_hint(self, pod: Pod, old: Optional[Pod], new: Pod) -> QueueingHint:
        return pod_claims.after_pod_change(pod, self.dra, new)

    # ------------------------------------------------------------------ PreEnqueue and PreFilter

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        found = pod_claims.claims_or_problem(pod, self.dra, self.features.claim_owner_message_capitalized)
        return Status.unresolvable(str(found)) if isinstance(found, pod_claims.ClaimProblem) else None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        data = _ClaimsState()
        state.write(_STATE, data)  # written before anything else, as upstream does
        found = pod_claims.claims_or_problem(pod, self.dra, self.features.claim_owner_message_capitalized)
        if isinstance(found, pod_claims.ClaimProblem):
            return None, Status.unresolvable(str(found))
        data.user_count = len(found)
        extended_claim = self._extended_claim(pod, data)
        if extended_claim is not None:
            data.extended_uid = extended_claim.uid
        found = [*found, extended_claim] if extended_claim is not None else list(found)
        if not found:
            return None, SKIP
        available_on: list[Optional[NodeSelector]] = []
        to_allocate = 0
        for claim in found:
            available_on.append(claim.allocation.node_selector if claim.allocation is not None else None)
            if claim.allocation is not None:
                continue
            to_allocate += 1
            if self.dra.has_pending_allocation(claim.uid):
                return None, Status.unresolvable(f"resource claim {claim.key} is in the process of being allocated")
            if claim is extended_claim:
                continue  # no spec yet (in memory), or Filter's to judge (one from an earlier cycle)
            status = self._validate_requests(claim)
            if status is not None:
                return None, status
        data.available_on = available_on
        if self._binding_conditions:
            now, timeout = self.handle.options.now(), self.args.binding_timeout_ms
            data.binding_unavailable = frozenset(
                index
                for index, claim in enumerate(found)
                if claim.allocation is not None and binding.unavailable(claim, timeout, now)
            )
        if to_allocate:
            data.device_owners = self.dra.device_owners()
            data.owners_as_of = self.dra.devices_generation()
            data.allocator = Allocator(
                set(data.device_owners),
                self.dra.device_class,
                self.dra.slices,
                self.dra.selector_cache,
                self._allocation_memo,
                device_taints=self.features.enable_dra_device_taints,
                sort_pools=self._sorts_pools(),
                combinations=self._sorts_pools(),
                skips_unusable_pools=self.features.dra_allocator_skips_unusable_pools,
                all_needs_a_device=self.features.dra_allocator_all_mode_needs_a_device,
                partitionable=self.features.enable_dra_partitionable_devices,
                **self._shares(),
            )
        data.claims = list(found)
        data.picture = self._picture(data)
        return None, None

    def _extended_claim(self, pod: Pod, data: _ClaimsState) -> Optional[ResourceClaim]:
        """preFilterExtendedResources: with DRAExtendedResource on and a request of the pod that a
        DeviceClass stands for, the pod's extended resource claim from an earlier cycle or a new
        one in memory, without requests (Filter fits it to each node)."""
        if not self.features.enable_dra_extended_resource:
            return None
        requests = pod_requests(pod)
        if not extended_resources.maps_to_class(requests, self.dra.class_resolver):
            return None
        data.pod_scalars = {name: amount for name, amount in requests.items() if is_scalar_resource_name(name)}
        earlier = extended_resources.find_claim(pod, list(self.dra.claims.values()))
        if earlier is not None:
            return earlier
        owner = OwnerReference("Pod", pod.name, "v1", controller=True, uid=pod.uid)
        return ResourceClaim(
            pod.namespace,
            extended_resources.IN_MEMORY_NAME,
            uid=f"in-memory-{pod.uid or pod.key}",  # the release's is random: it is never written
            annotations={extended_resources.CLAIM_ANNOTATION: "true"},
            owner_references=(owner,),
        )

    def _validate_requests(self, claim: ResourceClaim) -> MaybeStatus:
        for request in claim.spec.requests:
            if request.exactly is not None:
                status = self._validate_class(request.exactly.device_class_name, request.name)
            elif request.first_available:
                status = None
                for sub in request.first_available:
                    status = status or self._validate_class(sub.device_class_name, f"{request.name}/{sub.name}")
            else:
                status = Status.unresolvable(
                    f"resource claim {claim.key}, request {request.name}: unknown request type"
                )
            if status is not None:
                return status
        return None

    def _validate_class(self, class_name: str, request: str) -> MaybeStatus:
        if not class_name:
            return Status.error(f"request {request}: unsupported request type")
        if self.dra.device_class(class_name) is None:
            return Status.unresolvable(f"request {request}: device class {class_name} does not exist")
        return None

    def pre_filter_extensions(self) -> None:
        return None

    def pre_filter_picture(self, state: CycleState, pod: Pod) -> Optional[PreFilterPicture]:
        data = state.read_optional(_STATE)
        return data.picture if data is not None else None

    def _picture(self, data: _ClaimsState) -> PreFilterPicture:
        classes: dict[str, tuple[str, ...]] = {}
        missing: list[str] = []
        for claim in data.claims:
            for request in claim.spec.requests:
                wanted = (
                    [request.exactly.device_class_name]
                    if request.exactly is not None
                    else [sub.device_class_name for sub in request.first_available]
                )
                for name in wanted:
                    device_class = self.dra.device_class(name)
                    if device_class is not None:
                        classes[name] = device_class.selectors
                    elif name not in missing:
                        missing.append(name)
        pictures = tuple(claim_picture(claim, self.dra.has_pending_allocation(claim.uid)) for claim in data.claims)
        return PreFilterPicture(pictures, classes, tuple(missing), len(data.device_owners))

    # ------------------------------------------------------------------ Filter

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        try:
            data = state.read(_STATE)
        except StateNotFound:
            return Status.error(ERROR_STATE_NOT_FOUND)
        if not data.claims:
            return None
        name = node_info.name
        if name in data.node_failures:
            return data.node_failures[name]
        if name in data.node_allocations or (
            data.allocator is None and data.extended is None and not self._unavailable(data, node_info)
        ):
            return None
        status = self._filter_node(data, pod, node_info)
        if status is not None:
            data.node_failures[name] = status
        return status

    def _filter_node(self, data: _ClaimsState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        node_claim: Optional[ResourceClaim] = None
        mappings: tuple[ContainerExtendedResourceRequest, ...] = ()
        if data.extended is not None:
            fitted = self._fit_extended(data, pod, node_info)
            if isinstance(fitted, Status):
                return fitted
            node_claim, mappings = fitted
            if node_claim is None and data.user_count == 0:
                return None  # a device plugin gives the node what the pod asks: nothing to do here
        allocations: list[AllocationResult] = []
        if data.allocator is not None:
            pending = [
                node_claim if node_claim is not None and data.is_extended(index) else data.claims[index]
                for index in data.to_allocate()
            ]
            try:
                found = data.allocator.allocate(node_info.node, pending)
            except AllocationError as err:
                return Status.unresolvable(err.message) if err.on_node else Status.error(err.message)
            if found is None or len(found) != len(pending):
                return _CANNOT_ALLOCATE
            allocations = found
        if self._unavailable(data, node_info):
            return _NOT_AVAILABLE
        if data.allocator is not None:
            data.node_allocations[node_info.name] = allocations
            data.node_extended[node_info.name] = (node_claim, mappings)
        return None

    def _fit_extended(
        self, data: _ClaimsState, pod: Pod, node_info: NodeInfo
    ) -> Status | tuple[Optional[ResourceClaim], tuple[ContainerExtendedResourceRequest, ...]]:
        """filterExtendedResources: the pod's extended resource claim with the requests this node
        must meet through devices (the resources it does not advertise), or None when there is
        nothing to allocate for it here."""
        claim = data.extended
        assert claim is not None
        if claim.spec.requests:  # made in an earlier cycle: PostFilter deletes it, then a new try
            return Status.unresolvable(REASON_STALE_EXTENDED_CLAIM)
        cache = self.dra.class_resolver
        allocatable = node_info.allocatable
        wanted: dict[str, int] = {}
        for name, amount in data.pod_scalars.items():
            if not amount or not is_dra_extended_resource_name(name):
                continue
            if cache.device_class(name) is not None and allocatable.get(name, 0) == 0:
                wanted[name] = amount
            elif name not in allocatable:
                return Status.unresolvable(REASON_CANNOT_FIT_RESOURCE)
        if (data.user_count == 0 and not wanted) or claim.allocation is not None:
            return None, ()
        requests, mappings = extended_resources.requests_and_mappings(pod, wanted, cache)
        return replace(claim, spec=replace(claim.spec, requests=requests)), mappings

    @staticmethod
    def _unavailable(data: _ClaimsState, node_info: NodeInfo) -> list[int]:
        """The allocated claims not available on this node: their allocation's node selector does
        not match it, or their binding failed or timed out."""
        return [
            index
            for index, selector in enumerate(data.available_on)
            if (selector is not None and not node_selector_matches(selector, node_info.node))
            or index in data.binding_unavailable
        ]

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[NodeFact, ...]:
        """Explanations only: what each request finds on the node and, for partitions, the counters
        left (the node's picture in words)."""
        status = self.filter(state, pod, node_info)
        if status is None or not status.reasons:
            return ()
        data = state.read_optional(_STATE)
        if status.reasons[0] == REASON_NOT_AVAILABLE and data is not None and data.binding_unavailable:
            return tuple(
                NodeFact(REASON_NOT_AVAILABLE, self._binding_fact(data.claims[index]))
                for index in sorted(data.binding_unavailable)
            )
        picture = self.node_pictures(state, pod, [node_info]).get(node_info.name)
        if picture is None or not picture.sentences:
            return ()
        return (NodeFact(status.reasons[0], "; ".join(picture.sentences)),)

    def _binding_fact(self, claim: ResourceClaim) -> str:
        """Why an allocated claim is unavailable everywhere: its binding failed, or timed out."""
        ready = binding.readiness(claim)
        if isinstance(ready, str):
            return f"claim {claim.key}: {ready}"
        allocation = claim.allocation
        stamp = allocation.allocation_timestamp if allocation is not None else None
        since = stamp.strftime("%Y-%m-%dT%H:%M:%SZ") if stamp is not None else "?"
        timeout = f"{float(self.args.binding_timeout_ms / 1000):g} s"
        return (
            f"claim {claim.key}: its devices' binding conditions were not all met within bindingTimeout ({timeout}) "
            f"of its allocation at {since}; PostFilter deallocates it"
        )

    def node_pictures(self, state: CycleState, pod: Pod, node_infos: list[NodeInfo]) -> dict[str, NodePicture]:
        """Per node, per request: the devices its class and selectors accept, which are free and
        who holds the others, and the devices the allocator would give (for explanations). Empty
        when the pod has no claims to picture. The recorder asks for every node an attempt
        rejects: what is the same on every node is read once."""
        data = state.read_optional(_STATE)
        if data is None or not data.claims:
            return {}
        asked = self._requests_asked(data)
        # A node's verdicts are kept from earlier cycles while this cycle's owners are the devices
        # in use as they stand (a claim written since PreFilter: this cycle's view is its own).
        kept = data.owners_as_of is not None and data.owners_as_of == self.dra.devices_generation()
        pictures = {}
        for info in node_infos:
            status = self.filter(state, pod, info)
            chosen = data.node_allocations.get(info.name, [])
            # The allocator's pools of the node (Filter gathered them from its slices by node: the
            # same pools as over every slice).
            pools = (
                data.allocator.pools(info.node)
                if data.allocator is not None
                else gather_pools(
                    self.dra.slices,
                    info.node,
                    sort_by_name=self._sorts_pools(),
                    skip_unusable=self.features.dra_allocator_skips_unusable_pools,
                    partitionable=self.features.enable_dra_partitionable_devices,
                )
            )
            verdicts = tuple(
                RequestVerdict(
                    ask.claim.key,
                    ask.request.name,
                    ask.exact.device_class_name,
                    ask.wanted,
                    matching=()
                    if ask.device_class is None
                    else self._untolerated(
                        self._matching(data, info.node, pools, ask.device_class, ask.claim, ask.exact.selectors, kept),
                        pools,
                        ask.exact.tolerations,
                    ),
                    allocated=_chosen(chosen[ask.position].results, ask.request.name)
                    if ask.position < len(chosen)
                    else (),
                )
                for ask in (*asked, *self._extended_asked(data, pod, info))
            )
            shared, aggregated = self._shared_state(data)
            held = {*data.device_owners, *shared, *aggregated} if shared or aggregated else data.device_owners
            counters = _counters_left(pools, held)
            shares = _shares_left(pools, aggregated) if self.features.enable_dra_consumable_capacity else ()
            pictures[info.name] = NodePicture(
                info.name, status.message if status is not None else None, verdicts, counters, shares=shares
            )
        return pictures

    def _shared_state(self, data: Any) -> tuple[frozenset[DeviceId], Mapping[DeviceId, dict[str, Fraction]]]:
        """The shared devices and what their shares consume, as the cycle's allocator has them."""
        allocator = data.allocator
        if allocator is not None:
            return allocator.shared, allocator.aggregated
        if not self.features.enable_dra_consumable_capacity:
            return frozenset(), {}
        return self.dra.shared_devices()

    def _shares(self) -> dict[str, Any]:
        """With DRAConsumableCapacity on: the devices shared by allocated claims (and allocations in
        flight) and what their shares consume, for the allocator."""
        if not self.features.enable_dra_consumable_capacity:
            return {}
        shared, aggregated = self.dra.shared_devices()
        return {"consumable_capacity": True, "shared": shared, "aggregated": aggregated}

    def _sorts_pools(self) -> bool:
        """Whether the allocator variant the release picks (structured.NewAllocator: the first whose
        supported features cover the enabled ones) sorts pools and slices by name and looks for a
        request's next device after the one it took (startLocation): from v1.36 the incubating and
        experimental variants do, needed once ConsumableCapacity, DeviceBindingAndStatus or
        ListTypeAttributes is on; v1.36's stable variant does not."""
        f = self.features
        beyond_stable = (
            f.enable_dra_consumable_capacity
            or (f.enable_dra_device_binding_conditions and f.enable_dra_resource_claim_device_status)
            or f.enable_dra_list_type_attributes
        )
        return f.dra_allocator_sorts_pools and beyond_stable

    def _untolerated(
        self, verdicts: tuple[DeviceVerdict, ...], pools: list[Pool], tolerations: tuple[DeviceToleration, ...]
    ) -> tuple[DeviceVerdict, ...]:
        """Free devices with a taint the request does not tolerate are not free (DRADeviceTaints on:
        the allocator passes over them)."""
        if not self.features.enable_dra_device_taints:
            return verdicts
        tainted = {
            f"{pool.driver}/{pool.name}/{device.name}": device
            for pool in pools
            for slice_ in pool.slices
            for device in slice_.devices
            if device.taints
        }
        if not tainted:
            return verdicts
        return tuple(
            msgspec.structs.replace(verdict, free=False, tainted=True)
            if verdict.free
            and verdict.device in tainted
            and taint_prevents_allocation(tainted[verdict.device], tolerations)
            else verdict
            for verdict in verdicts
        )

    def node_picture(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Optional[NodePicture]:
        """One node's picture (``node_pictures``), None when the pod has no claims to picture."""
        return self.node_pictures(state, pod, [node_info]).get(node_info.name)

    def _extended_asked(self, data: _ClaimsState, pod: Pod, node_info: NodeInfo) -> list["_Asked"]:
        """The requests of the pod's extended resource claim as Filter fits it to this node."""
        to_allocate = data.to_allocate()
        if data.extended is None or data.user_count not in to_allocate:
            return []
        fitted = self._fit_extended(data, pod, node_info)
        if isinstance(fitted, Status) or fitted[0] is None:
            return []
        return self._requests_asked(data, fitted[0])

    def _requests_asked(self, data: _ClaimsState, extended_claim: Optional[ResourceClaim] = None) -> list["_Asked"]:
        """The requests of the claims to allocate, each with the alternative a picture shows (the
        first of a firstAvailable request), its class and the count wanted: the pod's own claims,
        or its extended resource claim as fitted to a node (``extended_claim``)."""
        asked = []
        for position, index in enumerate(data.to_allocate()):
            if data.is_extended(index) != (extended_claim is not None):
                continue
            claim = extended_claim if extended_claim is not None else data.claims[index]
            for request in claim.spec.requests:
                exact = request.exactly if request.exactly is not None else request.first_available[0]
                wanted = "all" if exact.allocation_mode == ALLOCATION_MODE_ALL else str(exact.count)
                asked.append(
                    _Asked(position, claim, request, exact, self.dra.device_class(exact.device_class_name), wanted)
                )
        return asked

    def _matching(
        self,
        data: _ClaimsState,
        node: Node,
        pools: list[Pool],
        device_class: DeviceClass,
        claim: ResourceClaim,
        selectors: tuple[str, ...],
        kept_holds: bool,
    ) -> tuple[DeviceVerdict, ...]:
        """The verdicts of the node's devices the class and selectors accept. Every attempt of a
        pod with claims pictures every node it rejects, and a node's verdicts change only when the
        holders of its devices do (their keys and claim objects): with ``kept_holds`` they are kept
        per node, class and selectors with the generation at which their pools' devices last
        changed holder (DraState.pools_changed_at)."""
        key = (node.name, device_class.name, selectors)
        accepted = self._node_accepted(key, pools, device_class, claim, node)
        stamp = None
        if kept_holds:
            assert data.owners_as_of is not None
            stamp = (data.owners_as_of[0], self.dra.pools_changed_at(accepted.pool_ids))
            kept = self._node_verdicts.get(key)
            if kept is not None and kept[0] is accepted and kept[1] == stamp:
                return kept[2]
        claims = self.dra.claims
        owners = data.device_owners
        verdicts = []
        for device_id, name in zip(accepted.ids, accepted.names):
            holder = owners.get(device_id)
            holding = None if holder is None else claims.get(holder)  # free: None
            verdicts.append(self._device_verdict(device_id, name, holder or "", holding))
        answer = tuple(verdicts)
        if stamp is not None:
            self._node_verdicts[key] = (accepted, stamp, answer)
        return answer

    def _device_verdict(
        self, device_id: DeviceId, name: str, holder: str, holding: Optional[ResourceClaim]
    ) -> DeviceVerdict:
        """A device's verdict: free, or its holder and the pods that claim is reserved for (kept
        per device while the holder is the same claim object)."""
        kept = self._device_verdicts.get(device_id)
        if kept is not None and kept[0] == holder and kept[1] is holding:
            return kept[2]
        pods = tuple(f"{holding.namespace}/{ref.name}" for ref in holding.reserved_for) if holding is not None else ()
        verdict = DeviceVerdict(name, not holder, holder or None, pods)
        self._device_verdicts[device_id] = (holder, holding, verdict)
        return verdict

    def _node_accepted(
        self,
        key: tuple[str, str, tuple[str, ...]],
        pools: list[Pool],
        device_class: DeviceClass,
        claim: ResourceClaim,
        node: Node,
    ) -> "_Accepted":
        """The devices of the node's pools the class and selectors (``key``: node, class,
        selectors) accept, in pool and slice order; kept while the pools are the same list (the
        allocator keeps a node's pools while the node and the slices are unchanged)."""
        selectors = key[2]
        kept = self._accepted_on_node.get(key)
        if kept is not None and kept.pools is pools and kept.device_class is device_class:
            return kept
        found = [
            accepted
            for pool in pools
            for slice_ in pool.slices
            for accepted in self._accepted(slice_, device_class, claim, selectors)
            if not slice_.per_device_node_selection or _device_on_node(slice_, accepted[0][2], node)
        ]
        ids = tuple(device_id for device_id, _ in found)
        kept = self._accepted_on_node[key] = _Accepted(
            pools, device_class, ids, tuple(name for _, name in found), tuple(dict.fromkeys(d[:2] for d in ids))
        )
        return kept

    def _accepted(
        self, slice_: ResourceSlice, device_class: DeviceClass, claim: ResourceClaim, selectors: tuple[str, ...]
    ) -> tuple[tuple[DeviceId, str], ...]:
        """The slice's devices the class's and the request's selectors accept, with their
        ``driver/pool/device`` names, kept per (slice, class, selectors): slices and classes are
        replaced, never changed, and a selector's verdict on a device never changes (the claim only
        names an error, which counts as no)."""
        key = (id(slice_), id(device_class), selectors)
        kept = self._accepted_devices.get(key)
        if kept is not None and kept[0] is slice_ and kept[1] is device_class:
            return kept[2]
        accepted = []
        for device in slice_.devices:
            device_id = (slice_.driver, slice_.pool, device.name)
            if _accepts(device_class, claim, selectors, device_id, device, self.dra.selector_cache):
                accepted.append((device_id, "/".join(device_id)))
        answer = tuple(accepted)
        self._accepted_devices[key] = (slice_, device_class, answer)
        return answer

    # ------------------------------------------------------------------ PostFilter

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[Optional[PostFilterResult], MaybeStatus]:
        if self.features.dra_post_filter_passes_pods_without_claims and not pod.resource_claims:
            return None, Status(Code.UNSCHEDULABLE)  # v1.33's fast path, before the state is read
        try:
            data = state.read(_STATE)
        except StateNotFound:
            return None, Status.error(ERROR_STATE_NOT_FOUND)
        if not data.claims:
            return None, Status.unschedulable(REASON_NO_CLAIMS_TO_DEALLOCATE)
        for index in self._unavailable_claims(data, statuses):
            if data.is_extended(index):
                continue  # an extended resource claim is deleted, below, never deallocated
            claim = data.claims[index]
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                current = self.dra.claims.get(claim.key, claim)
                self._writes().write_resource_claim(current.deallocated())
                return None, Status.unschedulable(REASON_DEALLOCATED)
        stale = data.extended
        if stale is not None and stale.name != extended_resources.IN_MEMORY_NAME:
            self._delete_claim(stale)  # made in an earlier cycle: a new one is fitted next time
            return None, Status.unschedulable(REASON_CLAIM_DELETED)
        return None, Status.unschedulable(REASON_STILL_NOT_SCHEDULABLE)

    def _unavailable_claims(self, data: _ClaimsState, statuses: NodeToStatus) -> list[int]:
        """unavailableClaims: the claims Filter found unavailable on some node — the nodes where
        this plugin answered "resourceclaim not available on the node". The release iterates a Go
        set (random order); SchedLab takes the claims in the pod's order."""
        found: set[int] = set()
        snapshot = self.handle.snapshot
        for node, status in statuses.statuses.items():
            if status.plugin == self.name and REASON_NOT_AVAILABLE in status.reasons:
                node_info = snapshot.get(node)
                if node_info is not None:
                    found.update(self._unavailable(data, node_info))
        return sorted(found)

    # ------------------------------------------------------------------ Reserve, Unreserve, PreBind

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None or not data.claims:
            return None
        to_allocate = data.to_allocate()
        if not to_allocate or data.allocator is None:
            return None
        allocations = data.node_allocations.get(node_name)
        if not allocations:
            if all(data.is_extended(index) for index in to_allocate):
                return None  # only the extended resource claim, and a device plugin serves the node
            return Status.error("claim allocation not found for node")
        if len(allocations) != len(to_allocate):
            return Status.error(
                f"internal error, have {len(allocations)} allocations, {len(to_allocate)} claims "
                f"to allocate, want {len(to_allocate)} claims"
            )
        for allocation, index in zip(allocations, to_allocate):
            data.allocations[index] = allocation
            claim = data.claims[index]
            if data.is_extended(index):
                claim = data.node_extended[node_name][0] or claim  # the claim as fitted to the node
            finalizers = claim.finalizers if FINALIZER in claim.finalizers else (*claim.finalizers, FINALIZER)
            self.dra.in_flight[claim.uid] = replace(claim, finalizers=finalizers, allocation=allocation)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data = state.read_optional(_STATE)
        if data is None:
            return
        for claim in data.claims[: data.user_count]:
            self.dra.in_flight.pop(claim.uid, None)
            if claim.allocation is not None and claim.is_reserved_for(pod.uid):
                current = self.dra.claims.get(claim.key)
                if current is not None:
                    kept = tuple(ref for ref in current.reserved_for if ref.uid != pod.uid)
                    self._writes().write_resource_claim(replace(current, reserved_for=kept))
        self._unreserve_extended(data)

    def _unreserve_extended(self, data: _ClaimsState) -> None:
        """unreserveExtendedResourceClaim: the allocation in flight taken back, and a claim PreBind
        already created deleted (its finalizer taken off first)."""
        claim = data.extended
        if claim is None:
            return
        self.dra.in_flight.pop(data.extended_uid, None)
        if claim.name != extended_resources.IN_MEMORY_NAME:
            self._delete_claim(claim)

    def _delete_claim(self, claim: ResourceClaim) -> None:
        """deleteClaim: the delete-protection finalizer removed (an update), then the delete."""
        current = self.dra.claims.get(claim.key)
        if current is None:
            return
        if FINALIZER in current.finalizers:
            kept = tuple(name for name in current.finalizers if name != FINALIZER)
            self._writes().write_resource_claim(replace(current, finalizers=kept))
        self._writes().delete_resource_claim(claim.key)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None:
            return Status.error(ERROR_STATE_NOT_FOUND)
        for index, claim in enumerate(data.claims):
            if claim.is_reserved_for(pod.uid):
                continue
            bound = self._bind_claim(data, index, pod, node_name)
            if isinstance(bound, Status):
                return bound
            data.claims[index] = bound
        return self._wait_for_binding_conditions(data)

    def _wait_for_binding_conditions(self, data: _ClaimsState) -> MaybeStatus:
        """With binding conditions on a device allocated to the pod: the poll over the claims as the
        scheduler's cache has them (binding.py), its end on the run's clock (``after_ms``)."""
        if not self._binding_conditions or not any(
            claim.allocation is not None and claim.allocation.binds_with_conditions for claim in data.claims
        ):
            return None
        claims = [self.dra.claims.get(claim.key, claim) for claim in data.claims]
        wait = binding.wait_for_conditions(claims, self.args.binding_timeout_ms, self.handle.options.now())
        return None if wait.error is None else Status.error(wait.error, after_ms=wait.after_ms)

    def _bind_claim(self, data: _ClaimsState, index: int, pod: Pod, node_name: str) -> ResourceClaim | Status:
        """bindClaim: the finalizer (an update), then allocation and reservedFor (a status update);
        the extended resource claim is created first (its name generated) and named in the pod's
        status after."""
        claim = data.claims[index]
        allocation = data.allocations.get(index)
        pending_uid = claim.uid
        if data.is_extended(index):
            if allocation is None and not claim.spec.requests:
                return claim  # a device plugin serves the node: nothing to write
            if claim.name == extended_resources.IN_MEMORY_NAME:
                claim = self._create_extended_claim(data, pod, node_name)
                data.claims[index] = claim  # Unreserve deletes it if binding fails from here
        bound = self._write_binding(claim, allocation, pod, pending_uid)
        if isinstance(bound, Status) or not data.is_extended(index):
            return bound
        mappings = data.node_extended.get(node_name, (None, ()))[1]
        if not mappings:
            return Status.error(
                f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
                "ExtendedResourceClaimStatus"
            )
        self._writes().write_pod_extended_claim(pod.key, ExtendedResourceClaimStatus(bound.name, mappings))
        return bound

    def _create_extended_claim(self, data: _ClaimsState, pod: Pod, node_name: str) -> ResourceClaim:
        """createExtendedResourceClaimInAPI: the claim Filter fitted to the node, created without
        allocation under the name the API server generates."""
        fitted = data.node_extended.get(node_name, (None, ()))[0] or data.claims[data.user_count]
        name = extended_resources.created_name(pod)
        created = replace(fitted, name=name, uid=pod_claims.claim_uid(pod.namespace, name), allocation=None)
        return self._writes().write_resource_claim(created)

    def _write_binding(
        self, claim: ResourceClaim, allocation: Optional[AllocationResult], pod: Pod, pending_uid: str
    ) -> ResourceClaim | Status:
        """The finalizer (an update), then allocation and reservedFor (a status update); the
        allocation in flight (under ``pending_uid``, the claim's uid when Reserve ran) ends."""
        try:
            current = self.dra.claims.get(claim.key)
            if current is None:
                return Status.error(
                    f'add reservation to claim {claim.key}: resourceclaims.resource.k8s.io "{claim.name}" not found'
                )
            if current.terminating:
                return Status.error(f"claim {claim.key} got deleted in the meantime")
            if allocation is not None:
                if current.allocation is not None:
                    return Status.error(f"claim {claim.key} got allocated elsewhere in the meantime")
                if FINALIZER not in current.finalizers:
                    current = self._writes().write_resource_claim(
                        replace(current, finalizers=(*current.finalizers, FINALIZER))
                    )
                current = replace(current, allocation=allocation)
            current = replace(current, reserved_for=(*current.reserved_for, ConsumerRef("pods", pod.name, pod.uid)))
            if self._binding_conditions:
                if current.allocation is None:
                    return Status.error(f"claim {claim.key} got deallocated elsewhere in the meantime")
                if current.allocation.allocation_timestamp is None:
                    stamp = binding.stamped(self.handle.options.now())
                    current = replace(current, allocation=replace(current.allocation, allocation_timestamp=stamp))
            return self._writes().write_resource_claim(current)
        finally:
            if allocation is not None:
                self.dra.in_flight.pop(pending_uid, None)

    def binding_state_json(self, state: CycleState, node: str) -> Optional[dict[str, Any]]:
        """The allocations PreBind writes (after Reserve), for the event stream."""
        data = state.read_optional(_STATE)
        if data is None or not data.allocations:
            return None
        return {data.claims[index].key: allocation.to_json() for index, allocation in sorted(data.allocations.items())}


def _accepts(
    device_class: DeviceClass,
    claim: ResourceClaim,
    selectors: tuple[str, ...],
    device_id: DeviceId,
    device: Device,
    cache: SelectorCache,
) -> bool:
    """Whether the class's and the request's selectors accept the device (a selector error counts as no)."""
    try:
        return selectors_match(
            f"class {device_class.name}", device_class.selectors, device_id, device, cache
        ) and selectors_match(f"claim {claim.key}", selectors, device_id, device, cache)
    except AllocationError:
        return False


def _compute_score(claims: list[ResourceClaim], allocations: list[AllocationResult]) -> tuple[int, MaybeStatus]:
    """computeScore, as v1.35.4 has it: claim i is read against allocation i, and a pod with more
    claims than allocations (some already allocated) gets the release's error."""
    score = 0
    for index, claim in enumerate(claims):
        if index >= len(allocations):
            return 0, Status.error(f"number of allocations {len(allocations)} is smaller than number of claims")
        score += _first_available_score(claim, allocations[index])
    return score, None


def _compute_score_by_allocation(
    claims: list[ResourceClaim], allocations: list[AllocationResult]
) -> tuple[int, MaybeStatus]:
    """computeScore from v1.36 (and v1.35.6): an allocated claim is read against its own
    allocation, the others against this node's results in order."""
    score = 0
    position = 0
    for claim in claims:
        allocation = claim.allocation
        if allocation is None:
            if position >= len(allocations):
                return 0, Status.error(
                    f"number of allocations {len(allocations)} is smaller than number of claims needing allocation"
                )
            allocation = allocations[position]
            position += 1
        score += _first_available_score(claim, allocation)
    return score, None


def _first_available_score(claim: ResourceClaim, allocation: AllocationResult) -> int:
    """What the claim's firstAvailable requests score with this allocation: the earlier the
    alternative taken, the more."""
    chosen = {result.request for result in allocation.results if len(result.request.split("/")) == 2}
    score = 0
    for request in claim.spec.requests:
        if request.exactly is not None:
            continue
        for position, sub in enumerate(request.first_available):
            if f"{request.name}/{sub.name}" in chosen:
                score += FIRST_AVAILABLE_MAX_SIZE - position
    return score


class ScoringDynamicResources(DynamicResources):
    """DynamicResources from v1.35 on: also a Score plugin (release/code.py ``dynamic_resources_scores``),
    preferring the nodes where a claim's prioritized list gets its earlier alternatives."""

    # ------------------------------------------------------------------ Score

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        data = state.read_optional(_STATE)
        if data is None:
            return 0, Status.error(ERROR_STATE_NOT_FOUND)
        if not data.claims or node_info.name not in data.node_allocations:
            return 0, None
        allocations = data.node_allocations[node_info.name]
        if self.features.dra_score_reads_allocated_claims:
            return _compute_score_by_allocation(data.claims, allocations)
        return _compute_score(data.claims, allocations)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        data = state.read_optional(_STATE)
        if data is None or not data.claims:
            return np.zeros(len(positions), dtype=np.int64)
        infos = table.node_infos
        return np.asarray([self.score(state, pod, infos[p])[0] for p in positions.tolist()], dtype=np.int64)

    def score_extensions(self) -> "DynamicResources":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        # Every pod of a default profile passes here, with or without claims: no NodeScore per node.
        return default_normalize(scores, MAX_NODE_SCORE, False)


class DisabledDynamicResources:
    """The plugin when DynamicResourceAllocation is off (v1.32, v1.33 by default): New returns an
    empty plugin that skips PreFilter, lets every node pass and, asked at PostFilter (a profile
    that enables it explicitly), answers "plugin disabled". It registers no event."""

    name: ClassVar[str] = names.DYNAMIC_RESOURCES

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        return None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        return None, SKIP

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        return None

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[Optional[PostFilterResult], MaybeStatus]:
        return None, Status.unschedulable(REASON_PLUGIN_DISABLED)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None


REASON_PLUGIN_DISABLED = "plugin disabled"


def new(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> DynamicResources | DisabledDynamicResources:
    """New: the release's plugin — none when DynamicResourceAllocation is off, without Score before v1.35."""
    if not features.enable_dynamic_resource_allocation:
        return DisabledDynamicResources()
    parsed = DynamicResourcesArgs.parse(args, features)
    if features.dynamic_resources_scores:
        return ScoringDynamicResources(handle, features, parsed)
    return DynamicResources(handle, features, parsed)


def _device_on_node(slice_: ResourceSlice, name: str, node: Node) -> bool:
    """Whether a device of a slice with perDeviceNodeSelection is for the node (its own selection)."""
    return any(device.name == name and device_matches_node(device, node) for device in slice_.devices)


def _counters_left(pools: list[Pool], allocated: Container[DeviceId]) -> tuple[CounterLeft, ...]:
    """Every counter of the counter sets of the pools with devices on the node, with what allocated
    devices leave of it."""
    return tuple(
        CounterLeft(f"{pool.driver}/{pool.name}", set_name, name, _amount(name, total), _amount(name, left[name]))
        for pool in pools
        if pool.counter_sets and pool.slices  # a counter-set slice is gathered for every node: its devices' nodes only
        for set_name, left in counters_left(pool, allocated).items()
        for name, total in pool.counter_sets[set_name].counters.items()
    )


def _shares_left(pools: list[Pool], aggregated: Mapping[DeviceId, dict[str, Fraction]]) -> tuple[ShareLeft, ...]:
    """Every capacity of the devices on the node that allow multiple allocations, with what the
    allocated shares leave of it."""
    return tuple(
        ShareLeft(
            f"{pool.driver}/{pool.name}",
            device.name,
            name,
            device.capacity_text(name, total),
            device.capacity_text(
                name, total - aggregated.get((pool.driver, pool.name, device.name), {}).get(name, Fraction(0))
            ),
        )
        for pool in pools
        for slice_ in pool.slices
        for device in slice_.devices
        if device.allow_multiple_allocations
        for name, total in device.capacity.items()
    )


def _amount(counter: str, value: Fraction) -> str:
    """A counter's quantity for people: bytes with a binary suffix for a memory counter, else a count."""
    if value.denominator == 1:
        return format_amount(counter, int(value))
    return str(float(value))
