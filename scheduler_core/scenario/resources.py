"""Resource lists (requests, limits, overhead, capacity, allocatable): names checked, quantities exact."""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from scheduler_core.model import quantity
from scheduler_core.model import ResourceList
from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.validation import check, is_qualified_name, read_quantity
from scheduler_core.scenario.yamltree import YMap

STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
HUGEPAGES_PREFIX = "hugepages-"
NATIVE_DOMAIN = "kubernetes.io/"

Quantities = dict[str, Fraction]


def is_extended(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a prefixed name outside kubernetes.io (e.g. example.com/gpu)."""
    return "/" in name and not name.startswith(NATIVE_DOMAIN) and NATIVE_DOMAIN not in name.split("/")[0]


def _check_container_name(item: Field, name: str) -> bool:
    if not check(item, name, is_qualified_name(name)):
        return False
    if "/" in name or name in STANDARD_CONTAINER_RESOURCES or name.startswith(HUGEPAGES_PREFIX):
        return True
    item.error(f'invalid value "{name[:80]}": must be a standard resource type or fully qualified')
    return False


def quantities(field: Optional[Field], container: bool) -> Quantities:
    """A ResourceList as exact quantities; negative amounts, malformed names and amounts the
    scheduler's int64 counters cannot hold are errors."""
    if field is None or not field.expect_map():
        return {}
    result: Quantities = {}
    for name, item in field.entries():
        valid_name = _check_container_name(item, name) if container else check(item, name, is_qualified_name(name))
        amount = read_quantity(item)
        if amount is None or not valid_name:
            continue
        if amount < 0:
            item.error(f'invalid value "{item.value}": must be greater than or equal to 0')
            continue
        if is_extended(name) and amount.denominator != 1:
            item.error(f'invalid value "{item.value}": must be an integer')
            continue
        overflow = quantity.amount_overflow(name, amount)
        if overflow is not None:
            item.error(f'invalid value "{str(item.value)[:80]}": {overflow}')
            continue
        result[name] = amount
    return result


def to_amounts(values: Quantities) -> ResourceList:
    return {name: quantity.resource_amount(name, amount) for name, amount in values.items()}


def container_requests(resources: Optional[Field]) -> ResourceList:
    """requests after defaulting: a resource with a limit and no request requests its limit."""
    return container_resources(resources)[0]


# container_resources' answers by the resources mapping as written: pods made from one template
# repeat the same few mappings thousands of times. Only answers that recorded no error are kept.
_KEPT_RESOURCES = 256
# (section, ((name, type of the scalar, scalar as written), ...)), in document order
WrittenResources = tuple[tuple[str, tuple[tuple[str, type, object], ...]], ...]
_resources_read: dict[WrittenResources, tuple[ResourceList, ResourceList]] = {}


def _written(resources: Field, only: Optional[tuple[str, ...]] = None) -> Optional[WrittenResources]:
    """The mapping's sections (``only``: these of them) and scalars in document order, typed (1 and
    1.0 and "1" differ), or None when it holds anything else (then it is read the long way)."""
    value = resources.value
    if not isinstance(value, YMap):
        return None
    sections = []
    for section, inner in value.items():
        if only is not None and section not in only:
            continue
        if not isinstance(inner, YMap):
            return None
        items = []
        for name, amount in inner.items():
            if type(amount) not in (str, int, float):
                return None
            items.append((name, type(amount), amount))
        sections.append((section, tuple(items)))
    return tuple(sections)


def container_resources(resources: Optional[Field]) -> tuple[ResourceList, ResourceList]:
    """(requests after defaulting, limits): a resource with a limit and no request requests its
    limit (SetDefaults_Pod)."""
    if resources is None or not resources.expect_map():
        return {}, {}
    written = _written(resources)
    known = _resources_read.get(written) if written is not None else None
    if known is not None:
        return dict(known[0]), dict(known[1])
    errors = len(resources.ctx.errors)
    requests, limits = _read_container_resources(resources)
    if written is not None and len(resources.ctx.errors) == errors:
        if len(_resources_read) >= _KEPT_RESOURCES:
            _resources_read.clear()
        _resources_read[written] = (dict(requests), dict(limits))
    return requests, limits


# node_allocatable's answers by the node status's capacity and allocatable as written: the nodes
# of one pool repeat the same few thousands of times. Only answers that recorded no error are kept.
_NODE_SECTIONS = ("capacity", "allocatable")
_allocatable_read: dict[WrittenResources, ResourceList] = {}


def node_allocatable(status: Field) -> ResourceList:
    """A node's allocatable; SetDefaults_NodeStatus: a node without it gets a copy of its capacity."""
    written = _written(status, _NODE_SECTIONS)
    known = _allocatable_read.get(written) if written is not None else None
    if known is not None:
        return dict(known)
    errors = len(status.ctx.errors)
    allocatable = _read_allocatable(status)
    if written is not None and len(status.ctx.errors) == errors:
        if len(_allocatable_read) >= _KEPT_RESOURCES:
            _allocatable_read.clear()
        _allocatable_read[written] = dict(allocatable)
    return allocatable


def _read_allocatable(status: Field) -> ResourceList:
    capacity = quantities(status.get("capacity"), container=False)
    allocatable_field = status.get("allocatable")
    if allocatable_field is None:
        return to_amounts(capacity)
    return to_amounts(quantities(allocatable_field, container=False))


def _read_container_resources(resources: Field) -> tuple[ResourceList, ResourceList]:
    requests = quantities(resources.get("requests"), container=True)
    limits = quantities(resources.get("limits"), container=True)
    requests_field = resources.get("requests")
    if requests_field is not None:
        _check_against_limits(requests_field, requests, limits)
    merged = dict(limits)
    merged.update(requests)
    return to_amounts(merged), to_amounts(limits)


def pod_level_resources(resources: Optional[Field]) -> tuple[ResourceList, ResourceList]:
    """spec.resources (PodLevelResources): (requests, limits) as written; only cpu, memory and
    hugepages may be set for the whole pod (validatePodResourceRequirements)."""
    if resources is None or not resources.expect_map():
        return {}, {}
    lists = []
    for key in ("requests", "limits"):
        field = resources.get(key)
        values = quantities(field, container=True)
        for name in list(values):
            if name not in ("cpu", "memory") and not name.startswith(HUGEPAGES_PREFIX):
                assert field is not None  # values were read from it
                field.error_at(
                    name, f'unsupported value "{name[:80]}": pod-level resources support cpu, memory and hugepages only'
                )
                del values[name]
        lists.append(values)
    requests, limits = lists
    requests_field = resources.get("requests")
    if requests_field is not None:
        _check_against_limits(requests_field, requests, limits)
    return to_amounts(requests), to_amounts(limits)


def _check_against_limits(requests_field: Field, requests: Quantities, limits: Quantities) -> None:
    for name, amount in requests.items():
        limit = limits.get(name)
        if limit is None:
            # The API server also wants a limit on an extended resource; the corpus's scheduler
            # harness had no API server and has pods without one, so that check is left out.
            continue
        if is_extended(name) and amount != limit:
            requests_field.error_at(name, f"must be equal to {name} limit of {_show(limit)}")
        elif amount > limit:
            requests_field.error_at(name, f"must be less than or equal to {name} limit of {_show(limit)}")


def _show(amount: Fraction) -> str:
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):g}"
