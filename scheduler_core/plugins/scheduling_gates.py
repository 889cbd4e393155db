"""SchedulingGates (schedulinggates): keeps a gated pod out of the active queue.

The plugin has only PreEnqueue, which runs before a pod enters the queue, so it takes part in no
scheduling-cycle extension point and building a profile with it adds nothing to those points.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod

REASON_WAITING = "waiting for scheduling gates: {gates}"


class SchedulingGates:
    name: ClassVar[str] = names.SCHEDULING_GATES

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        if not pod.scheduling_gates:
            return None
        return Status.unresolvable(REASON_WAITING.format(gates="[" + " ".join(pod.scheduling_gates) + "]"))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """The pod is tried once all its gates are removed (an update of the pod itself)."""
        event = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
        return [ClusterEventWithHint(event, gates_removed_hint)]


def gates_removed_hint(pod: Pod, old: Optional[Pod], new: Pod) -> QueueingHint:
    """isSchedulableAfterUpdatePodSchedulingGatesEliminated: only the pod's own update counts."""
    return QueueingHint.QUEUE if new.key == pod.key else QueueingHint.QUEUE_SKIP


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> SchedulingGates:
    return SchedulingGates()
