"""v1 Pod -> model.Pod, with the API server's defaulting and the validation that matters here."""

from __future__ import annotations

import copy
import json

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Callable, Optional

from scheduler_core.model import (
    VOLUME_KIND_CLAIM,
    VOLUME_KIND_CSI,
    VOLUME_KIND_EPHEMERAL,
    Container,
    ContainerExtendedResourceRequest,
    ContainerPort,
    ContainerResourceStatus,
    ExtendedResourceClaimStatus,
    OwnerReference,
    Pod,
    RecordedScheduling,
    PodResourceClaim,
    ResourceList,
    Toleration,
    TopologySpreadConstraint,
    Volume,
)
from scheduler_core.model.resources import aggregate_container_requests
from scheduler_core.release.gates import FeatureGates
from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario import resources, volume_sources
from scheduler_core.scenario.fields import INT32_MAX, INT64_MAX, Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.selectors import affinity, label_selector
from scheduler_core.scenario.yamltree import YList, YMap
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
DEFAULT_GRACE_SECONDS = 30
DISRUPTION_TARGET = "DisruptionTarget"  # the condition preemption writes on its victims
POD_SCHEDULED = "PodScheduled"  # the condition the scheduler writes (its last word on the pod)
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
RESIZE_PENDING = "PodResizePending"
RESIZE_INFEASIBLE = "Infeasible"


# What a pod's spec decodes to, nodeName aside: equal specs (pods of one template) give equal values.
SPEC_FIELDS = (
    "priority",
    "priority_class_name",
    "termination_grace_period_seconds",
    "scheduling_gates",
    "claim_sources",
    "resource_claims",
    "scheduler_name",
    "node_selector",
    "affinity",
    "tolerations",
    "topology_spread_constraints",
    "preemption_policy",
    "containers",
    "init_containers",
    "overhead",
    "pod_level_requests",
    "volumes",
    "host_network",
    "host_users",
)
# A pod's spec as a hashable value, nodeName left out (frozen_spec).
SpecKey = tuple[tuple[str, object], ...]
# frozen spec -> its SPEC_FIELDS values, for one load
SpecMemo = dict[SpecKey, tuple[object, ...]]


def decode_pod(
    obj: Field, meta: Metadata, doc_index: int, specs: Optional[SpecMemo] = None, key: Optional[SpecKey] = None
) -> Pod:
    """The pod; with ``specs``, a spec written like one decoded before in the same load without an
    error takes that one's values (a 5,000-node benchmark holds 25,000 pods of a few templates: a
    third of its loading was decoding their specs again). The values are shared, never changed in
    place (the engine's simulation copies already share them), and carry no lines. A spec that
    gave an error is never remembered, so every pod written with it reports its own. ``key``: the
    spec's ``frozen_spec``, when the caller has it already."""
    spec = obj.get_map("spec")
    pod = Pod(
        name=meta.name,
        namespace=meta.namespace,
        labels=meta.labels,
        uid=meta.uid,
        owner_references=owner_references(obj),
        doc_index=doc_index,
        line=obj.line,
    )
    _decode_lifecycle(obj, pod)
    if spec is None:
        obj.error_at("spec", "Required value")
        return pod
    if key is None and specs is not None:
        key = frozen_spec(spec.value)
    try:
        known = specs.get(key) if specs is not None and key is not None else None
    except TypeError:  # a value that cannot be a key (none that YAML or JSON writes)
        key = known = None
    if known is not None:
        _decode_node_name(spec, pod)
        for name, value in zip(SPEC_FIELDS, known):
            setattr(pod, name, value)
        _decode_resize_state(obj, pod)
        return pod
    errors_before = len(obj.ctx.errors)
    _decode_spec(obj, spec, pod)
    if specs is not None and key is not None and len(obj.ctx.errors) == errors_before:
        specs[key] = tuple(getattr(pod, name) for name in SPEC_FIELDS)
    return pod


