"""SchedulingGates (schedulinggates): keeps a gated pod out of the active queue.

The plugin has only PreEnqueue, which runs before a pod enters the queue, so it takes part in no
scheduling-cycle extension point and building a profile with it adds nothing to those points.
"""

from __future__ import annotations

from typing import ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod

REASON_WAITING = "waiting for scheduling gates: {gates}"


class SchedulingGates:
    name: ClassVar[str] = names.SCHEDULING_GATES

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        """Pods of our model carry no ``schedulingGates`` unless the loader adds them."""
        gates = tuple(getattr(pod, "scheduling_gates", ()) or ())
        if not gates:
            return None
        return Status.unresolvable(REASON_WAITING.format(gates="[" + " ".join(gates) + "]"))


def new(args: Optional[Mapping], handle) -> SchedulingGates:
    return SchedulingGates()
