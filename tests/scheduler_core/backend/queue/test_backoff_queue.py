"""backoffQ rules, each after the release's function in pkg/scheduler/backend/queue/backoff_queue.go."""

from __future__ import annotations

import pytest

from scheduler_core.backend.queue.backoff_queue import BackoffQueue
from scheduler_core.backend.queue.clock import LogicalClock
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.model import Pod

INITIAL_MS, MAX_MS = 1000, 10_000


def queued(
    clock: LogicalClock,
    name: str,
    *,
    failures: int = 1,
    priority: int = 0,
    rejected_by: str = "NodeResourcesFit",
    errors: int = 0,
) -> QueuedPodInfo:
    info = QueuedPodInfo(PodInfo(Pod(name, priority=priority)), clock.now())
    info.unschedulable_count = failures
    info.consecutive_errors_count = errors
    if rejected_by:
        info.unschedulable_plugins = {rejected_by}
    return info


def by_priority(info: QueuedPodInfo) -> tuple:
    return (-info.pod.priority, info.timestamp)


@pytest.fixture
def clock() -> LogicalClock:
    return LogicalClock()


@pytest.fixture
def backoff(clock: LogicalClock) -> BackoffQueue:
    return BackoffQueue(clock, INITIAL_MS, MAX_MS, by_priority)


@pytest.mark.parametrize("failures, wanted_ms", [(1, 1000), (2, 2000), (3, 4000), (4, 8000), (5, 10_000), (40, 10_000)])
def test_calculate_backoff_duration_doubles_from_one_second_up_to_ten(backoff, failures, wanted_ms):
    # calculateBackoffDuration: initial << (count-1), capped at max (with the overflow guard).
    assert backoff.backoff_duration(failures) == wanted_ms


def test_get_backoff_time_is_aligned_to_the_one_second_window(clock, backoff):
    # getBackoffTime with SchedulerPopFromBackoffQ: (timestamp + duration).Truncate(time.Second).
    clock.advance_to(1_750)
    info = queued(clock, "a", failures=2)
    assert backoff.backoff_time(info) == 3_000  # 1.75 s + 2 s = 3.75 s, truncated


def test_is_pod_backing_off_until_the_window_after_the_expiry(clock, backoff):
    # isPodBackingoff: backoffTime.After(now.Truncate(time.Second)) is "not before the current window".
    info = queued(clock, "a")  # expires at 1000 ms
    clock.advance_to(999)
    assert backoff.is_backing_off(info)
    clock.advance_to(1_000)
    assert backoff.is_backing_off(info)  # 1000 is not before the window starting at 1000
    clock.advance_to(2_000)
    assert not backoff.is_backing_off(info)


def test_a_pod_never_rejected_by_a_plugin_waits_in_the_error_queue(clock, backoff):
    # add: a pod whose last attempt ended in an error (no unschedulable plugins) is kept apart and
    # is not popped by popBackoff when activeQ is empty.
    failed = queued(clock, "broken", failures=0, errors=1, rejected_by="")
    backoff.add(failed)
    assert backoff.pop_backoff() is None and backoff.has(failed) and backoff.len_backoff == 0
    assert backoff.next_window_after() == 1_000


def test_pods_leave_in_expiry_order_then_priority(clock, backoff):
    # lessBackoffCompletedWithPriority: the earlier expiry first, then activeQ's order (priority).
    low = queued(clock, "low", priority=1)
    high = queued(clock, "high", priority=100)
    later = queued(clock, "later", failures=3, priority=1000)  # 4 s
    for info in (later, low, high):
        backoff.add(info)
    clock.advance_to(5_000)
    assert [info.key for info in backoff.pop_all_backoff_completed()] == [
        "default/high",
        "default/low",
        "default/later",
    ]


def test_pop_backoff_takes_the_head_even_while_it_backs_off(clock, backoff):
    # popBackoff (SchedulerPopFromBackoffQ): with activeQ empty the scheduler does not wait.
    info = queued(clock, "a", failures=4)
    backoff.add(info)
    assert backoff.is_backing_off(info) and backoff.pop_backoff() is info


def test_a_pod_that_never_failed_is_not_backing_off_even_in_the_first_second(clock, backoff):
    # getBackoffTime returns the zero time.Time for it, which lies before every window.
    fresh = queued(clock, "fresh", failures=0)
    assert not backoff.is_backing_off(fresh)
    clock.advance_to(999)
    assert not backoff.is_backing_off(fresh)
