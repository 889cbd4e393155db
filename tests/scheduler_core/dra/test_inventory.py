"""Devices per node and claims per pod, for the cluster view."""

from __future__ import annotations

import msgspec

from scheduler_core.model import Device, ResourceSlice

from scheduler_core.dra.inventory import node_devices, pod_claims
from tests.scheduler_core.builders import (
    claiming_pod,
    dra_snapshot,
    exact,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_resource_claim,
)


def scene():
    holder = claiming_pod("holder", "held", node="n1")
    snapshot = dra_snapshot(
        [make_node("n1"), make_node("n2")],
        [holder],
        classes=[make_device_class("gpu"), make_device_class("big", 'device.attributes["gpu.example.com"].index >= 1')],
        slices=[make_gpu_slice("n1", 2), make_gpu_slice("n2", 1)],
        claims=[make_resource_claim("held", exact(count=1), on=("gpu-0",), node="n1", reserved_for=(holder,))],
    )
    return snapshot, holder


def test_each_node_lists_its_devices_with_their_classes_and_holders():
    snapshot, _ = scene()
    n1, n2 = node_devices(snapshot.dra, [info.node for info in snapshot.node_infos])
    assert [(d.name, d.classes, d.claim, d.reserved_for) for d in n1.devices] == [
        ("gpu-0", ("gpu",), "default/held", ("holder",)),
        ("gpu-1", ("gpu", "big"), None, ()),
    ]
    assert (n1.free, n2.free) == (1, 1)
    assert n2.to_json()["devices"][0]["attributes"] == {"model": "h100", "index": 0, "numa": 0}


def test_a_pods_claims_show_requests_devices_and_reservations():
    snapshot, holder = scene()
    [claim] = pod_claims(snapshot.dra, holder)
    assert claim.to_json() == {
        "podClaim": "held",
        "claim": "default/held",
        "requests": ["gpu: 1 x gpu"],
        "devices": ["gpu.example.com/n1/gpu-0"],
        "reservedFor": ["holder"],
    }
    [missing] = pod_claims(snapshot.dra, claiming_pod("p", templates=("tpl",)))
    assert missing.claim is None and missing.devices == ()


def test_a_scenario_s_devices_and_claims_are_read_as_the_scheduler_starts_with_them():
    from pathlib import Path

    from scheduler_core import load_scenario
    from scheduler_core.dra.inventory import scenario_devices

    example = Path(__file__).resolve().parents[3] / "examples" / "dra_pending_gpu.yaml"
    scenario = load_scenario(example.read_bytes())
    devices, claims = scenario_devices(scenario)
    assert [listed.node for listed in devices] == [node.name for node in scenario.nodes]
    assert sum(len(listed.devices) for listed in devices) > 0
    assert set(claims) == {pod.key for pod in scenario.pods if pod.claim_sources} != set()
    assert scenario_devices(load_scenario("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")) == ([], {})


def test_an_incomplete_pool_is_listed_as_the_release_s_allocator_gathers_it():
    """From v1.35 the allocator skips a pool missing some of its slices: the list shows no device
    there; before, the slices that target the node are kept, and so are their devices."""
    snapshot = dra_snapshot(
        [make_node("n1")], [], classes=[make_device_class("gpu")], slices=[make_gpu_slice("n1", 2, slice_count=2)]
    )
    nodes = [info.node for info in snapshot.node_infos]
    [v1_35] = node_devices(snapshot.dra, nodes)
    [v1_34] = node_devices(snapshot.dra, nodes, skip_unusable=False)
    assert (v1_35.devices, [d.name for d in v1_34.devices]) == ((), ["gpu-0", "gpu-1"])


def test_a_scenario_s_device_list_follows_its_release():
    from scheduler_core import load_scenario
    from scheduler_core.dra.inventory import scenario_devices
    from scheduler_core.release.choice import ReleaseRequest
    from scheduler_core.release.versions import release_named

    text = """apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
"""
    [as_v1_35], _ = scenario_devices(load_scenario(text, release=ReleaseRequest(release_named("v1.35"))))
    [as_v1_34], _ = scenario_devices(load_scenario(text, release=ReleaseRequest(release_named("v1.34"))))
    assert (len(as_v1_35.devices), len(as_v1_34.devices)) == (0, 1)


def test_the_lists_are_written_as_their_declarations_say():
    """Wire payloads: their JSON is what msgspec writes of them, a free device's claim null and a
    node's free devices counted when it is made."""
    snapshot, holder = scene()
    n1, _ = node_devices(snapshot.dra, [info.node for info in snapshot.node_infos])
    [claim] = pod_claims(snapshot.dra, holder)
    for listed in (n1, claim):
        assert listed.to_json() == msgspec.json.decode(msgspec.json.encode(listed))
    assert [device["claim"] for device in n1.to_json()["devices"]] == ["default/held", None]
    assert type(n1).from_json(n1.to_json()).free == 1


def test_a_device_with_its_own_node_selection_is_listed_under_its_nodes_only():
    """DRAPartitionableDevices: a slice with perDeviceNodeSelection lists each device where it may be
    allocated (the allocator's isSelectable), not under every node the slice reaches."""
    slice_ = ResourceSlice(
        "fabric",
        "gpu.example.com",
        "fabric",
        per_device_node_selection=True,
        partitionable=True,
        devices=(Device("on-n1", node_name="n1"), Device("on-n2", node_name="n2"), Device("both", all_nodes=True)),
    )
    snapshot = dra_snapshot([make_node("n1"), make_node("n2")], [], classes=[make_device_class("gpu")], slices=[slice_])
    nodes = [info.node for info in snapshot.node_infos]
    n1, n2 = node_devices(snapshot.dra, nodes, partitionable=True)
    assert [d.name for d in n1.devices] == ["on-n1", "both"] and [d.name for d in n2.devices] == ["on-n2", "both"]
    assert all(not listed.devices for listed in node_devices(snapshot.dra, nodes))  # the gate off: skipped


def test_a_shared_device_lists_the_claims_holding_shares_and_the_capacity_they_leave():
    """examples/dra_shared_nic.yaml (v1.36): db-0's claim holds 6Gi of node-1's NIC, which stays
    free of owners; node-2's NIC has no share yet."""
    from pathlib import Path

    from scheduler_core import load_scenario
    from scheduler_core.dra.inventory import scenario_devices

    example = Path(__file__).resolve().parents[3] / "examples" / "dra_shared_nic.yaml"
    devices, _ = scenario_devices(load_scenario(example.read_text()))
    [node_1, node_2] = devices
    [nic] = node_1.devices
    assert (nic.claim, nic.shared_by, nic.capacity_left) == (
        None,
        ("default/db-0-nic",),
        ("bandwidth: 4Gi of 10Gi left",),
    )
    assert node_1.free == 1
    assert node_2.devices[0].shared_by == () and node_2.devices[0].capacity_left == ("bandwidth: 4Gi of 4Gi left",)
