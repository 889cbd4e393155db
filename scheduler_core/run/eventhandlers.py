"""Cluster events -> the scheduler's cache and queue (pkg/scheduler/eventhandlers.go).

The scheduler watches the run's cluster (scheduler_core.cluster) as its informers watch the API
server: ``on_pod`` and ``on_node`` receive every write with the old and the new version and do what
the release's addPod / updatePod / deletePod and addNodeToCache / updateNodeInCache /
deleteNodeFromCache do — the scheduler's own writes (bindings, status patches, victims) included.
SchedulerQueueingHints is on (GA), so every event goes through MoveAllToActiveOrBackoffQueue and
the rejecting plugins' hints. Storage and device objects arrive as ClusterChanges (``cluster_changed``).
"""

from __future__ import annotations

import copy
from typing import Callable

from scheduler_core.backend.queue import SchedulingQueue
from scheduler_core.cluster.store import Action, WatchEvent, follow
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.framework.node_info import Snapshot
from scheduler_core.model import KIND_REPLICA_SET, KIND_STATEFUL_SET, Node, Pod, Workload
from scheduler_core.model.resources import pod_requests

ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)


# The kinds the default spreading reads as workloads (PodTopologySpread's system defaults).
SPREADING_KINDS = (KIND_REPLICA_SET, KIND_STATEFUL_SET)


