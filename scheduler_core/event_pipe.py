"""A run's events from a forked engine process, read back typed in the process that stores them.

The run a user waits for is the engine and, in the same stream, storing what it says (the web app's
columnar segments, their writes, the watchers told): in one process they take turns, and storing a
5,000-node attempt costs about what scheduling it does. ``events_in_child`` forks: the child runs the
engine and hands each event over as it is emitted; the caller's process reads them back and stores
them meanwhile, on the machine's other core. The child inherits the loaded scenario (nothing is
loaded twice) and never touches what the parent holds open (database connections, sockets): it only
writes its frames and leaves with ``os._exit``.

The hand-over must cost the engine little, so it is not a generic pickle of the events:

- an event goes as a tuple of plain values (its payload's type as a number, then its fields), which
  the C pickler writes without calling back into Python;
- a node list gathered from a node table (``PositionedNames``) goes as its positions; the table's
  name list goes once, and the reader gathers the names again from its own copy;
- what the engine hands out again unchanged — a table's name list, a ``PositionedNames`` (which
  nobody may change), a tuple of names (a picture's domain nodes, fixed per snapshot) — is kept in
  rings on both sides and sent as a slot number after the first time, so the reader also gets one
  object for each, as the engine's readers do;
- long lists of pod names (the queues an attempt starts with) go as one joined string; arrays as
  their bytes;
- what a payload holds of a plugin's own (a PreScore state, a PreFilter picture, Filter's node
  pictures) goes as the JSON its ``to_json`` makes — with the per-node counts and node lists that
  the columnar encoder passes its own callbacks for left as marks, so the reader's ``to_json`` still
  calls the encoder's callbacks with the same names and arrays.

Each event is serialised when the engine emits it (as an in-process writer reads it) with no memo:
nothing is shared between events but what the rings hold, which never changes. A payload the
hand-over cannot take (a type it does not know holding something unpicklable) goes as its
``to_json()`` — the same JSON when stored, only without the typed encoder's columns.

Frames (a cycle's events, or 256 KiB of them) are written into memory both processes share and
announced on a pipe; the reader copies a frame out and acknowledges it on a second pipe, and the
child waits for acknowledgements only when the shared memory is full (a frame too big for it goes
through the pipe itself). If the engine raises, the exception is raised again here (the child's
traceback as a note); if the child dies, ``EngineProcessDied`` says how; if the reader stops early
(the run cancelled), the child is killed.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import mmap
import operator
import os
import pickle
import select
import signal
import struct
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Optional

import numpy as np

from scheduler_core import events
from scheduler_core.events import (
    CycleStart,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    PreFilterPluginResult,
    PreScorePluginResult,
    QueueSortResult,
    ScoreResult,
    TotalResult,
    WrittenJSON,
)
from scheduler_core.framework.node_table import PositionedNames

BATCH_BYTES = 256 * 1024  # a frame closes at a cycle's end or once it holds this much
ARENA_BYTES = 16 << 20  # the shared memory frames are written into (a 5,000-node attempt is ~0.7 MB)
MIN_JOINED = 64  # pod-name lists at least this long go as one string
SEPARATOR = "\x00"  # never in a Kubernetes name; a list holding it goes as a list
RING_SIZES = {"tables": 64, "lists": 64, "tuples": 4096}

_HEADER = struct.Struct("<BqQI")  # kind, offset in the shared memory (-1: the body follows on the pipe), length, events
_EVENTS, _END, _ERROR = 1, 2, 3
_PR_SET_PDEATHSIG = 1
_POINT_VALUES = {point: point.value for point in ExtensionPoint}
_POINTS = {point.value: point for point in ExtensionPoint}


class EngineProcessDied(RuntimeError):
    """The engine's process ended before its stream did (killed, out of memory, ...)."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def events_in_child(make_events: Callable[[], Iterator[Event]]) -> Iterator[Event]:
    """``make_events()`` run in a forked child; its events, typed, in this process as they come.
    A process that cannot fork now (out of processes or memory) runs it here instead: same events."""
    arena = mmap.mmap(-1, ARENA_BYTES)  # anonymous and shared: the child writes, this process reads
    header_read, header_write = os.pipe()
    ack_read, ack_write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (header_read, header_write, ack_read, ack_write):
            os.close(fd)
        arena.close()
        yield from make_events()
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
            receiver = _Receiver()
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

    def send(self, kind: int, body: Any, count: int = 0) -> None:
        length = len(body)
        if length > len(self.arena) // 2:
            _write_all(self.headers, _HEADER.pack(kind, -1, length, count))
            _write_all(self.headers, body)
            return
        start = self.position if self.position + length <= len(self.arena) else 0
        self._make_room(start, start + length)
        self.arena[start:start + length] = body
        self.in_flight.append((start, start + length))
        self.position = start + length
        _write_all(self.headers, _HEADER.pack(kind, start, length, count))

    def _make_room(self, start: int, end: int) -> None:
        self._take_acks()
        while any(s < end and start < e for s, e in self.in_flight):
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


