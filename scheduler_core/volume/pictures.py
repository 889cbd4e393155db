"""What a picture of a pod's volumes needs, as JSON the browser draws (never computes): each
volume's claim and its state, the bound volume's node affinity and zone labels, the class's
binding mode and provisioner. Documented in docs/ENGINE_API.md (CycleStart ``volumes``)."""

from __future__ import annotations

from typing import Optional, Sequence

from scheduler_core.model import quantity
from scheduler_core.framework.storage import StorageState
from scheduler_core.model import (
    ANN_SELECTED_NODE,
    CLAIM_LOST,
    LABEL_REGION,
    LABEL_REGION_BETA,
    LABEL_ZONE,
    LABEL_ZONE_BETA,
    NodeSelector,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    Volume,
)
from scheduler_core.volume import translation
from scheduler_core.util.wire import Wire

TOPOLOGY_LABELS = (LABEL_ZONE_BETA, LABEL_REGION_BETA, LABEL_ZONE, LABEL_REGION)

CLAIM_MISSING = "missing"
CLAIM_BOUND = "bound"
CLAIM_UNBOUND = "unbound"
CLAIM_PRE_BOUND = "preBound"  # spec.volumeName set, binding not completed
CLAIM_LOST_STATE = "lost"
CLAIM_TERMINATING = "terminating"


def node_affinity_json(selector: Optional[NodeSelector]) -> Optional[list[list[dict[str, Sequence[str]]]]]:
    """Required node affinity as terms (ORed) of requirements (ANDed)."""
    if selector is None:
        return None
    return [
        [{"key": r.key, "operator": r.operator, "values": list(r.values)} for r in term.match_expressions]
        + [{"field": r.key, "operator": r.operator, "values": list(r.values)} for r in term.match_fields]
        for term in selector.terms
    ]


def volume_json(volume: PersistentVolume) -> dict[str, object]:
    out: dict[str, object] = {
        "name": volume.name,
        "phase": volume.phase,
        "storageClass": volume.class_name,
        "accessModes": list(volume.access_modes),
        "nodeAffinity": node_affinity_json(volume.node_affinity),
        "topologyLabels": {k: volume.labels[k] for k in TOPOLOGY_LABELS if k in volume.labels},
        "source": volume.source_kind,
    }
    if volume.capacity is not None:
        out["capacityBytes"] = quantity.value(volume.capacity)
    if volume.csi is not None:
        out["driver"] = volume.csi.driver
    plugin = translation.plugin_for(volume.in_tree)
    if plugin is not None:
        out["migratesTo"] = plugin.driver_name
    return out


def volume_domains(volume: PersistentVolume) -> dict[str, list[str]]:
    """Where a volume can be used, per topology key: its zone/region labels (what VolumeZone reads)
    and the values its required node affinity allows with In (what VolumeBinding checks), merged."""
    domains: dict[str, list[str]] = {}
    for key in TOPOLOGY_LABELS:
        if key in volume.labels:
            domains.setdefault(key, [])
            for value in volume.labels[key].split("__"):  # the multi-zone label joins zones with "__"
                if value not in domains[key]:
                    domains[key].append(value)
    for term in volume.node_affinity.terms if volume.node_affinity else ():
        for requirement in term.match_expressions:
            if requirement.operator == "In":
                values = domains.setdefault(requirement.key, [])
                values.extend(v for v in requirement.values if v not in values)
    return domains


class ClusterVolume(Wire, frozen=True):  # type: ignore[misc]
    """A PersistentVolume as the cluster view draws it (the web app serves it as it is declared
    here): its phase, class and bound claim, where it can be used (``volume_domains``) and its size,
    only when it says one."""

    name: str
    phase: str
    storage_class: Optional[str]
    claim: Optional[str]  # the bound claim (spec.claimRef), "namespace/name"
    domains: dict[str, list[str]]  # topology key -> values the volume can be used in
    capacity_bytes: Optional[int] = None


def cluster_volume(volume: PersistentVolume) -> ClusterVolume:
    """A PersistentVolume as the cluster view draws it: its domains, state and claim."""
    return ClusterVolume(
        volume.name,
        volume.phase,
        volume.class_name or None,
        f"{volume.claim_ref.namespace}/{volume.claim_ref.name}" if volume.claim_ref else None,
        volume_domains(volume),
        quantity.value(volume.capacity) if volume.capacity is not None else None,
    )


def cluster_volume_json(volume: PersistentVolume) -> dict[str, object]:
    """``cluster_volume(volume)``'s JSON form."""
    return cluster_volume(volume).to_json()


def _claim_state(claim: PersistentVolumeClaim) -> str:
    if claim.phase == CLAIM_LOST:
        return CLAIM_LOST_STATE
    if claim.terminating:
        return CLAIM_TERMINATING
    if claim.is_fully_bound:
        return CLAIM_BOUND
    return CLAIM_PRE_BOUND if claim.volume_name else CLAIM_UNBOUND


def claim_json(claim: PersistentVolumeClaim, storage: StorageState) -> dict[str, object]:
    storage_class = storage.storage_class(claim.class_name) if claim.class_name else None
    out: dict[str, object] = {
        "claim": claim.key,
        "state": _claim_state(claim),
        "phase": claim.phase,
        "storageClass": claim.class_name or None,
        "accessModes": list(claim.access_modes),
        "bindingMode": storage_class.volume_binding_mode if storage_class else None,
        "provisioner": storage_class.provisioner if storage_class else None,
    }
    if claim.storage_request is not None:
        out["requestBytes"] = quantity.value(claim.storage_request)
    if ANN_SELECTED_NODE in claim.annotations:
        out["selectedNode"] = claim.annotations[ANN_SELECTED_NODE]
    volume = storage.volume(claim.volume_name) if claim.volume_name else None
    if volume is not None:
        out["persistentVolume"] = volume_json(volume)
    elif claim.volume_name:
        out["missingVolume"] = claim.volume_name
    return out


def pod_volume_json(pod: Pod, volume: Volume, storage: StorageState) -> dict[str, object]:
    out: dict[str, object] = {"volume": volume.name, "kind": volume.kind}
    claim_name = volume.claim_for(pod.name)
    if claim_name is not None:
        claim = storage.claim(pod.namespace, claim_name)
        out.update(
            claim_json(claim, storage)
            if claim is not None
            else {"claim": f"{pod.namespace}/{claim_name}", "state": CLAIM_MISSING}
        )
    plugin = translation.plugin_for(volume.in_tree)
    if plugin is not None:
        out["migratesTo"] = plugin.driver_name
    if volume.csi_driver:
        out["driver"] = volume.csi_driver
    return out


def pod_volumes_json(pod: Pod, storage: StorageState) -> list[dict[str, object]]:
    """The pod's volumes that the volume plugins look at (claims, ephemeral claims, in-tree disks,
    inline CSI); others (emptyDir, configMap, ...) are left out."""
    return [
        pod_volume_json(pod, v, storage)
        for v in pod.volumes
        if v.claim_for(pod.name) is not None or v.in_tree is not None or v.csi_driver
    ]
