"""Feature gates per release, and kube-scheduler's --feature-gates."""

from __future__ import annotations

import pytest

from scheduler_core.release.gates import (
    FEATURE_SPECS,
    FeatureGateError,
    feature_gates,
    parse_feature_gates,
    spec_at,
)
from scheduler_core.release.versions import SUPPORTED_RELEASES


def _release(minor):
    return next(r for r in SUPPORTED_RELEASES if r.minor == minor)


# Each release's own pkg/features/kube_features.go, at that release (issue 48's list).
@pytest.mark.parametrize(
    ("gate", "on_in"),
    [
        ("DynamicResourceAllocation", {34, 35, 36}),
        ("SchedulerAsyncPreemption", {33, 34, 35, 36}),
        ("SchedulerPopFromBackoffQ", {33, 34, 35, 36}),
        ("PodLevelResources", {34, 35, 36}),
        ("DRAPrioritizedList", {34, 35, 36}),
        ("DRAAdminAccess", {34, 35, 36}),
        ("MatchLabelKeysInPodTopologySpreadSelectorMerge", {34, 35, 36}),
        ("OpportunisticBatching", {35, 36}),
        ("NominatedNodeNameForExpectation", {35, 36}),
        ("ClearingNominatedNodeNameAfterBinding", {35, 36}),
        ("NodeDeclaredFeatures", {36}),
        ("DRAPartitionableDevices", {36}),
        ("DRAConsumableCapacity", {36}),
        ("DRADeviceTaints", {36}),
        ("DRAExtendedResource", {36}),
        ("DRADeviceBindingConditions", {36}),
        ("SchedulerAsyncAPICalls", set()),
    ],
)
def test_each_release_has_its_own_defaults(gate, on_in):
    for release in SUPPORTED_RELEASES:
        assert feature_gates(release).enabled(gate) == (release.minor in on_in), (gate, release.name)


def test_a_gate_a_release_does_not_know_is_off_and_cannot_be_set():
    v132 = _release(32)
    assert spec_at("SchedulerPopFromBackoffQ", 32) is None
    assert not feature_gates(v132).enabled("SchedulerPopFromBackoffQ")
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: SchedulerPopFromBackoffQ"):
        feature_gates(v132, {"SchedulerPopFromBackoffQ": True})


def test_a_locked_gate_cannot_be_turned_against_its_lock():
    with pytest.raises(
        FeatureGateError, match="cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"
    ):
        feature_gates(_release(35), {"DynamicResourceAllocation": False})
    # v1.34: GA but not yet locked
    assert not feature_gates(_release(34), {"DynamicResourceAllocation": False}).enabled("DynamicResourceAllocation")


def test_from_v1_35_a_gate_turned_on_needs_its_dependencies():
    with pytest.raises(FeatureGateError, match="DRADeviceTaintRules depends on DRADeviceTaints"):
        feature_gates(_release(35), {"DRADeviceTaintRules": True})
    gates = feature_gates(_release(35), {"DRADeviceTaintRules": True, "DRADeviceTaints": True})
    assert gates.enabled("DRADeviceTaintRules")


def test_overrides_turn_gates_on_and_off():
    gates = feature_gates(_release(33), {"DynamicResourceAllocation": True, "SchedulerAsyncPreemption": False})
    assert gates.enabled("DynamicResourceAllocation")
    assert not gates.enabled("SchedulerAsyncPreemption")
    assert gates.differences_from_defaults() == {"DynamicResourceAllocation": True, "SchedulerAsyncPreemption": False}


def test_the_flag_reads_as_kube_scheduler_reads_it():
    assert parse_feature_gates("A=true, B=False,,C=TRUE") == {"A": True, "B": False, "C": True}
    with pytest.raises(FeatureGateError, match="missing bool value"):
        parse_feature_gates("A=yes")


def test_every_spec_is_in_release_order():
    for gate, specs in FEATURE_SPECS.items():
        sinces = [spec.since for spec in specs]
        assert sinces == sorted(sinces) and len(set(sinces)) == len(sinces), gate


@pytest.mark.parametrize(
    ("minor", "gate"),
    [
        (36, "DRANodeAllocatableResources"),
        (36, "DRAListTypeAttributes"),
        (35, "GangScheduling"),
        (35, "TaintTolerationComparisonOperators"),
        (34, "SchedulerAsyncAPICalls"),
        (32, "VolumeCapacityPriority"),
    ],
)
def test_a_gate_whose_code_is_not_replayed_is_refused_when_set_against_its_default(minor, gate):
    """Replaying it as if unset would be a silently wrong answer: the setting is refused, naming why."""
    with pytest.raises(FeatureGateError, match=f"SchedLab does not replay feature gate {gate}=true"):
        feature_gates(_release(minor), {gate: True})
    assert not feature_gates(_release(minor), {gate: False}).enabled(gate)  # its default: accepted
