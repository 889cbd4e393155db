"""resource.k8s.io/v1 objects -> model: DeviceClass, ResourceSlice, ResourceClaimTemplate and
ResourceClaim as ``kubectl get -o yaml`` writes them, with the API server's defaulting (an
``exactly`` request without ``allocationMode`` is ExactCount, ``count`` then 1; a toleration's
``operator`` Equal) and the validation that would make it refuse them
(pkg/apis/resource/validation), each error located.

Fields of feature gates are recorded while reading (``GatedField``), before the release is known;
once the loader has chosen it, ``apply_release`` settles each as that release's API server does
(pkg/registry/resource/*/strategy.go, dropDisabledFields on create): a field whose gate is off is
dropped and named in a notice; one whose gate is on is kept. Kept fields of DRADeviceTaints (device
taints, request tolerations) and, from v1.35, of DRAPartitionableDevices (sharedCounters,
consumesCounters, perDeviceNodeSelection, per-device node selection) are validated then and
replayed by the allocator, and from v1.36 those of DRAConsumableCapacity (allowMultipleAllocations,
capacity requestPolicy, request capacity, distinctAttribute, an allocation's shareID and
consumedCapacity; a CEL selector reading device.allowMultipleAllocations, which only an API server
with the gate on compiles), of DRAExtendedResource (a class's extendedResourceName, validated as
an extended resource name) and of DRADeviceBindingConditions (a device's bindingConditions,
bindingFailureConditions and bindsToNode, a result's conditions; a claim's status.devices, kept
from v1.33 with DRAResourceClaimDeviceStatus, is read for their conditions). Kept fields of the
features SchedLab does not replay — DRAPartitionableDevices before v1.35, DRAConsumableCapacity,
DRAExtendedResource and DRADeviceBindingConditions before v1.36 (alpha there, turned on by
--feature-gates; for DRAExtendedResource also a pod's request of
deviceclass.resource.kubernetes.io/<class>) — make the load fail with an error naming the field, the
release and the gate, never a silent drop.
"""

from __future__ import annotations

import dataclasses
import re

import msgspec
from fractions import Fraction
from dataclasses import dataclass, replace
from typing import Callable, Optional, TypeVar

from scheduler_core.dra.cel import compile_selector, parse_semver
from scheduler_core.dra.cel import SELECTOR_MAX_COST
from scheduler_core.model import (
    AllocatedDeviceStatus,
    DeviceCondition,
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    TAINT_EFFECT_NONE,
    TOLERATION_OP_EQUAL,
    TOLERATION_OP_EXISTS,
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_MODES,
    ALLOCATION_RESULTS_MAX_SIZE,
    FIRST_AVAILABLE_MAX_SIZE,
    AllocationResult,
    Amount,
    CapacityRange,
    CapacityRequestPolicy,
    AttributeValue,
    ClaimSpec,
    ConsumerRef,
    CounterConsumption,
    CounterSet,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceResult,
    DeviceTaint,
    DeviceToleration,
    DraObjects,
    ExactRequest,
    Namespace,
    NodeSelector,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    SubRequest,
    Version,
)
from scheduler_core.model import quantity
from scheduler_core.model.quantity import canonical, quantity_format
from scheduler_core.model.scenario import Scenario
from scheduler_core.release.choice import ReleaseChoice
from scheduler_core.release.rules import Rules
from scheduler_core.release.versions import SUPPORTED_RELEASES
from scheduler_core.release.gates import spec_at
from scheduler_core.framework.dra_class_resolver import DEVICE_CLASS_PREFIX
from scheduler_core.plugins.node_resources.resource_names import is_extended_resource_name
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.pods import owner_references, pods_as_released, read_time
from scheduler_core.scenario.selectors import node_selector
from scheduler_core.scenario import dra_names, storage
from scheduler_core.scenario.validation import (
    check,
    check_str_enum,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    read_quantity,
)

API_VERSION = "resource.k8s.io/v1"
# What v1.32 and v1.33 serve (and later releases still): v1beta2 is shaped as v1 is; v1beta1 writes
# a request's fields beside its name (v1 puts them under `exactly`) and a device's under `basic`.
V1BETA1 = "resource.k8s.io/v1beta1"
API_VERSIONS = (API_VERSION, "resource.k8s.io/v1beta2", V1BETA1)
KINDS = {"DeviceClass": False, "ResourceSlice": False, "ResourceClaimTemplate": True, "ResourceClaim": True}
ATTRIBUTE_TYPES = ("int", "bool", "string", "version")
MAX_DEVICES_PER_SLICE = 128  # resourceapi.ResourceSliceMaxDevices
MAX_LIST_SIZE = 32  # DeviceRequestsMaxSize, DeviceConstraintsMaxSize, DeviceSelectorsMaxSize, DeviceConfigMaxSize
MAX_ATTRIBUTES_AND_CAPACITIES = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
ATTRIBUTE_VALUE_MAX_LENGTH = 64  # DeviceAttributeMaxValueLength
CEL_EXPRESSION_MAX_LENGTH = 10 * 1024  # CELSelectorExpressionMaxLength
RESERVED_FOR_MAX_SIZE = 256  # ResourceClaimReservedForMaxSize
DEVICE_TAINTS_MAX_LENGTH = 16  # resourceapi.DeviceTaintsMaxLength
# ResourceSliceMaxDevicesWithAdvancedFeatures (v1.35: ...WithTaintsOrConsumesCounters): a slice with
# a tainted device holds at most 64 devices, from v1.35 on.
MAX_DEVICES_PER_SLICE_WITH_TAINTS = 64
MAX_DEVICES_WITH_TAINTS_SINCE = 35
TAINT_EFFECTS_SINCE = {TAINT_EFFECT_NO_EXECUTE: 0, TAINT_EFFECT_NO_SCHEDULE: 0, TAINT_EFFECT_NONE: 35}
TOLERATION_OPERATORS = (TOLERATION_OP_EQUAL, TOLERATION_OP_EXISTS)  # validDeviceTolerationOperators

DEVICE_TAINTS = "DRADeviceTaints"
TAINT_RULES = "DRADeviceTaintRules"
EXTENDED_RESOURCE = "DRAExtendedResource"
PARTITIONABLE = "DRAPartitionableDevices"
# The gates whose kept fields SchedLab replays, each from the minor release its replay follows;
# the kept fields of any other gate (or of these before that release) are refused.
# DRAPartitionableDevices: v1.35's model (counter sets in slices of their own, per-device node
# selection) is the one replayed; v1.33 and v1.34 let a slice hold both, and are refused.
# DRAConsumableCapacity: v1.36's allocator (incubating, where the gate is on by default) is the one
# replayed; turned on in v1.34 or v1.35 (alpha, another allocator variant) it is refused.
CONSUMABLE = "DRAConsumableCapacity"
# DRADeviceBindingConditions: replayed where it is on by default (v1.36; alpha before, refused
# there); the claim device statuses its conditions are read from (DRAResourceClaimDeviceStatus)
# wherever the API server keeps them.
BINDING_CONDITIONS = "DRADeviceBindingConditions"
DEVICE_STATUS = "DRAResourceClaimDeviceStatus"
# DRAPrioritizedList (a request's firstAvailable) and DRAAdminAccess (adminAccess): replayed where
# they are on by default (v1.34 on); alpha before, turned on there they are refused.
PRIORITIZED_LIST = "DRAPrioritizedList"
ADMIN_ACCESS = "DRAAdminAccess"
REPLAYED_GATES = {
    PRIORITIZED_LIST: 34,
    ADMIN_ACCESS: 34,
    DEVICE_TAINTS: 0,
    PARTITIONABLE: 35,
    CONSUMABLE: 36,
    EXTENDED_RESOURCE: 36,
    BINDING_CONDITIONS: 36,
    DEVICE_STATUS: 0,
}
BINDING_CONDITIONS_MAX_SIZE = 4  # resourceapi.BindingConditionsMaxSize (and BindingFailureConditionsMaxSize)
DEVICE_STATUS_MAX_CONDITIONS = 8  # resourceapi.AllocatedDeviceStatusMaxConditions
CONDITION_STATUSES = ("False", "True", "Unknown")
CONDITION_REASON_MAX_LENGTH = 1024
CONDITION_MESSAGE_MAX_LENGTH = 32 * 1024
POLICY_MAX_OPTIONS = 10  # CapacityRequestPolicyDiscreteMaxOptions
MAX_COUNTER_SETS = 8  # ResourceSliceMaxCounterSets
MAX_COUNTERS_PER_SET = 32  # ResourceSliceMaxCountersPerCounterSet
MAX_CONSUMPTIONS_PER_DEVICE = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
MAX_COUNTERS_PER_CONSUMPTION = 32  # ResourceSliceMaxCountersPerDeviceCounterConsumption
# A slice's binding conditions are kept only with DRAResourceClaimDeviceStatus on too
# (resourceslice/strategy.go: dropDisabledDRADeviceBindingConditionsFields).
_BINDING = (BINDING_CONDITIONS, DEVICE_STATUS)

# (field, gates that must all be on for the API server to keep it; the first names it).
_SLICE_GATED = (
    ("sharedCounters", (PARTITIONABLE,)),
    ("perDeviceNodeSelection", (PARTITIONABLE,)),
)
_DEVICE_PARTITIONABLE = tuple(
    (key, (PARTITIONABLE,)) for key in ("consumesCounters", "nodeName", "nodeSelector", "allNodes")
)
_DEVICE_GATED = (("allowMultipleAllocations", (CONSUMABLE,)),)
_REQUEST_GATED = (("capacity", (CONSUMABLE,)),)
_EXACT_GATED = (("adminAccess", (ADMIN_ACCESS,)),)
# An allocation result's fields (resourceclaim/strategy.go: dropDisabledStatusFields); shareID is
# recorded with its own validation (_share_id).
_RESULT_GATED = (("consumedCapacity", (CONSUMABLE,)), ("adminAccess", (ADMIN_ACCESS,)))
# v1beta1's ExactDeviceRequest fields, written beside the request's name (hasAnyMainRequestFieldsSet)
_V1BETA1_EXACT_KEYS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations")
FIRST_AVAILABLE_SINCE = 33  # before, a v1beta1 request is an exact request (deviceClassName required)
_ONE_KIND_OF_REQUEST = "exactly one of `exactly` or `firstAvailable` is required"


@dataclass(frozen=True, slots=True)
class DeferredError:
    """A validation error the API server reports only when it keeps the field (its gate on), in the
    releases from ``since`` (a minor) until before ``until``."""

    error: ScenarioError
    since: int = 0
    until: Optional[int] = None

    def applies(self, minor: int) -> bool:
        return self.since <= minor and (self.until is None or minor < self.until)


