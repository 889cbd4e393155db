"""scheduler_core.event_pipe: a forked engine's events read back exactly as the engine emitted them.

Every public case (single pass, run to the end, DRA) and the bench files are run twice, in this
process and in a forked child, and both streams are stored as the web app stores them (one columnar
segment per cycle number): the segments must be the same bytes and every event the same JSON. The
hand-over's own paths are forced on purpose (tiny rings, a tiny shared memory, payloads it cannot
pickle) and must still give the same events; a failing, dying or abandoned engine must say so.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from scheduler_core import event_pipe, load_scenario, simulate
from scheduler_core.columnar import RunNames, encode_segment
from scheduler_core.event_pipe import EngineProcessDied, events_in_child
from scheduler_core.events import CycleEnd, Event, ExtensionPoint, QueueSortResult, WrittenJSON
from scheduler_core.loop import run_to_the_end
from scheduler_core.scenario.limits import Limits

SHARED = Path(__file__).resolve().parents[3] / "shared"
SINGLE = sorted((SHARED / "conformance" / "public").glob("*.yaml"))
TIMELINE = sorted((SHARED / "conformance-timeline" / "public").glob("*.yaml"))
DRA = sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))
BENCH_500 = sorted((SHARED / "bench").glob("*_500.yaml"))
BENCH_5000 = sorted((SHARED / "bench").glob("*_5000.yaml"))
PREEMPTION = SHARED / "bench" / "perf" / "PreemptionBasic_500Nodes.yaml"
BIG = Limits(max_pending_pods=100_000, max_bytes=1 << 30)


def stored(events, names: RunNames, cycles: int = 0) -> list[tuple[bytes, list[str]]]:
    """Per cycle number, the segment the web app would store and its events' JSON text."""
    out = []
    seq = 0
    for _, group in itertools.groupby(events, key=lambda event: event.cycle):
        group = list(group)
        out.append((encode_segment(group, names, seq), [json.dumps(event.to_json()) for event in group]))
        seq += len(group)
        if cycles and len(out) >= cycles:
            break
    return out


def assert_same_in_child(scenario, run, cycles: int = 0) -> int:
    names = RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])
    here = stored(run(scenario), names, cycles)
    child_events = events_in_child(lambda: run(scenario))
    there = stored(child_events, names, cycles)
    child_events.close()
    assert len(there) == len(here)
    for cycle, (mine, theirs) in enumerate(zip(here, there)):
        assert theirs[1] == mine[1], f"cycle group {cycle}: events differ"
        assert theirs[0] == mine[0], f"cycle group {cycle}: segments differ"
    return len(here)


@pytest.mark.parametrize("path", SINGLE, ids=lambda p: p.stem)
def test_a_single_pass_reads_back_the_same(path):
    assert assert_same_in_child(load_scenario(path.read_bytes()), simulate)


@pytest.mark.parametrize("path", TIMELINE + DRA, ids=lambda p: p.stem)
def test_a_run_to_the_end_reads_back_the_same(path):
    assert assert_same_in_child(load_scenario(path.read_bytes()), run_to_the_end)


@pytest.mark.parametrize("path", BENCH_500, ids=lambda p: p.stem)
def test_a_500_node_bench_run_reads_back_the_same(path):
    assert assert_same_in_child(load_scenario(path.read_bytes(), limits=BIG), run_to_the_end, cycles=60) == 60


@pytest.mark.slow
@pytest.mark.parametrize("path", BENCH_5000, ids=lambda p: p.stem)
def test_a_5000_node_bench_run_reads_back_the_same(path):
    """Thousands of nodes: node lists as positions, tie positions, spreading pictures and counts."""
    assert assert_same_in_child(load_scenario(path.read_bytes(), limits=BIG), run_to_the_end, cycles=25) == 25


@pytest.mark.slow
def test_preemption_reads_back_the_same():
    scenario = load_scenario(PREEMPTION.read_bytes(), limits=BIG)
    assert assert_same_in_child(scenario, run_to_the_end, cycles=120) == 120


def test_tiny_rings_and_a_tiny_shared_memory_give_the_same(monkeypatch):
    """Slots reused every few lists, frames waiting for room, frames too big for it on the pipe."""
    monkeypatch.setattr(event_pipe, "RING_SIZES", {"tables": 1, "lists": 2, "tuples": 2})
    monkeypatch.setattr(event_pipe, "ARENA_BYTES", 64 * 1024)
    monkeypatch.setattr(event_pipe, "BATCH_BYTES", 8 * 1024)
    scenario = load_scenario(BENCH_500[0].read_bytes(), limits=BIG)
    assert assert_same_in_child(scenario, run_to_the_end, cycles=40) == 40
    timeline = load_scenario(TIMELINE[0].read_bytes())
    assert assert_same_in_child(timeline, run_to_the_end)


