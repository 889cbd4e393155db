"""The code changes between releases, each with the release that has it first."""

from __future__ import annotations

from dataclasses import fields

from scheduler_core.release.code import CODE_CHANGES, change_named, code_changes_in
from scheduler_core.release.rules import Features
from scheduler_core.release.versions import SUPPORTED_RELEASES


def test_each_change_is_a_features_switch_and_names_its_upstream_change():
    switches = {f.name for f in fields(Features)}
    for change in CODE_CHANGES:
        assert change.name in switches
        assert change.upstream and change.what


def test_a_release_has_the_changes_of_its_own_and_older_releases():
    by_minor = {release.minor: code_changes_in(release) for release in SUPPORTED_RELEASES}
    assert by_minor[32] == frozenset()
    assert by_minor[33] == {"balanced_allocation_skips_best_effort"}
    assert by_minor[34] == by_minor[33] | {
        "fit_unresolvable_beyond_allocatable",
        "taint_reason_without_taint",
        "not_helpful_preemption_leaves_nomination_to_failure_handler",
        "default_preemption_registers_pod_delete",
    }
    assert by_minor[35] == by_minor[34] | {
        "dynamic_resources_scores",
        "preemption_skips_terminating_victims",
        "preemption_waits_for_last_victim",
        "preemption_tolerates_gone_victim",
    }
    assert by_minor[36] == by_minor[35] | {"balanced_allocation_scores_the_change", "preemption_cancels_pre_bind"}
    assert change_named("balanced_allocation_scores_the_change").upstream == "kubernetes#135573"
