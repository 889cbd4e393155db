"""Cluster events and queueing hints (kube-scheduler/framework/types.go).

A plugin that rejected a pod says, through ``events_to_register()``, which changes in the cluster
could make that pod schedulable, each optionally with a queueing hint function that looks at the
change and answers QUEUE or QUEUE_SKIP. The scheduling queue asks the hints of the plugins that
rejected a pod when such a change happens (``backend/queue``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum, IntFlag
from typing import Any, Callable, Optional

from scheduler_core.model import Pod


class ActionType(IntFlag):
    """What kind of change; bits, so a registration can cover several (fwk.ActionType)."""

    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4  # taints or spec.unschedulable
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_NODE_DECLARED_FEATURE = 1 << 7
    UPDATE_POD_LABEL = 1 << 8
    UPDATE_POD_SCALE_DOWN = 1 << 9
    UPDATE_POD_TOLERATION = 1 << 10
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 11
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 12
    ALL = (1 << 13) - 1
    UPDATE = ALL & ~(ADD | DELETE)


class EventResource(str, Enum):
    POD = "Pod"
    # Incoming pod events say whether the pod is bound; registrations name POD, which matches both.
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULABLE_POD = "UnschedulablePod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
    RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
    DEVICE_CLASS = "resource.k8s.io/DeviceClass"
    WILDCARD = "*"


class QueueingHint(IntEnum):
    QUEUE_SKIP = 0
    QUEUE = 1


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: EventResource
    action: ActionType
    custom_label: str = ""  # e.g. "UnschedulableTimeout"; otherwise the label is resource + action

    @property
    def label(self) -> str:
        """ClusterEvent.Label(): "PodDelete", "NodeUpdateNodeTaint", ... as the release logs them."""
        if self.custom_label:
            return self.custom_label
        return f"{self.resource.value}{_action_label(self.action)}"

    @property
    def is_wildcard(self) -> bool:
        """ClusterEventIsWildCard: every resource, every action (moves every rejected pod)."""
        return self.resource is EventResource.WILDCARD and self.action == ActionType.ALL

    def matches(self, registered: "ClusterEvent") -> bool:
        """MatchClusterEvents(registered, self): this event is the registered one or more specific.

        A registration of UpdatePodScaleDown is not matched by a general Pod Update (the release
        reads an incoming Update as "no specific update could be told"), hence ``self <= registered``.
        """
        if registered.is_wildcard:
            return True
        resource_ok = registered.resource in (EventResource.WILDCARD, self.resource) or (
            registered.resource is EventResource.POD and self.resource in _POD_KINDS
        )
        return resource_ok and bool(registered.action & self.action) and self.action <= registered.action


_POD_KINDS = (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULABLE_POD)

# QueueingHintFn(pod, old, new) -> hint. ``old`` is None for an Add, ``new`` is None for a Delete.
# A hint function that raises is taken as QUEUE by the queue (the release does the same with errors).
# ``old`` and ``new`` are Any, not Optional[Any]: each plugin's hint names the object type of its
# event (a Node hint takes ``Optional[Node]``), which a callable typed on ``Optional[Any]`` rejects.
QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: Optional[QueueingHintFn] = None  # None: always QUEUE


@dataclass(frozen=True, slots=True)
class ClusterChange:
    """One change a component made to the cluster during a run, for the queue to hear about.

    The scheduler's informers of storage and device objects (scheduler_core.cluster.informers)
    append one to ``Snapshot.cluster_changes`` for every write the run's cluster delivers (by
    VolumeBinding's and DynamicResources' PreBind, the stand-in controllers, the steps), and the
    run drains that list at its points and dispatches every change to the queue's hints. ``old`` is None for an Add, ``new`` is
    None for a Delete.
    """

    event: ClusterEvent
    old: Optional[Any] = None
    new: Optional[Any] = None


_ACTION_LABELS = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.ALL: "All",
    ActionType.UPDATE: "Update",
}


def _action_label(action: ActionType) -> str:
    return _ACTION_LABELS.get(action, "")
