"""Node, Namespace, Service and workload (ReplicaSet, StatefulSet, ReplicationController) decoding."""

from __future__ import annotations

import re
from typing import Optional

from scheduler_core.model.labels import selector_from_map
from scheduler_core.model import (
    ContainerImage,
    Namespace,
    Node,
    NodeCondition,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    Taint,
    Workload,
)
from scheduler_core.scenario import resources
from scheduler_core.scenario.fields import INT32_MAX, INT64_MAX, Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.pods import PREEMPTION_POLICIES, TAINT_EFFECTS
from scheduler_core.scenario.selectors import label_selector
from scheduler_core.scenario.validation import (
    MAX_SUBDOMAIN_LENGTH,
    check,
    check_str_enum,
    is_label_value,
    is_qualified_name,
    label_map,
)


# ---------------------------------------------------------------------- Node


def decode_node(obj: Field, meta: Metadata, doc_index: int) -> Node:
    node = Node(name=meta.name, labels=meta.labels, doc_index=doc_index, line=obj.line, annotations=_annotations(obj))
    spec = obj.get_map("spec")
    if spec is not None:
        node.taints = _taints(spec)
        node.unschedulable = spec.get_bool("unschedulable")
    status = obj.get_map("status")
    if status is not None:
        node.allocatable = resources.node_allocatable(status)
        node.images = tuple(i for i in (_image(f) for f in status.get_list("images")) if i)
        node.conditions = _conditions(status)
        node.declared_features = _declared_features(status)
    return node


# validateNodeDeclaredFeatureName: an UpperCamelCase segment, then "/"-separated alphanumeric ones.
_DECLARED_FEATURE = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*")
_DECLARED_FEATURE_SHAPE = (
    "must start with an UpperCamelCase segment, with subsequent segments separated by '/' "
    "(e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes"
)


def _declared_features(status: Field) -> tuple[str, ...]:
    """status.declaredFeatures as validateNodeDeclaredFeatures checks it: valid names, sorted, no
    duplicates. Read whatever the release; the loader drops it when NodeDeclaredFeatures is off."""
    items = status.get_list("declaredFeatures")
    names = [item.as_str() for item in items]
    for i, (item, name) in enumerate(zip(items, names)):
        if len(name) > MAX_SUBDOMAIN_LENGTH:
            item.error(
                f'Invalid value: "{name[:80]}": invalid feature name "{name[:80]}": '
                f"must be no more than {MAX_SUBDOMAIN_LENGTH} characters"
            )
        elif not _DECLARED_FEATURE.fullmatch(name):
            item.error(f'Invalid value: "{name[:80]}": invalid feature name "{name[:80]}": {_DECLARED_FEATURE_SHAPE}')
        if i + 1 < len(names):
            following = items[i + 1]
            if name == names[i + 1]:
                following.error(f'Duplicate value: "{name[:80]}"')
            elif name > names[i + 1]:
                following.error(f'Invalid value: "{names[i + 1][:80]}": list must be sorted alphabetically')
    return tuple(names)


def _annotations(obj: Field) -> dict[str, str]:
    """metadata.annotations as strings (a change of them is a NodeUpdateNodeAnnotation event)."""
    metadata = obj.get_map("metadata")
    annotations = metadata.get_map("annotations") if metadata is not None else None
    if annotations is None:
        return {}
    # Only their change matters to the scheduler: a value is compared as written, never refused here.
    return {key: str(value.value) for key, value in annotations.entries()}


def _conditions(status: Field) -> tuple[NodeCondition, ...]:
    """status.conditions' type and status (what the node lifecycle controller turns into taints);
    the scheduler does not read them, so an entry without both is passed over, not refused."""
    found = []
    for item in status.get_list("conditions"):
        if item.expect_map() and item.get_str("type") and item.get_str("status"):
            found.append(NodeCondition(item.get_str("type"), item.get_str("status")))
    return tuple(found)


def _taints(spec: Field) -> tuple[Taint, ...]:
    taints: list[Taint] = []
    seen: set[tuple[str, str]] = set()
    for item in spec.get_list("taints"):
        taint = _taint(item)
        if taint is None:
            continue
        if (taint.key, taint.effect) in seen:
            item.error("taints must be unique by key and effect pair")
            continue
        seen.add((taint.key, taint.effect))
        taints.append(taint)
    return tuple(taints)


def decode_taints(spec: Field) -> tuple[Taint, ...]:
    """The ``taints`` list of a mapping (a Node's spec, an addNodes operation)."""
    return _taints(spec)


def _taint(item: Field) -> Optional[Taint]:
    if not item.expect_map():
        return None
    errors_before = len(item.ctx.errors)
    key_field = item.get("key")
    key = key_field.as_str() if key_field is not None else ""
    if key_field is None or not key:
        item.error_at("key", "Required value")
    else:
        check(key_field, key, is_qualified_name(key))
    value_field = item.get("value")
    value = value_field.as_str() if value_field is not None else ""
    if value_field is not None and value:
        check(value_field, value, is_label_value(value))
    effect_field = item.get("effect")
    effect = effect_field.as_str() if effect_field is not None else ""
    if effect_field is None:
        item.error_at("effect", "Required value")
    else:
        check_str_enum(effect_field, effect, TAINT_EFFECTS)
    return Taint(key, value, effect) if len(item.ctx.errors) == errors_before else None


