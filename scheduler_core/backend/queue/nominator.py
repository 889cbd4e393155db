"""The nominator (backend/queue/nominator.go): which pending pod is nominated to which node.

A nomination (set by preemption, or carried by a pod as ``status.nominatedNodeName``) reserves
room: other pods of lower or equal priority are filtered on that node as if the nominee were
running there (RunFilterPluginsWithNominatedPods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from scheduler_core.framework.kept_verdicts import scheduling_fields
from scheduler_core.model import Pod

MODE_NOOP = "Noop"
MODE_OVERRIDE = "Override"


@dataclass(frozen=True, slots=True)
class NominatingInfo:
    """fwk.NominatingInfo: Override sets the node ("" clears it); Noop keeps the pod's own."""

    nominated_node_name: str = ""
    mode: str = MODE_OVERRIDE


CLEAR_NOMINATED_NODE = NominatingInfo("", MODE_OVERRIDE)


class Nominator:
    def __init__(self, is_assigned: Callable[[Pod], bool]) -> None:
        # node -> pod key -> pod, in nomination order (a key's entry found and dropped at once:
        # copied workloads nominate hundreds of pods to a node, added and deleted over and over)
        self.nominated_pods: dict[str, dict[str, Pod]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}  # pod key -> node
        self._is_assigned = is_assigned  # the pod lister: a bound pod is never nominated
        self.version = 0  # bumped by every change of the nominations (what is read from them may be kept)
        # Bumped by every change of which pod object is nominated to which node, not by a pod
        # nominated again where it was (it moves to the end of its node's list: only the order
        # changes, which no Filter verdict reads) — a nominated pod that fails is, at every attempt.
        self.content_version = 0
        self._nodes: frozenset[str] = frozenset()  # nodes_with_nominated_pods, made at version _nodes_at
        self._nodes_at = 0

    def add_nominated_pod(self, pod: Pod, nominating: Optional[NominatingInfo]) -> None:
        """addNominatedPodUnlocked. A nil NominatingInfo is Noop: the pod's own status decides."""
        self._add(pod, nominating, self._remove(pod))

    def _add(self, pod: Pod, nominating: Optional[NominatingInfo], held: Optional[tuple[str, Optional[Pod]]]) -> None:
        """The pod nominated where ``nominating`` (or its own status) says, ``held``: the node and
        object its nomination had before (just removed)."""
        node = self._node_to_nominate(pod, nominating)
        if node is None:
            if held is not None:
                self.content_version += 1
            return
        self.nominated_pod_to_node[pod.key] = node
        pods = self.nominated_pods.setdefault(node, {})
        if pod.key not in pods:
            pods[pod.key] = pod
        self.version += 1
        if held is None or held[0] != node or not _same_to_filter(held[1], pod):
            self.content_version += 1

    def _node_to_nominate(self, pod: Pod, nominating: Optional[NominatingInfo]) -> Optional[str]:
        if nominating is not None and nominating.mode == MODE_OVERRIDE:
            node = nominating.nominated_node_name
        else:
            if not pod.nominated_node_name:
                return None
            node = pod.nominated_node_name
        return None if self._is_assigned(pod) else node

    def update_nominated_pod(self, old: Pod, pod: Pod) -> None:
        """UpdateNominatedPod: the pod is nominated again from its new object (at the end of its
        node's list). An update that neither carries nor carried a nomination keeps the one the
        scheduler reserved in memory (a failure handler's AddNominatedPod before its patch lands)."""
        nominating = None
        if not old.nominated_node_name and not pod.nominated_node_name:
            node = self.nominated_pod_to_node.get(old.key)
            if node is not None:
                nominating = NominatingInfo(node, MODE_OVERRIDE)
        self._add(pod, nominating, self._remove(old))

    def delete(self, pod: Pod) -> None:
        if self._remove(pod) is not None:
            self.content_version += 1

    def _remove(self, pod: Pod) -> Optional[tuple[str, Optional[Pod]]]:
        """The pod's nomination dropped: its node and the object held there (None: none)."""
        node = self.nominated_pod_to_node.pop(pod.key, None)
        if node is None:
            return None
        self.version += 1
        pods = self.nominated_pods.get(node)
        if pods is None:
            return node, None
        held = pods.pop(pod.key, None)
        if not pods:
            del self.nominated_pods[node]
        return node, held

    def nominated_pods_for_node(self, node: str) -> list[Pod]:
        pods = self.nominated_pods.get(node)
        return list(pods.values()) if pods else []

    def nodes_with_nominated_pods(self) -> frozenset[str]:
        """The nodes some pending pod is nominated to: the only ones the first filter pass changes.
        Every attempt asks it (preemption's dry runs too): made again only after a change."""
        if self._nodes_at != self.version:
            self._nodes = frozenset(node for node, pods in self.nominated_pods.items() if pods)
            self._nodes_at = self.version
        return self._nodes

    def node_of(self, pod: Pod) -> Optional[str]:
        return self.nominated_pod_to_node.get(pod.key)


def _same_to_filter(held: Optional[Pod], pod: Pod) -> bool:
    """The pod nominated again is the object held, or a version of it equal in every field Filter
    and preemption read (a failed pod's status patch: its condition, its nomination)."""
    if held is pod:
        return True
    return held is not None and held.key == pod.key and scheduling_fields(held) == scheduling_fields(pod)
