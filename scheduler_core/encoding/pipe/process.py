"""The engine in a forked child; its events in the process that forked it, as they come.

The child inherits the loaded scenario (nothing is loaded twice) and never touches what the parent
holds open (database connections, sockets): it only writes its frames and leaves with ``os._exit``.
Frames (the events of some milliseconds of whole cycles, at most 16 MiB; ``codec``) are written
into memory both processes share and announced on a pipe; the reader copies a frame out and
acknowledges it on a second pipe, and the child waits for acknowledgements only when the shared
memory is full (a frame too big for it goes through the pipe itself). If the engine raises, the
exception is raised again here (the child's traceback as a note); if the child dies,
``EngineProcessDied`` says how; if the reader stops early (the run cancelled), the child is killed.
"""

from __future__ import annotations

import gc
import itertools
import mmap
import os
import pickle
import select
import signal
import struct
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Optional

from scheduler_core.encoding.pipe.codec import Receiver, Sender
from scheduler_core.encoding.events import Event

# A frame closes at the first cycle's end, then at a cycle's end once FRAME_SECONDS have passed
# since the last one closed or it holds half of BATCH_BYTES, and within a cycle at BATCH_BYTES.
# Each frame is a pipe write that wakes the reader and an acknowledgement back: one per
# 5,000-node attempt (~0.5 MB, ~1 ms) cost the engine's process a tenth of its time in those
# writes alone; ten milliseconds of attempts a frame leave the reader as busy (it still gets whole
# cycles, the first one at once). The engine against the engine alone, its events only read back
# (spread_5000, 1,000 attempts): a frame a cycle 0.73; 4 MiB / 5 ms 0.77; 16 MiB / 10 ms 0.78;
# 16 MiB / 20 ms 0.78.
BATCH_BYTES = 16 << 20
FRAME_SECONDS = 0.01
# The shared memory frames are written into: ~100 attempts of 5,000 nodes (~0.6 MB each), so the
# engine runs on while the task writes a batch or collects garbage. With 16 MiB (~25 attempts) the
# engine of spread_5000 waited 0.18-0.49 s of its ~4 s for room; with 64 MiB, 0.04-0.10 s. Only
# the pages written are resident; both processes map the same ones.
ARENA_BYTES = 64 << 20
# Frames start again at the beginning as soon as it is free and this much has been written: the
# reader keeps up most of the time, so the same few MiB are reused (each page of the shared memory
# costs both processes a fault the first time it is touched: 16,384 of them for all 64 MiB, ~3 % of
# a 5,000-node run's engine) and the rest is there for when it falls behind.
REUSE_FROM = 16 << 20

_HEADER = struct.Struct("<BqQI")  # kind, offset in the shared memory (-1: the body follows on the pipe), length, events
_EVENTS, _END, _ERROR = 1, 2, 3
_PR_SET_PDEATHSIG = 1


class EngineProcessDied(RuntimeError):
    """The engine's process ended before its stream did (killed, out of memory, ...)."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def events_in_child(make_events: Callable[[bool], Iterator[Event]]) -> Iterator[Event]:
    """``make_events(True)`` run in a forked child (True: its events go only to the hand-over);
    its events, typed, in this process as they come. A process that cannot fork now (out of
    processes or memory) runs ``make_events(False)`` here instead: same events."""
    arena = mmap.mmap(-1, ARENA_BYTES)  # anonymous and shared: the child writes, this process reads
    header_read, header_write = os.pipe()
    ack_read, ack_write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (header_read, header_write, ack_read, ack_write):
            os.close(fd)
        arena.close()
        yield from make_events(False)
        return
    if pid == 0:  # the child: never returns
        os.close(header_read)
        os.close(ack_write)
        _child(_ChildChannel(arena, header_write, ack_read), make_events)
    os.close(header_write)
    os.close(ack_read)
    ended = False
    try:
        with os.fdopen(header_read, "rb") as headers:
            receiver = Receiver()
            while True:
                kind, body, count = _receive(arena, headers, ack_write, pid)
                if kind == _EVENTS:
                    yield from receiver.events(body, count)
                elif kind == _ERROR:
                    ended = True
                    raise _exception(body)
                else:
                    ended = True
                    return
    finally:
        os.close(ack_write)
        _reap(pid, kill=not ended)
        arena.close()


# --- the child ---------------------------------------------------------------------------------


class _ChildChannel:
    """The child's end: frames into the shared memory, their headers on the pipe."""

    def __init__(self, arena: mmap.mmap, header_fd: int, ack_fd: int) -> None:
        self.arena = arena
        self.headers = os.fdopen(header_fd, "wb", buffering=0)
        self.ack_fd = ack_fd
        os.set_blocking(ack_fd, False)
        self.in_flight: deque[tuple[int, int]] = deque()  # (start, end) of frames not acknowledged, oldest first
        self.position = 0

    def events(self, frame: memoryview, count: int) -> None:
        self.send(_EVENTS, frame, count)

    def send(self, kind: int, body: Any, count: int = 0) -> None:
        length = len(body)
        if length > len(self.arena) // 2:
            _write_all(self.headers, _HEADER.pack(kind, -1, length, count))
            _write_all(self.headers, body)
            return
        self._take_acks()
        start = self.position
        if start + length > len(self.arena) or (start >= REUSE_FROM and self._free(0, length)):
            start = 0
        self._make_room(start, start + length)
        self.arena[start : start + length] = body
        self.in_flight.append((start, start + length))
        self.position = start + length
        _write_all(self.headers, _HEADER.pack(kind, start, length, count))

    def _free(self, start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in self.in_flight)

    def _make_room(self, start: int, end: int) -> None:
        while not self._free(start, end):
            select.select([self.ack_fd], [], [])  # the reader copies frames out in order: wait for the oldest
            self._take_acks()

    def _take_acks(self) -> None:
        try:
            acks = os.read(self.ack_fd, 4096)
        except BlockingIOError:
            return
        if not acks:
            raise BrokenPipeError("the reader is gone")
        for _ in range(len(acks)):
            self.in_flight.popleft()


