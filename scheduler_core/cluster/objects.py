"""Writes of storage and device objects: claims, volumes, storage classes, ResourceClaims.

The one way these objects are written, by the scheduler's plugins (VolumeBinding's and
DynamicResources' PreBind, DynamicResources' PostFilter), the stand-in volume and resourceclaim
controllers and the steps. As with the real API server, each write is a new version of the object
(``resource_version`` from the run's counter); the scheduler's caches of these objects
(``Snapshot.storage``, ``Snapshot.dra``) take it at once, and a ``ClusterChange`` is queued for the
scheduler's event handlers, which the run delivers at its points (``Snapshot.cluster_changes``): the
informer latency of the writes a binding cycle makes, which land with its binding.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, TypeVar

from scheduler_core.cluster import volume_controller
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.framework.node_info import Snapshot
from scheduler_core.model import PersistentVolume, PersistentVolumeClaim, ResourceClaim, StorageClass

Written = TypeVar("Written", PersistentVolumeClaim, PersistentVolume, StorageClass, ResourceClaim)


class ObjectWrites:
    """The API calls for storage and device objects, on ``snapshot``'s caches; ``next_version``
    numbers the versions (the run's cluster shares its counter)."""

    def __init__(self, snapshot: Snapshot, next_version: Optional[Callable[[], int]] = None) -> None:
        self._snapshot = snapshot
        self._next_version = next_version or _counter()
        self.write_count = 0  # writes made so far

    @property
    def snapshot(self) -> Snapshot:
        """The caches the writes land in (what the writers read back)."""
        return self._snapshot

    def write_claim(self, claim: PersistentVolumeClaim) -> PersistentVolumeClaim:
        """Create or update a PersistentVolumeClaim (an assumed copy expires)."""
        claim = self._versioned(claim)
        old = self._snapshot.storage.put_claim(claim)
        self._tell(EventResource.PERSISTENT_VOLUME_CLAIM, old, claim)
        return claim

    def delete_claim(self, key: str) -> Optional[PersistentVolumeClaim]:
        return self._pop(self._snapshot.storage.claims, key, EventResource.PERSISTENT_VOLUME_CLAIM)

    def write_volume(self, volume: PersistentVolume) -> PersistentVolume:
        volume = self._versioned(volume)
        old = self._snapshot.storage.put_volume(volume)
        self._tell(EventResource.PERSISTENT_VOLUME, old, volume)
        return volume

    def write_storage_class(self, storage_class: StorageClass) -> StorageClass:
        return self._put(self._snapshot.storage.classes, storage_class.name, storage_class, EventResource.STORAGE_CLASS)

    def write_resource_claim(self, claim: ResourceClaim) -> ResourceClaim:
        """Create or update a ResourceClaim (its status included): the claims' cache follows."""
        return self._put(self._snapshot.dra.claims, claim.key, claim, EventResource.RESOURCE_CLAIM)

    def delete_resource_claim(self, key: str) -> Optional[ResourceClaim]:
        return self._pop(self._snapshot.dra.claims, key, EventResource.RESOURCE_CLAIM)

    def await_volume_bindings(self, claim_keys: list[str]) -> None:
        """The time BindPodVolumes waits: the stand-in PV controller and provisioner act on the
        claims (their writes come through this same door)."""
        volume_controller.settle(self, claim_keys)

    def _put(self, cache: dict[str, Written], key: str, obj: Written, resource: EventResource) -> Written:
        """A create or update of an object the caches hold by ``key`` as they are (no assumptions)."""
        written = self._versioned(obj)
        old = cache.get(key)
        cache[key] = written
        self._tell(resource, old, written)
        return written

    def _pop(self, cache: dict[str, Written], key: str, resource: EventResource) -> Optional[Written]:
        old = cache.pop(key, None)
        if old is not None:
            self._tell(resource, old, None)
        return old

    def _versioned(self, obj: Written) -> Written:
        return dataclasses.replace(obj, resource_version=self._next_version())

    def _tell(self, resource: EventResource, old: object, new: object) -> None:
        self.write_count += 1
        action = ActionType.DELETE if new is None else ActionType.ADD if old is None else ActionType.UPDATE
        self._snapshot.cluster_changes.append(ClusterChange(ClusterEvent(resource, action), old, new))


def _counter() -> Callable[[], int]:
    count = 0

    def next_version() -> int:
        nonlocal count
        count += 1
        return count

    return next_version
