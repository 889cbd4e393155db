"""The structured allocator of k8s.io/dynamic-resource-allocation/structured, as v1.35.4 runs it.

With the release's default feature gates the allocator features are AdminAccess and
PrioritizedList, so ``NewAllocator`` picks the "incubating" variant (the first whose supported
features cover those): ``internal/incubating/allocator_incubating.go`` and ``pools_incubating.go``.
PartitionableDevices, DeviceTaints, ConsumableCapacity and binding conditions are off. With
DeviceTaints on (``device_taints``, the DRADeviceTaints gate: on by default in v1.36) a device with a
NoSchedule or NoExecute taint that the request (or subrequest) does not tolerate is passed over, as
allocateDevice does. With PartitionableDevices on (``partitionable``: v1.36's default, v1.35's with
the gate) a pool's counter sets come from its counter slices (gathered for every node), a device that
consumes counters is taken only while they have room (checkAvailableCounters), and a device of a
slice with perDeviceNodeSelection is a candidate only on the nodes it names. With ConsumableCapacity
on (``consumable_capacity``: v1.36's default) a device that allows multiple allocations is shared:
each claim takes a share consuming some of its capacities (consumable_capacity.go), never the
whole device, and every candidate's capacity is checked against the request (CmpRequestOverCapacity).
With DeviceBindingAndStatus on (DRADeviceBindingConditions: v1.36's default) a result carries its
device's binding conditions and failure conditions, and a device that binds to its node pins the
allocation to the node it was made for. v1.36's incubating variant also sorts the pools by driver
and pool name, those with a device that has binding conditions last, and each pool's slices by
name (``sort_pools``); its stable variant, picked when only the features it supports are on, does not.

Allocation is a depth-first search: claims in order, their requests in order, each request's
devices one after the other, every candidate device taken in pool order and slice order; a
candidate that is in use, does not match the class and request selectors or breaks a
``matchAttribute`` constraint is passed over, and the search backtracks when a later device cannot
be found. The first complete solution wins. Deterministic where the release is not: pools are
visited in the order their first slice appears (the release collects them in a Go map).
"""

from __future__ import annotations

import operator
import uuid
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Callable, Container, Mapping, Optional, Sequence, Union

from scheduler_core.dra.cel import CelRuntimeError, compile_selector
from scheduler_core.framework.dra_state import SelectorCache
from scheduler_core.model import quantity
from scheduler_core.model.labels import node_selector_matches
from scheduler_core.model import (
    ALLOCATION_MODE_ALL,
    CounterSet,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocationResult,
    Amount,
    AttributeValue,
    CapacityRequestPolicy,
    ClaimSpec,
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    Device,
    DeviceClass,
    DeviceResult,
    DeviceToleration,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceClaim,
    ResourceSlice,
)

DeviceId = tuple[str, str, str]  # (driver, pool, device)
FIELD_NODE_NAME = "metadata.name"


class AllocationError(Exception):
    """An error that stops allocation. ``on_node``: ErrFailedAllocationOnNode (the node is
    unschedulable, others may work); otherwise the plugin's Filter answers with an Error."""

    def __init__(self, message: str, on_node: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.on_node = on_node


# ---------------------------------------------------------------------- pools


@dataclass(slots=True)
class Pool:
    driver: str
    name: str
    slices: list[ResourceSlice] = field(default_factory=list)  # those with devices targeting the node
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    # DRAPartitionableDevices: the pool's counter sets by name, and its device slices that do not
    # target the node (their allocated devices consume the same counters).
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)
    slices_not_targeting: list[ResourceSlice] = field(default_factory=list)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def node_matches(
    node_name: str, all_nodes: bool, selector: Optional[NodeSelector], node: Optional[Node]
) -> Optional[bool]:
    """NodeMatches: by node name, all nodes or a node selector; None when none of them is set."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node is not None and node_selector_matches(selector, node)
    return None


def slice_matches_node(slice_: ResourceSlice, node: Optional[Node]) -> Optional[bool]:
    """NodeMatches for a slice; None when the slice names no node selection (unknown extension)."""
    return node_matches(slice_.node_name, slice_.all_nodes, slice_.node_selector, node)


def device_matches_node(device: Device, node: Optional[Node]) -> bool:
    """NodeMatches for a device of a slice with perDeviceNodeSelection."""
    return bool(node_matches(device.node_name, device.all_nodes, device.node_selector, node))


def _relevant(slice_: ResourceSlice, node: Optional[Node], partitionable: bool) -> bool:
    """Whether GatherPools takes the slice for the node: a slice of counter sets always (with
    DRAPartitionableDevices on), else by its node selection or, per device, by any device's."""
    if slice_.partitionable and not partitionable:
        return False
    if slice_.shared_counters:
        return True
    matches = slice_matches_node(slice_, node)
    if matches is not None:
        return matches
    return slice_.per_device_node_selection and any(device_matches_node(d, node) for d in slice_.devices)


