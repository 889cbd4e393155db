"""v1 Pod -> model.Pod, with the API server's defaulting and the validation that matters here."""

from __future__ import annotations

from typing import Optional

from scheduler_core.model import (
    Container,
    ContainerPort,
    LabelSelector,
    OwnerReference,
    Pod,
    Toleration,
    TopologySpreadConstraint,
)
from scheduler_core.scenario import resources
from scheduler_core.scenario.fields import INT32_MAX, Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.selectors import affinity, label_selector, selector_keys
from scheduler_core.scenario.validation import (
    check,
    check_str_enum,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_ip,
    is_label_value,
    is_qualified_name,
    label_map,
)

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")
PROTOCOLS = ("TCP", "UDP", "SCTP")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
DEFAULT_SCHEDULER = "default-scheduler"


def decode_pod(obj: Field, meta: Metadata, doc_index: int) -> Pod:
    spec = obj.get_map("spec")
    pod = Pod(name=meta.name, namespace=meta.namespace, labels=meta.labels, uid=meta.uid,
              owner_references=owner_references(obj), doc_index=doc_index, line=obj.line)
    if spec is None:
        obj.error_at("spec", "Required value")
        return pod
    _decode_scheduling(spec, pod)
    pod.containers = _containers(spec, "containers", required=True)
    pod.init_containers = _containers(spec, "initContainers", required=False)
    _check_unique_containers(pod.containers + pod.init_containers, spec)
    _check_host_ports(spec, pod)
    pod.overhead = resources.to_amounts(resources.quantities(spec.get("overhead"), container=True))
    return pod


def _decode_scheduling(spec: Field, pod: Pod) -> None:
    node_name = spec.get("nodeName")
    if node_name is not None:
        pod.node_name = node_name.as_str()
        if pod.node_name:
            check(node_name, pod.node_name, is_dns1123_subdomain(pod.node_name))
    pod.priority = spec.get_int("priority", 0, -(2**31), INT32_MAX)
    pod.scheduler_name = spec.get_str("schedulerName", DEFAULT_SCHEDULER) or DEFAULT_SCHEDULER
    pod.node_selector = label_map(spec.get("nodeSelector"))
    pod.affinity = affinity(spec.get("affinity"))
    pod.tolerations = tuple(t for t in (_toleration(f) for f in spec.get_list("tolerations")) if t)
    pod.topology_spread_constraints = _spread_constraints(spec)
    policy = spec.get("preemptionPolicy")
    if policy is not None:
        value = policy.as_str()
        if check_str_enum(policy, value, PREEMPTION_POLICIES):
            pod.preemption_policy = value


# ---------------------------------------------------------------------- owner references


def owner_references(obj: Field) -> tuple[OwnerReference, ...]:
    metadata = obj.get("metadata")
    if metadata is None:
        return ()
    refs = []
    for item in metadata.get_list("ownerReferences"):
        if not item.expect_map():
            continue
        for key in ("kind", "name"):
            if not item.get_str(key):
                item.error_at(key, "Required value")
        refs.append(OwnerReference(item.get_str("kind"), item.get_str("name"), item.get_str("apiVersion"),
                                   item.get_bool("controller")))
    if sum(ref.controller for ref in refs) > 1:
        metadata.error_at("ownerReferences", "Only one reference can have Controller set to true")
    return tuple(refs)


# ---------------------------------------------------------------------- tolerations


def _toleration(field: Field) -> Optional[Toleration]:
    if not field.expect_map():
        return None
    key = field.get_str("key")
    if key:
        check(field.get("key"), key, is_qualified_name(key))
    operator = field.get_str("operator") or "Equal"
    value = field.get_str("value")
    effect = field.get_str("effect")
    ok = _check_toleration(field, key, operator, value, effect)
    return Toleration(key, operator, value, effect) if ok else None


def _check_toleration(field: Field, key: str, operator: str, value: str, effect: str) -> bool:
    errors_before = len(field.ctx.errors)
    if not key and operator != "Exists":
        field.error_at("operator", f'invalid value "{operator}": operator must be Exists when `key` is empty, '
                                   'which means "match all values and all keys"')
    if operator == "Exists" and value:
        field.error_at("operator", "value must be empty when `operator` is 'Exists'")
    elif operator == "Equal":
        for message in is_label_value(value):
            field.error_at("value", f'invalid value "{value[:80]}": {message}')
    elif operator not in TOLERATION_OPERATORS:
        field.error_at("operator", f'unsupported value "{operator[:80]}": supported values: "Equal", "Exists"')
    if effect and effect not in TAINT_EFFECTS:
        field.error_at("effect", f'unsupported value "{effect[:80]}": supported values: '
                                 '"NoSchedule", "PreferNoSchedule", "NoExecute"')
    if field.get("tolerationSeconds") is not None:
        field.get_int("tolerationSeconds", 0, -(2**63), 2**63 - 1)
        if effect != "NoExecute":
            field.error_at("effect", "effect must be 'NoExecute' when `tolerationSeconds` is set")
    return len(field.ctx.errors) == errors_before


# ---------------------------------------------------------------------- topology spread


