"""Cluster events -> the scheduler's cache and queue (pkg/scheduler/eventhandlers.go).

Each handler is what the release's informer callbacks do for the changes a SchedLab run makes:
a pod gets bound, a victim starts terminating, a victim is removed, a pending pod's nomination is
written, a volume or claim is written. SchedulerQueueingHints is on (GA), so every event goes
through MoveAllToActiveOrBackoffQueue and the rejecting plugins' hints.
"""

from __future__ import annotations

import copy
from typing import Optional

from scheduler_core.backend.queue import SchedulingQueue
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.framework.node_info import Snapshot
from scheduler_core.model import Node, Pod
from scheduler_core.resources import pod_requests

ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)


class EventHandlers:
    def __init__(self, queue: SchedulingQueue, snapshot: Snapshot) -> None:
        self.queue = queue
        self.snapshot = snapshot

    def pod_bound(self, pod: Pod) -> None:
        """updatePod for a pod that became assigned: addAssignedPodToCache (the cache already
        holds it, assumed), then it leaves the scheduling queue (and the nominator)."""
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, pod)
        self.queue.delete(pod)

    def assigned_pod_updated(self, old: Pod, pod: Pod) -> None:
        """updateAssignedPodInCache: the cache follows, and each kind of change is an event."""
        self.snapshot.update_pod(pod)
        for event in pod_scheduling_properties_change(pod, old):
            self.queue.move_all_to_active_or_backoff(event, old, pod)

    def assigned_pod_deleted(self, pod: Pod) -> None:
        """deleteAssignedPodFromCache."""
        self.snapshot.remove_pod(pod)
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)

    def assumed_pod_forgotten(self, pod: Pod, skip_itself: bool) -> None:
        """handleBindingCycleError: forgetting an assumed pod frees what it held on its node, an
        AssignedPodDelete for the pods waiting (the cache already dropped it). ``pod`` carries the
        node it was being bound to."""
        self.queue.move_all_to_active_or_backoff(
            ASSIGNED_POD_DELETE, pod, None, pre_check=(lambda other: other.key != pod.key) if skip_itself else None)

    def unscheduled_pod_updated(self, old: Pod, pod: Pod) -> None:
        """updatePodInSchedulingQueue: every write gives the pod a new resourceVersion, the
        scheduler's own status patches included (its nomination, its PodScheduled condition), so
        the queue takes the new object (Update); a nomination that existed and changed frees its
        room as if the pod had been deleted from that node, for pods of lower or equal priority."""
        self.queue.update(old, pod, pod_scheduling_properties_change(pod, old))
        if old.nominated_node_name and old.nominated_node_name != pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, old, None,
                                                     pre_check=lambda other: other.priority <= old.priority)

    # ------------------------------------------------------------------ runs with steps (spec/CHANGES.md)

    def node_added(self, node: Node) -> None:
        """addNodeToCache: the cache adds it, then Node/Add (no preCheck with QueueingHints)."""
        self.snapshot.add_node(node)
        self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)

    def node_updated(self, old: Node, node: Node, old_manifest: Optional[dict] = None,
                     new_manifest: Optional[dict] = None) -> list[ClusterEvent]:
        """updateNodeInCache: the cache follows, then one move per NodeSchedulingPropertiesChange
        event (the manifests, when known, say whether conditions or annotations changed)."""
        self.snapshot.update_node(node)
        events = node_scheduling_properties_change(node, old, new_manifest, old_manifest)
        for event in events:
            self.queue.move_all_to_active_or_backoff(event, old, node)
        return events

    def node_deleted(self, node: Node) -> None:
        """deleteNodeFromCache: Node/Delete first, then the cache drops it."""
        self.queue.move_all_to_active_or_backoff(NODE_DELETE, node, None)
        self.snapshot.remove_node(node.name)

    def unscheduled_pod_added(self, pod: Pod) -> None:
        """addPodToSchedulingQueue (GangScheduling is off: no UnscheduledPodAdd broadcast)."""
        self.queue.add(pod)

    def unscheduled_pod_deleted(self, pod: Pod) -> None:
        """deletePodFromSchedulingQueue: out of the queue; a pod that carried a nomination frees
        its room for pods of lower or equal priority."""
        self.queue.delete(pod)
        if pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None,
                                                     pre_check=lambda other: other.priority <= pod.priority)

    def assigned_pod_gone(self, pod: Pod) -> None:
        """deleteAssignedPodFromCache for a pod whose node the cache already dropped."""
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)
    def cluster_changed(self, change: ClusterChange) -> None:
        """The storage informers' handlers (buildEvtResHandler): straight to the queue."""
        self.queue.move_all_to_active_or_backoff(change.event, change.old, change.new)


def pod_scheduling_properties_change(new: Pod, old: Pod) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange: the specific updates, else a general Update."""
    resource = EventResource.ASSIGNED_POD if new.node_name else EventResource.UNSCHEDULABLE_POD
    actions = []
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_POD_LABEL)
    if _scaled_down(new, old):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if not new.scheduling_gates and old.scheduling_gates:
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if len(new.tolerations) != len(old.tolerations):
        actions.append(ActionType.UPDATE_POD_TOLERATION)
    if new.claim_statuses != old.claim_statuses:
        actions.append(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
    return [ClusterEvent(resource, action) for action in actions or [ActionType.UPDATE]]


def node_scheduling_properties_change(new: Node, old: Node, new_manifest: Optional[dict] = None,
                                      old_manifest: Optional[dict] = None) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange, its extractors in the release's order: spec.unschedulable
    cleared (as a taint update), allocatable, labels, taints, conditions (type -> status),
    annotations. NodeDeclaredFeatures is off by default."""
    actions = []
    if old.unschedulable and not new.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if old.allocatable != new.allocatable:
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if old.labels != new.labels:
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if old.taints != new.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if _conditions(old_manifest) != _conditions(new_manifest):
        actions.append(ActionType.UPDATE_NODE_CONDITION)
    if _annotations(old_manifest) != _annotations(new_manifest):
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


def _conditions(manifest: Optional[dict]) -> dict:
    conditions = ((manifest or {}).get("status") or {}).get("conditions") or []
    return {c.get("type"): c.get("status") for c in conditions if isinstance(c, dict)}


def _annotations(manifest: Optional[dict]) -> dict:
    return dict(((manifest or {}).get("metadata") or {}).get("annotations") or {})


def _scaled_down(new: Pod, old: Pod) -> bool:
    """extractPodScaleDown: a resource request removed or lowered."""
    before, after = pod_requests(old), pod_requests(new)
    return any(name not in after or after[name] < amount for name, amount in before.items())


def snapshot_of(pod: Pod) -> Pod:
    """The object as it was before a change (informers hand out old and new versions)."""
    return copy.copy(pod)