def gather_pools(
    slices: Sequence[ResourceSlice],
    node: Optional[Node],
    candidates: Optional[list[ResourceSlice]] = None,
    sort_by_name: bool = False,
    skip_unusable: bool = True,
    partitionable: bool = False,
) -> list[Pool]:
    """GatherPools: the pools with devices for this node, the newest generation of each; a pool
    missing some of its slices is incomplete, one with a duplicate device name invalid.
    ``candidates``: the slices that may target the node, in ``slices``' order (all by default).
    ``sort_by_name``: v1.36's incubating and experimental variants (sortPoolsByID, and
    sortSlicesByName in buildPool) put the pools in (driver, pool name) order and each pool's
    slices in name order; before, pools come in the order their first slice appears (the release:
    Go map order) and slices as listed. ``skip_unusable`` False: before v1.35 (release/code.py:
    dra_allocator_skips_unusable_pools) a pool is the newest generation of the slices that target
    the node, incomplete when they are fewer than its slice count, and keeps its slices either way.
    ``partitionable`` (DRAPartitionableDevices, replayed from v1.35): a pool's counter-set slices
    are gathered for every node and checked with its devices' consumption (buildPool)."""
    targeting: dict[tuple[str, str], list[ResourceSlice]] = {}
    for slice_ in slices if candidates is None else candidates:
        if _relevant(slice_, node, partitionable):
            _add_slice(targeting, slice_)
    pools: list[Pool] = []
    for (driver, name), members in targeting.items():
        generation = members[0].generation
        pool = Pool(driver, name)
        if not skip_unusable:
            pool.incomplete = len(members) != members[0].slice_count
            duplicate = _duplicate_device(members)
            if duplicate is not None:
                pool.invalid, pool.invalid_reason = True, f"duplicate device name {duplicate}"
            pool.slices = members
            pools.append(pool)
            continue
        everything: Optional[list[ResourceSlice]] = None
        if len(members) != members[0].slice_count:
            newer = any(s.driver == driver and s.pool == name and s.generation > generation for s in slices)
            if newer:
                continue  # the driver is replacing this generation: ignore the old one
            everything = [s for s in slices if s.driver == driver and s.pool == name and s.generation == generation]
            if len(everything) != members[0].slice_count:
                pool.incomplete = True
                pools.append(pool)
                continue
        _build_pool(pool, members, everything, sort_by_name, partitionable)
        pools.append(pool)
    if sort_by_name:
        # sortPoolsByID, with the pools whose devices have binding conditions after the others
        # (the incubating variant's GatherPools: a device that needs no attaching is tried first)
        pools.sort(key=lambda pool: (_has_binding_conditions(pool), pool.driver, pool.name))
    return pools


def _has_binding_conditions(pool: Pool) -> bool:
    """poolHasBindingConditions: a device of the pool's slices for the node has binding conditions."""
    return any(device.binding_conditions for slice_ in pool.slices for device in slice_.devices)


def _build_pool(
    pool: Pool,
    members: list[ResourceSlice],
    everything: Optional[list[ResourceSlice]],
    sort_by_name: bool,
    partitionable: bool,
) -> None:
    """buildPool: the pool's device slices (its counter sets apart), or why it is invalid."""
    ordered = sorted(members, key=lambda s: s.name) if sort_by_name else members
    device_slices = [s for s in ordered if not s.shared_counters] if partitionable else ordered
    duplicate = _duplicate_device(device_slices)
    if duplicate is not None:
        pool.invalid, pool.invalid_reason = True, f"duplicate device name {duplicate}"
        return
    if partitionable:
        counter_sets, problem = _counter_sets([s for s in ordered if s.shared_counters])
        problem = problem or _consumption_problem(counter_sets, ordered)
        others: list[ResourceSlice] = []
        if not problem and everything is not None and len(everything) != len(members):
            taken = {s.name for s in members}
            others = [s for s in everything if s.name not in taken]
            problem = _consumption_problem(counter_sets, others)
        if problem:
            pool.invalid, pool.invalid_reason = True, problem
            return
        pool.counter_sets, pool.slices_not_targeting = counter_sets, others
    pool.slices = device_slices


def _counter_sets(slices: list[ResourceSlice]) -> tuple[dict[str, CounterSet], str]:
    """getAndValidateCounterSets: the pool's counter sets by name, or the duplicate's problem."""
    found: dict[str, CounterSet] = {}
    for slice_ in slices:
        for counter_set in slice_.shared_counters:
            if counter_set.name in found:
                return {}, f"duplicate counter set name {counter_set.name}"
            found[counter_set.name] = counter_set
    return found, ""


def _consumption_problem(counter_sets: dict[str, CounterSet], slices: list[ResourceSlice]) -> str:
    """validateDeviceCounterConsumption: every counter a device consumes exists in its pool."""
    for slice_ in slices:
        for device in slice_.devices:
            for consumption in device.consumes_counters:
                counter_set = counter_sets.get(consumption.counter_set)
                if counter_set is None:
                    return f"counter set {consumption.counter_set} not found"
                for counter in consumption.counters:  # the release walks a Go map: SchedLab, written order
                    if counter not in counter_set.counters:
                        return f"counter {counter} not found in counter set {counter_set.name}"
    return ""


def _add_slice(pools: dict[tuple[str, str], list[ResourceSlice]], slice_: ResourceSlice) -> None:
    key = (slice_.driver, slice_.pool)
    members = pools.get(key)
    if members is None or slice_.generation > members[0].generation:
        pools[key] = [slice_]
    elif slice_.generation == members[0].generation:
        members.append(slice_)


def _duplicate_device(slices: list[ResourceSlice]) -> Optional[str]:
    seen: set[str] = set()
    for slice_ in slices:
        for device in slice_.devices:
            if device.name in seen:
                return device.name
            seen.add(device.name)
    return None


# ---------------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class Request:
    """requestAccessor: a request's ``exactly`` part or one ``firstAvailable`` subrequest."""

    name: str
    class_name: str
    selectors: tuple[str, ...]
    mode: str
    count: int
    admin_access: Optional[bool] = None
    parent: str = ""  # the request holding this subrequest
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity: Optional[dict[str, Amount]] = None  # capacity.requests (DRAConsumableCapacity)

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name


@dataclass(slots=True)
class RequestData:
    request: Request
    device_class: Optional[DeviceClass]
    num_devices: int = 0
    all_devices: list[tuple[DeviceId, Device, ResourceSlice, Pool]] = field(default_factory=list)


@dataclass(slots=True)
class _Candidate:
    device_id: DeviceId
    device: Device
    slice: ResourceSlice
    pool: Pool


@dataclass(slots=True)
class _Chosen:
    """internalDeviceResult: a device taken for a request (with its share, for a shared device)."""

    request: Request
    device_id: DeviceId
    slice: ResourceSlice
    device: Device
    share_id: Optional[str] = None
    consumed: Optional[dict[str, str]] = None  # what the share consumes, as the API writes it