def _child(channel: _ChildChannel, make_events: Callable[[bool], Iterator[Event]]) -> None:
    code = 1
    sender: Optional[Sender] = None
    try:
        _as_engine_process()
        sender = Sender()
        cycle = None
        # The collector stays off until the first event, where the run freezes what is alive (the
        # scheduler's set-up): turned on sooner, its first pass walks the whole new snapshot (0.4 s
        # at 150,000 pods). Off and on by hand: the parent may have forked inside its own
        # collector_paused, whose count this process inherits.
        gc.disable()
        events = make_events(True)
        first = next(events, None)
        gc.enable()
        closed = None  # when the last frame closed (None: no frame yet)
        for event in itertools.chain([first] if first is not None else [], events):
            if event.cycle != cycle:
                if sender.count and (
                    closed is None or sender.pending >= BATCH_BYTES // 2 or time.monotonic() - closed >= FRAME_SECONDS
                ):
                    sender.flush_to(channel.events)
                    closed = time.monotonic()
                cycle = event.cycle
            elif sender.pending >= BATCH_BYTES:  # one cycle's events alone fill a frame
                sender.flush_to(channel.events)
                closed = time.monotonic()
            sender.add(event)
        if sender.count:
            sender.flush_to(channel.events)
        channel.send(_END, b"")
        code = 0
    except BaseException as exc:  # noqa: BLE001 - every failure goes to the reader, then the child ends
        try:
            if sender is not None and sender.count:
                sender.flush_to(channel.events)  # the events emitted before it, as an in-process reader had them
            channel.send(_ERROR, _error_body(exc))
        except BaseException:  # noqa: BLE001 - the reader is gone: nothing left to tell
            pass
    finally:
        os._exit(code)  # never the parent's exit handlers: its connections are the parent's


def _as_engine_process() -> None:
    """Signals back to their defaults (a worker's handlers are its own), killed with its parent,
    and the collector kept off the inherited objects (a full pass would copy every page it visits)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
        signal.signal(sig, signal.SIG_DFL)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the pipe breaking ends it at its next write
        pass
    gc.freeze()


def _write_all(out: BinaryIO, data: Any) -> None:
    view = memoryview(data)
    while view:
        view = view[out.write(view) :]


def _error_body(exc: BaseException) -> bytes:
    text = "".join(traceback.format_exception(exc))
    try:
        dumped = pickle.dumps(exc)
        pickle.loads(dumped)  # an exception whose constructor takes other arguments fails here
        pickled: Optional[bytes] = dumped
    except Exception:  # noqa: BLE001 - told by name and message instead
        pickled = None
    return pickle.dumps((pickled, type(exc).__name__, str(exc), text))


def _receive(arena: mmap.mmap, headers: BinaryIO, ack_fd: int, pid: int) -> tuple[int, bytes, int]:
    """The next frame: (kind, body, events in it)."""
    header = headers.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EngineProcessDied(f"the engine process ({pid}) ended before the run did: {_how_it_ended(pid)}")
    kind, offset, length, count = _HEADER.unpack(header)
    if offset < 0:
        body = headers.read(length)
        if len(body) < length:
            raise EngineProcessDied(
                f"the engine process ({pid}) ended in the middle of its events: {_how_it_ended(pid)}"
            )
        return kind, body, count
    body = arena[offset : offset + length]  # a copy: the child may write there once told
    try:
        os.write(ack_fd, b"\x01")
    except BrokenPipeError:  # the child is gone; its frames so far are still read
        pass
    return kind, body, count


def _exception(body: bytes) -> BaseException:
    pickled, name, message, text = pickle.loads(body)
    exc: BaseException
    if pickled is not None:
        exc = pickle.loads(pickled)
    else:
        exc = type(name, (RuntimeError,), {})(message)  # the same "Name: message" as the original
    exc.add_note("in the engine process:\n" + text.rstrip())
    return exc


_ENDED: dict[int, int] = {}  # pid -> wait status, for a child reaped while telling how it ended


def _how_it_ended(pid: int) -> str:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # reaped by someone else (a SIGCHLD handler)
        return "its exit status is unknown"
    _ENDED[pid] = status
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def _reap(pid: int, kill: bool) -> None:
    if _ENDED.pop(pid, None) is not None:
        return
    if kill:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
