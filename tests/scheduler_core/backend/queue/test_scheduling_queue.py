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
from scheduler_core.release.rules import rules_for
from scheduler_core.release.versions import release_named

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


# ---------------------------------------------------------------------------- releases
# The queue follows the rules it is built with (release/code.py, release/gates.py).


def rules(release: str, **gates: bool):
    return rules_for(release_named(release), gates or None)


def allowlist(name: str, *allowed: str) -> PreEnqueuePlugin:
    """The test preEnqueuePlugin of upstream's scheduling_queue_test.go: a pod passes when one of
    its labels is allowed."""
    return PreEnqueuePlugin(
        name, lambda pod: None if any(label in allowed for label in pod.labels) else Status.unschedulable("no")
    )


def release_queue(clock: LogicalClock, release: str, pre_enqueue=(), hints=None, **gates: bool) -> SchedulingQueue:
    hints = hints if hints is not None else {NODE_ADDED: [HintFunction("NodeResourcesFit", None)]}
    return SchedulingQueue(
        clock,
        lambda info: (-info.pod.priority, info.timestamp),
        {"default-scheduler": hints},
        {"default-scheduler": list(pre_enqueue)},
        1000,
        10_000,
        lambda pod: bool(pod.node_name),
        rules=rules(release, **gates),
    )


def test_v1_32_never_pops_from_backoff_the_flush_after_the_expiry_moves_the_pod(clock):
    # A1: no SchedulerPopFromBackoffQ in v1.32 (unlockedPop waits on activeQ alone); the pod leaves
    # backoffQ at the flush of the second after its back-off ends (failed at 0 s, 1 s: at 2 s).
    queue = release_queue(clock, "v1.32")
    fail(queue, Pod("p"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.BACKOFF] == ["default/p"] and not queue.has_work()
    assert queue.pop() is None and queue.backoff.next_window_after() == 2_000
    clock.advance_to(1_000)
    queue.flush_backoff_completed()
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]
    clock.advance_to(2_000)
    queue.flush_backoff_completed()
    assert queue.where()[QueueName.ACTIVE] == ["default/p"] and queue.moves[-1].event == "BackoffComplete"


def test_v1_33_pops_from_backoff_unless_the_gate_is_off(clock):
    # SchedulerPopFromBackoffQ, beta and on in v1.33; --feature-gates can turn it off.
    for gates, pops in (({}, True), ({"SchedulerPopFromBackoffQ": False}, False)):
        queue = release_queue(LogicalClock(), "v1.33", **gates)
        fail(queue, Pod("p"), "NodeResourcesFit")
        queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
        assert queue.has_work() is pops


@pytest.mark.parametrize(
    "plugins, pod_labels, pops_from_backoff, in_backoff",
    [
        pytest.param((), (), None, True, id="no plugins registered"),
        pytest.param(
            (allowlist("a"), allowlist("b")), ("p",), False, True, id="a plugin would reject the pod, gate off: not run"
        ),
        pytest.param((allowlist("a"), allowlist("b")), ("p",), True, False, id="a plugin rejects the pod, gate on"),
        pytest.param(
            (allowlist("a", "foo", "bar"), allowlist("b", "foo")),
            ("bar",),
            False,
            True,
            id="the pod fails one plugin, gate off: not run",
        ),
        pytest.param(
            (allowlist("a", "foo", "bar"), allowlist("b", "foo")),
            ("bar",),
            True,
            False,
            id="the pod fails one plugin, gate on",
        ),
        pytest.param(
            (allowlist("a", "foo", "bar"), allowlist("b", "bar")), ("bar",), None, True, id="the pod passes them all"
        ),
    ],
)
def test_v1_33_move_to_backoff_runs_pre_enqueue_only_with_the_gate(plugins, pod_labels, pops_from_backoff, in_backoff):
    # TestPriorityQueue_moveToBackoffQ of v1.33's scheduling_queue_test.go (initial back-off 30 s).
    for gate in (True, False) if pops_from_backoff is None else (pops_from_backoff,):
        clock = LogicalClock()
        queue = release_queue(clock, "v1.33", plugins, SchedulerPopFromBackoffQ=gate)
        info = queue.new_queued_pod_info(Pod("p", labels={label: "" for label in pod_labels}))
        assert queue._move_to_backoff(info, "UnschedulablePodAdd", ()) is in_backoff
        assert queue.backoff.has(info) is in_backoff
        assert (queue.unschedulable.get(info.key) is None) is in_backoff


