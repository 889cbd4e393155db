"""DraState: the DRA manager's claim tracker (dra_manager.go, allocateddevices.go)."""

from __future__ import annotations

from scheduler_core.framework.dra_state import DraState
from scheduler_core.model import AllocationResult, DeviceResult, DraObjects
from tests.scheduler_core.builders import make_resource_claim


def test_devices_in_use_are_those_of_allocated_claims_and_allocations_in_flight():
    """ListAllAllocatedDevices: allocated claims (admin access left out) plus in-flight allocations."""
    allocated = make_resource_claim("a", on=("gpu-0",), node="n1")
    admin = make_resource_claim("b", allocation=AllocationResult(
        (DeviceResult("gpu", "gpu.example.com", "n1", "gpu-1", True),), None))
    state = DraState(DraObjects(claims=[allocated, admin, make_resource_claim("c")]))
    state.in_flight["uid-claim-c"] = make_resource_claim("c", on=("gpu-2",), node="n1")
    assert state.device_owners() == {("gpu.example.com", "n1", "gpu-0"): "default/a",
                                     ("gpu.example.com", "n1", "gpu-2"): "default/c"}
