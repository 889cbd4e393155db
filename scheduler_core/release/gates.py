"""Feature gates as ``pkg/features/kube_features.go`` declares them: versioned specs per gate.

Each gate lists, oldest first, the release from which a spec holds: its default, its stage and
whether it is locked to that default (``LockToDefault``: a GA gate that can no longer be turned
off). The table is read off each supported release's own ``kube_features.go`` (v1.32.13, v1.33.13,
v1.34.9, v1.35.4, v1.36.3) for the gates the scheduler, its plugins and the API server's handling
of the objects the scheduler reads depend on; a gate a release does not know is absent there.

``feature_gates(release, overrides)`` gives a release's gates with kube-scheduler's
``--feature-gates`` applied, refused as the release would refuse them (an unknown gate, a locked
gate set against its lock, and from v1.35 a gate on whose dependency is off).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Mapping, Optional

from scheduler_core.release.versions import Release


class Stage(str, Enum):
    ALPHA = "Alpha"
    BETA = "Beta"
    GA = "GA"


@dataclass(frozen=True, slots=True)
class Spec:
    """From Kubernetes 1.<since> on (until the next spec): the gate's default, stage and lock."""

    since: int
    default: bool
    stage: Stage
    locked: bool = False


@dataclass(frozen=True, slots=True)
class Removed:
    """From 1.<since> on the release no longer knows the gate: its code behaves as ``stays`` for
    good (a GA gate's behaviour is kept; an alpha one's is gone)."""

    since: int
    stays: bool


A, B, GA = Stage.ALPHA, Stage.BETA, Stage.GA
LOCKED = True

# Gate -> its versioned specs, oldest first (only changes are written: a spec holds until the next).
FEATURE_SPECS: dict[str, tuple[Spec | Removed, ...]] = {
    # the queue, the cycle, preemption
    "SchedulerQueueingHints": (Spec(32, True, B), Spec(34, True, GA, LOCKED)),
    "SchedulerAsyncPreemption": (Spec(32, False, A), Spec(33, True, B)),
    "SchedulerPopFromBackoffQ": (Spec(33, True, B),),
    "SchedulerAsyncAPICalls": (Spec(34, False, B),),
    "OpportunisticBatching": (Spec(35, True, B),),
    "NominatedNodeNameForExpectation": (Spec(34, False, A), Spec(35, True, B)),
    "ClearingNominatedNodeNameAfterBinding": (Spec(34, False, A), Spec(35, True, B)),
    "PodSchedulingReadiness": (Spec(32, True, GA, LOCKED),),
    # dynamic resource allocation
    "DynamicResourceAllocation": (Spec(32, False, B), Spec(34, True, GA), Spec(35, True, GA, LOCKED)),
    "DRAAdminAccess": (Spec(32, False, A), Spec(34, True, B), Spec(36, True, GA, LOCKED)),
    "DRAPrioritizedList": (Spec(33, False, A), Spec(34, True, B), Spec(36, True, GA)),
    "DRADeviceTaints": (Spec(33, False, A), Spec(36, True, B)),
    "DRADeviceTaintRules": (Spec(35, False, A), Spec(36, False, B)),
    "DRAPartitionableDevices": (Spec(33, False, A), Spec(36, True, B)),
    "DRAConsumableCapacity": (Spec(34, False, A), Spec(36, True, B)),
    "DRADeviceBindingConditions": (Spec(34, False, A), Spec(36, True, B)),
    "DRAResourceClaimDeviceStatus": (Spec(32, False, A), Spec(33, True, B)),
    "DRASchedulerFilterTimeout": (Spec(34, True, B),),
    "DRAExtendedResource": (Spec(34, False, A), Spec(36, True, B)),
    "DRANodeAllocatableResources": (Spec(36, False, A),),
    "DRAWorkloadResourceClaims": (Spec(36, False, A),),
    "DRAListTypeAttributes": (Spec(36, False, A),),
    # pods' resources and containers
    "PodLevelResources": (Spec(32, False, A), Spec(34, True, B)),
    "InPlacePodVerticalScaling": (Spec(32, False, A), Spec(33, True, B), Spec(35, True, GA, LOCKED)),
    "InPlacePodLevelResourcesVerticalScaling": (Spec(35, False, A), Spec(36, True, B)),
    "SidecarContainers": (Spec(32, True, B), Spec(33, True, GA, LOCKED)),
    "ContainerRestartRules": (Spec(34, False, A), Spec(35, True, B)),
    "RestartAllContainersOnContainerExits": (Spec(35, False, A), Spec(36, True, B)),
    "UserNamespacesHostNetworkSupport": (Spec(35, False, A),),
    "UserNamespacesSupport": (Spec(32, False, B), Spec(33, True, B), Spec(36, True, GA, LOCKED)),
    # spreading
    "MatchLabelKeysInPodTopologySpread": (Spec(32, True, B),),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": (Spec(34, True, B),),
    "NodeInclusionPolicyInPodTopologySpread": (Spec(32, True, B), Spec(33, True, GA, LOCKED)),
    # storage
    "VolumeAttributesClass": (Spec(32, False, B), Spec(34, True, GA), Spec(36, True, GA, LOCKED)),
    "StorageCapacityScoring": (Spec(33, False, A),),
    "VolumeCapacityPriority": (Spec(32, False, A), Removed(33, False)),
    "VolumeLimitScaling": (Spec(35, False, A),),
    "CSIMigrationPortworx": (Spec(32, True, B), Spec(33, True, GA, LOCKED), Removed(36, True)),
    "MutableCSINodeAllocatableCount": (
        Spec(33, False, A),
        Spec(34, False, B),
        Spec(35, True, B),
        Spec(36, True, GA, LOCKED),
    ),
    # nodes' declared features, workloads, taints
    "NodeDeclaredFeatures": (Spec(35, False, A), Spec(36, True, B)),
    "GangScheduling": (Spec(35, False, A),),
    "GenericWorkload": (Spec(35, False, A),),
    "TopologyAwareWorkloadScheduling": (Spec(36, False, A),),
    "WorkloadAwarePreemption": (Spec(36, False, A),),
    "TaintTolerationComparisonOperators": (Spec(35, False, A),),
}

# defaultKubernetesFeatureGateDependencies (v1.35 on): a gate on needs these on too.
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "DRAAdminAccess": ("DynamicResourceAllocation",),
    "DRAConsumableCapacity": ("DynamicResourceAllocation",),
    "DRADeviceBindingConditions": ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus"),
    "DRADeviceTaintRules": ("DRADeviceTaints",),
    "DRADeviceTaints": ("DynamicResourceAllocation",),
    "DRAExtendedResource": ("DynamicResourceAllocation",),
    "DRAListTypeAttributes": ("DynamicResourceAllocation",),
    "DRANodeAllocatableResources": ("DynamicResourceAllocation",),
    "DRAPartitionableDevices": ("DynamicResourceAllocation",),
    "DRAPrioritizedList": ("DynamicResourceAllocation",),
    "DRASchedulerFilterTimeout": ("DynamicResourceAllocation",),
    "DRAWorkloadResourceClaims": ("DynamicResourceAllocation", "GenericWorkload"),
    "InPlacePodLevelResourcesVerticalScaling": (
        "InPlacePodVerticalScaling",
        "PodLevelResources",
        "NodeDeclaredFeatures",
    ),
    "RestartAllContainersOnContainerExits": ("ContainerRestartRules", "NodeDeclaredFeatures"),
}
DEPENDENCIES_CHECKED_SINCE = 35  # the release that added AddDependencies to the feature gate

# Gates whose code SchedLab does not replay: set against the release's default (by --feature-gates
# or the dump's kube-scheduler), the answers would not be that scheduler's, so the setting is
# refused, naming what the gate changes, rather than replayed as if it were unset.
NOT_REPLAYED: dict[str, str] = {
    "SchedulerAsyncAPICalls": "the scheduler queues its API calls and sends them asynchronously",
    "DRANodeAllocatableResources": "DynamicResources checks and records the node-allocatable resources devices map to",
    "DRAWorkloadResourceClaims": "claims reserved for a workload's pod group rather than for each pod",
    "DRAListTypeAttributes": "list-valued device attributes, matched as sets, and CEL's includes()",
    "GangScheduling": "pod groups scheduled all or nothing (the GangScheduling plugin)",
    "GenericWorkload": "Workload objects and pod groups in the queue and the snapshot",
    "TopologyAwareWorkloadScheduling": "pod groups placed within one topology domain",
    "WorkloadAwarePreemption": "preemption of whole pod groups",
    "TaintTolerationComparisonOperators": "tolerations with the Gt and Lt operators",
    "VolumeLimitScaling": "NodeVolumeLimits scaling CSI attach limits",
    "VolumeCapacityPriority": "VolumeBinding scoring nodes by the capacity of the volumes it would bind",
}


