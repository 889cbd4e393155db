"""The typed API calls for storage and device objects (client-go's clientset:
``CoreV1().PersistentVolumeClaims().Update``, ``ResourceV1().ResourceClaims().UpdateStatus``, ...).

The one way these objects are written at run time, by the scheduler's plugins (VolumeBinding's
and DynamicResources' PreBind, DynamicResources' PostFilter and Unreserve, through
``options.object_writes``), the stand-in volume and resourceclaim controllers and the steps. Each
call is a write of the run's cluster (scheduler_core.cluster.store): a new version of the object
with the next ``resourceVersion`` (none when it changes nothing), delivered to the cluster's
watchers in write order — among them the scheduler's informers (scheduler_core.cluster.informers),
whose caches take it at once and whose handlers hear of it at the run's points.
"""

from __future__ import annotations

from typing import Optional

from scheduler_core.cluster import volume_controller
from scheduler_core.cluster.store import KIND_CLAIM, KIND_RESOURCE_CLAIM, KIND_STORAGE_CLASS, KIND_VOLUME, Cluster
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model import (
    ExtendedResourceClaimStatus,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    ResourceClaim,
    StorageClass,
)


class ObjectWrites:
    """The API calls for storage and device objects, on the cluster ``api``."""

    def __init__(self, api: Cluster) -> None:
        self.api = api

    def write_claim(self, claim: PersistentVolumeClaim) -> PersistentVolumeClaim:
        """Create or update a PersistentVolumeClaim; the claim as the cluster holds it after."""
        return self.api.put(KIND_CLAIM, claim)

    def delete_claim(self, key: str) -> Optional[PersistentVolumeClaim]:
        deleted: Optional[PersistentVolumeClaim] = self.api.delete(KIND_CLAIM, key)
        return deleted

    def write_volume(self, volume: PersistentVolume) -> PersistentVolume:
        return self.api.put(KIND_VOLUME, volume)

    def write_storage_class(self, storage_class: StorageClass) -> StorageClass:
        return self.api.put(KIND_STORAGE_CLASS, storage_class)

    def write_resource_claim(self, claim: ResourceClaim) -> ResourceClaim:
        """Create or update a ResourceClaim, its status included."""
        return self.api.put(KIND_RESOURCE_CLAIM, claim)

    def delete_resource_claim(self, key: str) -> Optional[ResourceClaim]:
        deleted: Optional[ResourceClaim] = self.api.delete(KIND_RESOURCE_CLAIM, key)
        return deleted

    def write_pod_extended_claim(self, pod_key: str, status: ExtendedResourceClaimStatus) -> Optional[Pod]:
        """The pod's status.extendedResourceClaimStatus (a status patch): the claim made for its
        extended resources and which request serves which container."""
        return self.api.patch_pod_status(
            pod_key, ClusterChangeKind.POD_STATUS, "extendedResourceClaimStatus", extended_resource_claim=status
        )

    def await_volume_bindings(self, claim_keys: list[str]) -> None:
        """The time BindPodVolumes waits: the stand-in PV controller and provisioner act on the
        claims (their writes come through this same door)."""
        volume_controller.settle(self.api, self, claim_keys)