def _child(channel: _ChildChannel, make_events: Callable[[], Iterator[Event]]) -> None:
    code = 1
    sender: Optional[_Sender] = None
    try:
        _as_engine_process()
        sender = _Sender()
        cycle = None
        for event in make_events():
            if event.cycle != cycle or sender.pending >= BATCH_BYTES:
                if sender.count:
                    sender.send(channel)
                cycle = event.cycle
            sender.add(event)
        if sender.count:
            sender.send(channel)
        channel.send(_END, b"")
        code = 0
    except BaseException as exc:  # noqa: BLE001 - every failure goes to the reader, then the child ends
        try:
            if sender is not None and sender.count:
                sender.send(channel)  # the events emitted before it, as an in-process reader had them
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
        view = view[out.write(view):]


def _error_body(exc: BaseException) -> bytes:
    text = "".join(traceback.format_exception(exc))
    try:
        pickled: Optional[bytes] = pickle.dumps(exc)
        pickle.loads(pickled)  # an exception whose constructor takes other arguments fails here
    except Exception:  # noqa: BLE001 - told by name and message instead
        pickled = None
    return pickle.dumps((pickled, type(exc).__name__, str(exc), text))


class _Ring:
    """Objects by identity, each in a slot both sides number alike; the oldest slot is reused."""

    def __init__(self, size: int, journal: list) -> None:
        self.size = size
        self.slots: list[Any] = [None] * size
        self.by_id: dict[int, int] = {}
        self.next = 0
        self.journal = journal  # the sender's: (ring, slot, its object before) for each put of the event being written

    def undo(self, slot: int, old: Any) -> None:
        """A put taken back: the reader never got the event whose writing failed."""
        self.by_id.pop(id(self.slots[slot]), None)
        self.slots[slot] = old
        if old is not None:
            self.by_id[id(old)] = slot
        self.next = slot

    def find(self, obj: Any) -> Optional[int]:
        slot = self.by_id.get(id(obj))
        return slot if slot is not None and self.slots[slot] is obj else None

    def put(self, obj: Any) -> int:
        slot = self.next
        old = self.slots[slot]
        self.journal.append((self, slot, old))
        if old is not None:
            self.by_id.pop(id(old), None)
        self.slots[slot] = obj  # held: its id stays its own while it has the slot
        self.by_id[id(obj)] = slot
        self.next = (slot + 1) % self.size
        return slot


class _NodesMark:
    """Where a picture's ``to_json`` called ``node_list(nodes)``."""

    __slots__ = ("nodes",)

    def __init__(self, nodes: Any) -> None:
        self.nodes = nodes


class _CountsMark:
    """Where a PreScore state's ``to_json`` called ``node_counts(names, counts)``."""

    __slots__ = ("names", "counts")

    def __init__(self, names: Any, counts: Any) -> None:
        self.names = names
        self.counts = counts


