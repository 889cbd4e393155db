"""The recorder (scheduler_core.run.recorder): a cycle's typed steps and ending become the event stream
— the same events, in the same order, the CLI, the web task and the tests read — and what the run
does around the cycles (attempt ends, informer events, the queue's moves) too."""

from __future__ import annotations

from scheduler_core.backend.queue import QueueMove, QueueName
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint
from scheduler_core.run.outcomes import BindingFailed, Bound, FitError, SchedulingError
from scheduler_core.run.recorder import CycleRecorder, RunRecorder, reads_queues, record_cycle
from scheduler_core.scenario import load_scenario
from scheduler_core.run.schedule_one import Cycle, Scheduler
from tests.scheduler_core.builders import node_text, pod_text, preemption_scenario


def _cycle(text: str, hand_over_only: bool = False) -> Cycle:
    scheduler = Scheduler(load_scenario(text), hand_over_only=hand_over_only)
    return Cycle(scheduler, 0, scheduler.queue[0])


def test_a_bound_cycle_is_recorded_from_its_start_to_its_node():
    cycle = _cycle("---\n".join([node_text("n1"), pod_text("p")]))
    events = list(record_cycle(cycle))
    points = [event.extension_point for event in events]
    assert points[:3] == [ExtensionPoint.CYCLE_START, ExtensionPoint.QUEUE_SORT, ExtensionPoint.PRE_FILTER]
    assert ExtensionPoint.TOTAL in points and ExtensionPoint.BIND in points
    assert events[-1].payload.to_json() == {"nodeName": "n1"}
    assert {event.pod for event in events} == {"default/p"} and cycle.outcome == Bound("n1")


def test_postfilter_is_recorded_per_plugin_then_summed_up():
    events = list(record_cycle(_cycle(preemption_scenario())))
    post = [event for event in events if event.extension_point is ExtensionPoint.POST_FILTER]
    assert [event.plugin for event in post] == ["DynamicResources", "DefaultPreemption", None]
    assert post[1].payload.to_json()["nominatedNodeName"] == "a"
    assert events[-1].payload.to_json()["failedSchedulingMessage"].startswith("0/2 nodes are available")


def test_a_failure_found_after_the_host_was_chosen_is_the_cycles_error():
    """CycleEnd: a failure before selectHost is the FailedScheduling text; one in Score, Reserve,
    Permit or the binding cycle is written as the cycle's error."""
    recorder = CycleRecorder(_cycle("---\n".join([node_text("n1"), pod_text("p")])))
    ended = {
        name: recorder.ended(ending).payload.to_json()
        for name, ending in {
            "fit": FitError("0/1 nodes are available: 1 x.", frozenset(), None),
            "reserve": FitError("0/1 nodes are available: 1 y.", frozenset({"R"}), None, after_host_selection=True),
            "filter error": SchedulingError("boom"),
            "score error": SchedulingError("bad score", after_host_selection=True),
            "bind": BindingFailed("n1", "bind failed", rejected=False),
        }.items()
    }
    assert ended == {
        "fit": {"nodeName": None, "failedSchedulingMessage": "0/1 nodes are available: 1 x."},
        "reserve": {"nodeName": None, "error": "0/1 nodes are available: 1 y."},
        "filter error": {"nodeName": None, "failedSchedulingMessage": "boom"},
        "score error": {"nodeName": None, "error": "bad score"},
        "bind": {"nodeName": None, "error": "bind failed"},
    }


def test_the_run_recorder_stamps_the_attempt_and_the_clock_and_drains_the_moves():
    now, attempts = {"ms": 1500}, {"n": 3}
    recorder = RunRecorder(lambda: now["ms"], lambda: attempts["n"])
    change = recorder.cluster("default/p", ClusterChangeKind.POD_BOUND, node="n1")
    assert (change.cycle, change.pod) == (2, "default/p")
    assert change.payload.to_json()["timeMs"] == 1500
    moves = [QueueMove("default/q", QueueName.ACTIVE, "Pod/Delete", ("NodeResourcesFit",))]
    recorded = list(recorder.moves(moves))
    assert moves == [] and [event.extension_point for event in recorded] == [ExtensionPoint.QUEUE_MOVE]
    failed = recorder.failed("default/p", 2, "n1", ["default/v"], BindingFailed("n1", "boom", rejected=True))
    assert failed.payload.to_json()["bindingNode"] == "n1" and failed.payload.to_json()["victims"] == ["default/v"]


def test_in_the_engines_own_process_the_node_lists_stay_positions():
    """A scheduler whose events go only to the hand-over: the evaluated and the feasible nodes are
    positions (the hand-over sends nothing else of them), the same names and JSON when read."""
    from scheduler_core.framework.node_table import NodePositions, PositionedNames

    text = "---\n".join([node_text("n1"), node_text("n2"), node_text("n3"), pod_text("p")])
    events = list(record_cycle(_cycle(text)))
    hollow = list(record_cycle(_cycle(text, hand_over_only=True)))

    def lists(stream: list[Event]) -> list[type]:
        points = (ExtensionPoint.FILTER, ExtensionPoint.SCORE, ExtensionPoint.NORMALIZE_SCORE)
        return [type(e.payload.nodes) for e in stream if e.extension_point in points and e.plugin]

    assert set(lists(events)) == {PositionedNames} and set(lists(hollow)) == {NodePositions}
    summary = next(e.payload for e in hollow if e.extension_point is ExtensionPoint.FILTER and not e.plugin)
    assert type(summary.evaluated) is NodePositions and type(summary.feasible_nodes) is NodePositions
    assert [e.to_json() for e in hollow] == [e.to_json() for e in events]


def test_a_reader_of_some_points_is_written_the_steps_at_those_points_only():
    """``reads``: the steps at no point read are not written; those read are the full stream's own."""
    text = preemption_scenario()
    every = list(record_cycle(_cycle(text)))
    reads = frozenset({ExtensionPoint.CYCLE_START, ExtensionPoint.POST_FILTER})
    some = list(record_cycle(_cycle(text), reads))
    points = [event.extension_point for event in some]
    assert points[:2] == [ExtensionPoint.CYCLE_START, ExtensionPoint.QUEUE_SORT]  # one step writes both
    assert ExtensionPoint.PRE_FILTER not in points and ExtensionPoint.FILTER not in points
    assert points[-1] is ExtensionPoint.CYCLE_END  # the ending is always written
    kept = {ExtensionPoint.CYCLE_START, ExtensionPoint.QUEUE_SORT, ExtensionPoint.POST_FILTER, ExtensionPoint.CYCLE_END}
    assert [e.to_json() for e in some] == [e.to_json() for e in every if e.extension_point in kept]


def test_the_queues_are_read_by_a_reader_of_queue_sort_only():
    assert reads_queues(None)
    assert reads_queues(frozenset({ExtensionPoint.QUEUE_SORT}))
    assert not reads_queues(frozenset({ExtensionPoint.CYCLE_START, ExtensionPoint.CYCLE_END}))
