"""Finding preemption candidates (DryRunPreemption) and picking one (pickOneNodeForPreemption).

The real Evaluator dry-runs a random-offset sample of the potential nodes in parallel and stops
once it has enough candidates (at least max(10 %, 100) of them); SchedLab evaluates every potential
node, so the candidates map is complete and deterministic (identical below 100 potential nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Iterable, Optional, Sequence

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status, is_success
from scheduler_core.model import Pod, PodDisruptionBudget
from scheduler_core.framework.preemption.victims import (
    REASON_NO_VICTIMS,
    Victims,
    has_potential_victims,
    select_victims_on_node,
)

NO_VICTIMS = Status.unresolvable(REASON_NO_VICTIMS)


@dataclass(frozen=True, slots=True)
class Candidate:
    node: str
    victims: Victims


@dataclass(slots=True)
class DryRun:
    """Every candidate (in node order), and why each other potential node is not one."""

    candidates: list[Candidate] = field(default_factory=list)
    node_statuses: dict[str, Status] = field(default_factory=dict)

    @property
    def errors(self) -> list[Status]:
        return [s for s in self.node_statuses.values() if s.code == Code.ERROR]

    def ordered(self) -> "DryRun":
        """Candidates without PDB violations come first, as the real evaluator lists them."""
        self.candidates.sort(key=lambda c: c.victims.num_pdb_violations > 0)
        return self


def expected_a_victim(node: str) -> Status:
    """The evaluator's error for a node where the pod fits with every lower-priority pod reprieved."""
    return Status.error(f'expected at least one victim pod on node "{node}"')


def potential_nodes(nodes: Iterable[NodeInfo], statuses: NodeToStatus) -> list[NodeInfo]:
    """NodesForStatusCode(Unschedulable): nodes whose failure evicting pods might resolve.

    An UnschedulableAndUnresolvable node (and every node a PreFilterResult left out) is skipped.
    """
    if statuses.absent.code == Code.UNSCHEDULABLE:
        return [info for info in nodes if statuses.get(info.name).code == Code.UNSCHEDULABLE]
    # Only nodes with an explicit status can be potential: look those up, not every node's.
    wanted = {name for name, status in statuses.statuses.items() if status.code == Code.UNSCHEDULABLE}
    return [info for info in nodes if info.node.name in wanted] if wanted else []


def dry_run_preemption(framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                       pdbs: Sequence[PodDisruptionBudget] = ()) -> DryRun:
    """SelectVictimsOnNode on a clone of each node and of the cycle state."""
    result = DryRun()
    for node_info in nodes:
        if not has_potential_victims(node_info, pod):
            # Same verdict select_victims_on_node would reach, without cloning anything.
            result.node_statuses[node_info.name] = NO_VICTIMS
            continue
        victims, status = select_victims_on_node(framework, state.clone(), pod, node_info.clone(), pdbs)
        if is_success(status) and victims is not None and victims.pods:
            result.candidates.append(Candidate(node_info.name, victims))
            continue
        if is_success(status):
            status = expected_a_victim(node_info.name)
        result.node_statuses[node_info.name] = status
    return result.ordered()


ScoreFunc = Callable[[Victims], int]


def _fewest_pdb_violations(victims: Victims) -> int:
    return -victims.num_pdb_violations


def _lowest_highest_priority(victims: Victims) -> int:
    return -victims.highest_priority


def _smallest_priority_sum(victims: Victims) -> int:
    return -victims.priority_sum


def _fewest_victims(victims: Victims) -> int:
    return -len(victims.pods)


def earliest_start_of_highest_priority(victims: Victims) -> Optional[datetime]:
    """GetEarliestPodStartTime: among the highest-priority victims, the earliest start. A victim
    without status.startTime reads ``time.Now()``, later than any recorded start, so the result is
    the earliest recorded start, or None (``Now``) when none of them has one."""
    return victims.earliest_top_start  # worked out once, when the victims were chosen


def _latest_start(candidates: list[Candidate]) -> list[Candidate]:
    """The fifth criterion: the node whose highest-priority victims started latest. ``Now``
    (no start time) is later than any start, and every read of it later than the previous one,
    so nodes that tie on ``Now`` are the real scheduler's random pick: they all stay."""
    starts = [earliest_start_of_highest_priority(c.victims) for c in candidates]
    if any(start is None for start in starts):
        return [c for c, start in zip(candidates, starts) if start is None]
    latest = max(starts)
    return [c for c, start in zip(candidates, starts) if start == latest]


SCORE_FUNCS: tuple[ScoreFunc, ...] = (
    _fewest_pdb_violations,
    _lowest_highest_priority,
    _smallest_priority_sum,
    _fewest_victims,
)


def best_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """pickOneNodeForPreemption's five criteria in order; more than one left means a random pick."""
    remaining = list(candidates)
    for score in SCORE_FUNCS:
        if len(remaining) <= 1:
            return remaining
        scores = [score(c.victims) for c in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores) if s == best]
    return remaining if len(remaining) <= 1 else _latest_start(remaining)
