"""The code changes between releases, each with the release that has it first."""

from __future__ import annotations

from dataclasses import fields

from scheduler_core.release.code import CODE_CHANGES, change_named, code_changes_in
from scheduler_core.release.rules import Features
from scheduler_core.release.versions import SUPPORTED_RELEASES, Release


def test_each_change_is_a_features_switch_and_names_its_upstream_change():
    switches = {f.name for f in fields(Features)}
    for change in CODE_CHANGES:
        assert change.name in switches
        assert change.upstream and change.what


def test_a_release_has_the_changes_of_its_own_and_older_releases():
    by_minor = {release.minor: code_changes_in(release) for release in SUPPORTED_RELEASES}
    single_pass = {
        32: set(),
        33: {
            "balanced_allocation_skips_best_effort",
            "volume_node_conflict_reason_reworded",
            "dra_allocator_all_mode_needs_a_device",
            "dra_post_filter_passes_pods_without_claims",
        },
        34: {
            "fit_unresolvable_beyond_allocatable",
            "taint_reason_without_taint",
            "read_write_once_pod_reason_reworded",
        },
        35: {"dynamic_resources_scores", "declared_features_plugin_registered", "dra_allocator_skips_unusable_pools"},
        36: {
            "balanced_allocation_scores_the_change",
            "claim_owner_message_capitalized",
            "dra_allocator_sorts_pools",
            "dra_score_reads_allocated_claims",
            "declared_features_reason_unnamed",
            "declared_features_user_namespaces_host_network",
        },
    }
    run_to_the_end = {
        32: set(),
        33: {
            "backoff_keeps_errors_apart",
            "nomination_changes_requeue",
            "pod_toleration_event_renamed",
            "pre_bind_after_done",
        },
        34: {
            "backoff_counts_rejections",
            "pre_enqueue_remembers_gating_plugin",
            "failure_nomination_follows_expectation",
        },
        35: {
            "pre_enqueue_skipped_leaving_backoff",
            "one_pod_informer_handler",
            "assumed_pod_deletion_forgets",
            "forget_absent_pod_succeeds",
            "no_post_filter_clears_nomination",
        },
        36: {"queue_signs_pods", "failure_patch_against_informer_pod", "parallel_pre_bind"},
    }
    preemption = {
        32: set(),
        33: set(),
        34: {"not_helpful_preemption_leaves_nomination_to_failure_handler", "default_preemption_registers_pod_delete"},
        35: {
            "preemption_skips_terminating_victims",
            "preemption_waits_for_last_victim",
            "preemption_tolerates_gone_victim",
        },
        36: {"preemption_cancels_pre_bind"},
    }
    cherry_picked = {34: {"recreated_pod_not_requeued"}, 36: {"recreated_pod_not_requeued"}}
    expected: set[str] = set()
    for minor in sorted(by_minor):
        expected |= single_pass[minor] | run_to_the_end[minor] | preemption[minor]
        expected -= {"failure_nomination_follows_expectation"} if minor >= 35 else set()  # v1.34 only
        expected -= {"dra_post_filter_passes_pods_without_claims"} if minor >= 34 else set()  # v1.33 only
        assert by_minor[minor] == expected | cherry_picked.get(minor, set()), minor
    assert change_named("balanced_allocation_scores_the_change").upstream == "kubernetes#135573"


def test_a_change_undone_later_is_only_in_the_releases_between():
    change = change_named("failure_nomination_follows_expectation")
    assert [r.minor for r in SUPPORTED_RELEASES if change.in_release(r)] == [34]


def test_a_cherry_pick_is_in_the_patch_releases_from_the_first_that_has_it():
    # kubernetes#138324: in v1.36, and picked onto v1.34 (v1.34.9 has it) and v1.35 (v1.35.6 has
    # it, the ported v1.35.4 not).
    change = change_named("recreated_pod_not_requeued")
    assert change.in_release(Release(36, 0)) and change.in_release(Release(34, 9))
    assert change.in_release(Release(35, 6)) and not change.in_release(Release(35, 4))
    assert not change.in_release(Release(34, 8)) and not change.in_release(Release(33, 13))