@dataclass(frozen=True, slots=True)
class GatedField:
    """A field written in the scenario that the API server keeps only while ``needs`` are all on
    (``gate``, the first, names it)."""

    needs: tuple[str, ...]
    object: str  # "ResourceSlice n1-gpu"
    path: str
    line: Optional[int]
    file: Optional[str]
    errors: tuple[DeferredError, ...] = ()
    when_dropped: tuple[DeferredError, ...] = ()  # errors the API server reports only when it drops the field
    # False for what needs the gate without being a field the API server drops (a CEL expression
    # reading a field its environment declares only with the gate): not listed as dropped
    drops: bool = True

    @property
    def gate(self) -> str:
        return self.needs[0]


@dataclass(frozen=True, slots=True)
class AdminAccessRequest:
    """A claim or template asking for admin access: the API server's AuthorizedForAdmin looks up
    its namespace (the first such request is where its error points)."""

    namespace: str
    object: str  # "ResourceClaim default/x"
    path: str
    line: Optional[int]
    file: Optional[str]


ADMIN_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"  # resource.DRAAdminNamespaceLabelKey


def admin_access_errors(requests: list[AdminAccessRequest], namespaces: dict[str, Namespace]) -> list[ScenarioError]:
    """AuthorizedForAdmin (pkg/registry/resource): a claim or template with adminAccess in a namespace
    without the label ``resource.kubernetes.io/admin-access: "true"`` is refused at create. Only
    namespaces the scenario declares are known; an undeclared one is given the benefit of the doubt."""
    errors = []
    for request in requests:
        namespace = namespaces.get(request.namespace)
        if namespace is not None and namespace.declared and namespace.labels.get(ADMIN_NAMESPACE_LABEL) != "true":
            errors.append(
                ScenarioError(
                    request.object,
                    request.path,
                    request.line,
                    f"Forbidden: admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: "
                    "true` label on the containing namespace",
                    request.file,
                )
            )
    return errors


def add(
    objects: DraObjects,
    obj: Field,
    kind: str,
    meta: Metadata,
    gated: list[GatedField],
    admin: Optional[list[AdminAccessRequest]] = None,
) -> None:
    """Decode one object of ``kind`` into ``objects``; ``gated`` collects the fields of feature gates,
    ``admin`` the claims and templates asking for admin access."""
    v1beta1 = obj.get_str("apiVersion") == V1BETA1
    if kind == "DeviceClass":
        objects.classes.append(_device_class(obj, meta, gated))
    elif kind == "ResourceSlice":
        objects.slices.append(_resource_slice(obj, meta, len(objects.slices), gated, v1beta1))
    elif kind == "ResourceClaimTemplate":
        spec = obj.get_map("spec")
        inner = spec.get_map("spec") if spec is not None else None
        if inner is None:
            (spec or obj).error_at("spec", "Required value")
        claim_spec = (
            _claim_spec(inner, f"ResourceClaimTemplate {meta.namespace}/{meta.name}", gated, v1beta1)
            if inner is not None
            else ClaimSpec()
        )
        objects.templates.append(
            ResourceClaimTemplate(
                meta.namespace, meta.name, dict(meta.labels), storage.read_annotations(obj), claim_spec, obj.line
            )
        )
        _note_admin_access(inner, meta.namespace, admin, v1beta1)
    else:
        objects.claims.append(_resource_claim(obj, meta, len(objects.claims), gated, v1beta1))
        _note_admin_access(obj.get_map("spec"), meta.namespace, admin, v1beta1)


def _note_admin_access(
    spec: Optional[Field], namespace: str, admin: Optional[list[AdminAccessRequest]], v1beta1: bool
) -> None:
    """The first `exactly` request with ``adminAccess: true`` (AuthorizedForAdmin stops there)."""
    devices = spec.get_map("devices") if spec is not None else None
    if admin is None or devices is None:
        return
    for item in devices.get_list("requests"):
        exactly = _exactly(item, v1beta1) if item.expect_map() else None
        flag = exactly.get("adminAccess") if exactly is not None else None
        if flag is not None and flag.value is True:
            admin.append(AdminAccessRequest(namespace, flag.ctx.object, flag.path, flag.line, flag.ctx.file))
            return


def _required_name(parent: Field, key: str, validate: Callable[[str], list[str]]) -> str:
    """A required string field, checked by ``validate`` (the API server's name rules)."""
    child = parent.get(key)
    value = child.as_str() if child is not None else ""
    if child is None or not value:
        parent.error_at(key, "Required value")
    else:
        check(child, value, validate(value))
    return value


def _bounded_list(parent: Field, key: str, limit: int) -> list[Field]:
    """validateSlice / validateSet's size check: a list past ``limit`` is one error and its
    items are not looked at (the API server short-circuits for DOS protection)."""
    items = parent.get_list(key)
    if len(items) > limit:
        parent.error_at(key, f"Too many: {len(items)}: must have at most {limit} items")
        return []
    return items


def _duplicates(named: list[tuple[str, Field]]) -> None:
    """validateSet's uniqueness check: each repeated name is an error at its item."""
    seen: set[str] = set()
    for name, field in named:
        if name in seen:
            field.error(f'Duplicate value: "{name[:80]}"')
        seen.add(name)


def _drop(field: Field, gated: tuple[tuple[str, tuple[str, ...]], ...], owner: str, sink: list[GatedField]) -> None:
    """Record each of ``gated`` that ``field`` has: kept or dropped once the release is known."""
    for key, needs in gated:
        child = field.get(key)
        if child is not None:
            sink.append(GatedField(needs, owner, child.path, child.line, child.ctx.file))


def _deferred(field: Field) -> tuple[Field, list[ScenarioError]]:
    """``field`` read again with its own error list: errors the API server reports only when it
    keeps the field."""
    errors: list[ScenarioError] = []
    return Field(field.value, field.path, field.line, Context(field.ctx.object, errors, field.ctx.file)), errors


def _effect(parent: Field, required: bool, deferred: list[DeferredError]) -> str:
    """A taint's (required) or a toleration's (optional) effect: one of the release's
    validDeviceTaintEffects ("None" from v1.35 on)."""
    child = parent.get("effect")
    effect = child.as_str() if child is not None else ""
    if child is None or not effect:
        if required:
            parent.error_at("effect", "Required value")
        return effect
    for since, until in ((0, TAINT_EFFECTS_SINCE[TAINT_EFFECT_NONE]), (TAINT_EFFECTS_SINCE[TAINT_EFFECT_NONE], None)):
        allowed = sorted(name for name, first in TAINT_EFFECTS_SINCE.items() if first <= since)
        if effect not in allowed:
            choices = ", ".join(f'"{name}"' for name in allowed)
            message = f'unsupported value "{effect[:80]}": supported values: {choices}'
            error = ScenarioError(child.ctx.object, child.path, child.line, message, child.ctx.file)
            deferred.append(DeferredError(error, since, until))
    return effect


def _taints(item: Field, owner: str, sink: list[GatedField]) -> tuple[DeviceTaint, ...]:
    """A device's taints (validateDeviceTaint), kept while DRADeviceTaints is on."""
    field = item.get("taints")
    if field is None:
        return ()
    checked, errors = _deferred(field)
    deferred: list[DeferredError] = []
    taints = []
    for taint in _bounded_list_of(checked, DEVICE_TAINTS_MAX_LENGTH):
        if not taint.expect_map():
            continue
        key = _required_name(taint, "key", is_qualified_name)
        value = taint.get_str("value")
        if value:
            check(taint.get("value"), value, is_label_value(value))  # type: ignore[arg-type]
        effect = _effect(taint, True, deferred)
        taints.append(DeviceTaint(key, value, effect))
    deferred.extend(DeferredError(error) for error in errors)
    sink.append(GatedField((DEVICE_TAINTS,), owner, field.path, field.line, field.ctx.file, tuple(deferred)))
    return tuple(taints)


def _tolerations(request: Field, owner: str, sink: list[GatedField]) -> tuple[DeviceToleration, ...]:
    """A request's tolerations (validateDeviceToleration, after defaulting: operator Equal), kept
    while DRADeviceTaints is on."""
    field = request.get("tolerations")
    if field is None:
        return ()
    checked, errors = _deferred(field)
    deferred: list[DeferredError] = []
    tolerations = []
    for item in checked.items():
        if not item.expect_map():
            continue
        key = item.get_str("key")
        if key:
            check(item.get("key"), key, is_qualified_name(key))  # type: ignore[arg-type]
        operator_field = item.get("operator")
        operator = (operator_field.as_str() if operator_field is not None else "") or TOLERATION_OP_EQUAL
        value = item.get_str("value")
        if operator == TOLERATION_OP_EXISTS:
            if value:
                item.error_at("value", f'Invalid value: "{value[:80]}": must be empty for operator `Exists`')
        elif operator == TOLERATION_OP_EQUAL:
            check(item.get("value") or item, value, is_label_value(value))
        elif operator_field is not None:
            check_str_enum(operator_field, operator, TOLERATION_OPERATORS)
        effect = _effect(item, False, deferred)
        tolerations.append(DeviceToleration(key, operator, value, effect))
    deferred.extend(DeferredError(error) for error in errors)
    sink.append(GatedField((DEVICE_TAINTS,), owner, field.path, field.line, field.ctx.file, tuple(deferred)))
    return tuple(tolerations)


def _bounded_list_of(field: Field, limit: int) -> list[Field]:
    """validateSlice's size check on a list field itself."""
    items = field.items()
    if len(items) > limit:
        field.error(f"Too many: {len(items)}: must have at most {limit} items")
        return []
    return items


# ---------------------------------------------------------------------- DeviceClass


def _device_class(obj: Field, meta: Metadata, gated: list[GatedField]) -> DeviceClass:
    metadata = obj.get_map("metadata")
    created = read_time(metadata.get("creationTimestamp")) if metadata is not None else None
    spec = obj.get_map("spec")
    if spec is None:
        return DeviceClass(meta.name, line=obj.line, created=created)
    owner = f"DeviceClass {meta.name}"
    return DeviceClass(
        meta.name,
        _selectors(spec, owner, gated),
        len(_configs(spec)),
        obj.line,
        extended_resource_name=_extended_resource_name(spec, owner, gated),
        created=created,
    )


def _extended_resource_name(spec: Field, owner: str, gated: list[GatedField]) -> Optional[str]:
    """spec.extendedResourceName (DRAExtendedResource): kept, and validated as an extended resource
    name, only where the gate is on."""
    field = spec.get("extendedResourceName")
    if field is None:
        return None
    name = field.as_str()
    errors: tuple[DeferredError, ...] = ()
    if not is_extended_resource_name(name):
        message = f'Invalid value: "{name[:80]}": must be a valid extended resource name'
        errors = (DeferredError(ScenarioError(field.ctx.object, field.path, field.line, message, field.ctx.file)),)
    gated.append(GatedField((EXTENDED_RESOURCE,), owner, field.path, field.line, field.ctx.file, errors))
    return name


