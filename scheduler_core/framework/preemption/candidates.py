"""Finding preemption candidates (DryRunPreemption) and picking one (pickOneNodeForPreemption).

The real Evaluator dry-runs a random-offset sample of the potential nodes in parallel and stops
once it has enough candidates (at least max(10 %, 100) of them); SchedLab evaluates every potential
node, so the candidates map is complete and deterministic (identical below 100 potential nodes).
"""

from __future__ import annotations

import functools
from itertools import compress, repeat
from operator import attrgetter, eq
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Collection, Iterable, Optional, Protocol, Sequence

import numpy as np
from msgspec.structs import force_setattr

from scheduler_core.util.wire import Wire
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import status_groups
from scheduler_core.framework.interfaces import NodeToStatus, PluginsRunner, StatusesByPosition
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import PositionedNodeList
from scheduler_core.framework.status import Code, MaybeStatus, Status, is_failure, is_success
from scheduler_core.model import Pod, PodDisruptionBudget
from scheduler_core.framework.preemption.victims import (
    REASON_NO_VICTIMS,
    Budgets,
    Victims,
    budgets_of,
    has_potential_victims,
    select_victims_on_node,
)

NO_VICTIMS = Status.unresolvable(REASON_NO_VICTIMS)


@dataclass(frozen=True, slots=True)
class Candidate:
    node: str
    victims: Victims
    # Of the victims, what every preemption reads from each of thousands of candidates (mostly the
    # same ones, kept from attempt to attempt), read off the candidate itself: any() over 5,000
    # candidates' pdb_violations took 117 µs, over their victims' num_pdb_violations 454 µs.
    rank: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)
    pdb_violations: int = field(init=False, repr=False, compare=False)
    key_list: list[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank", self.victims.rank)
        object.__setattr__(self, "pdb_violations", self.victims.num_pdb_violations)
        object.__setattr__(self, "key_list", self.victims.key_list)


@dataclass(slots=True)
class DryRun:
    """Every candidate (in node order), and why each other potential node is not one."""

    candidates: list[Candidate] = field(default_factory=list)
    node_statuses: dict[str, Status] = field(default_factory=dict)
    _groups: Optional[list[tuple[Status, int]]] = field(default=None, repr=False, compare=False)

    def status_groups(self) -> list[tuple[Status, int]]:
        """The node statuses grouped by object (diagnosis.status_groups), made once: the errors'
        test and the FailedScheduling histogram both read them (thousands of nodes, a few objects)."""
        if self._groups is None:
            self._groups = status_groups(self.node_statuses.values())
        return self._groups

    @property
    def errors(self) -> list[Status]:
        if not any(status.code == Code.ERROR for status, _ in self.status_groups()):
            return []
        return [s for s in self.node_statuses.values() if s.code == Code.ERROR]

    def ordered(self) -> "DryRun":
        """Candidates without PDB violations come first, as the real evaluator lists them (without
        any violation, as mostly, the order stays as it is: no sort key is made for each)."""
        if any(map(_PDB_VIOLATIONS, self.candidates)):
            self.candidates.sort(key=lambda c: c.pdb_violations > 0)
        return self


def expected_a_victim(node: str) -> Status:
    """The evaluator's error for a node where the pod fits with every lower-priority pod reprieved."""
    return Status.error(f'expected at least one victim pod on node "{node}"')


def potential_nodes(nodes: Iterable[NodeInfo], statuses: NodeToStatus) -> list[NodeInfo]:
    """NodesForStatusCode(Unschedulable): nodes whose failure evicting pods might resolve.

    An UnschedulableAndUnresolvable node (and every node a PreFilterResult left out) is skipped.
    """
    by_position = statuses.by_position
    if by_position is not None and nodes is by_position.node_infos:
        return _potential_by_position(by_position, statuses.absent)
    if statuses.absent.code == Code.UNSCHEDULABLE:
        return [info for info in nodes if statuses.get(info.name).code == Code.UNSCHEDULABLE]
    # Only nodes with an explicit status can be potential: look those up, not every node's. Nodes
    # share their status objects (a verdict palette's): each distinct one is asked once, and the
    # thousands of nodes are picked at C speed.
    explicit = statuses.statuses
    listed = list(explicit.values())
    ids = list(map(id, listed))
    distinct = dict(zip(ids, listed))
    resolvable = {key for key, status in distinct.items() if status.code == Code.UNSCHEDULABLE}
    if not resolvable:
        return []
    if len(resolvable) == len(distinct):
        wanted: Collection[str] = explicit.keys()
    else:
        wanted = set(compress(explicit, map(resolvable.__contains__, ids)))
    infos = nodes if isinstance(nodes, list) else list(nodes)  # walked twice, side by side
    return list(compress(infos, map(wanted.__contains__, map(_NODE_NAME, infos))))


def _potential_by_position(at: StatusesByPosition, absent: Status) -> list[NodeInfo]:
    """potential_nodes over the statuses by position: a mask over the node list, built by NumPy."""
    unschedulable = np.array([status.code == Code.UNSCHEDULABLE for status in at.distinct], dtype=bool)
    mask = np.full(len(at.node_infos), absent.code == Code.UNSCHEDULABLE)
    judged = at.status_of >= 0
    mask[at.positions[judged]] = unschedulable[at.status_of[judged]]
    return PositionedNodeList(compress(at.node_infos, mask.tolist()), np.flatnonzero(mask), at.node_infos)


_NODE_NAME = attrgetter("name")
_PDB_VIOLATIONS = attrgetter("pdb_violations")
_RANK = attrgetter("rank")


# One node's verdict: its candidate, or the status saying why it is none.
NodeVerdict = tuple[Optional[Candidate], MaybeStatus]


class KeptVerdicts(Protocol):
    """Verdicts an earlier preemption reached on nodes, where everything they depend on is as it was
    (the DefaultPreemption plugin's memo, bound to this preemption's inputs)."""

    def get_all(self, node_infos: Sequence[NodeInfo]) -> list[Optional[NodeVerdict]]: ...

    def put(self, node_info: NodeInfo, verdict: NodeVerdict) -> None: ...


def dry_run_preemption(
    framework: PluginsRunner,
    state: CycleState,
    pod: Pod,
    nodes: list[NodeInfo],
    pdbs: "Sequence[PodDisruptionBudget] | Budgets" = (),
    kept: Optional[KeptVerdicts] = None,
) -> DryRun:
    """SelectVictimsOnNode on a clone of each node and of the cycle state (or the verdict ``kept``
    from an earlier preemption with the same inputs)."""
    result = DryRun()
    budgets = budgets_of(pdbs)  # looked up once for every node's victims
    candidates, node_statuses = result.candidates, result.node_statuses
    known = kept.get_all(nodes) if kept is not None else repeat(None)
    for node_info, verdict in zip(nodes, known):
        if verdict is None:
            # A node where the pod may evict nobody: the verdict select_victims_on_node would reach,
            # without cloning anything (kept too: a later attempt skips even this test).
            no_victims = not has_potential_victims(node_info, pod)
            verdict = _NO_VICTIMS if no_victims else _node_verdict(framework, state, pod, node_info, budgets)
            if kept is not None:
                kept.put(node_info, verdict)
        candidate, status = verdict
        if candidate is not None:
            candidates.append(candidate)
        elif status is not None:
            node_statuses[node_info.name] = status
    return result.ordered()


_NO_VICTIMS: "NodeVerdict" = (None, NO_VICTIMS)


def _node_verdict(
    framework: PluginsRunner, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Budgets
) -> NodeVerdict:
    victims, status = select_victims_on_node(framework, state.clone(), pod, node_info.clone(), pdbs)
    if is_success(status) and victims is not None and victims.pods:
        return Candidate(node_info.name, victims), None
    if status is not None and is_failure(status):
        return None, _one_of_its_kind(status)
    return None, expected_a_victim(node_info.name)


def _one_of_its_kind(status: Status) -> Status:
    """One object for equal statuses (frozen): thousands of nodes that fail alike then share it, and
    the failure message's histogram groups them by identity (diagnosis.status_groups) in C."""
    shared = _SHARED_STATUSES.setdefault(status, status)
    if len(_SHARED_STATUSES) > _SHARED_STATUSES_KEPT:
        _SHARED_STATUSES.clear()
    return shared


_SHARED_STATUSES: dict[Status, Status] = {}
_SHARED_STATUSES_KEPT = 4096


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
    starts = [c.victims.earliest_top_start for c in candidates]  # earliest_start_of_highest_priority
    if any(start is None for start in starts):
        return [c for c, start in zip(candidates, starts) if start is None]
    latest = max(start for start in starts if start is not None)  # none is None here
    return [c for c, start in zip(candidates, starts) if start == latest]


SCORE_FUNCS: tuple[ScoreFunc, ...] = (
    _fewest_pdb_violations,
    _lowest_highest_priority,
    _smallest_priority_sum,
    _fewest_victims,
)


# pickOneNodeForPreemption's criteria, in order: (key, what it prefers).
CRITERIA: tuple[tuple[str, str], ...] = (
    ("pdbViolations", "fewest PodDisruptionBudget violations"),
    ("highestPriority", "lowest highest victim priority"),
    ("prioritySum", "smallest sum of victim priorities"),
    ("victims", "fewest victims"),
    ("latestStart", "latest start of the highest-priority victims"),
)
ONLY_CANDIDATE = "onlyCandidate"  # nothing to compare
TIE_BREAK = "tieBreak"  # still tied after every criterion: the first in node order (the run's rule)
RANDOM_TIE = "randomTie"  # still tied after every criterion: the release picks at random (a single pass says so)


@dataclass(slots=True)
class _Walk:
    remaining: list[Candidate]
    dropped_at: dict[str, str]  # node -> the criterion that ruled it out
    decided_by: Optional[str]  # the criterion that left one candidate; None: none did


def _walk(candidates: list[Candidate]) -> _Walk:
    """The criteria in order, each keeping the candidates best by it, until one is left."""
    walk = _Walk(list(candidates), {}, None)
    steps: list[tuple[str, Callable[[list[Candidate]], list[Candidate]]]] = [
        (key, functools.partial(_best_by, score)) for (key, _), score in zip(CRITERIA, SCORE_FUNCS)
    ]
    steps.append((CRITERIA[-1][0], _latest_start))
    for key, keep in steps:
        if len(walk.remaining) <= 1:
            break
        kept = keep(walk.remaining)
        kept_ids = {id(candidate) for candidate in kept}  # identity: comparing victims' pods would be slow
        for candidate in walk.remaining:
            if id(candidate) not in kept_ids:
                walk.dropped_at[candidate.node] = key
        walk.remaining = kept
        if len(kept) == 1:
            walk.decided_by = key
    return walk


def _best_by(score: ScoreFunc, candidates: list[Candidate]) -> list[Candidate]:
    scores = [score(c.victims) for c in candidates]
    best = max(scores)
    return [c for c, s in zip(candidates, scores) if s == best]


def best_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """pickOneNodeForPreemption's five criteria in order; more than one left means a random pick.

    ``_walk(candidates).remaining`` without noting where each other candidate dropped out (only
    the ranking explains that): every cycle that preempts asks, over thousands of candidates.
    Keeping the best by each of the first four criteria in turn keeps those whose ``rank`` (the
    four, smaller is better) is least."""
    if len(candidates) <= 1:
        return list(candidates)
    ranks = list(map(_RANK, candidates))
    least = min(ranks)
    remaining = list(compress(candidates, map(eq, repeat(least), ranks)))
    return _latest_start(remaining) if len(remaining) > 1 else remaining


# ---------------------------------------------------------------------------- the ranking, explained


class CandidateCriteria(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """What pickOneNodeForPreemption compared for one candidate, and where it was ruled out."""

    node: str
    victims: tuple[str, ...]  # sorted keys
    pdb_violations: int
    highest_priority: int
    priority_sum: int  # the plain sum (the release adds 2^31 to each priority: same order for equal counts)
    victim_count: int
    earliest_start: Optional[datetime]  # of its highest-priority victims; None: none has a start time ("now")
    dropped_at: Optional[str]  # the criterion key that ruled it out; None: among the best after every one
    chosen: bool


class Criterion(Wire, frozen=True):  # type: ignore[misc]
    """One of pickOneNodeForPreemption's criteria: its key and what it prefers."""

    key: str
    prefers: str


class PreemptionRanking(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """Every candidate's criteria in node order, the chosen node (None: a random tie left open) and
    the criterion that decided: a key of CRITERIA, or ONLY_CANDIDATE, TIE_BREAK, RANDOM_TIE; with the
    criteria in order and the decision in words (``sentence``, filled in when made)."""

    criteria: tuple[Criterion, ...]  # CRITERIA, as written
    candidates: tuple[CandidateCriteria, ...]
    chosen: Optional[str]
    deciding: str
    sentence: str = ""  # derived

    def __post_init__(self) -> None:
        force_setattr(self, "sentence", self._said())

    def _said(self) -> str:
        if self.deciding == ONLY_CANDIDATE:
            return f"{self.chosen} was the only candidate."
        tied = [c.node for c in self.candidates if c.dropped_at is None]
        if self.deciding == RANDOM_TIE:
            return (
                f"{', '.join(tied)} tie on every criterion: kube-scheduler picks one at random "
                f"(the single pass nominates none)."
            )
        if self.deciding == TIE_BREAK:
            return f"{', '.join(tied)} tie on every criterion: the run takes the first in node order, {self.chosen}."
        words = dict(CRITERIA)[self.deciding]
        return f"{self.chosen} won on {words} (criterion {_criterion_number(self.deciding)} of 5)."


_CRITERIA_WRITTEN = tuple(Criterion(key, words) for key, words in CRITERIA)


def _criterion_number(key: str) -> int:
    return [k for k, _ in CRITERIA].index(key) + 1


def rank_candidates(
    candidates: list[Candidate], chosen: Optional[str], node_order: Callable[[str], int]
) -> PreemptionRanking:
    """The ranking behind SelectCandidate's pick (``chosen``: the node it nominated, None when it
    left a random tie open), every candidate listed in node order."""
    walk = _walk(candidates)
    if len(candidates) == 1:
        deciding = ONLY_CANDIDATE
    elif walk.decided_by is not None:
        deciding = walk.decided_by
    else:
        deciding = TIE_BREAK if chosen is not None else RANDOM_TIE
    rows = tuple(
        _criteria(c, walk.dropped_at.get(c.node), c.node == chosen)
        for c in sorted(candidates, key=lambda c: node_order(c.node))
    )
    return PreemptionRanking(_CRITERIA_WRITTEN, rows, chosen, deciding)


def _criteria(candidate: Candidate, dropped_at: Optional[str], chosen: bool) -> CandidateCriteria:
    victims = candidate.victims
    return CandidateCriteria(
        candidate.node,
        tuple(victims.pod_keys),
        victims.num_pdb_violations,
        max(pod.priority for pod in victims.pods),
        sum(pod.priority for pod in victims.pods),
        len(victims.pods),
        earliest_start_of_highest_priority(victims),
        dropped_at,
        chosen,
    )
