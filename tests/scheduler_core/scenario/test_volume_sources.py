"""scenario/volume_sources.py: which source a volume uses, the in-tree sources the volume plugins
read, and claim specs, with the API server's defaults and required fields (ValidateVolumes,
ValidatePersistentVolumeClaimSpec, SetDefaults_RBDVolumeSource / _AzureDiskVolumeSource / _PVC)."""

from __future__ import annotations

from fractions import Fraction

from scheduler_core.model import AzureDiskVolume, GCEPersistentDisk, ISCSIVolume, LabelSelector, RBDVolume
from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.volume_sources import (
    PERSISTENT_VOLUME_KINDS,
    POD_VOLUME_KINDS,
    claim_spec,
    in_tree_source,
    source_kind,
    storage_quantity,
)
from scheduler_core.scenario.yamltree import compose

GI = 1 << 30


def _obj(text: str) -> tuple[Field, list[ScenarioError]]:
    [document], problems = compose(text, Limits())
    assert problems == []
    errors: list[ScenarioError] = []
    return Field(document.value, "", 1, Context("Pod default/p", errors)), errors


def _messages(errors: list[ScenarioError]) -> list[tuple[str, str]]:
    return [(e.path, e.message) for e in errors]


def test_a_pod_volume_without_a_source_is_an_empty_dir_and_a_persistent_volume_needs_one():
    volume, errors = _obj("name: v\n")
    assert source_kind(volume, POD_VOLUME_KINDS, "emptyDir") == "emptyDir" and errors == []
    pv, errors = _obj("capacity: {storage: 1Gi}\n")
    assert source_kind(pv, PERSISTENT_VOLUME_KINDS, "") == ""
    assert _messages(errors) == [("", "Required value: must specify a volume type")]


def test_two_sources_are_forbidden_at_the_second():
    volume, errors = _obj("name: v\nsecret: {secretName: s}\nconfigMap: {name: c}\n")
    assert source_kind(volume, POD_VOLUME_KINDS, "emptyDir") == "secret"
    assert _messages(errors) == [("configMap", "Forbidden: may not specify more than 1 volume type")]


def test_in_tree_sources_take_the_api_servers_defaults():
    obj, errors = _obj(
        "gcePersistentDisk: {pdName: disk-1, partition: 2}\n"
        "rbd: {monitors: [m1], image: img}\n"
        "azureDisk: {diskName: d, diskURI: 'https://x/d'}\n"
        "iscsi: {targetPortal: '10.0.0.1:3260', iqn: iqn.2001-04.com.example, lun: 3}\n"
    )
    assert in_tree_source(obj, "gcePersistentDisk") == GCEPersistentDisk("disk-1", "", 2, False)
    assert in_tree_source(obj, "rbd") == RBDVolume(("m1",), "img", "rbd", False)
    assert in_tree_source(obj, "azureDisk") == AzureDiskVolume("d", "https://x/d", "Shared", "ReadWrite", "ext4")
    assert in_tree_source(obj, "iscsi") == ISCSIVolume("10.0.0.1:3260", "iqn.2001-04.com.example", 3)
    assert in_tree_source(obj, "nfs") is None
    assert errors == []


def test_in_tree_sources_report_missing_and_malformed_fields():
    obj, errors = _obj(
        "rbd: {image: img}\niscsi: {targetPortal: p, iqn: bogus}\nazureDisk: {diskName: d, kind: Tiny}\n"
    )
    in_tree_source(obj, "rbd")
    in_tree_source(obj, "iscsi")
    assert in_tree_source(obj, "azureDisk").kind == "Shared"
    assert _messages(errors) == [
        ("rbd.monitors", "Required value"),
        ("iscsi.iqn", "must be valid format starting with iqn, eui, or naa"),
        ("azureDisk.kind", 'unsupported value "Tiny": supported values: "Shared", "Dedicated", "Managed"'),
        ("azureDisk.diskURI", "Required value"),
    ]


def test_a_claim_spec_reads_modes_request_class_and_defaults_to_filesystem():
    spec, errors = _obj(
        "accessModes: [ReadWriteOnce]\nresources: {requests: {storage: 5Gi}}\n"
        "storageClassName: fast\nselector: {matchLabels: {tier: gold}}\n"
    )
    out = claim_spec(spec)
    assert (out.access_modes, out.storage_request, out.storage_class_name) == (
        ("ReadWriteOnce",),
        Fraction(5 * GI),
        "fast",
    )
    assert (out.selector, out.volume_mode, out.volume_name) == (LabelSelector((("tier", "gold"),)), "Filesystem", "")
    assert errors == []


def test_a_claim_spec_needs_modes_and_a_positive_request_and_keeps_read_write_once_pod_alone():
    spec, errors = _obj(
        "accessModes: [ReadWriteOncePod, ReadOnlyMany, Sometimes]\n"
        "resources: {requests: {storage: '0'}}\nstorageClassName: Fast_Class\n"
    )
    out = claim_spec(spec)
    assert out.access_modes == ("ReadWriteOncePod", "ReadOnlyMany") and out.storage_request is None
    assert [path for path, _ in _messages(errors)] == [
        "accessModes[2]",
        "accessModes",
        "resources.requests.storage",
        "storageClassName",
    ]
    assert errors[1].message == "Forbidden: may not use ReadWriteOncePod with other access modes"
    assert errors[2].message == 'invalid value "0": must be greater than zero'
    empty, errors = _obj("volumeMode: Block\n")
    assert claim_spec(empty).volume_mode == "Block"
    assert _messages(errors) == [
        ("accessModes", "Required value: at least 1 access mode is required"),
        ("resources.requests.storage", "Required value"),
    ]


def test_a_capacity_may_be_zero_but_not_negative():
    parent, errors = _obj("capacity: '0'\nnegative: '-1Gi'\n")
    assert storage_quantity(parent, "capacity") == 0
    assert storage_quantity(parent, "negative") is None
    assert storage_quantity(parent, "absent") is None
    assert _messages(errors) == [("negative", 'invalid value "-1Gi": must be greater than or equal to 0')]
