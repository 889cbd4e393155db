"""DryRunPreemption judged on numbers when only NodeResourcesFit can change its mind.

The reference dry run (``framework.preemption.candidates.dry_run_preemption``) clones every
potential node and the cycle state, removes the lower-priority pods, runs every Filter plugin
(with the node's nominated pods added), then puts the pods back one by one, filtering again after
each. When the only active Filter plugin whose verdict depends on the pods of a node is
NodeResourcesFit — every other active one reads the node alone (NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity) and no active PreFilter plugin keeps per-pod state (no
PreFilterExtensions) — each of those Filter calls is decided by the node's requested amounts and
pod count: this path keeps those numbers per node instead, and asks the node-only plugins once
per node for all candidates at once (their batch methods over the NodeTable). Same candidates,
same victims in the same order, same statuses; ``vectorized=False`` runs the reference path.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import and_, attrgetter, is_, is_not, itemgetter
from typing import Any, Iterable, Optional, Sequence, cast

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.kept_verdicts import RECENT_INPUTS, ByPosition, indexes_in, kept_under
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import NodeTable, carried_positions
from scheduler_core.framework.preemption.candidates import NO_VICTIMS, Candidate, DryRun, expected_a_victim
from scheduler_core.framework.preemption.victims import (
    Budgets,
    Victims,
    budgets_of,
    by_importance,
    has_potential_victims,
    may_preempt,
    split_by_pdb_violation,
)
from scheduler_core.framework.runtime import Framework, filter_failure_status
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.model import PODS, Pod, PodDisruptionBudget, ResourceList
from scheduler_core.plugins.node_resources.fit import shortfall_status, shortfalls_of
from scheduler_core.plugins.node_resources.numeric import fit_unresolvable, numeric_fit_applies


class _Rules:
    """One cycle's Filter plugins, split as the numeric dry run needs them."""

    def __init__(self, framework: Framework, state: CycleState, checked: list[tuple[str, int]]) -> None:
        self.framework = framework
        self.state = state
        self.checked = checked
        active = framework.active_filter_plugins(state)
        fit_at = next(i for i, plugin in enumerate(active) if plugin.name == names.NODE_RESOURCES_FIT)
        self.before: list[Any] = active[:fit_at]  # node-only plugins Filter runs before Fit
        self.after: list[Any] = active[fit_at + 1 :]
        self.fit_unresolvable = fit_unresolvable(framework)

    def constant_verdicts(
        self, plugins: list[Any], pod: Pod, positions: np.ndarray
    ) -> tuple[list[MaybeStatus], list[int]]:
        """The first rejection among ``plugins`` on each node (None: all pass), in their order, and
        the slots of the nodes rejected; ``positions``: the nodes' in the table."""
        verdicts: list[MaybeStatus] = [None] * len(positions)
        rejected: list[int] = []
        if not plugins or not len(positions):
            return verdicts, rejected
        for plugin in plugins:
            judged = self.framework.filter_verdicts(plugin, self.state, pod, positions)
            for slot in np.flatnonzero(judged.choice >= 0).tolist():
                if verdicts[slot] is None:
                    verdicts[slot] = filter_failure_status(plugin.name, judged.palette[judged.choice[slot]])
                    rejected.append(slot)
        return verdicts, rejected

    def table_positions(self, nodes: list[NodeInfo]) -> np.ndarray:
        """The nodes' positions in the snapshot's table (looked up when the list does not carry them)."""
        table = self.framework.snapshot.table
        carried = carried_positions(nodes, table)
        if carried is not None:
            return carried
        index = table.index
        return np.array([index[info.node.name] for info in nodes], dtype=np.int64)

    def fit_status(self, allocatable: ResourceList, requested: ResourceList, pod_count: int) -> MaybeStatus:
        status = shortfall_status(shortfalls_of(self.checked, allocatable, requested, pod_count), self.fit_unresolvable)
        return None if status is None else filter_failure_status(names.NODE_RESOURCES_FIT, status)


def numeric_dry_run_applies(framework: Framework, state: CycleState) -> Optional[list[tuple[str, int]]]:
    """Fit's checked requests when this path gives the reference's answers, else None."""
    return numeric_fit_applies(framework, state)


NodeVerdict = tuple[Optional[Victims], MaybeStatus]
# What a later cycle reads back: the candidate itself (frozen, so cycles can share it) or the status.
_Kept = tuple[Optional[Candidate], MaybeStatus]


