"""What changed in the scheduler's code between releases without a feature gate.

Upstream changes some behaviour outright: a scoring formula, a status code, a message. Each such
change is one entry here — the release that first has it, what it does, and the upstream change
— and reaches the code that differs as one field of ``rules.Features`` (its ``name``), so the
plugins ask a switch by name as they ask a gate, and this table is the one place a reader finds
what each release changed. An entry is confirmed against the release trees (and, for those the
corpora show, by the release's own traces: ../shared/conformance-v1.3X/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler_core.release.versions import Release


@dataclass(frozen=True, slots=True)
class CodeChange:
    name: str  # the Features field that carries it
    since: int  # the first minor release whose code has it
    what: str  # what the change does, as a user reads it
    upstream: str  # the upstream change (pull request), or where the code is


CODE_CHANGES: tuple[CodeChange, ...] = (
    CodeChange(
        "balanced_allocation_skips_best_effort",
        33,
        "NodeResourcesBalancedAllocation skips (at PreScore) a pod that requests none of its resources",
        "kubernetes#130260",
    ),
    CodeChange(
        "fit_unresolvable_beyond_allocatable",
        34,
        "NodeResourcesFit answers UnschedulableAndUnresolvable when a request exceeds the node's "
        "allocatable (no preemption can help there), Unschedulable otherwise",
        "noderesources/fit.go: InsufficientResource.Unresolvable",
    ),
    CodeChange(
        "taint_reason_without_taint",
        34,
        'TaintToleration\'s reason no longer names the taint: "node(s) had untolerated taint(s)" '
        'instead of "node(s) had untolerated taint {key: value}"',
        "kubernetes#134740 (v1.35), kubernetes#135023 (its v1.34 backport)",
    ),
    CodeChange(
        "dynamic_resources_scores",
        35,
        "DynamicResources is a Score plugin (weight 2 in the default profile), preferring nodes by "
        "the devices a claim's prioritized list would get",
        "apis/config/v1/default_plugins.go: applyDynamicResources",
    ),
    # Preemption (framework/preemption, plugins/default_preemption): how the chosen candidate is
    # carried out. Whether it is carried out in the cycle or by a goroutine is the
    # SchedulerAsyncPreemption gate's (features.enable_async_preemption).
    CodeChange(
        "not_helpful_preemption_leaves_nomination_to_failure_handler",
        34,
        "When preemption cannot help on any node, PostFilter no longer clears the preemptor's "
        "nomination itself with a status patch: the failure handler's patch clears it, after the cycle",
        "kubernetes#131278",
    ),
    CodeChange(
        "default_preemption_registers_pod_delete",
        34,
        "DefaultPreemption registers Pod/Delete (a hint that never queues) while asynchronous preemption "
        "is on, so a preemptor its PreEnqueue holds back is looked at again on a pod's deletion; before, "
        "it registered no event",
        "framework/plugins/defaultpreemption/default_preemption.go: EventsToRegister",
    ),
    CodeChange(
        "preemption_skips_terminating_victims",
        35,
        "Preemption makes no API call for a victim already being deleted; when every victim is, no "
        "goroutine starts: the preemptor is not held back and lower-priority nominations on the node stay",
        "kubernetes#134927",
    ),
    CodeChange(
        "preemption_waits_for_last_victim",
        35,
        "An asynchronous preemption holds its preemptor back until its last victim is being deleted "
        "(lastVictimsPendingPreemption); before, the preemptor was let go just before the last victim's "
        "API calls were made",
        "kubernetes#134730",
    ),
    CodeChange(
        "preemption_tolerates_gone_victim",
        35,
        "A victim already gone when its DisruptionTarget condition is patched counts as preempted; before, "
        "the NotFound failed the preemption (in the cycle: an Error status; in the goroutine: the "
        "remaining calls are cancelled and the preemptor is activated)",
        "framework/preemption/preemption.go: PreemptPod, IsNotFound on the status patch",
    ),
    CodeChange(
        "preemption_cancels_pre_bind",
        36,
        "A victim in PreBind has its binding cancelled instead of being deleted, and a victim waiting at "
        "Permit is deleted when it cannot be preempted in memory",
        "kubernetes#135502, kubernetes#135719",
    ),
    CodeChange(
        "balanced_allocation_scores_the_change",
        36,
        "NodeResourcesBalancedAllocation scores the change the pod makes to a node's balance: "
        "50 + (50 + score with the pod - score without it) / 2, not the balance with the pod alone",
        "kubernetes#135573",
    ),
)


def code_changes_in(release: Release) -> frozenset[str]:
    """The names of the code changes ``release`` has."""
    return frozenset(change.name for change in CODE_CHANGES if change.since <= release.minor)


def change_named(name: str) -> CodeChange:
    for change in CODE_CHANGES:
        if change.name == name:
            return change
    raise KeyError(name)
