"""Cluster events -> the scheduler's cache and queue (pkg/scheduler/eventhandlers.go).

The scheduler watches the run's cluster (scheduler_core.cluster) as its informers watch the API
server: ``on_pod`` and ``on_node`` receive every write with the old and the new version and do what
the release's addPod / updatePod / deletePod and addNodeToCache / updateNodeInCache /
deleteNodeFromCache do — the scheduler's own writes (bindings, status patches, victims) included.
SchedulerQueueingHints is on (GA), so every event goes through MoveAllToActiveOrBackoffQueue and
the rejecting plugins' hints. Storage and device objects arrive as ClusterChanges (``cluster_changed``).

The handlers follow the release they are given (release/code.py): a nomination that changes or
goes with its pod frees room from v1.33 on; v1.33 and v1.34 have two pod informer handlers, so a
binding of a nominated pod is also such a deletion for the unscheduled-pod one; v1.35 on forget
an assumed pod as soon as it is deleted.
"""

from __future__ import annotations

import copy
from typing import Callable

from scheduler_core.backend.queue import SchedulingQueue
from scheduler_core.cluster.store import Action, WatchEvent, follow
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.model import KIND_REPLICA_SET, KIND_STATEFUL_SET, Node, Pod, Workload
from scheduler_core.model.resources import pod_requests
from scheduler_core.release.rules import DEFAULT_RULES, Rules

ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)


# The kinds the default spreading reads as workloads (PodTopologySpread's system defaults).
SPREADING_KINDS = (KIND_REPLICA_SET, KIND_STATEFUL_SET)


