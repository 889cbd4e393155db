"""DynamicResourcesArgs: defaults and validation by the release's gates."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.plugins.dynamic_resources.args import DynamicResourcesArgs, parse_duration
from scheduler_core.release.rules import rules_for
from scheduler_core.release.versions import Release

V136, V135, V133 = (rules_for(Release(minor, 0)).features for minor in (36, 35, 33))


@pytest.mark.parametrize(
    "text, ms",
    [
        ("600s", 600_000),
        ("10m", 600_000),
        ("1m30s", 90_000),
        ("1.5h", 5_400_000),
        ("250ms", 250),
        ("0", 0),
        ("-2s", -2000),
    ],
)
def test_durations_read_as_go_reads_them(text: str, ms: int) -> None:
    assert parse_duration(text) == Fraction(ms)


@pytest.mark.parametrize("text", ["", "10", "s", "1x", "1m 30s", "--1s"])
def test_malformed_durations_are_none(text: str) -> None:
    assert parse_duration(text) is None


def test_the_defaults_follow_the_gates() -> None:
    assert DynamicResourcesArgs.parse(None, V136) == DynamicResourcesArgs(Fraction(10_000), Fraction(600_000))
    assert DynamicResourcesArgs.parse({"bindingTimeout": "30s"}, V136).binding_timeout_ms == 30_000
    assert DynamicResourcesArgs.parse(None, V133).filter_timeout_ms is None


def _problems(raw: dict[str, object], features: object) -> list[str]:
    with pytest.raises(ArgsError) as raised:
        DynamicResourcesArgs.parse(raw, features)  # type: ignore[arg-type]
    return [f"{p.path}: {p.message}" for p in raised.value.problems]


def test_each_bad_value_is_named() -> None:
    assert _problems({"bindingTimeout": "500ms"}, V136) == [
        'bindingTimeout: Invalid value: "500ms": must be at least 1 second'
    ]
    assert _problems({"filterTimeout": "-1s"}, V136) == [
        'filterTimeout: Invalid value: "-1s": must be zero or positive'
    ]
    assert _problems({"bindingTimeout": 30}, V136) == [
        'bindingTimeout: Invalid value: 30: a duration such as "600s" or "10m"'
    ]
    assert _problems({"timeout": "1s"}, V136) == ['timeout: unknown field "timeout"']


def test_a_field_whose_gate_is_off_is_forbidden() -> None:
    assert _problems({"bindingTimeout": "30s"}, V135) == [
        "bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
    ]
    assert _problems({"filterTimeout": "5s"}, V133) == [
        "filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled"
    ]
