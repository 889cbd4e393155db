"""Volume sources shared by pod volumes and PersistentVolumes: which source a volume uses, and the
in-tree sources the volume plugins read (VolumeRestrictions compares gcePersistentDisk,
awsElasticBlockStore, rbd and iscsi; CSI migration translates the cloud disks for NodeVolumeLimits
and VolumeBinding), with the API server's defaults and required fields."""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Optional

from scheduler_core.model import (
    ACCESS_MODES,
    READ_WRITE_ONCE_POD,
    VOLUME_MODE_BLOCK,
    VOLUME_MODE_FILESYSTEM,
    AWSElasticBlockStore,
    AzureDiskVolume,
    AzureFileVolume,
    CinderVolume,
    GCEPersistentDisk,
    InTreeSource,
    ISCSIVolume,
    LabelSelector,
    PortworxVolume,
    RBDVolume,
    VsphereVolume,
)
from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.selectors import label_selector
from scheduler_core.scenario.validation import check, check_str_enum, is_dns1123_subdomain, read_quantity

# Every VolumeSource field of v1.Volume (PersistentVolumeSource is a subset plus "local"): a volume
# sets exactly one of them, so the one set names the volume's kind.
POD_VOLUME_KINDS = (
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)
PERSISTENT_VOLUME_KINDS = (
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "hostPath",
    "glusterfs",
    "nfs",
    "rbd",
    "iscsi",
    "cinder",
    "cephfs",
    "fc",
    "flocker",
    "flexVolume",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "local",
    "storageos",
    "csi",
)
STORAGE = "storage"
AZURE_DISK_KINDS = ("Shared", "Dedicated", "Managed")
AZURE_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
MAX_PARTITION = 255


def source_kind(obj: Field, kinds: tuple[str, ...], default: str) -> str:
    """The one source field the object sets. None at all takes ``default`` (a pod volume defaults to
    emptyDir; a PersistentVolume has no default and is refused); two or more are refused."""
    present = [kind for kind in kinds if obj.get(kind) is not None]
    if len(present) > 1:
        obj.error_at(present[1], "Forbidden: may not specify more than 1 volume type")
    if not present:
        if not default:
            obj.error("Required value: must specify a volume type")
        return default
    return present[0]


def required_checked(field: Field, key: str, checker: Callable[[str], list[str]]) -> str:
    """A required string field that must also pass an API-server syntax check."""
    child = field.get(key)
    value = child.as_str() if child is not None else ""
    if child is None or not value:
        field.error_at(key, "Required value")
    else:
        check(child, value, checker(value))
    return value


def required_str(field: Field, key: str) -> str:
    value = field.get_str(key)
    if not value:
        field.error_at(key, "Required value")
    return value


def _partition(field: Field) -> int:
    return field.get_int("partition", 0, 0, MAX_PARTITION)


def _gce(field: Field) -> GCEPersistentDisk:
    return GCEPersistentDisk(
        required_str(field, "pdName"), field.get_str("fsType"), _partition(field), field.get_bool("readOnly")
    )


def _aws(field: Field) -> AWSElasticBlockStore:
    return AWSElasticBlockStore(
        required_str(field, "volumeID"), field.get_str("fsType"), _partition(field), field.get_bool("readOnly")
    )


def _rbd(field: Field) -> RBDVolume:
    monitors = tuple(value for value, _ in field.get_str_list("monitors"))
    if not monitors:
        field.error_at("monitors", "Required value")
    return RBDVolume(monitors, required_str(field, "image"), field.get_str("pool") or "rbd", field.get_bool("readOnly"))


def _iscsi(field: Field) -> ISCSIVolume:
    iqn = required_str(field, "iqn")
    if iqn and not iqn.startswith(("iqn", "eui", "naa")):
        field.error_at("iqn", "must be valid format starting with iqn, eui, or naa")
    return ISCSIVolume(
        required_str(field, "targetPortal"), iqn, field.get_int("lun", 0, 0, 255), field.get_bool("readOnly")
    )


def _cinder(field: Field) -> CinderVolume:
    return CinderVolume(required_str(field, "volumeID"), field.get_str("fsType"), field.get_bool("readOnly"))


def _azure_disk(field: Field) -> AzureDiskVolume:
    kind = enum_or(field, "kind", AZURE_DISK_KINDS, "Shared")
    caching = enum_or(field, "cachingMode", AZURE_CACHING_MODES, "ReadWrite")
    return AzureDiskVolume(
        required_str(field, "diskName"),
        required_str(field, "diskURI"),
        kind,
        caching,
        field.get_str("fsType", "ext4") or "ext4",
        field.get_bool("readOnly"),
    )


def enum_or(field: Field, key: str, allowed: tuple[str, ...], default: str) -> str:
    """An optional enum field: its value when supported, else ``default`` (the error recorded)."""
    child = field.get(key)
    if child is None:
        return default
    value = child.as_str()
    return value if check_str_enum(child, value, allowed) else default


