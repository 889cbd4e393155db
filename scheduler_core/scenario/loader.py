"""load_scenario: a YAML stream (or a kind: List, YAML or JSON) of Kubernetes objects -> model.Scenario.

Reads everything, collects every problem (object, field path, line, message) and raises
``ScenarioInvalid`` with all of them; no other exception leaves ``load_scenario``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from scheduler_core.model import (
    DraObjects,
    Namespace,
    Node,
    Notice,
    NoticeCode,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Scenario,
    SchedulerConfiguration,
    Service,
    StorageObjects,
    Workload,
)
from scheduler_core.dra.claims import pods_held_at_pre_enqueue
from scheduler_core.scenario import config as config_decoder
from scheduler_core.scenario import dra, objects, pods, storage
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.metadata import Metadata, read_metadata
from scheduler_core.scenario.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
)
from scheduler_core.scenario.yamltree import Document, compose

FILE = "scenario"  # the object named by whole-file problems


@dataclass(frozen=True, slots=True)
class Kind:
    api_versions: tuple[str, ...]
    name_check: Callable[[str], list[str]]
    namespaced: bool


KINDS: dict[str, Kind] = {
    "Namespace": Kind(("v1",), is_dns1123_label, False),
    "Node": Kind(("v1",), is_dns1123_subdomain, False),
    "Pod": Kind(("v1",), is_dns1123_subdomain, True),
    "Service": Kind(("v1",), is_dns1035_label, True),
    "ReplicationController": Kind(("v1",), is_dns1123_subdomain, True),
    "ReplicaSet": Kind(("apps/v1",), is_dns1123_subdomain, True),
    "StatefulSet": Kind(("apps/v1",), is_dns1123_subdomain, True),
    "PriorityClass": Kind(("scheduling.k8s.io/v1",), is_dns1123_subdomain, False),
    "PodDisruptionBudget": Kind(("policy/v1",), is_dns1123_subdomain, True),
    **{kind: Kind((api_version,), is_dns1123_subdomain, namespaced)
       for kind, (api_version, namespaced) in storage.KINDS.items()},
    **{kind: Kind((dra.API_VERSION,), is_dns1123_subdomain, namespaced) for kind, namespaced in dra.KINDS.items()},
}
CONFIG_KIND = "KubeSchedulerConfiguration"
LIST_KIND = "List"


@dataclass
class _Collected:
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    services: list[Service] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    config: Optional[SchedulerConfiguration] = None
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    storage: StorageObjects = field(default_factory=StorageObjects)
    dra: DraObjects = field(default_factory=DraObjects)
    dra_dropped: list[str] = field(default_factory=list)  # fields of DRA features that are off
    pending_volumes: list[str] = field(default_factory=list)  # PVs without status.phase
    seen: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (kind, ns, name) -> line
    ignored: Counter = field(default_factory=Counter)  # kind -> objects the scheduler does not read
    # Every pod with its object and whether spec.priority is written, for the Priority admission.
    admitted: list[tuple[Pod, Field, bool]] = field(default_factory=list)


class _LimitReached(Exception):
    """Stop reading: the scenario is over a size limit (already recorded as an error)."""


def load_scenario(text: Union[str, bytes], *, limits: Optional[Limits] = None) -> Scenario:
    limits = limits or Limits()
    errors: list[ScenarioError] = []
    try:
        with collector_paused():
            scenario = _load(text, limits, errors)
    except _LimitReached:
        scenario = None
    except RecursionError:
        errors.append(ScenarioError(FILE, "", None, "the scenario is nested too deeply to read"))
        scenario = None
    except Exception as err:  # noqa: BLE001 - the API promises ScenarioInvalid only; tests show none happen
        errors.append(ScenarioError(FILE, "", None, f"internal error while reading the scenario: {err!r}"))
        scenario = None
    if errors or scenario is None:
        raise ScenarioInvalid(errors or [ScenarioError(FILE, "", None, "the scenario could not be read")])
    return scenario


def _load(text: Union[str, bytes], limits: Limits, errors: list[ScenarioError]) -> Optional[Scenario]:
    decoded = _decode_text(text, limits, errors)
    if decoded is None:
        return None
    documents, problems = compose(decoded, limits)
    errors.extend(ScenarioError(f"document {p.document}", "", p.line, p.message) for p in problems)
    collected = _Collected()
    for document in documents:
        _read_document(document, collected, limits, errors)
    _finish(collected, limits, errors)
    return Scenario(collected.nodes, collected.pods, collected.namespaces, collected.services,
                    collected.workloads, collected.config, collected.priority_classes, _notices(collected),
                    pdbs=collected.pdbs, storage=collected.storage, dra=collected.dra)


def _decode_text(text: Union[str, bytes], limits: Limits, errors: list[ScenarioError]) -> Optional[str]:
    if not isinstance(text, (str, bytes)):
        errors.append(ScenarioError(FILE, "", None, f"expected text or bytes, got {type(text).__name__}"))
        return None
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > limits.max_bytes:
        errors.append(ScenarioError(FILE, "", None, f"the scenario is {size} bytes, more than the limit of "
                                                    f"{limits.max_bytes} (Limits.max_bytes)"))
        return None
    if isinstance(text, str):
        return _check_str(text, errors)
    try:
        return text.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = text.count(b"\n", 0, err.start) + 1
        errors.append(ScenarioError(FILE, "", line, f"the file is not valid UTF-8 (byte 0x{text[err.start]:02x} "
                                                    f"at offset {err.start})"))
        return None


def _check_str(text: str, errors: list[ScenarioError]) -> Optional[str]:
    """A str can hold lone surrogates (from bad decoding upstream): not UTF-8, and libyaml would choke."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        line = text.count("\n", 0, err.start) + 1
        errors.append(ScenarioError(FILE, "", line, "the text is not valid UTF-8 (lone surrogate)"))
        return None
    return text.removeprefix("\ufeff")


