"""What a picture of a pod's volumes needs, as JSON the browser draws (never computes): each
volume's claim and its state, the bound volume's node affinity and zone labels, the class's
binding mode and provisioner. Documented in docs/ENGINE_API.md (CycleStart ``volumes``)."""

from __future__ import annotations

from typing import Optional, Union

import msgspec

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
    NodeSelectorRequirement,
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


Requirement = dict[str, Union[str, list[str]]]  # {"key"|"field", "operator", "values"}


def node_affinity_json(selector: Optional[NodeSelector]) -> Optional[list[list[Requirement]]]:
    """Required node affinity as terms (ORed) of requirements (ANDed)."""
    if selector is None:
        return None
    return [
        [_requirement("key", r) for r in term.match_expressions] + [_requirement("field", r) for r in term.match_fields]
        for term in selector.terms
    ]


def _requirement(name: str, requirement: NodeSelectorRequirement) -> Requirement:
    """A requirement on a label (``name`` "key") or a field ("field")."""
    return {name: requirement.key, "operator": requirement.operator, "values": list(requirement.values)}


class BoundVolume(Wire, frozen=True):  # type: ignore[misc]
    """The PersistentVolume a pod volume's claim is bound to (``PodVolumePicture.persistent_volume``): its
    phase, class, access modes, required node affinity (None: it has none), zone/region labels and
    source; its size, CSI driver and the driver CSI migration counts an in-tree source under only
    when it has them."""

    name: str
    phase: str
    storage_class: str
    access_modes: list[str]
    node_affinity: Optional[list[list[Requirement]]]  # terms (ORed) of requirements (ANDed)
    topology_labels: dict[str, str]  # the zone/region labels it has
    source: str  # the PersistentVolumeSource field set: "csi", "local", "gcePersistentDisk", ...
    capacity_bytes: Optional[int] = None
    driver: Optional[str] = None
    migrates_to: Optional[str] = None


def bound_volume(volume: PersistentVolume) -> BoundVolume:
    plugin = translation.plugin_for(volume.in_tree)
    return BoundVolume(
        volume.name,
        volume.phase,
        volume.class_name,
        list(volume.access_modes),
        node_affinity_json(volume.node_affinity),
        {k: volume.labels[k] for k in TOPOLOGY_LABELS if k in volume.labels},
        volume.source_kind,
        quantity.value(volume.capacity) if volume.capacity is not None else None,
        volume.csi.driver if volume.csi is not None else None,
        plugin.driver_name if plugin is not None else None,
    )


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


class PodVolumePicture(Wire, frozen=True):  # type: ignore[misc]
    """One of a pod's volumes that the volume plugins read, as the cycle-start event carries it
    (``CycleStart.volumes``; docs/ENGINE_API.md "Volume payloads"): its name and kind, then its claim's
    key and state when it uses one. A claim that exists adds its phase, class, access modes and its
    class's binding mode and provisioner, each written even when null (UNSET: the volume has no claim,
    or no such claim); its request, selected node, bound volume (or the name of a bound volume that
    is missing), the CSI driver an in-tree source migrates to and an inline CSI driver only when
    there are."""

    volume: str
    kind: str  # the VolumeSource field set: "persistentVolumeClaim", "ephemeral", "csi", ...
    claim: Optional[str] = None  # "namespace/name"
    state: Optional[str] = None  # CLAIM_BOUND, ..., CLAIM_MISSING
    phase: Optional[str] = None
    storage_class: Union[Optional[str], msgspec.UnsetType] = msgspec.UNSET
    access_modes: Optional[list[str]] = None
    binding_mode: Union[Optional[str], msgspec.UnsetType] = msgspec.UNSET
    provisioner: Union[Optional[str], msgspec.UnsetType] = msgspec.UNSET
    request_bytes: Optional[int] = None
    selected_node: Optional[str] = None  # the claim's volume.kubernetes.io/selected-node
    persistent_volume: Optional[BoundVolume] = None
    missing_volume: Optional[str] = None  # the bound volume's name, when there is no such volume
    migrates_to: Optional[str] = None
    driver: Optional[str] = None


def pod_volume(pod: Pod, volume: Volume, storage: StorageState) -> PodVolumePicture:
    plugin = translation.plugin_for(volume.in_tree)
    migrates_to = plugin.driver_name if plugin is not None else None
    driver = volume.csi_driver or None
    claim_name = volume.claim_for(pod.name)
    if claim_name is None:
        return PodVolumePicture(volume.name, volume.kind, migrates_to=migrates_to, driver=driver)
    claim = storage.claim(pod.namespace, claim_name)
    if claim is None:
        return PodVolumePicture(
            volume.name,
            volume.kind,
            f"{pod.namespace}/{claim_name}",
            CLAIM_MISSING,
            migrates_to=migrates_to,
            driver=driver,
        )
    storage_class = storage.storage_class(claim.class_name) if claim.class_name else None
    bound = storage.volume(claim.volume_name) if claim.volume_name else None
    return PodVolumePicture(
        volume.name,
        volume.kind,
        claim.key,
        _claim_state(claim),
        claim.phase,
        claim.class_name or None,
        list(claim.access_modes),
        storage_class.volume_binding_mode if storage_class else None,
        storage_class.provisioner if storage_class else None,
        quantity.value(claim.storage_request) if claim.storage_request is not None else None,
        claim.annotations.get(ANN_SELECTED_NODE),
        bound_volume(bound) if bound is not None else None,
        claim.volume_name if bound is None and claim.volume_name else None,
        migrates_to,
        driver,
    )


def pod_volume_json(pod: Pod, volume: Volume, storage: StorageState) -> dict[str, object]:
    """``pod_volume(pod, volume, storage)``'s JSON form."""
    return pod_volume(pod, volume, storage).to_json()


def pod_volumes(pod: Pod, storage: StorageState) -> list[PodVolumePicture]:
    """The pod's volumes that the volume plugins look at (claims, ephemeral claims, in-tree disks,
    inline CSI); others (emptyDir, configMap, ...) are left out."""
    return [
        pod_volume(pod, v, storage)
        for v in pod.volumes
        if v.claim_for(pod.name) is not None or v.in_tree is not None or v.csi_driver
    ]


def pod_volumes_json(pod: Pod, storage: StorageState) -> list[dict[str, object]]:
    """``pod_volumes(pod, storage)``'s JSON form."""
    return [v.to_json() for v in pod_volumes(pod, storage)]