class NodeVerdictMemo:
    """Each node's last numeric verdict, reused by later cycles while nothing it depends on has
    changed: the node's pods (its NodeInfo's generation), the preemptor's priority and checked
    requests, the nominated pods counted there, the node-only plugins' answers and the
    PodDisruptionBudgets (the ``Budgets`` object: victims.KeptBudgets gives the same one while they
    are as they were). Each is kept under its stamp: the NodeInfo (by identity) and those inputs.
    The verdicts of nodes without nominated pods that every node-only plugin passes are also kept
    by table position for each of the last few preemptors (kept_verdicts.ByPosition), so an
    attempt looks at the positions whose pods changed since, not at thousands of stamps."""

    def __init__(self) -> None:
        self._by_node: dict[str, tuple[tuple[Any, ...], _Kept]] = {}
        self._by_position: list[tuple[tuple[Any, ...], ByPosition]] = []  # by preemptor, the latest first

    def get_all(self, names: list[str], stamps: Iterable[tuple[Any, ...]]) -> list[Optional[_Kept]]:
        """The verdict kept for each node under its stamp (None: none)."""
        return kept_under(self._by_node, names, stamps)

    def get(self, name: str, stamp: tuple[Any, ...]) -> Optional[_Kept]:
        entry = self._by_node.get(name)
        return entry[1] if entry is not None and entry[0] == stamp else None

    def put(self, name: str, stamp: tuple[Any, ...], kept: _Kept) -> None:
        self._by_node[name] = (stamp, kept)

    def by_position(self, preemptor: tuple[Any, ...], table: NodeTable[NodeInfo]) -> ByPosition:
        """The verdicts kept by position for this preemptor, made current for ``table``."""
        found = next((index for index, (known, _) in enumerate(self._by_position) if known == preemptor), None)
        at = ByPosition() if found is None else self._by_position.pop(found)[1]
        self._by_position.insert(0, (preemptor, at))
        del self._by_position[RECENT_INPUTS:]
        at.sync(table)
        return at


def numeric_dry_run(
    framework: Framework,
    state: CycleState,
    pod: Pod,
    nodes: list[NodeInfo],
    checked: list[tuple[str, int]],
    pdbs: "Sequence[PodDisruptionBudget] | Budgets" = (),
    memo: Optional[NodeVerdictMemo] = None,
) -> DryRun:
    """dry_run_preemption's answer, every potential node judged on its numbers."""
    rules = _Rules(framework, state, checked)
    table = framework.snapshot.table
    carried = carried_positions(nodes, table)
    positioned = carried is not None
    if carried is not None:
        positions = carried
    elif rules.before or rules.after:
        positions = rules.table_positions(nodes)  # looked up: the constant verdicts are read by position
    else:
        positions = np.zeros(0, np.int64)
    before, rejected_before = rules.constant_verdicts(rules.before, pod, positions)
    after, rejected_after = rules.constant_verdicts(rules.after, pod, positions)
    if not rules.before:
        before = [None] * len(nodes)
    if not rules.after:
        after = [None] * len(nodes)
    budgets = budgets_of(pdbs)  # looked up once for every node's victims
    # one object: the per-node keys share it
    preemptor = (pod.priority, tuple(checked), budgets)
    nominated_nodes = framework.nominator.nodes_with_nominated_pods()
    node_names: list[str] = table.names_array[positions].tolist() if positioned else [info.node.name for info in nodes]
    nominated: list[tuple[Pod, ...]] = [()] * len(node_names)
    nominated_keys: list[tuple[str, ...]] = [()] * len(node_names)
    with_nominated = indexes_in(node_names, nominated_nodes)
    for index in with_nominated:
        nominated[index] = framework.nominated_pods_to_add(pod, node_names[index])
        nominated_keys[index] = tuple(other.key for other in nominated[index])
    # Nodes whose stamp says more than their position: a node-only plugin rejects them, or pods
    # nominated there may be added.
    stamped = {*rejected_before, *rejected_after, *with_nominated}
    at = memo.by_position(preemptor, table) if memo is not None and positioned else None
    if at is not None:
        known: list[Optional[_Kept]] = at.verdicts[positions].tolist()
        check = ~at.known[positions]
        check[list(stamped)] = True
        unknown: list[int] = np.flatnonzero(check).tolist()
    else:
        stamps = zip(nodes, map(_GENERATION, nodes), repeat(preemptor), nominated_keys, before, after)
        known = memo.get_all(node_names, stamps) if memo is not None else [None] * len(node_names)
        unknown = [index for index, kept in enumerate(known) if kept is None]
    for index in unknown:
        name, node_info = node_names[index], nodes[index]
        stamp = (node_info, node_info.generation, preemptor, nominated_keys[index], before[index], after[index])
        kept = memo.get(name, stamp) if at is not None and memo is not None else None
        if kept is None:
            victims, status = _verdict(rules, pod, node_info, nominated[index], before[index], after[index], budgets)
            kept = (Candidate(name, victims) if victims is not None else None, status)
            if memo is not None:
                memo.put(name, stamp, kept)
        if at is not None and index not in stamped:
            at.keep(int(positions[index]), kept)
        known[index] = kept
    return _dry_run_of(node_names, cast(list[_Kept], known))  # every node's verdict is there now