class _Names:
    """A long list of pod names, joined."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _joined(names: Any) -> Any:
    if type(names) is not list or len(names) < MIN_JOINED or type(names[0]) is not str:
        return names
    try:
        text = SEPARATOR.join(names)
    except TypeError:  # not all strings
        return names
    return _Names(text) if text.count(SEPARATOR) == len(names) - 1 else names


_FIELDS: dict[type, Optional[tuple[tuple[str, ...], Callable[[Any], tuple]]]] = {}


def _fields_of(cls: type) -> Optional[tuple[tuple[str, ...], Callable[[Any], tuple]]]:
    """A slotted dataclass's field names and one getter for all of them (None: not one)."""
    if cls not in _FIELDS:
        found = None
        if dataclasses.is_dataclass(cls) and "__slots__" in vars(cls):
            names = tuple(f.name for f in dataclasses.fields(cls))
            getter = operator.attrgetter(*names) if len(names) > 1 else (lambda obj, get=operator.attrgetter(names[0]): (get(obj),))
            found = (names, getter)
        _FIELDS[cls] = found
    return _FIELDS[cls]


def _slotted(cls: type, values: tuple) -> Any:
    obj = cls.__new__(cls)
    for name, value in zip(_fields_of(cls)[0], values):
        object.__setattr__(obj, name, value)
    return obj


# Every payload the engine emits, numbered on the wire (both sides import the same list).
PAYLOAD_TYPES: tuple[type, ...] = tuple(
    cls for cls in vars(events).values()
    if isinstance(cls, type) and cls.__module__ == events.__name__ and dataclasses.is_dataclass(cls) and cls is not Event
)
_CODES = {cls: code for code, cls in enumerate(PAYLOAD_TYPES)}
_UNKNOWN = -1  # a payload of another type: pickled as it is


