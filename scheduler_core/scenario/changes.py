"""The ``Changes`` document (../shared/spec/CHANGES.md) and the workloads its stand-in controllers read.

The loader hands every object it reads to ``note_object``; a ``Changes`` document is kept aside.
Once the whole scenario is read, ``finish`` decodes the steps — each operation checked against the
scenario and against what earlier steps create or delete — and the Deployments, ReplicaSets,
StatefulSets, DaemonSets and Jobs, the budgets' specs and the manifests of nodes and pods. Without
a Changes document nothing of this happens: the run is the timeline of ../shared/spec/TIMELINE.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from scheduler_core.model import (
    CONTROLLED_KINDS,
    KIND_DAEMON_SET,
    KIND_DEPLOYMENT,
    KIND_JOB,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    LabelSelector,
    Manifest,
    POLICY_ORDERED_READY,
    POLICY_PARALLEL,
    AddNodesOp,
    Changes,
    CompleteOp,
    ControlledWorkload,
    CordonOp,
    CreateOp,
    DeleteNodesOp,
    DeleteOp,
    DrainOp,
    Node,
    Notice,
    NoticeCode,
    ObjectRef,
    Operation,
    OperationSpec,
    OwnerReference,
    PatchOp,
    Pod,
    ScaleOp,
    Step,
    UnusableWorkload,
)
from scheduler_core.model.labels import compile_selector
from scheduler_core.release.gates import FeatureGates
from scheduler_core.scenario import manifests, objects, pods
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.fields import INT32_MAX, Context, Field
from scheduler_core.scenario.metadata import DEFAULT_NAMESPACE, Metadata, read_metadata
from scheduler_core.scenario.pods import owner_references
from scheduler_core.scenario.selectors import label_selector
from scheduler_core.scenario.unknown_fields import check_written
from scheduler_core.scenario.validation import is_dns1123_subdomain, label_map
from scheduler_core.scenario.yamltree import YMap

KIND = "Changes"
API_VERSION = "schedlab.io/v1alpha1"
ANN_REVISION = "deployment.kubernetes.io/revision"
ANN_DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"  # deploymentutil.DesiredReplicasAnnotation
ANN_MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"  # deploymentutil.MaxReplicasAnnotation
SCALABLE_KINDS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_JOB)
# What a step may create, patch or delete (the kinds the run follows as they change).
WRITABLE_KINDS = (
    "Pod",
    "Node",
    "PodDisruptionBudget",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    *CONTROLLED_KINDS,
)
PATCHABLE_KINDS = ("Node", "PodDisruptionBudget", *CONTROLLED_KINDS)
CLUSTER_SCOPED = ("Node", "PersistentVolume", "StorageClass")
# Workload kinds only the stand-ins read (the loader counts them as ignored): checked here.
_UNREGISTERED_KINDS = {KIND_DEPLOYMENT: "apps/v1", KIND_DAEMON_SET: "apps/v1", KIND_JOB: "batch/v1"}
VERBS = (
    "scale",
    "drain",
    "cordon",
    "uncordon",
    "addNodes",
    "deleteNodes",
    "patch",
    "set",
    "create",
    "delete",
    "complete",
)
# `set`: the template fields a rollout usually changes (kubectl set image / resources, and the
# placement fields); each becomes a JSON merge patch of the Deployment's spec.template.
SET_KINDS = (KIND_DEPLOYMENT, KIND_STATEFUL_SET, KIND_DAEMON_SET)
SET_CONTAINER_FIELDS = ("image", "requests", "limits")
SET_POD_FIELDS = ("nodeSelector", "affinity", "tolerations")
SET_FIELDS = ("kind", "namespace", "name", "container", *SET_CONTAINER_FIELDS, *SET_POD_FIELDS)
STRATEGY_TYPES = ("RollingUpdate", "Recreate")
# The document's unusableWorkloads: Refuse (the default) makes a workload the stand-ins cannot use an
# error; Ignore sets it aside and names it with why (a dump's objects, as capacity questions read them).
UNUSABLE_FIELD = "unusableWorkloads"
UNUSABLE_REFUSE, UNUSABLE_IGNORE = "Refuse", "Ignore"


@dataclass
class ChangesInput:
    """What the loader collects for ``finish``: the Changes documents and every object read."""

    documents: list[Field] = field(default_factory=list)
    # (kind, apiVersion, object), document order; the apiVersion its list or file gives it when it has none
    objects: list[tuple[str, str, Field]] = field(default_factory=list)
    # False when no text read can hold a Changes document (its kind's name is nowhere in them): the
    # objects are then not kept, so a big dump's trees go as they are read (yamltree.compose_runs).
    keep_objects: bool = True


def note_object(obj: Field, kind: str, collected: ChangesInput, api_version: str = "") -> bool:
    """Remember an object (``api_version``: its own, else its typed list's, as the loader reads it);
    True when it is a Changes document (the loader reads nothing more of it)."""
    if kind == KIND:
        collected.documents.append(obj)
        return True
    if collected.keep_objects:
        collected.objects.append((kind, api_version, obj))
    return False


def finish(
    collected: ChangesInput,
    nodes: list[Node],
    scenario_pods: list[Pod],
    errors: list[ScenarioError],
    gates: Optional[FeatureGates] = None,
) -> Optional[Changes]:
    """The decoded Changes (None without a document); every problem goes to ``errors``. ``gates``:
    the release's, which decide what its API server refuses in a pod template or a step's pod."""
    if not collected.documents:
        return None
    document = collected.documents[0]
    document.ctx.object = KIND
    for extra in collected.documents[1:]:
        extra.ctx.object = KIND
        extra.error(f"only one {KIND} document is allowed (the first is at line {document.line})")
    api_version = document.get_str("apiVersion")
    if api_version != API_VERSION:
        document.error_at("apiVersion", f'expected "{API_VERSION}", got "{api_version[:80]}"')
    changes = Changes((), line=document.line)
    names = _Names(nodes, scenario_pods, gates)
    ignore_unusable = _ignores_unusable(document)
    for kind, api_version, obj in collected.objects:
        if ignore_unusable and (kind in CONTROLLED_KINDS or kind in _UNREGISTERED_KINDS):
            _read_or_set_aside(kind, api_version, obj, changes, names)
        else:
            _read_object(kind, api_version, obj, changes, names, errors)
    names.manifests = dict(changes.manifests)
    changes.steps = tuple(_steps(document, names))
    return changes


def _ignores_unusable(document: Field) -> bool:
    mode = document.get_str(UNUSABLE_FIELD, UNUSABLE_REFUSE)
    if mode not in (UNUSABLE_REFUSE, UNUSABLE_IGNORE):
        document.error_at(
            UNUSABLE_FIELD,
            f'Unsupported value: "{mode[:40]}": supported values: "{UNUSABLE_IGNORE}", "{UNUSABLE_REFUSE}"',
        )
    return mode == UNUSABLE_IGNORE


def unusable_notice(changes: Optional[Changes]) -> list[Notice]:
    """The workloads set aside, each with why (none: no notice)."""
    if changes is None or not changes.unusable:
        return []
    return [
        Notice(
            NoticeCode.UNUSABLE_WORKLOADS,
            f"{len(changes.unusable)} workload(s) the controllers cannot use, left out "
            "(their pods stay as they are, nothing makes more)",
            tuple(w.text for w in changes.unusable),
        )
    ]


# ---------------------------------------------------------------------- the scenario's objects


class _Names:
    """Which objects exist, as the steps go: checked by each operation, changed by it."""

    def __init__(self, nodes: list[Node], scenario_pods: list[Pod], gates: Optional[FeatureGates] = None) -> None:
        self.gates = gates  # the release's: its API server's checks of the pods written
        self.node_labels: dict[str, dict[str, str]] = {node.name: dict(node.labels) for node in nodes}
        self.objects: set[ObjectRef] = {ObjectRef("Pod", pod.namespace, pod.name) for pod in scenario_pods}
        self.objects.update(ObjectRef("Node", "", node.name) for node in nodes)
        self.manifests: dict[ObjectRef, Any] = {}  # workloads as the steps so far leave them
        self.unusable: dict[ObjectRef, UnusableWorkload] = {}  # set aside: no step may name them

    def exists(self, ref: ObjectRef) -> bool:
        return ref in self.objects

    def add(self, ref: ObjectRef, labels: Optional[dict[str, str]] = None) -> None:
        self.objects.add(ref)
        if ref.kind == "Node":
            self.node_labels[ref.name] = dict(labels or {})

    def remove(self, ref: ObjectRef) -> None:
        self.objects.discard(ref)
        self.manifests.pop(ref, None)
        if ref.kind == "Node":
            self.node_labels.pop(ref.name, None)


def _read_or_set_aside(kind: str, api_version: str, obj: Field, changes: Changes, names: _Names) -> None:
    """A workload read as ``_read_object`` reads it, its problems kept apart: with any, it is set
    aside (named with its first problem), as kube-controller-manager could not use it either."""
    problems: list[ScenarioError] = []
    own = Field(obj.value, obj.path, obj.line, Context(obj.ctx.object, problems, obj.ctx.file, obj.ctx.kept))
    before = len(changes.workloads)
    _read_object(kind, api_version, own, changes, names, problems)
    if not problems:
        return
    del changes.workloads[before:]
    meta = _name_and_namespace(obj.value, True)
    ref = ObjectRef(kind, meta.namespace, meta.name)
    if changes.manifests.get(ref) is obj.value:
        del changes.manifests[ref]
    first = problems[0]
    where = " ".join(part for part in (first.file or "", f"line {first.line}" if first.line else "") if part)
    reason = f"{first.path + ': ' if first.path else ''}{first.message}" + (f" ({where})" if where else "")
    if len(problems) > 1:
        reason += f" and {len(problems) - 1} more problem(s)"
    unusable = UnusableWorkload(kind, meta.namespace, meta.name, reason)
    changes.unusable.append(unusable)
    if not any(ObjectRef(w.kind, w.namespace, w.name) == ref for w in changes.workloads):
        names.unusable[ref] = unusable  # (a second one of a usable workload's name leaves that one usable)


def _read_object(
    kind: str, api_version: str, obj: Field, changes: Changes, names: _Names, errors: list[ScenarioError]
) -> None:
    namespaced = kind not in CLUSTER_SCOPED and kind not in (
        "Namespace",
        "PriorityClass",
        "StorageClass",
        "PersistentVolume",
        "CSINode",
        "CSIDriver",
    )
    if kind in _UNREGISTERED_KINDS or kind in CONTROLLED_KINDS or kind == "PodDisruptionBudget":
        quiet = Field(obj.value, obj.path, obj.line, Context(obj.ctx.object, []))  # metadata was checked already
        meta = read_metadata(quiet if kind not in _UNREGISTERED_KINDS else obj, kind, is_dns1123_subdomain, namespaced)
    else:  # only the name and namespace are read below (the loader checked the metadata)
        meta = _name_and_namespace(obj.value, namespaced)
    if not meta.name:
        return
    ref = ObjectRef(kind, meta.namespace if namespaced else "", meta.name)
    if kind in _UNREGISTERED_KINDS:  # kinds the loader itself does not check (an apiVersion left out: as it does)
        api_version = obj.get_str("apiVersion") or api_version
        if api_version and api_version != _UNREGISTERED_KINDS[kind]:
            obj.error_at(
                "apiVersion",
                f'unsupported value "{api_version[:80]}" for kind {kind}: supported values: '
                f'"{_UNREGISTERED_KINDS[kind]}"',
            )
        if names.exists(ref):
            obj.error_at("metadata.name", f'Duplicate value: {kind} "{meta.name}" is defined twice')
            return
    names.add(ref)
    if kind in WRITABLE_KINDS:
        changes.manifests[ref] = obj.value
    if kind in CONTROLLED_KINDS:
        workload = decode_workload(kind, obj, meta.namespace, meta.name, meta.uid, meta.labels, names.gates)
        if workload is not None:
            changes.workloads.append(workload)
    elif kind == "PodDisruptionBudget":
        changes.budgets[f"{meta.namespace}/{meta.name}"] = manifests.budget_spec(quiet, meta)


def _name_and_namespace(value: Any, namespaced: bool) -> Metadata:
    """The name and namespace ``read_metadata`` reads (its checks and labels left out): every
    scenario object's, without validating its labels a second time."""
    namespace = DEFAULT_NAMESPACE if namespaced else ""
    metadata = value.get("metadata") if isinstance(value, YMap) else None
    if not isinstance(metadata, YMap):
        return Metadata("", namespace)
    name = metadata.get("name")
    written = metadata.get("namespace")
    if namespaced and isinstance(written, str) and written:
        namespace = written
    return Metadata(name if isinstance(name, str) else "", namespace)


def decode_workload(
    kind: str,
    obj: Field,
    namespace: str,
    name: str,
    uid: str,
    labels: dict[str, str],
    gates: Optional[FeatureGates] = None,
) -> Optional[ControlledWorkload]:
    """apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job: what the stand-ins read.
    The pod template is decoded once as a pod here, so a bad template is reported at load time
    (with ``gates``, also what the release's API server refuses in it)."""
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return None
    template = spec.get_map("template")
    if template is None:
        spec.error_at("template", "Required value")
        return None
    selector_field = spec.get("selector")
    selector = label_selector(selector_field)
    if kind != KIND_JOB and selector is None:
        spec.error_at("selector", "Required value")
    template_metadata = template.get_map("metadata")
    template_labels = label_map(template_metadata.get("labels")) if template_metadata is not None else {}
    if selector is not None and not selector.is_empty and not _selects(selector, template_labels):
        spec.error_at("template", "metadata.labels: Invalid value: `selector` does not match template `labels`")
    _check_template(template, namespace, name, gates)
    workload = ControlledWorkload(
        kind,
        namespace,
        name,
        uid or f"uid-{namespace}-{name}",
        selector,
        template.value,
        labels=labels,
        manifest=obj.value,
        line=obj.line,
    )
    if kind == KIND_JOB:
        workload.replicas = spec.get_int("parallelism", 1, 0, INT32_MAX)
    elif kind != KIND_DAEMON_SET:
        workload.replicas = spec.get_int("replicas", 1, 0, INT32_MAX)
    if kind != KIND_JOB:
        workload.min_ready_seconds = spec.get_int("minReadySeconds", 0, 0, INT32_MAX)
    if kind == KIND_DEPLOYMENT:
        _check_strategy(spec)
        _check_deployment_spec(spec, workload.min_ready_seconds)
    if kind == KIND_DAEMON_SET:
        _check_daemon_update_strategy(spec)
    if kind == KIND_REPLICA_SET:
        owner = next((ref for ref in owner_references(obj) if ref.controller and ref.kind == KIND_DEPLOYMENT), None)
        workload.owner = owner
        revision = _annotation(obj, ANN_REVISION)
        workload.revision = int(revision) if revision.isdigit() else 0
        workload.annotations = {
            key: value for key in (ANN_DESIRED_REPLICAS, ANN_MAX_REPLICAS) if (value := _annotation(obj, key))
        }
    if kind == KIND_STATEFUL_SET:
        policy = spec.get_str("podManagementPolicy", POLICY_ORDERED_READY)
        if policy not in (POLICY_ORDERED_READY, POLICY_PARALLEL):
            spec.error_at(
                "podManagementPolicy",
                f'Unsupported value: "{policy[:40]}": supported values: "{POLICY_ORDERED_READY}", "{POLICY_PARALLEL}"',
            )
        workload.pod_management_policy = policy
        workload.claim_templates = tuple(_claim_template(item) for item in spec.get_list("volumeClaimTemplates"))
        _check_update_strategy(spec)
    return workload


def _check_strategy(spec: Field) -> None:
    """spec.strategy as the API server validates it (ValidateDeploymentStrategy,
    ValidateRollingUpdateDeployment): a known type, rollingUpdate only with RollingUpdate, each
    bound a non-negative integer or a percentage (maxUnavailable at most 100%), not both 0."""
    rolling = _rolling_update(
        spec, "strategy", STRATEGY_TYPES, "Forbidden: may not be specified when strategy `type` is 'Recreate'"
    )
    if rolling is None:
        return
    surge = _int_or_percent(rolling, "maxSurge", False)
    unavailable = _int_or_percent(rolling, "maxUnavailable", True)
    if surge == 0 and unavailable == 0:
        rolling.error_at("maxUnavailable", "Invalid value: 0: may not be 0 when `maxSurge` is 0")


def _check_deployment_spec(spec: Field, min_ready_seconds: int) -> None:
    """ValidateDeploymentSpec's other fields the stand-in reads: paused a boolean,
    revisionHistoryLimit and progressDeadlineSeconds non-negative integers, the deadline greater
    than minReadySeconds."""
    spec.get_bool("paused")
    spec.get_int("revisionHistoryLimit", 0, 0, INT32_MAX)
    deadline = spec.get_optional_int("progressDeadlineSeconds", 0, INT32_MAX)
    if deadline is not None and deadline <= min_ready_seconds:
        spec.error_at("progressDeadlineSeconds", f"Invalid value: {deadline}: must be greater than minReadySeconds")


def _rolling_update(spec: Field, key: str, types: tuple[str, ...], forbidden: str) -> Optional[Field]:
    """A workload's ``key`` (strategy or updateStrategy): its type one of ``types`` (sorted, as the
    API server lists them), its rollingUpdate refused with ``forbidden`` unless the type is
    RollingUpdate; the rollingUpdate to check further, or None."""
    strategy = spec.get_map(key)
    if strategy is None:
        return None
    kind = strategy.get_str("type", "RollingUpdate")
    if kind not in types:
        supported = ", ".join(f'"{t}"' for t in sorted(types))
        strategy.error_at("type", f'Unsupported value: "{kind[:40]}": supported values: {supported}')
        return None
    rolling = strategy.get_map("rollingUpdate")
    if rolling is not None and kind != "RollingUpdate":
        strategy.error_at("rollingUpdate", forbidden)
        return None
    return rolling


def _check_update_strategy(spec: Field) -> None:
    """A StatefulSet's spec.updateStrategy as ValidateStatefulSetUpdateStrategy checks it: type
    RollingUpdate or OnDelete, rollingUpdate only with RollingUpdate, a partition of 0 or more."""
    rolling = _rolling_update(
        spec,
        "updateStrategy",
        ("OnDelete", "RollingUpdate"),
        "Forbidden: only allowed for updateStrategy 'RollingUpdate'",
    )
    if rolling is None:
        return
    rolling.get_int("partition", 0, 0, INT32_MAX)
    # maxUnavailable is not checked: with MaxUnavailableStatefulSet off (v1.35's default) the API
    # server drops it before validation (dropStatefulSetDisabledFields).


def _check_daemon_update_strategy(spec: Field) -> None:
    """A DaemonSet's spec.updateStrategy as ValidateDaemonSetUpdateStrategy checks it: type
    RollingUpdate or OnDelete; maxUnavailable and maxSurge integers or percentages (at most
    100 %), not both 0."""
    strategy = spec.get_map("updateStrategy")
    if strategy is None:
        return
    kind = strategy.get_str("type", "RollingUpdate")
    if kind not in ("RollingUpdate", "OnDelete"):
        strategy.error_at("type", f'Unsupported value: "{kind[:40]}": supported values: "OnDelete", "RollingUpdate"')
        return
    rolling = strategy.get_map("rollingUpdate")
    if rolling is None or kind == "OnDelete":
        return
    unavailable = _int_or_percent(rolling, "maxUnavailable", True)
    surge = _int_or_percent(rolling, "maxSurge", True)
    if unavailable == 0 and surge in (0, None):
        rolling.error_at("maxUnavailable", "Invalid value: 0: cannot be 0 when maxSurge is 0")


def _int_or_percent(parent: Field, key: str, at_most_100: bool) -> Optional[int]:
    """A rolling-update bound: its number (a percentage's too), None when absent or invalid."""
    item = parent.get(key)
    if item is None:
        return None
    value = item.value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        number = int(value[:-1])
        if at_most_100 and number > 100:
            item.error(f'Invalid value: "{value}": must not be greater than 100%')
            return None
        return number
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            item.error(f"Invalid value: {value}: must be greater than or equal to 0")
            return None
        return value
    item.error(
        f'Invalid value: "{str(value)[:40]}": a valid percent string must be a numeric string followed by an '
        "ending '%' (e.g. '1%',  or '93%'), or a non-negative integer"
    )
    return None


def _selects(selector: LabelSelector, labels: dict[str, str]) -> bool:
    return compile_selector(selector).matches(labels)


def _annotation(obj: Field, key: str) -> str:
    metadata = obj.get_map("metadata")
    annotations = metadata.get_map("annotations") if metadata is not None else None
    value = annotations.get(key) if annotations is not None else None
    return value.value if value is not None and isinstance(value.value, str) else ""


def _check_template(template: Field, namespace: str, name: str, gates: Optional[FeatureGates]) -> None:
    """The template must make a valid pod: decoded once, its problems located in the template
    (the release's gated checks too: the API server validates a template's pod spec as a pod's)."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": template.value.get("spec"),
    }
    tree = manifests.to_tree(manifest, template.line)
    if template.value.get("spec") is not None:
        tree.lines["spec"] = template.value.lines.get("spec", template.line)
    root = Field(tree, template.path, template.line, template.ctx)
    meta = read_metadata(Field(tree, template.path, template.line, Context("", [])), "Pod", is_dns1123_subdomain, True)
    pod = pods.decode_pod(root, meta, 0)
    if gates is not None:
        pods.settle_gated_fields(pod, gates, lambda path, message: template.error_at(path, message))


def _claim_template(item: Field) -> Manifest:
    if item.expect_map():
        metadata = item.get_map("metadata")
        if metadata is None or not metadata.get_str("name"):
            item.error_at("metadata.name", "Required value")
        if item.get_map("spec") is None:
            item.error_at("spec", "Required value")
        template: Manifest = item.value  # a YMap: expect_map said so
        return template
    return {}


# ---------------------------------------------------------------------- steps and operations


def _steps(document: Field, names: _Names) -> list[Step]:
    steps: list[Step] = []
    steps_field = document.get("steps")
    if steps_field is None:
        document.error_at("steps", "Required value: a list of steps (each with operations)")
        return steps
    for number, step in enumerate(steps_field.items(), start=1):
        if not step.expect_map():
            continue
        for key in step.value:
            if key not in ("name", "operations"):
                step.error_at(key, f'unknown field "{key[:40]}" (a step has name and operations)')
        operations = [_operation(item, index, number, names) for index, item in enumerate(step.get_list("operations"))]
        steps.append(Step(number, step.get_str("name"), tuple(op for op in operations if op is not None), step.line))
    return steps


def _operation(item: Field, index: int, step: int, names: _Names) -> Optional[Operation]:
    if not item.expect_map():
        return None
    if len(item.value) != 1:
        item.error(
            f"an operation has exactly one of {', '.join(VERBS)} (got {', '.join(map(str, item.value)) or 'none'})"
        )
        return None
    verb = next(iter(item.value))
    body = item.get(verb)
    if verb not in VERBS:
        item.error_at(verb, f"unknown operation (one of {', '.join(VERBS)})")
        return None
    if body is None or not body.expect_map():
        return None
    item.ctx = body.ctx = Context(f"Changes step {step} operation {index}", item.ctx.errors)
    spec = _READERS[verb](body, names)
    return Operation(verb, spec, index, item.line) if spec is not None else None


def _ref(body: Field, default_kind: str = "") -> ObjectRef:
    kind = body.get_str("kind", default_kind)
    if not kind:
        body.error_at("kind", "Required value")
    name = body.get_str("name")
    if not name:
        body.error_at("name", "Required value")
    namespace = "" if kind in CLUSTER_SCOPED else body.get_str("namespace") or "default"
    return ObjectRef(kind, namespace, name)


def _existing(body: Field, ref: ObjectRef, names: _Names, field_name: str = "name") -> bool:
    unusable = names.unusable.get(ref)
    if unusable is not None:
        body.error_at(field_name, f"{ref} cannot be used by the controllers: {unusable.reason}")
        return False
    if ref.name and not names.exists(ref):
        body.error_at(
            field_name,
            f"{ref} does not exist (not in the scenario, not created by an earlier step; "
            "pods the controllers make cannot be named here)",
        )
        return False
    return True


def _read_scale(body: Field, names: _Names) -> Optional[OperationSpec]:
    ref = _ref(body)
    if ref.kind and ref.kind not in SCALABLE_KINDS:
        body.error_at("kind", f"cannot scale a {ref.kind[:40]} (one of {', '.join(SCALABLE_KINDS)})")
        return None
    replicas = body.get("replicas")
    if replicas is None:
        body.error_at("replicas", "Required value")
        return None
    count = replicas.as_int(-1, 0, INT32_MAX)
    return ScaleOp(ref, count) if _existing(body, ref, names) and count >= 0 else None


def _node_name(body: Field, names: _Names) -> str:
    name = body.get_str("node")
    if not name:
        body.error_at("node", "Required value")
    elif not names.exists(ObjectRef("Node", "", name)):
        body.error_at("node", f"Node {name[:80]} does not exist (not in the scenario, not added by an earlier step)")
        return ""
    return name


def _read_drain(body: Field, names: _Names) -> Optional[OperationSpec]:
    name = _node_name(body, names)
    return DrainOp(name) if name else None


def _read_cordon(body: Field, names: _Names, unschedulable: bool = True) -> Optional[OperationSpec]:
    name = _node_name(body, names)
    return CordonOp(name, unschedulable) if name else None


def _read_add_nodes(body: Field, names: _Names) -> Optional[OperationSpec]:
    like = body.get_str("like")
    if not like:
        body.error_at("like", "Required value: the node to copy")
        return None
    if like not in names.node_labels:
        body.error_at("like", f"Node {like[:80]} does not exist (not in the scenario, not added by an earlier step)")
        return None
    count = body.get_int("count", 1, 1, 10000)
    prefix = body.get_str("prefix", f"{like}-copy-")
    labels = label_map(body.get("labels"))
    taints = objects.decode_taints(body)
    for number in range(1, count + 1):
        new_name = f"{prefix}{number}"
        problems = is_dns1123_subdomain(new_name)
        if problems:
            body.error_at("prefix", f'"{new_name[:80]}" is not a valid node name: {problems[0]}')
            return None
        if names.exists(ObjectRef("Node", "", new_name)):
            body.error_at("prefix", f"Node {new_name} already exists")
            return None
        names.add(ObjectRef("Node", "", new_name), {**names.node_labels[like], **labels})
    return AddNodesOp(like, count, prefix, tuple(sorted(labels.items())), taints)


def _read_delete_nodes(body: Field, names: _Names) -> Optional[OperationSpec]:
    selector = label_map(body.get("selector"))
    listed = [name for name, _ in body.get_str_list("names")]
    if not selector and not listed:
        body.error("Required value: selector (labels every deleted node has) or names")
        return None
    for name in listed:
        if not names.exists(ObjectRef("Node", "", name)):
            body.error_at("names", f"Node {name[:80]} does not exist")
            return None
    chosen = [
        name
        for name, labels in names.node_labels.items()
        if (selector and all(labels.get(k) == v for k, v in selector.items())) or name in listed
    ]
    for name in chosen:
        names.remove(ObjectRef("Node", "", name))
    return DeleteNodesOp(tuple(sorted(selector.items())), tuple(listed))


def _read_patch(body: Field, names: _Names) -> Optional[OperationSpec]:
    ref = _ref(body)
    patch = body.get("patch")
    if patch is None:
        body.error_at("patch", "Required value: a JSON merge patch")
        return None
    if not patch.expect_map() or not _writable(body, ref) or not _existing(body, ref, names):
        return None
    if ref.kind not in PATCHABLE_KINDS:
        body.error_at(
            "kind",
            f"patching a {ref.kind} is not modelled (one of {', '.join(PATCHABLE_KINDS)}); "
            "delete it and create it again instead",
        )
        return None
    check_written(patch, ref.kind)  # a merge patch names fields of the object: strict, as the API server
    if ref.kind == "Node":
        labels = (patch.value.get("metadata") or {}).get("labels")
        if isinstance(labels, dict):
            merged = manifests.merge_patch(names.node_labels.get(ref.name, {}), labels)
            names.node_labels[ref.name] = merged
    if ref.kind in CONTROLLED_KINDS and not _patched_workload(body, ref, patch.value, names, "patch."):
        return None
    return PatchOp(ref, patch.value)


def _patched_workload(body: Field, ref: ObjectRef, patch: Any, names: _Names, where: str) -> bool:
    """The workload as the patch leaves it must decode (its template a valid pod): checked
    now, each problem reported at the operation's line; the result is what later steps see."""
    merged = manifests.merge_patch(names.manifests.get(ref) or {}, patch)
    errors: list[ScenarioError] = []
    tree = manifests.to_tree(merged, body.line)
    root = Field(tree, "", body.line, Context(body.ctx.object, errors))
    decode_workload(ref.kind, root, ref.namespace, ref.name, "", {}, names.gates)
    for error in errors:
        body.ctx.error(f"{body.path}.{where}{error.path}", body.line, error.message)
    if errors:
        return False
    names.manifests[ref] = merged
    return True


def _read_set(body: Field, names: _Names) -> Optional[OperationSpec]:
    """``set: {kind: Deployment, name, container?, image?, requests?, limits?, nodeSelector?,
    affinity?, tolerations?}``: a merge patch of the template (the containers list rewritten,
    nodeSelector merged key by key, affinity and tolerations replaced)."""
    for key in body.value:
        if key not in SET_FIELDS:
            body.error_at(key, f'unknown field "{str(key)[:40]}" (set takes {", ".join(SET_FIELDS)})')
            return None
    ref = _ref(body, KIND_DEPLOYMENT)
    if ref.kind and ref.kind not in SET_KINDS:
        body.error_at(
            "kind", f"set of a {ref.kind[:40]} is not modelled (only the rollouts of {', '.join(SET_KINDS)} are)"
        )
        return None
    if not _existing(body, ref, names):
        return None
    if not any(key in body.value for key in (*SET_CONTAINER_FIELDS, *SET_POD_FIELDS)):
        body.error(f"Required value: at least one of {', '.join((*SET_CONTAINER_FIELDS, *SET_POD_FIELDS))}")
        return None
    template_spec = ((names.manifests.get(ref) or {}).get("spec") or {}).get("template") or {}
    pod_patch = _set_pod_fields(body, template_spec.get("spec") or {})
    if any(key in body.value for key in SET_CONTAINER_FIELDS):
        containers = _set_containers(body, list((template_spec.get("spec") or {}).get("containers") or []))
        if containers is None:
            return None
        pod_patch["containers"] = containers
    patch = {"spec": {"template": {"spec": pod_patch}}}
    return PatchOp(ref, patch) if _patched_workload(body, ref, patch, names, "(as set) ") else None


def _set_pod_fields(body: Field, pod_spec: dict[str, Any]) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    selector = body.get("nodeSelector")
    if selector is not None and selector.expect_map():
        for _key, item in selector.entries():
            if item.value is not None and not isinstance(item.value, str):
                item.error("expected a string (or null to remove the key)")
        patch["nodeSelector"] = manifests.plain(selector.value)
    affinity = body.get("affinity")
    if affinity is not None and affinity.expect_map():
        patch["affinity"] = _replacing(manifests.plain(pod_spec.get("affinity")), manifests.plain(affinity.value))
    tolerations = body.get("tolerations")
    if tolerations is not None:
        tolerations.items()  # a list, or an error
        patch["tolerations"] = manifests.plain(tolerations.value)
    return patch


def _replacing(old: Any, new: Any) -> Any:
    """A merge patch that turns ``old`` into exactly ``new``: every key of ``old`` that ``new``
    lacks is set to null, at every depth (a plain merge would keep them)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    patch.update({key: _replacing(old.get(key), value) for key, value in new.items()})
    return patch


def _set_containers(body: Field, containers: list[Any]) -> Optional[list[Any]]:
    """The template's containers with the image and resources set: on the named container, or
    on every container (an image only when there is one container, as kubectl set image asks)."""
    names_in_template = [str((c or {}).get("name", "")) for c in containers]
    wanted = body.get_str("container")
    if wanted and wanted not in names_in_template:
        body.error_at(
            "container",
            f'no container "{wanted[:60]}" in the template (containers: {", ".join(names_in_template) or "none"})',
        )
        return None
    if not wanted and "image" in body.value and len(containers) != 1:
        body.error_at(
            "container",
            f"Required value: the template has {len(containers)} containers "
            f"({', '.join(names_in_template)}): name the one whose image changes",
        )
        return None
    resources = {
        key: manifests.plain(section.value)
        for key in ("requests", "limits")
        if (section := body.get(key)) is not None and section.expect_map()
    }
    image = body.get("image")
    if image is not None and (not isinstance(image.value, str) or not image.value):
        image.error("expected a non-empty image name")
        return None
    out = []
    for name, container in zip(names_in_template, containers):
        container = manifests.plain(container)
        if not wanted or name == wanted:
            if image is not None:
                container["image"] = image.value
            if resources:
                container["resources"] = manifests.merge_patch(container.get("resources") or {}, resources)
        out.append(container)
    return out


def _writable(body: Field, ref: ObjectRef) -> bool:
    if ref.kind and ref.kind not in WRITABLE_KINDS:
        body.error_at("kind", f"a step cannot write a {ref.kind[:40]} (one of {', '.join(WRITABLE_KINDS)})")
        return False
    return True


def _read_create(body: Field, names: _Names) -> Optional[OperationSpec]:
    kind = body.get_str("kind")
    metadata = body.get_map("metadata")
    name = metadata.get_str("name") if metadata is not None else ""
    if metadata is None or not name:
        body.error_at("metadata.name", "Required value")
        return None
    namespace = "" if kind in CLUSTER_SCOPED else (metadata.get_str("namespace") or "default")
    ref = ObjectRef(kind, namespace, name)
    if not _writable(body, ref):
        return None
    if names.exists(ref):
        body.error_at("metadata.name", f"{ref} already exists")
        return None
    check_written(body, kind, body.get_str("apiVersion"))
    if kind in CONTROLLED_KINDS:
        meta_labels = label_map(metadata.get("labels"))
        decode_workload(kind, body, namespace, name, "", meta_labels, names.gates)  # its problems, located here
        names.manifests[ref] = body.value
    else:
        _check_manifest(body, kind, names.gates)
    names.add(ref, label_map(metadata.get("labels")))
    return CreateOp(ref, body.value)


def _check_manifest(body: Field, kind: str, gates: Optional[FeatureGates]) -> None:
    """Decode the object as the run will, reporting its problems at the operation's lines (a pod's
    also as the release's API server checks it)."""
    try:
        if kind == "Pod":
            pod = manifests.decode_pod(body.value, 0, body.line)
            if gates is not None:
                pods.settle_gated_fields(pod, gates, lambda path, message: body.error_at(path, message))
        elif kind == "Node":
            manifests.decode_node(body.value, 0, body.line)
        elif kind == "PersistentVolumeClaim":
            manifests.decode_claim(body.value, 0, body.line)
        elif kind == "PersistentVolume":
            manifests.decode_volume(body.value, 0, body.line)
        elif kind == "StorageClass":
            manifests.decode_storage_class(body.value, body.line)
        else:
            manifests.decode_budget(body.value, body.line)
    except ScenarioInvalid as invalid:
        for error in invalid.errors:
            body.ctx.error(error.path, error.line, error.message)


def _read_delete(body: Field, names: _Names) -> Optional[OperationSpec]:
    ref = _ref(body)
    if not _writable(body, ref) or not _existing(body, ref, names):
        return None
    names.remove(ref)
    return DeleteOp(ref)


def _read_complete(body: Field, names: _Names) -> Optional[OperationSpec]:
    ref = _ref(body, KIND_JOB)
    if ref.kind != KIND_JOB:
        body.error_at("kind", "only a Job can be completed")
        return None
    return CompleteOp(ref) if _existing(body, ref, names) else None


_READERS: dict[str, Any] = {
    "scale": _read_scale,
    "drain": _read_drain,
    "cordon": _read_cordon,
    "uncordon": lambda body, names: _read_cordon(body, names, unschedulable=False),
    "addNodes": _read_add_nodes,
    "deleteNodes": _read_delete_nodes,
    "patch": _read_patch,
    "set": _read_set,
    "create": _read_create,
    "delete": _read_delete,
    "complete": _read_complete,
}


def owner_reference(workload: ControlledWorkload) -> OwnerReference:
    """The controller reference a stand-in writes on what it makes."""
    api_version = "batch/v1" if workload.kind == KIND_JOB else "apps/v1"
    return OwnerReference(workload.kind, workload.name, api_version, True, workload.uid)


def workload_from_manifest(manifest: Manifest, line: Optional[int]) -> ControlledWorkload:
    """A workload a step creates, decoded as the scenario's own (ScenarioInvalid on problems)."""
    errors: list[ScenarioError] = []
    tree = manifests.to_tree(manifest, line)
    kind = tree.get("kind", "")
    root = Field(tree, "", tree.line, Context(kind, errors))
    meta = read_metadata(root, kind, is_dns1123_subdomain, True)
    workload = decode_workload(kind, root, meta.namespace, meta.name, meta.uid, meta.labels)
    if errors or workload is None:
        raise ScenarioInvalid(errors or [ScenarioError(kind, "", line, "cannot be decoded")])
    return workload
