"""The DaemonSet stand-in (pkg/controller/daemon: NodeShouldRunDaemonPod, and util's
AddOrUpdateDaemonPodTolerations and ReplaceDaemonSetPodNodeNameNodeAffinity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.cluster.controllers.pods import make_pod, pod_manifest
from scheduler_core.cluster.controllers.state import ClusterState, CreatePod, DeletePod, Write
from scheduler_core.model import ControlledWorkload, Node, Pod, TaintEffect
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


@dataclass(frozen=True, slots=True)
class Verdict:
    should_run: bool
    should_continue_running: bool


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
            writes.append(CreatePod(_new_pod(state, daemon_set, node.name), by))
        elif not verdict.should_continue_running:
            writes.extend(DeletePod(pod, by) for pod in on_node)
    writes.extend(DeletePod(pod, by, graceful=False) for pod in owned
                  if nodes_by_pod[pod.key] not in node_names and not pod.is_terminating)
    return writes


def _verdicts(state: ClusterState, daemon_set: ControlledWorkload):
    """NodeShouldRunDaemonPod per node, remembered while neither the node object nor the template
    changes (the controller runs after every binding; nodes rarely change)."""
    cache = state.daemon_verdicts.get(daemon_set.key)
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


def _new_pod(state: ClusterState, daemon_set: ControlledWorkload, node_name: str) -> Pod:
    name = _pod_name(daemon_set, node_name)
    pod = make_pod(pod_manifest(daemon_set, name, {}, daemon_pod_spec(daemon_set, node_name)), state.pod_count,
                   state.priority_classes, daemon_set.line)
    state.add_pod(pod)
    state.created_ms[pod.key] = state.now_ms
    return pod
