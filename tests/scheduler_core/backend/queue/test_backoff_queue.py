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


# ---------------------------------------------------------------------------- earlier releases
# v1.32 has no SchedulerPopFromBackoffQ (exact expiries, one heap ordered by expiry, the flush
# every second) and, with v1.33, counts every attempt (release/code.py: backoff_counts_rejections,
# backoff_keeps_errors_apart).


def v132_backoff(clock: LogicalClock, initial_ms: int = INITIAL_MS, max_ms: int = MAX_MS) -> BackoffQueue:
    return BackoffQueue(
        clock, initial_ms, max_ms, by_priority, aligned=False, counts_rejections=False, errors_apart=False
    )


def attempted(clock: LogicalClock, info: QueuedPodInfo) -> QueuedPodInfo:
    """One more pop and failure: Attempts++ at pop, the timestamp refreshed when it comes back."""
    info.attempts += 1
    info.timestamp = clock.now()
    info.backoff_expiration_ms = None
    return info


@pytest.mark.parametrize("step, wanted_ms", list(enumerate([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000])))
def test_v1_32_back_off_flow(step, wanted_ms):
    # TestBackOffFlow of v1.32's scheduling_queue_test.go: the back-off of the (i+1)-th attempt is
    # exactly timestamp + 1 s * 2^i (capped at 10 s); a flush 1 ms later leaves the pod there, a
    # flush once the back-off has passed takes it out.
    clock = LogicalClock()
    backoff = v132_backoff(clock)
    info = QueuedPodInfo(PodInfo(Pod("test-pod", namespace="test-ns")), clock.now())
    for _ in range(step + 1):
        attempted(clock, info)
    timestamp = clock.ms
    backoff.add(info)
    assert backoff.backoff_time(info) - timestamp == wanted_ms
    clock.advance_to(clock.ms + 1)
    assert backoff.pop_all_backoff_completed() == [] and backoff.has(info)
    clock.advance_to(clock.ms + wanted_ms)
    assert backoff.pop_all_backoff_completed() == [info] and not backoff.has(info)


@pytest.mark.parametrize(
    "initial_ms, max_ms, attempts, wanted_ms",
    [
        (1, 32, 16, 32),  # "normal"
        (1, 2**31 - 1, 32, 2**31 - 1),  # "overflow_32bit"
        (1, 2**63 - 1, 64, 2**63 - 1),  # "overflow_64bit"
    ],
    ids=["normal", "overflow_32bit", "overflow_64bit"],
)
def test_v1_32_calculate_backoff_duration_counts_attempts(initial_ms, max_ms, attempts, wanted_ms):
    # TestPriorityQueue_calculateBackoffDuration of v1.32 (nanoseconds there, milliseconds here).
    clock = LogicalClock()
    backoff = v132_backoff(clock, initial_ms, max_ms)
    info = QueuedPodInfo(PodInfo(Pod("p")), clock.now(), attempts=attempts)
    assert backoff.backoff_time(info) - info.timestamp.ms == wanted_ms


@pytest.mark.parametrize("aligned", [True, False], ids=["popFromBackoffQ on", "popFromBackoffQ off"])
@pytest.mark.parametrize("step, wanted_ms", list(enumerate([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000])))
def test_v1_33_back_off_flow(aligned, step, wanted_ms):
    # TestBackOffFlow of v1.33 (both gate settings): with the gate the back-off is rounded up to the
    # ordering window (expiry truncated, +1 s); an early flush leaves the pod, the flush once the
    # back-off has passed takes it out. The clock starts inside a second, as a real one does. The
    # early flush comes 999 ms later, not a window: upstream's fake clock reads the expiry itself
    # there (a 1 s back-off without the gate, !boTime.Before(now) still backing off), a reading the
    # logical clock orders after the pod's failure (backoff_queue's doc), as a real clock would.
    clock = LogicalClock()
    clock.advance_to(250)
    backoff = BackoffQueue(
        clock, INITIAL_MS, MAX_MS, by_priority, aligned=aligned, counts_rejections=False, errors_apart=True
    )
    info = QueuedPodInfo(PodInfo(Pod("test-pod")), clock.now())
    info.unschedulable_plugins = {"NodeResourcesFit"}
    for _ in range(step + 1):
        attempted(clock, info)
    timestamp = clock.ms
    backoff.add(info)
    measured = backoff.backoff_time(info) - timestamp
    if aligned:
        measured = measured - measured % 1000 + 1000
    assert measured == wanted_ms
    clock.advance_to(clock.ms + 999)
    assert backoff.pop_all_backoff_completed() == [] and backoff.has(info)
    clock.advance_to(clock.ms + measured)
    assert backoff.pop_all_backoff_completed() == [info]


