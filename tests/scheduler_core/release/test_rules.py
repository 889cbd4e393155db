"""The rules of a release: its gates and the plugins' Features."""

from __future__ import annotations

from scheduler_core.release.rules import DEFAULT_RULES, rules_for
from scheduler_core.release.versions import SUPPORTED_RELEASES


def _release(minor):
    return next(r for r in SUPPORTED_RELEASES if r.minor == minor)


def test_the_default_rules_are_v1_35_4_with_its_defaults():
    assert DEFAULT_RULES.release.version == "v1.35.4"
    assert DEFAULT_RULES.name == "v1.35.4"
    assert DEFAULT_RULES.features.enable_dynamic_resource_allocation
    assert DEFAULT_RULES.features.dynamic_resources_scores
    assert not DEFAULT_RULES.features.balanced_allocation_scores_the_change


def test_features_follow_the_gates_and_the_code_changes():
    v132 = rules_for(_release(32)).features
    assert not v132.enable_dynamic_resource_allocation
    assert not v132.enable_async_preemption
    assert not v132.enable_pod_level_resources
    assert not v132.balanced_allocation_skips_best_effort
    v136 = rules_for(_release(36)).features
    assert v136.enable_dra_device_taints and v136.enable_node_declared_features
    assert v136.balanced_allocation_scores_the_change


def test_gates_given_change_the_features_and_the_name():
    rules = rules_for(_release(33), {"DynamicResourceAllocation": True})
    assert rules.features.enable_dynamic_resource_allocation
    assert rules.name == "v1.33.13 with DynamicResourceAllocation=true"


def test_rules_without_overrides_are_made_once_per_release():
    assert rules_for(_release(34)) is rules_for(_release(34))


def test_the_run_to_the_end_reads_its_code_changes_from_the_features():
    v134, v135 = rules_for(_release(34)).features, rules_for(_release(35)).features
    assert v134.recreated_pod_not_requeued and not v135.recreated_pod_not_requeued  # v1.34.9 has the pick
    assert v135.no_post_filter_clears_nomination and not v134.no_post_filter_clears_nomination
    assert not rules_for(_release(32)).gates.enabled("SchedulerPopFromBackoffQ")
