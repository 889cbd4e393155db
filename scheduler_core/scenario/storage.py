"""Storage objects -> model: v1 PersistentVolumeClaim and PersistentVolume, storage.k8s.io/v1
StorageClass, CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment, with the API server's
defaulting and the validation that would make it refuse them. A claim a pod names but the scenario
lacks is not a load error: it is the scheduler's own status."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Optional

from scheduler_core.model import (
    ANN_BETA_STORAGE_CLASS,
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CLAIM_PENDING,
    CLAIM_PHASES,
    VOLUME_PENDING,
    VOLUME_PHASES,
    ClaimRef,
    CSIDriver,
    CSINode,
    CSINodeDriver,
    CSIPersistentSource,
    CSIStorageCapacity,
    NodeSelector,
    Notice,
    NoticeCode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    TopologySelectorRequirement,
    VolumeAttachment,
)
from scheduler_core.scenario import volume_sources
from scheduler_core.scenario.fields import INT32_MAX, Field
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.pods import owner_references, read_time
from scheduler_core.scenario.selectors import label_selector, node_selector
from scheduler_core.scenario.validation import (
    check,
    check_str_enum,
    is_dns1123_subdomain,
    is_qualified_name,
)

# kind -> (apiVersion, namespaced), for the loader's KINDS.
KINDS = {
    "PersistentVolumeClaim": ("v1", True),
    "PersistentVolume": ("v1", False),
    "StorageClass": ("storage.k8s.io/v1", False),
    "CSINode": ("storage.k8s.io/v1", False),
    "CSIDriver": ("storage.k8s.io/v1", False),
    "CSIStorageCapacity": ("storage.k8s.io/v1", True),
    "VolumeAttachment": ("storage.k8s.io/v1", False),
}
BINDING_MODES = (BINDING_IMMEDIATE, BINDING_WAIT_FOR_FIRST_CONSUMER)
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


# ---------------------------------------------------------------------- metadata


def read_annotations(obj: Field) -> dict[str, str]:
    """metadata.annotations: qualified-name keys, string values (ValidateAnnotations)."""
    metadata = obj.get_map("metadata")
    field = metadata.get_map("annotations") if metadata is not None else None
    if field is None:
        return {}
    result: dict[str, str] = {}
    for key, item in field.entries():
        if not check(item, key, is_qualified_name(key.lower())):
            continue
        if not isinstance(item.value, str):
            item.as_str()  # reports the wrong type
            continue
        result[key] = item.value
    return result


def _terminating(obj: Field) -> bool:
    metadata = obj.get_map("metadata")
    return metadata is not None and read_time(metadata.get("deletionTimestamp")) is not None


def _phase(obj: Field, allowed: tuple[str, ...], default: str) -> str:
    status = obj.get_map("status")
    phase_field = status.get("phase") if status is not None else None
    if phase_field is None:
        return default
    phase = phase_field.as_str()
    return phase if phase and check_str_enum(phase_field, phase, allowed) else default


# ---------------------------------------------------------------------- PersistentVolumeClaim


def decode_claim(obj: Field, meta: Metadata, doc_index: int) -> PersistentVolumeClaim:
    claim = PersistentVolumeClaim(
        meta.namespace,
        meta.name,
        meta.uid,
        meta.labels,
        read_annotations(obj),
        phase=_phase(obj, CLAIM_PHASES, CLAIM_PENDING),
        terminating=_terminating(obj),
        owner_references=owner_references(obj),
        doc_index=doc_index,
        line=obj.line,
    )
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return claim
    parsed = volume_sources.claim_spec(spec)
    return replace(
        claim,
        access_modes=parsed.access_modes,
        storage_request=parsed.storage_request,
        storage_class_name=parsed.storage_class_name,
        volume_name=parsed.volume_name,
        selector=parsed.selector,
        volume_mode=parsed.volume_mode,
        volume_attributes_class_name=parsed.volume_attributes_class_name,
        capacity=_status_capacity(obj),
    )


def _status_capacity(obj: Field) -> Optional[Fraction]:
    status = obj.get_map("status")
    capacity = status.get_map("capacity") if status is not None else None
    return volume_sources.storage_quantity(capacity, volume_sources.STORAGE) if capacity is not None else None


def default_storage_class(
    claims: list[PersistentVolumeClaim], classes: list[StorageClass]
) -> list[PersistentVolumeClaim]:
    """The DefaultStorageClass admission plugin: a claim created with neither spec.storageClassName
    nor the beta class annotation gets the default class (the newest by creationTimestamp, then the
    first by name, when several are marked default). A stored claim already carries its class."""
    defaults = [c for c in classes if any(c.annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)]
    if not defaults:
        return claims
    newest = max(c.created.timestamp() if c.created else 0.0 for c in defaults)
    chosen = min((c for c in defaults if (c.created.timestamp() if c.created else 0.0) == newest), key=lambda c: c.name)
    return [
        replace(claim, storage_class_name=chosen.name)
        if claim.storage_class_name is None and ANN_BETA_STORAGE_CLASS not in claim.annotations
        else claim
        for claim in claims
    ]


# ---------------------------------------------------------------------- PersistentVolume


def decode_volume(obj: Field, meta: Metadata, doc_index: int) -> PersistentVolume:
    volume = PersistentVolume(
        meta.name,
        meta.labels,
        read_annotations(obj),
        phase=_phase(obj, VOLUME_PHASES, VOLUME_PENDING),
        terminating=_terminating(obj),
        doc_index=doc_index,
        line=obj.line,
    )
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return volume
    capacity = spec.get_map("capacity")
    if capacity is None or capacity.get(volume_sources.STORAGE) is None:
        (capacity or spec).error_at(volume_sources.STORAGE if capacity is not None else "capacity", "Required value")
    kind = volume_sources.source_kind(spec, volume_sources.PERSISTENT_VOLUME_KINDS, "")
    class_field = spec.get("storageClassName")
    class_name = class_field.as_str() if class_field is not None else ""
    if class_field is not None and class_name:
        check(class_field, class_name, is_dns1123_subdomain(class_name))
    node_affinity = _volume_node_affinity(spec, kind)
    vac = spec.get("volumeAttributesClassName")
    return replace(
        volume,
        capacity=volume_sources.storage_quantity(capacity, volume_sources.STORAGE) if capacity else None,
        access_modes=volume_sources.access_modes(spec),
        storage_class_name=class_name,
        volume_mode=volume_sources.volume_mode(spec),
        volume_attributes_class_name=vac.as_str() if vac else None,
        claim_ref=_claim_ref(spec),
        node_affinity=node_affinity,
        source_kind=kind,
        csi=_csi_source(spec, kind),
        in_tree=volume_sources.in_tree_source(spec, kind),
        reclaim_policy=volume_sources.enum_or(spec, "persistentVolumeReclaimPolicy", RECLAIM_POLICIES, "Retain"),
    )


def _volume_node_affinity(spec: Field, kind: str) -> Optional[NodeSelector]:
    """spec.nodeAffinity.required (validateVolumeNodeAffinity: a nodeAffinity must hold one; a
    local volume must have a nodeAffinity)."""
    affinity = spec.get_map("nodeAffinity")
    if affinity is None:
        if kind == "local":
            spec.error_at("nodeAffinity", "Required value: Local volume requires node affinity")
        return None
    required = affinity.get("required")
    if required is None:
        affinity.error_at("required", "Required value: must specify required node constraints")
        return None
    return node_selector(required)


def _claim_ref(spec: Field) -> Optional[ClaimRef]:
    ref = spec.get_map("claimRef")
    if ref is None:
        return None
    name, namespace = ref.get_str("name"), ref.get_str("namespace")
    for key, value in (("name", name), ("namespace", namespace)):
        if not value:
            ref.error_at(key, "Required value")
    return ClaimRef(namespace, name, ref.get_str("uid"))


def _csi_source(spec: Field, kind: str) -> Optional[CSIPersistentSource]:
    csi = spec.get_map("csi") if kind == "csi" else None
    if csi is None:
        return None
    return CSIPersistentSource(
        volume_sources.required_str(csi, "driver"),
        volume_sources.required_str(csi, "volumeHandle"),
        csi.get_bool("readOnly"),
        csi.get_str("fsType"),
    )


# ---------------------------------------------------------------------- StorageClass


def decode_storage_class(obj: Field, meta: Metadata) -> StorageClass:
    """storage.k8s.io/v1 StorageClass: provisioner required, volumeBindingMode defaulted to
    Immediate, allowedTopologies terms of key In values."""
    provisioner = volume_sources.required_checked(obj, "provisioner", lambda name: is_qualified_name(name.lower()))
    metadata = obj.get_map("metadata")
    created = read_time(metadata.get("creationTimestamp")) if metadata is not None else None
    return StorageClass(
        meta.name,
        provisioner,
        volume_sources.enum_or(obj, "volumeBindingMode", BINDING_MODES, BINDING_IMMEDIATE),
        _allowed_topologies(obj),
        volume_sources.enum_or(obj, "reclaimPolicy", ("Delete", "Retain"), "Delete"),
        read_annotations(obj),
        created,
        obj.line,
    )


def _allowed_topologies(obj: Field) -> tuple[tuple[TopologySelectorRequirement, ...], ...]:
    terms = []
    for term in obj.get_list("allowedTopologies"):
        if not term.expect_map():
            continue
        expressions = term.get_list("matchLabelExpressions")
        if not expressions:
            term.error_at("matchLabelExpressions", "Required value: must have at least one label expression")
        terms.append(tuple(r for r in map(_topology_requirement, expressions) if r is not None))
    return tuple(terms)


def _topology_requirement(item: Field) -> Optional[TopologySelectorRequirement]:
    if not item.expect_map():
        return None
    key = volume_sources.required_checked(item, "key", is_qualified_name)
    values = tuple(value for value, _ in item.get_str_list("values"))
    if not values:
        item.error_at("values", "Required value: must specify as least one value")
    return TopologySelectorRequirement(key, values)


# ---------------------------------------------------------------------- CSI objects


def decode_csi_node(obj: Field, meta: Metadata) -> CSINode:
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return CSINode(meta.name, annotations=read_annotations(obj), line=obj.line)
    drivers: list[CSINodeDriver] = []
    for item in spec.get_list("drivers"):
        driver = _csi_node_driver(item)
        if driver is None:
            continue
        if any(d.name == driver.name for d in drivers):
            item.error_at("name", f'Duplicate value: "{driver.name}"')
        drivers.append(driver)
    return CSINode(meta.name, tuple(drivers), read_annotations(obj), obj.line)


def _csi_node_driver(item: Field) -> Optional[CSINodeDriver]:
    if not item.expect_map():
        return None
    name = volume_sources.required_str(item, "name")
    node_id = volume_sources.required_str(item, "nodeID")
    allocatable = item.get_map("allocatable")
    count = allocatable.get_optional_int("count", 0, INT32_MAX) if allocatable is not None else None
    keys = tuple(key for key, _ in item.get_str_list("topologyKeys"))
    return CSINodeDriver(name, node_id, count, keys)


def decode_csi_driver(obj: Field, meta: Metadata) -> CSIDriver:
    """attachRequired defaults to true, storageCapacity to false (SetDefaults_CSIDriver)."""
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return CSIDriver(meta.name, line=obj.line)
    capacity = spec.get("storageCapacity")
    return CSIDriver(
        meta.name,
        spec.get_bool("attachRequired", True),
        capacity.as_bool() if capacity is not None else False,
        obj.line,
    )


def decode_capacity(obj: Field, meta: Metadata) -> CSIStorageCapacity:
    class_name = volume_sources.required_checked(obj, "storageClassName", is_dns1123_subdomain)
    return CSIStorageCapacity(
        meta.namespace,
        meta.name,
        class_name,
        label_selector(obj.get("nodeTopology")),
        volume_sources.storage_quantity(obj, "capacity"),
        volume_sources.storage_quantity(obj, "maximumVolumeSize"),
        obj.line,
    )


def decode_attachment(obj: Field, meta: Metadata) -> VolumeAttachment:
    spec = obj.get_map("spec")
    if spec is None:
        obj.error_at("spec", "Required value")
        return VolumeAttachment(meta.name, "", "", line=obj.line)
    attacher = volume_sources.required_str(spec, "attacher")
    node_name = volume_sources.required_str(spec, "nodeName")
    source = spec.get_map("source")
    pv_name = source.get("persistentVolumeName") if source is not None else None
    inline = source.get("inlineVolumeSpec") if source is not None else None
    if source is None or (pv_name is None) == (inline is None):
        (source or spec).error_at(
            "persistentVolumeName" if source is not None else "source",
            "Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        )
    return VolumeAttachment(meta.name, attacher, node_name, pv_name.as_str() if pv_name is not None else None, obj.line)


# ---------------------------------------------------------------------- kinds


def add(collected: StorageObjects, obj: Field, kind: str, meta: Metadata) -> bool:
    """Decode a storage object of ``kind`` into ``collected`` (document order per kind). True for a
    PersistentVolume written without ``status.phase``: stored Pending, worth a notice."""
    if kind == "PersistentVolumeClaim":
        collected.claims.append(decode_claim(obj, meta, len(collected.claims)))
    elif kind == "PersistentVolume":
        collected.volumes.append(decode_volume(obj, meta, len(collected.volumes)))
        status = obj.get_map("status")
        return status is None or status.get("phase") is None
    elif kind == "StorageClass":
        collected.classes.append(decode_storage_class(obj, meta))
    elif kind == "CSINode":
        collected.csi_nodes.append(decode_csi_node(obj, meta))
    elif kind == "CSIDriver":
        collected.csi_drivers.append(decode_csi_driver(obj, meta))
    elif kind == "CSIStorageCapacity":
        collected.capacities.append(decode_capacity(obj, meta))
    elif kind == "VolumeAttachment":
        collected.attachments.append(decode_attachment(obj, meta))
    return False


def finish(collected: StorageObjects) -> None:
    """Admission after every object is read: the default StorageClass of claims created without one."""
    collected.claims = default_storage_class(collected.claims, collected.classes)


def pending_volumes_notice(names: list[str]) -> Optional[Notice]:
    """PersistentVolumes written without a phase are Pending, as the API server stores a new one; the
    binder only takes Available volumes, and in a run no PV controller makes them Available."""
    if not names:
        return None
    return Notice(
        NoticeCode.PENDING_VOLUMES,
        f"{len(names)} PersistentVolume(s) without status.phase are taken as Pending, as the API server "
        "stores a new volume; the scheduler binds only Available volumes (write status.phase: Available "
        "for a volume the PV controller has made available)",
        tuple(f"PersistentVolume {n}" for n in names),
    )