def frozen_spec(spec: YMap) -> SpecKey:
    """The spec as a hashable value, nodeName left out; scalars other than strings with their
    type (``1``, ``1.0`` and ``true`` are equal keys in Python but decode differently)."""
    return tuple([(key, _frozen(value)) for key, value in spec.items() if key != "nodeName"])


def _frozen(value: Any) -> object:
    # Every pod's spec goes through here: strings (most values) are kept without a call for each.
    kind = type(value)
    if kind is str:
        return value
    if kind is YMap:
        return kind, tuple([(key, item if type(item) is str else _frozen(item)) for key, item in value.items()])
    if kind is YList:
        return kind, tuple([item if type(item) is str else _frozen(item) for item in value])
    return kind, value


def _decode_spec(obj: Field, spec: Field, pod: Pod) -> None:
    _decode_scheduling(spec, pod)
    host_network = spec.get_bool("hostNetwork")
    pod.host_network = host_network
    host_users = spec.get("hostUsers")
    pod.host_users = host_users.as_bool(True) if host_users is not None else None
    pod.containers = _containers(spec, "containers", required=True, host_network=host_network)
    pod.init_containers = _containers(spec, "initContainers", required=False, host_network=host_network)
    _check_unique_containers(pod.containers + pod.init_containers, spec)
    _check_host_ports(spec, pod)
    pod.overhead = resources.to_amounts(resources.quantities(spec.get("overhead"), container=True))
    pod.pod_level_requests = _pod_level_requests(spec.get("resources"), pod)
    _decode_resize_state(obj, pod)
    pod.volumes = _volumes(spec)


# ---------------------------------------------------------------------- pod-level resources and resizes

# Resources the API server may default pod-level requests for from the containers' requests
# (IsOvercommitAllowed: not hugepages, which cannot be overcommitted).
_OVERCOMMITTABLE_POD_LEVEL = ("cpu", "memory")


def _pod_level_requests(field: Optional[Field], pod: Pod) -> ResourceList:
    """spec.resources.requests after defaultPodRequests: with pod-level limits set, a resource
    the pod does not request takes the containers' effective requests, else its limit."""
    requests, limits = resources.pod_level_resources(field)
    if not limits:
        return requests
    defaulted = dict(requests)
    for name, amount in aggregate_container_requests(pod, use_status=False).items():
        if name in _OVERCOMMITTABLE_POD_LEVEL:
            defaulted.setdefault(name, amount)
    for name, amount in limits.items():
        defaulted.setdefault(name, amount)
    return defaulted


def _decode_resize_state(obj: Field, pod: Pod) -> None:
    """status.containerStatuses / initContainerStatuses (allocatedResources, resources.requests)
    and an Infeasible PodResizePending condition: what PodRequests reads of an in-place resize."""
    status = obj.get_map("status")
    if status is None:
        return
    for key in ("containerStatuses", "initContainerStatuses"):
        for item in status.get_list(key):
            if not item.expect_map() or not item.get_str("name"):
                continue
            allocated = resources.to_amounts(resources.quantities(item.get("allocatedResources"), container=True))
            actual = item.get_map("resources")
            actuated = None
            if actual is not None:
                actuated = resources.to_amounts(resources.quantities(actual.get("requests"), container=True))
            pod.container_statuses[item.get_str("name")] = ContainerResourceStatus(allocated, actuated)
    pod.resize_infeasible = any(
        condition.expect_map()
        and condition.get_str("type") == RESIZE_PENDING
        and condition.get_str("reason") == RESIZE_INFEASIBLE
        for condition in status.get_list("conditions")
    )


def _decode_node_name(spec: Field, pod: Pod) -> None:
    node_name = spec.get("nodeName")
    if node_name is not None:
        pod.node_name = node_name.as_str()
        if pod.node_name:
            check(node_name, pod.node_name, is_dns1123_subdomain(pod.node_name))


