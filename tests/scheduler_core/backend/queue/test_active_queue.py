"""activeQ (backend/queue/active_queue.go): QueueSort order, popping from backoffQ when empty
(SchedulerPopFromBackoffQ), and the in-flight pods and events (inFlightPods / inFlightEvents)."""

from __future__ import annotations

from scheduler_core.backend.queue.active_queue import ActiveQueue, InFlightEvent
from scheduler_core.backend.queue.backoff_queue import BackoffQueue
from scheduler_core.backend.queue.clock import LogicalClock
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.model import Pod

NODE_ADDED = ClusterEvent(EventResource.NODE, ActionType.ADD)
POD_DELETED = ClusterEvent(EventResource.POD, ActionType.DELETE)


def by_priority(info: QueuedPodInfo) -> tuple:
    return (-info.pod.priority, info.timestamp)


def _queue() -> tuple[ActiveQueue, LogicalClock]:
    clock = LogicalClock()
    return ActiveQueue(by_priority, BackoffQueue(clock, 1000, 10_000, by_priority)), clock


def _info(clock: LogicalClock, name: str, priority: int = 0) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(Pod(name, priority=priority)), clock.now())


def test_pop_takes_the_highest_priority_counts_the_attempt_and_clears_the_last_rejection():
    queue, clock = _queue()
    low, high = _info(clock, "low", 1), _info(clock, "high", 9)
    high.unschedulable_plugins = {"NodeResourcesFit"}
    high.gating_plugin = "SchedulingGates"
    queue.add(low)
    queue.add(high)
    assert queue.keys() == ["default/high", "default/low"]
    popped, from_backoff = queue.pop()
    assert (popped, from_backoff) == (high, False)
    assert (popped.attempts, popped.unschedulable_plugins, popped.gated) == (1, set(), False)
    assert queue.scheduling_cycle == 1 and queue.is_in_flight("default/high")


def test_an_empty_active_queue_pops_from_the_backoff_queue():
    queue, clock = _queue()
    waiting = _info(clock, "waiting")
    waiting.unschedulable_plugins = {"NodeResourcesFit"}
    queue.backoff.add(waiting)
    assert queue.can_pop()
    assert queue.pop() == (waiting, True)
    assert not queue.can_pop()
    assert queue.pop() == (None, False)


def test_events_are_kept_only_while_a_pod_is_in_flight_and_given_to_the_pods_popped_before_them():
    queue, clock = _queue()
    assert not queue.add_event_if_any_in_flight(NODE_ADDED, None, "n1")
    for name in ("a", "b"):
        queue.add(_info(clock, name))
    queue.pop()  # a
    assert queue.add_event_if_any_in_flight(NODE_ADDED, None, "n1")
    queue.pop()  # b
    assert queue.add_event_if_any_in_flight(POD_DELETED, "p", None)
    assert queue.cluster_events_for_pod("default/a") == [
        InFlightEvent(NODE_ADDED, None, "n1"),
        InFlightEvent(POD_DELETED, "p", None),
    ]
    assert queue.cluster_events_for_pod("default/b") == [InFlightEvent(POD_DELETED, "p", None)]
    queue.done("default/a")  # the node event only a needed is dropped
    assert queue._in_flight == ["default/b", InFlightEvent(POD_DELETED, "p", None)]
    queue.done("default/b")
    assert queue._in_flight == [] and not queue.is_in_flight("default/b")


def test_without_pop_from_backoff_an_empty_active_queue_has_nothing_to_pop():
    # unlockedPop without SchedulerPopFromBackoffQ (v1.32): activeQ alone; backoffQ waits for the flush.
    clock = LogicalClock()
    backoff = BackoffQueue(clock, 1000, 10_000, by_priority)
    waiting = _info(clock, "waiting")
    waiting.unschedulable_count = 1
    waiting.unschedulable_plugins = {"NodeResourcesFit"}
    backoff.add(waiting)
    queue = ActiveQueue(by_priority, None)
    assert not queue.can_pop() and queue.pop() == (None, False) and backoff.has(waiting)
