"""PersistentVolumeClaims, PersistentVolumes, StorageClasses, the CSI objects and pod volumes: what
the four volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone) read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Optional, TYPE_CHECKING

if TYPE_CHECKING:
    from scheduler_core.model.core import LabelSelector, NodeSelector, OwnerReference
    from scheduler_core.model.volumes import CSIPersistentSource, InTreeSource


# ============================================================================ storage
# PersistentVolumeClaims, PersistentVolumes, StorageClasses, the CSI objects and pod volumes: what
# the four volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone) read.
# Storage sizes stay exact quantities (Fraction) because the release compares them with
# Quantity.Cmp; ``quantity.value`` gives Quantity.Value() where the release uses it.

LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region"

READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)

VOLUME_MODE_FILESYSTEM = "Filesystem"
VOLUME_MODE_BLOCK = "Block"

# PersistentVolume phases (status.phase); the API server stores a new volume as Pending.
VOLUME_PENDING = "Pending"
VOLUME_AVAILABLE = "Available"
VOLUME_BOUND = "Bound"
VOLUME_PHASES = (VOLUME_PENDING, VOLUME_AVAILABLE, VOLUME_BOUND, "Released", "Failed")
# PersistentVolumeClaim phases.
CLAIM_PENDING = "Pending"
CLAIM_BOUND = "Bound"
CLAIM_LOST = "Lost"
CLAIM_PHASES = (CLAIM_PENDING, CLAIM_BOUND, CLAIM_LOST)

BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

# Annotations of component-helpers/storage/volume and k8s.io/api.
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


@dataclass(frozen=True, slots=True)
class ClaimRef:
    namespace: str
    name: str
    uid: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    access_modes: tuple[str, ...] = ()
    storage_request: Optional[Fraction] = None  # spec.resources.requests.storage
    storage_class_name: Optional[str] = None  # None: not set ("" is an explicit "no class")
    volume_name: str = ""
    selector: Optional[LabelSelector] = None
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    volume_attributes_class_name: Optional[str] = None
    phase: str = CLAIM_PENDING
    terminating: bool = False  # metadata.deletionTimestamp is set
    owner_references: tuple[OwnerReference, ...] = ()
    capacity: Optional[Fraction] = None  # status.capacity.storage (for pictures)
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def class_name(self) -> str:
        """GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName."""
        if ANN_BETA_STORAGE_CLASS in self.annotations:
            return self.annotations[ANN_BETA_STORAGE_CLASS]
        return self.storage_class_name or ""

    @property
    def is_fully_bound(self) -> bool:
        """volumeBinder.isPVCFullyBound: a volume name and the bind-completed annotation."""
        return bool(self.volume_name) and ANN_BIND_COMPLETED in self.annotations


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    capacity: Optional[Fraction] = None  # spec.capacity.storage
    access_modes: tuple[str, ...] = ()
    storage_class_name: str = ""
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    volume_attributes_class_name: Optional[str] = None
    claim_ref: Optional[ClaimRef] = None
    node_affinity: Optional[NodeSelector] = None  # spec.nodeAffinity.required
    source_kind: str = ""  # the PersistentVolumeSource field set: "csi", "local", "gcePersistentDisk", ...
    csi: Optional[CSIPersistentSource] = None
    in_tree: Optional[InTreeSource] = None
    reclaim_policy: str = "Retain"
    phase: str = VOLUME_PENDING
    terminating: bool = False
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def class_name(self) -> str:
        """GetPersistentVolumeClass: the beta annotation first."""
        return self.annotations.get(ANN_BETA_STORAGE_CLASS, self.storage_class_name)


@dataclass(frozen=True, slots=True)
class TopologySelectorRequirement:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    provisioner: str
    volume_binding_mode: Optional[str] = BINDING_IMMEDIATE  # the API server defaults it
    allowed_topologies: tuple[tuple[TopologySelectorRequirement, ...], ...] = ()  # terms, ORed
    reclaim_policy: str = "Delete"
    annotations: dict[str, str] = field(default_factory=dict)
    created: Optional[datetime] = None  # metadata.creationTimestamp (the default class's tie-break)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    node_id: str = ""
    allocatable_count: Optional[int] = None  # allocatable.count: the attach limit, None for no limit
    topology_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CSINode:
    name: str  # the node's name
    drivers: tuple[CSINodeDriver, ...] = ()
    annotations: dict[str, str] = field(default_factory=dict)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def migrated_plugins_annotation(self) -> str:
        return self.annotations.get(ANN_MIGRATED_PLUGINS, "")

    @property
    def migrated_plugins(self) -> frozenset[str]:
        """The in-tree plugins this node migrated to CSI (the migrated-plugins annotation)."""
        value = self.annotations.get(ANN_MIGRATED_PLUGINS, "")
        return frozenset(value.split(",")) if value else frozenset()


@dataclass(frozen=True, slots=True)
class CSIDriver:
    name: str
    attach_required: bool = True
    storage_capacity: Optional[bool] = None  # spec.storageCapacity (the API server defaults false)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity:
    namespace: str
    name: str
    storage_class_name: str
    node_topology: Optional[LabelSelector] = None  # None: available to no node
    capacity: Optional[Fraction] = None
    maximum_volume_size: Optional[Fraction] = None
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it


@dataclass(frozen=True, slots=True)
class VolumeAttachment:
    name: str
    attacher: str
    node_name: str
    persistent_volume_name: Optional[str] = None  # spec.source.persistentVolumeName
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it


@dataclass(slots=True)
class StorageObjects:
    """The scenario's storage objects, each kind in document order."""

    claims: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes: list[PersistentVolume] = field(default_factory=list)
    classes: list[StorageClass] = field(default_factory=list)
    csi_nodes: list[CSINode] = field(default_factory=list)
    csi_drivers: list[CSIDriver] = field(default_factory=list)
    capacities: list[CSIStorageCapacity] = field(default_factory=list)
    attachments: list[VolumeAttachment] = field(default_factory=list)