def _image(item: Field) -> Optional[ContainerImage]:
    if not item.expect_map():
        return None
    names = tuple(name for name, _ in item.get_str_list("names"))
    return ContainerImage(names, item.get_int("sizeBytes", 0, 0, INT64_MAX))


# ---------------------------------------------------------------------- others


def decode_namespace(meta: Metadata) -> Namespace:
    return Namespace(meta.name, meta.labels)


def decode_service(obj: Field, meta: Metadata) -> Service:
    spec = obj.get_map("spec")
    selector = label_map(spec.get("selector")) if spec is not None else {}
    return Service(meta.namespace, meta.name, selector)


def decode_workload(obj: Field, meta: Metadata, kind: str) -> Workload:
    """apps/v1 ReplicaSet/StatefulSet: a required, non-empty LabelSelector."""
    spec = obj.get_map("spec")
    selector_field = spec.get("selector") if spec is not None else None
    if selector_field is None:
        (spec or obj).error_at("selector", "Required value")
        return Workload(kind, meta.namespace, meta.name, None)
    selector = label_selector(selector_field)
    if selector is not None and selector.is_empty:
        selector_field.error("empty selector is invalid")
    return Workload(kind, meta.namespace, meta.name, selector)


def decode_replication_controller(obj: Field, meta: Metadata) -> Workload:
    """v1 ReplicationController: a map selector, defaulted from the pod template's labels."""
    spec = obj.get_map("spec")
    selector: dict[str, str] = {}
    if spec is not None:
        selector = label_map(spec.get("selector"))
        template = spec.get_map("template")
        metadata = template.get_map("metadata") if template is not None else None
        if not selector and metadata is not None:
            selector = label_map(metadata.get("labels"))
    if not selector:
        (spec or obj).error_at("selector", "Required value")
    return Workload("ReplicationController", meta.namespace, meta.name, selector_from_map(selector))


# ---------------------------------------------------------------------- PriorityClass

# The API server creates these two itself (scheduling.SystemPriorityClasses); a dump may list them too.
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass("system-node-critical", 2000001000),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2000000000),
}
HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
SYSTEM_PREFIX = "system-"


def decode_priority_class(obj: Field, meta: Metadata) -> PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass with its defaulting (preemptionPolicy) and the API server's
    checks: the reserved "system-" prefix and the highest user-definable value."""
    value_field = obj.get("value")
    if value_field is None:
        obj.error_at("value", "Required value")
    value = value_field.as_int(0, -(2**31), INT32_MAX) if value_field is not None else 0
    system = meta.name in SYSTEM_PRIORITY_CLASSES
    if meta.name.startswith(SYSTEM_PREFIX) and not system:
        obj.error_at(
            "metadata.name",
            f'invalid value "{meta.name[:80]}": priority class names with '
            f'"{SYSTEM_PREFIX}" prefix are reserved for system use only',
        )
    elif value_field is None:
        pass  # the missing value is reported once, above: no range to check
    elif system and value != SYSTEM_PRIORITY_CLASSES[meta.name].value:
        value_field.error(
            f"Invalid value: {value}: the value of {meta.name} is {SYSTEM_PRIORITY_CLASSES[meta.name].value}"
        )
    elif not system and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        value_field.error(
            f"Invalid value: {value}: maximum allowed value of a user defined priority is "
            f"{HIGHEST_USER_DEFINABLE_PRIORITY}"
        )
    policy = "PreemptLowerPriority"
    policy_field = obj.get("preemptionPolicy")
    if policy_field is not None and check_str_enum(policy_field, policy_field.as_str(), PREEMPTION_POLICIES):
        policy = policy_field.as_str()
    return PriorityClass(meta.name, value, obj.get_bool("globalDefault"), policy, obj.line)


# ---------------------------------------------------------------------- PodDisruptionBudget


def decode_pod_disruption_budget(obj: Field, meta: Metadata) -> PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget: its selector and status (what preemption reads). A missing
    status reads as no disruption allowed, as a budget the disruption controller never saw."""
    spec = obj.get_map("spec")
    selector = label_selector(spec.get("selector")) if spec is not None else None
    if spec is not None:
        for key in ("minAvailable", "maxUnavailable"):
            value = spec.get(key)
            if value is not None and not isinstance(value.value, (int, str)):
                value.error(f"expected an integer or a percentage, got {type(value.value).__name__}")
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            spec.error("minAvailable and maxUnavailable cannot be both set")
    status = obj.get_map("status")
    allowed, disrupted = 0, frozenset[str]()
    if status is not None:
        allowed = status.get_int("disruptionsAllowed", 0, 0, INT32_MAX)
        disrupted_field = status.get_map("disruptedPods")
        if disrupted_field is not None:
            disrupted = frozenset(key for key, _ in disrupted_field.entries())
    return PodDisruptionBudget(meta.namespace, meta.name, selector, allowed, disrupted, obj.line)
