"""resource.k8s.io/v1 DeviceClass, ResourceSlice, ResourceClaimTemplate and ResourceClaim as the
scheduler reads them.
"""

from __future__ import annotations

from datetime import datetime

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Optional, TYPE_CHECKING, Union

import msgspec

from scheduler_core.model.quantity import DECIMAL_SI, canonical, quantity_format
from scheduler_core.util.wire import Wire

if TYPE_CHECKING:
    from scheduler_core.model.core import NodeSelector, OwnerReference


# ============================================================================ dynamic resource allocation
# resource.k8s.io/v1 DeviceClass, ResourceSlice, ResourceClaimTemplate and ResourceClaim as the
# scheduler reads them (k8s.io/api/resource/v1), after the API server's defaulting (an ``exactly``
# request without ``allocationMode`` is ExactCount with count 1). Fields of features that are off
# in the release replayed are dropped by the loader with a notice (scenario/dra.py), as the API
# server drops them; device taints and request tolerations (DRADeviceTaints) are kept when it is on.

# resource.k8s.io/v1 constants.
FINALIZER = "resource.kubernetes.io/delete-protection"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
ALLOCATION_MODES = (ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_MODE_ALL)
ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize
FIRST_AVAILABLE_MAX_SIZE = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
CEL_SELECTOR_MAX_COST = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost


@dataclass(frozen=True, slots=True)
class Version:
    """A semantic version attribute value (``version:``), kept as written (semver 2.0.0)."""

    text: str


AttributeValue = Union[bool, int, str, Version]

# DeviceTaintEffect: only these two keep a device from being allocated ("None" does not).
TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"
TAINT_EFFECT_NONE = "None"  # from v1.35
TOLERATION_OP_EQUAL = "Equal"
TOLERATION_OP_EXISTS = "Exists"


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    """A device's taint (DRADeviceTaints)."""

    key: str
    value: str = ""
    effect: str = TAINT_EFFECT_NO_SCHEDULE


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    """A request's toleration (DRADeviceTaints); ``operator`` defaulted to Equal as the API server does."""

    key: str = ""
    operator: str = TOLERATION_OP_EQUAL
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: DeviceTaint) -> bool:
        """resourceclaim.ToleratesTaint: an empty effect or key matches any; Equal compares the
        values, Exists matches any value."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", TOLERATION_OP_EQUAL):
            return self.value == taint.value
        return self.operator == TOLERATION_OP_EXISTS


@dataclass(frozen=True, slots=True)
class CounterSet:
    """A slice's ``sharedCounters`` entry (DRAPartitionableDevices): counters the devices of its
    pool draw from, each a quantity."""

    name: str
    counters: dict[str, Fraction] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CounterConsumption:
    """A device's ``consumesCounters`` entry: what allocating it takes from a counter set of its pool."""

    counter_set: str
    counters: dict[str, Fraction] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Amount:
    """A quantity with the text the API server writes it back as (Quantity.String of its format):
    what an allocation's ``consumedCapacity`` copies."""

    value: Fraction
    shown: str


