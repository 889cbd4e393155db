"""What changed in the scheduler's code between releases without a feature gate.

Upstream changes some behaviour outright: a scoring formula, a status code, a message. Each such
change is one entry here — the release that first has it, what it does, and the upstream change
— and reaches the code that differs as one field of ``rules.Features`` (its ``name``), so the
plugins ask a switch by name as they ask a gate, and this table is the one place a reader finds
what each release changed. An entry is confirmed against the release trees (and, for those the
corpora show, by the release's own traces: the README of each ../shared/conformance-v1.32 .. v1.36 corpus).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from scheduler_core.release.versions import Release


@dataclass(frozen=True, slots=True)
class CodeChange:
    name: str  # the Features field that carries it
    since: int  # the first minor release whose code has it
    what: str  # what the change does, as a user reads it
    upstream: str  # the upstream change (pull request), or where the code is
    # Cherry picks onto older release branches: minor -> the first patch of it that has the change
    # (as far as the trees SchedLab reads show: a supported release older than that lacks it).
    backports: Mapping[int, int] = field(default_factory=dict)
    until: Optional[int] = None  # the first minor release whose code no longer has it (undone)

    def in_release(self, release: Release) -> bool:
        if self.until is not None and release.minor >= self.until:
            return False
        if self.since <= release.minor:
            return True
        first_patch = self.backports.get(release.minor)
        return first_patch is not None and release.patch >= first_patch


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
        "volume_node_conflict_reason_reworded",
        33,
        "VolumeBinding's reason for a bound volume whose node affinity rules a node out reads "
        '"node(s) didn\'t match PersistentVolume\'s node affinity" instead of "node(s) had volume node '
        'affinity conflict"',
        "volumebinding/binder.go: ErrReasonNodeConflict",
    ),
    CodeChange(
        "read_write_once_pod_reason_reworded",
        34,
        "VolumeRestrictions' reason for a ReadWriteOncePod claim already in use reads \"node(s) unavailable "
        'due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod" '
        'instead of "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"',
        "volumerestrictions/volume_restrictions.go: ErrReasonReadWriteOncePodConflict",
    ),
    CodeChange(
        "dra_allocator_skips_unusable_pools",
        35,
        "The DRA allocator passes over incomplete and invalid resource pools (an invalid one fails the "
        "node only when nothing could be allocated); before, an incomplete pool's devices are allocated "
        "and reaching an invalid pool fails the scheduling cycle",
        "dynamic-resource-allocation/structured/internal/*/allocator_*.go: allocateOne",
    ),
    CodeChange(
        "dra_allocator_all_mode_needs_a_device",
        33,
        "The DRA allocator fails a request of allocationMode All that no device matches; before, such "
        "a request is allocated with no device and the pod is scheduled",
        'dynamic-resource-allocation/structured/allocator.go: allocateOne ("At least one device is '
        "required for 'All' allocation mode\")",
    ),
    CodeChange(
        "dra_post_filter_passes_pods_without_claims",
        33,
        "DynamicResources' PostFilter answers a pod without resource claims Unschedulable with no "
        'reason (its FailedScheduling message has no "no new claims to deallocate,"); v1.34 reads the '
        "cycle's claims first again (extended resources may bring one)",
        "dynamicresources.go: PostFilter's fast path for len(pod.Spec.ResourceClaims) == 0",
        until=34,
    ),
    CodeChange(
        "dynamic_resources_scores",
        35,
        "DynamicResources is a Score plugin (weight 2 in the default profile), preferring nodes by "
        "the devices a claim's prioritized list would get",
        "apis/config/v1/default_plugins.go: applyDynamicResources",
    ),
    CodeChange(
        "declared_features_plugin_registered",
        35,
        "NodeDeclaredFeatures is in the in-tree registry, built disabled while its gate is off (its "
        "PreFilter skips every pod): a configuration may name it",
        "framework/plugins/registry.go: nodedeclaredfeatures.New",
    ),
    CodeChange(
        "declared_features_reason_unnamed",
        36,
        "NodeDeclaredFeatures' reason no longer names the missing features: \"node(s) didn't match Pod's "
        'required features" instead of "node declared features check failed - unsatisfied requirements: ..."',
        "nodedeclaredfeatures.go: errReasonUnsatisfiedRequirements (FeatureSet as a bitmap)",
    ),
    CodeChange(
        "declared_features_user_namespaces_host_network",
        36,
        "NodeDeclaredFeatures requires UserNamespacesHostNetworkSupport of a pod on the host network in "
        "its own user namespace (hostNetwork: true, hostUsers: false)",
        "component-helpers nodedeclaredfeatures/features/registry.go: usernamespaceshostnetwork.Feature",
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
        "claim_owner_message_capitalized",
        36,
        "DynamicResources' PreEnqueue and PreFilter say a template's claim the pod does not own \"was not "
        'created for Pod ns/name (Pod is not owner)", where v1.35 and before wrote "pod"',
        "dynamic-resource-allocation/resourceclaim/resourceclaim.go: IsForPod (rewritten with IsForPodGroup)",
    ),
    CodeChange(
        "dra_allocator_sorts_pools",
        36,
        "The structured allocator's incubating and experimental variants (v1.36 picks incubating while "
        "DRAConsumableCapacity or DRADeviceBindingConditions is on) try pools in (driver, pool name) order "
        "and a pool's slices in name order, and look for a request's next device after the one it took "
        "(combinations, not permutations: one request never takes a shared device twice); before, pools in "
        "Go map order, slices as listed, every device again",
        "dynamic-resource-allocation/structured/internal/incubating/pools_incubating.go: sortPoolsByID, "
        "sortSlicesByName; allocator_incubating.go: allocateOne's startLocation",
    ),
    CodeChange(
        "dra_score_reads_allocated_claims",
        36,
        "DynamicResources' Score reads an already allocated claim's own allocation and matches the "
        "claims it allocates in this cycle with the node's results in order; before, claim i was read "
        "against result i, and a pod with an allocated claim before an unallocated one failed Score "
        'with "number of allocations N is smaller than number of claims"',
        "dynamicresources.go computeScore (unallocatedIndex)",
        backports={35: 6},
    ),
    CodeChange(
        "balanced_allocation_scores_the_change",
        36,
        "NodeResourcesBalancedAllocation scores the change the pod makes to a node's balance: "
        "50 + (50 + score with the pod - score without it) / 2, not the balance with the pod alone",
        "kubernetes#135573",
    ),
    # ---------------------------------------------------------------- the run to the end: the queue
    CodeChange(
        "backoff_keeps_errors_apart",
        33,
        "backoffQ keeps the pods whose attempt ended in an error in a heap of their own "
        "(podErrorBackoffQ), flushed after the rejected pods' heap",
        "backend/queue/backoff_queue.go podErrorBackoffQ (KEP-5142)",
    ),
    CodeChange(
        "backoff_counts_rejections",
        34,
        "A pod's back-off doubles with its rejections (UnschedulableCount) or, after an error, its "
        "consecutive errors, not with every attempt (Attempts); podMaxBackoffSeconds 0 turns back-off off",
        "backend/queue/backoff_queue.go getBackoffTime (kubernetes#128748)",
    ),
    CodeChange(
        "pre_enqueue_remembers_gating_plugin",
        34,
        "The queue remembers which PreEnqueue plugin gates a pod (GatingPlugin): it runs that one first "
        "next time, and only the cluster events that plugin registered can move the gated pod; before, "
        "PreEnqueue ran in profile order and every event but a SchedulingGates gate looked at the pod",
        "backend/queue/scheduling_queue.go runPreEnqueuePlugins, movePodsToActiveOrBackoffQueue (kubernetes#127180)",
    ),
    CodeChange(
        "pre_enqueue_skipped_leaving_backoff",
        35,
        "With SchedulerPopFromBackoffQ, a pod moved straight from backoffQ to activeQ for any reason "
        "(an Activate too) skips PreEnqueue (it ran on the way in); before, only a completed back-off did",
        "backend/queue/scheduling_queue.go moveToActiveQ(movesFromBackoffQ)",
    ),
    CodeChange(
        "queue_signs_pods",
        36,
        "With OpportunisticBatching the queue signs a pod when it is added or updated in a queue "
        "(QueuedPodInfo.PodSignature), not the cycle when it starts: a pod updated while it is being "
        "scheduled keeps the signature it was popped with",
        "backend/queue/scheduling_queue.go signPod; schedule_one.go GetNodeHint(podInfo.PodSignature)",
    ),
    # ---------------------------------------------------------------- the event handlers
    CodeChange(
        "nomination_changes_requeue",
        33,
        "A pending pod whose nomination changes or clears, or that is deleted while nominated, moves "
        "the pods of lower or equal priority as an AssignedPodDelete would (the room it held is free)",
        "eventhandlers.go updatePodInSchedulingQueue, deletePodFromSchedulingQueue",
    ),
    CodeChange(
        "pod_toleration_event_renamed",
        33,
        'The event of a pod update that adds tolerations is labelled "UpdatePodToleration" '
        '(before, "UpdatePodTolerations"); the same events match',
        "framework/events.go extractPodTolerationChange",
    ),
    CodeChange(
        "one_pod_informer_handler",
        35,
        "One pod informer handler: a binding is the queue's Delete only; before, the unscheduled-pod "
        "handler saw a binding as a deletion and moved the lower or equal priority pods when the "
        "bound pod carried a nomination",
        "eventhandlers.go updatePod -> deletePodFromSchedulingQueue(pod, inBinding)",
    ),
    CodeChange(
        "assumed_pod_deletion_forgets",
        35,
        "A pod deleted (or marked for deletion) while its binding is under way is forgotten at once "
        "(its room freed, an AssignedPodDelete); before, it held its room until its binding failed",
        "eventhandlers.go handleAssumedPodDeletion",
    ),
    CodeChange(
        "forget_absent_pod_succeeds",
        35,
        "ForgetPod of a pod the cache no longer has succeeds, so a binding that fails after the pod "
        "was forgotten still moves the waiting pods (AssignedPodDelete); before, it was an error and nothing moved",
        "backend/cache/cache.go ForgetPod",
    ),
    # ---------------------------------------------------------------- scheduleOne
    CodeChange(
        "pre_bind_after_done",
        33,
        "The binding cycle tells the queue the pod is done before PreBind, and a PreBind rejection is "
        "returned as it is; before, Done came after PreBind and a rejection became a FitError over "
        "the chosen node (its plugin among the unschedulable plugins)",
        "schedule_one.go bindingCycle",
    ),
    CodeChange(
        "failure_nomination_follows_expectation",
        34,
        "With NominatedNodeNameForExpectation on, a failed attempt leaves the pod's nomination as it "
        "is (newFailureNominatingInfo); off (the v1.34 default) it clears it, as every other release does",
        "schedule_one.go newFailureNominatingInfo (v1.34 only)",
        until=35,
    ),
    CodeChange(
        "no_post_filter_clears_nomination",
        35,
        "A profile without PostFilter plugins clears the nomination of a pod that fits nowhere; before, "
        "the nomination was left as it was",
        "schedule_one.go schedulingCycle (nominatingInfo: clearNominatedNode)",
    ),
    CodeChange(
        "recreated_pod_not_requeued",
        36,
        "A pod deleted and made again under the same name while its attempt failed is left alone by "
        "the failure handler (the new pod is queued by its own Add): no requeue, nomination or status patch",
        "kubernetes#138324",
        backports={34: 9, 35: 6},
    ),
    CodeChange(
        "failure_patch_against_informer_pod",
        36,
        "The failure handler patches the pod's status against the informer's current object; before, "
        "against the copy popped from the queue",
        "schedule_one.go handleSchedulingFailure (pod = podInfo.Pod after NewPodInfo(cachedPod))",
    ),
    CodeChange(
        "parallel_pre_bind",
        36,
        "With PreBindPreFlight (NominatedNodeNameForExpectation), the PreBind plugins that allow it "
        "(VolumeBinding, DynamicResources) run side by side: each makes its API writes, the first "
        "failure is the result; before, PreBind stopped at the first failure",
        "framework/runtime/framework.go getPreBindPluginGroups (kubernetes#135393)",
    ),
)


def code_changes_in(release: Release) -> frozenset[str]:
    """The names of the code changes ``release`` has."""
    return frozenset(change.name for change in CODE_CHANGES if change.in_release(release))


def change_named(name: str) -> CodeChange:
    for change in CODE_CHANGES:
        if change.name == name:
            return change
    raise KeyError(name)
