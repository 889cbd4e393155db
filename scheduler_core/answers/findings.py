"""Completeness findings: what a dump lacks that would make its replay differ from the cluster.

Each ``Finding`` names the objects concerned and, where kubectl can fetch what is missing, one
command per namespace that fetches exactly that. Only what the scheduler would read is reported:

- ``controller-absent``: a pending pod whose controller (the ReplicaSet, StatefulSet or
  ReplicationController its ``ownerReferences`` name with ``controller: true``) is not in the dump,
  while its profile spreads by default constraints (PodTopologySpread's system defaults, or a
  ``List`` of them): helper.DefaultSelector reads the controller's selector, and without it the
  pod loses (part of) its default spreading.
- ``services-absent``: the dump holds no Service at all (every cluster has at least ``default/
  kubernetes``) while such pods have labels and an owner (a controller made them: a dump, not a
  scenario written by hand): DefaultSelector also merges the selectors of the Services that
  select the pod.
- ``namespaces-absent``: pods select namespaces by labels (an affinity term's non-empty
  ``namespaceSelector``) while some namespaces have no Namespace object: their labels are unknown
  (an undeclared namespace exists with no labels).
- ``claims-absent`` / ``volumes-absent`` / ``storage-classes-absent``: a PersistentVolumeClaim a
  pod uses, the PersistentVolume a claim is bound to, the StorageClass a claim names.
- ``priority-classes-absent``: a PriorityClass a pod names (the pod's own ``spec.priority`` is
  what the scheduler reads; the class matters for pods added by hand).
- ``node-taints-missing``: nodes whose conditions call for taints the node lifecycle controller
  adds, or carry ones it removes (node_taints.py; ``--add-node-taints`` makes the change).
- ``no-config``: no KubeSchedulerConfiguration: the release's defaults are assumed.
- ``release-assumed``: the dump does not say which release the cluster runs: the default one is
  replayed (``kubectl version -o yaml`` added to the dump, or ``--release``, says it).
- ``release-from-kubelets``: only the nodes' kubelets say it: the control plane is at least that
  release, maybe newer.
- ``release-nearest``: the cluster runs a release SchedLab does not replay: the nearest one is.

DRA objects (ResourceClaims, ResourceClaimTemplates, DeviceClasses named by pods) are not checked
yet: the model does not carry them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, Optional

from scheduler_core.util.wire import Wire
from scheduler_core.model import names
from scheduler_core.framework.profile import build_profile
from scheduler_core.model import Pod, Scenario, SchedulerConfig
from scheduler_core.cluster.node_lifecycle import NodeTaintChange, controller_taint_changes, taint_text
from scheduler_core.plugins.pod_topology_spread.args import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY
from scheduler_core.plugins.pod_topology_spread.common import CONTROLLER_KINDS
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.release import Features
from scheduler_core.release.choice import ReleaseSource
from scheduler_core.scenario.objects import SYSTEM_PRIORITY_CLASSES
from scheduler_core.run.schedule_one import FrameworkHandle

CONTROLLER_ABSENT = "controller-absent"
SERVICES_ABSENT = "services-absent"
NAMESPACES_ABSENT = "namespaces-absent"
CLAIMS_ABSENT = "claims-absent"
VOLUMES_ABSENT = "volumes-absent"
STORAGE_CLASSES_ABSENT = "storage-classes-absent"
PRIORITY_CLASSES_ABSENT = "priority-classes-absent"
DRA_OBJECTS_ABSENT = "dra-objects-absent"
DRA_OFF = "dra-off"
NODE_TAINTS_MISSING = "node-taints-missing"
NO_CONFIG = "no-config"
RELEASE_ASSUMED = "release-assumed"
RELEASE_FROM_KUBELETS = "release-from-kubelets"
RELEASE_NEAREST = "release-nearest"

# kubectl's resource names for the kinds a finding fetches.
RESOURCES = {
    "ReplicaSet": "replicasets",
    "StatefulSet": "statefulsets",
    "ReplicationController": "replicationcontrollers",
    "Service": "services",
    "Namespace": "namespaces",
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "PersistentVolume": "persistentvolumes",
    "StorageClass": "storageclasses",
    "PriorityClass": "priorityclasses",
    "ResourceClaim": "resourceclaims",
    "ResourceClaimTemplate": "resourceclaimtemplates",
    "DeviceClass": "deviceclasses",
}
MAX_NAMED = 5  # names a message lists before "and N more" (the objects list keeps them all)


# msgspec lets a frozen Struct extend the unfrozen Wire base; mypy reads Structs through
# dataclass_transform, whose rules forbid it for dataclasses.
class Finding(Wire, frozen=True):  # type: ignore[misc]
    """What a dump lacks that the replay reads (`check --json`'s findings); its declaration is its
    wire form (scheduler_core/util/wire.py): every key always written, ``fix`` null when kubectl
    cannot fetch what is missing."""

    code: str
    message: str  # one sentence a user reads
    objects: list[str]  # the objects concerned ("Pod ns/name", "ReplicaSet ns/name", "Node n")
    fix: Optional[str]  # kubectl command line(s) that fetch what is missing, one per line


def find_all(scenario: Scenario, taint_changes: Optional[list[NodeTaintChange]] = None) -> list[Finding]:
    """Every finding of the scenario, in a fixed order (the most consequential first)."""
    changes = controller_taint_changes(scenario) if taint_changes is None else taint_changes
    found = [
        _node_taints(changes),
        *_default_spreading(scenario),
        _namespaces(scenario),
        *_storage(scenario),
        _dra_off(scenario) or _dra_objects(scenario),
        _priority_classes(scenario),
        _no_config(scenario),
        _release(scenario),  # the report's first line names the release already
    ]
    return [finding for finding in found if finding is not None]


def _release(scenario: Scenario) -> Optional[Finding]:
    """How sure the replay is of the cluster's release (release/choice.py), when it is not certain."""
    choice = scenario.release
    version_fix = "kubectl version -o yaml > version.yaml   # add it to the dump"
    if choice.source is ReleaseSource.DEFAULT:
        return Finding(RELEASE_ASSUMED, choice.sentence(), [], version_fix)
    if not choice.exact and choice.source is not ReleaseSource.ASKED:
        where = [choice.evidence.where] if choice.evidence is not None else []
        return Finding(RELEASE_NEAREST, choice.sentence(), where, None)
    if choice.source is ReleaseSource.KUBELET_VERSION:
        where = [choice.evidence.where] if choice.evidence is not None else []
        return Finding(RELEASE_FROM_KUBELETS, choice.sentence(), where, version_fix)
    return None


def fetch_commands(findings: Iterable[Finding]) -> list[str]:
    """The kubectl lines of every finding, each once, in order."""
    lines: list[str] = []
    for finding in findings:
        for line in (finding.fix or "").splitlines():
            if line not in lines:
                lines.append(line)
    return lines


# ---------------------------------------------------------------------------- default spreading


def _default_spreading(scenario: Scenario) -> list[Finding]:
    spreading = _spreading_profiles(scenario)
    readers = [pod for pod in scenario.pending_pods if _reads_default_selector(pod, spreading)]
    if not readers:
        return []
    found = [_controllers(scenario, readers)]
    # A Service's selector is never empty, so only labelled pods can be selected; and only pods a
    # workload controller made (an owner reference) tell a dump from a scenario written by hand.
    selectable = [pod for pod in readers if pod.labels and pod.owner_references]
    if not scenario.services and selectable:
        found.append(_services(selectable))
    return [finding for finding in found if finding is not None]


def _reads_default_selector(pod: Pod, spreading_profiles: set[str]) -> bool:
    """buildDefaultConstraints runs for the pod: it has no constraints of its own and its profile
    runs PodTopologySpread where default constraints of that kind are read."""
    return not pod.topology_spread_constraints and pod.scheduler_name in spreading_profiles


def _spreading_profiles(scenario: Scenario) -> set[str]:
    features = scenario.rules.features
    return {name for name, config in _profiles(scenario).items() if _spreads_by_default(config, features)}


def _profiles(scenario: Scenario) -> dict[str, Optional[SchedulerConfig]]:
    return {config.scheduler_name if config else "default-scheduler": config for config in scenario.profile_configs}


def _spreads_by_default(config: Optional[SchedulerConfig], features: Features) -> bool:
    profile = build_profile(config, FrameworkHandle(None), in_tree_registry(features), features)
    plugin = profile.instances.get(names.POD_TOPOLOGY_SPREAD)
    if plugin is None:
        return False
    actions = {constraint.when_unsatisfiable for constraint in plugin.default_constraints}
    runs = {point for point in ("preFilter", "preScore") if plugin in profile[point]}
    return (DO_NOT_SCHEDULE in actions and "preFilter" in runs) or (SCHEDULE_ANYWAY in actions and "preScore" in runs)


def _controllers(scenario: Scenario, readers: list[Pod]) -> Optional[Finding]:
    present = {(w.kind, w.namespace, w.name) for w in scenario.workloads}
    absent: OrderedDict[tuple[str, str, str], list[Pod]] = OrderedDict()
    for pod in readers:
        owner = next((ref for ref in pod.owner_references if ref.controller), None)
        if owner is None or (owner.api_version, owner.kind) not in CONTROLLER_KINDS:
            continue
        key = (owner.kind, pod.namespace, owner.name)
        if key not in present:
            absent.setdefault(key, []).append(pod)
    if not absent:
        return None
    pods = [pod for group in absent.values() for pod in group]
    owners = [f"{kind} {ns}/{name}" for kind, ns, name in absent]
    message = (
        f"{len(pods)} pending pod(s) name a controller that is not in the dump ({_named(owners)}): "
        "PodTopologySpread's default constraints read its selector, so without it these pods lose "
        "(part of) their default spreading and may go to other nodes than in your cluster"
    )
    return Finding(CONTROLLER_ABSENT, message, owners + [f"Pod {p.key}" for p in pods], _fetch(list(absent)))


def _services(readers: list[Pod]) -> Finding:
    namespaces = sorted({pod.namespace for pod in readers})
    message = (
        f"the dump holds no Service, and {len(readers)} pending pod(s) spread by PodTopologySpread's "
        "default constraints, which merge the selectors of the Services that select the pod: "
        "add the Services of namespace(s) " + _named(namespaces)
    )
    fix = "\n".join(f"kubectl get services -n {ns} -o yaml" for ns in namespaces)
    return Finding(SERVICES_ABSENT, message, [f"Pod {p.key}" for p in readers], fix)


# ---------------------------------------------------------------------------- namespaces


def _namespaces(scenario: Scenario) -> Optional[Finding]:
    undeclared = sorted(ns.name for ns in scenario.namespaces.values() if not ns.declared)
    selecting = [pod for pod in _seen_pods(scenario) if _selects_namespaces(pod)]
    if not undeclared or not selecting:
        return None
    message = (
        f"{len(selecting)} pod(s) select namespaces by label (namespaceSelector), but namespace(s) "
        f"{_named(undeclared)} have no Namespace object: their labels are unknown, so the selectors "
        "see them without labels"
    )
    objects = [f"Pod {p.key}" for p in selecting] + [f"Namespace {name}" for name in undeclared]
    return Finding(NAMESPACES_ABSENT, message, objects, f"kubectl get namespaces {' '.join(undeclared)} -o yaml")


def _selects_namespaces(pod: Pod) -> bool:
    affinity = pod.affinity
    if affinity is None:
        return False
    for group in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if group is None:
            continue
        terms = [*group.required, *(weighted.term for weighted in group.preferred)]
        if any(term.namespace_selector is not None and not term.namespace_selector.is_empty for term in terms):
            return True
    return False


def _seen_pods(scenario: Scenario) -> list[Pod]:
    """The pods the scheduler sees: running on a node of the scenario, and pending."""
    pending = {id(pod) for pod in scenario.pending_pods}
    running = {id(pod) for pod in scenario.running_pods}
    return [pod for pod in scenario.pods if id(pod) in pending or id(pod) in running]


# ---------------------------------------------------------------------------- storage and priority


def _storage(scenario: Scenario) -> list[Finding]:
    storage = scenario.storage
    claims = {claim.key: claim for claim in storage.claims}
    missing_claims: OrderedDict[tuple[str, str], list[Pod]] = OrderedDict()
    for pod in _seen_pods(scenario):
        for volume in pod.volumes:
            claim = volume.claim_for(pod.name)
            if claim is not None and f"{pod.namespace}/{claim}" not in claims:
                missing_claims.setdefault((pod.namespace, claim), []).append(pod)
    volume_names = {volume.name for volume in storage.volumes}
    class_names = {storage_class.name for storage_class in storage.classes}
    used = [
        claims[key]
        for key in dict.fromkeys(
            f"{p.namespace}/{c}" for p in _seen_pods(scenario) for c in (v.claim_for(p.name) for v in p.volumes) if c
        )
        if key in claims
    ]
    missing_volumes = OrderedDict(
        (c.volume_name, c) for c in used if c.volume_name and c.volume_name not in volume_names
    )
    missing_classes = OrderedDict((c.class_name, c) for c in used if c.class_name and c.class_name not in class_names)
    found = []
    if missing_claims:
        pods = list(dict.fromkeys(p.key for group in missing_claims.values() for p in group))
        found.append(
            Finding(
                CLAIMS_ABSENT,
                f"{len(missing_claims)} PersistentVolumeClaim(s) used by pods are not in "
                f"the dump ({_named([f'{ns}/{n}' for ns, n in missing_claims])}): the volume plugins "
                "cannot check them",
                [f"PersistentVolumeClaim {ns}/{n}" for ns, n in missing_claims] + [f"Pod {key}" for key in pods],
                _fetch([("PersistentVolumeClaim", ns, n) for ns, n in missing_claims]),
            )
        )
    if missing_volumes:
        found.append(
            Finding(
                VOLUMES_ABSENT,
                f"{len(missing_volumes)} PersistentVolume(s) that claims are bound to "
                f"are not in the dump ({_named(list(missing_volumes))})",
                [f"PersistentVolume {n}" for n in missing_volumes]
                + [f"PersistentVolumeClaim {c.key}" for c in missing_volumes.values()],
                _fetch([("PersistentVolume", "", n) for n in missing_volumes]),
            )
        )
    if missing_classes:
        found.append(
            Finding(
                STORAGE_CLASSES_ABSENT,
                f"{len(missing_classes)} StorageClass(es) that claims name are "
                f"not in the dump ({_named(list(missing_classes))}): their binding mode and "
                "topology are unknown",
                [f"StorageClass {n}" for n in missing_classes]
                + [f"PersistentVolumeClaim {c.key}" for c in missing_classes.values()],
                _fetch([("StorageClass", "", n) for n in missing_classes]),
            )
        )
    return found


def _dra_objects(scenario: Scenario) -> Optional[Finding]:
    """ResourceClaims and ResourceClaimTemplates pods name, and DeviceClasses their requests name,
    that the dump lacks: DynamicResources' PreEnqueue holds such a pod, or its PreFilter rejects it."""
    dra = scenario.dra
    claims = {claim.key for claim in dra.claims}
    templates = {template.key for template in dra.templates}
    classes = {device_class.name for device_class in dra.classes}
    missing: list[tuple[str, str, str]] = []
    pods: list[str] = []
    for pod in _seen_pods(scenario):
        for source in pod.claim_sources:
            kind, name = (
                ("ResourceClaim", source.claim_name)
                if source.claim_name
                else ("ResourceClaimTemplate", source.template_name)
            )
            known = claims if kind == "ResourceClaim" else templates
            made = dict(pod.claim_statuses).get(source.name)  # a template's claim the controller already made
            if kind == "ResourceClaimTemplate" and made:
                kind, name, known = "ResourceClaim", made, claims
            if name and f"{pod.namespace}/{name}" not in known:
                missing.append((kind, pod.namespace, name))
                pods.append(pod.key)
    for spec in [claim.spec for claim in dra.claims] + [template.spec for template in dra.templates]:
        for request in spec.requests:
            wanted = (
                [request.exactly.device_class_name]
                if request.exactly
                else [sub.device_class_name for sub in request.first_available]
            )
            missing += [("DeviceClass", "", name) for name in wanted if name and name not in classes]
    missing = list(dict.fromkeys(missing))
    if not missing:
        return None
    names = [f"{kind} {f'{ns}/' if ns else ''}{name}" for kind, ns, name in missing]
    return Finding(
        DRA_OBJECTS_ABSENT,
        f"{len(missing)} resource.k8s.io object(s) named but not in the dump "
        f"({_named(names)}): DynamicResources holds or rejects the pods that use them",
        names + [f"Pod {key}" for key in dict.fromkeys(pods)],
        _fetch(missing),
    )


def _dra_off(scenario: Scenario) -> Optional[Finding]:
    """Pods with resource claims replayed where DynamicResourceAllocation is off (v1.32 and v1.33 by
    default): that release's API server drops their claims and its scheduler has no DynamicResources,
    so they schedule as pods without devices — yet a cluster whose pods keep claims runs with the gate
    on. Said first, with the flag that replays it so."""
    rules = scenario.rules
    if rules.features.enable_dynamic_resource_allocation:
        return None
    pods = [pod.key for pod in _seen_pods(scenario) if pod.claim_sources]
    if not pods:
        return None
    return Finding(
        DRA_OFF,
        f"{len(pods)} pod(s) use resource claims ({_named(pods)}), but DynamicResourceAllocation is off in "
        f"{rules.release.name}{'' if rules.gates.overrides else ' (its default)'}: its API server "
        "drops their resourceClaims and its scheduler has no DynamicResources plugin, so they are replayed as "
        "pods without devices; a cluster whose pods keep their claims runs with the gate on: replay with "
        "--feature-gates DynamicResourceAllocation=true (the editor's release selector has the same field)",
        [f"Pod {key}" for key in pods],
        None,
    )


def _priority_classes(scenario: Scenario) -> Optional[Finding]:
    known = {*scenario.priority_classes, *SYSTEM_PRIORITY_CLASSES}
    missing: OrderedDict[str, list[Pod]] = OrderedDict()
    for pod in _seen_pods(scenario):
        if pod.priority_class_name and pod.priority_class_name not in known:
            missing.setdefault(pod.priority_class_name, []).append(pod)
    if not missing:
        return None
    pods = [pod for group in missing.values() for pod in group]
    message = (
        f"{len(missing)} PriorityClass(es) named by {len(pods)} pod(s) are not in the dump "
        f"({_named(list(missing))}): the pods' own spec.priority is used; pods you add that name "
        "these classes cannot be admitted"
    )
    return Finding(
        PRIORITY_CLASSES_ABSENT,
        message,
        [f"PriorityClass {n}" for n in missing] + [f"Pod {p.key}" for p in pods],
        _fetch([("PriorityClass", "", n) for n in missing]),
    )


# ---------------------------------------------------------------------------- nodes and configuration


def _node_taints(changes: list[NodeTaintChange]) -> Optional[Finding]:
    if not changes:
        return None
    parts = []
    for change in changes[:MAX_NAMED]:
        why = ", ".join(f"{c.type}={c.status}" for c in change.conditions) or "spec.unschedulable"
        words = []
        if change.add:
            words.append("lacks " + ", ".join(taint_text(t) for t in change.add))
        if change.remove:
            words.append("carries " + ", ".join(taint_text(t) for t in change.remove) + " it would remove")
        parts.append(f"{change.node} ({why}) {' and '.join(words)}")
    more = f" and {len(changes) - MAX_NAMED} more" if len(changes) > MAX_NAMED else ""
    message = (
        f"{len(changes)} node(s) do not carry the taints the node lifecycle controller keeps in step with "
        f"their conditions: {'; '.join(parts)}{more}. The scheduler reads only the taints; "
        "--add-node-taints makes the controller's change before the run"
    )
    return Finding(NODE_TAINTS_MISSING, message, [f"Node {change.node}" for change in changes], None)


def _no_config(scenario: Scenario) -> Optional[Finding]:
    if scenario.config is not None:
        return None
    return Finding(
        NO_CONFIG,
        "no KubeSchedulerConfiguration: the release's defaults are assumed (one profile, "
        "default-scheduler, with the default plugins and arguments); add the file your "
        "kube-scheduler reads (its --config) if it sets anything else",
        [],
        None,
    )


# ---------------------------------------------------------------------------- words


def _fetch(objects: list[tuple[str, str, str]]) -> str:
    """One kubectl line per (kind, namespace): the names it lacks."""
    groups: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
    for kind, namespace, name in objects:
        groups.setdefault((kind, namespace), [])
        if name not in groups[(kind, namespace)]:
            groups[(kind, namespace)].append(name)
    lines = []
    for (kind, namespace), object_names in groups.items():
        where = f" -n {namespace}" if namespace else ""
        lines.append(f"kubectl get {RESOURCES[kind]}{where} {' '.join(object_names)} -o yaml")
    return "\n".join(lines)


def _named(items: list[str]) -> str:
    if len(items) <= MAX_NAMED:
        return ", ".join(items)
    return f"{', '.join(items[:MAX_NAMED])} and {len(items) - MAX_NAMED} more"
