"""The preemption evaluator (framework/preemption/preemption.go's Evaluator).

``preempt`` is Evaluator.Preempt: is the pod eligible (the policy says), which potential nodes
could make room (the policy's dry run over them), which candidate wins (SelectCandidate), and,
with SchedulerAsyncPreemption, the start of the victims' deletion (prepareCandidateAsync). The
evaluator owns the set of preemptors whose deletions are under way (``preempting``, with the last
victim each waits for): IsPodRunningPreemption reads it. A plugin such as DefaultPreemption keeps
only its policy (``PreemptionPolicy``: PodEligibleToPreemptOthers, SelectVictimsOnNode over the
potential nodes) and builds its evaluator with the framework's options.
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional, Protocol

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import nodes_available_message, reason_histogram
from scheduler_core.framework.interfaces import Handle, NodeToStatus, PostFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.options import PreemptionAPI, RunEvent
from scheduler_core.framework.preemption.candidates import (
    Candidate,
    DryRun,
    PreemptionRanking,
    best_candidates,
    potential_nodes,
    rank_candidates,
)
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod

MESSAGE_PREFIX = "preemption: "
REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_NO_NODES = "no nodes available"
# The trace's short reasons (``postFilter.reasons``) when preemption cannot help; the status
# carries the real message with the counts.
TRACE_NO_POTENTIAL_NODES = MESSAGE_PREFIX + "no potential nodes"
TRACE_NO_CANDIDATES = MESSAGE_PREFIX + "no candidates"


class PreemptionPolicy(Protocol):
    """preemption.Interface: what a preemption plugin decides for the evaluator."""

    def eligible_to_preempt_others(self, pod: Pod, statuses: NodeToStatus) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: (eligible, the reason when not)."""

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential: list[NodeInfo]) -> DryRun:
        """SelectVictimsOnNode on every potential node: the candidates, each other node's status."""


class Evaluator:
    def __init__(self, handle: Handle, policy: PreemptionPolicy) -> None:
        # The handle's options say how ties are broken and where the goroutine writes (a
        # configuration being validated builds its plugins without a handle: they are read on use).
        self._handle = handle
        self._policy = policy
        # preempting / lastVictimsPendingPreemption: preemptor -> its last victim, once known.
        self.preempting: dict[str, Optional[Pod]] = {}
        # Explanations only (scheduler_core.answers.filter_details): told each pick's ranking. Never set in a run.
        self.ranking_observer: Optional[Callable[[Pod, PreemptionRanking], None]] = None

    # ------------------------------------------------------------------ Preempt

    def preempt(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[Optional[PostFilterResult], MaybeStatus]:
        """Evaluator.Preempt: the result nominates a node and carries its victims.

        Statuses carry the real reasons ("preemption: " + the evaluator's message); the result's
        ``summary`` is the trace's short form of the same outcome."""
        eligible, reason = self._policy.eligible_to_preempt_others(pod, statuses)
        if not eligible:
            return None, Status.unschedulable(MESSAGE_PREFIX + reason)
        all_nodes = self._handle.snapshot.node_infos
        if not all_nodes:
            return None, Status.error(MESSAGE_PREFIX + REASON_NO_NODES)
        potential = potential_nodes(all_nodes, statuses)
        if not potential:
            return _not_helpful(len(all_nodes), DryRun(), TRACE_NO_POTENTIAL_NODES)
        dry_run = self._policy.dry_run_preemption(state, pod, potential)
        if not dry_run.candidates:
            if dry_run.errors:
                return None, Status.error(MESSAGE_PREFIX + _aggregate(dry_run.errors))
            return _not_helpful(len(all_nodes), dry_run, TRACE_NO_CANDIDATES)
        result = self.select_candidate(pod, dry_run.candidates)
        if result.nominates and self._handle.options.preemption_api is not None:
            self._prepare_candidate_async(pod, result.nominated_node_name or "", list(result.victim_pods))
        return result, None

    def select_candidate(self, pod: Pod, candidates: list[Candidate]) -> PostFilterResult:
        """SelectCandidate: a unique best node is nominated; a tie is the real scheduler's coin toss."""
        by_node = {c.node: c.victims.pod_keys for c in candidates}
        best = best_candidates(candidates)
        position = self._handle.snapshot.position
        if len(best) > 1 and not self._handle.options.preemption_ties_in_node_order:
            self._tell_ranking(pod, candidates, None)
            return PostFilterResult(candidates=by_node, nomination_tie=True)
        chosen = min(best, key=lambda c: position[c.node])
        self._tell_ranking(pod, candidates, chosen.node)
        return PostFilterResult(
            nominated_node_name=chosen.node,
            candidates=by_node,
            victims=chosen.victims.pod_keys,
            victim_pods=chosen.victims.pods,
        )

    def _tell_ranking(self, pod: Pod, candidates: list[Candidate], chosen: Optional[str]) -> None:
        if self.ranking_observer is not None:
            position = self._handle.snapshot.position
            self.ranking_observer(pod, rank_candidates(candidates, chosen, lambda node: position[node]))

    # ------------------------------------------------------------------ the victims' deletion

    def _prepare_candidate_async(self, pod: Pod, node: str, victims: list[Pod]) -> None:
        """prepareCandidateAsync: victims already being deleted get no API call; with any left the
        pod is marked as preempting at once (PreEnqueue keeps it out of activeQ), and a goroutine
        clears the lower-priority nominations on the node and deletes the victims."""
        to_delete = [victim for victim in victims if not victim.is_terminating]
        api = self._handle.options.preemption_api  # None: a dry run, nothing is deleted
        if not to_delete or api is None:
            return
        self.preempting[pod.key] = None
        nominees: list[Pod] = []
        api.go(
            lambda: nominees.extend(api.lower_priority_nominated_pods(pod, node)),
            lambda: self._preempt_victims(api, pod, nominees, to_delete),
        )

    def _preempt_victims(
        self, api: PreemptionAPI[RunEvent], pod: Pod, nominees: list[Pod], to_delete: list[Pod]
    ) -> Iterator[RunEvent]:
        """The goroutine's API calls: lower-priority nominations on the node are cleared, the last
        victim is remembered, every victim is preempted; then the preemption is over."""
        for nominee in nominees:
            yield from api.clear_nominated_node_name(nominee)
        self.preempting[pod.key] = to_delete[-1]
        deleted = yield from api.preempt_pods(pod, to_delete)
        del self.preempting[pod.key]
        yield from api.preemption_done(pod, deleted)

    def is_pod_running_preemption(self, pod: Pod) -> bool:
        """IsPodRunningPreemption: running until its last victim is being deleted or is gone
        (a victim with a zero grace period is deleted at once), as the pod lister has it now."""
        if pod.key not in self.preempting:
            return False
        last_victim = self.preempting[pod.key]
        if last_victim is None:
            return True
        current = self._current(last_victim)
        return current is not None and not current.is_terminating

    def _current(self, victim: Pod) -> Optional[Pod]:
        """The victim's version in the scheduler's cache (None: it left its node)."""
        node_info = self._handle.snapshot.get(victim.node_name)
        if node_info is None:
            return None
        return next((info.pod for info in node_info.pods if info.pod.key == victim.key), None)


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
