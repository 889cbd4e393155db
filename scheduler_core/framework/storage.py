"""StorageState: the scheduler's informer caches of storage objects, with VolumeBinding's assume
caches on top (volumebinding/assume_cache.go, passive_assume_cache.go).

Plugins read claims and volumes two ways, as the release does: VolumeRestrictions, VolumeZone,
NodeVolumeLimits and VolumeBinding's own claim lookup read the informer objects (``claim``,
``volume``); the binder reads through the assume caches (``assumed_claim``, ``assumed_volume``,
``volumes_of_class``), which show what Reserve assumed (a volume pre-bound to a claim, a claim
with its selected node) until the API object changes. Writes of API objects go through ``put_*``:
an informer update drops the assumed copy (passiveAssumeCache.mayExpire).
"""

from __future__ import annotations

from typing import Optional

from scheduler_core.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    VolumeAttachment,
)


def claim_key(namespace: str, name: str) -> str:
    """framework.GetNamespacedName: the key of claims in caches and in PVC reference counts."""
    return f"{namespace}/{name}"


class StorageState:
    def __init__(self, objects: Optional[StorageObjects] = None) -> None:
        objects = objects or StorageObjects()
        self.claims: dict[str, PersistentVolumeClaim] = {c.key: c for c in objects.claims}
        # Volumes keep document order (new ones at the end): ListPVs' order, which decides among
        # equally small matching volumes (the release's index is a Go map: its order is random).
        self.volumes: dict[str, PersistentVolume] = {v.name: v for v in objects.volumes}
        self.classes: dict[str, StorageClass] = {c.name: c for c in objects.classes}
        self.csi_nodes: dict[str, CSINode] = {n.name: n for n in objects.csi_nodes}
        self.csi_drivers: dict[str, CSIDriver] = {d.name: d for d in objects.csi_drivers}
        self.capacities: list[CSIStorageCapacity] = list(objects.capacities)
        self.attachments: list[VolumeAttachment] = list(objects.attachments)
        self._assumed_claims: dict[str, PersistentVolumeClaim] = {}
        self._assumed_volumes: dict[str, PersistentVolume] = {}

    # ------------------------------------------------------------------ listers (informer objects)

    def claim(self, namespace: str, name: str) -> Optional[PersistentVolumeClaim]:
        return self.claims.get(claim_key(namespace, name))

    def volume(self, name: str) -> Optional[PersistentVolume]:
        return self.volumes.get(name)

    def storage_class(self, name: str) -> Optional[StorageClass]:
        return self.classes.get(name)

    def csi_node(self, name: str) -> Optional[CSINode]:
        return self.csi_nodes.get(name)

    def csi_driver(self, name: str) -> Optional[CSIDriver]:
        return self.csi_drivers.get(name)

    # ------------------------------------------------------------------ assume caches

    def assumed_claim(self, key: str) -> Optional[PersistentVolumeClaim]:
        """pvcCache.Get: the assumed copy if there is one, else the informer object."""
        return self._assumed_claims.get(key) or self.claims.get(key)

    def assumed_volume(self, name: str) -> Optional[PersistentVolume]:
        return self._assumed_volumes.get(name) or self.volumes.get(name)

    def volumes_of_class(self, class_name: str) -> list[PersistentVolume]:
        """pvCache.ListPVs: the volumes of a class, assumed copies included."""
        return [
            self._assumed_volumes.get(name, volume)
            for name, volume in self.volumes.items()
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

    def put_claim(self, claim: PersistentVolumeClaim) -> Optional[PersistentVolumeClaim]:
        """A claim written to the API server: the informer holds it, any assumed copy expires."""
        old = self.claims.get(claim.key)
        self.claims[claim.key] = claim
        self._assumed_claims.pop(claim.key, None)
        return old

    def put_volume(self, volume: PersistentVolume) -> Optional[PersistentVolume]:
        old = self.volumes.get(volume.name)
        self.volumes[volume.name] = volume
        self._assumed_volumes.pop(volume.name, None)
        return old
