"""scheduler_core.encoding.pipe.codec: events written as emitted and read back exactly.

Every public case (single pass, run to the end, DRA) and the bench files are written and read back
in this process, frame by frame as the engine's process sends them, and both streams are stored as
the web app stores them (one columnar segment per cycle number): the segments must be the same
bytes and every event the same JSON. The codec's own paths are forced on purpose (tiny rings,
payloads it cannot pickle, a list changed after its event went out).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.encoding.pipe import codec
from scheduler_core.encoding.pipe.codec import Receiver, Sender
from scheduler_core.encoding.events import (
    CycleEnd,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    NormalizeResult,
    QueueSortResult,
    ScoreResult,
    TotalResult,
    WrittenJSON,
)
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.run.loop import run_to_the_end
from tests.scheduler_core.encoding.payload_examples import example_events
from tests.scheduler_core.encoding.pipe.streams import BIG, SHARED, assert_same_stored

SINGLE = sorted((SHARED / "conformance" / "public").glob("*.yaml"))
TIMELINE = sorted((SHARED / "conformance-timeline" / "public").glob("*.yaml"))
DRA = sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))
BENCH_500 = sorted((SHARED / "bench").glob("*_500.yaml"))
BENCH_5000 = sorted((SHARED / "bench").glob("*_5000.yaml"))
PREEMPTION = SHARED / "bench" / "perf" / "PreemptionBasic_500Nodes.yaml"


def read_back(emitted, frame_events: int = 0):
    """The events as the reader gets them: written one by one as emitted, a frame per cycle number
    (or per ``frame_events`` events)."""
    sender, receiver = Sender(), Receiver()
    frames: list[tuple[bytes, int]] = []
    keep = lambda frame, count: frames.append((bytes(frame), count))  # noqa: E731
    cycle = None
    for event in emitted:
        if sender.count and (event.cycle != cycle or (frame_events and sender.count >= frame_events)):
            sender.flush_to(keep)
            yield from _drain(frames, receiver)
        cycle = event.cycle
        sender.add(event)
    if sender.count:
        sender.flush_to(keep)
    yield from _drain(frames, receiver)


def _drain(frames, receiver):
    while frames:
        yield from receiver.events(*frames.pop(0))


def assert_read_back_the_same(scenario, run, cycles: int = 0, frame_events: int = 0) -> int:
    return assert_same_stored(scenario, run, lambda make_events: read_back(make_events(False), frame_events), cycles)


@pytest.mark.parametrize("path", SINGLE, ids=lambda p: p.stem)
def test_a_single_pass_reads_back_the_same(path):
    assert assert_read_back_the_same(load_scenario(path.read_bytes()), simulate)


@pytest.mark.parametrize("path", TIMELINE + DRA, ids=lambda p: p.stem)
def test_a_run_to_the_end_reads_back_the_same(path):
    assert assert_read_back_the_same(load_scenario(path.read_bytes()), run_to_the_end)


@pytest.mark.parametrize("path", BENCH_500, ids=lambda p: p.stem)
def test_a_500_node_bench_run_reads_back_the_same(path):
    assert assert_read_back_the_same(load_scenario(path.read_bytes(), limits=BIG), run_to_the_end, cycles=60) == 60


@pytest.mark.slow
@pytest.mark.parametrize("path", BENCH_5000, ids=lambda p: p.stem)
def test_a_5000_node_bench_run_reads_back_the_same(path):
    """Thousands of nodes: node lists as positions, tie positions, spreading pictures and counts."""
    assert assert_read_back_the_same(load_scenario(path.read_bytes(), limits=BIG), run_to_the_end, cycles=25) == 25


@pytest.mark.slow
def test_preemption_reads_back_the_same():
    scenario = load_scenario(PREEMPTION.read_bytes(), limits=BIG)
    assert assert_read_back_the_same(scenario, run_to_the_end, cycles=120) == 120


def test_tiny_rings_and_frames_of_a_few_events_give_the_same(monkeypatch):
    """Slots reused every few lists and tables (a queue's slot by the queue said again from it); frames cut inside a cycle."""
    monkeypatch.setattr(codec, "RING_SIZES", {"tables": 1, "lists": 2, "tuples": 2, "pods": 1})
    scenario = load_scenario(BENCH_500[0].read_bytes(), limits=BIG)
    assert assert_read_back_the_same(scenario, run_to_the_end, cycles=40, frame_events=3) == 40
    spreading = next(path for path in BENCH_500 if path.stem.startswith("spread"))
    assert assert_read_back_the_same(
        load_scenario(spreading.read_bytes(), limits=BIG), run_to_the_end, cycles=20, frame_events=3
    )


def as_the_engines_process(make_events):
    """The events as the engine's own process emits them (its node lists kept as positions)."""
    return make_events(True)


def test_evaluated_nodes_kept_as_positions_in_the_engines_process_read_back_the_same():
    from scheduler_core.framework.node_table import NodePositions

    spreading = next(path for path in BENCH_500 if path.stem.startswith("spread"))
    scenario = load_scenario(spreading.read_bytes(), limits=BIG)
    hollow = [
        e.payload.nodes
        for e in itertools.islice(
            as_the_engines_process(lambda hand_over: run_to_the_end(scenario, hand_over_only=hand_over)), 3000
        )
        if e.extension_point is ExtensionPoint.FILTER and e.plugin
    ]
    assert hollow and all(type(nodes) is NodePositions for nodes in hollow)  # the switch is on while they are made
    passed_on = lambda make_events: read_back(as_the_engines_process(make_events))  # noqa: E731
    assert assert_same_stored(scenario, run_to_the_end, passed_on, cycles=40) == 40
    for path in TIMELINE[:10]:
        assert assert_same_stored(load_scenario(path.read_bytes()), run_to_the_end, passed_on)


def test_the_reader_keeps_node_lists_as_positions_which_the_encoder_stores_without_a_name(monkeypatch):
    """The task's process stores node lists by their positions: the reader hands them on as
    positions rather than gathering thousands of names nobody reads (the segments are the same:
    the read-back tests above)."""
    from scheduler_core.encoding.columnar import RunNames, encode_segment
    from scheduler_core.framework.node_table import NodePositions

    spreading = next(path for path in BENCH_500 if path.stem.startswith("spread"))
    scenario = load_scenario(spreading.read_bytes(), limits=BIG)
    events = list(read_back(itertools.islice(run_to_the_end(scenario), 3000)))
    filtered = [e.payload.nodes for e in events if e.extension_point is ExtensionPoint.FILTER and e.plugin]
    assert filtered and all(type(nodes) is NodePositions for nodes in filtered)

    def read(*args):
        pytest.fail("a node's name read")

    monkeypatch.setattr(NodePositions, "__iter__", read)
    monkeypatch.setattr(NodePositions, "__getitem__", read)
    names = RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])
    seq = 0
    for _, group in itertools.groupby(events, key=lambda event: event.cycle):
        group = list(group)
        assert encode_segment(group, names, seq)
        seq += len(group)