@dataclass(frozen=True, slots=True)
class CapacityRange:
    """``requestPolicy.validRange``: ``min`` required (validation says so), ``max``, ``step`` optional."""

    min: Optional[Amount] = None
    max: Optional[Fraction] = None
    step: Optional[Fraction] = None


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicy:
    """A capacity's ``requestPolicy`` (DRAConsumableCapacity): what one allocation of a device that
    allows multiple allocations consumes of it (``default`` when the request names no amount; a
    request rounded up to the next of ``valid_values`` or onto ``valid_range``'s steps)."""

    default: Optional[Amount] = None
    valid_values: tuple[Amount, ...] = ()
    valid_range: Optional[CapacityRange] = None


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    attributes: dict[str, AttributeValue] = field(default_factory=dict)  # qualified name -> value
    capacity: dict[str, Fraction] = field(default_factory=dict)  # qualified name -> quantity
    taints: tuple[DeviceTaint, ...] = ()  # kept only while DRADeviceTaints is on
    # DRAPartitionableDevices (kept only while it is on): the counters allocating it consumes, and
    # its own node selection when its slice has ``perDeviceNodeSelection``.
    consumes_counters: tuple[CounterConsumption, ...] = ()
    node_name: str = ""
    node_selector: Optional[NodeSelector] = None
    all_nodes: bool = False
    # DRAConsumableCapacity (kept only while it is on): several claims may share the device, each
    # consuming some of its capacities as their request policies say.
    allow_multiple_allocations: Optional[bool] = None
    request_policies: dict[str, CapacityRequestPolicy] = field(default_factory=dict)  # by capacity name
    capacity_shown: dict[str, str] = field(default_factory=dict)  # each capacity's value as written back
    # DRADeviceBindingConditions (kept only while it and DRAResourceClaimDeviceStatus are on): the
    # conditions of the claim's device status that must all be True before a pod using the device
    # is bound, any of those that fails its binding, and whether an allocation of the device is
    # for the one node it was made for.
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    binds_to_node: bool = False

    def capacity_text(self, name: str, value: Fraction) -> str:
        """An amount of capacity ``name`` as the API server writes it: in the format the device
        writes that capacity in (binary when "10Gi"), decimal when unknown."""
        shown = self.capacity_shown.get(name)
        return canonical(value, quantity_format(shown) if shown else DECIMAL_SI)

    def attribute(self, driver: str, fully_qualified: str) -> Optional[AttributeValue]:
        """lookupAttribute: the fully qualified name, or the bare id when the domain is the driver."""
        if fully_qualified in self.attributes:
            return self.attributes[fully_qualified]
        domain, sep, ident = fully_qualified.partition("/")
        if not sep or domain != driver:
            return None
        return self.attributes.get(ident)


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int = 0
    slice_count: int = 1  # pool.resourceSliceCount
    node_name: str = ""
    node_selector: Optional[NodeSelector] = None
    all_nodes: bool = False
    devices: tuple[Device, ...] = ()
    # Set when the slice uses DRAPartitionableDevices' fields (perDeviceNodeSelection or
    # sharedCounters): GatherPools skips such a slice while the feature is off.
    partitionable: bool = False
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it
    shared_counters: tuple[CounterSet, ...] = ()  # kept only while DRAPartitionableDevices is on
    per_device_node_selection: bool = False  # kept only while DRAPartitionableDevices is on


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...] = ()  # CEL expressions
    config_count: int = 0  # spec.config entries (opaque, copied into allocations)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it
    # spec.extendedResourceName (DRAExtendedResource, kept only while it is on): pods' requests of
    # this extended resource may be met by the class's devices
    extended_resource_name: Optional[str] = None
    # metadata.creationTimestamp (None: not given; the API server would set it on create): of two
    # classes naming the same extended resource, the newer stands for it
    created: Optional[datetime] = None


@dataclass(frozen=True, slots=True)
class ExactRequest:
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: Optional[bool] = None
    tolerations: tuple[DeviceToleration, ...] = ()  # kept only while DRADeviceTaints is on
    # ``capacity.requests`` (DRAConsumableCapacity, kept only while it is on): None when unset
    capacity: Optional[dict[str, Amount]] = None


