"""The DaemonSet stand-in (pkg/controller/daemon: NodeShouldRunDaemonPod, and util's
AddOrUpdateDaemonPodTolerations and ReplaceDaemonSetPodNodeNameNodeAffinity; update.go's
rollingUpdate for template changes).

A template change makes a new revision (revisions.py); new pods are made from the template now.
``RollingUpdate`` without surge (rollingUpdate: once the manage loop has nothing to write, old
pods are deleted so that at most ``maxUnavailable`` nodes — default 1, a percentage of the nodes
that should run one rounded up, 1 when it and maxSurge are both 0 — are without an available pod;
an old pod that is not available is replaced at once); the manage loop then makes the new pod once
the old one is gone. ``OnDelete`` deletes nothing. Where the release walks a map (random order),
the stand-in walks the nodes in document order. A node whose daemon pod is terminating counts as
unavailable: the release would already have made its replacement (generateName), not yet
available, where the stand-in waits for the name. ``maxSurge`` above 0 is not modelled (no pod is
replaced; the rollout report says so)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from scheduler_core.cluster.controllers.deployment import scaled_value
from scheduler_core.cluster.controllers.pods import make_pod, pod_manifest
from scheduler_core.cluster.controllers.revisions import Revisions, complete, made_at, pod_revision, revisions
from scheduler_core.cluster.controllers.state import ClusterState, CreatePod, DeletePod, Write, is_running
from scheduler_core.encoding.events import RolloutStatus
from scheduler_core.model import KIND_DAEMON_SET, ControlledWorkload, Manifest, Node, Pod, TaintEffect
from scheduler_core.plugins.helper import find_untolerated_taint, required_node_affinity_matches

# AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates (operator Exists).
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", TaintEffect.NO_EXECUTE.value),
    ("node.kubernetes.io/unreachable", TaintEffect.NO_EXECUTE.value),
    ("node.kubernetes.io/disk-pressure", TaintEffect.NO_SCHEDULE.value),
    ("node.kubernetes.io/memory-pressure", TaintEffect.NO_SCHEDULE.value),
    ("node.kubernetes.io/pid-pressure", TaintEffect.NO_SCHEDULE.value),
    ("node.kubernetes.io/unschedulable", TaintEffect.NO_SCHEDULE.value),
)
_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", TaintEffect.NO_SCHEDULE.value)
_SCHEDULE_EFFECTS = frozenset((TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value))
_EXECUTE_EFFECTS = frozenset((TaintEffect.NO_EXECUTE.value,))
STRATEGY_ROLLING_UPDATE = "RollingUpdate"
STRATEGY_ON_DELETE = "OnDelete"


@dataclass(frozen=True, slots=True)
class UpdateStrategy:
    """spec.updateStrategy after defaulting (RollingUpdate, maxUnavailable 1, maxSurge 0)."""

    type: str = STRATEGY_ROLLING_UPDATE
    max_unavailable: Any = 1
    max_surge: Any = 0


def update_strategy(daemon_set: ControlledWorkload) -> UpdateStrategy:
    written = ((daemon_set.manifest or {}).get("spec") or {}).get("updateStrategy") or {}
    if (written.get("type") or STRATEGY_ROLLING_UPDATE) == STRATEGY_ON_DELETE:
        return UpdateStrategy(STRATEGY_ON_DELETE, 0, 0)
    rolling = written.get("rollingUpdate") or {}
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    return UpdateStrategy(STRATEGY_ROLLING_UPDATE, 1 if unavailable is None else unavailable,
                          0 if surge is None else surge)


@dataclass(frozen=True, slots=True)
class Verdict:
    should_run: bool
    should_continue_running: bool


# What _verdicts remembers of a DaemonSet (ClusterState.daemon_verdicts): its template, the
# template as a pod, and node name -> (the node object judged, its verdict).
DaemonVerdicts = tuple[Manifest, Pod, dict[str, tuple[Node, Verdict]]]
VerdictOf = Callable[[Node], Verdict]


def daemon_pod_spec(daemon_set: ControlledWorkload, node_name: str) -> dict[str, Any]:
    """NewPod for a node: the template's spec with the daemon tolerations added
    (AddOrUpdateTolerationInPodSpec: one that MatchToleration finds — same key, operator, value
    and effect — is replaced in place, otherwise it is appended) and the required node affinity
    replaced by the one term ``matchFields: metadata.name In [node]``."""
    spec = dict(daemon_set.template.get("spec") or {})
    wanted = list(_DAEMON_TOLERATIONS) + ([_HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])
    tolerations = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, t in enumerate(tolerations) if t.get("key") == key and t.get("operator") == "Exists"
                and not t.get("value") and t.get("effect") == effect]
        if same:
            tolerations[same[0]] = toleration
        else:
            tolerations.append(toleration)
    spec["tolerations"] = tolerations
    affinity = dict(spec.get("affinity") or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
    affinity["nodeAffinity"] = node_affinity
    spec["affinity"] = affinity
    return spec


def should_run(daemon_set: ControlledWorkload, node: Node, template_pod: Pod) -> Verdict:
    """NodeShouldRunDaemonPod: spec.nodeName and the template's node selector and required node
    affinity must fit the node; an untolerated NoSchedule/NoExecute taint means it should not
    run, and an untolerated NoExecute taint that it should not keep running either."""
    named = (daemon_set.template.get("spec") or {}).get("nodeName")
    if named and named != node.name:
        return Verdict(False, False)
    if not required_node_affinity_matches(template_pod, node):
        return Verdict(False, False)
    if find_untolerated_taint(node.taints, template_pod.tolerations, _SCHEDULE_EFFECTS) is not None:
        keeps = find_untolerated_taint(node.taints, template_pod.tolerations, _EXECUTE_EFFECTS) is None
        return Verdict(False, keeps)
    return Verdict(True, True)


def reconcile(state: ClusterState, daemon_set: ControlledWorkload) -> list[Write]:
    """syncNodes: in node document order, a pod for each node that should run one and has none;
    pods on nodes where they should not continue running, or whose node is gone, are deleted."""
    verdicts = _verdicts(state, daemon_set)
    revs = revisions(state, daemon_set)
    by = f"DaemonSet {daemon_set.key}"
    owned = state.owned_pods(daemon_set)
    nodes_by_pod = {pod.key: _pod_node(pod) for pod in owned}
    by_node: dict[str, list[Pod]] = {}
    for pod in owned:
        if not pod.is_terminating:
            by_node.setdefault(nodes_by_pod[pod.key], []).append(pod)
    writes: list[Write] = []
    node_names = {node.name for node in state.nodes}
    for node in state.nodes:
        verdict = verdicts(node)
        on_node = by_node.get(node.name, [])
        if verdict.should_run and not on_node and not state.name_in_use(daemon_set.namespace, _pod_name(daemon_set, node.name)):
            # (a pod of that name still terminating is waited for: names are unique)
            writes.append(CreatePod(_new_pod(state, daemon_set, node.name, revs), by))
        elif not verdict.should_continue_running:
            writes.extend(DeletePod(pod, by) for pod in on_node)
    writes.extend(DeletePod(pod, by, graceful=False) for pod in owned
                  if nodes_by_pod[pod.key] not in node_names and not pod.is_terminating)
    if writes or not revs.updating:
        return writes
    return [DeletePod(pod, by) for pod in _rolling_update(state, daemon_set, verdicts, revs, owned, nodes_by_pod)]


def _rolling_update(state: ClusterState, daemon_set: ControlledWorkload, verdicts: VerdictOf, revs: Revisions,
                    owned: list[Pod], nodes_by_pod: dict[str, str]) -> list[Pod]:
    """rollingUpdate without surge: the old pods to delete, in node document order."""
    strategy = update_strategy(daemon_set)
    if strategy.type != STRATEGY_ROLLING_UPDATE or scaled_value(strategy.max_surge, 1, True) != 0:
        return []
    if all(pod_revision(state, pod) == revs.latest_hash for pod in owned):
        complete(revs, daemon_set)  # every pod at the latest revision: nothing left to roll
        return []
    most = max_unavailable(strategy, sum(1 for node in state.nodes if verdicts(node).should_run))
    by_node: dict[str, list[Pod]] = {}
    for pod in owned:
        by_node.setdefault(nodes_by_pod[pod.key], []).append(pod)
    unavailable, replace, candidates = 0, [], []
    for node in state.nodes:
        on_node = by_node.get(node.name, [])
        live = [pod for pod in on_node if not pod.is_terminating]
        new = [pod for pod in live if pod_revision(state, pod) == revs.latest_hash]
        old = [pod for pod in live if pod_revision(state, pod) != revs.latest_hash]
        if not live:
            unavailable += 1 if on_node else 0  # its replacement waits for the name
        elif len(new) > 1 or len(old) > 1 or (new and old):
            unavailable += 1  # findUpdatedPodsOnNode not ok, or both: the manage loop's business
        elif new:
            unavailable += 0 if is_running(new[0]) else 1
        elif not is_running(old[0]):
            replace.append(old[0])
        elif unavailable < most:
            candidates.append(old[0])
    room = min(max(most - unavailable, 0), len(candidates))
    return replace + candidates[:room]


def max_unavailable(strategy: UpdateStrategy, desired: int) -> int:
    """updatedDesiredNodeCounts: maxUnavailable of the nodes that should run a pod, rounded up;
    1 when it and maxSurge are both 0 (and some node should run one)."""
    unavailable = scaled_value(strategy.max_unavailable, desired, True)
    surge = scaled_value(strategy.max_surge, desired, True)
    return 1 if desired > 0 and unavailable == 0 and surge == 0 else unavailable


def rollout_status(state: ClusterState, daemon_set: ControlledWorkload) -> RolloutStatus:
    """updateDaemonSetStatus's counts per node that should run a pod (its first pod: updated if
    at the latest revision, available if it runs); complete as kubectl rollout status has it."""
    revs = revisions(state, daemon_set)
    strategy = update_strategy(daemon_set)
    verdicts = _verdicts(state, daemon_set)
    owned = [pod for pod in state.owned_pods(daemon_set) if not pod.is_terminating]
    first_on: dict[str, Pod] = {}
    for pod in owned:
        first_on.setdefault(_pod_node(pod), pod)
    firsts = [first_on.get(node.name) for node in state.nodes if verdicts(node).should_run]
    present = [pod for pod in firsts if pod is not None]
    updated = [pod for pod in present if pod_revision(state, pod) == revs.latest_hash]
    available = sum(1 for pod in present if is_running(pod))
    return RolloutStatus(KIND_DAEMON_SET, daemon_set.key, revs.number, f"{daemon_set.key}-{revs.latest_hash}",
                         strategy.type, len(firsts), len(updated), len(owned), available,
                         sorted(pod.key for pod in state.owned_pods(daemon_set)
                                if pod_revision(state, pod) != revs.latest_hash),
                         len(updated) == len(firsts) and available == len(firsts),
                         [pod.key for pod in updated if not pod.node_name])


def _verdicts(state: ClusterState, daemon_set: ControlledWorkload) -> VerdictOf:
    """NodeShouldRunDaemonPod per node, remembered while neither the node object nor the template
    changes (the controller runs after every binding; nodes rarely change)."""
    cache: Optional[DaemonVerdicts] = state.daemon_verdicts.get(daemon_set.key)
    if cache is None or cache[0] is not daemon_set.template:
        cache = (daemon_set.template, _template_pod(state, daemon_set), {})
        state.daemon_verdicts[daemon_set.key] = cache
    _, template_pod, known = cache

    def verdict(node: Node) -> Verdict:
        found = known.get(node.name)
        if found is None or found[0] is not node:
            found = known[node.name] = (node, should_run(daemon_set, node, template_pod))
        return found[1]

    return verdict


def _template_pod(state: ClusterState, daemon_set: ControlledWorkload) -> Pod:
    """The template as a pod with the daemon tolerations (what NodeShouldRunDaemonPod checks)."""
    spec = dict(daemon_set.template.get("spec") or {})
    spec["tolerations"] = daemon_pod_spec(daemon_set, "-")["tolerations"]
    return make_pod(pod_manifest(daemon_set, daemon_set.name, {}, spec), 0, state.priority_classes, daemon_set.line)


def _pod_node(pod: Pod) -> str:
    """The node a daemon pod is for: where it runs, or its matchFields term while pending."""
    if pod.node_name:
        return pod.node_name
    affinity = pod.affinity.node_affinity if pod.affinity else None
    for term in (affinity.required.terms if affinity and affinity.required else ()):
        for requirement in term.match_fields:
            if requirement.key == "metadata.name" and requirement.values:
                return requirement.values[0]
    return ""


def _pod_name(daemon_set: ControlledWorkload, node_name: str) -> str:
    return f"{daemon_set.name}-{node_name}"


def _new_pod(state: ClusterState, daemon_set: ControlledWorkload, node_name: str, revs: Revisions) -> Pod:
    name = _pod_name(daemon_set, node_name)
    pod = make_pod(pod_manifest(daemon_set, name, {}, daemon_pod_spec(daemon_set, node_name)), state.pod_count,
                   state.priority_classes, daemon_set.line)
    state.add_pod(pod)
    state.created_ms[pod.key] = state.now_ms
    made_at(state, pod, revs.latest_hash)
    return pod
