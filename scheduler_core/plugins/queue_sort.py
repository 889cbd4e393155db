"""PrioritySort (queuesort): the scheduling queue's order.

Higher ``spec.priority`` first; equal priorities by the time the pod was (re)added to the queue.
A single pass has no queue: there the stand-in for that time is the pod's position in the
scenario file (``doc_index``), the order in which the pods were created.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework.interfaces import Handle
from scheduler_core.model import Pod


class PrioritySort:
    name: ClassVar[str] = names.PRIORITY_SORT

    def less(self, a: Pod, b: Pod) -> bool:
        """True when ``a`` should be scheduled before ``b``."""
        return a.priority > b.priority or (a.priority == b.priority and a.doc_index < b.doc_index)

    def queue_key(self, info: Any) -> tuple[Any, ...]:
        """Less on QueuedPodInfo as a sort key: priority first, then the queue's timestamp."""
        return (-info.pod.priority, info.timestamp)


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> PrioritySort:
    return PrioritySort()
