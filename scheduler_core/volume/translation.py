"""In-tree volumes to CSI, as k8s.io/csi-translation-lib does it for the scheduler.

NodeVolumeLimits counts an in-tree cloud disk (inline, or through a PersistentVolume) under the CSI
driver it migrated to, with the volume handle the translation gives; VolumeBinding checks a
migrated PersistentVolume's node affinity after translation, which renames zone keys to the
driver's topology key (``topology.gke.io/zone`` ...). Only what those paths read is translated:
the driver, the volume handle and the node affinity (not access modes, secrets or attributes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Generic, Optional, TypeVar
from urllib.parse import urlsplit

from scheduler_core.model import (
    LABEL_REGION,
    LABEL_REGION_BETA,
    LABEL_ZONE,
    LABEL_ZONE_BETA,
    AWSElasticBlockStore,
    AzureDiskVolume,
    AzureFileVolume,
    CinderVolume,
    CSINode,
    CSIPersistentSource,
    GCEPersistentDisk,
    InTreeSource,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PortworxVolume,
    Volume,
    VsphereVolume,
)

MULTI_ZONE_DELIMITER = "__"  # cloud-provider's LabelMultiZoneDelimiter
UNSPECIFIED = "UNSPECIFIED"
AZURE_MANAGED = "Managed"

GCE_PD = "kubernetes.io/gce-pd"
AWS_EBS = "kubernetes.io/aws-ebs"
CINDER = "kubernetes.io/cinder"
AZURE_DISK = "kubernetes.io/azure-disk"
AZURE_FILE = "kubernetes.io/azure-file"
VSPHERE = "kubernetes.io/vsphere-volume"
PORTWORX = "kubernetes.io/portworx-volume"


class TranslationError(ValueError):
    """The translation failed; the message is the library's own."""


# The in-tree source type a plugin translates (each plugin's functions take only their own).
S = TypeVar("S", bound=InTreeSource)


@dataclass(frozen=True, slots=True)
class InTreePlugin(Generic[S]):
    plugin_name: str  # the in-tree plugin ("kubernetes.io/gce-pd")
    driver_name: str  # the CSI driver that supersedes it ("pd.csi.storage.gke.io")
    source_type: type[S]
    # (pv, source) -> the CSI source of the translated PersistentVolume
    pv_source: Callable[[PersistentVolume, S], CSIPersistentSource]
    # (volume name, source, pod namespace) -> the CSI source of an inline volume
    inline_source: Callable[[str, S, str], CSIPersistentSource]
    # pv -> its node affinity after translation (the identity for plugins without topology)
    topology: Callable[[PersistentVolume], Optional[NodeSelector]]


# ---------------------------------------------------------------------- node affinity rewriting


def _expressions(selector: Optional[NodeSelector]) -> list[NodeSelectorRequirement]:
    return [] if selector is None else [r for term in selector.terms for r in term.match_expressions]


def _key_exists(selector: Optional[NodeSelector], key: str) -> bool:
    return any(r.key == key for r in _expressions(selector))


def _topology_values(selector: Optional[NodeSelector], key: str) -> list[str]:
    """getTopologyValues: every value of ``key`` in the affinity, unique and sorted."""
    return sorted({v for r in _expressions(selector) if r.key == key for v in r.values})


def _rename_key(selector: NodeSelector, old: str, new: str) -> NodeSelector:
    """replaceTopology."""
    return NodeSelector(
        tuple(
            replace(
                term,
                match_expressions=tuple(replace(r, key=new) if r.key == old else r for r in term.match_expressions),
            )
            for term in selector.terms
        )
    )


def _add_topology(selector: Optional[NodeSelector], key: str, zones: list[str]) -> Optional[NodeSelector]:
    """addTopology: ``key In zones`` (trimmed, unique, sorted) appended to every term; no valid zone
    leaves the affinity as it was (the library's error is ignored by its callers)."""
    values = tuple(sorted({z.strip() for z in zones if z.strip()}))
    if not values:
        return selector
    terms = selector.terms if selector is not None and selector.terms else (NodeSelectorTerm(),)
    requirement = NodeSelectorRequirement(key, "In", values)
    return NodeSelector(tuple(replace(t, match_expressions=t.match_expressions + (requirement,)) for t in terms))


