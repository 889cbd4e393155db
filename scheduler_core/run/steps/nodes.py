"""A step's node operations: `kubectl cordon` / `uncordon` and `kubectl drain` (cordon, then
evict through the eviction API, retrying a refused eviction: kubectl/pkg/drain), nodes added like
another (a machine joining) and nodes lost (Node/Delete, then the pod garbage collector).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator, Optional

from scheduler_core.cluster.controllers.drain import GIVE_UP_MS, RETRY_MS, Drain, pods_to_evict
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.encoding.events import BlockedEviction, ClusterChangeKind, Event
from scheduler_core.model import (
    LABEL_HOSTNAME,
    AddNodesOp,
    CordonOp,
    DeleteNodesOp,
    DrainOp,
    Manifest,
    Node,
    ObjectRef,
    Pod,
)
from scheduler_core.run.eventhandlers import node_scheduling_properties_change
from scheduler_core.run.steps.pod_control import PodControl, RunLoop
from scheduler_core.run.steps.record import StepRecord
from scheduler_core.scenario import manifests


class NodeOperations:
    """Node writes and the drains under way. ``manifests``: the objects as the API server holds
    them (shared with the other operations); ``react``: the controllers' turn, after evictions."""

    def __init__(
        self,
        loop: RunLoop,
        state: ClusterState,
        objects: dict[ObjectRef, Manifest],
        pods: PodControl,
        react: Callable[[], Iterator[Event]],
    ) -> None:
        self.loop = loop
        self.state = state
        self.manifests = objects
        self.pods = pods
        self.react = react
        self.drains: list[Drain] = []

    # ------------------------------------------------------------------ node writes

    def update(self, old: Node, node: Node, new_manifest: Manifest) -> Iterator[Event]:
        self.manifests[ObjectRef("Node", "", node.name)] = new_manifest
        declared_features = self.loop.scenario.rules.gates.enabled("NodeDeclaredFeatures")
        self.loop.cluster.update_node(node, lambda old, new: _node_change_labels(old, new, declared_features))
        yield from self.loop.drain_moves()

    def cordon(self, name: str, unschedulable: bool) -> Iterator[Event]:
        """`kubectl cordon` (``unschedulable``) or `uncordon`: spec.unschedulable patched."""
        old = self.state.node(name)
        if old is None or old.unschedulable == unschedulable:
            return
        manifest = manifests.merge_patch(
            self.manifests.get(ObjectRef("Node", "", name)) or {},
            {"spec": {"unschedulable": True if unschedulable else None}},
        )
        yield from self.update(old, replace(old, unschedulable=unschedulable), manifest)

    def add_like(self, spec: AddNodesOp) -> Iterator[Event]:
        """``spec.count`` nodes copied from ``spec.like``: its labels (the hostname their own),
        allocatable and taints (those of ``spec.taints`` replaced), never its cordon."""
        like = self.state.node(spec.like)
        if like is None:
            return
        like_manifest = self.manifests.get(ObjectRef("Node", "", like.name)) or {}
        taints = [
            t
            for t in ((like_manifest.get("spec") or {}).get("taints") or [])
            if not any(t.get("key") == n.key and t.get("effect") == n.effect for n in spec.taints)
        ]
        taints += [
            {"key": t.key, "value": t.value, "effect": t.effect} if t.value else {"key": t.key, "effect": t.effect}
            for t in spec.taints
        ]
        for number in range(1, spec.count + 1):
            name = f"{spec.prefix}{number}"
            labels = {**like.labels, **dict(spec.labels), LABEL_HOSTNAME: name}
            manifest = manifests.merge_patch(
                like_manifest,
                {
                    "metadata": {"name": name, "labels": None, "uid": None, "annotations": None},
                    "spec": {"taints": None, "unschedulable": None, "providerID": None},
                    "status": {"images": None, "conditions": None},
                },
            )
            manifest = {
                **manifest,
                "metadata": {**manifest["metadata"], "labels": labels},
                "spec": {**(manifest.get("spec") or {}), **({"taints": taints} if taints else {})},
            }
            node = manifests.decode_node(manifest, len(self.state.nodes), like.line)
            self.manifests[ObjectRef("Node", "", name)] = manifest
            yield from self.create(node, f"like {like.name}")

    def create(self, node: Node, detail: str) -> Iterator[Event]:
        self.loop.cluster.create_node(node, detail)
        yield from self.loop.drain_moves()

    def delete_matching(self, spec: DeleteNodesOp) -> Iterator[Event]:
        """The nodes ``spec`` names or selects, each lost."""
        chosen = [
            node
            for node in self.state.nodes
            if (spec.selector and all(node.labels.get(k) == v for k, v in spec.selector)) or node.name in spec.names
        ]
        for node in chosen:
            yield from self.lose(node)

    def lose(self, node: Node) -> Iterator[Event]:
        """A machine lost: Node/Delete, then its pods are gone at once (the pod garbage collector)."""
        info = self.loop.snapshot.get(node.name)
        bound = sorted((i.pod for i in info.pods), key=lambda pod: pod.key) if info is not None else []
        self.loop.cluster.delete_node(node.name)
        yield from self.loop.drain_moves()
        for pod in bound:
            yield from self.pods.delete_pod(pod, f"its node {node.name} was lost", graceful=False)
        self.drains = [d for d in self.drains if d.node != node.name]

    def why_unchanged(self, spec: CordonOp | DrainOp | AddNodesOp | DeleteNodesOp) -> str:
        """Why a node operation wrote nothing."""
        if isinstance(spec, AddNodesOp):
            return f"no node {spec.like} to copy"
        if isinstance(spec, DeleteNodesOp):
            return "no node matches"
        if self.state.node(spec.node) is None:
            return f"no node {spec.node}"
        if isinstance(spec, DrainOp):
            waiting = any(drain.node == spec.node and drain.waiting for drain in self.drains)
            return (
                "its node was cordoned already and its evictions wait on budgets"
                if waiting
                else "its node was cordoned already and has no pod to evict"
            )
        return "its node is unschedulable already" if spec.unschedulable else "its node is schedulable already"

    # ------------------------------------------------------------------ drain and eviction

    def drain(self, name: str, step: int) -> Iterator[Event]:
        """`kubectl drain` during step ``step``: cordon, then evict what GetPodsForDeletion keeps."""
        yield from self.cordon(name, True)
        info = self.loop.snapshot.get(name)
        pods_on_node = [i.pod for i in info.pods] if info is not None else []
        # The manifests of the pods on the node, by key (pods_to_evict reads no other): not every
        # pod's, which made draining many nodes quadratic.
        pod_manifests = {
            pod.key: m
            for pod in pods_on_node
            if (m := self.manifests.get(ObjectRef("Pod", pod.namespace, pod.name))) is not None
        }
        drain = Drain(name, step, pods_to_evict(pods_on_node, pod_manifests))
        self.drains.append(drain)
        yield from self._evict_all(drain)

    def next_retry_ms(self) -> Optional[int]:
        """When the next refused eviction is tried again."""
        times = [d.retry_at for d in self.drains if d.retry_at is not None]
        return min(times) if times else None

    def retry_due(self, now_ms: int, record: StepRecord, last_activity_ms: int) -> Iterator[Event]:
        """The drains whose retry is due: evict again; a drain that has waited with nothing else
        happening since ``last_activity_ms`` for GIVE_UP_MS gives up (its pods go in ``record``)."""
        for drain in list(self.drains):
            if drain.retry_at is not None and drain.retry_at <= now_ms:
                yield from self._retry(drain, record, last_activity_ms)

    def _evict_all(self, drain: Drain) -> Iterator[Event]:
        still: list[Pod] = []
        for pod in drain.waiting:
            if not self.state.live(pod):
                continue
            answer = self.loop.cluster.evict_pod(pod.key, f"drain of {drain.node}")
            if answer.allowed:
                drain.refused_by.pop(pod.key, None)
                yield from self.loop.drain_moves()
            else:
                drain.refused_by[pod.key] = answer.budget
                still.append(pod)
                yield self.loop.change_event(
                    pod.key, ClusterChangeKind.EVICTION_REFUSED, node=drain.node, detail=f"budget {answer.budget}"
                )
        drain.waiting = still
        drain.retry_at = self.loop.clock.ms + RETRY_MS if still else None
        if not still:
            self.drains.remove(drain)
        yield from self.react()

    def _retry(self, drain: Drain, record: StepRecord, last_activity_ms: int) -> Iterator[Event]:
        yield from self._evict_all(drain)
        if drain.waiting and self.loop.clock.ms - last_activity_ms >= GIVE_UP_MS:
            for pod in drain.waiting:
                blocked = BlockedEviction(pod.key, drain.refused_by.get(pod.key, ""))
                record.blocked.append(blocked)
                yield self.loop.change_event(
                    pod.key, ClusterChangeKind.DRAIN_BLOCKED, node=drain.node, detail=f"budget {blocked.budget}"
                )
            if drain in self.drains:
                self.drains.remove(drain)


def _node_change_labels(old: Node, new: Node, declared_features: bool) -> str:
    """How the story tells a node update: the scheduling events it gave (the release's extractors)."""
    events = node_scheduling_properties_change(new, old, declared_features=declared_features)
    return ", ".join(event.label for event in events) or "no scheduling change"
