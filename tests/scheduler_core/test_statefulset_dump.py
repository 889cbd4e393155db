"""A realistic dump (tests/fixtures/statefulset_ebs.yaml): a StatefulSet whose claims came from its
volumeClaimTemplate, zonal EBS volumes, CSINodes of the EBS CSI driver, a WaitForFirstConsumer class.

What the release does with it, step by step:
- ops/backup's claim uses an Immediate class and is unbound: VolumeBinding stops PreFilter, so
  DynamicResources' PreFilter never ran and its PostFilter answers ``not found``.
- shop/web-2's claim is bound to an in-tree awsElasticBlockStore volume in us-east-1c. The nodes'
  CSINodes list kubernetes.io/aws-ebs as migrated, so VolumeBinding checks the volume translated to
  CSI, whose node affinity asks for topology.ebs.csi.aws.com/zone; only the us-east-1c node fits,
  although it is the busier one. VolumeZone agrees from the volume's zone labels.
- shop/web-3's claim is new (gp2: WaitForFirstConsumer, in-tree provisioner kubernetes.io/aws-ebs)
  and no available volume matches it, so it is provisioned wherever the pod goes: every node fits,
  the spreading of the StatefulSet is even (one web pod per zone once web-2 is placed), and the least
  loaded node (us-east-1b) wins. PreBind writes the selected node; the stand-in provisioner creates
  a volume pinned to that node and the claim becomes bound.
"""

from __future__ import annotations

from pathlib import Path

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.encoding.events import ExtensionPoint
from scheduler_core.model import ANN_SELECTED_NODE, LABEL_HOSTNAME
from scheduler_core.run.schedule_one import Scheduler, fresh_copy

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "statefulset_ebs.yaml"
NODE_A, NODE_B, NODE_C = "ip-10-0-1-10.ec2.internal", "ip-10-0-2-20.ec2.internal", "ip-10-0-3-30.ec2.internal"
NODE_CONFLICT = {
    "code": "UnschedulableAndUnresolvable",
    "reasons": ["node(s) didn't match PersistentVolume's node affinity"],
}
ZONE_CONFLICT = {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) had no available volume zone"]}


def scenario(text: str | None = None):
    return load_scenario(text if text is not None else FIXTURE.read_text())


def cycles(text: str | None = None) -> dict[str, dict]:
    return {c["pod"]: c for c in trace_summary(simulate(scenario(text)))["cycles"]}


def test_the_dump_loads_every_storage_object_with_nothing_left_out():
    loaded = scenario()
    storage = loaded.storage
    assert (len(loaded.nodes), len(loaded.pods), loaded.notices) == (3, 17, [])
    assert [p.key for p in loaded.pending_pods] == ["ops/backup-29012345-xk2lp", "shop/web-2", "shop/web-3"]
    assert (
        len(storage.claims),
        len(storage.volumes),
        len(storage.classes),
        len(storage.csi_nodes),
        len(storage.csi_drivers),
    ) == (6, 4, 3, 3, 1)
    assert {c.name: c.volume_binding_mode for c in storage.classes} == {
        "ebs-immediate": "Immediate",
        "gp2": "WaitForFirstConsumer",
        "gp3": "WaitForFirstConsumer",
    }


def test_an_unbound_immediate_claim_keeps_its_pod_pending_without_preemption():
    backup = cycles()["ops/backup-29012345-xk2lp"]
    assert backup["nodeName"] is None
    assert backup["preFilter"] == {
        "VolumeBinding": {
            "code": "UnschedulableAndUnresolvable",
            "reasons": ["pod has unbound immediate PersistentVolumeClaims"],
        }
    }
    assert (
        backup["failedSchedulingMessage"]
        == "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"
    )


def test_a_pod_follows_its_zonal_volume_to_the_only_node_of_that_zone():
    web2 = cycles()["shop/web-2"]
    assert web2["feasibleNodes"] == [NODE_C] and web2["nodeName"] == NODE_C
    assert (
        web2["filter"][NODE_A]
        == web2["filter"][NODE_B]
        == {"VolumeBinding": NODE_CONFLICT, "VolumeZone": ZONE_CONFLICT}
    )


def test_a_migrated_volume_needs_the_csi_drivers_topology_label_on_the_node():
    """Without topology.ebs.csi.aws.com/zone on the us-east-1c node, the translated node affinity
    fits no node (VolumeZone, reading the untranslated labels, would still accept it)."""
    text = FIXTURE.read_text().replace("      topology.ebs.csi.aws.com/zone: us-east-1c\n", "", 1)
    web2 = cycles(text)["shop/web-2"]
    assert web2["nodeName"] is None
    assert web2["filter"][NODE_C] == {"VolumeBinding": NODE_CONFLICT}
    assert web2["failedSchedulingMessage"] == (
        "0/3 nodes are available: 3 node(s) didn't match PersistentVolume's node affinity. no new claims to "
        "deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_a_new_claim_is_provisioned_on_the_node_the_pod_lands_on():
    scheduler = Scheduler(fresh_copy(scenario()))
    ends = {e.pod: e.payload.node_name for e in scheduler.run() if e.extension_point is ExtensionPoint.CYCLE_END}
    assert ends["shop/web-3"] == NODE_B
    storage = scheduler.snapshot.storage
    claim = storage.claim("shop", "data-web-3")
    assert claim.annotations[ANN_SELECTED_NODE] == NODE_B and claim.is_fully_bound
    volume = storage.volume(claim.volume_name)
    assert volume.name == "pvc-e7a9c1d3-5f6b-4c0e-b7a9-c1d3e5f7a9b1"
    assert volume.csi.driver == "ebs.csi.aws.com"  # the in-tree provisioner's CSI driver
    requirement = volume.node_affinity.terms[0].match_expressions[0]
    assert (requirement.key, requirement.values) == (LABEL_HOSTNAME, (NODE_B,))
    assert [c.event.label for c in scheduler.snapshot.cluster_changes] == [
        "PersistentVolumeClaimUpdate",
        "PersistentVolumeAdd",
        "PersistentVolumeUpdate",
        "PersistentVolumeClaimUpdate",
    ]


def test_the_scenario_is_not_changed_by_a_run():
    loaded = scenario()
    list(simulate(loaded))
    assert loaded.storage.claims[-1].volume_name == "" and len(loaded.storage.volumes) == 4