def _topology_labels(pv: PersistentVolume) -> tuple[str, str]:
    """getTopologyLabel: GA or beta zone/region keys, by what the affinity, then the labels, use."""
    if _key_exists(pv.node_affinity, LABEL_ZONE):
        return LABEL_ZONE, LABEL_REGION
    if _key_exists(pv.node_affinity, LABEL_ZONE_BETA):
        return LABEL_ZONE_BETA, LABEL_REGION_BETA
    if LABEL_ZONE in pv.labels:
        return LABEL_ZONE, LABEL_REGION
    if LABEL_ZONE_BETA in pv.labels:
        return LABEL_ZONE_BETA, LABEL_REGION_BETA
    return LABEL_ZONE, LABEL_REGION


def _zonal_topology(csi_key: str) -> Callable[[PersistentVolume], Optional[NodeSelector]]:
    """translateTopologyFromInTreeToCSI: zone keys become ``csi_key`` (or the zone label is added
    as ``csi_key``), and a beta region key becomes the GA one."""

    def translate(pv: PersistentVolume) -> Optional[NodeSelector]:
        zone_label, region_label = _topology_labels(pv)
        affinity = pv.node_affinity
        if _topology_values(affinity, zone_label):
            assert affinity is not None  # the values are its own
            affinity = _rename_key(affinity, zone_label, csi_key)
        elif zone_label in pv.labels:
            affinity = _add_topology(affinity, csi_key, pv.labels[zone_label].split(MULTI_ZONE_DELIMITER))
        if region_label == LABEL_REGION_BETA and _topology_values(affinity, region_label):
            assert affinity is not None  # the values are its own
            affinity = _rename_key(affinity, region_label, LABEL_REGION)
        return affinity

    return translate


def _vsphere_topology(pv: PersistentVolume) -> Optional[NodeSelector]:
    """translateTopologyFromInTreevSphereToCSI: zone and region keys both become vSphere's own."""
    zone_label, region_label = _topology_labels(pv)
    affinity = pv.node_affinity
    for label, csi_key in (
        (zone_label, "topology.csi.vmware.com/zone"),
        (region_label, "topology.csi.vmware.com/region"),
    ):
        if _topology_values(affinity, label):
            assert affinity is not None  # the values are its own
            affinity = _rename_key(affinity, label, csi_key)
        elif pv.labels.get(label):
            affinity = _add_topology(affinity, csi_key, [pv.labels[label]])
    return affinity


def _unchanged(pv: PersistentVolume) -> Optional[NodeSelector]:
    return pv.node_affinity


# ---------------------------------------------------------------------- per-plugin sources


def _go_set(values: set[str]) -> str:
    """fmt's %v of a sets.String: map[a:{} b:{}]."""
    return "map[" + " ".join(f"{v}:{{}}" for v in sorted(values)) + "]"


def gce_region_from_zones(zones: list[str]) -> str:
    """gceGetRegionFromZones: every zone is {locale}-{region}-{zone} and all share one region."""
    if not zones:
        raise TranslationError("no zones specified")
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {_go_set(regions)}")
    return regions.pop()


def _gce_pv(pv: PersistentVolume, source: GCEPersistentDisk) -> CSIPersistentSource:
    zones_label = pv.labels.get(LABEL_ZONE_BETA, "") or pv.labels.get(LABEL_ZONE, "")
    zones = zones_label.split(MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        handle = f"projects/{UNSPECIFIED}/zones/{zones[0]}/disks/{source.pd_name}"
    elif len(zones) > 1:
        try:
            region = gce_region_from_zones(zones)
        except TranslationError as err:
            raise TranslationError(f"failed to get region from zones: {err}") from None
        handle = f"projects/{UNSPECIFIED}/regions/{region}/disks/{source.pd_name}"
    else:
        handle = f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{source.pd_name}"
    return CSIPersistentSource(GCE_PD_DRIVER, handle, source.read_only, source.fs_type)


def _gce_inline(name: str, source: GCEPersistentDisk, namespace: str) -> CSIPersistentSource:
    return CSIPersistentSource(
        GCE_PD_DRIVER,
        f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{source.pd_name}",
        source.read_only,
        source.fs_type,
    )


_EBS_VOLUME_ID = re.compile(r"^vol-[^/]*$")


def ebs_volume_id(kubernetes_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://<zone>/<id>, aws:///<id> or a bare id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    try:
        parts = urlsplit(kubernetes_id)
    except ValueError as err:
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid disk name ({kubernetes_id}): {err}"
        ) from None
    volume_id = parts.path.strip("/")
    if not _EBS_VOLUME_ID.match(volume_id):
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume ({kubernetes_id})"
        )
    return volume_id


