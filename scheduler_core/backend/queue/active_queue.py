"""activeQ (backend/queue/active_queue.go): pods ready to be tried, in QueueSort order.

It also tracks the pods being scheduled ("in flight") and the cluster events that happen
meanwhile, so a pod that fails can be requeued at once when such an event could have helped it.
"""

from __future__ import annotations

from dataclasses import dataclass
import builtins
from typing import Any, Callable, Optional

from scheduler_core.backend.queue.backoff_queue import BackoffQueue
from scheduler_core.backend.queue.heap import KeyedHeap
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.framework.cluster_events import ClusterEvent


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    event: ClusterEvent
    old: Any
    new: Any


class ActiveQueue:
    def __init__(
        self, sort_key: Callable[[QueuedPodInfo], tuple[object, ...]], backoff: Optional[BackoffQueue]
    ) -> None:
        self.queue = KeyedHeap(lambda info: info.key, sort_key)
        # SchedulerPopFromBackoffQ: popped from when activeQ is empty (None without the gate: the
        # scheduler waits for the flush).
        self.backoff = backoff
        # The in-flight list interleaves pods (their keys) and events, in arrival order.
        self._in_flight: list[Any] = []
        self.scheduling_cycle = 0

    def add(self, info: QueuedPodInfo) -> None:
        self.queue.add_or_update(info)

    def has(self, info: QueuedPodInfo) -> bool:
        return self.queue.has(info)

    def get(self, key: str) -> Optional[QueuedPodInfo]:
        return self.queue.get(key)

    def delete(self, info: QueuedPodInfo) -> bool:
        return self.queue.delete(info)

    def __len__(self) -> int:
        return len(self.queue)

    def can_pop(self) -> bool:
        return len(self.queue) > 0 or (self.backoff is not None and self.backoff.len_backoff > 0)

    def pop(self) -> tuple[Optional[QueuedPodInfo], bool]:
        """unlockedPop: the head of activeQ, else of backoffQ. Returns (pod, popped from backoffQ)."""
        info = self.queue.pop()
        from_backoff = info is None
        if info is None:
            if self.backoff is None:
                return None, False
            info = self.backoff.pop_backoff()
            if info is None:
                return None, False
        info.attempts += 1
        self._in_flight.append(info.key)
        self.scheduling_cycle += 1
        info.unschedulable_plugins.clear()
        info.pending_plugins.clear()
        info.gating_plugin = ""
        info.gating_plugin_events = []
        return info, from_backoff

    # ------------------------------------------------------------------ in-flight pods and events

    def is_in_flight(self, key: str) -> bool:
        return key in self._in_flight

    def add_event_if_any_in_flight(self, event: ClusterEvent, old: Any, new: Any) -> bool:
        if not any(isinstance(item, str) for item in self._in_flight):
            return False
        self._in_flight.append(InFlightEvent(event, old, new))
        return True

    def cluster_events_for_pod(self, key: str) -> list[InFlightEvent]:
        """The events received since the pod was popped."""
        index = self._in_flight.index(key)
        return [item for item in self._in_flight[index + 1 :] if isinstance(item, InFlightEvent)]

    def done(self, key: str) -> None:
        """The pod left flight: forget it, and the events no in-flight pod can still need."""
        if key not in self._in_flight:
            return
        self._in_flight.remove(key)
        while self._in_flight and isinstance(self._in_flight[0], InFlightEvent):
            self._in_flight.pop(0)

    def list(self) -> list[QueuedPodInfo]:
        return list(self.queue)

    def keys(self) -> builtins.list[str]:  # `list` is the method here
        """The pods' keys in pop order."""
        return self.queue.keys()