def _selectors(parent: Field, owner: str = "", gated: Optional[list[GatedField]] = None) -> tuple[str, ...]:
    """selectors[].cel.expression: required, and it must compile (the API server compiles it; where
    DRAConsumableCapacity is on, its environment declares device.allowMultipleAllocations: an
    expression that needs it is recorded in ``gated`` and refused where the gate is off)."""
    expressions: list[str] = []
    for item in _bounded_list(parent, "selectors", MAX_LIST_SIZE):
        if not item.expect_map():
            continue
        cel = item.get_map("cel")
        if cel is None:
            item.error_at("cel", "Required value")
            continue
        expression_field = cel.get("expression")
        expression = expression_field.as_str() if expression_field is not None else ""
        if not expression:
            cel.error_at("expression", "Required value")
            continue
        if len(expression) > CEL_EXPRESSION_MAX_LENGTH and expression_field is not None:
            expression_field.error(dra_names.too_long(CEL_EXPRESSION_MAX_LENGTH))  # not compiled, as the release
            continue
        compiled = compile_selector(expression, shared_devices=False)
        if compiled.error is not None and expression_field is not None:
            wider = compile_selector(expression)
            if wider.error is not None or gated is None:
                expression_field.error(f"Invalid value: {compiled.error}")
                continue
            field = expression_field
            refusal = ScenarioError(
                field.ctx.object, field.path, field.line, f"Invalid value: {compiled.error}", field.ctx.file
            )
            gated.append(
                GatedField(
                    (CONSUMABLE,), owner, field.path, field.line, field.ctx.file, (), (DeferredError(refusal),), False
                )
            )
            compiled = wider
        if compiled.max_cost > SELECTOR_MAX_COST and expression_field is not None:  # validateCELExpression
            expression_field.error("Forbidden: too complex, exceeds cost limit")
            continue
        expressions.append(expression)
    return tuple(expressions)


# ---------------------------------------------------------------------- ResourceSlice


def _configs(parent: Field, requests: Optional[dict[str, tuple[str, ...]]] = None) -> list[Field]:
    """config[] (DeviceClass and claim): at most 32, each with ``opaque`` naming a valid driver;
    a claim's config names only its requests."""
    configs = _bounded_list(parent, "config", MAX_LIST_SIZE)
    for config in configs:
        if not config.expect_map():
            continue
        if requests is not None:
            _request_references(config, requests)
        opaque = config.get_map("opaque")
        if opaque is None:
            config.error_at("opaque", "Required value")
            continue
        _required_name(opaque, "driver", dra_names.driver_name)
        parameters = opaque.get("parameters")  # validateRawExtension: a JSON object is required
        if parameters is None or parameters.value is None:
            opaque.error_at("parameters", "Required value")
        elif not isinstance(parameters.value, dict):
            parameters.error("Invalid value: parameters must be a valid JSON object")
    return configs


def _request_references(item: Field, requests: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``requests`` of a constraint or a config: a set of references to the claim's requests."""
    references = item.get_str_list("requests")
    if len(references) > MAX_LIST_SIZE:
        item.error_at("requests", f"Too many: {len(references)}: must have at most {MAX_LIST_SIZE} items")
        return ()
    for name, field in references:
        check(field, name, dra_names.request_reference(name, requests))
    _duplicates(list(references))
    return tuple(name for name, _ in references)


def _resource_slice(
    obj: Field, meta: Metadata, doc_index: int, gated: list[GatedField], v1beta1: bool = False
) -> ResourceSlice:
    owner = f"ResourceSlice {meta.name}"
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return ResourceSlice(meta.name, "", "", doc_index=doc_index, line=obj.line)
    driver = _required_name(spec, "driver", dra_names.driver_name)
    pool = spec.get_map("pool")
    pool_name, generation, count = "", 0, 1
    if pool is None:
        spec.error_at("pool", "Required value")
    else:
        pool_name = _required_name(pool, "name", dra_names.pool_name)
        generation = _bounded_int(pool, "generation", 0, "must be greater than or equal to zero")
        count = _bounded_int(pool, "resourceSliceCount", 1, "must be greater than zero")
    partitionable = any(spec.get(key) is not None for key, _ in _SLICE_GATED)
    first_gated = len(gated)
    _drop(spec, _SLICE_GATED, owner, gated)
    node_name = spec.get_str("nodeName")
    selector_field = spec.get("nodeSelector")
    selector = node_selector(selector_field) if selector_field is not None else None
    if node_name:
        check(spec.get("nodeName"), node_name, is_dns1123_subdomain(node_name))  # type: ignore[arg-type]
    if selector_field is not None and len((selector_field.get_list("nodeSelectorTerms"))) != 1:
        selector_field.error_at("nodeSelectorTerms", "Invalid value: must have exactly one node selector term")
    all_nodes = _true_or_unset(spec, "allNodes")
    per_device = _true_or_unset(spec, "perDeviceNodeSelection")
    # DRAPartitionableDevices' fields are validated only where the API server keeps them.
    checked, partitionable_errors = _deferred(spec)
    others = sum((bool(node_name), selector_field is not None, all_nodes))
    if not per_device:
        if others != 1:
            spec.error(_one_node_field(others))
    else:  # perDeviceNodeSelection counts only where it is kept; where it is dropped the others must do
        if others:
            checked.error(_one_node_field(others + 1))
        if others != 1:
            _when_dropped(
                gated,
                first_gated,
                ScenarioError(spec.ctx.object, spec.path, spec.line, _one_node_field(others), spec.ctx.file),
            )
    counter_sets = _counter_sets(checked.get("sharedCounters"))
    if checked.get("sharedCounters") is not None and checked.get("devices") is not None:
        checked.error('invalid value "": only one of `sharedCounters` or `devices` is allowed')
    items = [item for item in spec.get_list("devices") if item.expect_map()]
    if len(items) > MAX_DEVICES_PER_SLICE:
        spec.error_at("devices", f"Too many: {len(items)}: must have at most {MAX_DEVICES_PER_SLICE} items")
        items = []
    first_device_gated = len(gated)
    devices = tuple(_device(item, owner, gated, per_device, partitionable_errors, v1beta1) for item in items)
    if len(items) > MAX_DEVICES_PER_SLICE_WITH_TAINTS and any(device.taints for device in devices):
        _limit_tainted_slice(spec, len(items), gated, first_device_gated)
    _duplicates([(device.name, item.get("name") or item) for device, item in zip(devices, items) if device.name])
    _add_kept_errors(gated, first_gated, _partitionable_limit(spec, devices, partitionable_errors))
    return ResourceSlice(
        meta.name,
        driver,
        pool_name,
        generation,
        count,
        node_name,
        selector,
        all_nodes,
        devices,
        partitionable,
        doc_index,
        obj.line,
        shared_counters=counter_sets,
        per_device_node_selection=per_device,
    )


def _one_node_field(chosen: int) -> str:
    """validateResourceSliceSpec's node selection: exactly one field."""
    return "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required" + (
        ", but multiple fields are set" if chosen else ""
    )


def _when_dropped(gated: list[GatedField], first: int, error: ScenarioError) -> None:
    """``error`` is the API server's where it drops the slice's perDeviceNodeSelection (then no node
    field may be left, or several)."""
    for index in range(first, len(gated)):
        entry = gated[index]
        if entry.path.endswith(".perDeviceNodeSelection"):
            gated[index] = replace(entry, when_dropped=(*entry.when_dropped, DeferredError(error)))
            return


def _partitionable_limit(spec: Field, devices: tuple[Device, ...], errors: list[ScenarioError]) -> list[DeferredError]:
    """The slice's errors of DRAPartitionableDevices' fields: from v1.35 a slice whose devices
    consume counters holds at most 64 devices (said once: with a tainted device the taints say it)."""
    deferred = [DeferredError(error) for error in errors]
    if (
        len(devices) > MAX_DEVICES_PER_SLICE_WITH_TAINTS
        and any(device.consumes_counters for device in devices)
        and not any(device.taints for device in devices)
    ):
        field = spec.get("devices") or spec
        message = f"Too many: {len(devices)}: must have at most {MAX_DEVICES_PER_SLICE_WITH_TAINTS} items"
        error = ScenarioError(spec.ctx.object, field.path, field.line, message, spec.ctx.file)
        deferred.append(DeferredError(error, MAX_DEVICES_WITH_TAINTS_SINCE))
    return deferred


def _add_kept_errors(gated: list[GatedField], first: int, errors: list[DeferredError]) -> None:
    """Give ``errors`` (of DRAPartitionableDevices' fields) to the object's first field of that gate
    at or after ``first``: every such field is kept or dropped with it."""
    if not errors:
        return
    for index in range(first, len(gated)):
        entry = gated[index]
        if entry.gate == PARTITIONABLE:
            gated[index] = replace(entry, errors=(*entry.errors, *errors))
            return


def _counter_sets(field: Optional[Field]) -> tuple[CounterSet, ...]:
    """A slice's sharedCounters (validateCounterSet, within validateSet: at most 8, names unique)."""
    return _named_counters(field, MAX_COUNTER_SETS, "name", CounterSet, MAX_COUNTERS_PER_SET)


def _consumptions(field: Optional[Field]) -> tuple[CounterConsumption, ...]:
    """A device's consumesCounters (validateDeviceCounterConsumption, within validateSet: at most
    2, counter sets unique)."""
    return _named_counters(
        field, MAX_CONSUMPTIONS_PER_DEVICE, "counterSet", CounterConsumption, MAX_COUNTERS_PER_CONSUMPTION
    )


_Named = TypeVar("_Named", CounterSet, CounterConsumption)


def _named_counters(
    field: Optional[Field], limit: int, key: str, make: Callable[[str, dict[str, Fraction]], _Named], counters: int
) -> tuple[_Named, ...]:
    """A list (at most ``limit``) of entries named by ``key`` (a DNS label, unique), each with its
    ``counters`` (at most ``counters``)."""
    if field is None:
        return ()
    items = field.items()
    if len(items) > limit:
        field.error(f"Too many: {len(items)}: must have at most {limit} items")
        return ()
    found = []
    for item in items:
        if not item.expect_map():
            continue
        name = _required_name(item, key, is_dns1123_label)
        found.append((name, item, make(name, _counters(item, counters))))
    _duplicates([(name, item) for name, item, _ in found if name])
    return tuple(entry for _, _, entry in found)


def _counters(parent: Field, limit: int) -> dict[str, Fraction]:
    """A counter set's or a consumption's ``counters``: a required, non-empty map of at most ``limit``
    counters, each a DNS label with a quantity ``value`` (any quantity is valid)."""
    field = parent.get_map("counters")
    entries = list(field.entries()) if field is not None else []
    if field is None or not entries:
        parent.error_at("counters", "Required value")
        return {}
    if len(entries) > limit:
        field.error(f"Too many: {len(entries)}: must have at most {limit} items")
        return {}
    counters: dict[str, Fraction] = {}
    for key, counter in entries:
        check(field, key, is_dns1123_label(key))
        if not counter.expect_map():
            continue
        value = counter.get("value")
        amount = read_quantity(value) if value is not None else Fraction(0)  # absent: the zero Quantity
        if amount is not None:
            counters[key] = amount
    return counters


_PER_DEVICE_ONE = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
    "is set to true in the ResourceSlice spec"
)


