"""NodeUnschedulable (nodeunschedulable): a cordoned node takes only pods that tolerate it.

A pod tolerating the ``node.kubernetes.io/unschedulable:NoSchedule`` taint also tolerates
``spec.unschedulable``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.filter_facts import NodeFact
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Node, Pod, Taint, TaintEffect
from scheduler_core.plugins.helper import same_pod, tolerations_tolerate_taint

REASON_UNSCHEDULABLE = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", TaintEffect.NO_SCHEDULE.value)


class NodeUnschedulable:
    name: ClassVar[str] = names.NODE_UNSCHEDULABLE

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.TOLERATIONS, signers.tolerations(pod))]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): a node added or its taints (spec.unschedulable
        included) updated; a pod's tolerations updated."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), node_changed_hint
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION), pod_toleration_changed_hint
            ),
        ]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if not node_info.node.unschedulable:
            return None
        if tolerations_tolerate_taint(pod.tolerations, UNSCHEDULABLE_TAINT):
            return None
        return Status.unresolvable(REASON_UNSCHEDULABLE)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[NodeFact, ...]:
        """Explanations only: the cordon, which no toleration of the pod covers."""
        if self.filter(state, pod, node_info) is None:
            return ()
        return (
            NodeFact(
                REASON_UNSCHEDULABLE,
                "the node is cordoned (spec.unschedulable: true) and the pod does not "
                "tolerate node.kubernetes.io/unschedulable:NoSchedule",
            ),
        )

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        cordoned = table.unschedulable[positions]
        if not np.logical_or.reduce(cordoned) or tolerations_tolerate_taint(pod.tolerations, UNSCHEDULABLE_TAINT):
            return None
        return FilterVerdicts.from_mask(cordoned, Status.unresolvable(REASON_UNSCHEDULABLE))


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> NodeUnschedulable:
    return NodeUnschedulable()


def node_changed_hint(pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
    """isSchedulableAfterNodeChange: only a node that becomes schedulable — uncordoned, or added
    schedulable — may help; a cordon, a node added cordoned or another taint change do not."""
    if old is None:
        return QueueingHint.QUEUE_SKIP if new.unschedulable else QueueingHint.QUEUE
    return QueueingHint.QUEUE if old.unschedulable and not new.unschedulable else QueueingHint.QUEUE_SKIP


def pod_toleration_changed_hint(pod: Pod, old: Optional[Pod], new: Pod) -> QueueingHint:
    """isSchedulableAfterPodTolerationChange: the rejected pod itself now tolerating the
    unschedulable taint (tolerations can only be added, so the old version did not)."""
    if same_pod(pod, new) and tolerations_tolerate_taint(new.tolerations, UNSCHEDULABLE_TAINT):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP
