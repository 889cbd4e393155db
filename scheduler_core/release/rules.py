"""The one value a replay takes: the release, its feature gates, and what the plugins read of them.

``Rules`` is handed to everything that schedules (the scheduler's frameworks, the queue, the
cycle, the stand-in controllers). Plugins read ``rules.features`` — upstream's
``plugins/feature.Features``, which ``NewInTreeRegistry`` hands every plugin factory — extended
with the code changes of ``code.py``, each a switch by name. The scheduler's own code (queue,
scheduleOne, preemption) asks ``rules.gates.enabled(...)`` as upstream asks
``utilfeature.DefaultFeatureGate``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Optional

from scheduler_core.release.code import CODE_CHANGES, code_changes_in
from scheduler_core.release.gates import FeatureGates, feature_gates, spec_at
from scheduler_core.release.versions import DEFAULT_RELEASE, Release


@dataclass(frozen=True, slots=True)
class Features:
    """What the plugins read (plugins/feature/feature.go's Features, in snake case), plus the
    release's code changes (release/code.py) by name."""

    enable_dynamic_resource_allocation: bool
    enable_dra_admin_access: bool
    enable_dra_prioritized_list: bool
    enable_dra_device_taints: bool
    enable_dra_device_taint_rules: bool
    enable_dra_partitionable_devices: bool
    enable_dra_consumable_capacity: bool
    enable_dra_device_binding_conditions: bool
    enable_dra_resource_claim_device_status: bool
    enable_dra_scheduler_filter_timeout: bool
    enable_dra_extended_resource: bool
    enable_dra_list_type_attributes: bool
    enable_scheduling_queue_hint: bool
    enable_async_preemption: bool
    enable_pod_level_resources: bool
    enable_in_place_pod_vertical_scaling: bool
    enable_in_place_pod_level_resources_vertical_scaling: bool
    enable_sidecar_containers: bool
    enable_node_inclusion_policy_in_pod_topology_spread: bool
    enable_match_label_keys_in_pod_topology_spread: bool
    enable_volume_attributes_class: bool
    enable_storage_capacity_scoring: bool
    enable_node_declared_features: bool
    enable_taint_toleration_comparison_operators: bool
    # code changes (release/code.py)
    balanced_allocation_skips_best_effort: bool
    fit_unresolvable_beyond_allocatable: bool
    taint_reason_without_taint: bool
    volume_node_conflict_reason_reworded: bool
    read_write_once_pod_reason_reworded: bool
    dra_allocator_skips_unusable_pools: bool
    dra_allocator_all_mode_needs_a_device: bool
    dra_post_filter_passes_pods_without_claims: bool
    dynamic_resources_scores: bool
    claim_owner_message_capitalized: bool
    dra_allocator_sorts_pools: bool
    dra_score_reads_allocated_claims: bool
    balanced_allocation_scores_the_change: bool
    declared_features_plugin_registered: bool
    declared_features_reason_unnamed: bool
    declared_features_user_namespaces_host_network: bool
    # code changes of the run to the end: the queue, the event handlers, scheduleOne
    backoff_keeps_errors_apart: bool
    backoff_counts_rejections: bool
    pre_enqueue_remembers_gating_plugin: bool
    pre_enqueue_skipped_leaving_backoff: bool
    queue_signs_pods: bool
    nomination_changes_requeue: bool
    pod_toleration_event_renamed: bool
    one_pod_informer_handler: bool
    assumed_pod_deletion_forgets: bool
    forget_absent_pod_succeeds: bool
    pre_bind_after_done: bool
    failure_nomination_follows_expectation: bool
    no_post_filter_clears_nomination: bool
    recreated_pod_not_requeued: bool
    failure_patch_against_informer_pod: bool
    parallel_pre_bind: bool
    # code changes of preemption (release/code.py)
    not_helpful_preemption_leaves_nomination_to_failure_handler: bool
    default_preemption_registers_pod_delete: bool
    preemption_skips_terminating_victims: bool
    preemption_waits_for_last_victim: bool
    preemption_tolerates_gone_victim: bool
    preemption_cancels_pre_bind: bool

    @classmethod
    def of(cls, gates: FeatureGates) -> "Features":
        on = gates.enabled
        changes = code_changes_in(gates.release)
        return cls(
            enable_dynamic_resource_allocation=on("DynamicResourceAllocation"),
            enable_dra_admin_access=on("DRAAdminAccess"),
            enable_dra_prioritized_list=on("DRAPrioritizedList"),
            enable_dra_device_taints=on("DRADeviceTaints"),
            enable_dra_device_taint_rules=on("DRADeviceTaintRules"),
            enable_dra_partitionable_devices=on("DRAPartitionableDevices"),
            enable_dra_consumable_capacity=on("DRAConsumableCapacity"),
            enable_dra_device_binding_conditions=on("DRADeviceBindingConditions"),
            enable_dra_resource_claim_device_status=on("DRAResourceClaimDeviceStatus"),
            enable_dra_scheduler_filter_timeout=on("DRASchedulerFilterTimeout"),
            enable_dra_extended_resource=on("DRAExtendedResource"),
            enable_dra_list_type_attributes=on("DRAListTypeAttributes"),
            enable_scheduling_queue_hint=on("SchedulerQueueingHints"),
            enable_async_preemption=on("SchedulerAsyncPreemption"),
            enable_pod_level_resources=on("PodLevelResources"),
            enable_in_place_pod_vertical_scaling=on("InPlacePodVerticalScaling"),
            enable_in_place_pod_level_resources_vertical_scaling=on("InPlacePodLevelResourcesVerticalScaling"),
            enable_sidecar_containers=on("SidecarContainers"),
            enable_node_inclusion_policy_in_pod_topology_spread=on("NodeInclusionPolicyInPodTopologySpread"),
            enable_match_label_keys_in_pod_topology_spread=on("MatchLabelKeysInPodTopologySpread"),
            enable_volume_attributes_class=on("VolumeAttributesClass"),
            enable_storage_capacity_scoring=on("StorageCapacityScoring"),
            enable_node_declared_features=on("NodeDeclaredFeatures"),
            enable_taint_toleration_comparison_operators=on("TaintTolerationComparisonOperators"),
            # each code change of release/code.py is the field of its name, on in the releases that have it
            **{change.name: change.name in changes for change in CODE_CHANGES},
        )


@dataclass(frozen=True, slots=True)
class Rules:
    """A release with its feature gates: everything a replay needs to follow that release."""

    release: Release
    gates: FeatureGates
    features: Features

    @property
    def name(self) -> str:
        """``v1.36.3``, with ``+gates`` when --feature-gates changed a default."""
        changed = self.gates.differences_from_defaults()
        return self.release.version + (
            " with " + ",".join(f"{g}={str(v).lower()}" for g, v in changed.items()) if changed else ""
        )


def rules_for(release: Release, gate_overrides: Optional[Mapping[str, bool]] = None) -> Rules:
    """The rules of ``release`` with kube-scheduler's ``--feature-gates`` (FeatureGateError if refused)."""
    if not gate_overrides:
        cached = _CACHE.get(release)
        if cached is not None:
            return cached
    gates = feature_gates(release, gate_overrides)
    rules = Rules(release, gates, Features.of(gates))
    if not gate_overrides:
        _CACHE[release] = rules
    return rules


_CACHE: dict[Release, Rules] = {}
DEFAULT_RULES = rules_for(DEFAULT_RELEASE)


@dataclass(frozen=True, slots=True)
class Switch:
    """One thing two releases' rules set differently: a feature gate, or a code change."""

    kind: str  # "gate" or "code"
    name: str  # the gate's name, or the code change's (a Features field)
    old: bool  # its value in the older rules
    new: bool  # its value in the newer rules
    what: str  # what it is, as a user reads it
    upstream: str = ""  # the upstream change, for a code change

    def sentence(self) -> str:
        if self.kind == "gate":
            return (
                f"feature gate {self.name} {'on' if self.new else 'off'} (was {'on' if self.old else 'off'}){self.what}"
            )
        return f"{self.what} ({self.upstream})"


def switches_between(old: Rules, new: Rules) -> list[Switch]:
    """Every gate and code change ``old`` and ``new`` set differently, gates first (by name)."""
    found: list[Switch] = []
    for gate in sorted(set(old.gates.values) | set(new.gates.values)):
        before, after = old.gates.enabled(gate), new.gates.enabled(gate)
        if before != after:
            spec = spec_at(gate, new.release.minor) or spec_at(gate, old.release.minor)
            stage = f": {spec.stage.value} in {new.release.name}" if spec is not None else ""
            found.append(Switch("gate", gate, before, after, stage))
    for change in CODE_CHANGES:
        before, after = getattr(old.features, change.name), getattr(new.features, change.name)
        if before != after:
            found.append(Switch("code", change.name, before, after, change.what, change.upstream))
    return found


def with_switch(rules: Rules, switch: Switch, value: bool) -> Rules:
    """``rules`` with one switch set to ``value`` — for finding what a difference between two
    releases comes from, not for replaying a cluster (no release runs with this mix, so no
    --feature-gates validation applies)."""
    if switch.kind == "gate":
        values = dict(rules.gates.values)
        values[switch.name] = value
        gates = FeatureGates(rules.release, values, {**rules.gates.overrides, switch.name: value})
        features = Features.of(gates)
        # the code changes stay the release's own
        kept = {change.name: getattr(rules.features, change.name) for change in CODE_CHANGES}
        return Rules(rules.release, gates, replace(features, **kept))
    return Rules(rules.release, rules.gates, replace(rules.features, **{switch.name: value}))
