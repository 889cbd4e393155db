"""The cluster of a run: its pods and nodes, and the only code that writes them (the API server).

Verbs as the API server has them: create, update (a node), patch status, bind (the binding
subresource), delete with grace (``deletionTimestamp`` set; the stand-in kubelet removes the pod
later) and without, and a pod's phase written by its kubelet (a Job's pod succeeding). Every write
makes a new version of the object with the next ``resourceVersion`` — an object is never changed
in place, so a watcher keeps the old version it was handed — and a write that changes nothing is
no write at all (no new version, no event), as with the real API server.

Each write is delivered, with the old and the new version, to every watcher of its kind in the
order they subscribed (informers; the scheduler's event handlers, the stand-in kubelet and
controllers, the run's recorder), before the writer goes on. A watcher that writes while events
are being delivered has its write delivered after those already on their way: every watcher sees
every write, in write order.

Workloads (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs) and PodDisruptionBudgets
are objects of the same door: created, updated (a new version, never in place) and deleted here,
and the eviction subresource checks and uses up a budget before it deletes a pod.

Storage and device objects — PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes,
CSIDrivers, CSIStorageCapacities, VolumeAttachments, ResourceClaims, ResourceClaimTemplates,
ResourceSlices, DeviceClasses — are held by kind and key as client-go's object tracker holds them
(``namespace/name``, or the name of a cluster-scoped kind), with the same three verbs: ``create``,
``update`` (a new version, never in place; one that changes nothing is no write) and ``delete``;
``put`` is a create or an update, as the stand-ins and the plugins write whole objects. The
scheduler's caches of them are informers on this store (scheduler_core.cluster.informers).

Reads (listers) give the current version: ``pod``, ``node``, ``pods``, ``nodes``, ``workload``,
``workloads``, ``budget``, ``budgets``; ``object`` and ``listed`` (a read-only view, in listing
order) for the storage and device kinds.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable, Hashable, Iterable, Mapping, Optional, TypeVar, Union

from scheduler_core.cluster.eviction import EvictionAnswer, evict
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.framework.informer import object_key
from scheduler_core.framework.options import DEFAULT_EPOCH
from scheduler_core.model import (
    ControlledWorkload,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    DeviceClass,
    DraObjects,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    PodScheduledCondition,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    StorageClass,
    StorageObjects,
    VolumeAttachment,
)

KIND_POD = "Pod"
KIND_NODE = "Node"
KIND_WORKLOAD = "Workload"  # apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job
KIND_BUDGET = "PodDisruptionBudget"
# core/v1 and storage.k8s.io/v1
KIND_CLAIM = "PersistentVolumeClaim"
KIND_VOLUME = "PersistentVolume"
KIND_STORAGE_CLASS = "StorageClass"
KIND_CSI_NODE = "CSINode"
KIND_CSI_DRIVER = "CSIDriver"
KIND_CAPACITY = "CSIStorageCapacity"
KIND_ATTACHMENT = "VolumeAttachment"
# resource.k8s.io
KIND_RESOURCE_CLAIM = "ResourceClaim"
KIND_CLAIM_TEMPLATE = "ResourceClaimTemplate"
KIND_SLICE = "ResourceSlice"
KIND_DEVICE_CLASS = "DeviceClass"
STORAGE_KINDS = (
    KIND_CLAIM,
    KIND_VOLUME,
    KIND_STORAGE_CLASS,
    KIND_CSI_NODE,
    KIND_CSI_DRIVER,
    KIND_CAPACITY,
    KIND_ATTACHMENT,
)
DEVICE_KINDS = (KIND_RESOURCE_CLAIM, KIND_CLAIM_TEMPLATE, KIND_SLICE, KIND_DEVICE_CLASS)
OBJECT_KINDS = STORAGE_KINDS + DEVICE_KINDS

# A storage or device object (every one a frozen dataclass whose version equality ignores).
Stored = TypeVar(
    "Stored",
    PersistentVolumeClaim,
    PersistentVolume,
    StorageClass,
    CSINode,
    CSIDriver,
    CSIStorageCapacity,
    VolumeAttachment,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    DeviceClass,
)


class Action(str, Enum):
    """What a watcher is told: an object added, modified or deleted."""

    ADDED = "Added"
    MODIFIED = "Modified"
    DELETED = "Deleted"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One write as its watchers receive it. ``old`` is None for an Add, ``new`` None for a
    Delete; ``change`` and ``detail`` are how the run's story tells the write (who made it, why)."""

    kind: str
    action: Action
    old: Any
    new: Any
    change: ClusterChangeKind
    detail: str = ""

    @property
    def current(self) -> Any:
        """The object as the write left it (the last version for a Delete)."""
        return self.new if self.new is not None else self.old