class EventHandlers:
    def __init__(
        self,
        queue: SchedulingQueue,
        snapshot: Snapshot,
        responsible_for: Callable[[Pod], bool] = lambda pod: True,
        rules: Rules = DEFAULT_RULES,
    ) -> None:
        self.queue = queue
        self.snapshot = snapshot
        self.responsible_for = responsible_for  # responsibleForPod: a profile has the pod's schedulerName
        features = rules.features
        self._nomination_frees_room = features.nomination_changes_requeue
        # Two pod informer handlers (before v1.35): the unscheduled-pod one sees a binding as a delete.
        self._binding_is_a_queue_delete = self._nomination_frees_room and not features.one_pod_informer_handler
        self._forgets_deleted_assumed = features.assumed_pod_deletion_forgets
        self._pod_events = PodChangeEvents(
            generated_claims=rules.gates.enabled("DynamicResourceAllocation"),
            toleration_label=features.pod_toleration_event_renamed,
        )
        self._declared_features = rules.gates.enabled("NodeDeclaredFeatures")

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
        listed = list(self.snapshot.pdbs)
        follow(listed, event, lambda budget: budget.key)
        self.snapshot.pdbs = tuple(listed)  # a new object: preemption tells unchanged budgets by identity

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
            self.snapshot.indexed_listers.clear()  # built from the workloads listed

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
                if self._binding_is_a_queue_delete and old.nominated_node_name:
                    # v1.33, v1.34: the unscheduled-pod handler's OnDelete of the old object, which
                    # carried a nomination: the room it held goes, as for a deleted nominated pod.
                    self._nomination_gone(old)
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
        for event in self._pod_events(pod, old):
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
        An assumed pod's update (its binding is under way) is not for the queue, unless (v1.35 on)
        it marks the pod for deletion: then the assumed pod is forgotten."""
        if old.resource_version == pod.resource_version and pod.resource_version:
            return
        if self.snapshot.is_assumed(pod):
            if self._forgets_deleted_assumed and pod.is_terminating and not old.is_terminating:
                self.assumed_pod_deleted(pod)
            return
        self.queue.update(old, pod, self._pod_events(pod, old))
        if (
            self._nomination_frees_room
            and old.nominated_node_name
            and old.nominated_node_name != pod.nominated_node_name
        ):
            self._nomination_gone(old)

    def unscheduled_pod_deleted(self, pod: Pod) -> None:
        """deletePodFromSchedulingQueue: out of the queue; an assumed pod is forgotten (v1.35 on);
        a pod that carried a nomination frees its room for pods of lower or equal priority (v1.33 on)."""
        self.queue.delete(pod)
        if self._forgets_deleted_assumed and self.snapshot.is_assumed(pod):
            self.assumed_pod_deleted(pod)
        elif self._nomination_frees_room and pod.nominated_node_name:
            self._nomination_gone(pod)

    def _nomination_gone(self, pod: Pod) -> None:
        """The room a nominated pod held on its node is free: AssignedPodDelete for the pods of
        lower or equal priority (getLEPriorityPreCheck)."""
        self.queue.move_all_to_active_or_backoff(
            ASSIGNED_POD_DELETE, pod, None, pre_check=lambda other: other.priority <= pod.priority
        )

    def assumed_pod_deleted(self, pod: Pod) -> None:
        """handleAssumedPodDeletion: the cache's assumed version (on the node it is being bound
        to) is forgotten at once, freeing its room, and the pods waiting hear an AssignedPodDelete
        (its binding will fail later; the stand-in has no pod waiting at Permit to reject)."""
        assumed = self.snapshot.assumed_pod(pod.key)
        if assumed is None:
            return
        forgotten = snapshot_of(assumed)
        self.snapshot.unbind(assumed)
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, forgotten, None)

    # ------------------------------------------------------------------ nodes

    def node_added(self, node: Node) -> None:
        """addNodeToCache: the cache adds it, then Node/Add (no preCheck with QueueingHints)."""
        self.snapshot.add_node(node)
        self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)

    def node_updated(self, old: Node, node: Node) -> list[ClusterEvent]:
        """updateNodeInCache: the cache follows, then one move per NodeSchedulingPropertiesChange event."""
        self.snapshot.update_node(node)
        events = node_scheduling_properties_change(node, old, declared_features=self._declared_features)
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


def pod_scheduling_properties_change(
    new: Pod, old: Pod, *, generated_claims: bool = True, toleration_label: bool = True
) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange: the specific updates, else a general Update. The generated
    claims' extractor runs only with DynamicResourceAllocation on (off by default before v1.34);
    before v1.33 the toleration update was labelled UpdatePodTolerations."""
    resource = EventResource.ASSIGNED_POD if new.node_name else EventResource.UNSCHEDULABLE_POD
    events = []
    if new.labels != old.labels:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_LABEL))
    if _scaled_down(new, old):
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN))
    if not new.scheduling_gates and old.scheduling_gates:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))
    if len(new.tolerations) != len(old.tolerations):
        label = "" if toleration_label else f"{resource.value}UpdatePodTolerations"
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATION, label))
    if generated_claims and new.claim_statuses != old.claim_statuses:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM))
    return events or [ClusterEvent(resource, ActionType.UPDATE)]


class PodChangeEvents:
    """PodSchedulingPropertiesChange with a release's extractors and labels."""

    def __init__(self, *, generated_claims: bool, toleration_label: bool) -> None:
        self.generated_claims = generated_claims
        self.toleration_label = toleration_label

    def __call__(self, new: Pod, old: Pod) -> list[ClusterEvent]:
        return pod_scheduling_properties_change(
            new, old, generated_claims=self.generated_claims, toleration_label=self.toleration_label
        )


def node_scheduling_properties_change(new: Node, old: Node, *, declared_features: bool = False) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange, its extractors in the release's order: spec.unschedulable
    cleared (as a taint update), allocatable, labels, taints, conditions (type -> status),
    annotations, and with NodeDeclaredFeatures (on in v1.36) status.declaredFeatures."""
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
    # extractNodeFeaturesChange: compared as lists (the API server keeps them sorted)
    if declared_features and old.declared_features != new.declared_features:
        actions.append(ActionType.UPDATE_NODE_DECLARED_FEATURE)
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
