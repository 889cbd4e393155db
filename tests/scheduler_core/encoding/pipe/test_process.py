"""scheduler_core.encoding.pipe.process: a forked engine's events, as the engine emitted them.

A few cases run in this process and in a forked child must store the same segments (every case and
bench file goes through the codec in tests/scheduler_core/encoding/pipe/test_codec.py); the shared
memory is made small enough to fill; a failing, dying or abandoned engine must say so, and a process
that cannot fork runs the engine itself.
"""

from __future__ import annotations

import itertools
import os
import signal
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.encoding.pipe import EngineProcessDied, events_in_child, process
from scheduler_core.encoding.events import CycleEnd, Event, ExtensionPoint
from scheduler_core.run.loop import run_to_the_end
from tests.scheduler_core.encoding.pipe.streams import BIG, SHARED, assert_same_stored

SINGLE = sorted((SHARED / "conformance" / "public").glob("*.yaml"))
TIMELINE = sorted((SHARED / "conformance-timeline" / "public").glob("*.yaml"))
DRA = sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))
BENCH_500 = sorted((SHARED / "bench").glob("*_500.yaml"))


def assert_same_in_child(scenario, run, cycles: int = 0) -> int:
    def in_child(make_events):
        stream = events_in_child(make_events)
        yield from stream
        stream.close()

    return assert_same_stored(scenario, run, in_child, cycles)


def test_a_single_pass_and_a_run_to_the_end_read_back_the_same():
    assert assert_same_in_child(load_scenario(SINGLE[0].read_bytes()), simulate)
    for path in (TIMELINE[0], DRA[0]):
        assert assert_same_in_child(load_scenario(path.read_bytes()), run_to_the_end)


def test_a_500_node_run_reads_back_the_same():
    assert assert_same_in_child(load_scenario(BENCH_500[0].read_bytes(), limits=BIG), run_to_the_end, cycles=60) == 60


def test_a_shared_memory_that_fills_up_gives_the_same(monkeypatch):
    """Frames wrapping round, the child waiting for room, frames too big for it on the pipe."""
    monkeypatch.setattr(process, "ARENA_BYTES", 64 * 1024)
    monkeypatch.setattr(process, "BATCH_BYTES", 8 * 1024)
    scenario = load_scenario(BENCH_500[0].read_bytes(), limits=BIG)
    assert assert_same_in_child(scenario, run_to_the_end, cycles=40) == 40


def test_frames_start_again_at_the_beginning_once_it_is_free(monkeypatch):
    """Past REUSE_FROM, the next frame goes to the start when no frame in flight is there (the same
    pages again), else on after the last one; the headers say where each frame is."""
    import mmap

    monkeypatch.setattr(process, "REUSE_FROM", 1000)
    arena = mmap.mmap(-1, 10_000)
    header_read, header_write = os.pipe()
    ack_read, ack_write = os.pipe()
    channel = process._ChildChannel(arena, header_write, ack_read)
    frames = [b"a" * 400, b"b" * 700, b"c" * 300, b"d" * 100, b"e" * 700, b"f" * 200]
    send = lambda frame: channel.send(process._EVENTS, frame, 1)  # noqa: E731
    send(frames[0])  # at 0
    send(frames[1])  # at 400, ending past REUSE_FROM
    os.write(ack_write, b"\x01")  # the reader took the first
    send(frames[2])  # the start is free: at 0
    send(frames[3])  # on, at 300 (not yet past REUSE_FROM)
    os.write(ack_write, b"\x01")  # the reader took the second
    send(frames[4])  # on, at 400, where the second was
    send(frames[5])  # past REUSE_FROM, but the third is in flight at the start: on, at 1100
    with os.fdopen(header_read, "rb") as headers:
        offsets = [process._HEADER.unpack(headers.read(process._HEADER.size))[1] for _ in frames]
    assert offsets == [0, 400, 0, 300, 400, 1100]
    assert [arena[start : start + len(frame)] for start, frame in zip(offsets, frames)][2:] == frames[2:]
    for fd in (ack_read, ack_write):
        os.close(fd)
    channel.headers.close()


def test_a_shared_memory_reused_from_its_start_gives_the_same(monkeypatch):
    monkeypatch.setattr(process, "ARENA_BYTES", 512 * 1024)
    monkeypatch.setattr(process, "BATCH_BYTES", 8 * 1024)
    monkeypatch.setattr(process, "REUSE_FROM", 32 * 1024)
    scenario = load_scenario(BENCH_500[0].read_bytes(), limits=BIG)
    assert assert_same_in_child(scenario, run_to_the_end, cycles=40) == 40


def made(events: list[Event]):
    return lambda in_child: iter(events)


def event(payload, cycle: int = 0, point: ExtensionPoint = ExtensionPoint.CYCLE_END) -> Event:
    return Event(cycle, "default/p", point, None, payload)


def test_the_engines_exception_is_raised_here_after_its_events():
    def failing(in_child):
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
    def failing(in_child):
        raise Picky(7, "bad")
        yield

    with pytest.raises(RuntimeError) as raised:
        list(events_in_child(failing))
    assert (type(raised.value).__name__, str(raised.value)) == ("Picky", "7: bad")


def test_an_engine_process_that_dies_is_reported():
    def dying(in_child):
        yield event(CycleEnd("n1"))
        os.kill(os.getpid(), signal.SIGKILL)
        yield event(CycleEnd("n2"))

    with pytest.raises(EngineProcessDied, match="SIGKILL"):
        list(events_in_child(dying))


def test_a_reader_that_stops_early_leaves_no_process_behind():
    pids = []

    def endless(in_child):
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

    monkeypatch.setattr(process.os, "fork", refused)
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


def _frames(monkeypatch, events: list[Event], seconds: float, batch: int) -> list[int]:
    """The events of each frame the reader got (the events themselves checked whole and in order)."""
    monkeypatch.setattr(process, "FRAME_SECONDS", seconds)
    monkeypatch.setattr(process, "BATCH_BYTES", batch)
    received = process._receive
    counts: list[int] = []

    def counting(*args):
        kind, body, count = received(*args)
        if kind == process._EVENTS:
            counts.append(count)
        return kind, body, count

    monkeypatch.setattr(process, "_receive", counting)
    got = [(e.cycle, e.payload.node_name) for e in events_in_child(made(events))]
    assert got == [(e.cycle, e.payload.node_name) for e in events]
    return counts


def test_frames_close_at_the_first_cycle_then_after_a_while_or_when_full(monkeypatch):
    # A frame wakes the reader: the first cycle goes at once (the run view's first cycle), then
    # frames hold whole cycles for FRAME_SECONDS, and never more than BATCH_BYTES.
    events = [event(CycleEnd(f"n{c}-{i}"), cycle=c) for c in range(20) for i in range(3)]
    assert _frames(monkeypatch, events, 3600.0, 1 << 30) == [3, 57]  # the first cycle, then all at the end
    assert _frames(monkeypatch, events, 0.0, 1 << 30) == [3] * 20  # every cycle's end
    assert _frames(monkeypatch, events, 3600.0, 1) == [1] * 60  # full after every event, inside a cycle too