def test_scores_handed_on_unchanged_go_once():
    """A plugin without NormalizeScore hands its raw array on as the normalized one, and weight 1
    leaves it as the weighted one: sent once, read back as one array. Not when another event comes
    between the raw scores and the normalized ones."""
    nodes = [f"n{i}" for i in range(500)]
    raw = np.arange(500, dtype=np.int64) % 101
    weighted = raw * 2
    score = event(ScoreResult(nodes, raw), point=ExtensionPoint.SCORE)
    same = event(NormalizeResult(nodes, raw, 1, raw), point=ExtensionPoint.NORMALIZE_SCORE)
    doubled = event(NormalizeResult(nodes, raw, 2, weighted), point=ExtensionPoint.NORMALIZE_SCORE)
    got = [e.payload for e in read_back(iter([score, same, score, doubled, score, event(CycleEnd("n1")), same]))]
    assert got[1].normalized is got[0].raw and got[1].weighted is got[1].normalized
    assert got[3].normalized is got[2].raw and got[3].weighted is not got[3].normalized
    assert got[6].normalized is not got[4].raw and got[6].weighted is got[6].normalized
    sent = [score, same, score, doubled, score, event(CycleEnd("n1")), same]
    assert [payload.to_json() for payload in got] == [e.payload.to_json() for e in sent]
    with_copy = event(NormalizeResult(nodes, raw.copy(), 1, raw.copy()), point=ExtensionPoint.NORMALIZE_SCORE)
    sent_once, sent_twice = frames_of([score, same])[1], frames_of([score, with_copy])[1]
    assert len(sent_twice) - len(sent_once) >= 2 * raw.nbytes  # the node names go in both


