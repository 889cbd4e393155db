"""Copies of a spreading pod counted per topology domain, not placed (issue 42, item 1 of the
follow-up).

A pod whose only dependence on its own copies is one PodTopologySpread ``DoNotSchedule``
constraint that selects it (``ScheduleAnyway`` ones only score) is placed copy after copy by the
pass until the skew forbids every node with room left. How many fit is decided by feasibility
alone, and feasibility is arithmetic over the domains:

- each node that every other Filter plugin lets the first copy in takes at most its room
  (capacity_count.node_room: free pod slots, free ÷ request, one with host ports); a domain's
  room R_d is its nodes' room summed, and it can end with at most F_d = m_d + R_d matching pods
  (m_d: what the plugin's PreFilter counted there, its inclusion policies applied);
- a copy fits in domain d while m_d + 1 − min ≤ maxSkew, min being the smallest count over every
  domain the plugin counts (0 while fewer domains than ``minDomains`` exist; their number never
  changes, since copies bring no node);
- placing only raises counts, so the minimum only rises, and whatever node the scheduler picks
  each time, the run ends at f_d = min(F_d, max(m_d, M + maxSkew)) with M = min_d F_d (M = 0 under
  minDomains): every count stays below max(m_d, M_t + maxSkew) at each step t, the final state
  must be full or at the skew limit in every domain, and M is the only fixed point of
  M ↦ min_d f_d(M) above the first minimum. A domain no copy can enter (F_d = m_d: tainted,
  full) holds the minimum down, as it does in the plugin.

The per-domain totals are therefore exactly what placing gives. Per node they are exact where the
domain is full (every node at its room), took nothing, or has one node with room; in a domain
stopped by the skew with room left, which of its nodes took the copies is the scores' choice
(``ScheduleAnyway`` spreading, resource balance, the rotating start index), so the answer gives
the domain's total and says so. The next copy's FailedScheduling message is written when every
node's first failing plugin is certain; where it depends on which nodes filled up, the reason is
said per domain (``message_exact`` false) and ``--method place`` shows the exact message.

Shapes this cannot count (two constraints that both count the copies, a node the pod fits that the
constraint's inclusion policy leaves out) are placed; ``CountRefused`` says why.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

from scheduler_core.model import names
from scheduler_core.answers.capacity_count import (
    Counted,
    CountRefused,
    FirstCopy,
    count_per_node,
    failed_message,
    first_failures,
    full_node_statuses,
    judge_first_copy,
    node_room,
)
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.answers.capacity_json import DomainCountJSON, SpreadCountedJSON
from scheduler_core.framework.runtime import filter_failure_status
from scheduler_core.framework.status import Status
from scheduler_core.model import Pod
from scheduler_core.plugins.pod_topology_spread.common import Constraint, InclusionPolicy
from scheduler_core.plugins.pod_topology_spread.filtering import REASON_CONSTRAINTS_NOT_MATCH, PreFilterState
from scheduler_core.plugins.pod_topology_spread.plugin import PodTopologySpread
from scheduler_core.run.schedule_one import Scheduler

SKEWED = filter_failure_status(names.POD_TOPOLOGY_SPREAD, Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH))


@dataclass(frozen=True)
class DomainCount:
    """One domain of the constraint: matching pods before, the copies its nodes have room for, and
    the copies it ends with."""

    domain: str
    before: int
    room: int
    added: int

    @property
    def full(self) -> bool:
        return self.added == self.room

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> DomainCountJSON:
        return DomainCountJSON(self.domain, self.before, self.room, self.added, self.full)


@dataclass
class SpreadCounted:
    """Copies counted per domain of one DoNotSchedule constraint. ``per_node`` holds the nodes
    whose count is certain (all of them when ``nodes_exact``); ``message`` is the next copy's
    FailedScheduling message when ``message_exact``, else the reason said per domain."""

    topology_key: str
    max_skew: int
    min_domains: int
    domains: list[DomainCount]
    smallest: int  # the minimum the next copy's Filter uses (0 while fewer domains than minDomains)
    per_node: dict[str, int]
    nodes_exact: bool
    message: str
    message_exact: bool

    @property
    def total(self) -> int:
        return sum(d.added for d in self.domains)

    def reason(self) -> str:
        """Why the next copy fits nowhere, per domain (one sentence)."""
        full = [d.domain for d in self.domains if d.full]
        capped = [d.domain for d in self.domains if not d.full]
        parts = []
        if full:
            parts.append(f"{_listed(full)} full")
        if capped:
            parts.append(f"{_listed(capped)} at maxSkew {self.max_skew} above the smallest count ({self.smallest})")
        under = (
            f"; fewer domains ({len(self.domains)}) than minDomains ({self.min_domains}) keep the minimum at 0"
            if len(self.domains) < self.min_domains
            else ""
        )
        return f"every {self.topology_key} domain is full or at the skew limit: {'; '.join(parts)}{under}"

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> SpreadCountedJSON:
        return SpreadCountedJSON(
            self.topology_key,
            self.max_skew,
            self.min_domains,
            self.smallest,
            self.nodes_exact,
            self.message_exact,
            self.reason(),
            [d.wire() for d in self.domains],
        )


def _listed(domains: list[str], most: int = 5) -> str:
    shown = ", ".join(domains[:most])
    return shown + (f" and {len(domains) - most} more" if len(domains) > most else "")


def count_spreading(scheduler: Scheduler, pod: Pod, index: int = 0) -> Union[Counted, SpreadCounted, CountRefused]:
    """The copies of ``pod`` counted: per node when independent (capacity_count), per domain when
    one DoNotSchedule constraint counts them; CountRefused when only placing can tell."""
    first = judge_first_copy(scheduler, pod, index)
    if isinstance(first, CountRefused):
        return first
    if first.moving and first.moving != [names.POD_TOPOLOGY_SPREAD]:
        return CountRefused(f"Filter plugin(s) {', '.join(first.moving)} judge a node by what else was placed")
    if not first.moving:
        return count_per_node(first)
    plugin = next(
        p for p in first.cycle.fw.active_filter_plugins(first.cycle.state) if p.name == names.POD_TOPOLOGY_SPREAD
    )
    assert isinstance(plugin, PodTopologySpread)  # the plugin registered under that name
    state: Optional[PreFilterState] = plugin.pre_filter_state(first.cycle.state)
    if state is None:
        return CountRefused("PodTopologySpread has no PreFilter state: the pass shows what it does")
    counting = [c for c in state.constraints if c.matcher.matches(pod.labels)]
    if not counting:
        return count_per_node(first)  # the copies are not counted: the verdicts stay as they are
    if len(state.constraints) > 1:
        return CountRefused(
            f"{len(state.constraints)} DoNotSchedule spread constraints, {len(counting)} counting the "
            "copies: a copy's place moves more than one domain's count, so the copies are placed"
        )
    return _count_domains(first, state)


def _count_domains(first: FirstCopy, state: PreFilterState) -> Union[SpreadCounted, CountRefused]:
    constraint = state.constraints[0]
    table = first.cycle.snapshot.table
    others = [(name, v) for name, v in first.passed.verdicts if name != names.POD_TOPOLOGY_SPREAD]
    open_mask = np.ones(len(first.passed.evaluated), dtype=bool)
    for _, verdict in others:
        open_mask &= ~verdict.failed
    domain_of = [table.node_infos[p].node.labels.get(constraint.topology_key) for p in first.passed.evaluated.tolist()]
    open_mask &= np.array([d is not None for d in domain_of], dtype=bool)
    open_positions = first.passed.evaluated[open_mask]
    refused = _left_out(first, constraint, state, open_positions)
    if refused is not None:
        return CountRefused(refused)
    room = node_room(table, open_positions, first.checked, first.host_ports)
    node_domain = [domain_of[i] for i in np.flatnonzero(open_mask).tolist()]
    domains = _domain_counts(state, constraint, node_domain, room)
    smallest = _smallest(domains, constraint)
    per_node, uncertain, may_fill = _node_counts(table, open_positions, node_domain, room, domains)
    statuses = _next_copy_statuses(
        first, constraint, domain_of, domains, smallest, open_positions, room, per_node, may_fill
    )
    if isinstance(statuses, str):
        return CountRefused(statuses)
    counted = SpreadCounted(
        constraint.topology_key,
        constraint.max_skew,
        constraint.min_domains,
        domains,
        smallest,
        {n: c for n, c in sorted(per_node.items()) if c > 0},
        not uncertain,
        "",
        statuses is not None,
    )
    counted.message = failed_message(first.cycle, statuses) if statuses is not None else counted.reason()
    return counted


def _left_out(
    first: FirstCopy, constraint: Constraint, state: PreFilterState, open_positions: np.ndarray
) -> Optional[str]:
    """Why a node the copies can use would not count them (None: every such node counts them)."""
    policy = InclusionPolicy(first.cycle.pod)
    for position in open_positions.tolist():
        node = first.cycle.snapshot.table.node_infos[position].node
        if not policy.includes(constraint, node) or node.labels[constraint.topology_key] not in state.match_num[0]:
            return (
                f"node {node.name} takes copies but the constraint's inclusion policy does not count them there: "
                "the copies are placed"
            )
    return None


def _domain_counts(
    state: PreFilterState, constraint: Constraint, node_domain: list[Optional[str]], room: np.ndarray
) -> list[DomainCount]:
    """Each domain's end count f_d = min(F_d, max(m_d, M + maxSkew)) (the module's docstring)."""
    room_of: dict[str, int] = defaultdict(int)
    for domain, r in zip(node_domain, room.tolist()):
        room_of[str(domain)] += int(r)
    before = state.match_num[0]
    ceiling = {d: m + room_of[d] for d, m in before.items()}
    floor = 0 if len(before) < constraint.min_domains else min(ceiling.values(), default=0)
    out = []
    for domain in sorted(before):
        final = min(ceiling[domain], max(before[domain], floor + constraint.max_skew))
        out.append(DomainCount(domain, before[domain], room_of[domain], final - before[domain]))
    return out


def _smallest(domains: list[DomainCount], constraint: Constraint) -> int:
    if len(domains) < constraint.min_domains or not domains:
        return 0
    return min(d.before + d.added for d in domains)


def _node_counts(
    table: NodeTable[NodeInfo],
    open_positions: np.ndarray,
    node_domain: list[Optional[str]],
    room: np.ndarray,
    domains: list[DomainCount],
) -> tuple[dict[str, int], set[str], set[str]]:
    """The copies of each node with room whose count is certain; the domains where some are not
    (stopped by the skew with room left on more than one node); and the nodes of those that the
    copies may have filled (room no more than the domain's copies)."""
    by_domain = {d.domain: d for d in domains}
    with_room: dict[str, int] = defaultdict(int)
    for domain, r in zip(node_domain, room.tolist()):
        with_room[str(domain)] += 1 if r > 0 else 0
    per_node: dict[str, int] = {}
    uncertain: set[str] = set()
    may_fill: set[str] = set()
    for position, domain, r in zip(open_positions.tolist(), node_domain, room.tolist()):
        count = by_domain[str(domain)]
        if count.added == 0 or count.full:
            per_node[table.names[position]] = int(r) if count.full else 0
        elif with_room[str(domain)] == 1:
            per_node[table.names[position]] = count.added if r > 0 else 0
        else:
            uncertain.add(str(domain))
            if 0 < r <= count.added:
                may_fill.add(table.names[position])
    return per_node, uncertain, may_fill


def _next_copy_statuses(
    first: FirstCopy,
    constraint: Constraint,
    domain_of: list[Optional[str]],
    domains: list[DomainCount],
    smallest: int,
    open_positions: np.ndarray,
    room: np.ndarray,
    per_node: dict[str, int],
    may_fill: set[str],
) -> Union[dict[str, Status], str, None]:
    """Each node's status for the copy after the last: its first failing plugin in Filter order
    among the static ones, the skew with the end counts, and the room used up. None when some
    node's status depends on where in its domain the copies went; a sentence when the count is
    contradicted (a node nothing stops, or NodeResourcesFit disagreeing)."""
    cycle = first.cycle
    table = cycle.snapshot.table
    order = {name: i for i, name in enumerate(first.active)}
    spread_at = order[names.POD_TOPOLOGY_SPREAD]
    others = [(name, v) for name, v in first.passed.verdicts if name != names.POD_TOPOLOGY_SPREAD]
    spread_verdict = next(v for name, v in first.passed.verdicts if name == names.POD_TOPOLOGY_SPREAD)
    static = first_failures(cycle, first.passed.evaluated, others)
    if static is None:
        return "a Filter plugin answered with an error: the pass shows it"
    end = {d.domain: d.before + d.added for d in domains}
    full_at = {
        table.names[p]: per_node.get(table.names[p], -1) == int(r)
        for p, r in zip(open_positions.tolist(), room.tolist())
    }
    used_up = _used_up(first, open_positions, room, full_at)
    if used_up is None:
        return "NodeResourcesFit disagrees with the count on some node"
    resources_at = min(order[n] for n in (names.NODE_RESOURCES_FIT, names.NODE_PORTS) if n in order)
    out: dict[str, Status] = {}
    for i, position in enumerate(first.passed.evaluated.tolist()):
        name = table.names[position]
        failing = [(order[s.plugin], s) for s in (static.get(name), used_up.get(name)) if s is not None]
        domain = domain_of[i]
        if domain is None:
            choice = int(spread_verdict.choice[i])
            failing.append(
                (spread_at, filter_failure_status(names.POD_TOPOLOGY_SPREAD, spread_verdict.palette[choice]))
            )
        elif end.get(domain, 0) + 1 - smallest > constraint.max_skew:
            failing.append((spread_at, SKEWED))
        if name in may_fill and (not failing or min(f[0] for f in failing) > resources_at):
            return None  # whether its room is used up decides, and that is the scores' choice
        if not failing:
            return f"nothing stops copy {sum(d.added for d in domains) + 1} on node {name}: the copies are placed"
        out[name] = min(failing, key=lambda f: f[0])[1]
    return out


def _used_up(
    first: FirstCopy, open_positions: np.ndarray, room: np.ndarray, full_at: dict[str, bool]
) -> Optional[dict[str, Status]]:
    """NodeResourcesFit's (or NodePorts') status on the nodes certainly filled to their room."""
    table = first.cycle.snapshot.table
    mask = np.array([full_at[table.names[p]] for p in open_positions.tolist()], dtype=bool)
    if not mask.any():
        return {}
    return full_node_statuses(
        first.cycle, open_positions[mask], room[mask], first.checked, first.host_ports, first.active
    )
