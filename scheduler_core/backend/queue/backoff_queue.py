"""backoffQ (backend/queue/backoff_queue.go): pods waiting out their back-off.

With SchedulerPopFromBackoffQ (on in v1.35) back-off times are aligned to one-second windows, and
the queue orders pods by back-off expiry, then as activeQ does; when activeQ is empty the
scheduler pops from here at once, back-off or not. Pods that came back after an error (no
rejecting plugin) wait in a separate queue that is only flushed when their back-off ends.

Without the gate (v1.32 has none, and it can be turned off from v1.33) a back-off ends at its
exact time, pods are ordered by expiry alone and only the flush takes them out; v1.32 keeps the
pods that failed with an error in the same heap. Before v1.34 the back-off doubles with every
attempt (``Attempts``), not with the rejections (``backoff_counts_rejections``).

The flush runs once a second on whole seconds of the logical clock: v1.33 on aligns it to the
ordering window, v1.32 runs it every second from the scheduler's start, which is time 0 of a run
(the queue starts before the first pod is tried). A flush at second T, which comes before
anything else at T, ends the back-off of a pod whose expiry is before T (the pod failed a moment
after the flush of its own second, so an expiry on T itself is still ahead of that flush).
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
        self,
        clock: LogicalClock,
        initial_backoff_ms: int,
        max_backoff_ms: int,
        active_sort_key: SortKey,
        *,
        aligned: bool = True,
        counts_rejections: bool = True,
        errors_apart: bool = True,
    ) -> None:
        self.clock = clock
        self.initial_backoff_ms = initial_backoff_ms
        self.max_backoff_ms = max_backoff_ms
        self.aligned = aligned  # SchedulerPopFromBackoffQ: windows of a second, popped when activeQ is empty
        self.counts_rejections = counts_rejections  # v1.34 on: UnschedulableCount / ConsecutiveErrorsCount
        self.errors_apart = errors_apart  # v1.33 on: podErrorBackoffQ
        key = lambda info: info.key  # noqa: E731 - the heaps' item key
        # lessBackoffCompletedWithPriority: expiry, then activeQ's own order; without the gate
        # lessBackoffCompleted: expiry only (the timestamp keeps equal expiries deterministic).
        by_expiry = lambda info: (self.backoff_time(info), info.timestamp)  # noqa: E731
        self.pods: KeyedHeap[QueuedPodInfo] = KeyedHeap(
            key, (lambda info: (self.backoff_time(info), *active_sort_key(info))) if aligned else by_expiry
        )
        # lessBackoffCompleted: expiry only (the timestamp keeps equal expiries deterministic).
        self.error_pods: KeyedHeap[QueuedPodInfo] = KeyedHeap(key, by_expiry)

    # ------------------------------------------------------------------ back-off arithmetic

    def backoff_time(self, info: QueuedPodInfo) -> int:
        """getBackoffTime: when the pod's back-off ends (ms, window-aligned with the gate), cached
        on the pod until its next failure."""
        if self.counts_rejections:
            if self.max_backoff_ms == 0:
                return NO_BACKOFF_MS
            count = info.consecutive_errors_count or info.unschedulable_count
        else:
            count = info.attempts  # every pop counts, an error or a failed binding too
        if count == 0:
            return NO_BACKOFF_MS
        if info.backoff_expiration_ms is None:
            duration = self.backoff_duration(count) if self.counts_rejections else self.doubled_backoff(count)
            expiry = info.timestamp.ms + duration
            info.backoff_expiration_ms = truncate_to_second(expiry) if self.aligned else expiry
        return info.backoff_expiration_ms

    def backoff_duration(self, count: int) -> int:
        """calculateBackoffDuration: the initial back-off doubled per failure, capped (v1.32's
        doubling loop with its overflow guard gives the same values)."""
        shift = count - 1
        if self.initial_backoff_ms > self.max_backoff_ms >> shift:
            return self.max_backoff_ms
        return self.initial_backoff_ms << shift

    def doubled_backoff(self, attempts: int) -> int:
        """calculateBackoffDuration before v1.34: the initial back-off, doubled once per attempt
        after the first while that stays under the maximum (a first attempt gets the initial
        back-off whatever the maximum; configuration validation keeps the maximum above it)."""
        duration = self.initial_backoff_ms
        for _ in range(1, attempts):
            if duration > self.max_backoff_ms - duration:
                return self.max_backoff_ms
            duration += duration
        return duration

    def is_backing_off(self, info: QueuedPodInfo) -> bool:
        """isPodBackingoff: with the gate, the back-off has not ended before the current window;
        without it, the expiry is after now (a reading taken after the pod failed, so an expiry
        on this very millisecond has passed)."""
        if self.aligned:
            return not self.backoff_time(info) < truncate_to_second(self.clock.ms)
        return self.backoff_time(info) > self.clock.ms

    # ------------------------------------------------------------------ contents

    def add(self, info: QueuedPodInfo) -> None:
        """A pod without rejecting plugins (it failed with an error) goes to the error queue."""
        if self.errors_apart and not info.unschedulable_plugins and not info.pending_plugins:
            self.error_pods.add_or_update(info)
            self.pods.delete(info)
        else:
            self.pods.add_or_update(info)
            self.error_pods.delete(info)

    def pop_all_backoff_completed(self, tick_ms: Optional[int] = None) -> list[QueuedPodInfo]:
        """popAllBackoffCompleted (flushBackoffQCompleted before v1.33): the pods no longer backing
        off, rejected ones first. ``tick_ms``: the flush of that second, which comes before
        anything else then (the module's doc), ends only the back-offs that expired before it."""
        backing_off: Callable[[QueuedPodInfo], bool] = self.is_backing_off
        if tick_ms is not None:
            backing_off = lambda info: self.backoff_time(info) >= tick_ms  # noqa: E731
        done: list[QueuedPodInfo] = []
        for heap in (self.pods, self.error_pods):
            while (head := heap.peek()) is not None and not backing_off(head):
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
        """When an error-queue pod's back-off ends (the pump wakes at window boundaries). Without
        SchedulerPopFromBackoffQ nothing is popped from here: the flush that ends the first
        back-off of either heap (the second after its expiry)."""
        if not self.aligned:
            heads = [head for head in (self.pods.peek(), self.error_pods.peek()) if head is not None]
            if not heads:
                return None
            first = min(self.backoff_time(head) for head in heads)
            return max(truncate_to_second(first), truncate_to_second(self.clock.ms)) + MS_PER_SECOND
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