# ---------------------------------------------------------------------- documents


def _read_document(document: Document, collected: _Collected, limits: Limits, errors: list[ScenarioError]) -> None:
    value = document.value
    if value is None:
        return  # an empty document ("---" at the end of a stream)
    label = f"document {document.index}"
    root = Field(value, "", getattr(value, "line", document.line), Context(label, errors))
    if not root.expect_map():
        return
    if root.get_str("kind") == LIST_KIND:
        _read_list(root, label, collected, limits, errors)
    else:
        _read_object(root, collected, limits)


def _read_list(root: Field, label: str, collected: _Collected, limits: Limits, errors: list[ScenarioError]) -> None:
    items = root.get("items")
    if items is None:
        return
    for index, item in enumerate(items.items()):
        item.ctx = Context(f"{label} items[{index}]", errors)
        if item.expect_map():
            _read_object(Field(item.value, "", item.line, item.ctx), collected, limits)


def _read_object(obj: Field, collected: _Collected, limits: Limits) -> None:
    kind_field = obj.get("kind")
    if kind_field is not None and not isinstance(kind_field.value, str):
        _name_the_object(obj)
        kind_field.as_str()  # the one error: kind is not a string (a list item names its object)
        return
    kind = kind_field.as_str() if kind_field is not None else ""
    api_version = obj.get_str("apiVersion")
    if kind == CONFIG_KIND:
        _read_config(obj, api_version, collected)
        return
    spec = KINDS.get(kind)
    if spec is None:
        _other_kind(obj, kind, collected)
        return
    meta = read_metadata(obj, kind, spec.name_check, spec.namespaced)  # errors below name the object
    if api_version and api_version not in spec.api_versions:
        obj.error_at("apiVersion", f'unsupported value "{api_version[:80]}" for kind {kind}: supported values: '
                                   + ", ".join(f'"{v}"' for v in spec.api_versions))
    if meta.name and not _register(obj, kind, meta, collected):
        return
    _add(obj, kind, meta, collected, limits)


def _other_kind(obj: Field, kind: str, collected: _Collected) -> None:
    """Any other object is accepted and counted as ignored (the scheduler does not read it); an
    object without a kind is not a Kubernetes object at all."""
    if kind:
        collected.ignored[kind[:80]] += 1
        return
    _name_the_object(obj)
    obj.error_at("kind", "Required value: every object needs apiVersion and kind "
                         f"(the scheduler reads {', '.join([*KINDS, CONFIG_KIND])}; other kinds are ignored)")