def _azure_file(field: Field) -> AzureFileVolume:
    namespace = field.get("secretNamespace")
    return AzureFileVolume(
        required_str(field, "secretName"),
        required_str(field, "shareName"),
        field.get_bool("readOnly"),
        namespace.as_str() if namespace is not None else None,
    )


def _vsphere(field: Field) -> VsphereVolume:
    return VsphereVolume(required_str(field, "volumePath"), field.get_str("fsType"), field.get_str("storagePolicyName"))


def _portworx(field: Field) -> PortworxVolume:
    return PortworxVolume(required_str(field, "volumeID"), field.get_str("fsType"), field.get_bool("readOnly"))


_IN_TREE: dict[str, Callable[[Field], InTreeSource]] = {
    "gcePersistentDisk": _gce,
    "awsElasticBlockStore": _aws,
    "rbd": _rbd,
    "iscsi": _iscsi,
    "cinder": _cinder,
    "azureDisk": _azure_disk,
    "azureFile": _azure_file,
    "vsphereVolume": _vsphere,
    "portworxVolume": _portworx,
}


def in_tree_source(obj: Field, kind: str) -> Optional[InTreeSource]:
    """The in-tree source of kind ``kind`` under ``obj``, or None for any other kind."""
    decoder = _IN_TREE.get(kind)
    if decoder is None:
        return None
    field = obj.get_map(kind)
    return decoder(field) if field is not None else None


# ---------------------------------------------------------------------- claim specs


class ClaimSpec:
    """A PersistentVolumeClaimSpec (a claim's, or an ephemeral volume's template) as validated."""

    __slots__ = (
        "access_modes",
        "storage_request",
        "storage_class_name",
        "volume_name",
        "selector",
        "volume_mode",
        "volume_attributes_class_name",
    )

    def __init__(self) -> None:
        self.access_modes: tuple[str, ...] = ()
        self.storage_request: Optional[Fraction] = None
        self.storage_class_name: Optional[str] = None
        self.volume_name = ""
        self.selector: Optional[LabelSelector] = None
        self.volume_mode = VOLUME_MODE_FILESYSTEM
        self.volume_attributes_class_name: Optional[str] = None


def claim_spec(spec: Field) -> ClaimSpec:
    """ValidatePersistentVolumeClaimSpec's checks that matter here, with SetDefaults (Filesystem)."""
    out = ClaimSpec()
    out.access_modes = access_modes(spec)
    out.storage_request = _storage_request(spec)
    class_field = spec.get("storageClassName")
    if class_field is not None:
        out.storage_class_name = class_field.as_str()
        if out.storage_class_name:
            check(class_field, out.storage_class_name, is_dns1123_subdomain(out.storage_class_name))
    out.volume_name = spec.get_str("volumeName")
    out.selector = label_selector(spec.get("selector"))
    out.volume_mode = volume_mode(spec)
    vac = spec.get("volumeAttributesClassName")
    out.volume_attributes_class_name = vac.as_str() if vac is not None else None
    return out


def access_modes(spec: Field) -> tuple[str, ...]:
    """At least one mode, each supported; ReadWriteOncePod alone."""
    items = spec.get_list("accessModes")
    if not items:
        spec.error_at("accessModes", "Required value: at least 1 access mode is required")
    modes = [item.as_str() for item in items]
    supported = tuple(sorted(ACCESS_MODES))
    modes = [mode for mode, item in zip(modes, items) if mode and check_str_enum(item, mode, supported)]
    if READ_WRITE_ONCE_POD in modes and len(modes) > 1:
        spec.error_at("accessModes", "Forbidden: may not use ReadWriteOncePod with other access modes")
    return tuple(modes)


def volume_mode(spec: Field) -> str:
    return enum_or(spec, "volumeMode", (VOLUME_MODE_BLOCK, VOLUME_MODE_FILESYSTEM), VOLUME_MODE_FILESYSTEM)


def _storage_request(spec: Field) -> Optional[Fraction]:
    resources = spec.get_map("resources")
    requests = resources.get_map("requests") if resources is not None else None
    item = requests.get(STORAGE) if requests is not None else None
    if item is None:
        (requests or spec).error_at(STORAGE if requests is not None else "resources.requests.storage", "Required value")
        return None
    return positive_quantity(item)


def positive_quantity(item: Field) -> Optional[Fraction]:
    amount = read_quantity(item)
    if amount is not None and amount <= 0:
        item.error(f'invalid value "{item.value}": must be greater than zero')
        return None
    return amount


def storage_quantity(parent: Field, key: str) -> Optional[Fraction]:
    """An optional non-negative storage quantity (a capacity)."""
    item = parent.get(key)
    if item is None:
        return None
    amount = read_quantity(item)
    if amount is not None and amount < 0:
        item.error(f'invalid value "{item.value}": must be greater than or equal to 0')
        return None
    return amount