class Opaque:
    """A payload type the codec does not know, holding what pickle refuses."""

    def __init__(self) -> None:
        self.callback = lambda: None

    def to_json(self) -> dict:
        return {"opaque": True}


@dataclass
class Holder:
    value: object


def event(payload, cycle: int = 0, point: ExtensionPoint = ExtensionPoint.CYCLE_END) -> Event:
    return Event(cycle, "default/p", point, None, payload)


def test_a_payload_it_cannot_pickle_goes_as_its_json():
    events = [event(Opaque()), event(CycleEnd("n1"))]
    got = list(read_back(iter(events)))
    assert [type(e.payload) for e in got] == [WrittenJSON, CycleEnd]
    assert [e.to_json() for e in got] == [e.to_json() for e in events]


def test_a_payload_is_read_as_it_was_when_emitted():
    """An in-process writer reads each event as it comes; so does the codec."""
    order = ["default/a", "default/b"]

    def emitted():
        yield event(QueueSortResult(order), point=ExtensionPoint.QUEUE_SORT)
        order.append("default/c")  # changed after its event went out, within the same cycle
        yield event(CycleEnd("n1"))

    got = list(read_back(emitted()))
    assert got[0].payload.order == ["default/a", "default/b"]


def test_long_pod_lists_and_arrays_come_back_equal():
    names = [f"ns/pod-{i}" for i in range(500)]
    odd = ["ns/a\x00b", *names]  # the separator inside a name: sent as a list
    events = [
        event(QueueSortResult(names), point=ExtensionPoint.QUEUE_SORT),
        event(QueueSortResult(odd), point=ExtensionPoint.QUEUE_SORT),
        event(QueueSortResult([]), point=ExtensionPoint.QUEUE_SORT),
        event(Holder(np.arange(7, dtype=np.int16))),
    ]
    got = list(read_back(iter(events)))
    assert got[0].payload.order == names and got[1].payload.order == odd and got[2].payload.order == []
    assert got[3].payload.value.dtype == np.int16 and got[3].payload.value.tolist() == list(range(7))


def frames_of(events) -> list[bytes]:
    """Each event in a frame of its own, as the sender writes it."""
    sender, frames = Sender(), []
    for one in events:
        sender.add(one)
        sender.flush_to(lambda frame, count: frames.append(bytes(frame)))
    return frames


def test_a_queue_said_again_or_without_its_head_reads_back_as_it_was():
    names = [f"ns/pod-{i}" for i in range(300)]
    queue = list(names)

    def emitted():
        yield event(QueueSortResult(queue), point=ExtensionPoint.QUEUE_SORT)  # joined
        yield event(QueueSortResult(queue), point=ExtensionPoint.QUEUE_SORT)  # the same again
        queue.pop(0)  # the engine's list changed after going out: the sender kept a copy
        yield event(QueueSortResult(queue), point=ExtensionPoint.QUEUE_SORT)  # without its head
        queue.pop(0)
        queue.append("ns/late")
        yield event(QueueSortResult(queue), point=ExtensionPoint.QUEUE_SORT)  # neither: joined again

    got = [e.payload.order for e in read_back(emitted())]
    assert got == [names, names, names[1:], [*names[2:], "ns/late"]]
    assert len({id(order) for order in got}) == 4  # each event has a list of its own
    sizes = [
        len(frame)
        for frame in frames_of(
            [event(QueueSortResult(names)), event(QueueSortResult(names)), event(QueueSortResult(names[1:]))]
        )
    ]
    assert sizes[1] < 300 and sizes[2] < 300 and sizes[0] > 3000


