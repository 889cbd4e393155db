"""DynamicResourcesArgs: v1 defaults and validation (apis/config/v1 SetDefaults_DynamicResourcesArgs,
validation_pluginargs.go ValidateDynamicResourcesArgs) at the release's feature gates.

- ``filterTimeout`` (DRASchedulerFilterTimeout, on from v1.34): how long Filter may spend
  allocating on one node, 10 s by default; zero or positive. SchedLab's allocator answers every
  node within it on the clusters it replays, so it is read and checked, not applied.
- ``bindingTimeout`` (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus, on from v1.36):
  how long PreBind waits for a device's binding conditions, 600 s by default; at least 1 s.
Either given while its gates are off is refused, as the release refuses it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Optional

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.release import DEFAULT_RULES, Features

FILTER_TIMEOUT_FIELD = "filterTimeout"
BINDING_TIMEOUT_FIELD = "bindingTimeout"
DEFAULT_FILTER_TIMEOUT_MS = 10_000  # DynamicResourcesFilterTimeoutDefault
DEFAULT_BINDING_TIMEOUT_MS = 600_000  # DynamicResourcesBindingTimeoutDefault
MIN_BINDING_TIMEOUT_MS = 1_000

_KNOWN_FIELDS = frozenset((FILTER_TIMEOUT_FIELD, BINDING_TIMEOUT_FIELD, "apiVersion", "kind"))
# time.ParseDuration's units, in nanoseconds
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> Optional[Fraction]:
    """time.ParseDuration (what metav1.Duration reads): a signed sequence of decimal numbers, each
    with a unit ("1m30s", "600s", "1.5h"; "0" alone), in milliseconds; None when malformed."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return Fraction(0)
    if not body:
        return None
    total, at = Fraction(0), 0
    while at < len(body):
        part = _PART.match(body, at)
        if part is None:
            return None
        total += Fraction(part.group(1)) * _UNITS[part.group(2)]
        at = part.end()
    millis = total / 1_000_000
    return -millis if text.startswith("-") else millis


@dataclass(frozen=True, slots=True)
class DynamicResourcesArgs:
    filter_timeout_ms: Optional[Fraction] = None  # None: the gate is off (no timeout)
    binding_timeout_ms: Fraction = Fraction(DEFAULT_BINDING_TIMEOUT_MS)

    @classmethod
    def parse(
        cls, raw: Optional[Mapping[str, Any]], features: Features = DEFAULT_RULES.features
    ) -> "DynamicResourcesArgs":
        raw = raw or {}
        problems = [ArgsProblem(name, f'unknown field "{name}"') for name in raw if name not in _KNOWN_FIELDS]
        filter_timeout = _duration(raw, FILTER_TIMEOUT_FIELD, problems)
        binding_timeout = _duration(raw, BINDING_TIMEOUT_FIELD, problems)
        binding_gates = (
            features.enable_dra_device_binding_conditions and features.enable_dra_resource_claim_device_status
        )
        if not features.enable_dra_scheduler_filter_timeout:
            if FILTER_TIMEOUT_FIELD in raw:
                problems.append(
                    ArgsProblem(FILTER_TIMEOUT_FIELD, "Forbidden: DRASchedulingFilterTimeout feature gate is disabled")
                )
        elif filter_timeout is not None and filter_timeout < 0:
            problems.append(
                ArgsProblem(
                    FILTER_TIMEOUT_FIELD,
                    f"Invalid value: {_shown(raw[FILTER_TIMEOUT_FIELD])}: must be zero or positive",
                )
            )
        if not binding_gates:
            if BINDING_TIMEOUT_FIELD in raw:
                problems.append(
                    ArgsProblem(
                        BINDING_TIMEOUT_FIELD,
                        "Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
                    )
                )
        elif binding_timeout is not None and binding_timeout < MIN_BINDING_TIMEOUT_MS:
            problems.append(
                ArgsProblem(
                    BINDING_TIMEOUT_FIELD,
                    f"Invalid value: {_shown(raw[BINDING_TIMEOUT_FIELD])}: must be at least 1 second",
                )
            )
        if problems:
            raise ArgsError(problems)
        if features.enable_dra_scheduler_filter_timeout and filter_timeout is None:
            filter_timeout = Fraction(DEFAULT_FILTER_TIMEOUT_MS)
        return cls(
            filter_timeout if features.enable_dra_scheduler_filter_timeout else None,
            binding_timeout if binding_timeout is not None else Fraction(DEFAULT_BINDING_TIMEOUT_MS),
        )


def _duration(raw: Mapping[str, Any], name: str, problems: list[ArgsProblem]) -> Optional[Fraction]:
    """A metav1.Duration field: a Go duration string; a problem when it is anything else."""
    value = raw.get(name)
    if value is None:
        return None
    parsed = parse_duration(value) if isinstance(value, str) else None
    if parsed is None:
        problems.append(ArgsProblem(name, f'Invalid value: {_shown(value)}: a duration such as "600s" or "10m"'))
    return parsed


def _shown(value: Any) -> str:
    """A value as the error shows it (JSON: a string quoted, a number as written)."""
    return json.dumps(value)
