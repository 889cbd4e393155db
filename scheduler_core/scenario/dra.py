"""resource.k8s.io/v1 objects -> model: DeviceClass, ResourceSlice, ResourceClaimTemplate and
ResourceClaim as ``kubectl get -o yaml`` writes them, with the API server's defaulting (an
``exactly`` request without ``allocationMode`` is ExactCount, ``count`` then 1) and the validation
that would make it refuse them (pkg/apis/resource/validation), each error located.

Fields of features that are off by default in v1.35.4 are dropped, as the API server drops them
when their gate is off, and named in a notice (``dropped``): DRAPartitionableDevices
(sharedCounters, consumesCounters, perDeviceNodeSelection and per-device node selection),
DRADeviceTaints (device taints, request tolerations), DRAConsumableCapacity
(allowMultipleAllocations, capacity requestPolicy, request capacity, distinctAttribute),
DRAExtendedResource (a class's extendedResourceName) and DRADeviceBindingConditions
(bindingConditions, bindingFailureConditions, bindsToNode).
"""

from __future__ import annotations

from typing import Callable, Optional

from scheduler_core.dra.cel import compile_selector, parse_semver
from scheduler_core.model import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_MODES,
    ALLOCATION_RESULTS_MAX_SIZE,
    FIRST_AVAILABLE_MAX_SIZE,
    AllocationResult,
    AttributeValue,
    ClaimSpec,
    ConsumerRef,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceResult,
    DraObjects,
    ExactRequest,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    SubRequest,
    Version,
)
from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.pods import owner_references, read_time
from scheduler_core.scenario.selectors import node_selector
from scheduler_core.scenario import storage
from scheduler_core.scenario.validation import check, check_str_enum, is_dns1123_label, is_dns1123_subdomain, \
    read_quantity

API_VERSION = "resource.k8s.io/v1"
KINDS = {"DeviceClass": False, "ResourceSlice": False, "ResourceClaimTemplate": True, "ResourceClaim": True}
ATTRIBUTE_TYPES = ("int", "bool", "string", "version")
MAX_DEVICES_PER_SLICE = 128  # resourceapi.ResourceSliceMaxDevices

# (field, feature gate) pairs the API server drops while the gate is off.
_SLICE_GATED = (("sharedCounters", "DRAPartitionableDevices"), ("perDeviceNodeSelection", "DRAPartitionableDevices"))
_DEVICE_GATED = (("consumesCounters", "DRAPartitionableDevices"), ("nodeName", "DRAPartitionableDevices"),
                 ("nodeSelector", "DRAPartitionableDevices"), ("allNodes", "DRAPartitionableDevices"),
                 ("taints", "DRADeviceTaints"), ("bindingConditions", "DRADeviceBindingConditions"),
                 ("bindingFailureConditions", "DRADeviceBindingConditions"),
                 ("bindsToNode", "DRADeviceBindingConditions"),
                 ("allowMultipleAllocations", "DRAConsumableCapacity"))
_REQUEST_GATED = (("tolerations", "DRADeviceTaints"), ("capacity", "DRAConsumableCapacity"))


def add(objects: DraObjects, obj: Field, kind: str, meta: Metadata, dropped: list[str]) -> None:
    """Decode one object of ``kind`` into ``objects``; ``dropped`` collects "Kind name: field (Gate)"."""
    if kind == "DeviceClass":
        objects.classes.append(_device_class(obj, meta, dropped))
    elif kind == "ResourceSlice":
        objects.slices.append(_resource_slice(obj, meta, len(objects.slices), dropped))
    elif kind == "ResourceClaimTemplate":
        spec = obj.get_map("spec")
        inner = spec.get_map("spec") if spec is not None else None
        if inner is None:
            (spec or obj).error_at("spec", "Required value")
        claim_spec = _claim_spec(inner, f"ResourceClaimTemplate {meta.namespace}/{meta.name}", dropped) \
            if inner is not None else ClaimSpec()
        objects.templates.append(ResourceClaimTemplate(meta.namespace, meta.name, dict(meta.labels), storage.annotations(obj),
                                                       claim_spec, obj.line))
    else:
        objects.claims.append(_resource_claim(obj, meta, len(objects.claims), dropped))


def _required_name(parent: Field, key: str, validate: Callable[[str], list[str]]) -> str:
    """A required string field, checked by ``validate`` (the API server's name rules)."""
    child = parent.get(key)
    value = child.as_str() if child is not None else ""
    if child is None or not value:
        parent.error_at(key, "Required value")
    else:
        check(child, value, validate(value))
    return value


def _drop(field: Field, gated: tuple[tuple[str, str], ...], owner: str, dropped: list[str]) -> None:
    for key, gate in gated:
        if field.get(key) is not None:
            dropped.append(f"{owner}: {field.path}.{key} ({gate})" if field.path else f"{owner}: {key} ({gate})")


# ---------------------------------------------------------------------- DeviceClass


