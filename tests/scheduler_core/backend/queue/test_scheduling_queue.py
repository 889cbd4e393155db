"""The scheduling queue's rules, each after the release's function in backend/queue/scheduling_queue.go
and nominator.go: which queue a failed pod goes to, which cluster events move it back (the rejecting
plugins' queueing hints only), events seen while it was in flight, and the nominator."""

from __future__ import annotations

import pytest

from scheduler_core.backend.queue.clock import LogicalClock
from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE, MODE_NOOP, NominatingInfo
from scheduler_core.backend.queue.scheduling_queue import HintFunction, PreEnqueuePlugin, QueueName, SchedulingQueue
from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource, QueueingHint
from scheduler_core.framework.status import Status
from scheduler_core.model import Pod

POD_DELETED = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
NODE_ADDED = ClusterEvent(EventResource.NODE, ActionType.ADD)
POD_ADDED = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)


def only_for(name: str):
    """A hint that queues the pod only when the event's object is the pod named `name`."""
    return lambda pod, old, new: (
        QueueingHint.QUEUE if getattr(new or old, "name", "") == name else QueueingHint.QUEUE_SKIP
    )


@pytest.fixture
def clock() -> LogicalClock:
    return LogicalClock()


@pytest.fixture
def queue(clock: LogicalClock) -> SchedulingQueue:
    hints = {
        ClusterEvent(EventResource.POD, ActionType.DELETE): [HintFunction("NodeResourcesFit", None)],
        ClusterEvent(EventResource.NODE, ActionType.ADD): [
            HintFunction("NodeResourcesFit", None),
            HintFunction("TaintToleration", None),
        ],
        ClusterEvent(EventResource.POD, ActionType.ADD): [HintFunction("InterPodAffinity", only_for("a"))],
    }
    sort_key = lambda info: (-info.pod.priority, info.timestamp)  # noqa: E731 - PrioritySort
    return SchedulingQueue(
        clock, sort_key, {"default-scheduler": hints}, {}, 1000, 10_000, lambda pod: bool(pod.node_name)
    )


def fail(queue: SchedulingQueue, pod: Pod, *plugins: str):
    """One attempt that ended Unschedulable by `plugins` (or in an error without any)."""
    queue.add(pod)
    info = queue.pop()
    assert info.pod is pod
    info.unschedulable_plugins = set(plugins)
    queue.add_unschedulable_if_not_present(info)
    return info


def test_a_pod_rejected_by_plugins_waits_in_unschedulable_pods(queue):
    # AddUnschedulableIfNotPresent: no event seen in flight -> unschedulablePods.
    fail(queue, Pod("p"), "NodeResourcesFit")
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]


def test_a_pod_that_failed_with_an_error_goes_to_backoff(queue):
    # determineSchedulingHintForInFlightPod: no rejector plugins -> queueAfterBackoff.
    info = fail(queue, Pod("p"))
    assert queue.where()[QueueName.BACKOFF] == ["default/p"] and info.consecutive_errors_count == 1


def test_only_the_rejecting_plugins_hints_move_a_pod(queue):
    # isPodWorthRequeuing: TaintToleration registers Node/Add, but only NodeResourcesFit rejected p.
    fail(queue, Pod("p"), "TaintToleration")
    queue.move_all_to_active_or_backoff(POD_DELETED, Pod("x", node_name="n1"), None)
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]  # no TaintToleration hint for pod deletes
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]  # back off first: it was tried a moment ago
    assert queue.moves[-1].plugins == ("TaintToleration",)


def test_a_hint_that_says_skip_keeps_the_pod_where_it_is(queue):
    # The InterPodAffinity hint queues only for a pod named "a".
    fail(queue, Pod("b"), "InterPodAffinity")
    queue.move_all_to_active_or_backoff(POD_ADDED, None, Pod("other", node_name="n1"))
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/b"]
    queue.move_all_to_active_or_backoff(POD_ADDED, None, Pod("a", node_name="n1"))
    assert queue.where()[QueueName.BACKOFF] == ["default/b"]


def test_an_event_seen_while_the_pod_was_in_flight_requeues_it_at_once(queue):
    # activeQ records events during a pod's attempt (inFlightEvents); its failure then consults them.
    queue.add(Pod("p"))
    info = queue.pop()
    queue.move_all_to_active_or_backoff(POD_DELETED, Pod("x", node_name="n1"), None)
    info.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(info)
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]


