import pytest

from scheduler_core.model import (
    ANN_MIGRATED_PLUGINS,
    LABEL_REGION,
    LABEL_REGION_BETA,
    LABEL_ZONE,
    LABEL_ZONE_BETA,
    AWSElasticBlockStore,
    AzureDiskVolume,
    AzureFileVolume,
    CinderVolume,
    CSINode,
    GCEPersistentDisk,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PortworxVolume,
    Volume,
    VsphereVolume,
)
from scheduler_core.volume import translation
from scheduler_core.volume.translation import TranslationError
from tests.scheduler_core.builders import make_volume


def in_tree_volume(source, labels=None, affinity=None, **fields):
    return make_volume(
        "pv", csi=None, source_kind="inTree", in_tree=source, labels=labels, node_affinity=affinity, **fields
    )


def affinity(*requirements):
    return NodeSelector((NodeSelectorTerm(tuple(NodeSelectorRequirement(k, "In", tuple(v)) for k, v in requirements)),))


def terms(selector):
    return [[(r.key, r.values) for r in term.match_expressions] for term in selector.terms]


@pytest.mark.parametrize(
    "labels, handle",
    [
        pytest.param(
            {LABEL_ZONE: "us-central1-a"}, "projects/UNSPECIFIED/zones/us-central1-a/disks/d", id="a zonal GCE PD"
        ),
        pytest.param(
            {LABEL_ZONE_BETA: "us-central1-a__us-central1-b"},
            "projects/UNSPECIFIED/regions/us-central1/disks/d",
            id="a regional GCE PD (beta label)",
        ),
        pytest.param({}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d", id="a GCE PD without zone"),
    ],
)
def test_gce_pd_volume_handles(labels, handle):
    assert translation.translate_volume(in_tree_volume(GCEPersistentDisk("d"), labels)).csi.volume_handle == handle


def test_gce_zones_of_two_regions_cannot_be_translated():
    with pytest.raises(
        TranslationError, match=r"multiple or no regions gotten from zones, got: map\[a-b:\{\} c-d:\{\}\]"
    ):
        translation.translate_volume(in_tree_volume(GCEPersistentDisk("d"), {LABEL_ZONE: "a-b-c__c-d-e"}))


def test_a_zone_label_becomes_the_drivers_topology_in_the_node_affinity():
    zones = {LABEL_ZONE: "us-east1-c__us-east1-b"}
    translated = translation.translate_volume(in_tree_volume(GCEPersistentDisk("d"), zones))
    assert terms(translated.node_affinity) == [[("topology.gke.io/zone", ("us-east1-b", "us-east1-c"))]]


def test_zone_keys_of_the_node_affinity_are_renamed_and_a_beta_region_becomes_ga():
    volume = in_tree_volume(
        AWSElasticBlockStore("vol-1"),
        affinity=affinity((LABEL_ZONE_BETA, ["z"]), (LABEL_REGION_BETA, ["r"]), ("rack", ["1"])),
    )
    translated = translation.translate_volume(volume)
    assert terms(translated.node_affinity) == [
        [("topology.ebs.csi.aws.com/zone", ("z",)), (LABEL_REGION, ("r",)), ("rack", ("1",))]
    ]
    assert translated.csi.driver == "ebs.csi.aws.com"


def test_zone_labels_are_added_to_every_existing_term():
    volume = in_tree_volume(
        CinderVolume("id"),
        {LABEL_ZONE: "z"},
        NodeSelector(
            (
                NodeSelectorTerm((NodeSelectorRequirement("a", "Exists"),)),
                NodeSelectorTerm((NodeSelectorRequirement("b", "Exists"),)),
            )
        ),
    )
    translated = translation.translate_volume(volume)
    assert terms(translated.node_affinity) == [
        [("a", ()), ("topology.cinder.csi.openstack.org/zone", ("z",))],
        [("b", ()), ("topology.cinder.csi.openstack.org/zone", ("z",))],
    ]


def test_vsphere_zone_and_region_labels_become_vsphere_keys():
    translated = translation.translate_volume(
        in_tree_volume(VsphereVolume("[ds] p"), {LABEL_ZONE: "z", LABEL_REGION: "r"})
    )
    assert terms(translated.node_affinity) == [
        [("topology.csi.vmware.com/zone", ("z",)), ("topology.csi.vmware.com/region", ("r",))]
    ]


@pytest.mark.parametrize(
    "volume_id, expected",
    [
        pytest.param("vol-123", "vol-123", id="a bare id"),
        pytest.param("aws://us-east-1a/vol-123", "vol-123", id="an id with its zone"),
        pytest.param("aws:///vol-123", "vol-123", id="an id without zone"),
    ],
)
def test_ebs_volume_ids(volume_id, expected):
    assert translation.ebs_volume_id(volume_id) == expected


def test_an_unexpected_ebs_id_cannot_be_translated():
    with pytest.raises(TranslationError, match=r"Invalid format for AWS volume \(aws://z/disk-1\)"):
        translation.ebs_volume_id("aws://z/disk-1")


@pytest.mark.parametrize(
    "source, driver, handle",
    [
        pytest.param(
            GCEPersistentDisk("d"),
            "pd.csi.storage.gke.io",
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d",
            id="GCE PD",
        ),
        pytest.param(AWSElasticBlockStore("aws:///vol-9"), "ebs.csi.aws.com", "vol-9", id="AWS EBS"),
        pytest.param(CinderVolume("c"), "cinder.csi.openstack.org", "c", id="Cinder"),
        pytest.param(
            AzureDiskVolume("n", "uri", kind="Managed"), "disk.csi.azure.com", "uri", id="a managed Azure Disk"
        ),
        pytest.param(
            AzureFileVolume("azure-storage-account-acct-secret", "share"),
            "file.csi.azure.com",
            "#acct#share#v#ns",
            id="Azure File",
        ),
        pytest.param(PortworxVolume("px"), "pxd.portworx.com", "px", id="Portworx"),
        pytest.param(VsphereVolume("[ds] disk.vmdk"), "csi.vsphere.vmware.com", "[ds] disk.vmdk", id="vSphere"),
    ],
)
def test_inline_translation(source, driver, handle):
    csi = translation.translate_inline(Volume("v", "inTree", in_tree=source), "ns")
    assert (csi.driver, csi.volume_handle) == (driver, handle)


def test_an_azure_disk_that_is_not_managed_cannot_be_translated():
    with pytest.raises(TranslationError, match=r"^kind\(Shared\) is not supported in csi migration$"):
        translation.translate_inline(Volume("v", "azureDisk", in_tree=AzureDiskVolume("n", "uri")), "ns")


@pytest.mark.parametrize(
    "plugin, annotation, binder, limits",
    [
        pytest.param(translation.GCE_PD, "", False, True, id="GCE PD counts as migrated on any CSINode for limits"),
        pytest.param(translation.GCE_PD, translation.GCE_PD, True, True, id="GCE PD listed migrates for the binder"),
        pytest.param(translation.PORTWORX, "", False, False, id="Portworx not listed is not migrated"),
        pytest.param(translation.PORTWORX, translation.PORTWORX, True, True, id="Portworx listed is migrated"),
        pytest.param(translation.AZURE_FILE, translation.AZURE_FILE, False, False, id="Azure File is never migrated"),
        pytest.param(translation.VSPHERE, translation.VSPHERE, False, False, id="vSphere is never migrated"),
    ],
)
def test_migration_switches(plugin, annotation, binder, limits):
    node = CSINode("n", annotations={ANN_MIGRATED_PLUGINS: annotation} if annotation else {})
    assert (translation.binder_migrates(plugin, node), translation.limits_migrates(plugin, node)) == (binder, limits)
    assert (translation.binder_migrates(plugin, None), translation.limits_migrates(plugin, None)) == (False, False)
