"""The preemption evaluator (framework/preemption/preemption.go's Evaluator).

``preempt`` is Evaluator.Preempt: is the pod eligible (the policy says), which potential nodes
could make room (the policy's dry run over them), which candidate wins (SelectCandidate), then the
victims' preemption, which its executor carries out (prepareCandidate in the cycle, or
prepareCandidateAsync's goroutine: executor.py, with the preemptions under way that
IsPodRunningPreemption reads). A plugin such as DefaultPreemption keeps only its policy
(``PreemptionPolicy``: PodEligibleToPreemptOthers, SelectVictimsOnNode over the potential nodes)
and builds its evaluator with the framework's options and the release's features.

Before v1.34 (``not_helpful_preemption_leaves_nomination_to_failure_handler`` off), a pod no node
could be helped for has its nomination cleared by PostFilter itself, a status patch made in the
cycle; from v1.34 only the failure handler's patch clears it.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Callable, Optional, Protocol

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import grouped_histogram, nodes_available_message
from scheduler_core.framework.interfaces import Handle, NodeToStatus, PostFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.preemption.candidates import (
    Candidate,
    DryRun,
    PreemptionRanking,
    best_candidates,
    potential_nodes,
    rank_candidates,
)
from scheduler_core.framework.preemption.executor import Executor
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod
from scheduler_core.release import DEFAULT_RULES, Features

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
    def __init__(
        self,
        handle: Handle,
        policy: PreemptionPolicy,
        features: Features = DEFAULT_RULES.features,
        executor: Optional[Executor] = None,
    ) -> None:
        # The handle's options say how ties are broken and where the victims' calls go (a
        # configuration being validated builds its plugins without a handle: they are read on use).
        self._handle = handle
        self._policy = policy
        self._features = features
        self.executor = executor if executor is not None else Executor(handle, features)
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
            if not self._features.not_helpful_preemption_leaves_nomination_to_failure_handler:
                self.executor.clear_nomination_now(pod)  # findCandidates' util.ClearNominatedNodeName
            return _not_helpful(len(all_nodes), DryRun(), TRACE_NO_POTENTIAL_NODES)
        dry_run = self._policy.dry_run_preemption(state, pod, potential)
        if not dry_run.candidates:
            if dry_run.errors:
                return None, Status.error(MESSAGE_PREFIX + _aggregate(dry_run.errors))
            return _not_helpful(len(all_nodes), dry_run, TRACE_NO_CANDIDATES)
        result = self.select_candidate(pod, dry_run.candidates)
        if result.nominates:
            failed = self.executor.actuate(pod, result.nominated_node_name or "", result.victim_pods)
            if failed is not None:
                return None, Status.error(MESSAGE_PREFIX + failed.message)
        return result, None

    def select_candidate(self, pod: Pod, candidates: list[Candidate]) -> PostFilterResult:
        """SelectCandidate: a unique best node is nominated; a tie is the real scheduler's coin toss."""
        # pod_keys' list, for thousands of candidates: gathered at C speed
        by_node = dict(zip(map(_NODE, candidates), map(_KEY_LIST, candidates)))
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


_NODE = attrgetter("node")
_KEY_LIST = attrgetter("key_list")


def _not_helpful(num_all_nodes: int, dry_run: DryRun, summary: str) -> tuple[PostFilterResult, Status]:
    """No candidate: the dry run's FitError (its per-node statuses, every other node "not helpful")
    and a result that clears the pod's nomination (NewPostFilterResultWithNominatedNode(""))."""
    counts = grouped_histogram(num_all_nodes, dry_run.status_groups(), len(dry_run.node_statuses), [REASON_NOT_HELPFUL])
    message = MESSAGE_PREFIX + nodes_available_message(num_all_nodes, ", ".join(counts))
    return PostFilterResult(nominated_node_name="", summary=summary), Status.unschedulable(message)


def _aggregate(errors: list[Status]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as is, several in brackets."""
    messages = [e.message for e in errors]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
