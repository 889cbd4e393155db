"""DynamicResources' pictures: PreFilter's claims and classes, per node what each request would get
or why not."""

from __future__ import annotations

import msgspec

from scheduler_core.cluster.store import KIND_RESOURCE_CLAIM
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins import dynamic_resources
from tests.scheduler_core.builders import (
    FakeHandle,
    claiming_pod,
    dra_snapshot,
    exact,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_resource_claim,
)


def scene():
    held = make_resource_claim("held", on=("gpu-0",), node="n1")
    snapshot = dra_snapshot(
        [make_node("n1"), make_node("n2")],
        classes=[make_device_class("gpu")],
        slices=[make_gpu_slice("n1", 2), make_gpu_slice("n2", 2)],
        claims=[held, make_resource_claim("c", exact(count=2))],
    )
    plugin = dynamic_resources.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    return snapshot, plugin, state, pod


def test_the_pre_filter_picture_lists_the_claims_and_their_classes():
    _, plugin, state, pod = scene()
    picture = plugin.pre_filter_picture(state, pod).to_json()
    assert picture["claims"] == [
        {
            "claim": "default/c",
            "requests": [
                {"name": "gpu", "deviceClass": "gpu", "allocationMode": "ExactCount", "count": 2, "selectors": []}
            ],
            "allocation": None,
            "reservedFor": [],
            "inFlight": False,
        }
    ]
    assert picture["classes"] == {"gpu": ['device.driver == "gpu.example.com"']}
    assert picture["devicesInUse"] == 1


def test_a_node_that_lacks_devices_says_which_are_taken_and_by_whom():
    snapshot, plugin, state, pod = scene()
    n1 = plugin.node_picture(state, pod, snapshot.get("n1"))
    assert n1.status == "cannot allocate all claims"
    [request] = n1.requests
    assert request.free == 1
    assert request.sentence("n1") == (
        "request `gpu`: 2 device(s) of class `gpu` — n1 has 1 free: gpu-0 allocated to claim default/held"
    )


def test_a_node_that_fits_names_the_devices_the_request_would_get():
    snapshot, plugin, state, pod = scene()
    n2 = plugin.node_picture(state, pod, snapshot.get("n2"))
    assert n2.status is None and n2.requests[0].allocated == ("gpu-0", "gpu-1")
    assert n2.to_json()["sentences"] == ["request `gpu`: 2 device(s) of class `gpu` — n2 has 2 free"]


def test_a_taken_device_names_the_pods_its_claim_is_reserved_for():
    holder = claiming_pod("train-1", "held", node="n1")
    snapshot = dra_snapshot(
        [make_node("n1")],
        [holder],
        classes=[make_device_class("gpu")],
        slices=[make_gpu_slice("n1", 1)],
        claims=[
            make_resource_claim("held", on=("gpu-0",), node="n1", reserved_for=(holder,)),
            make_resource_claim("c", exact(count=1)),
        ],
    )
    plugin = dynamic_resources.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    [request] = plugin.node_picture(state, pod, snapshot.get("n1")).requests
    assert request.sentence("n1") == (
        "request `gpu`: 1 device(s) of class `gpu` — n1 has 0 free: gpu-0 allocated to default/train-1 (claim held)"
    )
    assert request.to_json()["devices"][0]["pods"] == ["default/train-1"]


def test_pictures_kept_from_cycle_to_cycle_follow_the_holders_of_the_devices():
    """A node's device verdicts are kept across cycles while its devices' holders are the same
    claims: every cycle's pictures equal those of a plugin that never pictured before, as claims
    take, give up and change their reservations of the node's devices."""
    holder = claiming_pod("train-1", "held", node="n1")
    snapshot = dra_snapshot(
        [make_node("n1"), make_node("n2")],
        [holder],
        classes=[make_device_class("gpu")],
        slices=[make_gpu_slice("n1", 2), make_gpu_slice("n2", 2)],
        claims=[make_resource_claim("held", on=("gpu-0",), node="n1"), make_resource_claim("c", exact(count=2))],
    )
    plugin = dynamic_resources.new(None, FakeHandle(snapshot))
    api, in_flight = snapshot.api, snapshot.dra.in_flight  # claims are written through the API server

    def put(claim):
        return lambda: api.put(KIND_RESOURCE_CLAIM, claim)

    flying = make_resource_claim("flying", on=("gpu-1",), node="n1", uid="uid-flying")
    writes = [
        lambda: None,
        put(make_resource_claim("held", on=("gpu-0",), node="n1", reserved_for=(holder,))),
        put(make_resource_claim("more", on=("gpu-1",), node="n1")),
        put(make_resource_claim("held", on=("gpu-1",), node="n2")),
        lambda: api.delete(KIND_RESOURCE_CLAIM, "default/more"),
        # an allocation in flight holds n1's gpu-1; its claim's entry (unallocated) is what the
        # picture names as holder, and a write of that entry alone changes the picture
        lambda: in_flight.__setitem__("uid-flying", flying),
        put(make_resource_claim("flying", uid="uid-flying")),
        put(make_resource_claim("flying", uid="uid-flying", reserved_for=(holder,))),
        lambda: in_flight.pop("uid-flying"),
        put(make_resource_claim("more", on=("gpu-0",), node="n2")),
    ]
    for write in writes:
        write()
        pictures = []
        state, pod = CycleState(), claiming_pod("p", "c")
        plugin.pre_filter(state, pod, [])
        kept = plugin.node_pictures(state, pod, [snapshot.get("n1"), snapshot.get("n2")])
        pictures.append([kept[n].to_json() for n in ("n1", "n2")])
        fresh = dynamic_resources.new(None, FakeHandle(snapshot))
        state, pod = CycleState(), claiming_pod("p", "c")
        fresh.pre_filter(state, pod, [])
        pictures.append([fresh.node_picture(state, pod, snapshot.get(n)).to_json() for n in ("n1", "n2")])
        assert pictures[0] == pictures[1]