def _device_node_selection(item: Field, per_device: bool) -> tuple[str, Optional[NodeSelector], bool]:
    """A device's own nodeName, nodeSelector or allNodes (exactly one when its slice has
    perDeviceNodeSelection, none otherwise)."""
    name_field, selector_field, all_field = (item.get(key) for key in ("nodeName", "nodeSelector", "allNodes"))
    if not per_device:
        if name_field is not None or selector_field is not None or all_field is not None:
            item.error(
                "invalid value null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
            )
        return "", None, False
    chosen = []
    node_name = name_field.as_str() if name_field is not None else ""
    if name_field is not None:
        if node_name:
            chosen.append("`nodeName`")
            check(name_field, node_name, is_dns1123_subdomain(node_name))
        else:
            name_field.error('invalid value "": must not be empty')
    selector = node_selector(selector_field) if selector_field is not None else None
    if selector_field is not None:
        chosen.append("`nodeSelector`")
    all_nodes = all_field.as_bool() if all_field is not None else False
    if all_field is not None:
        if all_nodes:
            chosen.append("`allNodes`")
        else:
            all_field.error("invalid value false: must be either unset or set to true")
    if not chosen:
        item.error(f"Required value: {_PER_DEVICE_ONE}")
    elif len(chosen) > 1:
        item.error(f'invalid value "{{{", ".join(chosen)}}}": {_PER_DEVICE_ONE}')
    return node_name, selector, all_nodes


def _limit_tainted_slice(spec: Field, count: int, gated: list[GatedField], first: int) -> None:
    """From v1.35 a slice with a tainted device holds at most 64 devices: an error only where the
    taints are kept, so it goes with the slice's first taints."""
    devices = spec.get("devices") or spec
    message = f"Too many: {count}: must have at most {MAX_DEVICES_PER_SLICE_WITH_TAINTS} items"
    error = ScenarioError(spec.ctx.object, devices.path, devices.line, message, spec.ctx.file)
    for index in range(first, len(gated)):
        entry = gated[index]
        if entry.gate == DEVICE_TAINTS:
            limit = DeferredError(error, MAX_DEVICES_WITH_TAINTS_SINCE)
            gated[index] = GatedField(
                entry.needs, entry.object, entry.path, entry.line, entry.file, (*entry.errors, limit)
            )
            return


def _bounded_int(parent: Field, key: str, low: int, message: str) -> int:
    """A required integer at least ``low`` (validateResourcePool)."""
    child = parent.get(key)
    if child is None:
        parent.error_at(key, "Required value")
        return low
    value = child.as_int(low)
    if value < low:
        child.error(f"Invalid value: {value}: {message}")
        return low
    return value


def _true_or_unset(parent: Field, key: str) -> bool:
    """allNodes / perDeviceNodeSelection: ``false`` is refused rather than read as unset."""
    child = parent.get(key)
    if child is None:
        return False
    value = child.as_bool()
    if not value:
        child.error("Invalid value: false: must be either unset or set to true")
    return value


def _device(
    device: Field,
    owner: str,
    gated: list[GatedField],
    per_device: bool,
    partitionable_errors: list[ScenarioError],
    v1beta1: bool = False,
) -> Device:
    """A slice's device; the errors of its DRAPartitionableDevices fields go to ``partitionable_errors``.
    v1beta1 writes what the device has under ``basic`` (BasicDevice), beside its name."""
    name = _required_name(device, "name", is_dns1123_label)
    item = device
    if v1beta1:
        basic = device.get_map("basic")
        if basic is None:
            device.error_at("basic", "Required value")
        item = basic if basic is not None else device
    _drop(item, _DEVICE_PARTITIONABLE, owner, gated)
    checked, errors = _deferred(item)
    consumes = _consumptions(checked.get("consumesCounters"))
    node_name, selector, all_nodes = _device_node_selection(checked, per_device)
    partitionable_errors.extend(errors)
    _drop(item, _DEVICE_GATED, owner, gated)
    conditions, failure_conditions = _binding_parameters(item, _BINDING, owner, gated)
    binds_to_node = _binds_to_node(item, owner, gated)
    taints = _taints(item, owner, gated)
    attributes: dict[str, AttributeValue] = {}
    attributes_field = item.get_map("attributes")
    capacity_field = item.get_map("capacity")
    total = sum(len(list(field.entries())) for field in (attributes_field, capacity_field) if field is not None)
    if total > MAX_ATTRIBUTES_AND_CAPACITIES:
        item.error(
            f"Invalid value: {total}: the total number of attributes and capacities must not exceed "
            f"{MAX_ATTRIBUTES_AND_CAPACITIES}"
        )
    for key, value in attributes_field.entries() if attributes_field is not None else ():
        check(value, key, dra_names.attribute_key(key))
        parsed = _attribute(value)
        if parsed is not None:
            attributes[key] = parsed
    capacity = {}
    shown: dict[str, str] = {}
    policies: dict[str, CapacityRequestPolicy] = {}
    allow_field = item.get("allowMultipleAllocations")
    allow = allow_field.as_bool() if allow_field is not None else None
    for key, value in capacity_field.entries() if capacity_field is not None else ():
        check(value, key, dra_names.attribute_key(key))
        if not value.expect_map():
            continue
        amount_field = value.get("value")
        if amount_field is None:
            value.error_at("value", "Required value")
            continue
        amount = _amount(amount_field)
        if amount is None:
            continue
        capacity[key], shown[key] = amount.value, amount.shown
        policy_field = value.get("requestPolicy")
        if policy_field is not None:
            policy = _request_policy(policy_field, amount, bool(allow), owner, gated)
            if policy is not None:
                policies[key] = policy
    return Device(
        name,
        attributes,
        capacity,
        taints,
        consumes,
        node_name,
        selector,
        all_nodes,
        allow,
        policies,
        shown if allow else {},
        conditions,
        failure_conditions,
        binds_to_node,
    )


# ---------------------------------------------------------------------- binding conditions