class _Sender(pickle.Pickler):
    """Writes events one by one, each as it is emitted, into the frame being filled.

    An event goes as a tuple of plain values — (cycle, pod, extension point, plugin, payload type,
    payload fields) — which the C pickler writes without calling back into Python; what is not plain
    (arrays and node lists inside plugins' JSON, a status) comes through ``reducer_override``."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()
        super().__init__(self.buffer, protocol=5)
        # No memo: an event is a tree (what it shares with others goes through the rings), and
        # clearing a memo between events walks every slot it ever grew to (25 µs an event).
        self.fast = True
        self.journal: list[tuple[_Ring, int, Any]] = []
        self.rings = {kind: _Ring(size, self.journal) for kind, size in RING_SIZES.items()}
        self.count = 0

    @property
    def pending(self) -> int:
        return self.buffer.tell()

    def add(self, event: Event) -> None:
        start = self.buffer.tell()
        self.journal.clear()
        payload = event.payload
        envelope = (event.cycle, event.pod, _POINT_VALUES[event.extension_point], event.plugin)
        try:
            self.dump((*envelope, *self.payload(type(payload), payload)))
        except BaseException as exc:
            self._take_back(start)  # the frame keeps whole events only
            if not isinstance(exc, (pickle.PicklingError, TypeError, AttributeError, ValueError)):
                raise
            self.dump((*envelope, _CODES[WrittenJSON], (payload.to_json(),)))
        self.count += 1

    def _take_back(self, start: int) -> None:
        self.buffer.seek(start)
        self.buffer.truncate()
        for ring, slot, old in reversed(self.journal):
            ring.undo(slot, old)

    def payload(self, kind: type, payload: Any) -> tuple[int, Any]:
        encode = _ENCODERS.get(kind)
        if encode is not None:
            return _CODES[kind], encode(self, payload)
        fields = _fields_of(kind)
        if fields is not None and kind in _CODES:
            return _CODES[kind], fields[1](payload)
        return _UNKNOWN, payload

    def send(self, channel: _ChildChannel) -> None:
        """The events added since the last frame, as one frame."""
        with self.buffer.getbuffer() as body:
            channel.send(_EVENTS, body, self.count)
        self.buffer.seek(0)
        self.buffer.truncate()
        self.count = 0

    # the values inside a payload

    def nodes(self, names: Any) -> Any:
        """A node list: a ring slot (int) for a PositionedNames sent before, (slot, table, positions,
        dtype) for a new one, anything else as it is."""
        if type(names) is not PositionedNames:
            return names
        ring = self.rings["lists"]
        slot = ring.find(names)
        if slot is not None:
            return slot
        table = self.table(names.table_names)
        positions = names.positions
        return ring.put(names), table, positions.tobytes(), positions.dtype.str

    def table(self, names: list[str]) -> Any:
        ring = self.rings["tables"]
        slot = ring.find(names)
        return slot if slot is not None else (ring.put(names), names)

    @staticmethod
    def array(values: Any) -> Any:
        if type(values) is np.ndarray and values.ndim == 1 and not values.dtype.hasobject:
            return values.tobytes(), values.dtype.str
        return values

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is np.ndarray:
            wire = self.array(obj)
            return (_array, (wire,)) if wire is not obj else NotImplemented
        if kind is PositionedNames:
            return _nodes, (self.nodes(obj),)
        if kind is _NodesMark:
            nodes = obj.nodes
            if type(nodes) is tuple:
                ring = self.rings["tuples"]
                slot = ring.find(nodes)
                return (_nodes_mark, (slot, None)) if slot is not None else (_nodes_mark, (ring.put(nodes), nodes))
            return _nodes_mark, (None, nodes)
        if kind is _CountsMark:
            return _counts_mark, (obj.names, obj.counts)
        if kind is _Names:
            return _split, (obj.text,)
        return NotImplemented


def _encode_filter(sender: _Sender, result: FilterPluginResult) -> tuple:
    pictures = {node: picture.to_json() for node, picture in result.pictures.items()}
    return sender.nodes(result.nodes), result.palette, sender.array(result.choice), pictures


def _encode_filter_summary(sender: _Sender, summary: FilterSummary) -> tuple:
    return (sender.nodes(summary.evaluated), sender.nodes(summary.feasible_nodes), summary.num_feasible_nodes_to_find,
            summary.start_index, summary.nominated_only, summary.batch_hint)


def _encode_score(sender: _Sender, result: ScoreResult) -> tuple:
    return sender.nodes(result.nodes), sender.array(result.raw)


def _encode_normalize(sender: _Sender, result: NormalizeResult) -> tuple:
    return sender.nodes(result.nodes), sender.array(result.normalized), result.weight, sender.array(result.weighted)


def _encode_total(sender: _Sender, result: TotalResult) -> tuple:
    positions = result.tie_positions
    # With the positions, the ties are the engine's own nodes[p] for p in them: gathered again there.
    ties = None if positions is not None else result.ties
    return (sender.nodes(result.nodes), sender.array(result.totals), result.node_name, ties, result.error,
            sender.array(positions) if positions is not None else None)


def _encode_pre_score(sender: _Sender, result: PreScorePluginResult) -> tuple:
    state = result.state
    typed = hasattr(state, "to_json")
    return result.status, typed, state.to_json(_CountsMark) if typed else state


def _encode_pre_filter(sender: _Sender, result: PreFilterPluginResult) -> tuple:
    picture = result.picture
    return result.status, result.node_names, result.state, None if picture is None else (picture.to_json(_NodesMark),)


def _encode_cycle_start(sender: _Sender, start: CycleStart) -> tuple:
    queues = start.queues
    if queues is not None:
        queues = {name: _joined(queue) for name, queue in queues.items()}
    return (start.pod, start.namespace, start.name, start.priority, start.labels, _joined(start.queue), start.node_count,
            start.cycles, start.volumes, queues)


def _encode_queue_sort(sender: _Sender, result: QueueSortResult) -> tuple:
    return (_joined(result.order),)


_ENCODERS: dict[type, Callable[[_Sender, Any], tuple]] = {
    FilterPluginResult: _encode_filter,
    FilterSummary: _encode_filter_summary,
    ScoreResult: _encode_score,
    NormalizeResult: _encode_normalize,
    TotalResult: _encode_total,
    PreScorePluginResult: _encode_pre_score,
    PreFilterPluginResult: _encode_pre_filter,
    CycleStart: _encode_cycle_start,
    QueueSortResult: _encode_queue_sort,
}


# --- the reader ------------------------------------------------------------------------------


class _WrittenState:
    """A PreScore state as the child wrote it: ``to_json(node_counts)`` fills its marks."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_json(self, node_counts: Optional[Callable[[Any, Any], Any]] = None) -> Any:
        def fill(mark: Any) -> Any:
            if type(mark) is _CountsMark:
                counts = node_counts(mark.names, mark.counts) if node_counts is not None else None
                return dict(zip(mark.names, mark.counts.tolist())) if counts is None else counts
            return mark

        return _filled(self.value, fill)


