"""model/resource.py: a device's attributes by fully qualified or bare name (lookupAttribute), and
who a claim is reserved for and controlled by."""

from __future__ import annotations

from scheduler_core.model.core import OwnerReference
from scheduler_core.model.resource import ConsumerRef, Device, ResourceClaim


def test_a_bare_attribute_name_is_found_only_in_the_drivers_own_domain():
    device = Device("gpu-0", attributes={"model": "a100", "other.example.com/x": 1})
    assert device.attribute("gpu.example.com", "gpu.example.com/model") == "a100"
    assert device.attribute("gpu.example.com", "other.example.com/model") is None
    assert device.attribute("gpu.example.com", "other.example.com/x") == 1


def test_a_claim_knows_its_consumers_and_its_controller_and_deallocates_as_a_new_object():
    owner = OwnerReference("Pod", "train", "v1", True, "uid-train")
    claim = ResourceClaim(
        "default", "train-gpu", owner_references=(owner,), reserved_for=(ConsumerRef("pods", "train", "uid-train"),)
    )
    assert claim.key == "default/train-gpu" and claim.is_reserved_for("uid-train") and not claim.is_reserved_for("x")
    assert claim.controlled_by("uid-train") and not claim.controlled_by("uid-other")
    released = claim.deallocated()
    assert released.reserved_for == () and claim.reserved_for != ()


def test_a_device_toleration_matches_as_tolerates_taint_does():
    """resourceclaim.ToleratesTaint: effect, then key (each when set), then the operator."""
    from scheduler_core.model import DeviceTaint, DeviceToleration

    taint = DeviceTaint("example.com/broken", "true", "NoExecute")
    assert DeviceToleration("example.com/broken", "Equal", "true").tolerates(taint)
    assert DeviceToleration("example.com/broken", "", "true").tolerates(taint)  # an empty operator is Equal
    assert not DeviceToleration("example.com/broken", "Equal", "").tolerates(taint)
    assert DeviceToleration("", "Exists", "", "NoExecute").tolerates(taint)
    assert not DeviceToleration("", "Exists", "", "NoSchedule").tolerates(taint)
    assert not DeviceToleration("example.com/broken", "Unknown").tolerates(taint)


def test_a_claims_device_status_is_found_by_device_and_dropped_with_its_allocation():
    """getAllocatedDeviceStatus, and dropDeallocatedStatusDevices when the allocation goes."""
    from scheduler_core.model import AllocatedDeviceStatus, AllocationResult, DeviceCondition, DeviceResult

    attached = DeviceCondition("Attached", "True", "Ok")
    status = AllocatedDeviceStatus("fabric.example.com", "fabric", "fgpu-0", conditions=(attached,))
    result = DeviceResult("gpu", "fabric.example.com", "fabric", "fgpu-0", binding_conditions=("Attached",))
    other = DeviceResult("gpu", "fabric.example.com", "fabric", "fgpu-1")
    claim = ResourceClaim("default", "c", allocation=AllocationResult((result,)), device_statuses=(status,))
    assert claim.device_status(result) is status and claim.device_status(other) is None
    assert status.is_true("Attached") and not status.is_true("AttachFailed")
    assert status.condition("Attached") is attached and status.condition("AttachFailed") is None
    assert claim.allocation.binds_with_conditions and not AllocationResult((other,)).binds_with_conditions
    assert claim.deallocated().device_statuses == ()
