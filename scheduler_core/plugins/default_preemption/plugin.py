"""The DefaultPreemption plugin: a PostFilter dry run of preemption (defaultpreemption + preemption).

When no node fits, it asks on which nodes evicting lower-priority pods would make room, which pods
those would be, and which node the real plugin would nominate. Nothing is evicted: the outcome
goes to the trace (``postFilter``) and to the FailedScheduling message's preemption part.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import nodes_available_message, reason_histogram
from scheduler_core.framework.interfaces import Handle, NodeToStatus, PostFilterResult
from scheduler_core.framework.status import Status
from scheduler_core.model import Pod
from scheduler_core.plugins.default_preemption.args import DefaultPreemptionArgs
from scheduler_core.plugins.default_preemption.candidates import (
    Candidate,
    DryRun,
    best_candidates,
    dry_run_preemption,
    potential_nodes,
)

PREEMPT_NEVER = "Never"
MESSAGE_PREFIX = "preemption: "
REASON_NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never."
REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_NO_NODES = "no nodes available"
# The trace's short reasons when preemption cannot help (the message carries the counts).
TRACE_NO_POTENTIAL_NODES = MESSAGE_PREFIX + "no potential nodes"
TRACE_NO_CANDIDATES = MESSAGE_PREFIX + "no candidates"


class DefaultPreemption:
    name: ClassVar[str] = names.DEFAULT_PREEMPTION

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle) -> None:
        self.args = args
        self._handle = handle

    def post_filter(self, state: CycleState, pod: Pod,
                    statuses: NodeToStatus) -> tuple[Optional[PostFilterResult], Optional[Status]]:
        """Evaluator.Preempt, up to the nomination (prepareCandidate, the eviction, is left out)."""
        if not eligible_to_preempt(pod):
            message = MESSAGE_PREFIX + REASON_NOT_ELIGIBLE
            return PostFilterResult(message=message), Status.unschedulable(message)
        all_nodes = self._handle.snapshot.node_infos
        if not all_nodes:
            return None, Status.error(MESSAGE_PREFIX + REASON_NO_NODES)
        potential = potential_nodes(all_nodes, statuses)
        if not potential:
            message = _not_helpful_message(len(all_nodes), DryRun())
            return PostFilterResult(message=message), Status.unschedulable(TRACE_NO_POTENTIAL_NODES)
        dry_run = dry_run_preemption(self._handle.framework, state, pod, potential)
        if not dry_run.candidates:
            if dry_run.errors:
                return None, Status.error(MESSAGE_PREFIX + _aggregate(dry_run.errors))
            message = _not_helpful_message(len(all_nodes), dry_run)
            return PostFilterResult(message=message), Status.unschedulable(TRACE_NO_CANDIDATES)
        return _nomination(dry_run.candidates), None


def eligible_to_preempt(pod: Pod) -> bool:
    """PodEligibleToPreemptOthers.

    Its second rule (no new preemption while victims on the pod's nominated node terminate) needs a
    nominated node and terminating pods, which scenarios never have.
    """
    return pod.preemption_policy != PREEMPT_NEVER


def _nomination(candidates: list[Candidate]) -> PostFilterResult:
    """SelectCandidate: a unique best node is nominated; a tie is the real scheduler's coin toss."""
    by_node = {c.node: c.victims.pod_keys for c in candidates}
    best = best_candidates(candidates)
    if len(best) > 1:
        return PostFilterResult(candidates=by_node, nomination_tie=True)
    chosen = best[0]
    return PostFilterResult(nominated_node_name=chosen.node, candidates=by_node, victims=chosen.victims.pod_keys)


def _not_helpful_message(num_all_nodes: int, dry_run: DryRun) -> str:
    """The FitError of the dry run: its per-node statuses, every other node "not helpful"."""
    counts = reason_histogram(num_all_nodes, dry_run.node_statuses, [REASON_NOT_HELPFUL])
    return MESSAGE_PREFIX + nodes_available_message(num_all_nodes, ", ".join(counts))


def _aggregate(errors: list[Status]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as is, several in brackets."""
    messages = [e.message for e in errors]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> DefaultPreemption:
    return DefaultPreemption(DefaultPreemptionArgs.parse(args), handle)
