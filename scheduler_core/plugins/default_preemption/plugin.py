"""The DefaultPreemption plugin: the policy of preemption (defaultpreemption).

When no node fits, PostFilter asks the evaluator (``framework.preemption``) on which nodes
evicting lower-priority pods would make room, which pods those would be, and which node to
nominate. The plugin decides who may preempt at all, and (with SchedulerAsyncPreemption, on by
default in v1.35) keeps a preemptor out of the active queue while its victims are being deleted.
Deleting the victims is not done here: the result carries them, and the run loop carries the
preemption out (``prepareCandidateAsync``); a single-pass ``trace`` only reports it.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import nodes_available_message, reason_histogram
from scheduler_core.framework.interfaces import Handle, NodeToStatus, PostFilterResult
from scheduler_core.framework.preemption.candidates import (
    Candidate,
    DryRun,
    PreemptionRanking,
    best_candidates,
    dry_run_preemption,
    potential_nodes,
    rank_candidates,
)
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.preemption.victims import may_preempt
from scheduler_core.framework.status import Code, MaybeStatus, Status
from scheduler_core.model import Pod
from scheduler_core.plugins.default_preemption.args import DefaultPreemptionArgs
from scheduler_core.plugins.default_preemption.batch import NodeVerdictMemo, numeric_dry_run, numeric_dry_run_applies

PREEMPT_NEVER = "Never"
MESSAGE_PREFIX = "preemption: "
REASON_NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never."
REASON_TERMINATING_VICTIM = "not eligible due to a terminating pod on the nominated node."
REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_NO_NODES = "no nodes available"
REASON_WAITING = "waiting for the preemption for this pod to be finished"
# The trace's short reasons (``postFilter.reasons``) when preemption cannot help; the status
# carries the real message with the counts.
TRACE_NO_POTENTIAL_NODES = MESSAGE_PREFIX + "no potential nodes"
TRACE_NO_CANDIDATES = MESSAGE_PREFIX + "no candidates"


class DefaultPreemption:
    name: ClassVar[str] = names.DEFAULT_PREEMPTION

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle) -> None:
        self.args = args
        self._handle = handle
        # When candidates tie after every criterion the real evaluator picks at random. A single
        # pass reports the tie (``nominationTie``); a run to the end takes the first candidate in
        # node order (the timeline spec's rule), set by the run.
        self.break_ties_in_node_order = False
        # Evaluator.preempting / lastVictimsPendingPreemption: preemptor -> its last victim, once known.
        self.preempting: dict[str, Optional[Pod]] = {}
        # Explanations only (scheduler_core.filter_details): told each pick's ranking. Never set in a run.
        self.ranking_observer: Optional[Callable[[Pod, PreemptionRanking], None]] = None
        # The numeric dry run's per-node verdicts, kept across cycles (batch.NodeVerdictMemo).
        self._verdicts = NodeVerdictMemo()

    def post_filter(self, state: CycleState, pod: Pod,
                    statuses: NodeToStatus) -> tuple[Optional[PostFilterResult], Optional[Status]]:
        """Evaluator.Preempt up to the choice of a node; the result carries the victims to delete.

        Statuses carry the real reasons ("preemption: " + the evaluator's message); the result's
        ``summary`` is the trace's short form of the same outcome.
        """
        eligible, reason = self.eligible_to_preempt_others(pod, statuses)
        if not eligible:
            return None, Status.unschedulable(MESSAGE_PREFIX + reason)
        all_nodes = self._handle.snapshot.node_infos
        if not all_nodes:
            return None, Status.error(MESSAGE_PREFIX + REASON_NO_NODES)
        potential = potential_nodes(all_nodes, statuses)
        if not potential:
            return _not_helpful(len(all_nodes), DryRun(), TRACE_NO_POTENTIAL_NODES)
        dry_run = self._dry_run(state, pod, potential)
        if not dry_run.candidates:
            if dry_run.errors:
                return None, Status.error(MESSAGE_PREFIX + _aggregate(dry_run.errors))
            return _not_helpful(len(all_nodes), dry_run, TRACE_NO_CANDIDATES)
        return self._nomination(pod, dry_run.candidates), None

    def _dry_run(self, state: CycleState, pod: Pod, potential: list[NodeInfo]) -> DryRun:
        """DryRunPreemption: on numbers when only NodeResourcesFit decides (batch.py), else node by node."""
        framework, pdbs = self._handle.framework, self._handle.snapshot.pdbs
        checked = numeric_dry_run_applies(framework, state)
        if checked is not None:
            return numeric_dry_run(framework, state, pod, potential, checked, pdbs, self._verdicts)
        return dry_run_preemption(framework, state, pod, potential, pdbs)

    def eligible_to_preempt_others(self, pod: Pod, statuses: NodeToStatus) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: preemptionPolicy Never never preempts; a pod whose
        nominated node still runs a victim it preempted (terminating) waits for it, unless that
        node is now unresolvable for it."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, REASON_NOT_ELIGIBLE
        nominated = pod.nominated_node_name
        if nominated:
            if statuses.get(nominated).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self._handle.snapshot.get(nominated)
            if node_info is not None and any(
                    may_preempt(info.pod, pod) and _terminating_by_preemption(info.pod) for info in node_info.pods):
                return False, REASON_TERMINATING_VICTIM
        return True, ""

    def _nomination(self, pod: Pod, candidates: list[Candidate]) -> PostFilterResult:
        """SelectCandidate: a unique best node is nominated; a tie is the real scheduler's coin toss."""
        by_node = {c.node: c.victims.pod_keys for c in candidates}
        best = best_candidates(candidates)
        position = self._handle.snapshot.position
        if len(best) > 1 and not self.break_ties_in_node_order:
            self._tell_ranking(pod, candidates, None)
            return PostFilterResult(candidates=by_node, nomination_tie=True)
        chosen = min(best, key=lambda c: position[c.node])
        self._tell_ranking(pod, candidates, chosen.node)
        return PostFilterResult(nominated_node_name=chosen.node, candidates=by_node, victims=chosen.victims.pod_keys,
                                victim_pods=chosen.victims.pods)

    def _tell_ranking(self, pod: Pod, candidates: list[Candidate], chosen: Optional[str]) -> None:
        if self.ranking_observer is not None:
            position = self._handle.snapshot.position
            self.ranking_observer(pod, rank_candidates(candidates, chosen, lambda node: position[node]))

    # ------------------------------------------------------------------ async preemption

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        """Keeps a preemptor out of activeQ while its preemption's API calls are under way."""
        if self.is_pod_running_preemption(pod):
            return Status.unresolvable(REASON_WAITING)
        return None

    def is_pod_running_preemption(self, pod: Pod) -> bool:
        """IsPodRunningPreemption: running until its last victim is being deleted or is gone
        (a victim with a zero grace period is deleted at once)."""
        if pod.key not in self.preempting:
            return False
        last_victim = self.preempting[pod.key]
        return last_victim is None or not (last_victim.is_terminating or self._is_gone(last_victim))

    def _is_gone(self, victim: Pod) -> bool:
        """The pod lister no longer has the victim: it left its node in the cluster's state."""
        node_info = self._handle.snapshot.get(victim.node_name)
        return node_info is None or all(info.pod is not victim for info in node_info.pods)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deletion may end a preemption; the hint itself never requeues (the release's)."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), _never_after_deletion)]


def _never_after_deletion(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """isPodSchedulableAfterPodDeletion."""
    return QueueingHint.QUEUE_SKIP


def _terminating_by_preemption(pod: Pod) -> bool:
    """podTerminatingByPreemption: being deleted, with the scheduler's DisruptionTarget condition."""
    return pod.is_terminating and pod.preempted_by_scheduler


def _not_helpful(num_all_nodes: int, dry_run: DryRun, summary: str) -> tuple[PostFilterResult, Status]:
    """No candidate: the dry run's FitError (its per-node statuses, every other node "not helpful")
    and a result that clears the pod's nomination (NewPostFilterResultWithNominatedNode(""))."""
    counts = reason_histogram(num_all_nodes, dry_run.node_statuses, [REASON_NOT_HELPFUL])
    message = MESSAGE_PREFIX + nodes_available_message(num_all_nodes, ", ".join(counts))
    return PostFilterResult(nominated_node_name="", summary=summary), Status.unschedulable(message)


def _aggregate(errors: list[Status]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as is, several in brackets."""
    messages = [e.message for e in errors]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> DefaultPreemption:
    return DefaultPreemption(DefaultPreemptionArgs.parse(args), handle)