def test_without_the_gate_pre_enqueue_runs_when_the_pod_leaves_backoff(clock):
    # A1: moveToActiveQ always runs PreEnqueue in v1.32: a pod gated while it backed off is caught
    # by the flush and waits in unschedulablePods.
    gate_open = {"open": True}
    gate = PreEnqueuePlugin("Gate", lambda pod: None if gate_open["open"] else Status.unschedulable("closed"))
    queue = release_queue(clock, "v1.32", (gate,))
    fail(queue, Pod("p"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    gate_open["open"] = False
    clock.advance_to(2_000)
    queue.flush_backoff_completed()
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]


def test_before_v1_34_pre_enqueue_runs_in_profile_order_and_the_gate_is_not_remembered(clock):
    # A3: runPreEnqueuePlugins of v1.33 runs the plugins in order and stops at the first failure;
    # v1.34 on run the plugin that gated the pod last time first.
    order = []

    def plugin(name, passes):
        return PreEnqueuePlugin(
            name, lambda pod: order.append(name) or (None if passes() else Status.unschedulable("x"))
        )

    second_passes = {"yes": False}
    plugins = (plugin("First", lambda: True), plugin("Second", lambda: second_passes["yes"]))
    for release, wanted in (
        ("v1.33", ["First", "Second", "First", "Second"]),
        ("v1.34", ["First", "Second", "Second", "First"]),
    ):
        order.clear()
        queue = release_queue(LogicalClock(), release, plugins)
        queue.add(Pod("p"))
        info = queue.unschedulable.get("default/p")
        assert info is not None and info.gated and "Second" in info.unschedulable_plugins
        second_passes["yes"] = True
        queue.activate([info.pod])
        assert order == wanted, release
        second_passes["yes"] = False


CLAIM_ADDED = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.ADD)


@pytest.mark.parametrize(
    "release, moved",
    [("v1.33", True), ("v1.34", False)],
    ids=["v1.33: every event looks at a pod another PreEnqueue plugin gates", "v1.34: only the gating plugin's events"],
)
def test_which_events_look_at_a_gated_pod(clock, release, moved):
    # A3: movePodsToActiveOrBackoffQueue. p was rejected by NodeResourcesFit, then gated on its
    # way back by a PreEnqueue plugin registered for claims only. v1.33 skips only a pod that
    # SchedulingGates gates, so a Node/Add asks NodeResourcesFit and the move runs PreEnqueue again
    # (open by now); v1.34 on skip a gated pod for every event its gating plugin did not register.
    gate_open = {"open": True}
    gate = PreEnqueuePlugin("ClaimGate", lambda pod: None if gate_open["open"] else Status.unschedulable("no claim"))
    hints = {NODE_ADDED: [HintFunction("NodeResourcesFit", None)], CLAIM_ADDED: [HintFunction("ClaimGate", None)]}
    queue = release_queue(clock, release, (gate,), hints=hints)
    fail(queue, Pod("p"), "NodeResourcesFit")
    gate_open["open"] = False
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    info = queue.unschedulable.get("default/p")
    assert info is not None and info.gated and info.unschedulable_plugins == {"NodeResourcesFit", "ClaimGate"}
    gate_open["open"] = True
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert (queue.unschedulable.get("default/p") is None) is moved


def test_before_v1_34_a_pod_gated_by_scheduling_gates_is_skipped_by_every_event(clock):
    gates = PreEnqueuePlugin(
        "SchedulingGates", lambda pod: Status.unresolvable("gated") if pod.scheduling_gates else None
    )
    queue = release_queue(clock, "v1.33", (gates,))
    queue.add(Pod("p", scheduling_gates=("g",)))
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/p"]


@pytest.mark.parametrize("release, runs_pre_enqueue", [("v1.34", True), ("v1.35", False)])
def test_activate_from_backoff_runs_pre_enqueue_in_v1_34_only(clock, release, runs_pre_enqueue):
    # A4: v1.34's moveToActiveQ skips PreEnqueue only for BackoffComplete; v1.35 for any move
    # straight from backoffQ (Activate included). A pod gated while it backed off is caught in v1.34.
    gate_open = {"open": True}
    gate = PreEnqueuePlugin("Gate", lambda pod: None if gate_open["open"] else Status.unschedulable("closed"))
    queue = release_queue(clock, release, (gate,))
    fail(queue, Pod("p"), "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, object())
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]
    gate_open["open"] = False
    queue.activate([Pod("p")])
    where = queue.where()
    assert (where[QueueName.UNSCHEDULABLE], where[QueueName.ACTIVE]) == (
        (["default/p"], []) if runs_pre_enqueue else ([], ["default/p"])
    )
    assert queue.moves[-1].event == "ForceActivate"


def test_activate_a_pod_in_flight_gives_it_a_force_activate_event(queue):
    # Activate: a pod being scheduled gets EventForceActivate for its return; it then goes back
    # after its back-off rather than waiting in unschedulablePods.
    queue.add(Pod("p"))
    info = queue.pop()
    queue.activate([info.pod])
    info.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(info)
    assert queue.where()[QueueName.BACKOFF] == ["default/p"]


def test_v1_32_update_with_several_events_goes_on_after_a_move_to_backoff(clock):
    # Update of v1.32: the loop over the update's events stops only at a move to activeQ; a move to
    # backoffQ lets the next event be asked, and its QueueSkip puts the pod in unschedulablePods too.
    label, toleration = (
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_LABEL),
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_TOLERATION),
    )
    skip = lambda pod, old, new: QueueingHint.QUEUE_SKIP  # noqa: E731
    hints = {label: [HintFunction("Rejector", None)], toleration: [HintFunction("Rejector", skip)]}
    for release, both in (("v1.32", True), ("v1.35", False)):
        queue = release_queue(LogicalClock(), release, hints=hints)
        info = fail(queue, Pod("p"), "Rejector")
        queue.update(info.pod, Pod("p", labels={"a": "b"}), [label, toleration])
        where = queue.where()
        assert where[QueueName.BACKOFF] == ["default/p"]
        assert (where[QueueName.UNSCHEDULABLE] == ["default/p"]) is both, release


