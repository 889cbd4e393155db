"""The scheduler's informers of storage and device objects (client-go's shared informers, as
scheduler.New starts them for the kinds its plugins list).

Each kind's informer lists what the run's API server holds (the scheduler's caches start from
that list, not from the scenario) and then watches it: a write delivered by the cluster
(scheduler_core.cluster.store) reaches the informer's store — ``Snapshot.storage``
(framework/storage.py, with VolumeBinding's assume caches on top) or ``Snapshot.dra``
(framework/dra_state.py, the DRA manager's caches) — at once, and its notification for the
scheduler's event handlers (a ``ClusterChange``, the processorListener's queue) waits in
``Snapshot.cluster_changes`` until the run delivers it at its points: the informer latency of the
writes a binding cycle makes, which land with its binding (run/kube_scheduler.py). The informers
of the list at the start notify nobody (the queue starts after the informers have synced).

The flow of a write: writer → cluster (a new version, audited) → its watchers in write order →
these informers → the caches, then the handlers (eventhandlers.py) → the queue's hints.
"""

from __future__ import annotations

from typing import Any, Callable

from scheduler_core.cluster.store import (
    KIND_ATTACHMENT,
    KIND_CAPACITY,
    KIND_CLAIM,
    KIND_CSI_DRIVER,
    KIND_CSI_NODE,
    KIND_DEVICE_CLASS,
    KIND_RESOURCE_CLAIM,
    KIND_SLICE,
    KIND_STORAGE_CLASS,
    KIND_VOLUME,
    OBJECT_KINDS,
    STORAGE_KINDS,
    Action,
    Cluster,
    WatchEvent,
)
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.backend.cache.snapshot import Snapshot

# The event each kind's handlers hear (none for templates: no plugin registers for them).
_RESOURCES: dict[str, EventResource] = {
    KIND_CLAIM: EventResource.PERSISTENT_VOLUME_CLAIM,
    KIND_VOLUME: EventResource.PERSISTENT_VOLUME,
    KIND_STORAGE_CLASS: EventResource.STORAGE_CLASS,
    KIND_CSI_NODE: EventResource.CSI_NODE,
    KIND_CSI_DRIVER: EventResource.CSI_DRIVER,
    KIND_CAPACITY: EventResource.CSI_STORAGE_CAPACITY,
    KIND_ATTACHMENT: EventResource.VOLUME_ATTACHMENT,
    KIND_RESOURCE_CLAIM: EventResource.RESOURCE_CLAIM,
    KIND_SLICE: EventResource.RESOURCE_SLICE,
    KIND_DEVICE_CLASS: EventResource.DEVICE_CLASS,
}
_ACTIONS = {Action.ADDED: ActionType.ADD, Action.MODIFIED: ActionType.UPDATE, Action.DELETED: ActionType.DELETE}


def start(api: Cluster, snapshot: Snapshot) -> None:
    """Every storage and device kind listed into the snapshot's caches, then watched."""
    for kind in OBJECT_KINDS:
        informed = _cache_of(kind, snapshot)
        for obj in api.listed(kind).values():
            informed(None, obj)
        api.watch(kind, _Informer(kind, snapshot))
    snapshot.dra.classes_listed()


class _Informer:
    """One kind's watch: the cache takes the write, the handlers' notification waits for the run."""

    def __init__(self, kind: str, snapshot: Snapshot) -> None:
        self._informed = _cache_of(kind, snapshot)
        self._resource = _RESOURCES.get(kind)
        self._snapshot = snapshot

    def __call__(self, event: WatchEvent) -> None:
        self._informed(event.old, event.new)
        if self._resource is not None:
            change = ClusterChange(ClusterEvent(self._resource, _ACTIONS[event.action]), event.old, event.new)
            self._snapshot.cluster_changes.append(change)


def _cache_of(kind: str, snapshot: Snapshot) -> Callable[[Any, Any], None]:
    """The cache's informer entry point for a kind (storage kinds: StorageState, else DraState)."""
    return snapshot.storage.informed if kind in STORAGE_KINDS else snapshot.dra.informed