Watcher = Callable[[WatchEvent], None]
Versioned = TypeVar("Versioned", Pod, Node)
Listed = TypeVar("Listed")


def follow(
    listed: list[Listed],
    event: WatchEvent,
    key: Callable[[Listed], Hashable],
    shown: Callable[[Any], Listed] = lambda obj: obj,
) -> None:
    """A lister's list kept in step with one write (an informer's cache in document order): the
    object's entry (``shown`` makes it from the object) replaced where it stands, appended when
    new, removed on a Delete."""
    item = shown(event.current)
    wanted = key(item)
    index = next((i for i, known in enumerate(listed) if key(known) == wanted), None)
    if event.action is Action.DELETED:
        if index is not None:
            del listed[index]
    elif index is None:
        listed.append(item)
    else:
        listed[index] = item


# A status patch leaves a field as it is unless it names a new value.
UNCHANGED: Any = object()


class Cluster:
    """The API server of one run: current versions by key, writes, watchers."""

    def __init__(
        self,
        pods: Iterable[Pod],
        nodes: Iterable[Node],
        epoch: datetime = DEFAULT_EPOCH,
        clock_ms: Callable[[], int] = lambda: 0,
        next_version: Optional[Callable[[], int]] = None,
        audit: bool = False,
        workloads: Iterable[ControlledWorkload] = (),
        budgets: Iterable[PodDisruptionBudget] = (),
        storage: Optional[StorageObjects] = None,
        dra: Optional[DraObjects] = None,
    ) -> None:
        self._pods: dict[str, Pod] = {pod.key: pod for pod in pods}
        self._nodes: dict[str, Node] = {node.name: node for node in nodes}
        # Document order, created ones last (the controllers sync them in this order).
        self._workloads: dict[tuple[str, str, str], ControlledWorkload] = {
            workload_key(workload): workload for workload in workloads
        }
        self._budgets: dict[str, PodDisruptionBudget] = {budget.key: budget for budget in budgets}
        # Storage and device objects by kind, then key, in document order (created ones last).
        self._objects: dict[str, dict[str, Any]] = {
            kind: {object_key(obj): obj for obj in listed} for kind, listed in _listed_objects(storage, dra)
        }
        self._views: dict[str, Mapping[str, Any]] = {
            kind: MappingProxyType(objects) for kind, objects in self._objects.items()
        }
        self._epoch = epoch
        self._clock_ms = clock_ms
        self._next_version = next_version or itertools.count(1).__next__
        self._watchers: dict[str, list[Watcher]] = {
            kind: [] for kind in (KIND_POD, KIND_NODE, KIND_WORKLOAD, KIND_BUDGET, *OBJECT_KINDS)
        }
        self._on_the_way: deque[WatchEvent] = deque()
        self._delivering = False
        self.write_count = 0  # writes made so far (an operation that made none can say so)
        # With ``audit`` (tests), every version handed out is kept with a copy taken then, so
        # ``changed_in_place`` can tell whether anyone changed an object instead of writing it.
        self._audited: Optional[list[tuple[Any, Any]]] = [] if audit else None
        for obj in [*self._pods.values(), *self._nodes.values(), *self._workloads.values(), *self._budgets.values()]:
            self._audit(obj)
        for objects in self._objects.values():
            for obj in objects.values():
                self._audit(obj)

    # ------------------------------------------------------------------ watching and reading

    def watch(self, kind: str, watcher: Watcher) -> None:
        """Subscribe to every later write of ``kind`` (KIND_POD, KIND_NODE, KIND_WORKLOAD, KIND_BUDGET,
        or one of OBJECT_KINDS)."""
        self._watchers[kind].append(watcher)

    def pod(self, key: str) -> Optional[Pod]:
        return self._pods.get(key)

    def pods(self) -> list[Pod]:
        return list(self._pods.values())

    def node(self, name: str) -> Optional[Node]:
        return self._nodes.get(name)

    def nodes(self) -> list[Node]:
        return list(self._nodes.values())

    def workload(self, kind: str, namespace: str, name: str) -> Optional[ControlledWorkload]:
        return self._workloads.get((kind, namespace, name))

    def workloads(self) -> list[ControlledWorkload]:
        return list(self._workloads.values())

    def budget(self, key: str) -> Optional[PodDisruptionBudget]:
        return self._budgets.get(key)

    def budgets(self) -> list[PodDisruptionBudget]:
        return list(self._budgets.values())

    def object(self, kind: str, key: str) -> Any:
        """The current version of a storage or device object (``namespace/name``, or the name of a
        cluster-scoped kind); None when there is none."""
        return self._objects[kind].get(key)

    def listed(self, kind: str) -> Mapping[str, Any]:
        """Every object of a storage or device kind by key, in listing order: a read-only view that
        follows the writes (a lister's)."""
        return self._views[kind]

    @property
    def now_ms(self) -> int:
        return self._clock_ms()

    @property
    def now(self) -> datetime:
        return self._epoch + timedelta(milliseconds=self._clock_ms())

    # ------------------------------------------------------------------ pods

    def create_pod(self, pod: Pod, change: ClusterChangeKind = ClusterChangeKind.POD_CREATED, detail: str = "") -> Pod:
        created = self._versioned(pod)
        self._pods[created.key] = created
        self._deliver(WatchEvent(KIND_POD, Action.ADDED, None, created, change, detail))
        return created

    def bind(self, key: str, node: str, clear_nomination: bool = True) -> Optional[Pod]:
        """The binding subresource: spec.nodeName and PodScheduled=True; the nomination goes
        with ClearingNominatedNodeNameAfterBinding (on from v1.35; before, a bound pod keeps
        status.nominatedNodeName). None when the pod is gone."""
        nomination = {"nominated_node_name": ""} if clear_nomination else {}
        return self._write_pod(
            key,
            ClusterChangeKind.POD_BOUND,
            "",
            node_name=node,
            scheduled_condition=PodScheduledCondition("True", "", ""),
            **nomination,
        )

    def patch_pod_status(
        self,
        key: str,
        change: ClusterChangeKind,
        detail: str = "",
        *,
        nominated_node_name: Any = UNCHANGED,
        condition: Any = UNCHANGED,
        claim_statuses: Any = UNCHANGED,
        preempted_by_scheduler: Any = UNCHANGED,
        phase: Any = UNCHANGED,
        extended_resource_claim: Any = UNCHANGED,
    ) -> Optional[Pod]:
        """A status patch of the fields named; None when the pod is gone or nothing changes."""
        fields = {
            name: value
            for name, value in (
                ("nominated_node_name", nominated_node_name),
                ("scheduled_condition", condition),
                ("claim_statuses", claim_statuses),
                ("preempted_by_scheduler", preempted_by_scheduler),
                ("phase", phase),
                ("extended_resource_claim", extended_resource_claim),
            )
            if value is not UNCHANGED
        }
        return self._write_pod(key, change, detail, **fields)

    def delete_pod(
        self,
        key: str,
        change: ClusterChangeKind,
        detail: str = "",
        *,
        graceful: bool = True,
        gone: ClusterChangeKind = ClusterChangeKind.POD_DELETED,
        gone_detail: str = "",
    ) -> Optional[Pod]:
        """A delete. With grace the pod stays, terminating (``deletionTimestamp`` set, told as
        ``change``), until the kubelet removes it. It is gone at once (told as ``gone``) without
        grace, and where the API server deletes at once: a zero grace period and no finalizers,
        a pod no node runs (never scheduled), a finished pod. Deleting a terminating pod again
        changes nothing. Returns the pod's last version (None: it was not there)."""
        pod = self._pods.get(key)
        if pod is None:
            return None
        if not graceful or pod.is_deleted_at_once or not pod.node_name or pod.is_finished:
            return self.remove_pod(key, gone, gone_detail or detail)
        if pod.is_terminating:
            return pod
        return self._write_pod(key, change, detail, deletion_timestamp=self.now)

    def remove_pod(
        self, key: str, change: ClusterChangeKind = ClusterChangeKind.POD_REMOVED, detail: str = ""
    ) -> Optional[Pod]:
        """The object is gone from the API (the kubelet finished a graceful delete, or a delete
        without grace)."""
        pod = self._pods.pop(key, None)
        if pod is not None:
            self._deliver(WatchEvent(KIND_POD, Action.DELETED, pod, None, change, detail))
        return pod

    def _write_pod(self, key: str, change: ClusterChangeKind, detail: str, **fields: Any) -> Optional[Pod]:
        old = self._pods.get(key)
        if old is None:
            return None
        new = self._revised(old, fields)
        if new is None:
            return None
        self._pods[key] = new
        self._deliver(WatchEvent(KIND_POD, Action.MODIFIED, old, new, change, detail))
        return new

    # ------------------------------------------------------------------ nodes

    def create_node(self, node: Node, detail: str = "") -> Node:
        created = self._versioned(node)
        self._nodes[created.name] = created
        self._deliver(WatchEvent(KIND_NODE, Action.ADDED, None, created, ClusterChangeKind.NODE_ADDED, detail))
        return created

    def update_node(self, node: Node, detail: Union[str, Callable[[Node, Node], str]] = "") -> Optional[Node]:
        """An update replacing the node's object (the same name); ``detail`` may be worked out
        from the old and new versions. None when the node is gone or nothing changes."""
        old = self._nodes.get(node.name)
        if old is None:
            return None
        new = self._revised(old, {name: getattr(node, name) for name in _NODE_SPEC_AND_STATUS})
        if new is None:
            return None
        self._nodes[new.name] = new
        text = detail(old, new) if callable(detail) else detail
        self._deliver(WatchEvent(KIND_NODE, Action.MODIFIED, old, new, ClusterChangeKind.NODE_UPDATED, text))
        return new

    def delete_node(self, name: str, detail: str = "") -> Optional[Node]:
        node = self._nodes.pop(name, None)
        if node is not None:
            self._deliver(WatchEvent(KIND_NODE, Action.DELETED, node, None, ClusterChangeKind.NODE_DELETED, detail))
        return node

    # ------------------------------------------------------------------ workloads

    def create_workload(self, workload: ControlledWorkload, detail: str = "") -> ControlledWorkload:
        created = dataclasses.replace(workload, resource_version=self._next_version())
        self._workloads[workload_key(created)] = created
        self._deliver(
            WatchEvent(KIND_WORKLOAD, Action.ADDED, None, created, ClusterChangeKind.WORKLOAD_CHANGED, detail)
        )
        return created

    def update_workload(self, workload: ControlledWorkload, detail: str = "") -> Optional[ControlledWorkload]:
        """An update replacing the workload's object; None when it is gone or nothing changes."""
        key = workload_key(workload)
        old = self._workloads.get(key)
        if old is None or _workload_fields(old) == _workload_fields(workload):
            return None
        new = dataclasses.replace(workload, resource_version=self._next_version())
        self._workloads[key] = new
        self._deliver(WatchEvent(KIND_WORKLOAD, Action.MODIFIED, old, new, ClusterChangeKind.WORKLOAD_CHANGED, detail))
        return new

    def delete_workload(self, kind: str, namespace: str, name: str, detail: str = "") -> Optional[ControlledWorkload]:
        """The workload goes (what it owns is the garbage collector's to delete)."""
        old = self._workloads.pop((kind, namespace, name), None)
        if old is not None:
            self._deliver(
                WatchEvent(KIND_WORKLOAD, Action.DELETED, old, None, ClusterChangeKind.WORKLOAD_CHANGED, detail)
            )
        return old

    # ------------------------------------------------------------------ budgets and the eviction subresource

    def put_budget(self, budget: PodDisruptionBudget, detail: str = "") -> Optional[PodDisruptionBudget]:
        """A create, or an update replacing the budget's object; None when nothing changes."""
        old = self._budgets.get(budget.key)
        if old is not None and old == budget:
            return None
        new = dataclasses.replace(budget, resource_version=self._next_version())
        self._budgets[new.key] = new
        action = Action.ADDED if old is None else Action.MODIFIED
        self._deliver(WatchEvent(KIND_BUDGET, action, old, new, ClusterChangeKind.BUDGET_CHANGED, detail))
        return new

    def delete_budget(self, key: str, detail: str = "") -> Optional[PodDisruptionBudget]:
        old = self._budgets.pop(key, None)
        if old is not None:
            self._deliver(WatchEvent(KIND_BUDGET, Action.DELETED, old, None, ClusterChangeKind.BUDGET_CHANGED, detail))
        return old

    def evict_pod(self, key: str, detail: str = "") -> EvictionAnswer:
        """The eviction subresource (EvictionREST.Create): the budget selecting the pod must allow
        a disruption, which the eviction uses up (a budget write) before it deletes the pod with
        grace (told as an eviction). A refused eviction writes nothing."""
        pod = self._pods.get(key)
        if pod is None:
            return EvictionAnswer(True)
        answer = evict(pod, self.budgets())
        if not answer.allowed:
            return answer
        if answer.used is not None:
            before = self._budgets[answer.used.key].disruptions_allowed
            self.put_budget(
                answer.used, f"disruptionsAllowed {before} → {answer.used.disruptions_allowed} (eviction of {key})"
            )
        self.delete_pod(key, ClusterChangeKind.POD_EVICTED, detail, gone=ClusterChangeKind.POD_EVICTED)
        return answer

    # ------------------------------------------------------------------ storage and device objects

    def create(self, kind: str, obj: Stored, detail: str = "") -> Optional[Stored]:
        """A create; None when an object of that kind has the name already (AlreadyExists)."""
        key = object_key(obj)
        if key in self._objects[kind]:
            return None
        created: Stored = dataclasses.replace(obj, resource_version=self._next_version())
        self._objects[kind][key] = created
        self._deliver(WatchEvent(kind, Action.ADDED, None, created, ClusterChangeKind.STORAGE, detail))
        return created

    def update(self, kind: str, obj: Stored, detail: str = "") -> Optional[Stored]:
        """An update replacing the object of that name; None when it is gone or nothing changes
        (equality ignores the version)."""
        key = object_key(obj)
        old = self._objects[kind].get(key)
        if old is None or old == obj:
            return None
        new: Stored = dataclasses.replace(obj, resource_version=self._next_version())
        self._objects[kind][key] = new
        self._deliver(WatchEvent(kind, Action.MODIFIED, old, new, ClusterChangeKind.STORAGE, detail))
        return new

    def put(self, kind: str, obj: Stored, detail: str = "") -> Stored:
        """A create, or an update of the object of that name (the writers send whole objects);
        the object as the cluster holds it afterwards (the current one when nothing changed)."""
        written = self.create(kind, obj, detail) or self.update(kind, obj, detail)
        if written is not None:
            return written
        current: Stored = self._objects[kind][object_key(obj)]
        return current

    def delete(self, kind: str, key: str, detail: str = "") -> Any:
        """A delete; the object's last version (None: it was not there)."""
        old = self._objects[kind].pop(key, None)
        if old is not None:
            self._deliver(WatchEvent(kind, Action.DELETED, old, None, ClusterChangeKind.STORAGE, detail))
        return old

    # ------------------------------------------------------------------ versions and delivery

    def _versioned(self, obj: Versioned) -> Versioned:
        new = copy.copy(obj)
        new.resource_version = self._next_version()
        return new

    def _audit(self, obj: Any) -> None:
        if self._audited is not None:
            self._audited.append((obj, _fields_as_now(obj)))

    def changed_in_place(self) -> list[str]:
        """Objects (as "kind name: field") whose fields changed after the cluster handed them
        out: a write that did not go through the door (a field set, or an item of a field's
        dict, list or set). Only with ``audit``."""
        found = []
        for obj, taken in self._audited or ():
            for name, value in taken.items():
                if getattr(obj, name) != value:
                    found.append(f"{type(obj).__name__} {getattr(obj, 'key', getattr(obj, 'name', ''))}: {name}")
        return found

    def _revised(self, old: Versioned, fields: dict[str, Any]) -> Optional[Versioned]:
        """A new version with ``fields`` set, or None when they change nothing."""
        changed = {name: value for name, value in fields.items() if getattr(old, name) != value}
        if not changed:
            return None
        new = self._versioned(old)
        for name, value in changed.items():
            setattr(new, name, value)
        return new

    def _deliver(self, event: WatchEvent) -> None:
        self.write_count += 1
        if event.new is not None:
            self._audit(event.new)
        self._on_the_way.append(event)
        if self._delivering:
            return  # the delivery under way takes it, after the events before it
        self._delivering = True
        try:
            while self._on_the_way:
                sent = self._on_the_way.popleft()
                for watcher in self._watchers[sent.kind]:
                    watcher(sent)
        finally:
            self._delivering = False


