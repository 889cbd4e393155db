"""NodePorts (nodeports): a pod's host ports must be free on the node.

A wanted (hostIP, protocol, port) conflicts with a used one of the same protocol and port when
either side binds 0.0.0.0 or both name the same IP (framework.HostPortInfo.CheckConflict). Host
ports come from the containers and the sidecar init containers (restartPolicy: Always), as
``resources.host_ports`` lists them with the empty IP and protocol already defaulted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import PortFact
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import Pod
from scheduler_core.model.resources import host_ports

REASON_PORTS = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL_IP = "0.0.0.0"

HostPort = tuple[str, str, int]  # (hostIP, protocol, port)


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    wanted: tuple[HostPort, ...]

    def clone(self) -> "_PreFilterState":
        return self  # not affected by adding or removing other pods

    def memo_content(self) -> tuple[HostPort, ...]:
        return self.wanted


_PRE_FILTER = StateKey[_PreFilterState]("PreFilter" + names.NODE_PORTS)


def port_conflicts(used: Mapping[HostPort, int], wanted: HostPort) -> bool:
    ip, protocol, port = wanted
    if port <= 0:
        return False
    if ip == BIND_ALL_IP:
        return any(p == protocol and n == port for (_, p, n) in used)
    return (BIND_ALL_IP, protocol, port) in used or (ip, protocol, port) in used


def fits_ports(wanted: tuple[HostPort, ...], node_info: NodeInfo) -> bool:
    return not any(port_conflicts(node_info.used_ports, port) for port in wanted)


class NodePorts:
    name: ClassVar[str] = names.NODE_PORTS

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.HOST_PORTS, signers.host_ports(pod))]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): pods deleted; a node added (no hint: always)."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), pod_deleted_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        ]

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        wanted = tuple(host_ports(pod))
        if not wanted:
            return None, SKIP
        state.write(_PRE_FILTER, _PreFilterState(wanted))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            return Status.error(f"reading {_PRE_FILTER.name!r} from cycleState: not found")
        return None if fits_ports(pre_filter.wanted, node_info) else Status.unschedulable(REASON_PORTS)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[PortFact, ...]:
        """Each wanted host port in use on the node, with the node's pods holding it (explanations only)."""
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            return ()
        facts = []
        for wanted in pre_filter.wanted:
            if not port_conflicts(node_info.used_ports, wanted):
                continue
            users = tuple(
                info.pod.key
                for info in node_info.pods
                if port_conflicts({port: 1 for port in host_ports(info.pod)}, wanted)
            )
            ip, protocol, port = wanted
            facts.append(PortFact(REASON_PORTS, protocol, ip, port, users))
        return tuple(facts)

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        """Only nodes running pods can have used ports: those few are checked in Python."""
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            error = Status.error(f"reading {_PRE_FILTER.name!r} from cycleState: not found")
            return FilterVerdicts.from_mask(np.ones(len(positions), dtype=bool), error)
        occupied = np.flatnonzero(table.pod_count[positions] > 0)
        if not len(occupied):
            return None
        infos = table.node_infos
        wanted = pre_filter.wanted
        failed = np.zeros(len(positions), dtype=bool)
        for i, position in zip(occupied.tolist(), positions[occupied].tolist()):
            used = infos[position].used_ports
            if used and not fits_ports(wanted, infos[position]):
                failed[i] = True
        return FilterVerdicts.from_mask(failed, Status.unschedulable(REASON_PORTS))


def pod_deleted_hint(pod: Pod, old: Pod, new: Optional[Pod]) -> QueueingHint:
    """isSchedulableAfterPodDeleted: the deleted pod (bound, or nominated) held a host port the
    pod wants."""
    if not old.node_name and not old.nominated_node_name:
        return QueueingHint.QUEUE_SKIP
    freed = tuple(host_ports(old))
    if not freed:
        return QueueingHint.QUEUE_SKIP
    in_use: dict[HostPort, int] = {port: 1 for port in freed}
    conflict = any(port_conflicts(in_use, wanted) for wanted in host_ports(pod))
    return QueueingHint.QUEUE if conflict else QueueingHint.QUEUE_SKIP


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> NodePorts:
    return NodePorts()