def _decode_scheduling(spec: Field, pod: Pod) -> None:
    _decode_node_name(spec, pod)
    pod.priority = spec.get_int("priority", 0, -(2**31), INT32_MAX)
    pod.priority_class_name = spec.get_str("priorityClassName")
    # ValidateNonnegativeField; the API server defaults a missing value to 30 (DefaultTerminationGracePeriodSeconds).
    pod.termination_grace_period_seconds = spec.get_int(
        "terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS, 0, INT64_MAX
    )
    pod.scheduling_gates = _scheduling_gates(spec)
    pod.claim_sources = _resource_claims(spec)
    pod.resource_claims = tuple(source.name for source in pod.claim_sources)
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


def _scheduling_gates(spec: Field) -> tuple[str, ...]:
    return tuple(name for _, name in _named_items(spec, "schedulingGates", is_qualified_name))


def _resource_claims(spec: Field) -> tuple[PodResourceClaim, ...]:
    """spec.resourceClaims: each a DNS label name and exactly one source (validatePodResourceClaim)."""
    claims = _named_items(spec, "resourceClaims", is_dns1123_label)
    sources: list[PodResourceClaim] = []
    for item, name in claims:
        claim_name, template_name = item.get_str("resourceClaimName"), item.get_str("resourceClaimTemplateName")
        if bool(claim_name) == bool(template_name):
            item.error("must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
            continue
        for key, value in (("resourceClaimName", claim_name), ("resourceClaimTemplateName", template_name)):
            value_field = item.get(key)
            if value_field is not None and value:
                check(value_field, value, is_dns1123_subdomain(value))
        sources.append(PodResourceClaim(name, claim_name, template_name))
    return tuple(sources)


def claim_statuses(status: Field) -> tuple[tuple[str, str], ...]:
    """status.resourceClaimStatuses: (pod claim name, generated ResourceClaim name)."""
    found: list[tuple[str, str]] = []
    for item in status.get_list("resourceClaimStatuses"):
        if item.expect_map() and item.get_str("name"):
            found.append((item.get_str("name"), item.get_str("resourceClaimName")))
    return tuple(found)


def extended_resource_claim(status: Field) -> Optional[ExtendedResourceClaimStatus]:
    """status.extendedResourceClaimStatus: the claim the scheduler made for the pod's extended
    resources (DRAExtendedResource) and which of its requests serves which container; the
    resourceclaim controller releases that claim with the pod."""
    field = status.get_map("extendedResourceClaimStatus")
    if field is None or not field.get_str("resourceClaimName"):
        return None
    mappings = tuple(
        ContainerExtendedResourceRequest(
            item.get_str("containerName"), item.get_str("resourceName"), item.get_str("requestName")
        )
        for item in field.get_list("requestMappings")
        if item.expect_map()
    )
    return ExtendedResourceClaimStatus(field.get_str("resourceClaimName"), mappings)


def _named_items(spec: Field, key: str, is_valid_name: Callable[[str], list[str]]) -> list[tuple[Field, str]]:
    """A list of maps keyed by a required, valid, unique `name` (as the API server checks them)."""
    found: list[tuple[Field, str]] = []
    for item in spec.get_list(key):
        if not item.expect_map():
            continue
        name_field = _required(item, "name")
        name = name_field.as_str() if name_field is not None else ""
        if name_field is not None and name and check(name_field, name, is_valid_name(name)):
            if any(name == seen for _, seen in found):
                name_field.error(f'Duplicate value: "{name}"')
            found.append((item, name))
    return found


# ---------------------------------------------------------------------- lifecycle


def _decode_lifecycle(obj: Field, pod: Pod) -> None:
    """What the scheduler reads of a pod's life: finished, terminating, started, nominated."""
    metadata = obj.get_map("metadata")
    if metadata is not None:
        pod.deletion_timestamp = read_time(metadata.get("deletionTimestamp"))
        pod.finalizers = tuple(name for name, _ in metadata.get_str_list("finalizers") if name)
    status = obj.get_map("status")
    if status is None:
        return
    pod.phase = status.get_str("phase")
    pod.claim_statuses = claim_statuses(status)
    pod.extended_resource_claim = extended_resource_claim(status)
    pod.start_time = read_time(status.get("startTime"))
    pod.nominated_node_name = status.get_str("nominatedNodeName")
    pod.preempted_by_scheduler = any(
        condition.expect_map()
        and condition.get_str("type") == DISRUPTION_TARGET
        and condition.get_str("status") == "True"
        and condition.get_str("reason") == PREEMPTION_BY_SCHEDULER
        for condition in status.get_list("conditions")
    )
    nominated_field = status.get("nominatedNodeName")
    if nominated_field is not None and pod.nominated_node_name:
        check(nominated_field, pod.nominated_node_name, is_dns1123_subdomain(pod.nominated_node_name))
    pod.recorded = _recorded_scheduling(status)


def _recorded_scheduling(status: Field) -> Optional[RecordedScheduling]:
    """status.conditions[type=PodScheduled]: kept to be shown beside the replay, never read by it."""
    for condition in status.get_list("conditions"):
        if condition.expect_map() and condition.get_str("type") == POD_SCHEDULED:
            time_field = condition.get("lastTransitionTime")
            if time_field is not None and time_field.value is None:
                time_field = None  # written as null
            return RecordedScheduling(
                condition.get_str("status"),
                condition.get_str("reason"),
                condition.get_str("message"),
                read_time(time_field),
                time_field.as_str() if time_field is not None else "",
            )
    return None


def read_time(field: Optional[Field]) -> Optional[datetime]:
    """metav1.Time: RFC 3339 (kubectl writes "2024-05-01T10:00:00Z"); naive times are taken as UTC."""
    if field is None:
        return None
    text = field.as_str()
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        field.error(f'invalid value "{text[:80]}": expected an RFC 3339 time such as "2024-05-01T10:00:00Z"')
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


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
        refs.append(
            OwnerReference(
                item.get_str("kind"),
                item.get_str("name"),
                item.get_str("apiVersion"),
                item.get_bool("controller"),
                item.get_str("uid"),
            )
        )
    if sum(ref.controller for ref in refs) > 1:
        metadata.error_at("ownerReferences", "Only one reference can have Controller set to true")
    return tuple(refs)


# ---------------------------------------------------------------------- tolerations


def _toleration(field: Field) -> Optional[Toleration]:
    if not field.expect_map():
        return None
    key_field = field.get("key")
    key = key_field.as_str() if key_field is not None else ""
    if key_field is not None and key:
        check(key_field, key, is_qualified_name(key))
    operator = field.get_str("operator") or "Equal"
    value = field.get_str("value")
    effect = field.get_str("effect")
    ok = _check_toleration(field, key, operator, value, effect)
    seconds = field.get_optional_int("tolerationSeconds") if field.get("tolerationSeconds") is not None else None
    return Toleration(key, operator, value, effect, seconds) if ok else None


def _check_toleration(field: Field, key: str, operator: str, value: str, effect: str) -> bool:
    errors_before = len(field.ctx.errors)
    if not key and operator != "Exists":
        field.error_at(
            "operator",
            f'invalid value "{operator}": operator must be Exists when `key` is empty, '
            'which means "match all values and all keys"',
        )
    if operator == "Exists" and value:
        field.error_at("operator", "value must be empty when `operator` is 'Exists'")
    elif operator == "Equal":
        for message in is_label_value(value):
            field.error_at("value", f'invalid value "{value[:80]}": {message}')
    elif operator not in TOLERATION_OPERATORS:
        field.error_at("operator", f'unsupported value "{operator[:80]}": supported values: "Equal", "Exists"')
    if effect and effect not in TAINT_EFFECTS:
        field.error_at(
            "effect",
            f'unsupported value "{effect[:80]}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        )
    if field.get("tolerationSeconds") is not None:
        field.get_int("tolerationSeconds", 0, -(2**63), 2**63 - 1)  # reported once, here
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


def _dns_label_name(item: Field) -> str:
    """A required `name` that must be a DNS-1123 label (containers, volumes): checked, "" if absent."""
    name_field = _required(item, "name")
    name = name_field.as_str() if name_field is not None else ""
    if name_field is not None and name:
        check(name_field, name, is_dns1123_label(name))
    return name


def _spread_constraint(item: Field) -> Optional[TopologySpreadConstraint]:
    if not item.expect_map():
        return None
    errors_before = len(item.ctx.errors)
    skew_field = _required(item, "maxSkew")
    max_skew = skew_field.as_int(1, 1, INT32_MAX) if skew_field is not None else 1
    key_field = _required(item, "topologyKey")
    key = key_field.as_str() if key_field is not None else ""
    if key_field is not None:
        if not key:
            key_field.error("Required value: can not be empty")
        else:
            check(key_field, key, is_qualified_name(key))
    when = _enum(_required(item, "whenUnsatisfiable"), WHEN_UNSATISFIABLE) or "DoNotSchedule"
    min_domains = item.get_optional_int("minDomains", 1, INT32_MAX)
    if min_domains is not None and when != "DoNotSchedule":
        item.error_at("minDomains", f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}")
    selector = label_selector(item.get("labelSelector"))
    match_label_keys = _match_label_keys(item)
    constraint = TopologySpreadConstraint(
        max_skew,
        key,
        when,
        selector,
        min_domains,
        _enum(item.get("nodeAffinityPolicy"), INCLUSION_POLICIES),
        _enum(item.get("nodeTaintsPolicy"), INCLUSION_POLICIES),
        match_label_keys,
    )
    return constraint if len(item.ctx.errors) == errors_before else None


def _enum(field: Optional[Field], allowed: tuple[str, ...]) -> Optional[str]:
    if field is None:
        return None
    value = field.as_str()
    return value if check_str_enum(field, value, allowed) else None


def _match_label_keys(item: Field) -> tuple[str, ...]:
    keys = []
    for key, key_field in item.get_str_list("matchLabelKeys"):
        # A v1.35 API server merges each key into the labelSelector at creation: a stored pod
        # has it in both, which is accepted (the scheduler merges it again, harmlessly).
        check(key_field, key, is_qualified_name(key))
        keys.append(key)
    return tuple(keys)


# ---------------------------------------------------------------------- containers


def _containers(spec: Field, key: str, required: bool, host_network: bool) -> tuple[Container, ...]:
    items = spec.get_list(key)
    if required and not items:
        spec.error_at(key, "Required value")
    containers = (_container(item, init=not required, host_network=host_network) for item in items)
    return tuple(c for c in containers if c is not None)


def _container(item: Field, init: bool, host_network: bool) -> Optional[Container]:
    if not item.expect_map():
        return None
    name = _dns_label_name(item)
    restart = item.get_str("restartPolicy")
    if restart and restart not in CONTAINER_RESTART_POLICIES:
        # the values ContainerRestartRules allows (v1.35 on); which of them a release takes is
        # checked once it is known (check_gated_pod_fields)
        item.error_at("restartPolicy", f'unsupported value "{restart[:80]}": supported values: {_SUPPORTED_POLICIES}')
    requests, limits = resources.container_resources(item.get("resources"))
    ports = tuple(p for p in (_port(p, host_network, check_host_network=not init) for p in item.get_list("ports")) if p)
    actions = _restart_rule_actions(item, restart)
    return Container(name, item.get_str("image"), requests, ports, restart, limits, actions)


RESTART_ALWAYS = "Always"  # on an init container: a sidecar
CONTAINER_RESTART_POLICIES = (RESTART_ALWAYS, "Never", "OnFailure")
_SUPPORTED_POLICIES = ", ".join(f'"{policy}"' for policy in CONTAINER_RESTART_POLICIES)
RESTART_ALL_CONTAINERS = "RestartAllContainers"  # allowed with RestartAllContainersOnContainerExits
RESTART_RULE_ACTIONS = ("Restart", RESTART_ALL_CONTAINERS)
RESTART_RULE_OPERATORS = ("In", "NotIn")
MAX_RESTART_RULES = 20
MAX_RESTART_RULE_EXIT_CODES = 255


def _restart_rule_actions(item: Field, restart: str) -> tuple[str, ...]:
    """restartPolicyRules' actions, checked as validateContainerRestartPolicy does whatever the
    gates; what the gates decide (ContainerRestartRules drops the rules, RestartAllContainers
    needs its gate) the loader checks once the release is known (check_gated_pod_fields)."""
    rules = item.get_list("restartPolicyRules")
    if not rules:
        return ()
    if not restart:
        item.error_at("restartPolicy", "Required value: must specify restartPolicy when restart rules are used")
    if len(rules) > MAX_RESTART_RULES:
        item.error_at("restartPolicyRules", f"Too many: {len(rules)}: must have at most {MAX_RESTART_RULES} items")
    actions = []
    for rule in rules:
        if not rule.expect_map():
            continue
        action = rule.get_str("action")
        if check_str_enum(rule.get("action") or rule, action, RESTART_RULE_ACTIONS):
            actions.append(action)
        exit_codes = rule.get_map("exitCodes")
        if exit_codes is None:
            rule.error_at("exitCodes", "Required value: must be specified")
            continue
        check_str_enum(exit_codes.get("operator") or exit_codes, exit_codes.get_str("operator"), RESTART_RULE_OPERATORS)
        values = exit_codes.get_list("values")
        if len(values) > MAX_RESTART_RULE_EXIT_CODES:
            exit_codes.error_at(
                "values", f"Too many: {len(values)}: must have at most {MAX_RESTART_RULE_EXIT_CODES} items"
            )
    return tuple(actions)


def _port(item: Field, host_network: bool, check_host_network: bool) -> Optional[ContainerPort]:
    """A container port. On a hostNetwork pod the port listens on the node: a missing hostPort is its
    containerPort (defaultHostNetworkPorts, every container and init container), and a regular
    container's hostPort must equal it (validateHostNetwork)."""
    if not item.expect_map():
        return None
    container_port = item.get_int("containerPort", 0, 1, 65535)
    if item.get("containerPort") is None:
        item.error_at("containerPort", "Required value")
    host_port = item.get_int("hostPort", 0, 0, 65535)
    if host_network:
        if check_host_network and host_port and host_port != container_port:
            item.error_at(
                "containerPort", f"Invalid value: {container_port}: must match `hostPort` when `hostNetwork` is true"
            )
        host_port = host_port or container_port
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
                spec.error_at(
                    "containers", f'Duplicate value: "{port.protocol}/{port.host_ip}/{port.host_port}" (hostPort)'
                )
            seen.add(key)


# ---------------------------------------------------------------------- volumes


def _volumes(spec: Field) -> tuple[Volume, ...]:
    """spec.volumes: unique DNS-1123 names, one source each (none defaults to emptyDir)."""
    volumes: list[Volume] = []
    seen: set[str] = set()
    for item in spec.get_list("volumes"):
        volume = _volume(item)
        if volume is None:
            continue
        if volume.name in seen:
            item.error_at("name", f'Duplicate value: "{volume.name}"')
        seen.add(volume.name)
        volumes.append(volume)
    return tuple(volumes)


def _volume(item: Field) -> Optional[Volume]:
    if not item.expect_map():
        return None
    name = _dns_label_name(item)
    kind = volume_sources.source_kind(item, volume_sources.POD_VOLUME_KINDS, "emptyDir")
    source = item.get_map(kind)
    key = _source_key(item, kind)
    if kind == VOLUME_KIND_CLAIM and source is not None:
        return Volume(
            name, kind, volume_sources.required_str(source, "claimName"), source.get_bool("readOnly"), source_key=key
        )
    if kind == VOLUME_KIND_EPHEMERAL and source is not None:
        _ephemeral_template(source)
    if kind == VOLUME_KIND_CSI and source is not None:
        return Volume(name, kind, csi_driver=volume_sources.required_str(source, "driver"), source_key=key)
    return Volume(name, kind, in_tree=volume_sources.in_tree_source(item, kind), source_key=key)


def _source_key(item: Field, kind: str) -> str:
    """The volume source as canonical JSON (keys sorted, the name left out), for the pod's
    signature; a volume written without a source is the emptyDir the API server makes of it."""
    source = {key: value for key, value in item.value.items() if key != "name"} or {kind: {}}
    return json.dumps(source, sort_keys=True, separators=(",", ":"), default=str)


def _ephemeral_template(source: Field) -> None:
    """A generic ephemeral volume's claim template is checked as the claim it becomes would be; the
    scheduler itself reads the claim the ephemeral volume controller creates, ``<pod>-<volume>``."""
    template = source.get_map("volumeClaimTemplate")
    if template is None:
        source.error_at("volumeClaimTemplate", "Required value")
        return
    spec = template.get_map("spec")
    if spec is None:
        template.error_at("spec", "Required value")
        return
    volume_sources.claim_spec(spec)


# ---------------------------------------------------------------------- fields the release's gates decide


Refuse = Callable[[str, str], None]  # (field path from the pod's root, the API server's message)


def gated_as_written(pods: list[Pod]) -> dict[int, Pod]:
    """Copies of the pods that hold a field some release drops or refuses, by index, taken before
    ``check_gated_pod_fields`` settles them (it replaces those fields, never changes them in place)."""
    return {
        index: copy.copy(pod)
        for index, pod in enumerate(pods)
        if pod.pod_level_requests
        or pod.host_users is not None
        or any(c.restart_policy or c.restart_rule_actions for c in (*pod.containers, *pod.init_containers))
    }


def pods_as_released(
    pods: list[Pod], gated: dict[int, Pod], gates: FeatureGates
) -> tuple[list[Pod], list[ScenarioError]]:
    """``pods`` with each pod of ``gated`` settled again as ``gates``' release settles it (an
    upgrade comparison replays one loaded scenario as two releases), and what that release refuses."""
    errors: list[ScenarioError] = []
    settled = list(pods)
    for index, written in gated.items():
        pod = copy.copy(written)
        settle_gated_fields(pod, gates, _refusing(pod, errors))
        settled[index] = pod
    return settled, errors


def check_gated_pod_fields(pods: list[Pod], gates: FeatureGates, errors: list[ScenarioError]) -> list[str]:
    """What the release's API server does with gated pod fields, once the release is known:
    dropDisabledPodFields drops pod-level resources without PodLevelResources, hostUsers without
    UserNamespacesSupport and the containers' restart policies (an init container's Always
    excepted) and rules without ContainerRestartRules; validation refuses what the gates do not
    allow. The fields dropped are returned, "Pod ns/name: path (Gate)", for the loader's notice."""
    dropped: list[str] = []
    for pod in pods:
        dropped.extend(f"Pod {pod.key}: {path}" for path in settle_gated_fields(pod, gates, _refusing(pod, errors)))
    return dropped


def settle_gated_fields(pod: Pod, gates: FeatureGates, refuse: Refuse) -> list[str]:
    """One pod (the scenario's, or a workload template's or a step's pod decoded as one): what the
    release drops is dropped from ``pod`` (dropDisabledPodFields; each returned as "path (Gate)"),
    what it refuses goes to ``refuse`` with its path."""
    dropped: list[str] = []
    if not gates.enabled("PodLevelResources") and pod.pod_level_requests:
        pod.pod_level_requests = {}  # the scheduler then counts the containers' requests
        dropped.append("spec.resources (PodLevelResources)")
    if not gates.enabled("UserNamespacesSupport") and pod.host_users is not None:
        pod.host_users = None
        dropped.append("spec.hostUsers (UserNamespacesSupport)")
    if gates.enabled("ContainerRestartRules"):
        _check_restart_rules(pod, gates.enabled("RestartAllContainersOnContainerExits"), refuse)
    elif gates.known("ContainerRestartRules"):
        containers, init_containers = pod.containers, pod.init_containers
        pod.containers = _restart_rules_dropped(pod.containers, init=False)
        pod.init_containers = _restart_rules_dropped(pod.init_containers, init=True)
        if (pod.containers, pod.init_containers) != (containers, init_containers):
            dropped.append("the containers' restartPolicy and restartPolicyRules (ContainerRestartRules)")
    else:
        _check_restart_policies_before_rules(pod, refuse)
    if pod.host_network and pod.host_users is False and not gates.enabled("UserNamespacesHostNetworkSupport"):
        refuse("spec.hostNetwork", "Forbidden: when `hostUsers` is false")
    return dropped


def refused_at_load(path: str, message: str) -> None:
    """The refusal callback for a pod made during a run from a template or a step: what the
    release refuses in it was refused when the scenario loaded (changes.finish), so only the
    drops are left to make."""


def _refusing(pod: Pod, errors: list[ScenarioError]) -> Refuse:
    """A scenario pod's refusals: each an error naming the pod, the field and the pod's line."""

    def refuse(path: str, message: str) -> None:
        errors.append(ScenarioError(f"Pod {pod.key}", path, pod.line, message))

    return refuse


def _check_restart_rules(pod: Pod, restart_all: bool, refuse: Refuse) -> None:
    """validateContainerRestartPolicy's gated parts: RestartAllContainers needs its gate, and so do
    rules on a sidecar (validateInitContainerRestartPolicy)."""
    for key, containers in (("containers", pod.containers), ("initContainers", pod.init_containers)):
        for i, container in enumerate(containers):
            if restart_all:
                continue
            if (
                key == "initContainers"
                and container.restart_policy == RESTART_ALWAYS
                and container.restart_rule_actions
            ):
                message = "Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always"
                refuse(f"spec.{key}[{i}].restartPolicyRules", message)
                continue
            for j, action in enumerate(container.restart_rule_actions):
                if action == RESTART_ALL_CONTAINERS:
                    message = f'Unsupported value: "{action}": supported values: "Restart"'
                    refuse(f"spec.{key}[{i}].restartPolicyRules[{j}].action", message)


def _check_restart_policies_before_rules(pod: Pod, refuse: Refuse) -> None:
    """v1.32, v1.33 (no ContainerRestartRules): only an init container may have a restart policy,
    Always; restartPolicyRules is a field these releases do not know (not read)."""
    for i, container in enumerate(pod.init_containers):
        if container.restart_policy and container.restart_policy != RESTART_ALWAYS:
            message = f'unsupported value "{container.restart_policy}": supported values: "{RESTART_ALWAYS}"'
            refuse(f"spec.initContainers[{i}].restartPolicy", message)
    for i, container in enumerate(pod.containers):
        if container.restart_policy:
            refuse(f"spec.containers[{i}].restartPolicy", "Forbidden: may not be set for non-init containers")
    pod.containers = _restart_rules_dropped(pod.containers, init=False)
    pod.init_containers = _restart_rules_dropped(pod.init_containers, init=True)


def _restart_rules_dropped(containers: tuple[Container, ...], init: bool) -> tuple[Container, ...]:
    """dropContainerRestartRules: no rules, and no restart policy but an init container's Always."""

    def kept(container: Container) -> Container:
        policy = container.restart_policy if init and container.restart_policy == RESTART_ALWAYS else ""
        if policy == container.restart_policy and not container.restart_rule_actions:
            return container
        return replace(container, restart_policy=policy, restart_rule_actions=())

    return tuple(kept(c) for c in containers)
