"""NodeName (nodename): a pod naming a node in ``spec.nodeName`` fits only that node.

Pending pods of a scenario have no nodeName (a pod with one is already running), so this filter
passes every node for them; the check is kept exact for any caller that asks anyway.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod

REASON_NODE_NAME = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == node_info.name


class NodeName:
    name: ClassVar[str] = names.NODE_NAME

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.NODE_NAME, pod.node_name)]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on). Nodes and a pod's tolerations never change during a
        SchedLab run, so these registrations only declare the plugin's interest (what the queue's
        isEventOfInterest reads); the release's hints for them are never asked and are not ported."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        return None if fits(pod, node_info) else Status.unresolvable(REASON_NODE_NAME)

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        if not pod.node_name:
            return None
        wanted = table.index.get(pod.node_name, -1)
        return FilterVerdicts.from_mask(positions != wanted, Status.unresolvable(REASON_NODE_NAME))


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> NodeName:
    return NodeName()
