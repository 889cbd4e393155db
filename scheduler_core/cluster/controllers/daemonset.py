"""The DaemonSet stand-in (pkg/controller/daemon: NodeShouldRunDaemonPod, and util's
AddOrUpdateDaemonPodTolerations and ReplaceDaemonSetPodNodeNameNodeAffinity; the manage loop's
podsShouldBeOnNode and update.go's rollingUpdate for template changes).

A template change makes a new revision (revisions.py); new pods are made from the template now.
``RollingUpdate`` without surge (rollingUpdate: once the manage loop has nothing to write, old
pods are deleted so that at most ``maxUnavailable`` nodes — default 1, a percentage of the nodes
that should run one rounded up, 1 when it and maxSurge are both 0 — are without an available pod;
an old pod that is not available is replaced at once and counts as unavailable); the manage loop
then makes the new pod once the old one is gone. With ``maxSurge`` above 0, a new pod is made
beside the old one (at most maxSurge at a time, at once where the old one is not available) and
the manage loop deletes the old one once the new one is available. A pod is available
``minReadySeconds`` after it became ready (availability.py). ``OnDelete`` deletes nothing. Where
the release walks a map (random order), the stand-in walks the nodes in document order; where it
names a pod by generateName, the stand-in names it ``<daemonset>-<node>``, or ``-2``, ``-3``...
while that name is taken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from scheduler_core.cluster.controllers.availability import is_available
from scheduler_core.cluster.controllers.deployment_util import scaled_value
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
    return UpdateStrategy(
        STRATEGY_ROLLING_UPDATE, 1 if unavailable is None else unavailable, 0 if surge is None else surge
    )


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
        same = [
            i
            for i, t in enumerate(tolerations)
            if t.get("key") == key
            and t.get("operator") == "Exists"
            and not t.get("value")
            and t.get("effect") == effect
        ]
        if same:
            tolerations[same[0]] = toleration
        else:
            tolerations.append(toleration)
    spec["tolerations"] = tolerations
    affinity = dict(spec.get("affinity") or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]
    }
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
    """syncDaemonSet: the manage loop (podsShouldBeOnNode, in node document order) and, once it
    has nothing to write, rollingUpdate; pods whose node is gone are deleted at once."""
    verdicts = _verdicts(state, daemon_set)
    revs = revisions(state, daemon_set)
    by = f"DaemonSet {daemon_set.key}"
    owned = state.owned_pods(daemon_set)
    nodes_by_pod = {pod.key: _pod_node(pod) for pod in owned}
    on_nodes = _pods_by_node(owned, nodes_by_pod)
    surging = _allows_surge(daemon_set)
    writes: list[Write] = []
    for node in state.nodes:
        writes.extend(
            _manage_node(state, daemon_set, node.name, verdicts(node), on_nodes.get(node.name, []), surging, revs, by)
        )
    node_names = {node.name for node in state.nodes}
    writes.extend(
        DeletePod(pod, by, graceful=False)
        for pod in owned
        if nodes_by_pod[pod.key] not in node_names and not pod.is_terminating
    )
    if writes or not revs.updating:
        return writes
    doomed, new_nodes = _rolling_update(state, daemon_set, verdicts, revs, on_nodes)
    rolled: list[Write] = [DeletePod(pod, by) for pod in doomed]
    rolled.extend(CreatePod(_new_pod(state, daemon_set, name, revs), by) for name in new_nodes)
    return rolled


def _manage_node(
    state: ClusterState,
    daemon_set: ControlledWorkload,
    node_name: str,
    verdict: Verdict,
    pods: list[Pod],
    surging: bool,
    revs: Revisions,
    by: str,
) -> list[Write]:
    """podsShouldBeOnNode: a pod for a node that should run one and has none (a terminating one
    counts, but with surge only pods not terminating do); on a node where they should not
    continue running every pod goes; more than one running pod: without surge all but the oldest
    go, with surge the oldest new and oldest old stay until the new one is available (or the old
    one is not ready)."""
    running = [pod for pod in pods if not pod.is_terminating]
    if verdict.should_run and not pods:
        return [CreatePod(_new_pod(state, daemon_set, node_name, revs), by)]
    if not verdict.should_continue_running:
        return [DeletePod(pod, by) for pod in running]
    if not surging:
        return [DeletePod(pod, by) for pod in _oldest_first(running)[1:]]
    if not running:
        return [CreatePod(_new_pod(state, daemon_set, node_name, revs), by)] if verdict.should_run else []
    return [DeletePod(pod, by) for pod in _surge_excess(state, daemon_set, running, revs)]


def _surge_excess(
    state: ClusterState, daemon_set: ControlledWorkload, running: list[Pod], revs: Revisions
) -> list[Pod]:
    """With surge: all but the oldest new and oldest old pod, and the old one too once the new one
    is available (or when the old one is not ready)."""
    newest: Optional[Pod] = None
    oldest: Optional[Pod] = None
    excess: list[Pod] = []
    for pod in _oldest_first(running):
        if pod_revision(state, pod) == revs.latest_hash and newest is None:
            newest = pod
        elif pod_revision(state, pod) != revs.latest_hash and oldest is None:
            oldest = pod
        else:
            excess.append(pod)
    if (
        newest is not None
        and oldest is not None
        and (not is_running(oldest) or is_available(state, newest, daemon_set.min_ready_seconds))
    ):
        excess.append(oldest)
    return excess


def _oldest_first(pods: list[Pod]) -> list[Pod]:
    """podByCreationTimestampAndPhase: scheduled pods first, then by creation (the order the
    stand-in made them), then by name."""
    return sorted(pods, key=lambda pod: (not pod.node_name, pod.doc_index, pod.name))


def _allows_surge(daemon_set: ControlledWorkload) -> bool:
    """util.AllowsSurge: a RollingUpdate whose maxSurge (of any number of nodes) is above 0."""
    strategy = update_strategy(daemon_set)
    return strategy.type == STRATEGY_ROLLING_UPDATE and scaled_value(strategy.max_surge, 1, True) > 0


def _pods_by_node(owned: list[Pod], nodes_by_pod: dict[str, str]) -> dict[str, list[Pod]]:
    """getNodesToDaemonPods: each node's daemon pods, terminating ones included."""
    by_node: dict[str, list[Pod]] = {}
    for pod in owned:
        by_node.setdefault(nodes_by_pod[pod.key], []).append(pod)
    return by_node


def _rolling_update(
    state: ClusterState,
    daemon_set: ControlledWorkload,
    verdicts: Callable[[Node], Verdict],
    revs: Revisions,
    on_nodes: dict[str, list[Pod]],
) -> tuple[list[Pod], list[str]]:
    """rollingUpdate: the old pods to delete and the nodes to make a new pod on, walking the
    nodes in document order (the release walks a map)."""
    strategy = update_strategy(daemon_set)
    if strategy.type != STRATEGY_ROLLING_UPDATE:
        return [], []
    if all(pod_revision(state, pod) == revs.latest_hash for pods in on_nodes.values() for pod in pods):
        complete(revs, daemon_set)  # every pod at the latest revision: nothing left to roll
        return [], []
    should_run = [node for node in state.nodes if verdicts(node).should_run]
    walked = walked_nodes(state.nodes, should_run, on_nodes)
    rollout = _Rollout(state, daemon_set, revs, verdicts, len(should_run), strategy)
    if rollout.surge == 0:
        return rollout.without_surge(walked, on_nodes), []
    return rollout.with_surge(walked, on_nodes)


@dataclass
class _Rollout:
    """One rollingUpdate: updatedDesiredNodeCounts' bounds and the walk over the nodes."""

    state: ClusterState
    daemon_set: ControlledWorkload
    revs: Revisions
    verdicts: Callable[[Node], Verdict]
    desired: int
    strategy: UpdateStrategy

    @property
    def surge(self) -> int:
        return scaled_value(self.strategy.max_surge, self.desired, True)

    def available(self, pod: Pod) -> bool:
        return is_available(self.state, pod, self.daemon_set.min_ready_seconds)

    def split(self, pods: list[Pod]) -> Optional[tuple[Optional[Pod], Optional[Pod]]]:
        """findUpdatedPodsOnNode: the node's new and old pod not terminating; None for more than
        one of either."""
        live = [pod for pod in pods if not pod.is_terminating]
        new = [pod for pod in live if pod_revision(self.state, pod) == self.revs.latest_hash]
        old = [pod for pod in live if pod_revision(self.state, pod) != self.revs.latest_hash]
        if len(new) > 1 or len(old) > 1:
            return None
        return (new[0] if new else None), (old[0] if old else None)

    def without_surge(self, nodes: list[Node], on_nodes: dict[str, list[Pod]]) -> list[Pod]:
        """Old pods deleted so that at most maxUnavailable nodes lack an available pod; an old pod
        that is not available is replaced besides."""
        most = max_unavailable(self.strategy, self.desired)
        unavailable, replace, candidates = 0, [], []
        for node in nodes:
            found = self.split(on_nodes.get(node.name, []))
            if found is None or found[0] is None and found[1] is None or found[0] and found[1]:
                unavailable += 1  # the manage loop's business
                continue
            new, old = found
            if new is not None:
                unavailable += 0 if self.available(new) else 1
            elif old is not None and not self.available(old):
                replace.append(old)
                unavailable += 1
            elif old is not None and unavailable < most:
                candidates.append(old)
        room = min(max(most - unavailable, 0), len(candidates))
        return replace + candidates[:room]

    def with_surge(self, nodes: list[Node], on_nodes: dict[str, list[Pod]]) -> tuple[list[Pod], list[str]]:
        """A new pod beside each old one, at most maxSurge at a time (at once where the old one is
        not available); an old pod goes once the new one on its node is available; an old pod on a
        node that should no longer run one goes only while more than the desired pods are available."""
        surging, available = 0, 0
        doomed: list[Pod] = []
        not_wanted: list[Pod] = []
        allowed: list[str] = []
        candidates: list[str] = []
        for node in nodes:
            found = self.split(on_nodes.get(node.name, []))
            if found is None:
                surging += 1
                continue
            new, old = found
            available += (
                1
                if (old is not None and self.available(old))
                or (old is None and new is not None and self.available(new))
                else 0
            )
            if old is None:
                continue
            if new is not None:
                if self.available(new):
                    doomed.append(old)
                else:
                    surging += 1
                continue
            should_run = self.verdicts(node).should_run
            if not self.available(old):
                (allowed.append(node.name) if should_run else doomed.append(old))
            elif not should_run:
                not_wanted.append(old)
            elif surging < self.surge:
                candidates.append(node.name)
        deletable = min(max(available - self.desired, 0), len(not_wanted))
        room = min(max(self.surge - surging, 0), len(candidates))
        return doomed + not_wanted[:deletable], allowed + candidates[:room]