class EventHandlers:
    def __init__(
        self, queue: SchedulingQueue, snapshot: Snapshot, responsible_for: Callable[[Pod], bool] = lambda pod: True
    ) -> None:
        self.queue = queue
        self.snapshot = snapshot
        self.responsible_for = responsible_for  # responsibleForPod: a profile has the pod's schedulerName

    # ------------------------------------------------------------------ the informers' callbacks

    def on_pod(self, event: WatchEvent) -> None:
        """The pod informer (finished pods filtered out, as the scheduler's field selector does:
        a pod that finishes leaves the informer as a Delete)."""
        old, new = event.old, event.new
        if new is not None and new.is_finished:
            if old is not None and not old.is_finished:
                self.delete_pod(old)
            return
        if event.action is Action.ADDED:
            self.add_pod(new)
        elif event.action is Action.MODIFIED:
            self.update_pod(old, new)
        elif not old.is_finished:
            self.delete_pod(old)

    def on_node(self, event: WatchEvent) -> None:
        if event.action is Action.ADDED:
            self.node_added(event.new)
        elif event.action is Action.MODIFIED:
            self.node_updated(event.old, event.new)
        else:
            self.node_deleted(event.old)

    def on_budget(self, event: WatchEvent) -> None:
        """The PodDisruptionBudget lister preemption reads (an informer with no handler: a budget's
        change moves no pod)."""
        follow(self.snapshot.pdbs, event, lambda budget: budget.key)

    def on_workload(self, event: WatchEvent) -> None:
        """The ReplicaSet and StatefulSet listers the default topology spreading reads (informers
        with no handler)."""
        if event.current.kind in SPREADING_KINDS:
            follow(
                self.snapshot.workloads,
                event,
                lambda listed: (listed.kind, listed.namespace, listed.name),
                lambda workload: Workload(workload.kind, workload.namespace, workload.name, workload.selector),
            )

    def add_pod(self, pod: Pod) -> None:
        """addPod."""
        if pod.node_name:
            self.add_assigned_pod_to_cache(pod)
        elif self.responsible_for(pod):
            self.queue.add(pod)  # addPodToSchedulingQueue (GangScheduling is off)

    def update_pod(self, old: Pod, pod: Pod) -> None:
        """updatePod: an assigned pod's update; a binding (unassigned to assigned); a pending pod's update."""
        if old.node_name:
            self.assigned_pod_updated(old, pod)
        elif pod.node_name:
            self.add_assigned_pod_to_cache(pod)
            if self.responsible_for(old):
                self.queue.delete(old)  # deletePodFromSchedulingQueue(inBinding): nothing else moves
        elif self.responsible_for(old):
            self.unscheduled_pod_updated(old, pod)

    def delete_pod(self, pod: Pod) -> None:
        """deletePod."""
        if pod.node_name:
            self.assigned_pod_deleted(pod)
        elif self.responsible_for(pod):
            self.unscheduled_pod_deleted(pod)

    # ------------------------------------------------------------------ assigned pods

    def add_assigned_pod_to_cache(self, pod: Pod) -> None:
        """addAssignedPodToCache: the cache takes the pod (confirming the assumed version a
        binding came from), then AssignedPodAdd."""
        if self.snapshot.get(pod.node_name) is not None:
            self.snapshot.add_pod(pod)
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, pod)

    def assigned_pod_updated(self, old: Pod, pod: Pod) -> None:
        """updateAssignedPodInCache: the cache follows, and each kind of change is an event."""
        if self.snapshot.get(pod.node_name) is not None:
            self.snapshot.update_pod(old, pod)
        for event in pod_scheduling_properties_change(pod, old):
            self.queue.move_all_to_active_or_backoff(event, old, pod)

    def assigned_pod_deleted(self, pod: Pod) -> None:
        """deleteAssignedPodFromCache (a pod whose node the cache already dropped is not there)."""
        if self.snapshot.get(pod.node_name) is not None:
            self.snapshot.remove_pod(pod)
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)

    def assumed_pod_forgotten(self, pod: Pod, skip_itself: bool) -> None:
        """handleBindingCycleError: forgetting an assumed pod frees what it held on its node, an
        AssignedPodDelete for the pods waiting (the cache already dropped it). ``pod`` carries the
        node it was being bound to."""
        self.queue.move_all_to_active_or_backoff(
            ASSIGNED_POD_DELETE, pod, None, pre_check=(lambda other: other.key != pod.key) if skip_itself else None
        )

    # ------------------------------------------------------------------ pending pods

    def unscheduled_pod_updated(self, old: Pod, pod: Pod) -> None:
        """updatePodInSchedulingQueue: every write gives the pod a new resourceVersion, the
        scheduler's own status patches included (its nomination, its PodScheduled condition), so
        the queue takes the new object (Update); a nomination that existed and changed frees its
        room as if the pod had been deleted from that node, for pods of lower or equal priority.
        An assumed pod's update (its binding is under way) is not for the queue."""
        if old.resource_version == pod.resource_version and pod.resource_version:
            return
        if self.snapshot.is_assumed(pod):
            return
        self.queue.update(old, pod, pod_scheduling_properties_change(pod, old))
        if old.nominated_node_name and old.nominated_node_name != pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff(
                ASSIGNED_POD_DELETE, old, None, pre_check=lambda other: other.priority <= old.priority
            )

    def unscheduled_pod_deleted(self, pod: Pod) -> None:
        """deletePodFromSchedulingQueue: out of the queue; a pod that carried a nomination frees
        its room for pods of lower or equal priority."""
        self.queue.delete(pod)
        if pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff(
                ASSIGNED_POD_DELETE, pod, None, pre_check=lambda other: other.priority <= pod.priority
            )

    # ------------------------------------------------------------------ nodes

    def node_added(self, node: Node) -> None:
        """addNodeToCache: the cache adds it, then Node/Add (no preCheck with QueueingHints)."""
        self.snapshot.add_node(node)
        self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)

    def node_updated(self, old: Node, node: Node) -> list[ClusterEvent]:
        """updateNodeInCache: the cache follows, then one move per NodeSchedulingPropertiesChange event."""
        self.snapshot.update_node(node)
        events = node_scheduling_properties_change(node, old)
        for event in events:
            self.queue.move_all_to_active_or_backoff(event, old, node)
        return events

    def node_deleted(self, node: Node) -> None:
        """deleteNodeFromCache: Node/Delete first, then the cache drops it."""
        self.queue.move_all_to_active_or_backoff(NODE_DELETE, node, None)
        self.snapshot.remove_node(node.name)

    # ------------------------------------------------------------------ storage and devices

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


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
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
    if _conditions(old) != _conditions(new):
        actions.append(ActionType.UPDATE_NODE_CONDITION)
    if old.annotations != new.annotations:
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


def _conditions(node: Node) -> dict[str, str]:
    return {condition.type: condition.status for condition in node.conditions}


def _scaled_down(new: Pod, old: Pod) -> bool:
    """extractPodScaleDown: a resource request removed or lowered."""
    before, after = pod_requests(old), pod_requests(new)
    return any(name not in after or after[name] < amount for name, amount in before.items())


def snapshot_of(pod: Pod) -> Pod:
    """The object as it was before a change (informers hand out old and new versions)."""
    return copy.copy(pod)