def spec_at(gate: str, minor: int) -> Optional[Spec]:
    """The spec of ``gate`` in Kubernetes 1.<minor>; None when that release does not know it."""
    current: Optional[Spec] = None
    for spec in FEATURE_SPECS.get(gate, ()):
        if spec.since > minor:
            break
        current = spec if isinstance(spec, Spec) else None
    return current


class FeatureGateError(ValueError):
    """``--feature-gates`` the release refuses; ``problems`` has one sentence per gate."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class FeatureGates:
    """The gates of one release with the overrides applied: ``enabled(name)`` as upstream asks."""

    release: Release
    values: Mapping[str, bool]
    overrides: Mapping[str, bool]  # what --feature-gates set, as given (empty: the release's defaults)

    def enabled(self, gate: str) -> bool:
        """Whether ``gate`` is on: its value in the release (a gate it never knew is off, its code absent;
        one it no longer knows is what its code kept)."""
        return self.values.get(gate, False)

    def known(self, gate: str) -> bool:
        return gate in self.values

    def differences_from_defaults(self) -> dict[str, bool]:
        return {gate: on for gate, on in self.overrides.items() if on != _defaults(self.release).get(gate)}


def _defaults(release: Release) -> dict[str, bool]:
    """Every gate's value in ``release``: its spec's default, or for a gate the release no longer
    knows, the behaviour its code kept."""
    defaults: dict[str, bool] = {}
    for gate, specs in FEATURE_SPECS.items():
        for spec in specs:
            if spec.since > release.minor:
                break
            defaults[gate] = spec.default if isinstance(spec, Spec) else spec.stays
    return defaults


def parse_feature_gates(text: str) -> dict[str, bool]:
    """``A=true,B=false`` (kube-scheduler's --feature-gates) -> {A: True, B: False}; FeatureGateError
    naming each malformed entry."""
    overrides: dict[str, bool] = {}
    problems: list[str] = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        name, sep, value = entry.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep or not name or value not in ("true", "false"):
            problems.append(
                f'missing bool value for {name or entry!r}: expected "Name=true" or "Name=false", got "{entry[:60]}"'
            )
            continue
        overrides[name] = value == "true"
    if problems:
        raise FeatureGateError(problems)
    return overrides


def feature_gates(release: Release, overrides: Optional[Mapping[str, bool]] = None) -> FeatureGates:
    """``release``'s gates with ``overrides`` applied; FeatureGateError for what the release refuses."""
    values = _defaults(release)
    overrides = dict(overrides or {})
    problems: list[str] = []
    for gate, on in overrides.items():
        spec = spec_at(gate, release.minor)
        if spec is None:
            problems.append(
                f"unrecognized feature gate: {gate} (not a gate of {release.name} that SchedLab models: "
                "the scheduler of that release does not read it)"
            )
            continue
        if spec.locked and on != spec.default:
            problems.append(
                f"cannot set feature gate {gate} to {str(on).lower()}, feature is locked to {str(spec.default).lower()}"
            )
            continue
        if gate in NOT_REPLAYED and on != spec.default:
            problems.append(
                f"SchedLab does not replay feature gate {gate}={str(on).lower()} ({release.name}'s scheduler then "
                f"changes this: {NOT_REPLAYED[gate]}); leave it at its default ({str(spec.default).lower()})"
            )
            continue
        values[gate] = on
    if release.minor >= DEPENDENCIES_CHECKED_SINCE:
        for gate, needs in DEPENDENCIES.items():
            if values.get(gate) and gate in overrides:
                off = [need for need in needs if not values.get(need)]
                if off:
                    problems.append(f"feature gate {gate} depends on {', '.join(off)}, which is disabled")
    if problems:
        raise FeatureGateError(problems)
    return FeatureGates(release, values, overrides)
