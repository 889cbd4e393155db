"""Binding conditions (DRADeviceBindingConditions, on from v1.36): a device that must be attached or
prepared before a pod using it may be bound (dynamicresources.go: isClaimReadyForBinding,
isClaimTimeout, isPodReadyForBinding, and PreBind's poll).

A device with binding conditions names the conditions of the claim's device status
(``status.devices[].conditions``) that must all be True, and failure conditions any of which
fails the binding. PreBind writes the claim's ``allocationTimestamp``, then checks at once and
every 5 s until ``bindingTimeout`` (600 s by default) has passed. Whoever sets those conditions
(the device's driver or a controller of its vendor) is not part of a replay: they are as the dump
has them, so PreBind's outcome is known when it starts — bound at once, failed at once, or failed
when the wait ends. Filter then finds a claim whose binding failed, or that waited longer than
the timeout, unavailable on every node; PostFilter deallocates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from math import floor
from typing import Optional, Sequence

from scheduler_core.model import ResourceClaim

ERROR_BINDING_TIMEOUT = "device binding timeout"  # ErrDeviceBindingTimeout
ERROR_BINDING_FAILED = "device binding failed"  # ErrDeviceBindingFailed
DEADLINE_EXCEEDED = "context deadline exceeded"  # the poll's context.DeadlineExceeded
POLL_INTERVAL_MS = 5_000
EVENT_REASON_PENDING = "BindingConditionsPending"


@dataclass(frozen=True, slots=True)
class BindingWait:
    """How PreBind's wait ends with the claims as they are: ``after_ms`` after it began, with
    ``error`` (None: every condition is met and the pod is bound)."""

    after_ms: int
    error: Optional[str]


def readiness(claim: ResourceClaim) -> bool | str:
    """isClaimReadyForBinding: True when every allocated device with binding conditions has them
    all True (a claim without such devices included), False while one is not yet, the failure's
    error when a failure condition is True (devices in allocation order; one without a status
    yet is not ready, whatever follows it)."""
    allocation = claim.allocation
    if allocation is None:
        return False
    for result in allocation.results:
        if not result.binding_conditions:
            continue
        status = claim.device_status(result)
        if status is None:
            return False
        for name in result.binding_failure_conditions or ():
            failed = status.condition(name)
            if failed is not None and failed.status == "True":
                return (
                    f"{ERROR_BINDING_FAILED}: claim={claim.name}, reason={failed.reason}, "
                    f"message={go_quote(failed.message)}"
                )
        if not all(status.is_true(name) for name in result.binding_conditions):
            return False
    return True


def timed_out(claim: ResourceClaim, timeout_ms: Fraction, now: datetime) -> bool:
    """isClaimTimeout: an allocation with binding conditions made longer than the timeout ago."""
    allocation = claim.allocation
    if allocation is None or allocation.allocation_timestamp is None or not allocation.binds_with_conditions:
        return False
    return allocation.allocation_timestamp + _delta(timeout_ms) < now


def unavailable(claim: ResourceClaim, timeout_ms: Fraction, now: datetime) -> bool:
    """Filter's check of an allocated claim: its binding failed, or it is not ready and timed out."""
    ready = readiness(claim)
    return isinstance(ready, str) or (not ready and timed_out(claim, timeout_ms, now))


def wait_for_conditions(claims: Sequence[ResourceClaim], timeout_ms: Fraction, start: datetime) -> BindingWait:
    """PreBind's PollUntilContextTimeout(5 s, bindingTimeout, immediate) over isPodReadyForBinding,
    the claims unchanged while it polls: the first claim not ready decides. Each poll before the
    deadline sees whether that claim's own allocation has timed out ("claim=..."); the deadline
    itself ends the poll with the context's error (its timer was started before the ticker's)."""
    pending: Optional[ResourceClaim] = None
    for claim in claims:
        ready = readiness(claim)
        if isinstance(ready, str):
            return BindingWait(0, ready)
        if not ready:
            pending = claim
            break
    if pending is None:
        return BindingWait(0, None)
    if timed_out(pending, timeout_ms, start):
        return BindingWait(0, f"{ERROR_BINDING_TIMEOUT}: claim={pending.name}")
    allocation = pending.allocation
    if allocation is not None and allocation.allocation_timestamp is not None and allocation.binds_with_conditions:
        # the first poll at which now > allocationTimestamp + timeout
        left_ms = _ms(allocation.allocation_timestamp - start) + timeout_ms
        tick = (floor(left_ms / POLL_INTERVAL_MS) + 1) * POLL_INTERVAL_MS
        if tick < timeout_ms:
            return BindingWait(tick, f"{ERROR_BINDING_TIMEOUT}: claim={pending.name}")
    return BindingWait(_ceil_ms(timeout_ms), f"{ERROR_BINDING_TIMEOUT}: {DEADLINE_EXCEEDED}")


def stamped(now: datetime) -> datetime:
    """A time as the API server stores it (metav1.Time: to the second)."""
    return now.replace(microsecond=0)


def go_quote(text: str) -> str:
    """strconv.Quote (fmt's %q) for the texts conditions carry: escapes and printable characters."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not char.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _delta(ms: Fraction) -> timedelta:
    return timedelta(microseconds=int(ms * 1000))


def _ms(delta: timedelta) -> Fraction:
    return Fraction(delta // timedelta(microseconds=1), 1000)


def _ceil_ms(ms: Fraction) -> int:
    return -floor(-ms)