def test_a_picture_taken_after_a_write_is_not_kept_for_later_cycles():
    """A cycle's pictures show the devices' holders as its PreFilter found them, even when a claim
    was written in between; what they show is not kept for a later cycle, which sees the write."""
    snapshot = dra_snapshot(
        [make_node("n1")],
        classes=[make_device_class("gpu")],
        slices=[make_gpu_slice("n1", 2)],
        claims=[make_resource_claim("held", on=("gpu-0",), node="n1"), make_resource_claim("c", exact(count=2))],
    )
    plugin = dynamic_resources.new(None, FakeHandle(snapshot))

    def picture(candidate, write=lambda: None):
        state, pod = CycleState(), claiming_pod("p", "c")
        candidate.pre_filter(state, pod, [])
        write()
        return candidate.node_picture(state, pod, snapshot.get("n1")).to_json()["sentences"][0]

    moved = make_resource_claim("held", on=("gpu-1",), node="n1")
    assert "gpu-0 allocated" in picture(plugin, lambda: snapshot.api.put(KIND_RESOURCE_CLAIM, moved))
    later = picture(plugin)
    assert later == picture(dynamic_resources.new(None, FakeHandle(snapshot)))
    assert "gpu-1 allocated" in later


def test_a_device_with_a_taint_the_request_does_not_tolerate_is_not_free_where_taints_are_on():
    """DRADeviceTaints (on in v1.36): the allocator passes over such a device, and the picture says why."""
    from dataclasses import replace

    from scheduler_core.model import DeviceTaint
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    slice_ = make_gpu_slice("n1", 2)
    tainted = replace(slice_.devices[0], taints=(DeviceTaint("broken", "", "NoSchedule"),))
    snapshot = dra_snapshot(
        [make_node("n1")],
        classes=[make_device_class("gpu")],
        slices=[replace(slice_, devices=(tainted, slice_.devices[1]))],
        claims=[make_resource_claim("c", exact(count=2))],
    )
    v136 = next(r for r in SUPPORTED_RELEASES if r.minor == 36)
    plugin = dynamic_resources.new(None, FakeHandle(snapshot), rules_for(v136).features)
    state, pod = CycleState(), claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    n1 = plugin.node_picture(state, pod, snapshot.get("n1"))
    assert n1.status == "cannot allocate all claims"
    [request] = n1.requests
    assert request.sentence("n1") == (
        "request `gpu`: 2 device(s) of class `gpu` — n1 has 1 free: gpu-0 has a taint the request does not tolerate"
    )
    assert request.to_json()["devices"][0]["tainted"] is True


def test_each_picture_writes_what_its_declaration_says():
    """The pictures are Wire payloads: their JSON is what msgspec writes of the declaration, a taken
    device's holder included and ``tainted`` left out while it is not set."""
    snapshot, plugin, state, pod = scene()
    pre_filter = plugin.pre_filter_picture(state, pod)
    n1 = plugin.node_picture(state, pod, snapshot.get("n1"))
    for picture in (pre_filter, n1):
        assert picture.to_json() == msgspec.json.decode(msgspec.json.encode(picture))
    taken = next(device for device in n1.requests[0].matching if not device.free)
    assert taken.to_json() == {"device": taken.device, "free": False, "heldBy": "default/held", "pods": []}


def test_a_picture_read_back_from_its_json_says_the_same():
    """What a picture derives (a request's free devices, the node's sentences) is a field: read back,
    it is the same picture."""
    snapshot, plugin, state, pod = scene()
    n1 = plugin.node_picture(state, pod, snapshot.get("n1"))
    again = type(n1).from_json(n1.to_json())
    assert again == n1 and again.sentences == n1.sentences and again.requests[0].free == 1