def _binding_parameters(
    item: Field, needs: tuple[str, ...], owner: str, sink: list[GatedField]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A device's or an allocation result's bindingConditions and bindingFailureConditions
    (validateDeviceBindingParameters: at most 4 each, label names, no duplicates, no overlap, both
    or neither), kept while ``needs`` are on; the errors are said where they are kept."""
    keys = ("bindingConditions", "bindingFailureConditions")
    children = {key: child for key in keys if (child := item.get(key)) is not None}
    read: dict[str, tuple[str, ...]] = {}
    errors: dict[str, list[ScenarioError]] = {}
    for key, child in children.items():
        checked, errors[key] = _deferred(child)
        read[key] = _condition_names(checked, read.get(keys[0], ()) if key == keys[1] else ())
    conditions, failures = read.get(keys[0], ()), read.get(keys[1], ())
    for present, missing in (keys, reversed(keys)):
        if read.get(present) and not read.get(missing):
            where = (item.ctx.object, f"{item.path}.{missing}", item.line)
            message = f"Invalid value: []: {missing} are required to use {present}"
            errors[present].append(ScenarioError(*where, message, item.ctx.file))
    for key, child in children.items():
        deferred = tuple(DeferredError(error) for error in errors[key])
        sink.append(GatedField(needs, owner, child.path, child.line, child.ctx.file, deferred))
    return conditions, failures


def _condition_names(field: Field, conditions: tuple[str, ...]) -> tuple[str, ...]:
    """One list of condition names (errors into ``field``'s own list); ``conditions``: the binding
    conditions a failure condition must not repeat."""
    items = field.items()
    if len(items) > BINDING_CONDITIONS_MAX_SIZE:
        field.error(f"Too many: {len(items)}: must have at most {BINDING_CONDITIONS_MAX_SIZE} items")
    names: list[str] = []
    for entry in items:
        name = entry.as_str()
        if len(items) <= BINDING_CONDITIONS_MAX_SIZE:
            check(entry, name, is_qualified_name(name))
        if name in names:
            entry.error(f'Duplicate value: "{name[:80]}"')
        elif name in conditions:
            entry.error(
                f'invalid value "{name[:80]}": bindingFailureConditions must not overlap with bindingConditions'
            )
        names.append(name)
    return tuple(dict.fromkeys(names))


def _binds_to_node(item: Field, owner: str, sink: list[GatedField]) -> bool:
    """A device's bindsToNode: an allocation of it is for the node it was made for."""
    child = item.get("bindsToNode")
    if child is None:
        return False
    sink.append(GatedField(_BINDING, owner, child.path, child.line, child.ctx.file))
    return child.as_bool() is True


def _device_statuses(
    status: Field, allocation: Optional[AllocationResult], owner: str, sink: list[GatedField]
) -> tuple[AllocatedDeviceStatus, ...]:
    """status.devices (DRAResourceClaimDeviceStatus: kept while it is on): each entry names an
    allocated device (driver, pool, device, shareID) and carries the driver's conditions
    (validateDeviceStatus, metav1 ValidateConditions); errors are said where the field is kept."""
    field = status.get("devices")
    if field is None:
        return ()
    checked, errors = _deferred(field)
    allocated = {
        (result.driver, result.pool, result.device, result.share_id or "")
        for result in (allocation.results if allocation is not None else ())
    }
    found: list[AllocatedDeviceStatus] = []
    for item in checked.items():
        if not item.expect_map():
            continue
        ids = [item.get_str(key) for key in ("driver", "pool", "device")]
        for key, value in zip(("driver", "pool", "device"), ids):
            if not value:
                item.error_at(key, "Required value")
        share = item.get("shareID")
        share_id = share.as_str() if share is not None else None
        if all(ids) and (*ids, share_id or "") not in allocated:
            item.error(f'invalid value "{"/".join(ids)[:80]}": must be an allocated device in the claim')
        conditions = _conditions(item)
        found.append(AllocatedDeviceStatus(ids[0], ids[1], ids[2], share_id, conditions))
    deferred = tuple(DeferredError(error) for error in errors)
    sink.append(GatedField((DEVICE_STATUS,), owner, field.path, field.line, field.ctx.file, deferred))
    return tuple(found)


def _conditions(item: Field) -> tuple[DeviceCondition, ...]:
    """A device status's conditions (at most 8; metav1 ValidateCondition: a label name as type, a
    known status, a reason, a transition time; types unique)."""
    field = item.get("conditions")
    if field is None:
        return ()
    items = field.items()
    if len(items) > DEVICE_STATUS_MAX_CONDITIONS:
        field.error(f"Too many: {len(items)}: must have at most {DEVICE_STATUS_MAX_CONDITIONS} items")
    found: list[DeviceCondition] = []
    seen: set[str] = set()
    for entry in items:
        if not entry.expect_map():
            continue
        kind = entry.get_str("type")
        type_field = entry.get("type") or entry
        if kind in seen:
            type_field.error(f'Duplicate value: "{kind[:80]}"')
        seen.add(kind)
        check(type_field, kind, is_qualified_name(kind))
        status_field = entry.get("status") or entry
        check_str_enum(status_field, entry.get_str("status"), CONDITION_STATUSES)
        if read_time(entry.get("lastTransitionTime")) is None and not entry.get_str("lastTransitionTime"):
            entry.error_at("lastTransitionTime", "Required value")
        reason = entry.get_str("reason")
        if not reason:
            entry.error_at("reason", "Required value")
        elif not _CONDITION_REASON.match(reason) or len(reason) > CONDITION_REASON_MAX_LENGTH:
            (entry.get("reason") or entry).error(
                f'invalid value "{reason[:80]}": a condition reason must start with alphabetic character, '
                "optionally followed by a string of alphanumeric characters or '_,:', and must end with an "
                f"alphanumeric character or '_' (at most {CONDITION_REASON_MAX_LENGTH} characters)"
            )
        message = entry.get_str("message")
        if len(message) > CONDITION_MESSAGE_MAX_LENGTH:
            entry.error_at("message", f"Too long: may not be more than {CONDITION_MESSAGE_MAX_LENGTH} bytes")
        found.append(DeviceCondition(kind, entry.get_str("status"), reason, message))
    return tuple(found)


_CONDITION_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")


# ---------------------------------------------------------------------- consumable capacity


def _amount(field: Optional[Field]) -> Optional[Amount]:
    """A quantity with the text the API server writes it back as."""
    if field is None:
        return None
    value = read_quantity(field)
    if value is None:
        return None
    return Amount(value, canonical(value, quantity_format(field.value)))


def _request_policy(
    field: Field, capacity: Amount, allow: bool, owner: str, sink: list[GatedField]
) -> Optional[CapacityRequestPolicy]:
    """A capacity's requestPolicy (validateMultiAllocatableDeviceCapacity, or Forbidden on a device
    that does not allow multiple allocations), kept while DRAConsumableCapacity is on."""
    checked, errors = _deferred(field)
    policy = None
    if checked.expect_map():
        policy = _policy(checked, capacity, allow)
    deferred = tuple(DeferredError(error) for error in errors)
    sink.append(GatedField((CONSUMABLE,), owner, field.path, field.line, field.ctx.file, deferred))
    return policy


def _policy(field: Field, capacity: Amount, allow: bool) -> CapacityRequestPolicy:
    default = _amount(field.get("default"))
    values_field = field.get("validValues")
    value_items = values_field.items() if values_field is not None else []
    values = [_amount(item) for item in value_items]
    range_field = field.get_map("validRange")
    valid_range = None
    if range_field is not None:
        found_max, found_step = (_amount(range_field.get(key)) for key in ("max", "step"))
        valid_range = CapacityRange(
            _amount(range_field.get("min")),
            found_max.value if found_max is not None else None,
            found_step.value if found_step is not None else None,
        )
    if not allow:
        field.error("Forbidden: allowMultipleAllocations must be true")
    elif value_items and range_field is not None:
        field.error(
            'Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'
        )
    elif value_items and values_field is not None:
        if default is None:
            field.error_at("default", "Required value: required when validValues is defined")
        else:
            _check_valid_values(values_field, value_items, values, default, capacity)
    elif range_field is not None:
        if default is None:
            field.error_at("default", "Required value: required when validRange is defined")
        else:
            _check_valid_range(range_field, default, capacity)
    kept = tuple(value for value in values if value is not None)
    return CapacityRequestPolicy(default, kept, valid_range)


def _check_valid_values(
    field: Field, items: list[Field], values: list[Optional[Amount]], default: Amount, capacity: Amount
) -> None:
    """validateRequestPolicyValidValues: ascending, at most 10, each within the capacity, unique,
    and the default among them."""
    for index in range(len(values) - 1):
        this, following = values[index], values[index + 1]
        if this is not None and following is not None and this.value > following.value:
            items[index + 1].error(f'Invalid value: "{following.shown}": values must be sorted in ascending order')
    found_default = False
    if len(items) > POLICY_MAX_OPTIONS:
        field.error(f"Too many: {len(items)}: must have at most {POLICY_MAX_OPTIONS} items")
    else:
        for item, value in zip(items, values):
            if value is None:
                continue
            if value.value > capacity.value:
                item.error(f'Invalid value: "{value.shown}": option is larger than capacity value: {capacity.shown}')
            found_default = found_default or value.value == default.value
        _duplicates([(value.shown, item) for item, value in zip(items, values) if value is not None])
    if not found_default:
        field.error(f'Invalid value: "{default.shown}": default value is not valid according to the requestPolicy')


def _check_valid_range(field: Field, default: Amount, capacity: Amount) -> None:
    """validateRequestPolicyRange."""
    minimum_field = field.get("min")
    minimum = _amount(minimum_field)
    if minimum is None:
        if minimum_field is None:
            field.error_at("min", "Required value: required when validRange is defined")
        return
    if minimum.value > capacity.value:
        field.error_at("min", f'Invalid value: "{minimum.shown}": min is larger than capacity value: {capacity.shown}')
    if default.value < minimum.value:
        field.error_at("min", f'Invalid value: "{default.shown}": default is less than min: {minimum.shown}')
    maximum = _amount(field.get("max"))
    if maximum is not None:
        if minimum.value > maximum.value:
            field.error_at("max", f'Invalid value: "{minimum.shown}": min is larger than max: {maximum.shown}')
        if maximum.value > capacity.value:
            field.error_at(
                "max", f'Invalid value: "{maximum.shown}": max is larger than capacity value: {capacity.shown}'
            )
        if default.value > maximum.value:
            field.error_at("max", f'Invalid value: "{default.shown}": default is more than max: {maximum.shown}')
    step_field = field.get("step")
    step = _amount(step_field)
    if step is None or step_field is None:
        return
    added = canonical(minimum.value + step.value, quantity_format(minimum_field.value if minimum_field else ""))
    if minimum.value + step.value > capacity.value:
        field.error_at(
            "step", f'Invalid value: "{step.shown}": one step {added} is larger than capacity value: {capacity.shown}'
        )
    for checked in (default, maximum):
        if checked is not None and _off_step(checked.value, minimum.value, step.value):
            field.error_at(
                "step",
                f'Invalid value: "{checked.shown}": value is not a multiple of a given step ({step.shown}) '
                f"from ({minimum.shown})",
            )


def _off_step(value: Fraction, minimum: Fraction, step: Fraction) -> bool:
    """validateRequestPolicyRangeStep, in whole units as Quantity.Value rounds them (a step of 0
    would divide by zero in the API server; it is not said twice here)."""
    step_units = quantity.value(step)
    return step_units != 0 and (quantity.value(value) - quantity.value(minimum)) % step_units != 0


def _capacity_requests(field: Field, owner: str, sink: list[GatedField]) -> Optional[dict[str, Amount]]:
    """A request's ``capacity.requests`` (DRAConsumableCapacity: recorded, kept while it is on)."""
    _drop(field, _REQUEST_GATED, owner, sink)
    capacity = field.get_map("capacity")
    if capacity is None:
        return None
    requests = capacity.get_map("requests")
    found: dict[str, Amount] = {}
    for key, value in requests.entries() if requests is not None else ():
        check(value, key, dra_names.attribute_key(key))
        amount = _amount(value)
        if amount is not None:
            found[key] = amount
    return found


def _distinct_attribute(item: Field, match: Optional[Field], owner: str, sink: list[GatedField]) -> Optional[str]:
    """A constraint's distinctAttribute: validated while DRAConsumableCapacity keeps it; where the
    gate drops it, a constraint without matchAttribute is refused as one without either."""
    field = item.get("distinctAttribute")
    if field is None:
        return None
    checked, errors = _deferred(field)
    text = checked.as_str()
    if match is None:
        check(checked, text, dra_names.fully_qualified_name(text))
    required = (
        ()
        if match is not None
        else (
            DeferredError(
                ScenarioError(
                    item.ctx.object, f"{item.path}.matchAttribute", item.line, "Required value", item.ctx.file
                )
            ),
        )
    )
    deferred = tuple(DeferredError(error) for error in errors)
    sink.append(GatedField((CONSUMABLE,), owner, field.path, field.line, field.ctx.file, deferred, required))
    return text


def _no_constraint_attribute(item: Field, owner: str, sink: list[GatedField]) -> None:
    """validateDeviceConstraint on a constraint with neither attribute: where DRAConsumableCapacity
    is on, the constraint is refused for want of one of the two (in the release's own words);
    where it is off, for want of matchAttribute."""
    where = (item.ctx.object, item.path, item.line)
    both = ScenarioError(
        *where,
        'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields '
        "are set",
        item.ctx.file,
    )
    match = ScenarioError(item.ctx.object, f"{item.path}.matchAttribute", item.line, "Required value", item.ctx.file)
    sink.append(
        GatedField(
            (CONSUMABLE,),
            owner,
            item.path,
            item.line,
            item.ctx.file,
            (DeferredError(both),),
            (DeferredError(match),),
            False,
        )
    )


def _share_id(item: Field, owner: str, sink: list[GatedField]) -> Optional[str]:
    """An allocation result's shareID (validateUID: RFC 4122 normalized form), kept while
    DRAConsumableCapacity is on."""
    field = item.get("shareID")
    if field is None:
        return None
    checked, errors = _deferred(field)
    text = checked.as_str()
    problem = _uid_problem(text)
    if problem:
        checked.error(f'Invalid value: "{text[:80]}": {problem}')
    deferred = tuple(DeferredError(error) for error in errors)
    sink.append(GatedField((CONSUMABLE,), owner, field.path, field.line, field.ctx.file, deferred))
    return text


_UUID_FORMS = {36: 0, 38: 1, 45: 9}  # with hyphens: bare, {braces}, urn:uuid: (uuid.Validate)


def _uid_problem(text: str) -> str:
    """validateUID's complaint about ``text``, or ""."""
    if len(text) not in (32, 36, 38, 45):
        return f"error validating uid: invalid UUID length: {len(text)}"
    hexdigits = set("0123456789abcdefABCDEF")
    start = _UUID_FORMS.get(len(text), 0)
    body = text[start : start + 36] if len(text) != 32 else text
    if len(text) == 32:
        ok = all(c in hexdigits for c in body)
    else:
        ok = all(body[i] == "-" if i in (8, 13, 18, 23) else body[i] in hexdigits for i in range(36))
    if not ok:
        return "error validating uid: invalid UUID format"
    if len(text) != 36 or text != text.lower():
        return "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters"
    return ""


def _attribute(value: Field) -> Optional[AttributeValue]:
    """DeviceAttribute: exactly one of int, bool, string, version."""
    if not value.expect_map():
        return None
    present = [key for key in ATTRIBUTE_TYPES if value.get(key) is not None]
    if len(present) != 1:
        value.error("exactly one value must be specified (int, bool, string, version)")
        return None
    kind = present[0]
    child = value.get(kind)
    assert child is not None  # present above
    if kind == "int":
        return child.as_int()
    if kind == "bool":
        return child.as_bool()
    if not isinstance(child.value, str):
        child.as_str()  # reports the wrong type once
        return None
    text = child.value
    if len(text) > ATTRIBUTE_VALUE_MAX_LENGTH:
        child.error(dra_names.too_long(ATTRIBUTE_VALUE_MAX_LENGTH))
    if kind == "version":
        if parse_semver(text) is None:
            child.error(f'Invalid value: "{text[:80]}": must be a string compatible with semver.org spec 2.0.0')
        return Version(text)
    return text


# ---------------------------------------------------------------------- claims


def _claim_spec(spec: Field, owner: str, gated: list[GatedField], v1beta1: bool = False) -> ClaimSpec:
    devices = spec.get_map("devices")
    if devices is None:
        return ClaimSpec()
    requests = []
    items = [item for item in _bounded_list(devices, "requests", MAX_LIST_SIZE) if item.expect_map()]
    for item in items:
        requests.append(_request(item, owner, gated, v1beta1))
    _duplicates([(request.name, item.get("name") or item) for request, item in zip(requests, items) if request.name])
    # gatherRequestNames: each request with its subrequests' names (none for `exactly`).
    names = {request.name: tuple(sub.name for sub in request.first_available) for request in requests}
    constraints = []
    for item in _bounded_list(devices, "constraints", MAX_LIST_SIZE):
        if not item.expect_map():
            continue
        referenced = _request_references(item, names)
        match = item.get("matchAttribute")
        distinct = _distinct_attribute(item, match, owner, gated)
        if match is not None:
            check(match, match.as_str(), dra_names.fully_qualified_name(match.as_str()))
        elif distinct is None:
            _no_constraint_attribute(item, owner, gated)
        constraints.append(DeviceConstraint(referenced, match.as_str() if match is not None else None, distinct))
    return ClaimSpec(tuple(requests), tuple(constraints), len(_configs(devices, names)))


def _exactly(item: Field, v1beta1: bool) -> Optional[Field]:
    """A request's ExactDeviceRequest: its `exactly`; in v1beta1 the request itself when any of its
    fields is written there (conversion's hasAnyMainRequestFieldsSet: deviceClassName and the rest
    sit beside the name)."""
    if not v1beta1:
        return item.get_map("exactly")
    return item if any(_main_field_set(item, key) for key in _V1BETA1_EXACT_KEYS) else None


def _main_field_set(item: Field, key: str) -> bool:
    """A v1beta1 request's field that makes it an exact request: a non-empty string or a non-zero
    count; adminAccess, selectors and tolerations whenever written (Go's pointer and slices: an
    explicit false or [] counts)."""
    field = item.get(key)
    if field is None or field.value is None:
        return False
    if key in ("deviceClassName", "allocationMode"):
        return bool(field.value != "")
    if key == "count":
        return bool(field.value != 0)
    return True


def _request(item: Field, owner: str, gated: list[GatedField], v1beta1: bool = False) -> DeviceRequest:
    name = _required_name(item, "name", is_dns1123_label)
    exactly = _exactly(item, v1beta1)
    first = item.get_list("firstAvailable")
    if exactly is None and not first:
        item.error(f"Required value: {_ONE_KIND_OF_REQUEST}")
    if first:
        _gate_first_available(item, exactly is not None, owner, gated)
    subs = _first_available(item, first, owner, gated)
    if exactly is not None:
        capacity = _capacity_requests(exactly, owner, gated)
        class_name, selectors, mode, count = _exact_fields(exactly, owner, gated)
        tolerations = _tolerations(exactly, owner, gated)
        admin = exactly.get("adminAccess")
        _drop(exactly, _EXACT_GATED, owner, gated)
        exact = ExactRequest(
            class_name, selectors, mode, count, admin.as_bool() if admin is not None else None, tolerations, capacity
        )
        return DeviceRequest(name, exact, subs)  # with subrequests too only where firstAvailable is dropped
    return DeviceRequest(name, None, subs)


def _gate_first_available(item: Field, exact: bool, owner: str, gated: list[GatedField]) -> None:
    """A request's firstAvailable, kept only while DRAPrioritizedList is on: kept beside exact
    fields it is refused; dropped from a request without them, the request is refused for having
    neither (v1.32's v1beta1 request: for its missing deviceClassName)."""
    field = item.get("firstAvailable")
    assert field is not None
    at = item.ctx.object, item.path, item.line
    if exact:
        both = ScenarioError(
            *at, f"Invalid value: null: {_ONE_KIND_OF_REQUEST}, but multiple fields are set", item.ctx.file
        )
        gated.append(
            GatedField((PRIORITIZED_LIST,), owner, field.path, field.line, field.ctx.file, (DeferredError(both),))
        )
        return
    neither = ScenarioError(*at, f"Required value: {_ONE_KIND_OF_REQUEST}", item.ctx.file)
    no_class = ScenarioError(
        item.ctx.object, f"{item.path}.deviceClassName", item.line, "Required value", item.ctx.file
    )
    when_dropped = (DeferredError(neither, FIRST_AVAILABLE_SINCE), DeferredError(no_class, 0, FIRST_AVAILABLE_SINCE))
    gated.append(GatedField((PRIORITIZED_LIST,), owner, field.path, field.line, field.ctx.file, (), when_dropped))


def _first_available(item: Field, first: list[Field], owner: str, gated: list[GatedField]) -> tuple[SubRequest, ...]:
    if len(first) > FIRST_AVAILABLE_MAX_SIZE:
        item.error_at("firstAvailable", f"Too many: {len(first)}: must have at most {FIRST_AVAILABLE_MAX_SIZE} items")
        first = []
    subs = []
    named: list[tuple[str, Field]] = []
    for sub in first:
        if not sub.expect_map():
            continue
        capacity = _capacity_requests(sub, owner, gated)
        sub_name = _required_name(sub, "name", is_dns1123_label)
        class_name, selectors, mode, count = _exact_fields(sub, owner, gated)
        tolerations = _tolerations(sub, owner, gated)
        subs.append(SubRequest(sub_name, class_name, selectors, mode, count, tolerations, capacity))
        if sub_name:
            named.append((sub_name, sub.get("name") or sub))
    _duplicates(named)
    return tuple(subs)


def _exact_fields(field: Field, owner: str, gated: list[GatedField]) -> tuple[str, tuple[str, ...], str, int]:
    """deviceClassName (required), selectors, allocationMode (default ExactCount), count (default 1)."""
    class_name = _required_name(field, "deviceClassName", is_dns1123_subdomain)
    mode_field = field.get("allocationMode")
    mode = mode_field.as_str() if mode_field is not None else ALLOCATION_MODE_EXACT_COUNT
    if mode_field is not None and not check_str_enum(mode_field, mode, ALLOCATION_MODES):
        mode = ALLOCATION_MODE_EXACT_COUNT
    count_field = field.get("count")
    count = 1
    if mode == ALLOCATION_MODE_EXACT_COUNT and count_field is not None:
        # validateDeviceAllocationMode: positive, no upper bound (the allocator refuses more than
        # AllocationResultsMaxSize devices at scheduling time, with its own error).
        count = count_field.as_int(1)
        if count <= 0:
            count_field.error(f"Invalid value: {count}: must be greater than zero")
            count = 1
    elif count_field is not None and mode == ALLOCATION_MODE_ALL:
        count_field.error("Invalid value: must not be specified when allocationMode is 'All'")
    return class_name, _selectors(field, owner, gated), mode, count


def _resource_claim(
    obj: Field, meta: Metadata, doc_index: int, gated: list[GatedField], v1beta1: bool = False
) -> ResourceClaim:
    owner = f"ResourceClaim {meta.namespace}/{meta.name}"
    metadata = obj.get_map("metadata")
    finalizers = tuple(name for name, _ in metadata.get_str_list("finalizers")) if metadata is not None else ()
    terminating = metadata is not None and read_time(metadata.get("deletionTimestamp")) is not None
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
    claim_spec = _claim_spec(spec, owner, gated, v1beta1) if spec is not None else ClaimSpec()
    names = {request.name: tuple(sub.name for sub in request.first_available) for request in claim_spec.requests}
    allocation, reserved, device_statuses = _claim_status(obj.get_map("status"), names, owner, gated)
    uid = meta.uid or f"uid-resourceclaim-{meta.namespace}-{meta.name}"  # the API server always sets one
    return ResourceClaim(
        meta.namespace,
        meta.name,
        uid,
        dict(meta.labels),
        storage.read_annotations(obj),
        owner_references(obj),
        finalizers,
        terminating,
        claim_spec,
        allocation,
        reserved,
        doc_index,
        obj.line,
        device_statuses=device_statuses,
    )


def _claim_status(
    status: Optional[Field], names: dict[str, tuple[str, ...]], owner: str, gated: list[GatedField]
) -> tuple[Optional[AllocationResult], tuple[ConsumerRef, ...], tuple[AllocatedDeviceStatus, ...]]:
    """validateResourceClaimStatusUpdate: reservedFor (at most 256, unique by uid), the
    allocation (at most 32 results, each naming a request of the claim) and the device statuses."""
    if status is None:
        return None, (), ()
    allocation = None
    allocation_field = status.get_map("allocation")
    if allocation_field is not None:
        devices = allocation_field.get_map("devices")
        results = []
        listed = _bounded_list(devices, "results", ALLOCATION_RESULTS_MAX_SIZE) if devices is not None else []
        for item in listed:
            if not item.expect_map():
                continue
            _drop(item, _RESULT_GATED, owner, gated)
            for key in ("driver", "pool", "device"):
                if not item.get_str(key):
                    item.error_at(key, "Required value")
            request = item.get("request")
            if request is None or not request.as_str():
                item.error_at("request", "Required value")
            else:
                check(request, request.as_str(), dra_names.request_reference(request.as_str(), names))
            admin = item.get("adminAccess")
            conditions, failure_conditions = _binding_parameters(item, (BINDING_CONDITIONS,), owner, gated)
            results.append(
                DeviceResult(
                    item.get_str("request"),
                    item.get_str("driver"),
                    item.get_str("pool"),
                    item.get_str("device"),
                    admin.as_bool() if admin is not None else None,
                    _share_id(item, owner, gated),
                    _consumed_capacity(item.get_map("consumedCapacity")),
                    conditions or None,
                    failure_conditions or None,
                )
            )
        selector_field = allocation_field.get("nodeSelector")
        selector = node_selector(selector_field) if selector_field is not None else None
        timestamp = read_time(allocation_field.get("allocationTimestamp"))
        allocation = AllocationResult(tuple(results), selector, timestamp)
    reserved = []
    consumers = [item for item in _bounded_list(status, "reservedFor", RESERVED_FOR_MAX_SIZE) if item.expect_map()]
    _duplicates([(item.get_str("uid"), item) for item in consumers if item.get_str("uid")])
    for item in consumers:
        for key in ("resource", "name", "uid"):
            if not item.get_str(key):
                item.error_at(key, "Required value")
        reserved.append(
            ConsumerRef(item.get_str("resource"), item.get_str("name"), item.get_str("uid"), item.get_str("apiGroup"))
        )
    if reserved and allocation is None:
        status.error_at("reservedFor", "Forbidden: may not be specified when `allocated` is not set")
    return allocation, tuple(reserved), _device_statuses(status, allocation, owner, gated)


def _consumed_capacity(field: Optional[Field]) -> Optional[dict[str, str]]:
    """A result's consumedCapacity, each quantity as the API server writes it back."""
    if field is None:
        return None
    found = {}
    for key, value in field.entries():
        amount = _amount(value)
        if amount is not None:
            found[key] = amount.shown
    return found


# ---------------------------------------------------------------------- the release's gates


TAINT_RULE_KIND = "DeviceTaintRule"  # resource.k8s.io/v1beta2 (v1alpha3 in v1.35)


@dataclass(frozen=True, slots=True)
class TaintRule:
    """A DeviceTaintRule (DRADeviceTaintRules): its taint added to every device its selector
    matches (driver, pool, device: each when set), as the scheduler's ResourceSlice tracker
    patches the slices it lists (resourceslice/tracker: applyPatches)."""

    taint: DeviceTaint
    driver: Optional[str] = None
    pool: Optional[str] = None
    device: Optional[str] = None
    errors: tuple[DeferredError, ...] = ()  # ValidateDeviceTaintRule, said where the gate is on

    def matches(self, slice_: ResourceSlice, device: Device) -> bool:
        return (
            (self.driver is None or self.driver == slice_.driver)
            and (self.pool is None or self.pool == slice_.pool)
            and (self.device is None or self.device == device.name)
        )


def taint_rule(obj: Field, object_name: str) -> TaintRule:
    """A DeviceTaintRule as read; its validation (ValidateDeviceTaintRule: name, deviceSelector's
    driver, pool and device, the taint as a device's) deferred: the scheduler reads the rules only
    while DRADeviceTaintRules is on."""
    errors: list[ScenarioError] = []
    checked = Field(obj.value, "", obj.line, Context(object_name, errors, obj.ctx.file))
    deferred: list[DeferredError] = []
    metadata = checked.get_map("metadata")
    if metadata is not None:
        _required_name(metadata, "name", is_dns1123_subdomain)
    spec = checked.get_map("spec")
    if spec is None:
        checked.error_at("spec", "Required value")
    selector = spec.get_map("deviceSelector") if spec is not None else None
    found: dict[str, Optional[str]] = {}
    for key, validate in (
        ("driver", dra_names.driver_name),
        ("pool", dra_names.pool_name),
        ("device", is_dns1123_label),
    ):
        child = selector.get(key) if selector is not None else None
        found[key] = child.as_str() if child is not None else None
        value = found[key]
        if child is not None and value is not None:
            if not value:
                child.error("Required value")
            else:
                check(child, value, validate(value))
    taint_field = spec.get_map("taint") if spec is not None else None
    if taint_field is None:
        if spec is not None:
            spec.error_at("taint", "Required value")
        taint = DeviceTaint("", "", "")
    else:
        key = _required_name(taint_field, "key", is_qualified_name)
        value = taint_field.get_str("value")
        if value:
            check(taint_field.get("value"), value, is_label_value(value))  # type: ignore[arg-type]
        taint = DeviceTaint(key, value, _effect(taint_field, True, deferred))
    deferred.extend(DeferredError(error) for error in errors)
    return TaintRule(taint, found["driver"], found["pool"], found["device"], tuple(deferred))


def _with_rule_taints(slices: list[ResourceSlice], rules: tuple[TaintRule, ...]) -> list[ResourceSlice]:
    """The slices as the scheduler lists them with DeviceTaintRules (ListWithDeviceTaintRules): each
    matching rule's taint appended to a device's own, in the rules' order."""
    patched = []
    for slice_ in slices:
        devices = []
        for device in slice_.devices:
            added = tuple(rule.taint for rule in rules if rule.matches(slice_, device))
            devices.append(replace(device, taints=device.taints + added) if added else device)
        changed = any(new is not old for new, old in zip(devices, slice_.devices))
        patched.append(replace(slice_, devices=tuple(devices)) if changed else slice_)
    return patched


@dataclass(frozen=True, slots=True)
class DraReading:
    """The resource.k8s.io objects as read, before any release's API server settled their gated
    fields, with what a release may refuse: kept so the scenario can be replayed as another release
    (an upgrade comparison) exactly as a load under that release would have it."""

    objects: DraObjects  # every gated field that the model holds kept (device taints, tolerations)
    gated: tuple[GatedField, ...] = ()
    taint_rules: tuple[TaintRule, ...] = ()  # the DeviceTaintRule objects
    class_resources: tuple[tuple[ScenarioError, str], ...] = ()  # pods' deviceclass.resource... requests


def settle(reading: DraReading, rules: Rules) -> tuple[DraObjects, list[str], list[ScenarioError]]:
    """The objects as ``rules``' API server stores them (gated fields dropped on create while their
    gate is off: device taints and request tolerations taken out while DRADeviceTaints is off), the
    dropped fields ("Kind name: path (Gate)", for the notice), and the errors: validation of kept
    fields and of DeviceTaintRules (whose taints the devices they select get while
    DRADeviceTaintRules is on), a refusal for each kept field of a feature SchedLab does not
    replay, and for each pod request of the extended resource of a DeviceClass the scenario has
    while DRAExtendedResource is on before v1.36 (alpha: not replayed)."""
    dropped: list[str] = []
    errors: list[ScenarioError] = []
    minor = rules.release.minor
    for item in reading.gated:
        off = [gate for gate in item.needs if not rules.gates.enabled(gate)]
        if off:
            # the gate that drops it; a field of a gate the release does not have yet is not a field
            # its API server knows either: the notice of unknown fields names it
            if item.drops and rules.gates.known(off[0]):
                dropped.append(f"{item.object}: {item.path} ({off[0]})")
            errors.extend(deferred.error for deferred in item.when_dropped if deferred.applies(minor))
        elif _replayed(item.gate, minor):
            errors.extend(deferred.error for deferred in item.errors if deferred.applies(minor))
        else:
            message = not_replayed(item.gate, rules, _NOT_REPLAYED_USES.get(item.gate, _USES))
            errors.append(ScenarioError(item.object, item.path, item.line, message, item.file))
    if rules.gates.enabled(TAINT_RULES):
        for rule in reading.taint_rules:
            errors.extend(deferred.error for deferred in rule.errors if deferred.applies(minor))
    if rules.gates.enabled(EXTENDED_RESOURCE) and not _replayed(EXTENDED_RESOURCE, minor):
        classes = {device_class.name for device_class in reading.objects.classes}
        for located, name in reading.class_resources:
            if name[len(DEVICE_CLASS_PREFIX) :] not in classes:
                continue  # no class stands for it (DeviceClassResolver): NodeResourcesFit checks it as before
            uses = f"where the scheduler meets a request for {name} with devices of that class"
            errors.append(replace(located, message=not_replayed(EXTENDED_RESOURCE, rules, uses)))
    objects = reading.objects
    settled = DraObjects(list(objects.classes), list(objects.slices), list(objects.claims), list(objects.templates))
    if not rules.gates.enabled(DEVICE_TAINTS):
        _without_taints(settled)
    if not rules.gates.enabled(PARTITIONABLE):
        settled.slices = [_without_partitionable(slice_) for slice_ in settled.slices]
    if not rules.gates.enabled(CONSUMABLE):
        _without_consumable(settled)
    if not rules.gates.enabled(EXTENDED_RESOURCE):
        settled.classes = [replace(c, extended_resource_name=None) for c in settled.classes]
    if not rules.gates.enabled(PRIORITIZED_LIST):
        _each_spec(settled, _spec_without_first_available)
    if not rules.gates.enabled(ADMIN_ACCESS):
        _without_admin_access(settled)
    _without_disabled_binding(settled, rules)
    if rules.gates.enabled(TAINT_RULES) and reading.taint_rules:
        settled.slices = _with_rule_taints(settled.slices, reading.taint_rules)
    if not rules.features.enable_dynamic_resource_allocation:
        # No DRA API is served and no DynamicResources runs (v1.32 and v1.33 by default): the
        # objects are read for what SchedLab shows of them and nothing of theirs is refused (the
        # finding dra-off names the pods whose claims the replay then ignores).
        return settled, dropped, []
    return settled, dropped, errors


def untolerated_no_execute(objects: DraObjects) -> list[tuple[str, str]]:
    """(claim key, consumer pod name) for each pod an allocated claim is reserved for whose devices
    carry a NoExecute taint the request's tolerations do not tolerate: the pods kube-controller-
    manager's device taint eviction controller (DRADeviceTaints on) would evict. The objects are
    as ``settle`` leaves them (rule taints added, taints gone while the gate is off)."""
    devices = {
        (slice_.driver, slice_.pool, device.name): device for slice_ in objects.slices for device in slice_.devices
    }
    found: list[tuple[str, str]] = []
    for claim in objects.claims:
        if claim.allocation is None or not claim.reserved_for:
            continue
        if any(
            _evicts(devices.get(result.device_id), _result_tolerations(claim, result.request))
            for result in claim.allocation.results
        ):
            found.extend((claim.key, consumer.name) for consumer in claim.reserved_for if consumer.resource == "pods")
    return found


def _evicts(device: Optional[Device], tolerations: tuple[DeviceToleration, ...]) -> bool:
    return device is not None and any(
        taint.effect == TAINT_EFFECT_NO_EXECUTE and not any(t.tolerates(taint) for t in tolerations)
        for taint in device.taints
    )


def _result_tolerations(claim: ResourceClaim, request_name: str) -> tuple[DeviceToleration, ...]:
    """The tolerations of the request a result names ("request" or "request/subrequest"), as the
    allocation result copies them."""
    name, _, sub = request_name.partition("/")
    for request in claim.spec.requests:
        if request.name != name:
            continue
        if request.exactly is not None and not sub:
            return request.exactly.tolerations
        return next((alt.tolerations for alt in request.first_available if alt.name == sub), ())
    return ()


_USES = "where the API server keeps this field and the scheduler uses it"
_NOT_REPLAYED_USES = {
    PARTITIONABLE: _USES + " (SchedLab replays it from v1.35, whose counter sets have slices of their own)",
    CONSUMABLE: _USES + " (SchedLab replays it from v1.36, where it is on by default)",
}


def _replayed(gate: str, minor: int) -> bool:
    since = REPLAYED_GATES.get(gate)
    return since is not None and minor >= since


def _without_partitionable(slice_: ResourceSlice) -> ResourceSlice:
    """The slice as the API server stores it while DRAPartitionableDevices is off: no counter sets,
    no per-device node selection, no counters consumed (then GatherPools reads it as any other)."""
    if not slice_.partitionable and not any(
        device.consumes_counters or device.node_name or device.node_selector is not None or device.all_nodes
        for device in slice_.devices
    ):
        return slice_
    devices = tuple(
        replace(device, consumes_counters=(), node_name="", node_selector=None, all_nodes=False)
        for device in slice_.devices
    )
    return replace(slice_, devices=devices, shared_counters=(), per_device_node_selection=False, partitionable=False)


def not_replayed(gate: str, rules: Rules, uses: str = _USES) -> str:
    """Why a field of ``gate`` (on in ``rules``) refuses the scenario (``uses``: what the release
    does with it), and the two ways out."""
    release = rules.release
    asked = rules.gates.overrides.get(gate) is True
    where = f"{release.name} with --feature-gates {gate}=true" if asked else release.name
    if asked:
        remedy = f"leave {gate}=true out of --feature-gates"
        replayed_from = [r for r in SUPPORTED_RELEASES if r.minor == REPLAYED_GATES.get(gate)]
        if replayed_from:
            remedy += f", or replay as --release {replayed_from[0].name}"
    else:
        older = [r for r in SUPPORTED_RELEASES if r.minor < release.minor and not _default_on(gate, r.minor)]
        remedy = f"pass --feature-gates {gate}=false"
        if older:
            newest = max(older, key=lambda r: r.minor)
            remedy = f"replay as --release {newest.name} or " + remedy
    return f"SchedLab does not replay {gate} yet: the gate is on in {where}, {uses}; {remedy}"


def _default_on(gate: str, minor: int) -> bool:
    spec = spec_at(gate, minor)
    return spec is not None and spec.default


def _without_taints(objects: DraObjects) -> None:
    """The objects as the API server stores them while DRADeviceTaints is off: no device taints,
    no request tolerations."""
    objects.slices = [
        replace(slice_, devices=tuple(replace(d, taints=()) if d.taints else d for d in slice_.devices))
        if any(d.taints for d in slice_.devices)
        else slice_
        for slice_ in objects.slices
    ]
    _each_spec(objects, lambda spec: _spec_without_tolerations(spec) if _tolerates(spec) else spec)


def _each_spec(objects: DraObjects, change: Callable[[ClaimSpec], ClaimSpec]) -> None:
    """Every claim's and template's spec through ``change`` (which returns a spec it leaves as is)."""
    objects.claims = [
        claim if (spec := change(claim.spec)) is claim.spec else replace(claim, spec=spec) for claim in objects.claims
    ]
    objects.templates = [
        template if (spec := change(template.spec)) is template.spec else replace(template, spec=spec)
        for template in objects.templates
    ]


def _spec_without_first_available(spec: ClaimSpec) -> ClaimSpec:
    """The spec as the API server stores it while DRAPrioritizedList is off: no request's
    firstAvailable (a request left without exact fields was refused)."""
    if not any(request.first_available for request in spec.requests):
        return spec
    requests = tuple(replace(request, first_available=()) for request in spec.requests)
    return replace(spec, requests=requests)


def _without_admin_access(objects: DraObjects) -> None:
    """The objects as the API server stores them while DRAAdminAccess is off: no request's
    adminAccess, none in an allocation's results (dropDisabledDRAAdminAccessFields)."""
    _each_spec(objects, _spec_without_admin_access)
    objects.claims = [_claim_without_admin_results(claim) for claim in objects.claims]


def _spec_without_admin_access(spec: ClaimSpec) -> ClaimSpec:
    if not any(r.exactly is not None and r.exactly.admin_access is not None for r in spec.requests):
        return spec
    requests = tuple(
        replace(r, exactly=replace(r.exactly, admin_access=None)) if r.exactly is not None else r for r in spec.requests
    )
    return replace(spec, requests=requests)


def _claim_without_admin_results(claim: ResourceClaim) -> ResourceClaim:
    allocation = claim.allocation
    if allocation is None or all(result.admin_access is None for result in allocation.results):
        return claim
    results = tuple(msgspec.structs.replace(result, admin_access=None) for result in allocation.results)
    return replace(claim, allocation=replace(allocation, results=results))


def _without_disabled_binding(objects: DraObjects, rules: Rules) -> None:
    """The objects as the API server stores them where DRADeviceBindingConditions (for a device's
    fields: with DRAResourceClaimDeviceStatus) or DRAResourceClaimDeviceStatus (a claim's device
    statuses) is off: those fields dropped."""
    gates = rules.gates
    if not all(gates.enabled(gate) for gate in _BINDING):
        objects.slices = [
            replace(
                slice_,
                devices=tuple(
                    replace(d, binding_conditions=(), binding_failure_conditions=(), binds_to_node=False)
                    for d in slice_.devices
                ),
            )
            if any(d.binding_conditions or d.binding_failure_conditions or d.binds_to_node for d in slice_.devices)
            else slice_
            for slice_ in objects.slices
        ]
    results_kept, statuses_kept = gates.enabled(BINDING_CONDITIONS), gates.enabled(DEVICE_STATUS)
    objects.claims = [_claim_as_kept(claim, results_kept, statuses_kept) for claim in objects.claims]


def _claim_as_kept(claim: ResourceClaim, results_kept: bool, statuses_kept: bool) -> ResourceClaim:
    allocation = claim.allocation
    if not results_kept and allocation is not None and allocation.binds_with_conditions:
        results = tuple(
            msgspec.structs.replace(result, binding_conditions=None, binding_failure_conditions=None)
            for result in allocation.results
        )
        claim = replace(claim, allocation=replace(allocation, results=results))
    if not statuses_kept and claim.device_statuses:
        claim = replace(claim, device_statuses=())
    return claim


def _without_consumable(objects: DraObjects) -> None:
    """The objects as the API server stores them while DRAConsumableCapacity is off: no shared
    devices or request policies, no capacity requests, no distinctAttribute, no shareID or
    consumedCapacity in allocations."""
    objects.slices = [_slice_without_sharing(slice_) for slice_ in objects.slices]
    objects.claims = [_claim_without_sharing(claim) for claim in objects.claims]
    objects.templates = [
        replace(template, spec=spec)
        if (spec := _spec_without_sharing(template.spec)) is not template.spec
        else template
        for template in objects.templates
    ]


def _claim_without_sharing(claim: ResourceClaim) -> ResourceClaim:
    spec, allocation = _spec_without_sharing(claim.spec), _allocation_without_shares(claim.allocation)
    if spec is claim.spec and allocation is claim.allocation:
        return claim
    return replace(claim, spec=spec, allocation=allocation)


def _slice_without_sharing(slice_: ResourceSlice) -> ResourceSlice:
    if not any(d.allow_multiple_allocations is not None or d.request_policies for d in slice_.devices):
        return slice_
    devices = tuple(
        replace(d, allow_multiple_allocations=None, request_policies={}, capacity_shown={}) for d in slice_.devices
    )
    return replace(slice_, devices=devices)


def _spec_without_sharing(spec: ClaimSpec) -> ClaimSpec:
    uses = any(c.distinct_attribute is not None for c in spec.constraints) or any(
        (request.exactly is not None and request.exactly.capacity is not None)
        or any(sub.capacity is not None for sub in request.first_available)
        for request in spec.requests
    )
    if not uses:
        return spec
    requests = tuple(
        replace(
            request,
            exactly=replace(request.exactly, capacity=None) if request.exactly is not None else None,
            first_available=tuple(replace(sub, capacity=None) for sub in request.first_available),
        )
        for request in spec.requests
    )
    constraints = tuple(replace(c, distinct_attribute=None) for c in spec.constraints)
    return replace(spec, requests=requests, constraints=constraints)


def _allocation_without_shares(allocation: Optional[AllocationResult]) -> Optional[AllocationResult]:
    if allocation is None or not any(
        r.share_id is not None or r.consumed_capacity is not None for r in allocation.results
    ):
        return allocation
    results = tuple(msgspec.structs.replace(r, share_id=None, consumed_capacity=None) for r in allocation.results)
    return replace(allocation, results=results)


def _tolerates(spec: ClaimSpec) -> bool:
    return any(
        (request.exactly is not None and request.exactly.tolerations)
        or any(sub.tolerations for sub in request.first_available)
        for request in spec.requests
    )


def _spec_without_tolerations(spec: ClaimSpec) -> ClaimSpec:
    requests = tuple(
        replace(
            request,
            exactly=replace(request.exactly, tolerations=()) if request.exactly is not None else None,
            first_available=tuple(replace(sub, tolerations=()) for sub in request.first_available),
        )
        for request in spec.requests
    )
    return replace(spec, requests=requests)


def class_resource_requests(pod: Pod) -> list[tuple[str, str]]:
    """(path, resource) of each container's request or limit of a deviceclass.resource.kubernetes.io/
    name: the extended resource every DeviceClass stands for while DRAExtendedResource is on."""
    found = []
    for group, containers in (("initContainers", pod.init_containers), ("containers", pod.containers)):
        for index, container in enumerate(containers):
            for what, resources in (("requests", container.requests), ("limits", container.limits)):
                for name in resources:
                    if name.startswith(DEVICE_CLASS_PREFIX):
                        found.append((f"spec.{group}[{index}].resources.{what}.{name}", name))
    return found


def replayed_as(scenario: Scenario, choice: ReleaseChoice) -> Scenario:
    """``scenario`` replayed as ``choice``'s release: its pods' gated fields and its DRA objects
    settled again as that release's API server stores them (``pods_as_released``, ``settle``);
    ScenarioInvalid when that release refuses a pod field or keeps a field SchedLab does not
    replay, as a load under it would be refused."""
    pods, errors = pods_as_released(scenario.pods, scenario.gated_pods, choice.rules.gates)
    reading = scenario.dra_reading
    if not isinstance(reading, DraReading):  # a scenario not made by the loader
        if errors:
            raise ScenarioInvalid(errors)
        return dataclasses.replace(scenario, pods=pods, release=choice)
    objects, _, dra_errors = settle(reading, choice.rules)
    if errors or dra_errors:
        raise ScenarioInvalid(errors + dra_errors)
    return dataclasses.replace(scenario, pods=pods, dra=objects, release=choice)