def _dry_run_of(node_names: list[str], verdicts: list[_Kept]) -> DryRun:
    """The DryRun of every node's verdict (each one there): its candidates in node order, and the
    status of each node that is none."""
    result = DryRun()
    candidates = list(map(_CANDIDATE, verdicts))
    statuses = list(map(_STATUS, verdicts))
    result.candidates.extend(filter(None, candidates))
    why_not = map(and_, map(is_, candidates, repeat(None)), map(is_not, statuses, repeat(None)))
    result.node_statuses.update(compress(zip(node_names, statuses), why_not))
    return result.ordered()


_CANDIDATE, _STATUS = itemgetter(0), itemgetter(1)
_GENERATION = attrgetter("generation")


def _verdict(
    rules: _Rules,
    pod: Pod,
    node_info: NodeInfo,
    nominated: Sequence[Pod],
    before: MaybeStatus,
    after: MaybeStatus,
    pdbs: Budgets,
) -> NodeVerdict:
    """dry_run_preemption's verdict on one node (a node without lower-priority pods has no victims)."""
    if not has_potential_victims(node_info, pod):
        return None, NO_VICTIMS
    return _victims_on_node(rules, pod, node_info, nominated, before, after, pdbs)


class _NodeNumbers:
    """What Fit reads of one node while pods leave and come back: requested amounts and pod count,
    the node's nominated pods of equal or higher priority always added (as every Filter call does)."""

    __slots__ = ("names", "requested", "pod_count", "room", "pod_room")

    def __init__(self, node_info: NodeInfo, checked: list[tuple[str, int]], nominated: list[PodInfo]) -> None:
        self.names = [name for name, _ in checked]
        self.requested = [node_info.requested.get(name, 0) for name in self.names]
        self.pod_count = len(node_info.pods)
        allocatable = node_info.allocatable
        # fitsRequest's tests, wanted > capacity - used and count + 1 > allowed, as room left.
        self.room = [allocatable.get(name, 0) - wanted for name, wanted in checked]
        self.pod_room = allocatable.get(PODS, 0) - 1
        for info in nominated:
            self.add(info)

    def remove_all(self, infos: list[PodInfo]) -> None:
        """Every one of ``infos`` leaves the node."""
        requested = list(self.requested)
        for info in infos:
            requests = info.requests
            for i, name in enumerate(self.names):
                requested[i] -= requests.get(name, 0)
        self.requested = requested
        self.pod_count -= len(infos)

    def add(self, info: PodInfo) -> None:
        requests = info.requests
        self.requested = [used + requests.get(name, 0) for name, used in zip(self.names, self.requested)]
        self.pod_count += 1

    def try_add(self, info: PodInfo) -> bool:
        """``info`` comes back if the pod still fits with it (reprieved: True); else nothing changes."""
        requests = info.requests
        requested = [used + requests.get(name, 0) for name, used in zip(self.names, self.requested)]
        if self.pod_count + 1 > self.pod_room or not _within(requested, self.room):
            return False
        self.requested = requested
        self.pod_count += 1
        return True

    def fit(self) -> bool:
        return self.pod_count <= self.pod_room and _within(self.requested, self.room)

    def as_requested(self) -> ResourceList:
        return dict(zip(self.names, self.requested))


def _within(requested: list[int], room: list[int]) -> bool:
    """Every requested amount within its room (a loop: a generator costs more for a few resources)."""
    for used, left in zip(requested, room):
        if used > left:
            return False
    return True


def _victims_on_node(
    rules: _Rules,
    pod: Pod,
    node_info: NodeInfo,
    nominated: Sequence[Pod],
    before: MaybeStatus,
    after: MaybeStatus,
    pdbs: Budgets,
) -> NodeVerdict:
    """select_victims_on_node on numbers: the Filter answer is ``before``, else Fit's, else ``after``."""
    if before is not None:  # every Filter call on this node stops there
        return None, before
    numbers = _NodeNumbers(node_info, rules.checked, [PodInfo(other) for other in nominated])
    potential = [info for info in node_info.pods if may_preempt(info.pod, pod)]
    numbers.remove_all(potential)
    if not numbers.fit():
        return None, rules.fit_status(node_info.allocatable, numbers.as_requested(), numbers.pod_count)
    if after is not None:
        return None, after
    violating, non_violating = split_by_pdb_violation(by_importance(potential), pdbs)
    victims: list[PodInfo] = []
    num_violations = 0
    for group in (violating, non_violating):
        for info in group:
            if numbers.try_add(info):
                continue  # reprieved
            victims.append(info)
            num_violations += group is violating
    if not victims:
        return None, expected_a_victim(node_info.name)
    if violating and non_violating:
        victims = by_importance(victims)
    return Victims(tuple(info.pod for info in victims), num_violations), None