def _fields_as_now(obj: Any) -> dict[str, Any]:
    """Every field's value, a container's copied (a frozen object's labels are still a dict)."""
    return {
        name: copy.copy(value) if isinstance(value, (dict, list, set)) else value
        for name in obj.__slots__
        for value in (getattr(obj, name),)
    }


def _listed_objects(storage: Optional[StorageObjects], dra: Optional[DraObjects]) -> list[tuple[str, Iterable[Any]]]:
    """The scenario's storage and device objects by kind."""
    storage = storage or StorageObjects()
    dra = dra or DraObjects()
    return [
        (KIND_CLAIM, storage.claims),
        (KIND_VOLUME, storage.volumes),
        (KIND_STORAGE_CLASS, storage.classes),
        (KIND_CSI_NODE, storage.csi_nodes),
        (KIND_CSI_DRIVER, storage.csi_drivers),
        (KIND_CAPACITY, storage.capacities),
        (KIND_ATTACHMENT, storage.attachments),
        (KIND_RESOURCE_CLAIM, dra.claims),
        (KIND_CLAIM_TEMPLATE, dra.templates),
        (KIND_SLICE, dra.slices),
        (KIND_DEVICE_CLASS, dra.classes),
    ]


def workload_key(workload: ControlledWorkload) -> tuple[str, str, str]:
    """How the API names a workload: its kind, namespace and name."""
    return workload.kind, workload.namespace, workload.name


def _workload_fields(workload: ControlledWorkload) -> tuple[Any, ...]:
    """What an update compares (a workload compares by identity; its version is the cluster's)."""
    return tuple(getattr(workload, f.name) for f in dataclasses.fields(workload) if f.name != "resource_version")


# What a node update may change (its name stays; where it was in the file and line too).
_NODE_SPEC_AND_STATUS = (
    "labels",
    "taints",
    "unschedulable",
    "allocatable",
    "images",
    "conditions",
    "annotations",
    "declared_features",
)