@dataclass(slots=True)
class _Change:
    """deviceRollbackState: what taking one candidate changed, for taking it back."""

    candidate: _Candidate
    counted: bool  # its counters were taken
    base: str = ""
    sub: str = ""
    constraints: int = 0  # how many of the claim's constraints it was added to
    marked: bool = False  # in allocating
    consumed: Optional[dict[str, Fraction]] = None  # added to allocating_capacity
    entry_existed: bool = False  # allocating_capacity held the device before
    results: Optional[int] = None  # the results' length before it was appended


class _OnRequests:
    """A constraint on the devices of the requests it names (all requests when it names none)."""

    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        self.requests = set(requests)
        self.attribute = attribute
        self.count = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        return request in self.requests or (bool(sub) and f"{request}/{sub}" in self.requests)


class _MatchAttribute(_OnRequests):
    """matchAttributeConstraint: every device of the named requests has the same value."""

    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.value: Optional[AttributeValue] = None

    def add(self, request: str, sub: str, device: Device, device_id: DeviceId) -> bool:
        if not self._applies(request, sub):
            return True
        value = device.attribute(device_id[0], self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value, self.count = value, 1
            return True
        if type(value) is not type(self.value) or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.count -= 1


class _DistinctAttribute(_OnRequests):
    """distinctAttributeConstraint (DRAConsumableCapacity): no two devices of the named requests
    have the same value. As the release keeps them, the values are keyed by request name, so a
    request's second device replaces its first's and removing a device forgets its request's."""

    def __init__(self, requests: tuple[str, ...], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: dict[str, AttributeValue] = {}

    def add(self, request: str, sub: str, device: Device, device_id: DeviceId) -> bool:
        if not self._applies(request, sub):
            return True
        value = device.attribute(device_id[0], self.attribute)
        if value is None:
            return False
        if self.count and any(type(value) is type(seen) and value == seen for seen in self.values.values()):
            return False
        self.values[request] = value
        self.count += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.values.pop(request, None)
            self.count -= 1


_Constraint = Union[_MatchAttribute, _DistinctAttribute]
_FIRST = (0, 0, 0)  # deviceLocation{}: every device is a candidate


class _MaxSizeExceeded(Exception):
    pass


# ---------------------------------------------------------------------- consumable capacity


def consumed_amount(asked: Optional[Amount], capacity: Amount, policy: Optional[CapacityRequestPolicy]) -> Amount:
    """calculateConsumedCapacity: what one allocation takes of a capacity: without a request its
    policy's default (else all of it); with one, rounded up onto the policy's range or to its next
    valid value."""
    if asked is None:
        return policy.default if policy is not None and policy.default is not None else capacity
    if policy is None:
        return asked
    valid_range = policy.valid_range
    if valid_range is not None and valid_range.min is not None:
        return _round_up_range(asked, valid_range.min, valid_range.step)
    for valid in policy.valid_values:
        if asked.value <= valid.value:
            return valid
    return asked


def _round_up_range(asked: Amount, minimum: Amount, step: Optional[Fraction]) -> Amount:
    """roundUpRange: at least ``minimum``, then up to the next whole step from it (in whole units,
    as Quantity.Value rounds them; the result is BinarySI, as NewQuantity makes it)."""
    if asked.value < minimum.value:
        return minimum
    step_units = quantity.value(step) if step is not None else 0
    if not step_units:
        return asked
    base = quantity.value(minimum.value)
    steps = -(-(quantity.value(asked.value) - base) // step_units)  # ceiling division
    rounded = base + step_units * steps
    return Amount(Fraction(rounded), quantity.canonical(Fraction(rounded), quantity.BINARY_SI))


def _violates_policy(consumed: Fraction, policy: Optional[CapacityRequestPolicy]) -> bool:
    """violatesPolicy: the default is always allowed; else the range's max and steps, or the valid
    values."""
    if policy is None or (policy.default is not None and consumed == policy.default.value):
        return False
    valid_range = policy.valid_range
    if valid_range is not None:
        if valid_range.max is not None and consumed > valid_range.max:
            return True
        step_units = quantity.value(valid_range.step) if valid_range.step is not None else 0
        if step_units and valid_range.min is not None:
            return (quantity.value(consumed) - quantity.value(valid_range.min.value)) % step_units != 0
        return False
    if policy.valid_values:
        return all(consumed != valid.value for valid in policy.valid_values)
    return False


def capacity_fits(
    device: Device,
    requested: Optional[dict[str, Amount]],
    allocated: Optional[dict[str, Fraction]],
    allocating: Optional[dict[str, Fraction]],
) -> bool:
    """CmpRequestOverCapacity: the request names only capacities the device has, and what it would
    consume of each, within the policy, fits beside what allocated and allocating shares consume."""
    if requested and any(name not in device.capacity for name in requested):
        return False  # "some requested capacity has not been defined": the device is passed over
    for name, value in device.capacity.items():
        policy = device.request_policies.get(name)
        asked = requested.get(name) if requested else None
        consumed = consumed_amount(asked, Amount(value, ""), policy).value
        if _violates_policy(consumed, policy):
            return False
        total = consumed + (allocated or {}).get(name, Fraction(0)) + (allocating or {}).get(name, Fraction(0))
        if total > value:
            return False
    return True


def consumed_capacity(device: Device, requested: Optional[dict[str, Amount]]) -> dict[str, Amount]:
    """GetConsumedCapacityFromRequest: what an allocation of a shared device consumes, per capacity."""
    return {
        name: consumed_amount(
            requested.get(name) if requested else None,
            Amount(value, device.capacity_text(name, value)),
            device.request_policies.get(name),
        )
        for name, value in device.capacity.items()
    }


def add_capacity(
    collection: dict[DeviceId, dict[str, Fraction]], device_id: DeviceId, amounts: dict[str, Fraction]
) -> None:
    """ConsumedCapacityCollection.Insert: an entry for the device even when it consumes nothing."""
    entry = collection.setdefault(device_id, {})
    for name, amount in amounts.items():
        entry[name] = entry.get(name, Fraction(0)) + amount


def _remove_capacity(
    collection: dict[DeviceId, dict[str, Fraction]], device_id: DeviceId, amounts: dict[str, Fraction]
) -> None:
    """ConsumedCapacityCollection.Remove: the entry goes when nothing is left in it."""
    entry = collection.get(device_id)
    if entry is None:
        return
    for name, amount in amounts.items():
        if name in entry:
            entry[name] -= amount
    if all(amount == 0 for amount in entry.values()):
        del collection[device_id]


_SHARE_NAMESPACE = uuid.UUID("6f1c2a7e-3b8d-4e59-9a51-2c0d8e4b7f10")


def share_id(claim: ResourceClaim, position: int) -> str:
    """A shareID for a claim's result at ``position``. The release draws a random UUID; SchedLab
    derives one from the claim's uid so a replay gives the same one every time."""
    return str(uuid.uuid5(_SHARE_NAMESPACE, f"{claim.uid}/{position}"))


# ---------------------------------------------------------------------- selectors


# A selector's verdict on a device does not change while the device does not: results (or the
# error text) are kept per (expression, device object), with the device itself so its id stays its own.


def selectors_match(
    owner: str, selectors: tuple[str, ...], device_id: DeviceId, device: Device, cache: Optional[SelectorCache] = None
) -> bool:
    """selectorsMatch: every CEL selector of a class ("class <name>") or a request ("claim <ns>/<name>")
    accepts the device; AllocationError with the release's text when one fails to compile or run."""
    for index, expression in enumerate(selectors):
        key = (expression, device_id[0], id(device))
        known = cache.get(key) if cache is not None else None
        if known is None:
            known = (device, *_evaluate(expression, device_id[0], device))
            if cache is not None:
                cache[key] = known
        _, matched, error = known
        if error:
            raise AllocationError(f"{owner}: selector #{index}: {error}")
        if not matched:
            return False
    return True


def _evaluate(expression: str, driver: str, device: Device) -> tuple[Optional[bool], str]:
    compiled = compile_selector(expression)
    if compiled.error is not None:
        return None, f"CEL compile error: {compiled.error}"
    try:
        return compiled.matches(driver, device), ""
    except CelRuntimeError as err:
        return None, f"CEL runtime error: {err}"


# ---------------------------------------------------------------------- the allocator


class AllocationMemo:
    """What Allocate answered on each node, kept across cycles (one Allocator is built per PreFilter):
    a node's pools while the node object and the slices are the ones they were gathered from, and
    its last answer while what the answer is computed from is unchanged — the node, the pools, the
    claims' specs, the device classes they name and which of the node's devices are in use. The
    search reads nothing else (the selectors' verdicts are fixed per device), and its results name
    requests and devices, never the claim. Errors are never kept: their text names the claim."""

    def __init__(self) -> None:
        self.pools: dict[str, _NodePools] = {}
        self.answers: dict[str, _Answer] = {}


@dataclass(frozen=True, slots=True)
class _NodePools:
    node: Node
    slices: Sequence[ResourceSlice]  # the list they were gathered from (compared by identity and length)
    slice_count: int
    pools: list[Pool]
    devices: frozenset[DeviceId]  # every device the search may look at on the node


@dataclass(frozen=True, slots=True)
class _Answer:
    node_pools: _NodePools
    specs: tuple[ClaimSpec, ...]
    classes: tuple[Optional[DeviceClass], ...]
    in_use: frozenset[DeviceId]
    results: Optional[list[AllocationResult]]

    def answers(
        self,
        node_pools: _NodePools,
        specs: tuple[ClaimSpec, ...],
        classes: tuple[Optional[DeviceClass], ...],
        in_use: frozenset[DeviceId],
    ) -> bool:
        return (
            self.node_pools is node_pools
            and (
                self.specs is specs
                or (
                    len(self.specs) == len(specs)
                    and all(kept is spec or kept == spec for kept, spec in zip(self.specs, specs))
                )
            )
            and (
                self.classes is classes
                or (len(self.classes) == len(classes) and all(map(operator.is_, self.classes, classes)))
            )
            and self.in_use == in_use
        )


class Allocator:
    """NewAllocator: built once per PreFilter from the devices in use, the classes and slices
    (``memo``: answers kept from earlier cycles' allocators over the same slices)."""

    def __init__(
        self,
        allocated: set[DeviceId],
        classes: Callable[[str], Optional[DeviceClass]],
        slices: Sequence[ResourceSlice],
        selector_cache: Optional[SelectorCache] = None,
        memo: Optional[AllocationMemo] = None,
        device_taints: bool = False,
        sort_pools: bool = False,
        skips_unusable_pools: bool = True,
        all_needs_a_device: bool = True,
        partitionable: bool = False,
        consumable_capacity: bool = False,
        combinations: bool = False,
        shared: frozenset[DeviceId] = frozenset(),
        aggregated: Optional[Mapping[DeviceId, dict[str, Fraction]]] = None,
    ) -> None:
        self.allocated = allocated
        # features.ConsumableCapacity (DRAConsumableCapacity); the allocated state's shared devices
        # (AllocatedSharedDeviceIDs) and what their shares consume (AggregatedCapacity).
        self.consumable_capacity = consumable_capacity
        self.shared = shared
        self.aggregated: Mapping[DeviceId, dict[str, Fraction]] = aggregated or {}
        self.device_taints = device_taints  # features.DeviceTaints (DRADeviceTaints)
        self.partitionable = partitionable  # features.PartitionableDevices (DRAPartitionableDevices)
        # availableCounters: per pool, its counters less what allocated devices consume, computed
        # when a device of the pool first consumes counters and kept for the allocator's life (one
        # cycle, every node). Keyed by the pool's name alone, as the release keys it.
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.sort_pools = sort_pools  # v1.36's incubating/experimental GatherPools (gather_pools)
        # v1.36's incubating/experimental allocateOne: a request's next device is looked for after
        # the one just taken (startLocation), so one request never takes a shared device twice.
        self.combinations = combinations
        # v1.35 on: incomplete and invalid pools are passed over (an invalid one said only when
        # nothing fits); before, an incomplete pool's devices are allocated and reaching an
        # invalid pool is an error (release/code.py: dra_allocator_skips_unusable_pools).
        self.skips_unusable_pools = skips_unusable_pools
        # v1.33 on: an allocationMode All request that no device matches fails; before, it is
        # allocated with no device (release/code.py: dra_allocator_all_mode_needs_a_device).
        self.all_needs_a_device = all_needs_a_device
        self.classes = classes
        self.slices = slices
        self.selector_cache = selector_cache
        self.memo = memo
        self._claims_read: Optional[
            tuple[tuple[ResourceClaim, ...], tuple[ClaimSpec, ...], tuple[Optional[DeviceClass], ...]]
        ] = None
        # Slices by the node they name; the others (node selector, all nodes) may target any node.
        self._by_node: dict[str, list[tuple[int, ResourceSlice]]] = {}
        self._anywhere: list[tuple[int, ResourceSlice]] = []
        for position, slice_ in enumerate(slices):
            if slice_.node_name and not slice_.shared_counters:
                self._by_node.setdefault(slice_.node_name, []).append((position, slice_))
            else:
                self._anywhere.append((position, slice_))
        self._pools: dict[str, tuple[Node, list[Pool]]] = {}

    def candidates(self, node: Optional[Node]) -> list[ResourceSlice]:
        """The slices that may have devices for the node, in slice order."""
        named = self._by_node.get(node.name, []) if node is not None else []
        return [slice_ for _, slice_ in sorted(named + self._anywhere, key=lambda item: item[0])]

    def pools(self, node: Node) -> list[Pool]:
        """gather_pools for the node, once per node object for this allocator (its slices do not
        change while it lives: one cycle); Filter and the node's picture read the same pools."""
        if self.memo is not None:
            return self._node_pools(node).pools
        kept = self._pools.get(node.name)
        if kept is not None and kept[0] is node:
            return kept[1]
        pools = self._gather(node)
        self._pools[node.name] = (node, pools)
        return pools

    def _node_pools(self, node: Node) -> _NodePools:
        """The node's pools from the memo, gathered again when the node or the slices changed."""
        assert self.memo is not None
        kept = self.memo.pools.get(node.name)
        if (
            kept is not None
            and kept.node is node
            and kept.slices is self.slices
            and kept.slice_count == len(self.slices)
        ):
            return kept
        pools = self._gather(node)
        devices = frozenset(
            (pool.driver, pool.name, device.name)
            for pool in pools
            for slice_ in pool.slices
            for device in slice_.devices
        )
        kept = self.memo.pools[node.name] = _NodePools(node, self.slices, len(self.slices), pools, devices)
        return kept

    def _gather(self, node: Node) -> list[Pool]:
        return gather_pools(
            self.slices, node, self.candidates(node), self.sort_pools, self.skips_unusable_pools, self.partitionable
        )

    def _specs_and_classes(
        self, claims: list[ResourceClaim]
    ) -> tuple[tuple[ClaimSpec, ...], tuple[Optional[DeviceClass], ...]]:
        """The claims' specs and the classes they name, read once for the same claims (Filter asks
        on every node with the pod's claims)."""
        kept = self._claims_read
        if kept is not None and len(kept[0]) == len(claims) and all(map(operator.is_, kept[0], claims)):
            return kept[1], kept[2]
        specs = tuple(claim.spec for claim in claims)
        classes = tuple(self.classes(name) for name in _class_names(specs))
        self._claims_read = (tuple(claims), specs, classes)
        return specs, classes

    def allocate(self, node: Node, claims: list[ResourceClaim]) -> Optional[list[AllocationResult]]:
        """Allocate: one result per claim, None when the claims do not fit on the node, or
        AllocationError."""
        if self.memo is None:
            return _Run(self, node, claims).allocate()
        node_pools = self._node_pools(node)
        if any(pool.counter_sets for pool in node_pools.pools) or self.aggregated or self.shared:
            # Counters read devices of other nodes and this cycle's first view of a pool (by
            # name), shares what other claims consume: never kept.
            return _Run(self, node, claims).allocate()
        specs, classes = self._specs_and_classes(claims)
        in_use = node_pools.devices & self.allocated
        kept = self.memo.answers.get(node.name)
        if kept is not None and kept.answers(node_pools, specs, classes, in_use):
            return list(kept.results) if kept.results is not None else None
        results = _Run(self, node, claims).allocate()
        self.memo.answers[node.name] = _Answer(node_pools, specs, classes, frozenset(in_use), results)
        return list(results) if results is not None else None


def _class_names(specs: tuple[ClaimSpec, ...]) -> list[str]:
    """The device classes the claims' requests name, in order (what the search looks up)."""
    names: list[str] = []
    for spec in specs:
        for request in spec.requests:
            if request.exactly is not None:
                names.append(request.exactly.device_class_name)
            names.extend(sub.device_class_name for sub in request.first_available)
    return names


class _Run:
    """allocator: the state of one Allocate call."""

    def __init__(self, owner: Allocator, node: Node, claims: list[ResourceClaim]) -> None:
        self.owner = owner
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[tuple[int, int, int], RequestData] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}
        self.constraints: list[list[_Constraint]] = []
        self.matches: dict[tuple[DeviceId, int, int, int], bool] = {}
        self.allocating: dict[DeviceId, set[int]] = {}
        self.results: list[list[_Chosen]] = [[] for _ in claims]
        # allocatingCapacity: what this call's shares of devices that allow multiple allocations consume
        self.allocating_capacity: dict[DeviceId, dict[str, Fraction]] = {}
        # consumedCounters: per pool name, what this call's chosen devices consume
        self.consumed: dict[str, dict[str, dict[str, Fraction]]] = {}

    def allocate(self) -> Optional[list[AllocationResult]]:
        self.pools = self.owner.pools(self.node)
        for claim_index, claim in enumerate(self.claims):
            minimum = 0
            for request_index in range(len(claim.spec.requests)):
                minimum += self._prepare_request(claim_index, request_index, claim)
            if minimum > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {claim.key}: number of requested devices {minimum} exceeds the claim "
                    f"limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            self.constraints.append(self._constraints(claim))
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            if self.owner.skips_unusable_pools and any(pool.invalid for pool in self.pools):
                raise AllocationError("invalid resource pools were encountered", on_node=True)
            return None
        return [self._result(index) for index in range(len(self.claims))]

    # ------------------------------------------------------------------ preparation

    def _prepare_request(self, claim_index: int, request_index: int, claim: ResourceClaim) -> int:
        request = claim.spec.requests[request_index]
        if request.first_available:
            minimum = None
            for sub_index, sub in enumerate(request.first_available):
                accessor = Request(
                    sub.name,
                    sub.device_class_name,
                    sub.selectors,
                    sub.allocation_mode,
                    sub.count,
                    None,
                    request.name,
                    sub.tolerations,
                    sub.capacity,
                )
                data = self._validate(claim, accessor, (claim_index, request_index, sub_index))
                self.request_data[(claim_index, request_index, sub_index)] = data
                minimum = data.num_devices if minimum is None else min(minimum, data.num_devices)
            return minimum or 0
        exact = request.exactly
        if exact is None:
            raise AllocationError(
                f"claim {claim.key}, request {request.name}: missing device class name (unsupported request type?)"
            )
        accessor = Request(
            request.name,
            exact.device_class_name,
            exact.selectors,
            exact.allocation_mode,
            exact.count,
            exact.admin_access,
            tolerations=exact.tolerations,
            capacity=exact.capacity,
        )
        data = self._validate(claim, accessor, (claim_index, request_index, 0))
        self.request_data[(claim_index, request_index, 0)] = data
        return data.num_devices

    def _validate(self, claim: ResourceClaim, request: Request, key: tuple[int, int, int]) -> RequestData:
        """validateDeviceRequest."""
        if not request.class_name:
            raise AllocationError(
                f"claim {claim.key}, request {request.name}: missing device class name (unsupported request type?)"
            )
        device_class = self.owner.classes(request.class_name)
        if device_class is None:
            raise AllocationError(
                f"claim {claim.key}, request {request.name}: could not retrieve device class "
                f'{request.class_name}: deviceclass.resource.k8s.io "{request.class_name}" not found'
            )
        data = RequestData(request, device_class)
        if request.mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = request.count
        elif request.mode == ALLOCATION_MODE_ALL:
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: asks for all devices, but "
                        f"resource pool {pool.pool_id} is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: asks for all devices, but "
                        f"resource pool {pool.pool_id} is currently invalid"
                    )
                for slice_ in pool.slices:
                    for device in slice_.devices:
                        device_id = (slice_.driver, slice_.pool, device.name)
                        if self._selectable(key, data, device_id, device, slice_) and self._capacity_fits(
                            request, device_id, device
                        ):
                            data.all_devices.append((device_id, device, slice_, pool))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"claim {claim.key}, request {request.name}: unsupported count mode {request.mode}")
        return data

    def _constraints(self, claim: ResourceClaim) -> list[_Constraint]:
        constraints: list[_Constraint] = []
        for index, constraint in enumerate(claim.spec.constraints):
            if constraint.match_attribute is not None:
                constraints.append(_MatchAttribute(constraint.requests, constraint.match_attribute))
            elif constraint.distinct_attribute is not None:
                constraints.append(_DistinctAttribute(constraint.requests, constraint.distinct_attribute))
            else:
                raise AllocationError(
                    f"claim {claim.key}, constraint #{index}: empty constraint (unsupported constraint type?)"
                )
        return constraints

    # ------------------------------------------------------------------ selection

    def _selectable(
        self, key: tuple[int, int, int], data: RequestData, device_id: DeviceId, device: Device, slice_: ResourceSlice
    ) -> bool:
        """isSelectable: the class's selectors, then the request's, then (perDeviceNodeSelection)
        the device's own node selection (results cached per request)."""
        cache_key = (device_id, *key)
        known = self.matches.get(cache_key)
        if known is not None:
            return known
        claim = self.claims[key[0]]
        match = True
        if data.device_class is not None:
            match = selectors_match(
                f"class {data.device_class.name}",
                data.device_class.selectors,
                device_id,
                device,
                self.owner.selector_cache,
            )
        if match:
            match = selectors_match(
                f"claim {claim.key}", data.request.selectors, device_id, device, self.owner.selector_cache
            )
        if match and slice_.per_device_node_selection:
            match = device_matches_node(device, self.node)
        self.matches[cache_key] = match
        return match

    def _in_use(self, device_id: DeviceId) -> bool:
        return device_id in self.owner.allocated or bool(self.allocating.get(device_id))

    def _capacity_in_use(self, device_id: DeviceId) -> bool:
        """deviceCapacityInUse: some share of the device, allocated or being allocated, consumes capacity."""
        return device_id in self.owner.aggregated or device_id in self.allocating_capacity

    def _capacity_fits(self, request: Request, device_id: DeviceId, device: Device) -> bool:
        """The allocator's CmpRequestOverCapacity, checked only while ConsumableCapacity is on."""
        if not self.owner.consumable_capacity:
            return True
        return capacity_fits(
            device, request.capacity, self.owner.aggregated.get(device_id), self.allocating_capacity.get(device_id)
        )

    # ------------------------------------------------------------------ the search

    def _allocate_one(
        self,
        claim_index: int,
        request_index: int,
        sub_index: int,
        device_index: int,
        in_sub_request: bool,
        start: tuple[int, int, int] = (0, 0, 0),
    ) -> bool:
        """allocateOne: find a device for this position (from ``start``: pool, slice, device
        index), then recurse to the next one."""
        if claim_index >= len(self.claims):
            return True
        claim = self.claims[claim_index]
        if request_index >= len(claim.spec.requests):
            try:
                return self._allocate_one(claim_index + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        key = (claim_index, request_index, sub_index)
        data = self.request_data[key]
        if not in_sub_request and data.request.parent:
            return self._allocate_sub_requests(claim_index, request_index, device_index)
        request = data.request
        all_devices = request.mode == ALLOCATION_MODE_ALL
        if all_devices and not data.all_devices and self.owner.all_needs_a_device:
            return False
        if device_index >= data.num_devices:
            return self._allocate_one(claim_index, request_index + 1, 0, 0, False)
        if len(self.results[claim_index]) + data.num_devices - device_index > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()
        if all_devices:
            device_id, device, slice_, pool = data.all_devices[device_index]
            undo = self._allocate_device(claim_index, key, _Candidate(device_id, device, slice_, pool), must=True)
            if undo is None:
                return False
            try:
                done = self._allocate_one(claim_index, request_index, sub_index, device_index + 1, in_sub_request)
            except _MaxSizeExceeded:
                undo()
                raise
            if not done:
                undo()
            return done
        consumable = self.owner.consumable_capacity
        for pool_index, pool in enumerate(self.pools):
            if pool_index < start[0]:
                continue
            if self.owner.skips_unusable_pools:
                if pool.incomplete or pool.invalid:
                    continue
            elif pool.invalid:  # "not safe to allocate from an invalid pool": the cycle fails
                raise AllocationError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            first_slice = start[1] if pool_index == start[0] else 0
            for slice_index in range(first_slice, len(pool.slices)):
                slice_ = pool.slices[slice_index]
                first_device = start[2] if (pool_index, slice_index) == start[:2] else 0
                for device_index_in_slice in range(first_device, len(slice_.devices)):
                    device = slice_.devices[device_index_in_slice]
                    device_id = (pool.driver, pool.name, device.name)
                    if request.admin_access and claim_index in self.allocating.get(device_id, ()):
                        continue
                    if not request.admin_access and self._in_use(device_id):
                        continue
                    if not self._selectable(key, data, device_id, device, slice_):
                        continue
                    if consumable and not self._capacity_fits(request, device_id, device):
                        continue
                    undo = self._allocate_device(
                        claim_index, key, _Candidate(device_id, device, slice_, pool), must=False
                    )
                    if undo is None:
                        continue
                    # v1.36: the request's next device is looked for after this one (combinations,
                    # not permutations); before, from the first device again.
                    after = (pool_index, slice_index, device_index_in_slice + 1) if self.owner.combinations else _FIRST
                    try:
                        done = self._allocate_one(
                            claim_index, request_index, sub_index, device_index + 1, in_sub_request, after
                        )
                    except _MaxSizeExceeded:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _allocate_sub_requests(self, claim_index: int, request_index: int, device_index: int) -> bool:
        """The subrequests of a firstAvailable request, in order: the first that fits is kept."""
        all_exceeded = True
        sub_index = 0
        while (claim_index, request_index, sub_index) in self.request_data:
            try:
                done = self._allocate_one(claim_index, request_index, sub_index, device_index, True)
            except _MaxSizeExceeded:
                sub_index += 1
                continue
            all_exceeded = False
            if done:
                self.selected_sub[(claim_index, request_index)] = sub_index
                return True
            sub_index += 1
        if all_exceeded:
            raise _MaxSizeExceeded()
        return False

    def _allocate_device(
        self, claim_index: int, key: tuple[int, int, int], candidate: _Candidate, must: bool
    ) -> Optional[Callable[[], None]]:
        """allocateDevice: availability, counters, taints, constraints and capacity; the undo
        function when it is taken (what it changed, taken back in the opposite order)."""
        request = self.request_data[key].request
        device_id, device = candidate.device_id, candidate.device
        shared = self.owner.consumable_capacity and bool(device.allow_multiple_allocations)
        if not shared and request.admin_access and claim_index in self.allocating.get(device_id, ()):
            return None
        if not request.admin_access and self._in_use(device_id):
            return None
        if device.consumes_counters and not self.owner.partitionable:
            return None
        # A share of a device some share of which is already taken draws no counters again.
        counted = bool(device.consumes_counters) and not (shared and self._capacity_in_use(device_id))
        if counted and not self._take_counters(candidate):
            return None
        change = _Change(candidate, counted)
        # Might be tainted, in which case the taint has to be tolerated (checked only with the feature on).
        if self.owner.device_taints and taint_prevents_allocation(device, request.tolerations):
            self._rollback(claim_index, change)
            return None
        change.base, change.sub = (request.parent, request.name) if request.parent else (request.name, "")
        for constraint in self.constraints[claim_index]:
            if not constraint.add(change.base, change.sub, device, device_id):
                self._rollback(claim_index, change)
                if must:
                    claim = self.claims[claim_index]
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: cannot add device "
                        f"{'/'.join(device_id)} because a claim constraint would not be satisfied"
                    )
                return None
            change.constraints += 1
        if not shared:
            self.allocating.setdefault(device_id, set()).add(claim_index)
            change.marked = True
        if not self._capacity_fits(request, device_id, device):
            self._rollback(claim_index, change)
            return None
        results = self.results[claim_index]
        share, consumed = None, None
        if shared:
            amounts = consumed_capacity(device, request.capacity)
            change.entry_existed = device_id in self.allocating_capacity
            change.consumed = {name: amount.value for name, amount in amounts.items()}
            add_capacity(self.allocating_capacity, device_id, change.consumed)
            share = share_id(self.claims[claim_index], len(results))
            consumed = {name: amount.shown for name, amount in amounts.items()} or None
        change.results = len(results)
        results.append(_Chosen(request, device_id, candidate.slice, device, share, consumed))
        return lambda: self._rollback(claim_index, change)

    def _rollback(self, claim_index: int, change: _Change) -> None:
        """rollbackDevice: what ``_allocate_device`` changed, taken back in the opposite order."""
        device_id = change.candidate.device_id
        if change.results is not None:
            del self.results[claim_index][change.results :]
        if change.consumed is not None:
            _remove_capacity(self.allocating_capacity, device_id, change.consumed)
            if change.entry_existed:  # an earlier share still counts as one (its entry, even empty)
                self.allocating_capacity.setdefault(device_id, {})
        if change.marked:
            self.allocating[device_id].discard(claim_index)
        constraints = self.constraints[claim_index]
        for index in range(change.constraints - 1, -1, -1):
            constraints[index].remove(change.base, change.sub)
        if change.counted:
            self._give_counters(change.candidate)

    # ------------------------------------------------------------------ counters

    def _take_counters(self, candidate: _Candidate) -> bool:
        """checkAvailableCounters: count the device's consumption in, and take it back out when
        some counter of its pool would then be exceeded."""
        pool_name = candidate.pool.name
        available = self.owner.available_counters.get(pool_name)
        if available is None:
            available = self.owner.available_counters[pool_name] = self._available(candidate.pool)
        consumed = self.consumed.setdefault(pool_name, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, amount in consumption.counters.items():
                counters[name] = counters.get(name, Fraction(0)) + amount
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            if any(amount < used.get(name, Fraction(0)) for name, amount in counters.items()):
                self._give_counters(candidate)
                return False
        return True

    def _give_counters(self, candidate: _Candidate) -> None:
        """deallocateCountersForDevice."""
        if not candidate.device.consumes_counters:
            return
        consumed = self.consumed.get(candidate.pool.name, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, amount in consumption.counters.items():
                counters[name] = counters.get(name, Fraction(0)) - amount

    def _available(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        return counters_left(pool, _Allocated(self.owner))

    # ------------------------------------------------------------------ results

    def _result(self, claim_index: int) -> AllocationResult:
        devices = tuple(
            DeviceResult(
                chosen.request.full_name,
                *chosen.device_id,
                admin_access=True if chosen.request.admin_access else None,
                share_id=chosen.share_id,
                consumed_capacity=chosen.consumed,
                binding_conditions=chosen.device.binding_conditions or None,
                binding_failure_conditions=chosen.device.binding_failure_conditions or None,
            )
            for chosen in self.results[claim_index]
        )
        chosen = [(item.slice, item.device) for item in self.results[claim_index]]
        return AllocationResult(devices, _node_selector(chosen, self.node.name))


class _Allocated:
    """IsDeviceAllocated: a device held whole, shared, or with capacity consumed."""

    def __init__(self, owner: Allocator) -> None:
        self.owner = owner

    def __contains__(self, device_id: object) -> bool:
        owner = self.owner
        return device_id in owner.allocated or device_id in owner.shared or device_id in owner.aggregated


def counters_left(pool: Pool, allocated: Container[DeviceId]) -> dict[str, dict[str, Fraction]]:
    """A pool's counters less what its allocated devices (on this node or others) consume, by counter
    set; possibly negative, which leaves nothing to take (checkAvailableCounters' availableCounters)."""
    available = {name: dict(counter_set.counters) for name, counter_set in pool.counter_sets.items()}
    for slice_ in (*pool.slices, *pool.slices_not_targeting):
        for device in slice_.devices:
            if (slice_.driver, slice_.pool, device.name) not in allocated:
                continue
            for consumption in device.consumes_counters:
                counters = available.get(consumption.counter_set, {})
                for name, amount in consumption.counters.items():
                    if name in counters:
                        counters[name] -= amount
    return available


def taint_prevents_allocation(device: Device, tolerations: tuple[DeviceToleration, ...]) -> bool:
    """taintPreventsAllocation: a NoSchedule or NoExecute taint no toleration matches (other
    effects, "None" among them, do not prevent allocation)."""
    return any(
        taint.effect in (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE)
        and not any(toleration.tolerates(taint) for toleration in tolerations)
        for taint in device.taints
    )


def _node_selector(chosen: list[tuple[ResourceSlice, Device]], node_name: str) -> Optional[NodeSelector]:
    """createNodeSelector: the node allocated for when a device is node-local or binds to its node
    (bindsToNode), else the selectors merged (a slice's, or with perDeviceNodeSelection the
    device's), else none (available everywhere)."""
    fields: list[NodeSelectorRequirement] = []
    expressions: list[NodeSelectorRequirement] = []
    for slice_, device in chosen:
        per_device = slice_.per_device_node_selection
        if (device.node_name if per_device else slice_.node_name) or device.binds_to_node:
            return NodeSelector(
                (NodeSelectorTerm(match_fields=(NodeSelectorRequirement(FIELD_NODE_NAME, "In", (node_name,)),)),)
            )
        selector = device.node_selector if per_device else slice_.node_selector
        if selector is not None and len(selector.terms) == 1:
            _merge(selector.terms[0].match_fields, fields)
            _merge(selector.terms[0].match_expressions, expressions)
        elif selector is not None and len(selector.terms) > 1:
            raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(selector.terms)} terms")
    if fields or expressions:
        return NodeSelector((NodeSelectorTerm(tuple(expressions), tuple(fields)),))
    return None


def _merge(source: tuple[NodeSelectorRequirement, ...], into: list[NodeSelectorRequirement]) -> None:
    for requirement in source:
        if not any(
            r.key == requirement.key and r.operator == requirement.operator and set(r.values) == set(requirement.values)
            for r in into
        ):
            into.append(requirement)