def test_v1_36_signs_a_pod_when_it_is_queued_and_when_it_is_updated(clock):
    # A5: newQueuedPodInfo and Update sign the pod (signPod); a pod updated while in flight keeps
    # the signature it was popped with (its update is only an in-flight event).
    signer = lambda pod: (("labels", tuple(sorted(pod.labels.items()))),)  # noqa: E731
    queue = SchedulingQueue(
        clock,
        lambda info: (-info.pod.priority, info.timestamp),
        {"default-scheduler": {}},
        {},
        1000,
        10_000,
        lambda pod: bool(pod.node_name),
        rules=rules("v1.36"),
        signers={"default-scheduler": signer},
    )
    queue.add(Pod("p", labels={"v": "1"}))
    queue.update(Pod("p", labels={"v": "1"}), Pod("p", labels={"v": "2"}), [UNSCHEDULED_UPDATE])
    info = queue.pop()
    assert info.signature == (("labels", (("v", "2"),)),)
    queue.update(info.pod, Pod("p", labels={"v": "3"}), [UNSCHEDULED_UPDATE])
    assert info.signature == (("labels", (("v", "2"),)),)


def _hint_error(pod, old, new):
    raise AssertionError("QueueingHintFn should not be called as pod is gated")


@pytest.mark.parametrize(
    "attempts, unschedulable, pending, gating, hint, waited_ms, expected",
    [
        pytest.param(0, (), ("foo",), "", None, 0, QueueName.ACTIVE, id="Queue queues pod to activeQ"),
        pytest.param(
            1, ("foo",), (), "", None, 0, QueueName.BACKOFF, id="Queue queues pod to backoffQ if Pod is backing off"
        ),
        pytest.param(
            0,
            ("foo",),
            (),
            "",
            None,
            1000,
            QueueName.ACTIVE,
            id="Queue queues pod to activeQ if Pod is not backing off",
        ),
        pytest.param(
            0,
            ("foo",),
            (),
            "",
            lambda pod, old, new: QueueingHint.QUEUE_SKIP,
            0,
            QueueName.UNSCHEDULABLE,
            id="Skip queues pod to unschedulablePods",
        ),
        pytest.param(
            0,
            ("SchedulingGates", "foo"),
            (),
            "SchedulingGates",
            _hint_error,
            0,
            QueueName.UNSCHEDULABLE,
            id="QueueHintFunction is not called when Pod is gated by SchedulingGates plugin",
        ),
        pytest.param(
            0,
            ("foo",),
            (),
            "foo",
            None,
            0,
            QueueName.ACTIVE,
            id="QueueHintFunction is called when Pod is gated by a plugin other than SchedulingGates",
        ),
        pytest.param(
            1,
            ("foo",),
            (),
            "foo",
            None,
            0,
            QueueName.BACKOFF,
            id="Pod that experienced a scheduling failure before should be queued to backoffQ after un-gated",
        ),
    ],
)
def test_v1_33_move_all_with_queueing_hint(clock, attempts, unschedulable, pending, gating, hint, waited_ms, expected):
    # TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint of v1.33's
    # scheduling_queue_test.go: the back-off counts Attempts, and only a pod SchedulingGates gates
    # is skipped without asking the hints (setQueuedPodInfoGated: gated, no PreEnqueue plugin).
    from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
    from scheduler_core.framework.node_info import PodInfo

    queue = release_queue(clock, "v1.33", hints={NODE_ADDED: [HintFunction("foo", hint)]})
    pod = Pod("pod1", namespace="ns1")
    queue.add(pod)
    assert queue.pop().pod is pod
    info = QueuedPodInfo(PodInfo(pod), clock.now(), attempts=attempts)
    info.unschedulable_plugins, info.pending_plugins, info.gating_plugin = set(unschedulable), set(pending), gating
    queue.add_unschedulable_if_not_present(info)
    clock.advance_to(clock.ms + waited_ms)
    queue.move_all_to_active_or_backoff(NODE_ADDED, None, None)
    assert queue.where()[expected] == ["ns1/pod1"]


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
        queue.activate([pod])
    assert queue.where()[QueueName.ACTIVE] == ["default/waiting", "default/backing-off"]
    assert queue.where()[QueueName.UNSCHEDULABLE] == ["default/gated"]
    assert [m.event for m in queue.moves if m.to is QueueName.ACTIVE][-2:] == ["ForceActivate", "ForceActivate"]
    queue.activate([waiting])  # already active: nothing
    assert queue.where()[QueueName.ACTIVE] == ["default/waiting", "default/backing-off"]
