"""Binding conditions: readiness, timeout and PreBind's poll (dynamicresources.go)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from fractions import Fraction

from scheduler_core.model import (
    AllocatedDeviceStatus,
    AllocationResult,
    DeviceCondition,
    DeviceResult,
    ResourceClaim,
)
from scheduler_core.plugins.dynamic_resources.binding import (
    BindingWait,
    go_quote,
    readiness,
    stamped,
    timed_out,
    unavailable,
    wait_for_conditions,
)

T0 = datetime(2026, 5, 1, 10, 0, 0, tzinfo=timezone.utc)
TEN_MINUTES = Fraction(600_000)


def _result(device: str = "fgpu-0", conditions: bool = True) -> DeviceResult:
    return DeviceResult(
        "gpu",
        "fabric.example.com",
        "fabric",
        device,
        binding_conditions=("Attached",) if conditions else None,
        binding_failure_conditions=("AttachFailed",) if conditions else None,
    )


def _claim(
    *conditions: DeviceCondition, allocated: datetime | None = T0, results: tuple[DeviceResult, ...] | None = None
) -> ResourceClaim:
    results = results if results is not None else (_result(),)
    statuses = (AllocatedDeviceStatus("fabric.example.com", "fabric", "fgpu-0", conditions=conditions),)
    return ResourceClaim(
        "default",
        "c",
        allocation=AllocationResult(results, allocation_timestamp=allocated),
        device_statuses=statuses if conditions else (),
    )


ATTACHED = DeviceCondition("Attached", "True", "Attached")
NOT_YET = DeviceCondition("Attached", "False", "Attaching")
FAILED = DeviceCondition("AttachFailed", "True", "NoPath", 'switch "sw-3"\nunreachable')


def test_a_claim_is_ready_when_every_binding_condition_is_true():
    assert readiness(_claim(ATTACHED)) is True
    assert readiness(_claim(NOT_YET)) is False
    assert readiness(_claim()) is False  # no device status yet
    assert readiness(ResourceClaim("default", "c")) is False  # not allocated
    assert readiness(_claim(results=(_result(conditions=False),))) is True  # nothing to wait for


def test_a_true_failure_condition_fails_the_binding_with_its_reason_and_quoted_message():
    assert readiness(_claim(NOT_YET, FAILED)) == (
        'device binding failed: claim=c, reason=NoPath, message="switch \\"sw-3\\"\\nunreachable"'
    )


def test_a_device_without_status_is_not_ready_whatever_follows_it():
    first_without_status = (_result("fgpu-9"), _result("fgpu-0"))
    assert readiness(_claim(FAILED, results=first_without_status)) is False


def test_the_timeout_counts_from_the_allocation_timestamp_strictly():
    claim = _claim()
    assert not timed_out(claim, TEN_MINUTES, T0 + timedelta(minutes=10))
    assert timed_out(claim, TEN_MINUTES, T0 + timedelta(minutes=10, milliseconds=1))
    assert not timed_out(_claim(allocated=None), TEN_MINUTES, T0 + timedelta(days=1))
    assert not timed_out(_claim(results=(_result(conditions=False),)), TEN_MINUTES, T0 + timedelta(days=1))


def test_filter_finds_a_failed_or_timed_out_claim_unavailable():
    later = T0 + timedelta(minutes=11)
    assert unavailable(_claim(NOT_YET, FAILED), TEN_MINUTES, T0)
    assert unavailable(_claim(NOT_YET), TEN_MINUTES, later)
    assert not unavailable(_claim(NOT_YET), TEN_MINUTES, T0 + timedelta(minutes=5))
    assert not unavailable(_claim(ATTACHED), TEN_MINUTES, later)  # ready: a late timestamp does not matter


def test_prebind_binds_at_once_fails_at_once_or_waits_for_the_deadline():
    assert wait_for_conditions([_claim(ATTACHED)], TEN_MINUTES, T0) == BindingWait(0, None)
    assert wait_for_conditions([_claim(FAILED)], TEN_MINUTES, T0).after_ms == 0
    assert wait_for_conditions([_claim()], TEN_MINUTES, T0) == BindingWait(
        600_000, "device binding timeout: context deadline exceeded"
    )


def test_a_poll_before_the_deadline_sees_an_older_allocation_time_out():
    """The poll's ticks come every 5 s; the deadline's error wins at the deadline itself."""
    older = _claim(allocated=T0 - timedelta(seconds=590))
    assert wait_for_conditions([older], TEN_MINUTES, T0) == BindingWait(15_000, "device binding timeout: claim=c")
    # stamped to the second, an allocation made at 10:00:00.7 times out at the tick of 10.5 s past it
    start = T0 + timedelta(milliseconds=700)
    fresh = _claim(allocated=stamped(start))
    assert wait_for_conditions([fresh], Fraction(10_500), start) == BindingWait(
        10_000, "device binding timeout: claim=c"
    )
    assert (
        wait_for_conditions([fresh], Fraction(10_000), start).error
        == "device binding timeout: context deadline exceeded"
    )


def test_the_first_claim_not_ready_decides():
    ready, pending, failed = _claim(ATTACHED), _claim(), _claim(FAILED)
    assert wait_for_conditions([ready, failed, pending], TEN_MINUTES, T0).error.startswith("device binding failed")
    assert wait_for_conditions([pending, failed], TEN_MINUTES, T0).after_ms == 600_000


def test_go_quote_escapes_as_strconv_quote():
    assert go_quote('a "b"\\\t\x01é') == '"a \\"b\\"\\\\\\t\\x01é"'