def _aws_pv(pv: PersistentVolume, source: AWSElasticBlockStore) -> CSIPersistentSource:
    return CSIPersistentSource(AWS_EBS_DRIVER, ebs_volume_id(source.volume_id), source.read_only, source.fs_type)


def _aws_inline(name: str, source: AWSElasticBlockStore, namespace: str) -> CSIPersistentSource:
    return CSIPersistentSource(AWS_EBS_DRIVER, ebs_volume_id(source.volume_id), source.read_only, source.fs_type)


def _cinder_pv(pv: Optional[PersistentVolume], source: CinderVolume) -> CSIPersistentSource:
    return CSIPersistentSource(CINDER_DRIVER, source.volume_id, source.read_only, source.fs_type)


def _cinder_inline(name: str, source: CinderVolume, namespace: str) -> CSIPersistentSource:
    return _cinder_pv(None, source)


def _azure_disk(source: AzureDiskVolume) -> CSIPersistentSource:
    if source.kind.lower() != AZURE_MANAGED.lower():
        raise TranslationError(f"kind({source.kind}) is not supported in csi migration")
    return CSIPersistentSource(AZURE_DISK_DRIVER, source.disk_uri, source.read_only, source.fs_type)


def _azure_disk_pv(pv: PersistentVolume, source: AzureDiskVolume) -> CSIPersistentSource:
    return _azure_disk(source)


def _azure_disk_inline(name: str, source: AzureDiskVolume, namespace: str) -> CSIPersistentSource:
    return _azure_disk(source)


_AZURE_SECRET_NAME = re.compile(r"azure-storage-account-(.+)-secret")
AZURE_FILE_RESOURCE_GROUP = "kubernetes.io/azure-file-resource-group"


def _azure_account(secret_name: str) -> str:
    """getStorageAccountName, falling back to the secret name as the library does."""
    match = _AZURE_SECRET_NAME.search(secret_name)
    return match.group(1) if match else secret_name


def _azure_file_pv(pv: PersistentVolume, source: AzureFileVolume) -> CSIPersistentSource:
    namespace = (
        source.secret_namespace
        if source.secret_namespace is not None
        else (pv.claim_ref.namespace if pv.claim_ref is not None else "")
    )
    if not namespace:
        raise TranslationError("could not find a secret namespace in PersistentVolumeSource or ClaimRef")
    group = pv.annotations.get(AZURE_FILE_RESOURCE_GROUP, "")
    handle = f"{group}#{_azure_account(source.secret_name)}#{source.share_name}#{pv.name}#{namespace}"
    return CSIPersistentSource(AZURE_FILE_DRIVER, handle, source.read_only)


def _azure_file_inline(name: str, source: AzureFileVolume, namespace: str) -> CSIPersistentSource:
    handle = f"#{_azure_account(source.secret_name)}#{source.share_name}#{name}#{namespace or 'default'}"
    return CSIPersistentSource(AZURE_FILE_DRIVER, handle, source.read_only)


def _vsphere_pv(pv: PersistentVolume, source: VsphereVolume) -> CSIPersistentSource:
    return CSIPersistentSource(VSPHERE_DRIVER, source.volume_path, False, source.fs_type)


def _vsphere_inline(name: str, source: VsphereVolume, namespace: str) -> CSIPersistentSource:
    if source.storage_policy_name:
        # The library reads the policy from a nil PersistentVolume source here and panics.
        raise TranslationError("vSphere inline volume with storagePolicyName: the release's translation panics")
    return CSIPersistentSource(VSPHERE_DRIVER, source.volume_path, False, source.fs_type)


def _portworx_pv(pv: Optional[PersistentVolume], source: PortworxVolume) -> CSIPersistentSource:
    return CSIPersistentSource(PORTWORX_DRIVER, source.volume_id, False, source.fs_type)


def _portworx_inline(name: str, source: PortworxVolume, namespace: str) -> CSIPersistentSource:
    return _portworx_pv(None, source)


GCE_PD_DRIVER = "pd.csi.storage.gke.io"
AWS_EBS_DRIVER = "ebs.csi.aws.com"
CINDER_DRIVER = "cinder.csi.openstack.org"
AZURE_DISK_DRIVER = "disk.csi.azure.com"
AZURE_FILE_DRIVER = "file.csi.azure.com"
VSPHERE_DRIVER = "csi.vsphere.vmware.com"
PORTWORX_DRIVER = "pxd.portworx.com"

