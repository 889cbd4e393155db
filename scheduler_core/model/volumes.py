"""core/v1 volume sources: a pod's volumes and the in-tree and CSI sources a PersistentVolume
names (what VolumeRestrictions compares and CSI migration translates).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union


# Pod volume kinds the plugins look at (the VolumeSource field that is set).
VOLUME_KIND_CLAIM = "persistentVolumeClaim"
VOLUME_KIND_EPHEMERAL = "ephemeral"
VOLUME_KIND_CSI = "csi"


@dataclass(frozen=True, slots=True)
class GCEPersistentDisk:
    pd_name: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AWSElasticBlockStore:
    volume_id: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class RBDVolume:
    monitors: tuple[str, ...]
    image: str
    pool: str = "rbd"  # the API server's default
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class ISCSIVolume:
    target_portal: str
    iqn: str
    lun: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class CinderVolume:
    volume_id: str
    fs_type: str = ""
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AzureDiskVolume:
    disk_name: str
    disk_uri: str
    kind: str = "Shared"  # the API server's defaults: Shared, ReadWrite, ext4
    caching_mode: str = "ReadWrite"
    fs_type: str = "ext4"
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AzureFileVolume:
    secret_name: str
    share_name: str
    read_only: bool = False
    secret_namespace: Optional[str] = None  # PersistentVolumes only


@dataclass(frozen=True, slots=True)
class VsphereVolume:
    volume_path: str
    fs_type: str = ""
    storage_policy_name: str = ""


@dataclass(frozen=True, slots=True)
class PortworxVolume:
    volume_id: str
    fs_type: str = ""
    read_only: bool = False


# The in-tree volume sources VolumeRestrictions compares and CSI migration translates.
InTreeSource = Union[
    GCEPersistentDisk,
    AWSElasticBlockStore,
    RBDVolume,
    ISCSIVolume,
    CinderVolume,
    AzureDiskVolume,
    AzureFileVolume,
    VsphereVolume,
    PortworxVolume,
]


@dataclass(frozen=True, slots=True)
class CSIPersistentSource:
    """A PersistentVolume's ``spec.csi``."""

    driver: str
    volume_handle: str
    read_only: bool = False
    fs_type: str = ""


@dataclass(frozen=True, slots=True)
class Volume:
    """One entry of a pod's ``spec.volumes``: its name, which source it uses, and what the volume
    plugins read of that source."""

    name: str
    kind: str  # the VolumeSource field set: "persistentVolumeClaim", "ephemeral", "emptyDir", ...
    claim_name: str = ""  # persistentVolumeClaim.claimName
    read_only: bool = False  # persistentVolumeClaim.readOnly
    in_tree: Optional[InTreeSource] = None
    csi_driver: str = ""  # an inline CSI volume's driver
    # The source as canonical JSON (the volume's name left out): what the pod's signature compares.
    source_key: str = ""

    @property
    def is_claim(self) -> bool:
        return self.kind == VOLUME_KIND_CLAIM

    @property
    def is_ephemeral(self) -> bool:
        return self.kind == VOLUME_KIND_EPHEMERAL

    def claim_for(self, pod_name: str) -> Optional[str]:
        """The claim this volume uses: its claimName, or ``<pod>-<volume>`` for a generic ephemeral
        volume (ephemeral.VolumeClaimName); None for any other source."""
        if self.is_claim:
            return self.claim_name
        if self.is_ephemeral:
            return f"{pod_name}-{self.name}"
        return None