class Opaque:
    """A payload type the hand-over does not know, holding what pickle refuses."""

    def __init__(self) -> None:
        self.callback = lambda: None

    def to_json(self) -> dict:
        return {"opaque": True}


@dataclass
class Holder:
    value: object


def made(events: list[Event]):
    return lambda: iter(events)


def event(payload, cycle: int = 0, point: ExtensionPoint = ExtensionPoint.CYCLE_END) -> Event:
    return Event(cycle, "default/p", point, None, payload)


def test_a_payload_it_cannot_pickle_goes_as_its_json():
    events = [event(Opaque()), event(CycleEnd("n1"))]
    got = list(events_in_child(made(events)))
    assert [type(e.payload) for e in got] == [WrittenJSON, CycleEnd]
    assert [e.to_json() for e in got] == [e.to_json() for e in events]


def test_a_payload_is_read_as_it_was_when_emitted():
    """An in-process writer reads each event as it comes; so does the hand-over."""
    order = ["default/a", "default/b"]

    def emitted():
        yield event(QueueSortResult(order), point=ExtensionPoint.QUEUE_SORT)
        order.append("default/c")  # changed after its event went out, within the same cycle
        yield event(CycleEnd("n1"))

    got = list(events_in_child(emitted))
    assert got[0].payload.order == ["default/a", "default/b"]


def test_long_pod_lists_and_arrays_come_back_equal():
    names = [f"ns/pod-{i}" for i in range(500)]
    odd = ["ns/a\x00b", *names]  # the separator inside a name: sent as a list
    events = [event(QueueSortResult(names), point=ExtensionPoint.QUEUE_SORT),
              event(QueueSortResult(odd), point=ExtensionPoint.QUEUE_SORT),
              event(Holder(np.arange(7, dtype=np.int16)))]
    got = list(events_in_child(made(events)))
    assert got[0].payload.order == names and got[1].payload.order == odd
    assert got[2].payload.value.dtype == np.int16 and got[2].payload.value.tolist() == list(range(7))


def test_the_engines_exception_is_raised_here_after_its_events():
    def failing():
        yield event(CycleEnd("n1"))
        raise RuntimeError("boom")

    got = []
    with pytest.raises(RuntimeError) as raised:
        for e in events_in_child(failing):
            got.append(e)
    assert str(raised.value) == "boom"  # what a failed run's message says ("RuntimeError: boom")
    assert [e.payload.node_name for e in got] == ["n1"]
    assert any("in the engine process" in note and "boom" in note for note in raised.value.__notes__)


class Picky(Exception):
    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"{code}: {text}")


def test_an_exception_that_does_not_pickle_keeps_its_name_and_message():
    def failing():
        raise Picky(7, "bad")
        yield

    with pytest.raises(RuntimeError) as raised:
        list(events_in_child(failing))
    assert (type(raised.value).__name__, str(raised.value)) == ("Picky", "7: bad")


def test_an_engine_process_that_dies_is_reported():
    def dying():
        yield event(CycleEnd("n1"))
        os.kill(os.getpid(), signal.SIGKILL)
        yield event(CycleEnd("n2"))

    with pytest.raises(EngineProcessDied, match="SIGKILL"):
        list(events_in_child(dying))


def test_a_reader_that_stops_early_leaves_no_process_behind():
    pids = []

    def endless():
        pids.append(os.getpid())  # in the child: only the child's list grows
        for cycle in itertools.count():
            yield event(CycleEnd("n1"), cycle=cycle)

    before = set(_children())  # other tests may leave processes of their own (a browser, a server)
    stream = events_in_child(endless)
    assert next(stream).payload.node_name == "n1"
    forked = set(_children()) - before
    assert len(forked) == 1
    stream.close()
    assert not _alive(forked.pop())


def test_a_process_that_cannot_fork_runs_the_engine_itself(monkeypatch):
    def refused():
        raise BlockingIOError("fork: resource temporarily unavailable")

    monkeypatch.setattr(event_pipe.os, "fork", refused)
    events = [event(CycleEnd("n1")), event(CycleEnd("n2"), cycle=1)]
    assert [e.payload.node_name for e in events_in_child(made(events))] == ["n1", "n2"]


def _children() -> list[int]:
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running or a zombie nobody reaped."""
    return Path(f"/proc/{pid}").exists()