class _WrittenPicture:
    """A PreFilter picture as the child wrote it: ``to_json(node_list)`` fills its marks."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_json(self, node_list: Callable[[Any], Any] = list) -> Any:
        return _filled(self.value, lambda mark: node_list(mark.nodes) if type(mark) is _NodesMark else mark)


def _filled(value: Any, fill: Callable[[Any], Any]) -> Any:
    """A fresh copy of JSON with every mark replaced."""
    kind = type(value)
    if kind is dict:
        return {key: _filled(item, fill) for key, item in value.items()}
    if kind is list:
        return [_filled(item, fill) for item in value]
    return fill(value) if kind is _NodesMark or kind is _CountsMark else value


def _array(wire: Any) -> Any:
    """An array sent as (bytes, dtype); anything else was sent as it is."""
    if type(wire) is tuple and len(wire) == 2 and type(wire[0]) is bytes:
        return np.frombuffer(wire[0], dtype=wire[1])  # read-only: the reader only reads it
    return wire


def _split(text: str) -> list[str]:
    return text.split(SEPARATOR)


# Named in the child's pickles and answered by the reader's rings (_EventUnpickler.find_class).
def _nodes(wire: Any) -> Any:
    raise AssertionError("read through _Receiver")  # pragma: no cover


def _nodes_mark(slot: Optional[int], nodes: Any) -> Any:
    raise AssertionError("read through _Receiver")  # pragma: no cover


def _counts_mark(names: Any, counts: Any) -> _CountsMark:
    return _CountsMark(names, counts)


class _Receiver:
    """The rings as the child filled them, and the events of each frame read back."""

    def __init__(self) -> None:
        self.rings: dict[str, list[Any]] = {kind: [None] * size for kind, size in RING_SIZES.items()}
        self.arrays: dict[int, np.ndarray] = {}  # id(a table's name list in the ring) -> the names as an object array

    def events(self, body: bytes, count: int) -> Iterator[Event]:
        unpickler = _EventUnpickler(io.BytesIO(body), self)
        for _ in range(count):
            cycle, pod, point, plugin, code, fields = unpickler.load()
            yield Event(cycle, pod, _POINTS[point], plugin, self.payload(code, fields))

    def payload(self, code: int, fields: Any) -> Any:
        if code == _UNKNOWN:
            return fields
        kind = PAYLOAD_TYPES[code]
        decode = _DECODERS.get(kind)
        return decode(self, fields) if decode is not None else _slotted(kind, fields)

    def nodes(self, wire: Any) -> Any:
        kind = type(wire)
        if kind is int:
            return self.rings["lists"][wire]
        if kind is not tuple or not wire or type(wire[0]) is not int:
            return wire
        slot, table, positions, dtype = wire
        names = self.table(table)
        at = np.frombuffer(positions, dtype=dtype)
        value = self.rings["lists"][slot] = PositionedNames(self.arrays[id(names)][at].tolist(), at, names)
        return value

    def table(self, wire: Any) -> list[str]:
        ring = self.rings["tables"]
        if type(wire) is int:
            return ring[wire]
        slot, names = wire
        if ring[slot] is not None:
            del self.arrays[id(ring[slot])]
        ring[slot] = names
        self.arrays[id(names)] = np.asarray(names, dtype=object)
        return names

    def gathered(self, nodes: Any, positions: np.ndarray) -> list[str]:
        """nodes[p] for each position: at C speed when ``nodes`` came from a table here."""
        # An entry is a list the ring holds (it goes when the list leaves), so an id found is this list's.
        array = self.arrays.get(id(nodes.table_names)) if type(nodes) is PositionedNames else None
        if array is not None:
            return array[nodes.positions[positions]].tolist()
        return [nodes[p] for p in positions.tolist()]

    def nodes_mark(self, slot: Optional[int], nodes: Any) -> _NodesMark:
        if slot is not None:
            if nodes is None:
                nodes = self.rings["tuples"][slot]
            else:
                self.rings["tuples"][slot] = nodes
        return _NodesMark(nodes)


def _decode_filter(receiver: _Receiver, fields: tuple) -> FilterPluginResult:
    nodes, palette, choice, pictures = fields
    return FilterPluginResult(receiver.nodes(nodes), palette, _array(choice),
                              {node: WrittenJSON(picture) for node, picture in pictures.items()})


def _decode_filter_summary(receiver: _Receiver, fields: tuple) -> FilterSummary:
    evaluated, feasible, *rest = fields
    return FilterSummary(receiver.nodes(evaluated), receiver.nodes(feasible), *rest)


def _decode_score(receiver: _Receiver, fields: tuple) -> ScoreResult:
    nodes, raw = fields
    return ScoreResult(receiver.nodes(nodes), _array(raw))


def _decode_normalize(receiver: _Receiver, fields: tuple) -> NormalizeResult:
    nodes, normalized, weight, weighted = fields
    return NormalizeResult(receiver.nodes(nodes), _array(normalized), weight, _array(weighted))


def _decode_total(receiver: _Receiver, fields: tuple) -> TotalResult:
    nodes, totals, node_name, ties, error, positions = fields
    nodes = receiver.nodes(nodes)
    if positions is not None:
        positions = _array(positions)
        ties = receiver.gathered(nodes, positions)
    return TotalResult(nodes, _array(totals), node_name, ties, error, positions)


def _decode_pre_score(receiver: _Receiver, fields: tuple) -> PreScorePluginResult:
    status, typed, state = fields
    return PreScorePluginResult(status, _WrittenState(state) if typed else state)


def _decode_pre_filter(receiver: _Receiver, fields: tuple) -> PreFilterPluginResult:
    status, node_names, state, picture = fields
    return PreFilterPluginResult(status, node_names, state, None if picture is None else _WrittenPicture(picture[0]))


def _decode_cycle_start(receiver: _Receiver, fields: tuple) -> CycleStart:
    return CycleStart(*fields)


_DECODERS: dict[type, Callable[[_Receiver, Any], Any]] = {
    FilterPluginResult: _decode_filter,
    FilterSummary: _decode_filter_summary,
    ScoreResult: _decode_score,
    NormalizeResult: _decode_normalize,
    TotalResult: _decode_total,
    PreScorePluginResult: _decode_pre_score,
    PreFilterPluginResult: _decode_pre_filter,
    CycleStart: _decode_cycle_start,
}


class _EventUnpickler(pickle.Unpickler):
    def __init__(self, stream: BinaryIO, receiver: _Receiver) -> None:
        super().__init__(stream)
        self.receiver = receiver

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__:
            if name == "_nodes":
                return self.receiver.nodes
            if name == "_nodes_mark":
                return self.receiver.nodes_mark
        return super().find_class(module, name)


def _receive(arena: mmap.mmap, headers: BinaryIO, ack_fd: int, pid: int) -> tuple[int, bytes, int]:
    """The next frame: (kind, body, events in it)."""
    header = headers.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EngineProcessDied(f"the engine process ({pid}) ended before the run did: {_how_it_ended(pid)}")
    kind, offset, length, count = _HEADER.unpack(header)
    if offset < 0:
        body = headers.read(length)
        if len(body) < length:
            raise EngineProcessDied(f"the engine process ({pid}) ended in the middle of its events: {_how_it_ended(pid)}")
        return kind, body, count
    body = arena[offset:offset + length]  # a copy: the child may write there once told
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