def _device_class(obj: Field, meta: Metadata, dropped: list[str]) -> DeviceClass:
    spec = obj.get_map("spec")
    if spec is None:
        return DeviceClass(meta.name, line=obj.line)
    _drop(spec, (("extendedResourceName", "DRAExtendedResource"),), f"DeviceClass {meta.name}", dropped)
    return DeviceClass(meta.name, _selectors(spec), len(spec.get_list("config")), obj.line)


def _selectors(parent: Field) -> tuple[str, ...]:
    """selectors[].cel.expression: required, and it must compile (the API server compiles it)."""
    expressions: list[str] = []
    for item in parent.get_list("selectors"):
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
        compiled = compile_selector(expression)
        if compiled.error is not None and expression_field is not None:
            expression_field.error(f"Invalid value: {compiled.error}")
            continue
        expressions.append(expression)
    return tuple(expressions)


# ---------------------------------------------------------------------- ResourceSlice


def _resource_slice(obj: Field, meta: Metadata, doc_index: int, dropped: list[str]) -> ResourceSlice:
    owner = f"ResourceSlice {meta.name}"
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return ResourceSlice(meta.name, "", "", doc_index=doc_index, line=obj.line)
    driver = _required_name(spec, "driver", lambda value: is_dns1123_subdomain(value.lower()))
    pool = spec.get_map("pool")
    pool_name, generation, count = "", 0, 1
    if pool is None:
        spec.error_at("pool", "Required value")
    else:
        pool_name = pool.get_str("name")
        if not pool_name:
            pool.error_at("name", "Required value")
        generation = pool.get_int("generation", 0, 0)
        count = pool.get_int("resourceSliceCount", 0, 1)
        if pool.get("resourceSliceCount") is None:
            pool.error_at("resourceSliceCount", "Required value")
    partitionable = any(spec.get(key) is not None for key, _ in _SLICE_GATED)
    _drop(spec, _SLICE_GATED, owner, dropped)
    node_name = spec.get_str("nodeName")
    selector_field = spec.get("nodeSelector")
    selector = node_selector(selector_field) if selector_field is not None else None
    all_nodes = spec.get_bool("allNodes")
    chosen = sum((bool(node_name), selector_field is not None, all_nodes, spec.get("perDeviceNodeSelection") is not None))
    if chosen != 1:
        spec.error("exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    devices = tuple(_device(item, owner, dropped) for item in spec.get_list("devices") if item.expect_map())
    if len(devices) > MAX_DEVICES_PER_SLICE:
        spec.error_at("devices", f"Too many: {len(devices)}: must have at most {MAX_DEVICES_PER_SLICE} items")
    return ResourceSlice(meta.name, driver, pool_name, generation, count, node_name, selector, all_nodes, devices,
                         partitionable, doc_index, obj.line)


def _device(item: Field, owner: str, dropped: list[str]) -> Device:
    name = _required_name(item, "name", is_dns1123_label)
    _drop(item, _DEVICE_GATED, owner, dropped)
    attributes: dict[str, AttributeValue] = {}
    attributes_field = item.get_map("attributes")
    for key, value in (attributes_field.entries() if attributes_field is not None else ()):
        parsed = _attribute(value)
        if parsed is not None:
            attributes[key] = parsed
    capacity = {}
    capacity_field = item.get_map("capacity")
    for key, value in (capacity_field.entries() if capacity_field is not None else ()):
        if not value.expect_map():
            continue
        _drop(value, (("requestPolicy", "DRAConsumableCapacity"),), owner, dropped)
        amount_field = value.get("value")
        if amount_field is None:
            value.error_at("value", "Required value")
            continue
        amount = read_quantity(amount_field)
        if amount is not None:
            capacity[key] = amount
    return Device(name, attributes, capacity)


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
    if kind == "version":
        if parse_semver(text) is None:
            child.error(f'Invalid value: "{text[:80]}": must be a string compatible with semver.org spec 2.0.0')
        return Version(text)
    return text


# ---------------------------------------------------------------------- claims


def _claim_spec(spec: Field, owner: str, dropped: list[str]) -> ClaimSpec:
    devices = spec.get_map("devices")
    if devices is None:
        return ClaimSpec()
    requests = []
    names: set[str] = set()
    for item in devices.get_list("requests"):
        if not item.expect_map():
            continue
        request = _request(item, owner, dropped)
        if request.name in names:
            item.error_at("name", f'Duplicate value: "{request.name}"')
        names.add(request.name)
        requests.append(request)
    constraints = []
    for item in devices.get_list("constraints"):
        if not item.expect_map():
            continue
        _drop(item, (("distinctAttribute", "DRAConsumableCapacity"),), owner, dropped)
        referenced = tuple(name for name, _ in item.get_str_list("requests"))
        for name, field in item.get_str_list("requests"):
            if name.split("/")[0] not in names:
                field.error(f'Invalid value: "{name}": must be the name of a request in the claim or the name of '
                            'a request and a subrequest separated by \'/\'')
        match = item.get("matchAttribute")
        constraints.append(DeviceConstraint(referenced, match.as_str() if match is not None else None))
    return ClaimSpec(tuple(requests), tuple(constraints), len(devices.get_list("config")))


def _request(item: Field, owner: str, dropped: list[str]) -> DeviceRequest:
    name = _required_name(item, "name", is_dns1123_label)
    exactly = item.get_map("exactly")
    first = item.get_list("firstAvailable")
    if (exactly is None) == (not first):
        item.error("exactly one of `exactly` or `firstAvailable` is required")
    if exactly is not None:
        _drop(exactly, _REQUEST_GATED, owner, dropped)
        class_name, selectors, mode, count = _exact_fields(exactly)
        admin = exactly.get("adminAccess")
        return DeviceRequest(name, ExactRequest(class_name, selectors, mode, count,
                                                admin.as_bool() if admin is not None else None))
    if len(first) > FIRST_AVAILABLE_MAX_SIZE:
        item.error_at("firstAvailable", f"Too many: {len(first)}: must have at most {FIRST_AVAILABLE_MAX_SIZE} items")
    subs = []
    for sub in first:
        if not sub.expect_map():
            continue
        _drop(sub, _REQUEST_GATED, owner, dropped)
        sub_name = sub.get_str("name")
        if not sub_name:
            sub.error_at("name", "Required value")
        class_name, selectors, mode, count = _exact_fields(sub)
        subs.append(SubRequest(sub_name, class_name, selectors, mode, count))
    return DeviceRequest(name, None, tuple(subs))


def _exact_fields(field: Field) -> tuple[str, tuple[str, ...], str, int]:
    """deviceClassName (required), selectors, allocationMode (default ExactCount), count (default 1)."""
    class_name = _required_name(field, "deviceClassName", is_dns1123_subdomain)
    mode_field = field.get("allocationMode")
    mode = mode_field.as_str() if mode_field is not None else ALLOCATION_MODE_EXACT_COUNT
    if mode_field is not None and not check_str_enum(mode_field, mode, ALLOCATION_MODES):
        mode = ALLOCATION_MODE_EXACT_COUNT
    count_field = field.get("count")
    count = 1
    if mode == ALLOCATION_MODE_EXACT_COUNT:
        count = count_field.as_int(1, 1, ALLOCATION_RESULTS_MAX_SIZE) if count_field is not None else 1
    elif count_field is not None and mode == ALLOCATION_MODE_ALL:
        count_field.error("Invalid value: must not be specified when allocationMode is 'All'")
    return class_name, _selectors(field), mode, count


def _resource_claim(obj: Field, meta: Metadata, doc_index: int, dropped: list[str]) -> ResourceClaim:
    owner = f"ResourceClaim {meta.namespace}/{meta.name}"
    metadata = obj.get_map("metadata")
    finalizers = tuple(name for name, _ in metadata.get_str_list("finalizers")) if metadata is not None else ()
    terminating = metadata is not None and read_time(metadata.get("deletionTimestamp")) is not None
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
    claim_spec = _claim_spec(spec, owner, dropped) if spec is not None else ClaimSpec()
    allocation, reserved = _claim_status(obj.get_map("status"))
    uid = meta.uid or f"uid-resourceclaim-{meta.namespace}-{meta.name}"  # the API server always sets one
    return ResourceClaim(meta.namespace, meta.name, uid, dict(meta.labels), storage.annotations(obj),
                         owner_references(obj), finalizers, terminating, claim_spec, allocation, reserved,
                         doc_index, obj.line)


def _claim_status(status: Optional[Field]) -> tuple[Optional[AllocationResult], tuple[ConsumerRef, ...]]:
    if status is None:
        return None, ()
    allocation = None
    allocation_field = status.get_map("allocation")
    if allocation_field is not None:
        devices = allocation_field.get_map("devices")
        results = []
        for item in devices.get_list("results") if devices is not None else ():
            if not item.expect_map():
                continue
            for key in ("request", "driver", "pool", "device"):
                if not item.get_str(key):
                    item.error_at(key, "Required value")
            admin = item.get("adminAccess")
            results.append(DeviceResult(item.get_str("request"), item.get_str("driver"), item.get_str("pool"),
                                        item.get_str("device"), admin.as_bool() if admin is not None else None))
        selector_field = allocation_field.get("nodeSelector")
        selector = node_selector(selector_field) if selector_field is not None else None
        allocation = AllocationResult(tuple(results), selector)
    reserved = []
    for item in status.get_list("reservedFor"):
        if not item.expect_map():
            continue
        for key in ("resource", "name", "uid"):
            if not item.get_str(key):
                item.error_at(key, "Required value")
        reserved.append(ConsumerRef(item.get_str("resource"), item.get_str("name"), item.get_str("uid"),
                                    item.get_str("apiGroup")))
    if reserved and allocation is None:
        status.error_at("reservedFor", "Forbidden: may not be specified when `allocated` is not set")
    return allocation, tuple(reserved)
