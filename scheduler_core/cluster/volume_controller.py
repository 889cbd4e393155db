"""The stand-in volume controller of ../shared/spec/TIMELINE.md, and API writes of storage objects.

Nothing else acts on the cluster in a run, except these stand-ins for the PV controller and an
external provisioner, which act at once on what VolumeBinding's PreBind wrote:

- a claim whose volume the scheduler pre-bound (the volume's ``claimRef`` names it) becomes bound
  to that volume;
- a claim with the ``volume.kubernetes.io/selected-node`` annotation, of a WaitForFirstConsumer
  class that provisions, gets a new volume pinned to that node by a required node affinity on
  ``kubernetes.io/hostname``, and is bound to it;
- Immediate claims that are unbound stay unbound (nobody provisions them).

Every write goes through the API (``cluster.objects.ObjectWrites``), in the order the API server would see
the writes; what the stand-ins read they read from the API server too (its listers: claims, volumes,
storage classes, nodes), never from the scheduler's caches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from scheduler_core.cluster.store import KIND_CLAIM, KIND_STORAGE_CLASS, KIND_VOLUME, Cluster
from scheduler_core.framework.options import ObjectWriter
from scheduler_core.model import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CLAIM_BOUND,
    LABEL_HOSTNAME,
    NOT_SUPPORTED_PROVISIONER,
    VOLUME_BOUND,
    VOLUME_PENDING,
    ClaimRef,
    CSIPersistentSource,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from scheduler_core.volume import translation


PROVISIONED_NAME_PREFIX = "pvc"  # external-provisioner names a volume pvc-<claim uid>


# ---------------------------------------------------------------------- the controller


def settle(api: Cluster, writes: ObjectWriter, claim_keys: list[str]) -> None:
    """Let the stand-in controllers act on these claims (``namespace/name``), at once: they read
    ``api``'s listers and write through ``writes`` (its typed API calls)."""
    for key in claim_keys:
        claim: Optional[PersistentVolumeClaim] = api.object(KIND_CLAIM, key)
        if claim is None or claim.is_fully_bound:
            continue
        volume = _volume_pre_bound_to(api, claim)
        provisioning = _provisioning_class(api, claim) if volume is None else None
        if provisioning is not None:
            volume = _provision(api, writes, claim, provisioning)
        if volume is not None:
            _bind(writes, claim, volume)


def _volume_pre_bound_to(api: Cluster, claim: PersistentVolumeClaim) -> Optional[PersistentVolume]:
    """The volume whose claimRef names this claim (the scheduler wrote it at PreBind)."""
    volume: PersistentVolume
    for volume in api.listed(KIND_VOLUME).values():
        ref = volume.claim_ref
        if (
            ref is not None
            and (ref.namespace, ref.name) == (claim.namespace, claim.name)
            and (not ref.uid or ref.uid == claim.uid)
        ):
            return volume
    return None


def _provisioning_class(api: Cluster, claim: PersistentVolumeClaim) -> Optional[StorageClass]:
    """The class that provisions for a WaitForFirstConsumer claim the scheduler chose a node for
    (None: nothing is provisioned)."""
    storage_class: Optional[StorageClass] = api.object(KIND_STORAGE_CLASS, claim.class_name)
    if (
        ANN_SELECTED_NODE in claim.annotations
        and storage_class is not None
        and storage_class.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER
        and storage_class.provisioner not in ("", NOT_SUPPORTED_PROVISIONER)
    ):
        return storage_class
    return None


def _provision(
    api: Cluster, writes: ObjectWriter, claim: PersistentVolumeClaim, storage_class: StorageClass
) -> PersistentVolume:
    """The provisioner creates a volume on the selected node, already naming the claim."""
    node_name = claim.annotations[ANN_SELECTED_NODE]
    node = api.node(node_name)
    hostname = node.labels.get(LABEL_HOSTNAME, node_name) if node is not None else node_name
    plugin = translation.plugin_named(storage_class.provisioner)
    driver = plugin.driver_name if plugin is not None else storage_class.provisioner  # in-tree names migrate
    name = _volume_name(api, claim)
    volume = PersistentVolume(
        name,
        annotations={ANN_PROVISIONED_BY: storage_class.provisioner},
        capacity=claim.storage_request,
        access_modes=claim.access_modes,
        storage_class_name=storage_class.name,
        volume_mode=claim.volume_mode,
        volume_attributes_class_name=claim.volume_attributes_class_name,
        claim_ref=ClaimRef(claim.namespace, claim.name, claim.uid),
        node_affinity=NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(LABEL_HOSTNAME, "In", (hostname,)),)),)),
        source_kind="csi",
        csi=CSIPersistentSource(driver, name),
        reclaim_policy=storage_class.reclaim_policy,
        phase=VOLUME_PENDING,
        doc_index=len(api.listed(KIND_VOLUME)),
    )
    return writes.write_volume(volume)


def _volume_name(api: Cluster, claim: PersistentVolumeClaim) -> str:
    base = f"{PROVISIONED_NAME_PREFIX}-{claim.uid or f'{claim.namespace}-{claim.name}'}"
    name, suffix = base, 1
    while name in api.listed(KIND_VOLUME):
        suffix += 1
        name = f"{base}-{suffix}"
    return name


def _bind(writes: ObjectWriter, claim: PersistentVolumeClaim, volume: PersistentVolume) -> None:
    """The PV controller's bind: the volume's phase, then the claim's volumeName, annotations and
    status (one update here; the controller writes the claim's spec and status separately)."""
    if volume.phase != VOLUME_BOUND:
        writes.write_volume(replace(volume, phase=VOLUME_BOUND))
    annotations = {**claim.annotations, ANN_BIND_COMPLETED: "yes", ANN_BOUND_BY_CONTROLLER: "yes"}
    writes.write_claim(
        replace(claim, volume_name=volume.name, annotations=annotations, phase=CLAIM_BOUND, capacity=volume.capacity)
    )
