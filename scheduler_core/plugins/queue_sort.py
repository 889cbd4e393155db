"""PrioritySort (queuesort): the scheduling queue's order.

Higher ``spec.priority`` first; equal priorities keep their arrival order. The real queue
compares the time a pod was added; our stand-in for that timestamp is the pod's position in the
scenario file (``doc_index``).
"""

from __future__ import annotations

from typing import ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.model import Pod


class PrioritySort:
    name: ClassVar[str] = names.PRIORITY_SORT

    def less(self, a: Pod, b: Pod) -> bool:
        """True when ``a`` should be scheduled before ``b``."""
        return a.priority > b.priority or (a.priority == b.priority and a.doc_index < b.doc_index)


def new(args: Optional[Mapping], handle) -> PrioritySort:
    return PrioritySort()