def updated_desired_node_counts(strategy: UpdateStrategy, should_run: list[bool]) -> tuple[int, int, int]:
    """updatedDesiredNodeCounts: (maxSurge, maxUnavailable, desiredNumberScheduled) for nodes
    of which ``should_run`` says which should run a pod."""
    desired = sum(should_run)
    return scaled_value(strategy.max_surge, desired, True), max_unavailable(strategy, desired), desired


def walked_nodes(nodes: list[Node], should_run: list[Node], on_nodes: dict[str, list[Pod]]) -> list[Node]:
    """The nodes rollingUpdate walks: those with daemon pods, and (updatedDesiredNodeCounts adds
    them with none) those that should run one."""
    return [node for node in nodes if node.name in on_nodes or node in should_run]


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
    for pod in _oldest_first(owned):
        first_on.setdefault(_pod_node(pod), pod)
    firsts = [first_on.get(node.name) for node in state.nodes if verdicts(node).should_run]
    present = [pod for pod in firsts if pod is not None]
    updated = [pod for pod in present if pod_revision(state, pod) == revs.latest_hash]
    available = sum(1 for pod in present if is_available(state, pod, daemon_set.min_ready_seconds))
    return RolloutStatus(
        KIND_DAEMON_SET,
        daemon_set.key,
        revs.number,
        f"{daemon_set.key}-{revs.latest_hash}",
        strategy.type,
        len(firsts),
        len(updated),
        len(owned),
        available,
        sorted(pod.key for pod in state.owned_pods(daemon_set) if pod_revision(state, pod) != revs.latest_hash),
        len(updated) == len(firsts) and available == len(firsts),
        [pod.key for pod in updated if not pod.node_name],
    )


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
    return make_pod(
        pod_manifest(daemon_set, daemon_set.name, {}, spec), 0, state.priority_classes, daemon_set.line, state.gates
    )


def _pod_node(pod: Pod) -> str:
    """The node a daemon pod is for: where it runs, or its matchFields term while pending."""
    if pod.node_name:
        return pod.node_name
    affinity = pod.affinity.node_affinity if pod.affinity else None
    for term in affinity.required.terms if affinity and affinity.required else ():
        for requirement in term.match_fields:
            if requirement.key == "metadata.name" and requirement.values:
                return requirement.values[0]
    return ""


def _pod_name(state: ClusterState, daemon_set: ControlledWorkload, node_name: str) -> str:
    """``<daemonset>-<node>``; while that name is taken (a surge pod beside the old one, or a
    replacement while the old one terminates), ``<daemonset>-<node>-<n>`` with the lowest n from 2
    that is free (the release's generateName suffix is random)."""
    name, number = f"{daemon_set.name}-{node_name}", 1
    while state.name_in_use(daemon_set.namespace, name):
        number += 1
        name = f"{daemon_set.name}-{node_name}-{number}"
    return name


def _new_pod(state: ClusterState, daemon_set: ControlledWorkload, node_name: str, revs: Revisions) -> Pod:
    name = _pod_name(state, daemon_set, node_name)
    pod = make_pod(
        pod_manifest(daemon_set, name, {}, daemon_pod_spec(daemon_set, node_name)),
        state.pod_count,
        state.priority_classes,
        daemon_set.line,
        state.gates,
    )
    state.add_pod(pod)
    state.created_ms[pod.key] = state.now_ms
    made_at(state, pod, revs.latest_hash)
    return pod