def test_activeq_pops_by_priority_then_arrival(queue):
    for name, priority in (("low", 1), ("high", 100), ("high-later", 100)):
        queue.add(Pod(name, priority=priority))
    assert [queue.pop().pod.name for _ in range(3)] == ["high", "high-later", "low"]


def test_pop_from_backoff_when_activeq_is_empty(queue):
    # SchedulerPopFromBackoffQ: the scheduler does not sit idle while a pod backs off.
    fail(queue, Pod("p"), "TaintToleration")
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.BACKOFF] == ["default/p"] and queue.has_work()
    assert queue.pop().pod.name == "p" and queue.moves[-1].event == "PopFromBackoffQ"


def test_a_pod_that_failed_with_an_error_is_not_popped_before_its_backoff_ends(queue):
    # popBackoff reads the back-off queue of rejected pods only; errored pods wait out their back-off.
    fail(queue, Pod("p"))
    assert not queue.has_work()


def test_the_nominator_follows_override_noop_and_bound_pods(queue):
    # addNominatedPodUnlocked: Override writes the node ("" clears), Noop keeps the pod's own status,
    # and a pod that is already bound is never nominated.
    preemptor = Pod("p", priority=10, nominated_node_name="n2")
    queue.add_nominated_pod(preemptor, NominatingInfo("n1"))
    assert queue.nominated_pods_for_node("n1") == [preemptor]
    queue.add_nominated_pod(preemptor, NominatingInfo(mode=MODE_NOOP))
    assert queue.nominated_pods_for_node("n2") == [preemptor] and queue.nominated_pods_for_node("n1") == []
    queue.add_nominated_pod(preemptor, CLEAR_NOMINATED_NODE)  # Override with "": kept under "", as upstream
    assert queue.nominator.node_of(preemptor) == "" and queue.nominated_pods_for_node("n2") == []
    queue.add_nominated_pod(Pod("bound", node_name="n3"), NominatingInfo("n3"))
    assert queue.nominated_pods_for_node("n3") == []


WILDCARD = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)


@pytest.mark.parametrize(
    "new, moved",
    [
        pytest.param(None, True, id="a wildcard event without an object moves every pod"),
        pytest.param(Pod("p"), True, id="one carrying the pod itself moves it"),
        pytest.param(Pod("other"), False, id="one carrying another pod leaves it"),
        pytest.param(object(), False, id="one carrying something that is not a pod leaves it"),
    ],
)
def test_a_wildcard_event_is_for_the_pod_it_carries(queue, new, moved):
    fail(queue, Pod("p"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(WILDCARD, None, new)
    assert (queue.where()[QueueName.UNSCHEDULABLE] == []) is moved


def test_a_pod_whose_profile_has_no_hint_map_is_requeued_after_backoff(clock):
    # isPodWorthRequeuing: no QueueingHintMap for the pod's profile -> queueAfterBackoff.
    sort_key = lambda info: (-info.pod.priority, info.timestamp)  # noqa: E731
    hints = {"default-scheduler": {NODE_ADDED: [HintFunction("NodeResourcesFit", None)]}}
    queue = SchedulingQueue(clock, sort_key, hints, {}, 1000, 10_000, lambda pod: bool(pod.node_name))
    fail(queue, Pod("q", scheduler_name="other-scheduler"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, None)
    assert queue.where()[QueueName.UNSCHEDULABLE] == []


def test_the_queue_keeps_the_nominator_it_is_built_with(clock: LogicalClock):
    """The run makes the nominator first and hands it to the frameworks and the queue alike."""
    from scheduler_core.backend.queue.nominator import Nominator

    nominator = Nominator(lambda pod: bool(pod.node_name))
    queue = SchedulingQueue(
        clock,
        lambda info: info.timestamp,
        {"default-scheduler": {}},
        {},
        1000,
        10_000,
        lambda pod: bool(pod.node_name),
        nominator,
    )
    pod = Pod(name="p", namespace="default", nominated_node_name="n1")
    queue.add(pod)
    assert queue.nominator is nominator and nominator.nominated_pods_for_node("n1") == [pod]


UNSCHEDULED_UPDATE = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)


def test_an_update_of_a_pod_in_unschedulable_pods_takes_the_new_object_and_keeps_it_there(queue):
    # PriorityQueue.Update: a general Update moves nobody registered for specific updates only.
    info = fail(queue, Pod("p"), "NodeResourcesFit")
    nominated = Pod("p", nominated_node_name="n1")
    queue.update(info.pod, nominated, [UNSCHEDULED_UPDATE])
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]
    assert info.pod is nominated
    assert queue.nominator.node_of(nominated) == "n1"


def test_an_update_of_a_pod_in_backoff_takes_the_new_object_where_it_is(queue):
    info = fail(queue, Pod("p"))
    queue.update(info.pod, Pod("p", nominated_node_name="n1"), [UNSCHEDULED_UPDATE])
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]
    assert info.pod.nominated_node_name == "n1"


