"""Copies of a pod counted per node, not placed (issue 42, item 2).

When nothing a copy brings to a node can change another node's verdict — the pod's Filter plugins
read the node alone (taints, affinity to nodes, unschedulable, the node's name), its resources and
pod slots, its host ports, and pod (anti-)affinity only of pods already there — copies are
independent: whichever node the scheduler picks for each, every node ends holding what it has room
for. The pass would place them one by one until every node is full; here the room is counted
instead, over the same Filter verdicts:

- one real Filter pass of the first copy on every node (``Cycle.feasibility``) says where a copy
  fits at all; a node it rejects takes none, with that rejection as its reason for the next copy;
- a node that takes one takes ``min(free // request)`` over what NodeResourcesFit checks and its
  free pod slots, at most one with host ports;
- NodeResourcesFit itself (``checked_shortfall_verdicts``) checks each count: with one copy fewer
  every node still fits, with that many none does — the count is the plugin's, not a sum beside it;
- the next copy's FailedScheduling message is built from those statuses the way the cycle builds it
  (``fit_error_message``, PostFilter run on them).

Spreading and (anti-)affinity that matches the copies themselves make a copy's place matter: those
are not counted (``CountRefused`` says why) and the pass places them (capacity_pass.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework.batch import PASS, FilterVerdicts
from scheduler_core.framework.diagnosis import fit_error_message
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.runtime import filter_failure_status
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import PODS, Pod
from scheduler_core.plugins.node_ports import REASON_PORTS
from scheduler_core.plugins.node_resources.fit import Fit, checked_shortfall_verdicts
from scheduler_core.plugins.node_resources.numeric import fit_unresolvable
from scheduler_core.plugins.node_resources.numeric import NODE_ONLY_FILTERS
from scheduler_core.run.outcomes import FilterPass
from scheduler_core.run.schedule_one import Cycle, Scheduler

# Filter plugins whose verdict on a node a copy placed elsewhere cannot change, for a pod that
# passes ``_self_dependent`` (InterPodAffinity then reads only the pods already running).
COUNTABLE_FILTERS = NODE_ONLY_FILTERS | {names.NODE_RESOURCES_FIT, names.NODE_PORTS, names.INTER_POD_AFFINITY}


@dataclass(frozen=True)
class CountRefused:
    """Why the copies are placed rather than counted (one sentence)."""

    reason: str


@dataclass
class Counted:
    """Every node's room for copies (nodes with none left out), and the FailedScheduling message
    the copy after the last would get."""

    per_node: dict[str, int]
    message: str

    @property
    def total(self) -> int:
        return sum(self.per_node.values())


@dataclass
class FirstCopy:
    """The first copy judged by every Filter plugin on every node (``Cycle.feasibility``), with
    what counting reads from it; capacity_domains.py counts spreading copies from the same."""

    cycle: Cycle
    passed: FilterPass
    active: list[str]  # the active Filter plugins, in the profile's order
    checked: list[tuple[str, int]]  # what NodeResourcesFit checks: (resource, request)
    host_ports: bool

    @property
    def moving(self) -> list[str]:
        """Active Filter plugins whose verdict a copy placed elsewhere may change."""
        return sorted(set(self.active) - COUNTABLE_FILTERS)


def count_copies(scheduler: Scheduler, pod: Pod, index: int = 0) -> Union[Counted, CountRefused]:
    """The copies of ``pod`` each node has room for, judged on ``scheduler``'s snapshot as it
    stands; CountRefused when where one copy lands can change where the next one fits."""
    first = judge_first_copy(scheduler, pod, index)
    if isinstance(first, CountRefused):
        return first
    if names.POD_TOPOLOGY_SPREAD in first.moving:
        return CountRefused("the pod spreads over topology domains (DoNotSchedule): each copy's domain counts")
    if first.moving:
        return CountRefused(f"Filter plugin(s) {', '.join(first.moving)} judge a node by what else was placed")
    return count_per_node(first)


def judge_first_copy(scheduler: Scheduler, pod: Pod, index: int = 0) -> Union[FirstCopy, CountRefused]:
    """The first copy's Filter pass over every node, or why counting cannot start from it."""
    refused = _self_dependent(pod)
    if refused is not None:
        return CountRefused(refused)
    cycle = Cycle(scheduler, index, pod, queue_view=[pod.key])
    pre, passed = cycle.feasibility()
    if pre.status is not None:
        return CountRefused(f"PreFilter rejects the pod ({pre.status.message}): the pass shows its message")
    if not pre.result.all_nodes:
        return CountRefused("PreFilter narrows the nodes to look at: the pass shows the message for the rest")
    plugins = cycle.fw.active_filter_plugins(cycle.state)
    fit = next((p for p in plugins if p.name == names.NODE_RESOURCES_FIT), None)
    checked = fit.checked_requests(cycle.state) if isinstance(fit, Fit) else None
    if checked is None and isinstance(fit, Fit) and fit.delegates(cycle.state):
        return CountRefused(
            "the pod asks for an extended resource a DeviceClass stands for: devices, not counts, decide"
        )
    if checked is None:
        return CountRefused("NodeResourcesFit does not run for this pod")
    return FirstCopy(cycle, passed, [p.name for p in plugins], checked, has_host_ports(pod))


