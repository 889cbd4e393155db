"""VolumeBinding's state as pictures: the claims PreFilter sorted, and a node's bindings at
Reserve / PreBind (shapes in docs/ENGINE_API.md)."""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.storage import StorageState
from scheduler_core.plugins.volume_binding.binder import PodVolumeClaims, PodVolumes


def claims_picture(claims: PodVolumeClaims, storage: StorageState) -> dict[str, Any]:
    """The pod's bound claims (with their volume) and WaitForFirstConsumer claims (with the volumes
    of their class the binder will consider)."""
    return {
        "boundClaims": [{"claim": c.key, "volume": c.volume_name} for c in claims.bound],
        "delayedClaims": [
            {
                "claim": c.key,
                "storageClass": c.class_name,
                "candidateVolumes": [v.name for v in claims.volumes_by_class.get(c.class_name, [])],
            }
            for c in claims.unbound_delay_binding
        ],
    }


def node_bindings_picture(pod_volumes: PodVolumes, all_bound: bool) -> dict[str, Any]:
    """On the chosen node: volumes to bind to claims and claims to provision."""
    return {
        "allBound": all_bound,
        "staticBindings": [{"claim": b.claim.key, "volume": b.volume.name} for b in pod_volumes.static_bindings],
        "dynamicProvisions": [
            {"claim": p.claim.key, "storageClass": p.claim.class_name} for p in pod_volumes.dynamic_provisions
        ],
    }