@dataclass(frozen=True, slots=True)
class SubRequest:
    """One alternative of a ``firstAvailable`` list (DRAPrioritizedList, on in v1.35)."""

    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    tolerations: tuple[DeviceToleration, ...] = ()  # kept only while DRADeviceTaints is on
    capacity: Optional[dict[str, Amount]] = None  # ``capacity.requests`` (DRAConsumableCapacity)

    @property
    def admin_access(self) -> Optional[bool]:
        return None


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    name: str
    exactly: Optional[ExactRequest] = None
    first_available: tuple[SubRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()
    match_attribute: Optional[str] = None
    distinct_attribute: Optional[str] = None  # DRAConsumableCapacity (kept only while it is on)


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config_count: int = 0


class DeviceResult(Wire, frozen=True):  # type: ignore[misc]
    """One allocated device; its declaration is its wire form (util/wire.py): ``adminAccess`` only
    when set."""

    request: str  # request name, or "<request>/<subrequest>"
    driver: str
    pool: str
    device: str
    admin_access: Optional[bool] = None
    # DRAConsumableCapacity: the share of a device that allows multiple allocations, and what this
    # allocation consumes of its capacities (canonical quantities, by capacity name).
    share_id: Optional[str] = msgspec.field(default=None, name="shareID")
    consumed_capacity: Optional[dict[str, str]] = None
    # DRADeviceBindingConditions: the device's binding conditions, copied by the allocator
    binding_conditions: Optional[tuple[str, ...]] = None
    binding_failure_conditions: Optional[tuple[str, ...]] = None

    @property
    def device_id(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)


class SelectorTermJSON(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """A node selector term of an allocation as the stream writes it: each requirement one line,
    "key operator value,value"."""

    match_fields: tuple[str, ...]
    match_expressions: tuple[str, ...]


class AllocationJSON(Wire, frozen=True):  # type: ignore[misc]
    """``AllocationResult``'s wire form: its devices, and ``nodeSelector`` only when it has one."""

    devices: tuple[DeviceResult, ...]
    node_selector: Optional[tuple[SelectorTermJSON, ...]] = None


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceResult, ...] = ()
    node_selector: Optional[NodeSelector] = None
    # status.allocation.allocationTimestamp: written by PreBind with DRADeviceBindingConditions on
    # (to the second, as the API server stores times); a binding waits at most bindingTimeout after it
    allocation_timestamp: Optional[datetime] = None

    @property
    def binds_with_conditions(self) -> bool:
        """Whether some allocated device has binding conditions (hasBindingConditions, per claim)."""
        return any(result.binding_conditions for result in self.results)

    def wire(self) -> AllocationJSON:
        """Its wire form (the requirements said as lines)."""
        if self.node_selector is None:
            return AllocationJSON(self.results)
        terms = tuple(
            SelectorTermJSON(
                tuple(f"{r.key} {r.operator} {','.join(r.values)}" for r in term.match_fields),
                tuple(f"{r.key} {r.operator} {','.join(r.values)}" for r in term.match_expressions),
            )
            for term in self.node_selector.terms
        )
        return AllocationJSON(self.results, terms)

    def to_json(self) -> dict[str, object]:
        return self.wire().to_json()


@dataclass(frozen=True, slots=True)
class DeviceCondition:
    """A condition of an allocated device's status (metav1.Condition: what the scheduler reads)."""

    type: str
    status: str  # "True", "False" or "Unknown"
    reason: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class AllocatedDeviceStatus:
    """status.devices[] of a claim (DRAResourceClaimDeviceStatus): a driver's report on one
    allocated device; binding conditions are read from its conditions."""

    driver: str
    pool: str
    device: str
    share_id: Optional[str] = None
    conditions: tuple[DeviceCondition, ...] = ()

    def is_true(self, condition_type: str) -> bool:
        """apimeta.IsStatusConditionTrue."""
        return any(c.type == condition_type and c.status == "True" for c in self.conditions)

    def condition(self, condition_type: str) -> Optional[DeviceCondition]:
        """apimeta.FindStatusCondition."""
        return next((c for c in self.conditions if c.type == condition_type), None)


@dataclass(frozen=True, slots=True)
class ConsumerRef:
    """status.reservedFor[]: who uses the claim (a pod, by uid)."""

    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    finalizers: tuple[str, ...] = ()
    terminating: bool = False  # metadata.deletionTimestamp set
    spec: ClaimSpec = field(default_factory=ClaimSpec)
    allocation: Optional[AllocationResult] = None
    reserved_for: tuple[ConsumerRef, ...] = ()
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it
    device_statuses: tuple[AllocatedDeviceStatus, ...] = ()  # status.devices (the drivers' reports)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def device_status(self, result: DeviceResult) -> Optional[AllocatedDeviceStatus]:
        """getAllocatedDeviceStatus: the status of the result's device (by driver, pool, device)."""
        return next(
            (
                status
                for status in self.device_statuses
                if (status.driver, status.pool, status.device) == (result.driver, result.pool, result.device)
            ),
            None,
        )

    def is_reserved_for(self, uid: str) -> bool:
        """resourceclaim.IsReservedForPod."""
        return any(ref.uid == uid for ref in self.reserved_for)

    def controlled_by(self, uid: str) -> bool:
        """metav1.IsControlledBy: the controller owner reference has this uid."""
        return any(ref.controller and ref.uid == uid for ref in self.owner_references)

    def deallocated(self) -> "ResourceClaim":
        """Allocation and reservations removed; the API server drops the deallocated devices'
        statuses with them (dropDeallocatedStatusDevices)."""
        return replace(self, allocation=None, reserved_for=(), device_statuses=())


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    spec: ClaimSpec = field(default_factory=ClaimSpec)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class DraObjects:
    """The scenario's resource.k8s.io objects, each kind in document order."""

    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    templates: list[ResourceClaimTemplate] = field(default_factory=list)