def test_statuses_read_back_typed():
    statuses = [Status(code, ("first reason", "second"), "SomePlugin") for code in Code] + [SKIP, Status(Code.SUCCESS)]
    [got] = read_back(iter([event(Holder(statuses))]))
    assert got.payload.value == statuses
    assert all(type(status) is Status and type(status.code) is Code for status in got.payload.value)


def test_an_array_that_is_a_strided_view_reads_back_equal():
    values = np.arange(60, dtype=np.int64)[::3]
    [got] = read_back(iter([event(Holder(values))]))
    assert got.payload.value.dtype == np.int64 and got.payload.value.tolist() == values.tolist()


def test_a_frame_after_a_bigger_one_holds_only_its_own_events():
    """The sender's buffer keeps its room between frames; a frame is only what was written since the last."""
    big, small = frames_of([event(Holder(np.arange(20_000))), event(CycleEnd("n1"), cycle=1)])
    assert len(small) < 200 < len(big)
    assert [e.to_json() for e in Receiver().events(small, 1)] == [event(CycleEnd("n1"), cycle=1).to_json()]


def test_a_verdict_every_node_passed_goes_as_its_length_and_reads_back_as_its_codes():
    """No status in the palette: the codes (all -1) are not written; the reader makes them, one
    read-only array for each length and type. A verdict with a rejection goes with its codes."""
    nodes = [f"n{i}" for i in range(5000)]
    passed = np.full(5000, -1, dtype=np.int32)
    rejected = passed.copy()
    rejected[7] = 0
    taint = Status.unschedulable("node(s) had untolerated taint")
    sent = [
        event(FilterPluginResult(nodes, [], passed), point=ExtensionPoint.FILTER),
        event(FilterPluginResult(nodes, [], passed.copy()), point=ExtensionPoint.FILTER),
        event(FilterPluginResult(nodes, [taint], rejected), point=ExtensionPoint.FILTER),
    ]
    got = [e.payload for e in read_back(iter(sent))]
    assert [payload.to_json() for payload in got] == [e.payload.to_json() for e in sent]
    assert got[0].choice is got[1].choice and not got[0].choice.flags.writeable
    assert got[0].choice.dtype == np.int32 and got[0].choice.tolist() == [-1] * 5000
    assert got[2].choice.tolist() == rejected.tolist()
    frames = frames_of(sent)
    assert len(frames[2]) - len(frames[1]) >= passed.nbytes  # the same names in both; codes in one


def test_every_field_of_every_payload_comes_back_as_sent():
    """Each payload with every field set (from its declaration): a field added to a payload travels
    whether or not the codec says how it goes."""
    events = example_events()
    got = list(read_back(iter(events)))
    assert [e.to_json() for e in got] == [e.to_json() for e in events]
    assert [type(e.payload) for e in got] == [type(e.payload) for e in events]


def test_a_field_the_codec_names_must_be_declared(monkeypatch):
    monkeypatch.setitem(
        codec._SENT, ScoreResult, {"nodes": lambda sender, r: r.nodes, "rawScores": lambda sender, r: r.raw}
    )
    monkeypatch.setitem(
        codec._READ,
        ScoreResult,
        {"nodes": lambda receiver, wire: wire["nodes"], "rawScores": lambda receiver, wire: wire["rawScores"]},
    )
    with pytest.raises(
        TypeError, match=r"fields of ScoreResult do not match its declaration.*declared \['nodes', 'raw'\]"
    ):
        codec._plan(ScoreResult, 0)


def test_a_field_sent_its_own_way_must_be_read_its_own_way(monkeypatch):
    monkeypatch.setitem(
        codec._READ, TotalResult, {name: read for name, read in codec._READ[TotalResult].items() if name != "ties"}
    )
    with pytest.raises(TypeError, match="fields of TotalResult do not match"):
        codec._plan(TotalResult, 0)