def _name_the_object(obj: Field) -> None:
    """Errors about an object without a usable kind name it by metadata.name when it has one."""
    metadata = obj.get("metadata")
    name = metadata.get_str("name") if metadata is not None and metadata.expect_map() else ""
    if name:
        obj.ctx.object = f"object {name[:80]}"


def _register(obj: Field, kind: str, meta: Metadata, collected: _Collected) -> bool:
    """Duplicate names are refused as the API server would (AlreadyExists)."""
    key = (kind, meta.namespace, meta.name)
    first = collected.seen.get(key)
    if first is not None:
        metadata = obj.get("metadata")
        (metadata or obj).error_at("name", f'Duplicate value: {kind} "{meta.name}" already defined at line {first}')
        return False
    collected.seen[key] = obj.line
    return True


def _add(obj: Field, kind: str, meta: Metadata, collected: _Collected, limits: Limits) -> None:
    if kind == "Pod":
        _check_limit(obj, len(collected.pods), limits.max_pods, "pods", "max_pods")
        pod = pods.decode_pod(obj, meta, len(collected.pods))
        collected.pods.append(pod)
        collected.admitted.append((pod, obj, pods.has_priority(obj)))
    elif kind == "Node":
        _check_limit(obj, len(collected.nodes), limits.max_nodes, "nodes", "max_nodes")
        collected.nodes.append(objects.decode_node(obj, meta, len(collected.nodes)))
    elif kind == "Namespace":
        collected.namespaces[meta.name] = objects.decode_namespace(meta)
    elif kind == "Service":
        collected.services.append(objects.decode_service(obj, meta))
    elif kind == "PodDisruptionBudget":
        collected.pdbs.append(objects.decode_pod_disruption_budget(obj, meta))
    elif kind == "PriorityClass":
        collected.priority_classes[meta.name] = objects.decode_priority_class(obj, meta)
    elif kind == "ReplicationController":
        collected.workloads.append(objects.decode_replication_controller(obj, meta))
    elif kind in dra.KINDS:
        dra.add(collected.dra, obj, kind, meta, collected.dra_dropped)
    elif kind in storage.KINDS:
        if storage.add(collected.storage, obj, kind, meta):
            collected.pending_volumes.append(meta.name)
    else:
        collected.workloads.append(objects.decode_workload(obj, meta, kind))


def _check_limit(obj: Field, count: int, limit: int, what: str, name: str) -> None:
    if count >= limit:
        obj.ctx.error("", obj.line, f"more than {limit} {what} (Limits.{name})")
        raise _LimitReached()


def _read_config(obj: Field, api_version: str, collected: _Collected) -> None:
    obj.ctx.object = CONFIG_KIND
    if api_version and api_version != config_decoder.CONFIG_API_VERSION:
        obj.error_at("apiVersion", f'unsupported value "{api_version[:80]}": supported values: '
                                   f'"{config_decoder.CONFIG_API_VERSION}"')
    if collected.config is not None:
        obj.error(f"only one {CONFIG_KIND} is allowed (the first is at line {collected.config.line})")
        return
    errors_before = len(obj.ctx.errors)
    collected.config = config_decoder.decode_config(obj)
    if len(obj.ctx.errors) == errors_before:  # build the profile only from a well-formed config
        config_decoder.validate_config(collected.config, obj)


# ---------------------------------------------------------------------- whole-scenario checks


def _finish(collected: _Collected, limits: Limits, errors: list[ScenarioError]) -> None:
    _ensure_namespaces(collected)
    _resolve_priorities(collected)
    storage.finish(collected.storage)
    for pod in collected.pods:
        if pod.claim_sources and not pod.uid:  # reservations and owner references name pods by uid
            pod.uid = f"uid-pod-{pod.namespace}-{pod.name}"
    pending = [pod for pod in collected.pods if not pod.node_name]
    if len(pending) > limits.max_pending_pods:
        errors.append(ScenarioError(FILE, "", pending[limits.max_pending_pods].line,
                                    f"{len(pending)} pending pods, more than {limits.max_pending_pods} "
                                    "(Limits.max_pending_pods)"))