def count_per_node(first: FirstCopy) -> Union[Counted, CountRefused]:
    """Each node's room, for copies whose Filter verdicts elsewhere do not move (the caller checked)."""
    cycle, passed = first.cycle, first.passed
    statuses = first_failures(cycle, passed.evaluated, passed.verdicts)
    if statuses is None:
        return CountRefused("a Filter plugin answered with an error: the pass shows it")
    feasible = passed.feasible
    counts = node_room(cycle.snapshot.table, feasible, first.checked, first.host_ports)
    next_statuses = full_node_statuses(cycle, feasible, counts, first.checked, first.host_ports, first.active)
    if next_statuses is None:
        return CountRefused("NodeResourcesFit disagrees with the count on some node")
    statuses.update(next_statuses)
    names_ = cycle.snapshot.table.names
    per_node = {names_[int(p)]: int(c) for p, c in zip(feasible.tolist(), counts.tolist()) if c > 0}
    return Counted(dict(sorted(per_node.items())), failed_message(cycle, statuses))


def _self_dependent(pod: Pod) -> Optional[str]:
    """Why the pod's own constraints can make one copy's place decide another's (None: they cannot)."""
    affinity = pod.affinity
    if affinity is not None and (
        (affinity.pod_affinity and affinity.pod_affinity.required)
        or (affinity.pod_anti_affinity and affinity.pod_anti_affinity.required)
    ):
        return "the pod has required pod (anti-)affinity: copies may match it"
    return None


def has_host_ports(pod: Pod) -> bool:
    return any(port.host_port > 0 for container in (*pod.init_containers, *pod.containers) for port in container.ports)


def first_failures(
    cycle: Cycle, evaluated: np.ndarray, verdicts: list[tuple[str, FilterVerdicts]]
) -> Optional[dict[str, Status]]:
    """Each node the first copy does not fit: its first failing plugin's status, as the cycle
    reports it (None when one is an Error: the cycle fails with it instead)."""
    names_ = cycle.snapshot.table.names
    out: dict[str, Status] = {}
    undecided = np.ones(len(evaluated), dtype=bool)
    for plugin, verdict in verdicts:
        failing = np.flatnonzero(undecided & (verdict.choice >= 0))
        undecided[failing] = False
        for position, choice in zip(evaluated[failing].tolist(), verdict.choice[failing].tolist()):
            status = filter_failure_status(plugin, verdict.palette[choice])
            if status.code == Code.ERROR:
                return None
            out[names_[position]] = status
    return out


def node_room(
    table: NodeTable[NodeInfo], feasible: np.ndarray, checked: list[tuple[str, int]], host_ports: bool
) -> np.ndarray:
    """How many copies each feasible node takes: its free pod slots and free // request of every
    checked resource, the smallest; one with host ports (the second would conflict)."""
    room: np.ndarray = table.allocatable_of(PODS)[feasible] - table.pod_count[feasible]
    for resource, wanted in checked:
        free = table.allocatable_of(resource)[feasible] - table.requested_of(resource)[feasible]
        room = np.minimum(room, free // wanted)
    room = np.maximum(room, 0)
    if host_ports:
        room = np.minimum(room, 1)
    return room


def full_node_statuses(
    cycle: Cycle,
    feasible: np.ndarray,
    counts: np.ndarray,
    checked: list[tuple[str, int]],
    host_ports: bool,
    active: list[str],
) -> Optional[dict[str, Status]]:
    """The statuses the copy after the last gets on the nodes that took copies: the first of
    NodePorts (taken by the copy there) and NodeResourcesFit (judged with the copies counted in)
    in Filter order. None when Fit contradicts a count (a copy fewer must fit everywhere)."""
    table = cycle.snapshot.table
    fewer = counts - 1
    if checked_shortfall_verdicts(checked, table, feasible, added_requests(checked, fewer), fewer) is not None:
        return None
    unresolvable = fit_unresolvable(cycle.fw)
    full = checked_shortfall_verdicts(checked, table, feasible, added_requests(checked, counts), counts, unresolvable)
    ports_first = host_ports and active.index(names.NODE_PORTS) < active.index(names.NODE_RESOURCES_FIT)
    ports = filter_failure_status(names.NODE_PORTS, Status.unschedulable(REASON_PORTS))
    out: dict[str, Status] = {}
    for i, position in enumerate(feasible.tolist()):
        choice = PASS if full is None else int(full.choice[i])
        fit_status = (
            filter_failure_status(names.NODE_RESOURCES_FIT, full.palette[choice])
            if full is not None and choice >= 0
            else None
        )
        if host_ports and (ports_first or fit_status is None):
            out[table.names[position]] = ports
        elif fit_status is not None:
            out[table.names[position]] = fit_status
        else:
            return None  # nothing stops another copy there: the count is short
    return out


def added_requests(checked: list[tuple[str, int]], copies: np.ndarray) -> dict[str, np.ndarray]:
    return {resource: copies * wanted for resource, wanted in checked}


def failed_message(cycle: Cycle, statuses: dict[str, Status]) -> str:
    """The FailedScheduling message of a cycle whose Filter pass ended with ``statuses``."""
    absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    post_message = None
    if cycle.fw.has_post_filter_plugins:
        run = cycle.fw.run_post_filter(cycle.state, cycle.pod, NodeToStatus(statuses, absent))
        post_message = run.message or None
    return fit_error_message(
        len(cycle.snapshot.node_infos),
        node_statuses=statuses,
        absent_reasons=absent.reasons,
        post_filter_message=post_message,
    )