def _spread_constraints(spec: Field) -> tuple[TopologySpreadConstraint, ...]:
    constraints = []
    seen: set[tuple[str, str]] = set()
    for item in spec.get_list("topologySpreadConstraints"):
        constraint = _spread_constraint(item)
        if constraint is None:
            continue
        pair = (constraint.topology_key, constraint.when_unsatisfiable)
        if pair in seen:
            item.error(f'Duplicate value: {{"{pair[0]}", "{pair[1]}"}}')
        seen.add(pair)
        constraints.append(constraint)
    return tuple(constraints)


def _required(field: Field, key: str) -> Optional[Field]:
    child = field.get(key)
    if child is None:
        field.error_at(key, "Required value")
    return child


def _spread_constraint(item: Field) -> Optional[TopologySpreadConstraint]:
    if not item.expect_map():
        return None
    errors_before = len(item.ctx.errors)
    skew_field = _required(item, "maxSkew")
    max_skew = skew_field.as_int(1, 1, INT32_MAX) if skew_field is not None else 1
    key_field = _required(item, "topologyKey")
    key = key_field.as_str() if key_field is not None else ""
    if key_field is not None and not key:
        key_field.error("Required value: can not be empty")
    elif key:
        check(key_field, key, is_qualified_name(key))
    when = _enum(_required(item, "whenUnsatisfiable"), WHEN_UNSATISFIABLE) or "DoNotSchedule"
    min_domains = item.get_optional_int("minDomains", 1, INT32_MAX)
    if min_domains is not None and when != "DoNotSchedule":
        item.error_at("minDomains", f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}")
    selector = label_selector(item.get("labelSelector"))
    match_label_keys = _match_label_keys(item, selector)
    constraint = TopologySpreadConstraint(
        max_skew, key, when, selector, min_domains,
        _enum(item.get("nodeAffinityPolicy"), INCLUSION_POLICIES),
        _enum(item.get("nodeTaintsPolicy"), INCLUSION_POLICIES), match_label_keys)
    return constraint if len(item.ctx.errors) == errors_before else None


def _enum(field: Optional[Field], allowed: tuple[str, ...]) -> Optional[str]:
    if field is None:
        return None
    value = field.as_str()
    return value if check_str_enum(field, value, allowed) else None


def _match_label_keys(item: Field, selector: Optional[LabelSelector]) -> tuple[str, ...]:
    keys = []
    in_selector = selector_keys(selector)
    for key, key_field in item.get_str_list("matchLabelKeys"):
        if check(key_field, key, is_qualified_name(key)) and key in in_selector:
            key_field.error(f'invalid value "{key}": exists in both matchLabelKeys and labelSelector')
        keys.append(key)
    return tuple(keys)


# ---------------------------------------------------------------------- containers


def _containers(spec: Field, key: str, required: bool) -> tuple[Container, ...]:
    items = spec.get_list(key)
    if required and not items:
        spec.error_at(key, "Required value")
    containers = (_container(item, init=not required) for item in items)
    return tuple(c for c in containers if c is not None)


def _container(item: Field, init: bool) -> Optional[Container]:
    if not item.expect_map():
        return None
    name_field = _required(item, "name")
    name = name_field.as_str() if name_field is not None else ""
    if name:
        check(name_field, name, is_dns1123_label(name))
    restart = item.get_str("restartPolicy")
    if init and restart and restart != "Always":
        item.error_at("restartPolicy", f'unsupported value "{restart[:80]}": supported values: "Always"')
    requests = resources.container_requests(item.get("resources"))
    ports = tuple(p for p in (_port(p) for p in item.get_list("ports")) if p)
    return Container(name, item.get_str("image"), requests, ports, restart)


def _port(item: Field) -> Optional[ContainerPort]:
    if not item.expect_map():
        return None
    container_port = item.get_int("containerPort", 0, 1, 65535)
    if item.get("containerPort") is None:
        item.error_at("containerPort", "Required value")
    host_port = item.get_int("hostPort", 0, 0, 65535)
    protocol = _enum(item.get("protocol"), PROTOCOLS) or "TCP"
    host_ip = item.get_str("hostIP")
    if host_ip and not is_ip(host_ip):
        item.error_at("hostIP", f'invalid value "{host_ip[:80]}": must be a valid IP address')
    return ContainerPort(container_port, host_port, protocol, host_ip)


def _check_unique_containers(containers: tuple[Container, ...], spec: Field) -> None:
    seen: set[str] = set()
    for container in containers:
        if container.name and container.name in seen:
            spec.error_at("containers", f'Duplicate value: "{container.name}"')
        seen.add(container.name)


def _check_host_ports(spec: Field, pod: Pod) -> None:
    seen: set[tuple[str, str, int]] = set()
    for container in pod.containers + pod.init_containers:
        for port in container.ports:
            if not port.host_port:
                continue
            key = (port.protocol, port.host_ip, port.host_port)
            if key in seen:
                spec.error_at("containers", f'Duplicate value: "{port.protocol}/{port.host_ip}/{port.host_port}"'
                                            " (hostPort)")
            seen.add(key)
