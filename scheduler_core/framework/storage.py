"""StorageState: the scheduler's informer caches of storage objects (the shared informers' stores
of PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
CSIStorageCapacities and VolumeAttachments), with VolumeBinding's assume caches on top
(volumebinding/assume_cache.go, passive_assume_cache.go).

The caches hold only what the run's API server (scheduler_core.cluster.store) lists and then
delivers: its informers (scheduler_core.cluster.informers) hand every object and every watch
event to ``informed``, at once; nothing else writes them. Everyone else reads them through
read-only views (``claims``, ``volumes``, ``classes``, ``csi_nodes``, ``csi_drivers`` map keys to
objects; ``capacities`` and ``attachments`` are tuples). An API write of a claim or a volume
reaches the API server (the plugins' ``options.object_writes``), never these caches directly.

Plugins read claims and volumes two ways, as the release does: VolumeRestrictions, VolumeZone,
NodeVolumeLimits and VolumeBinding's own claim lookup read the informer objects (``claim``,
``volume``); the binder reads through the assume caches (``assumed_claim``, ``assumed_volume``,
``volumes_of_class``), which show what Reserve assumed (a volume pre-bound to a claim, a claim
with its selected node) until the API object changes: an informer update drops the assumed copy
(passiveAssumeCache.mayExpire).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional, Union

from scheduler_core.framework.informer import take

from scheduler_core.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)

StorageObject = Union[
    PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment
]


def claim_key(namespace: str, name: str) -> str:
    """framework.GetNamespacedName: the key of claims in caches and in PVC reference counts."""
    return f"{namespace}/{name}"


class StorageState:
    def __init__(self) -> None:
        self._claims: dict[str, PersistentVolumeClaim] = {}
        # Volumes keep the API server's listing order (new ones at the end): ListPVs' order, which
        # decides among equally small matching volumes (the release's index is a Go map: random).
        self._volumes: dict[str, PersistentVolume] = {}
        self._classes: dict[str, StorageClass] = {}
        self._csi_nodes: dict[str, CSINode] = {}
        self._csi_drivers: dict[str, CSIDriver] = {}
        self._capacities: dict[str, CSIStorageCapacity] = {}
        self._attachments: dict[str, VolumeAttachment] = {}
        self._tables: dict[type, dict[str, Any]] = {
            PersistentVolumeClaim: self._claims,
            PersistentVolume: self._volumes,
            StorageClass: self._classes,
            CSINode: self._csi_nodes,
            CSIDriver: self._csi_drivers,
            CSIStorageCapacity: self._capacities,
            VolumeAttachment: self._attachments,
        }
        # What everyone else reads: views that follow the informers' writes and refuse their own.
        self.claims: Mapping[str, PersistentVolumeClaim] = MappingProxyType(self._claims)
        self.volumes: Mapping[str, PersistentVolume] = MappingProxyType(self._volumes)
        self.classes: Mapping[str, StorageClass] = MappingProxyType(self._classes)
        self.csi_nodes: Mapping[str, CSINode] = MappingProxyType(self._csi_nodes)
        self.csi_drivers: Mapping[str, CSIDriver] = MappingProxyType(self._csi_drivers)
        self.capacities: tuple[CSIStorageCapacity, ...] = ()
        self.attachments: tuple[VolumeAttachment, ...] = ()
        self._assumed_claims: dict[str, PersistentVolumeClaim] = {}
        self._assumed_volumes: dict[str, PersistentVolume] = {}

    # ------------------------------------------------------------------ listers (informer objects)

    def claim(self, namespace: str, name: str) -> Optional[PersistentVolumeClaim]:
        return self._claims.get(claim_key(namespace, name))

    def volume(self, name: str) -> Optional[PersistentVolume]:
        return self._volumes.get(name)

    def storage_class(self, name: str) -> Optional[StorageClass]:
        return self._classes.get(name)

    def csi_node(self, name: str) -> Optional[CSINode]:
        return self._csi_nodes.get(name)

    def csi_driver(self, name: str) -> Optional[CSIDriver]:
        return self._csi_drivers.get(name)

    # ------------------------------------------------------------------ assume caches

    def assumed_claim(self, key: str) -> Optional[PersistentVolumeClaim]:
        """pvcCache.Get: the assumed copy if there is one, else the informer object."""
        return self._assumed_claims.get(key) or self._claims.get(key)

    def assumed_volume(self, name: str) -> Optional[PersistentVolume]:
        return self._assumed_volumes.get(name) or self._volumes.get(name)

    def volumes_of_class(self, class_name: str) -> list[PersistentVolume]:
        """pvCache.ListPVs: the volumes of a class, assumed copies included."""
        return [
            self._assumed_volumes.get(name, volume)
            for name, volume in self._volumes.items()
            if volume.class_name == class_name
        ]

    def assume_claim(self, claim: PersistentVolumeClaim) -> None:
        self._assumed_claims[claim.key] = claim

    def assume_volume(self, volume: PersistentVolume) -> None:
        self._assumed_volumes[volume.name] = volume

    def restore_claim(self, key: str) -> None:
        self._assumed_claims.pop(key, None)

    def restore_volume(self, name: str) -> None:
        self._assumed_volumes.pop(name, None)

    def is_claim_assumed(self, key: str) -> bool:
        return key in self._assumed_claims

    def is_volume_assumed(self, name: str) -> bool:
        return name in self._assumed_volumes

    # ------------------------------------------------------------------ informer updates

    def informed(self, old: Optional[StorageObject], new: Optional[StorageObject]) -> None:
        """One object of the API server's first list (``old`` None) or one watch event, taken by
        its kind's store (``new`` None: deleted). An added or updated claim or volume drops its
        assumed copy (mayExpire); a deleted one leaves it, as the release's passive assume cache
        does until the next informer object of that name."""
        changed = new if new is not None else old
        key = take(self._tables[type(changed)], old, new)
        if isinstance(new, PersistentVolumeClaim):
            self._assumed_claims.pop(key, None)
        elif isinstance(new, PersistentVolume):
            self._assumed_volumes.pop(key, None)
        elif isinstance(changed, CSIStorageCapacity):
            self.capacities = tuple(self._capacities.values())
        elif isinstance(changed, VolumeAttachment):
            self.attachments = tuple(self._attachments.values())