def test_an_update_of_a_pod_in_flight_is_kept_as_an_event_for_its_return(queue):
    queue.add(Pod("p"))
    info = queue.pop()
    queue.update(info.pod, Pod("p", nominated_node_name="n1"), [UNSCHEDULED_UPDATE])
    assert [seen.event for seen in queue.active.cluster_events_for_pod("default/p")] == [UNSCHEDULED_UPDATE]
    assert info.pod.nominated_node_name == ""  # the popped copy stays as it was


def test_an_update_of_a_pod_in_no_queue_adds_it_to_active(queue):
    queue.update(Pod("p"), Pod("p", labels={"a": "b"}), [UNSCHEDULED_UPDATE])
    assert queue.where()[QueueName.ACTIVE] == ["default/p"]
    assert queue.moves[-1].event == "UnschedulablePodUpdate"


def test_a_pod_whose_rejectors_registered_nothing_for_the_event_stays_without_its_hints_asked(clock):
    """movePodsToActiveOrBackoffQueue: only the hints of rejecting plugins registered for the event
    count; where none of them registered it the pod stays, and no hint of another plugin is run."""

    def must_not_run(pod, old, new):
        raise AssertionError("a hint of a plugin that did not reject the pod was asked")

    hints = {
        POD_ADDED: [HintFunction("InterPodAffinity", must_not_run)],
        NODE_ADDED: [HintFunction("NodeResourcesFit", None)],
    }
    queue = SchedulingQueue(
        clock,
        lambda info: (-info.pod.priority, info.timestamp),
        {"default-scheduler": hints},
        {},
        1000,
        10_000,
        lambda pod: bool(pod.node_name),
    )
    fail(queue, Pod("p"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(POD_ADDED, None, Pod("q", node_name="n1"))
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.UNSCHEDULABLE] == []


def test_activate_moves_a_waiting_pod_to_active_through_pre_enqueue(clock):
    """Activate (a failed preemption goroutine's): from unschedulablePods or backoffQ to activeQ,
    unless a PreEnqueue plugin still holds it back; a pod in activeQ stays where it is."""
    held = {"default/gated"}
    gate = PreEnqueuePlugin(
        "DefaultPreemption", lambda pod: Status.unresolvable("waiting") if pod.key in held else None
    )
    sort_key = lambda info: (-info.pod.priority, info.timestamp)  # noqa: E731 - PrioritySort
    queue = SchedulingQueue(
        clock, sort_key, {"default-scheduler": {}}, {"default-scheduler": [gate]}, 1000, 10_000, lambda pod: False
    )
    waiting, backing_off, gated = Pod("waiting"), Pod("backing-off"), Pod("gated")
    fail(queue, waiting, "NodeResourcesFit")
    fail(queue, backing_off)  # an error: backoffQ
    held.clear()
    fail(queue, gated, "NodeResourcesFit")
    held.add("default/gated")
    for pod in (waiting, backing_off, gated):
        queue.activate(pod)
    assert queue.where()[QueueName.ACTIVE] == ["default/waiting", "default/backing-off"]
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/gated"]
    assert [m.event for m in queue.moves if m.to is QueueName.ACTIVE][-2:] == ["ForceActivate", "ForceActivate"]
    queue.activate(waiting)  # already active: nothing
    assert queue.where()[QueueName.ACTIVE] == ["default/waiting", "default/backing-off"]
