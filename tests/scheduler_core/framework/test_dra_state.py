"""DraState: the DRA manager's claim tracker (dra_manager.go, allocateddevices.go)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.framework.dra_state import DraState
from scheduler_core.model import AllocationResult, DeviceClass, DeviceResult, DraObjects, ResourceSlice
from tests.scheduler_core.builders import make_resource_claim

# The claims' cache is written only by its informer (``informed``); these tests of how the devices
# in use follow every kind of write reach its dict (``_claims``) directly, as a test of it may.


def _informed(objects: DraObjects) -> DraState:
    """The caches as their informers fill them: the API server's list, one object at a time."""
    state = DraState()
    for obj in (*objects.classes, *objects.slices, *objects.claims, *objects.templates):
        state.informed(None, obj)
    return state


def test_devices_in_use_are_those_of_allocated_claims_and_allocations_in_flight():
    """ListAllAllocatedDevices: allocated claims (admin access left out) plus in-flight allocations."""
    allocated = make_resource_claim("a", on=("gpu-0",), node="n1")
    admin = make_resource_claim(
        "b", allocation=AllocationResult((DeviceResult("gpu", "gpu.example.com", "n1", "gpu-1", True),), None)
    )
    state = _informed(DraObjects(claims=[allocated, admin, make_resource_claim("c")]))
    state.in_flight["uid-claim-c"] = make_resource_claim("c", on=("gpu-2",), node="n1")
    assert state.device_owners() == {
        ("gpu.example.com", "n1", "gpu-0"): "default/a",
        ("gpu.example.com", "n1", "gpu-2"): "default/c",
    }


def _fresh(state: DraState) -> dict:
    """device_owners computed anew from the state's dicts as they are now."""
    copy = DraState()
    copy._claims.update(state.claims)
    copy.in_flight.update(state.in_flight)
    return copy.device_owners()


def test_the_devices_in_use_follow_every_write_of_a_claim_or_an_allocation_in_flight():
    """device_owners is kept between calls (a PreFilter per attempt walked every claim) until a
    claim or an allocation in flight is written: set, deleted, popped, updated, cleared."""
    state = _informed(DraObjects(claims=[make_resource_claim("a", on=("gpu-0",), node="n1"), make_resource_claim("c")]))
    first = state.device_owners()
    assert first == _fresh(state) and state.device_owners() is not first  # each caller its own dict
    first.clear()  # a caller changing its dict changes nothing kept
    assert state.device_owners() == {("gpu.example.com", "n1", "gpu-0"): "default/a"}
    writes = [
        lambda: state._claims.__setitem__("default/b", make_resource_claim("b", on=("gpu-1",), node="n1")),
        lambda: state.in_flight.__setitem__("uid-claim-c", make_resource_claim("c", on=("gpu-2",), node="n1")),
        lambda: state._claims.pop("default/a"),
        lambda: state.in_flight.pop("uid-claim-c", None),
        lambda: state._claims.update({"default/d": make_resource_claim("d", on=("gpu-3",), node="n2")}),
        lambda: state._claims.__delitem__("default/b"),
        lambda: state._claims.setdefault("default/e", make_resource_claim("e", on=("gpu-4",), node="n2")),
        lambda: state.in_flight.update({"uid-claim-f": make_resource_claim("f", on=("gpu-5",), node="n2")}),
        lambda: state._claims.__ior__({"default/i": make_resource_claim("i", on=("gpu-8",), node="n2")}),
        lambda: state.in_flight.clear(),
        lambda: state._claims.clear(),
    ]
    for write in writes:
        write()
        assert state.device_owners() == _fresh(state)
        assert set(state.device_holders()) == set(_fresh(state))
    state.in_flight = {"uid-g": make_resource_claim("g", on=("gpu-6",), node="n3")}  # a plain dict put in place
    assert state.device_owners() == {("gpu.example.com", "n3", "gpu-6"): "default/g"}
    state.in_flight["uid-h"] = make_resource_claim("h", on=("gpu-7",), node="n3")
    assert len(state.device_owners()) == 2


def test_a_device_held_twice_goes_to_the_first_claim_in_order_as_writes_come_and_go():
    """The devices in use follow each write without a rebuild; a device two claims hold is the
    first one's in the claims' order (then the first in flight), as a fresh walk finds it."""
    state = _informed(
        DraObjects(
            claims=[
                make_resource_claim("a", on=("gpu-0",), node="n1"),
                make_resource_claim("b", on=("gpu-0", "gpu-1"), node="n1"),
            ]
        )
    )
    assert state.device_owners()[("gpu.example.com", "n1", "gpu-0")] == "default/a"
    writes = [
        lambda: state._claims.pop("default/a"),  # b takes gpu-0
        lambda: state._claims.__setitem__(
            "default/a", make_resource_claim("a", on=("gpu-0",), node="n1")
        ),  # after b now
        lambda: state.in_flight.__setitem__("uid-c", make_resource_claim("c", on=("gpu-1", "gpu-2"), node="n1")),
        lambda: state._claims.__setitem__("default/b", make_resource_claim("b")),  # b deallocated: a, then c
        lambda: state.in_flight.pop("uid-c"),
    ]
    for write in writes:
        write()
        assert state.device_owners() == _fresh(state)
        assert {device: claim.key for device, claim in state.device_holders().items()} == _fresh(state)


def test_the_informer_fills_each_kind_and_outsiders_cannot_write_it():
    """Only the informers write the caches: the views refuse a write, slices are a tuple."""
    claim = make_resource_claim("a", on=("gpu-0",), node="n1")
    slice_ = ResourceSlice("n1-gpu", "gpu.example.com", "n1", node_name="n1")
    state = _informed(DraObjects([DeviceClass("gpu")], [slice_], [claim]))
    assert (state.device_class("gpu"), state.slices, state.claim("default", "a")) == (
        DeviceClass("gpu"),
        (slice_,),
        claim,
    )
    assert state.device_owners() == {("gpu.example.com", "n1", "gpu-0"): "default/a"}
    state.informed(claim, None)
    assert state.claim("default", "a") is None and state.device_owners() == {}
    with pytest.raises(TypeError):
        state.claims["default/a"] = claim  # type: ignore[index]
    with pytest.raises(TypeError):
        state.classes["x"] = DeviceClass("x")  # type: ignore[index]


def test_shares_are_not_devices_in_use_and_their_consumed_capacity_adds_up():
    """foreachAllocatedDevice with DRAConsumableCapacity: a result with a shareID is a shared device
    (AllocatedSharedDeviceIDs), its consumedCapacity summed per device (AggregatedCapacity); the
    allocations in flight count too."""

    def share(name: str, share_id: str, memory: str):
        result = DeviceResult("gpu", "gpu.example.com", "n1", "gpu-0", None, share_id, {"memory": memory})
        return make_resource_claim(name, allocation=AllocationResult((result,), None))

    state = _informed(DraObjects(claims=[share("a", "s-1", "1Gi"), share("b", "s-2", "512Mi")]))
    assert state.device_owners() == {}
    gpu = ("gpu.example.com", "n1", "gpu-0")
    assert state.shared_devices() == (frozenset({gpu}), {gpu: {"memory": Fraction(3 << 29)}})
    state.in_flight["uid-claim-c"] = share("c", "s-3", "512Mi")
    assert state.shared_devices()[1] == {gpu: {"memory": Fraction(2 << 30)}}
    state.informed(state.claims["default/a"], None)
    state.informed(state.claims["default/b"], None)
    del state.in_flight["uid-claim-c"]
    assert state.shared_devices() == (frozenset(), {})