def test_before_v1_34_every_attempt_doubles_the_back_off_not_only_the_rejections(clock):
    # getBackoffTime of v1.33 reads Attempts: a pod tried three times (one of them an error, or a
    # failed binding) backs off 4 s; v1.34 on count its one rejection: 1 s.
    info = queued(clock, "a", failures=1)
    info.attempts = 3
    v133 = BackoffQueue(clock, INITIAL_MS, MAX_MS, by_priority, counts_rejections=False)
    assert v133.backoff_time(info) == 4000
    info.backoff_expiration_ms = None
    assert BackoffQueue(clock, INITIAL_MS, MAX_MS, by_priority).backoff_time(info) == 1000


def test_without_the_gate_a_back_off_ends_at_its_exact_time(clock):
    # isPodBackingoff of v1.32: boTime.After(now), boTime = timestamp + duration, not truncated.
    backoff = v132_backoff(clock)
    clock.advance_to(1_750)
    info = attempted(clock, queued(clock, "a", failures=0))
    info.attempts = 2
    info.backoff_expiration_ms = None
    assert backoff.backoff_time(info) == 3_750  # 1.75 s + 2 s, exact
    clock.advance_to(3_749)
    assert backoff.is_backing_off(info)
    clock.advance_to(3_750)
    assert not backoff.is_backing_off(info)  # now is read after the pod failed: the expiry has passed


def test_without_the_gate_only_the_flush_after_the_expiry_takes_a_pod_out(clock):
    # v1.32's flush runs every second from the start (time 0 of the run): a pod failing at 0 s with
    # a 1 s back-off expires on the flush of 1 s, which came first, so it leaves at 2 s; one failing
    # at 1.5 s leaves at 3 s. Nothing is popped from backoffQ in between.
    backoff = v132_backoff(clock)
    early = attempted(clock, queued(clock, "early", failures=0))
    backoff.add(early)
    assert backoff.next_window_after() == 2_000
    clock.advance_to(1_000)
    assert backoff.pop_all_backoff_completed(tick_ms=1_000) == []
    clock.advance_to(1_500)
    late = attempted(clock, queued(clock, "late", failures=0))
    backoff.add(late)
    clock.advance_to(2_000)
    assert backoff.pop_all_backoff_completed(tick_ms=2_000) == [early]
    assert backoff.next_window_after() == 3_000


def test_v1_32_keeps_the_pods_that_failed_with_an_error_in_the_one_heap(clock):
    # v1.32 has no podErrorBackoffQ: a pod without rejecting plugins is ordered with the others
    # by expiry alone, and the flush takes them out in that order.
    backoff = v132_backoff(clock)
    rejected = attempted(clock, queued(clock, "rejected", priority=100))
    broken = attempted(clock, queued(clock, "broken", failures=0, rejected_by=""))
    for info in (rejected, broken):
        info.attempts = 1
        backoff.add(info)
    assert backoff.error_pods.keys() == [] and backoff.pods.keys() == ["default/rejected", "default/broken"]
    clock.advance_to(2_000)
    assert [info.name for info in (i.pod for i in backoff.pop_all_backoff_completed())] == ["rejected", "broken"]