def _resolve_priorities(collected: _Collected) -> None:
    """The Priority admission plugin: a pod's class is the one it names (the two system classes
    always exist) or, naming none, the lowest-valued globalDefault class. A pod written without
    ``spec.priority`` takes the class's value (0 without a class); a pod without
    ``spec.preemptionPolicy`` takes the class's policy. A stored pod already carries both."""
    classes = {**objects.SYSTEM_PRIORITY_CLASSES, **collected.priority_classes}
    default = min((c for c in collected.priority_classes.values() if c.global_default),
                  key=lambda c: c.value, default=None)
    for pod, obj, priority_written in collected.admitted:
        spec = obj.get("spec")
        if spec is None:
            continue
        priority_class = classes.get(pod.priority_class_name) if pod.priority_class_name else default
        if priority_class is None:
            if pod.priority_class_name and not priority_written:
                spec.error_at("priorityClassName", f'no PriorityClass with name "{pod.priority_class_name}" '
                                                   "was found (add it to the scenario, or set spec.priority)")
            continue
        if not priority_written:
            pod.priority = priority_class.value
            pod.priority_class_name = priority_class.name
        if spec.get("preemptionPolicy") is None:
            pod.preemption_policy = priority_class.preemption_policy


def _notices(collected: _Collected) -> list[Notice]:
    """What the loader leaves out, said once each: other kinds, finished pods, pods on absent nodes."""
    notices: list[Notice] = []
    if collected.ignored:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(collected.ignored.items()))
        notices.append(Notice(NoticeCode.IGNORED_KINDS, f"ignored (the scheduler does not read them): {counts}"))
    finished = [p for p in collected.pods if p.is_finished]
    if finished:
        notices.append(Notice(NoticeCode.FINISHED_PODS, f"{len(finished)} finished pod(s) (phase Succeeded or Failed) "
                              "left out: the scheduler does not see them", tuple(f"Pod {p.key}" for p in finished)))
    pending_volumes = storage.pending_volumes_notice(collected.pending_volumes)
    if pending_volumes is not None:
        notices.append(pending_volumes)
    if collected.dra_dropped:
        notices.append(Notice(NoticeCode.DRA_FEATURE_OFF,
                              f"{len(collected.dra_dropped)} field(s) of DRA features that are off by default in "
                              "v1.35.4 dropped, as the API server drops them: " + "; ".join(collected.dra_dropped[:5])
                              + ("; ..." if len(collected.dra_dropped) > 5 else ""), tuple(collected.dra_dropped)))
    held = pods_held_at_pre_enqueue([p for p in collected.pods if not p.is_finished], collected.dra)
    if held:
        notices.append(Notice(NoticeCode.RESOURCE_CLAIMS,
                              f"{len(held)} pending pod(s) whose resource claims are missing or not theirs: "
                              "DynamicResources' PreEnqueue holds them, never attempted (" + held[0][1]
                              + (", ..." if len(held) > 1 else "") + ")", tuple(f"Pod {p.key}" for p, _ in held)))
    node_names = {node.name for node in collected.nodes}
    absent = [p for p in collected.pods if p.node_name and p.node_name not in node_names and not p.is_finished]
    if absent:
        missing = ", ".join(sorted({p.node_name for p in absent})[:5])
        notices.append(Notice(NoticeCode.MISSING_NODE, f"{len(absent)} pod(s) bound to node(s) not in the scenario "
                              f"({missing}{', ...' if len({p.node_name for p in absent}) > 5 else ''}) ignored",
                              tuple(f"Pod {p.key}" for p in absent)))
    return notices


def _ensure_namespaces(collected: _Collected) -> None:
    """A namespace a pod lives in or an affinity term names exists, with no labels unless declared."""
    namespaces = collected.namespaces
    for pod in collected.pods:
        for name in (pod.namespace, *_term_namespaces(pod)):
            if name not in namespaces:
                namespaces[name] = Namespace(name)


def _term_namespaces(pod: Pod) -> list[str]:
    affinity = pod.affinity
    if affinity is None:
        return []
    names: list[str] = []
    for group in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if group is None:
            continue
        terms = [*group.required, *(w.term for w in group.preferred)]
        names.extend(ns for term in terms for ns in term.namespaces)
    return names