# Any: each plugin has its own source type, and plugin_for picks one by isinstance on source_type.
PLUGINS: tuple[InTreePlugin[Any], ...] = (
    InTreePlugin(
        GCE_PD, GCE_PD_DRIVER, GCEPersistentDisk, _gce_pv, _gce_inline, _zonal_topology("topology.gke.io/zone")
    ),
    InTreePlugin(
        AWS_EBS,
        AWS_EBS_DRIVER,
        AWSElasticBlockStore,
        _aws_pv,
        _aws_inline,
        _zonal_topology("topology.ebs.csi.aws.com/zone"),
    ),
    InTreePlugin(
        CINDER,
        CINDER_DRIVER,
        CinderVolume,
        _cinder_pv,
        _cinder_inline,
        _zonal_topology("topology.cinder.csi.openstack.org/zone"),
    ),
    InTreePlugin(AZURE_DISK, AZURE_DISK_DRIVER, AzureDiskVolume, _azure_disk_pv, _azure_disk_inline, _unchanged),
    InTreePlugin(AZURE_FILE, AZURE_FILE_DRIVER, AzureFileVolume, _azure_file_pv, _azure_file_inline, _unchanged),
    InTreePlugin(VSPHERE, VSPHERE_DRIVER, VsphereVolume, _vsphere_pv, _vsphere_inline, _vsphere_topology),
    InTreePlugin(PORTWORX, PORTWORX_DRIVER, PortworxVolume, _portworx_pv, _portworx_inline, _unchanged),
)
_BY_NAME = {plugin.plugin_name: plugin for plugin in PLUGINS}


# ---------------------------------------------------------------------- the translator's face


def plugin_for(source: Optional[InTreeSource]) -> Optional[InTreePlugin[Any]]:
    """The plugin that can translate this source (CanSupport / CanSupportInline), if any."""
    if source is None:
        return None
    return next((p for p in PLUGINS if isinstance(source, p.source_type)), None)


def plugin_named(name: str) -> Optional[InTreePlugin[Any]]:
    """IsMigratableIntreePluginByName / GetCSINameFromInTreeName."""
    return _BY_NAME.get(name)


def is_pv_migratable(pv: PersistentVolume) -> bool:
    return plugin_for(pv.in_tree) is not None


def is_inline_migratable(volume: Volume) -> bool:
    return plugin_for(volume.in_tree) is not None


def translate_volume(pv: PersistentVolume) -> PersistentVolume:
    """TranslateInTreePVToCSI: the volume with a CSI source and translated node affinity."""
    plugin = plugin_for(pv.in_tree)
    if plugin is None:
        raise TranslationError(f'could not find in-tree plugin translation logic for "{pv.name}"')
    source = plugin.pv_source(pv, pv.in_tree)
    return replace(pv, csi=source, in_tree=None, source_kind="csi", node_affinity=plugin.topology(pv))


def translate_inline(volume: Volume, namespace: str) -> CSIPersistentSource:
    """TranslateInTreeInlineVolumeToCSI's CSI source for an inline in-tree volume."""
    plugin = plugin_for(volume.in_tree)
    if plugin is None:
        raise TranslationError(f'could not find in-tree plugin translation logic for "{volume.name}"')
    return plugin.inline_source(volume.name, volume.in_tree, namespace)


# ---------------------------------------------------------------------- is migration on?

# volumebinding.isCSIMigrationOnForPlugin at the release's gates (CSIMigrationPortworx is GA, on).
_BINDER_MIGRATED = frozenset((AWS_EBS, GCE_PD, AZURE_DISK, CINDER, PORTWORX))
# nodevolumelimits.isCSIMigrationOn: these count as migrated on any node that has a CSINode.
_ALWAYS_MIGRATED = frozenset((AWS_EBS, GCE_PD, AZURE_DISK, CINDER))


def binder_migrates(plugin_name: str, csi_node: Optional[CSINode]) -> bool:
    """VolumeBinding translates a volume of this plugin when migration is on for the plugin and the
    node's CSINode lists it in its migrated-plugins annotation (isPluginMigratedToCSIOnNode)."""
    return plugin_name in _BINDER_MIGRATED and csi_node is not None and plugin_name in csi_node.migrated_plugins


def limits_migrates(plugin_name: str, csi_node: Optional[CSINode]) -> bool:
    """NodeVolumeLimits' isCSIMigrationOn: no CSINode, no migration; AWS EBS, GCE PD, Azure Disk and
    Cinder are migrated on any node with one, Portworx only where the annotation lists it."""
    if csi_node is None or not plugin_name:
        return False
    if plugin_name in _ALWAYS_MIGRATED:
        return True
    return plugin_name == PORTWORX and plugin_name in csi_node.migrated_plugins
