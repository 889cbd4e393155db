"""backoffQ (backend/queue/backoff_queue.go): pods waiting out their back-off.

With SchedulerPopFromBackoffQ (on in v1.35) back-off times are aligned to one-second windows, and
the queue orders pods by back-off expiry, then as activeQ does; when activeQ is empty the
scheduler pops from here at once, back-off or not. Pods that came back after an error (no
rejecting plugin) wait in a separate queue that is only flushed when their back-off ends.
"""

from __future__ import annotations

import builtins
from typing import Callable, Optional

from scheduler_core.backend.queue.clock import MS_PER_SECOND, LogicalClock, truncate_to_second
from scheduler_core.backend.queue.heap import KeyedHeap
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo

SortKey = Callable[[QueuedPodInfo], tuple[object, ...]]
# getBackoffTime's zero time.Time for a pod that never failed: before every clock reading (the
# logical clock starts at 0, so 0 itself would read as "backing off" for the first second).
NO_BACKOFF_MS = -1


class BackoffQueue:
    def __init__(
        self, clock: LogicalClock, initial_backoff_ms: int, max_backoff_ms: int, active_sort_key: SortKey
    ) -> None:
        self.clock = clock
        self.initial_backoff_ms = initial_backoff_ms
        self.max_backoff_ms = max_backoff_ms
        key = lambda info: info.key  # noqa: E731 - the heaps' item key
        # lessBackoffCompletedWithPriority: expiry, then activeQ's own order.
        self.pods: KeyedHeap[QueuedPodInfo] = KeyedHeap(
            key, lambda info: (self.backoff_time(info), *active_sort_key(info))
        )
        # lessBackoffCompleted: expiry only (the timestamp keeps equal expiries deterministic).
        self.error_pods: KeyedHeap[QueuedPodInfo] = KeyedHeap(
            key, lambda info: (self.backoff_time(info), info.timestamp)
        )

    # ------------------------------------------------------------------ back-off arithmetic

    def backoff_time(self, info: QueuedPodInfo) -> int:
        """getBackoffTime: when the pod's back-off ends (ms, window-aligned), cached on the pod."""
        if self.max_backoff_ms == 0:
            return NO_BACKOFF_MS
        count = info.consecutive_errors_count or info.unschedulable_count
        if count == 0:
            return NO_BACKOFF_MS
        if info.backoff_expiration_ms is None:
            duration = self.backoff_duration(count)
            info.backoff_expiration_ms = truncate_to_second(info.timestamp.ms + duration)
        return info.backoff_expiration_ms

    def backoff_duration(self, count: int) -> int:
        """calculateBackoffDuration: the initial back-off doubled per failure, capped."""
        shift = count - 1
        if self.initial_backoff_ms > self.max_backoff_ms >> shift:
            return self.max_backoff_ms
        return self.initial_backoff_ms << shift

    def is_backing_off(self, info: QueuedPodInfo) -> bool:
        """isPodBackingoff: the back-off has not ended before the current window."""
        return not self.backoff_time(info) < truncate_to_second(self.clock.ms)

    # ------------------------------------------------------------------ contents

    def add(self, info: QueuedPodInfo) -> None:
        """A pod without rejecting plugins (it failed with an error) goes to the error queue."""
        if not info.unschedulable_plugins and not info.pending_plugins:
            self.error_pods.add_or_update(info)
            self.pods.delete(info)
        else:
            self.pods.add_or_update(info)
            self.error_pods.delete(info)

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        done: list[QueuedPodInfo] = []
        for heap in (self.pods, self.error_pods):
            while (head := heap.peek()) is not None and not self.is_backing_off(head):
                popped = heap.pop()  # the head just peeked
                assert popped is not None
                done.append(popped)
        return done

    def pop_backoff(self) -> Optional[QueuedPodInfo]:
        """popBackoff: the head of the (non-error) back-off queue, back-off or not."""
        return self.pods.pop()

    def delete(self, info: QueuedPodInfo) -> bool:
        return self.pods.delete(info) or self.error_pods.delete(info)

    def get(self, key: str) -> Optional[QueuedPodInfo]:
        return self.pods.get(key) or self.error_pods.get(key)

    def has(self, info: QueuedPodInfo) -> bool:
        return self.pods.has(info) or self.error_pods.has(info)

    def update(self, info: QueuedPodInfo) -> None:
        """Re-sort an updated pod in whichever queue holds it."""
        for heap in (self.pods, self.error_pods):
            if heap.has(info):
                heap.add_or_update(info)

    def next_window_after(self) -> Optional[int]:
        """When an error-queue pod's back-off ends (the pump wakes at window boundaries)."""
        head = self.error_pods.peek()
        if head is None:
            return None
        return max(self.backoff_time(head), truncate_to_second(self.clock.ms) + MS_PER_SECOND)

    def __len__(self) -> int:
        return len(self.pods) + len(self.error_pods)

    @property
    def len_backoff(self) -> int:
        return len(self.pods)

    def list(self) -> list[QueuedPodInfo]:
        return [*self.pods, *self.error_pods]

    def keys(self) -> builtins.list[str]:  # `list` is the method here
        """The pods' keys as ``list`` orders them."""
        return [*self.pods.keys(), *self.error_pods.keys()]
