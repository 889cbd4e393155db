"""The hand-over's codec: events written as the engine emits them, and read back typed.

Not a generic pickle of the events, which costs the engine as much as storing them:

- an event goes as a tuple of plain values (its payload's type as a number, then its fields), which
  the C pickler writes without calling back into Python;
- a node list gathered from a node table (``PositionedNames``) goes as its positions; the table's
  name list goes once, and the reader gathers the names again from its own copy;
- what the engine hands out again unchanged — a table's name list, a ``PositionedNames`` (which
  nobody may change), a tuple of names (a picture's domain nodes, fixed per snapshot) — is kept in
  rings on both sides and sent as a slot number after the first time, so the reader also gets one
  object for each, as the engine's readers do;
- long lists of pod names (the queues an attempt starts with) go as one joined string, or, when a
  list is a recent one again or that one less its head (the next attempt's queue), as that; arrays
  as their bytes, and a score array handed on unchanged (a plugin without NormalizeScore, a weight
  of 1) as a mark for the one just sent; a Status as its three fields;
- what a payload holds of a plugin's own (a PreScore state, a PreFilter picture, Filter's node
  pictures) goes as the JSON its ``to_json`` makes — with the per-node counts and node lists that
  the columnar encoder passes its own callbacks for left as marks, so the reader's ``to_json`` still
  calls the encoder's callbacks with the same names and arrays.

Each event is written when the engine emits it (as an in-process writer reads it) with no memo:
nothing is shared between events but what the rings hold, which never changes. A payload the codec
cannot take (a type it does not know holding something unpicklable) goes as its ``to_json()`` — the
same JSON when stored, only without the typed encoder's columns.
"""

from __future__ import annotations

import dataclasses
import io
import operator
import pickle
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Optional

import numpy as np

from scheduler_core.encoding import events
from scheduler_core.encoding.events import (
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
from scheduler_core.framework.node_table import NodePositions, PositionedNames, gathered_names
from scheduler_core.framework.status import Code, Status

MIN_JOINED = 64  # pod-name lists at least this long go as one string
SEPARATOR = "\x00"  # never in a Kubernetes name; a list holding it goes as a list
_BUFFERS = (bytes, bytearray)  # a PickleBuffer read back: bytearray when the array was writable
_DTYPE_NAMES: dict[np.dtype, str] = {}  # the arrays' dtypes met so far, each with its ``str``
RING_SIZES = {"tables": 64, "lists": 64, "tuples": 4096, "pods": 8}

_POINT_VALUES = {point: point.value for point in ExtensionPoint}
_POINTS = {point.value: point for point in ExtensionPoint}
_STATUS_CODES = {code.value: code for code in Code}


class _Ring:
    """Objects by identity, each in a slot both sides number alike; the oldest slot is reused."""

    def __init__(self, size: int, journal: list[tuple[_Ring, int, Any]]) -> None:
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
    """A long list of pod names, joined; both sides keep it in ring slot ``slot``."""

    __slots__ = ("text", "slot")

    def __init__(self, text: str, slot: int) -> None:
        self.text = text
        self.slot = slot


class _NamesAgain:
    """A long list of pod names equal to the one in ring slot ``slot`` once its first ``dropped``
    names are dropped (a queue after its head was taken); kept in slot ``kept`` when ``dropped``."""

    __slots__ = ("slot", "dropped", "kept")

    def __init__(self, slot: int, dropped: int, kept: Optional[int]) -> None:
        self.slot = slot
        self.dropped = dropped
        self.kept = kept


def _joined(names: Any) -> Optional[str]:
    """A list of pod names as one string, or None when it is not a list of names."""
    if type(names) is not list or len(names) < MIN_JOINED or type(names[0]) is not str:
        return None
    try:
        text = SEPARATOR.join(names)
    except TypeError:  # not all strings
        return None
    return text if text.count(SEPARATOR) == len(names) - 1 else None


_FIELDS: dict[type, Optional[tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]]] = {}


def _fields_of(cls: type) -> Optional[tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]]:
    """A slotted dataclass's field names and one getter for all of them (None: not one)."""
    if cls not in _FIELDS:
        found = None
        if dataclasses.is_dataclass(cls) and "__slots__" in vars(cls):
            names = tuple(f.name for f in dataclasses.fields(cls))
            getter = operator.attrgetter(*names) if len(names) > 1 else (lambda obj, get=operator.attrgetter(names[0]): (get(obj),))
            found = (names, getter)
        _FIELDS[cls] = found
    return _FIELDS[cls]


def _slotted(cls: type[Any], values: tuple[Any, ...]) -> Any:
    # cls is a slotted dataclass; mypy reads ``cls.__new__`` as the metaclass's type.__new__.
    obj = cls.__new__(cls)  # type: ignore[call-overload]
    fields = _fields_of(cls)
    assert fields is not None  # only slotted dataclasses are sent field by field
    for name, value in zip(fields[0], values):
        object.__setattr__(obj, name, value)
    return obj


# Every payload the engine emits, numbered on the wire (both sides import the same list).
PAYLOAD_TYPES: tuple[type, ...] = tuple(
    cls for cls in vars(events).values()
    if isinstance(cls, type) and cls.__module__ == events.__name__ and dataclasses.is_dataclass(cls) and cls is not Event
)
_CODES = {cls: code for code, cls in enumerate(PAYLOAD_TYPES)}
_UNKNOWN = -1  # a payload of another type: pickled as it is


class Sender(pickle.Pickler):
    """Writes events one by one, each as it is emitted, into the frame being filled.

    An event goes as a tuple of plain values — (cycle, pod, extension point, plugin, payload type,
    payload fields) — which the C pickler writes without calling back into Python; what is not plain
    (arrays and node lists inside plugins' JSON, a status) comes through ``reducer_override``."""

    def __init__(self) -> None:
        # Never truncated: a frame is written over the last one, from its start, so the buffer keeps
        # the room the biggest frame needed. Truncating it between frames made it grow again by an
        # eighth at a time, each growth a copy of everything written so far (a 5,000-node attempt
        # writes ~0.6 MB in ~17 arrays: 15-30 µs an array event, against ~1 µs in room kept).
        self.buffer = io.BytesIO()
        super().__init__(self.buffer, protocol=5)
        # No memo: an event is a tree (what it shares with others goes through the rings), and
        # clearing a memo between events walks every slot it ever grew to (25 µs an event).
        self.fast = True
        self.journal: list[tuple[_Ring, int, Any]] = []
        self.rings = {kind: _Ring(size, self.journal) for kind, size in RING_SIZES.items()}
        self.count = 0
        # ScoreResult.raw of the event being written, and of the one before it (see _encode_normalize)
        self.raw: Any = None
        self.previous_raw: Any = None

    @property
    def pending(self) -> int:
        return self.buffer.tell()

    def add(self, event: Event) -> None:
        start = self.buffer.tell()
        self.journal.clear()
        payload = event.payload
        envelope = (event.cycle, event.pod, _POINT_VALUES[event.extension_point], event.plugin)
        self.previous_raw, self.raw = self.raw, None
        try:
            self.dump((*envelope, *self.payload(type(payload), payload)))
        except BaseException as exc:
            self._take_back(start)  # the frame keeps whole events only
            self.raw = None
            if not isinstance(exc, (pickle.PicklingError, TypeError, AttributeError, ValueError)):
                raise
            self.dump((*envelope, _CODES[WrittenJSON], (payload.to_json(),)))
        self.count += 1

    def _take_back(self, start: int) -> None:
        self.buffer.seek(start)
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

    def flush_to(self, write: Callable[[memoryview, int], None]) -> None:
        """``write(frame, events in it)`` with the events added since the last frame, then a new frame."""
        with self.buffer.getbuffer() as whole, whole[: self.buffer.tell()] as frame:
            write(frame, self.count)
        self.buffer.seek(0)
        self.count = 0

    # the values inside a payload

    def nodes(self, names: Any) -> Any:
        """A node list: a ring slot (int) for a PositionedNames (or NodePositions) sent before,
        (slot, table, (positions, dtype)) for a new one, anything else as it is."""
        kind = type(names)
        if kind is not PositionedNames and kind is not NodePositions:
            return names
        ring = self.rings["lists"]
        slot = ring.find(names)
        if slot is not None:
            return slot
        table = self.table(names.table_names)
        return ring.put(names), table, self.array(names.positions)

    def pod_names(self, names: Any) -> Any:
        """A long list of pod names (a queue): said again as a recent one, or that one without its
        head, when it is; else joined into one string. An attempt's queues are the last attempt's
        less the pod it took: one list comparison here instead of joining, and splitting on the
        other side, a thousand names again (the reader also gets the same str objects, which
        its index lookups compare by identity)."""
        if type(names) is not list or len(names) < MIN_JOINED:
            return names
        ring = self.rings["pods"]
        for slot, recent in enumerate(ring.slots):
            if recent is None:
                continue
            if len(recent) == len(names) and recent == names:
                return _NamesAgain(slot, 0, None)
            if len(recent) == len(names) + 1 and recent[1:] == names:
                return _NamesAgain(slot, 1, ring.put(recent[1:]))
        text = _joined(names)
        return names if text is None else _Names(text, ring.put(list(names)))  # a copy: the engine's list may change

    def table(self, names: list[str]) -> Any:
        ring = self.rings["tables"]
        slot = ring.find(names)
        return slot if slot is not None else (ring.put(names), names)

    @staticmethod
    def array(values: Any) -> Any:
        """A 1-D array as (its bytes, dtype), the bytes taken as the event is written
        (``PickleBuffer``: copied once, into the frame, not first into a bytes object)."""
        if type(values) is not np.ndarray or values.ndim != 1:
            return values
        kind = values.dtype
        name = _DTYPE_NAMES.get(kind)  # ``dtype.str`` builds its string on every read (0.5 µs)
        if name is None:
            if kind.hasobject:
                return values
            name = _DTYPE_NAMES[kind] = kind.str
        # numpy's stubs do not declare ndarray a Buffer (it has the buffer protocol).
        return pickle.PickleBuffer(np.ascontiguousarray(values)), name  # type: ignore[arg-type]

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is np.ndarray:
            wire = self.array(obj)
            return (_array, (wire,)) if wire is not obj else NotImplemented
        if kind is PositionedNames or kind is NodePositions:
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
        if kind is Status:  # not its dataclass reduction (a state dict, its Code by name): 2 µs, not 7
            return _status, (obj.code.value, obj.reasons, obj.plugin)
        if kind is _Names:
            return _pod_names, (obj.text, obj.slot)
        if kind is _NamesAgain:
            return _pod_names_again, (obj.slot, obj.dropped, obj.kept)
        return NotImplemented


def _encode_filter(sender: Sender, result: FilterPluginResult) -> tuple[Any, ...]:
    pictures = {node: picture.to_json() for node, picture in result.pictures.items()}
    return sender.nodes(result.nodes), result.palette, sender.array(result.choice), pictures


def _encode_filter_summary(sender: Sender, summary: FilterSummary) -> tuple[Any, ...]:
    return (sender.nodes(summary.evaluated), sender.nodes(summary.feasible_nodes), summary.num_feasible_nodes_to_find,
            summary.start_index, summary.nominated_only, summary.batch_hint)


def _encode_score(sender: Sender, result: ScoreResult) -> tuple[Any, ...]:
    sender.raw = result.raw
    return sender.nodes(result.nodes), sender.array(result.raw)


def _encode_normalize(sender: Sender, result: NormalizeResult) -> tuple[Any, ...]:
    # A plugin without NormalizeScore hands its raw scores on as they are (the same array): the
    # recorder emits a plugin's ScoreResult and NormalizeResult back to back from one outcome, so
    # the array of the event just written is this one, unchanged; the reader reuses its own.
    # A weight of 1 leaves the normalized array as the weighted one (Framework.run_score_plugin).
    raw, normalized = sender.previous_raw, result.normalized
    weighted = _SAME_AS_NORMALIZED if result.weighted is normalized else sender.array(result.weighted)
    normalized = _SAME_AS_RAW if raw is not None and normalized is raw else sender.array(normalized)
    return sender.nodes(result.nodes), normalized, result.weight, weighted


def _encode_total(sender: Sender, result: TotalResult) -> tuple[Any, ...]:
    positions = result.tie_positions
    # With the positions, the ties are the engine's own nodes[p] for p in them: gathered again there.
    ties = None if positions is not None else result.ties
    return (sender.nodes(result.nodes), sender.array(result.totals), result.node_name, ties, result.error,
            sender.array(positions) if positions is not None else None)


def _encode_pre_score(sender: Sender, result: PreScorePluginResult) -> tuple[Any, ...]:
    state = result.state
    typed = hasattr(state, "to_json")
    return result.status, typed, state.to_json(_CountsMark) if typed else state


def _encode_pre_filter(sender: Sender, result: PreFilterPluginResult) -> tuple[Any, ...]:
    picture = result.picture
    return result.status, result.node_names, result.state, None if picture is None else (picture.to_json(_NodesMark),)


def _encode_cycle_start(sender: Sender, start: CycleStart) -> tuple[Any, ...]:
    # The ring puts in the order the reader meets them: the queue, then the queues.
    queue = sender.pod_names(start.queue)
    queues = start.queues
    if queues is not None:
        queues = {name: sender.pod_names(names) for name, names in queues.items()}
    return (start.pod, start.namespace, start.name, start.priority, start.labels, queue, start.node_count,
            start.cycles, start.volumes, queues)


def _encode_queue_sort(sender: Sender, result: QueueSortResult) -> tuple[Any, ...]:
    return (sender.pod_names(result.order),)


_SAME_AS_RAW = "raw"  # NormalizeResult.normalized: the array of the ScoreResult just before
_SAME_AS_NORMALIZED = "normalized"  # NormalizeResult.weighted: its normalized array

_ENCODERS: dict[type, Callable[[Sender, Any], tuple[Any, ...]]] = {
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

# The fields each encoder above writes, in its order: a field added to one of these payloads must be
# added to its encoder and decoder too (tests/scheduler_core/encoding/pipe/test_codec.py holds this
# against the dataclasses; every other payload goes field by field on its own).
ENCODED_FIELDS: dict[type, tuple[str, ...]] = {
    FilterPluginResult: ("nodes", "palette", "choice", "pictures"),
    FilterSummary: ("evaluated", "feasible_nodes", "num_feasible_nodes_to_find", "start_index", "nominated_only", "batch_hint"),
    ScoreResult: ("nodes", "raw"),
    NormalizeResult: ("nodes", "normalized", "weight", "weighted"),
    TotalResult: ("nodes", "totals", "node_name", "ties", "error", "tie_positions"),
    PreScorePluginResult: ("status", "state"),
    PreFilterPluginResult: ("status", "node_names", "state", "picture"),
    CycleStart: ("pod", "namespace", "name", "priority", "labels", "queue", "node_count", "cycles", "volumes", "queues"),
    QueueSortResult: ("order",),
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
    if type(wire) is tuple and len(wire) == 2 and type(wire[0]) in _BUFFERS:
        return np.frombuffer(wire[0], dtype=wire[1])
    return wire


def _status(code: int, reasons: tuple[str, ...], plugin: str) -> Status:
    return Status(_STATUS_CODES[code], reasons, plugin)


# Named in the child's pickles and answered by the reader's rings (_EventUnpickler.find_class).
def _nodes(wire: Any) -> Any:
    raise AssertionError("read through Receiver")  # pragma: no cover


def _nodes_mark(slot: Optional[int], nodes: Any) -> Any:
    raise AssertionError("read through Receiver")  # pragma: no cover


def _pod_names(text: str, slot: int) -> Any:
    raise AssertionError("read through Receiver")  # pragma: no cover


def _pod_names_again(slot: int, dropped: int, kept: Optional[int]) -> Any:
    raise AssertionError("read through Receiver")  # pragma: no cover


def _counts_mark(names: Any, counts: Any) -> _CountsMark:
    return _CountsMark(names, counts)


class Receiver:
    """The rings as the child filled them, and the events of each frame read back."""

    def __init__(self) -> None:
        self.rings: dict[str, list[Any]] = {kind: [None] * size for kind, size in RING_SIZES.items()}
        self.arrays: dict[int, np.ndarray] = {}  # id(a table's name list in the ring) -> the names as an object array
        self.raw: Any = None  # the last ScoreResult's raw scores

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
        slot, table, positions = wire
        names = self.table(table)
        at = _array(positions)
        value = self.rings["lists"][slot] = PositionedNames(gathered_names(names, self.arrays[id(names)], at), at, names)
        return value

    def pod_names(self, text: str, slot: int) -> list[str]:
        names = self.rings["pods"][slot] = text.split(SEPARATOR)
        return list(names)  # the event's own list: the ring's stays as the child has it

    def pod_names_again(self, slot: int, dropped: int, kept: Optional[int]) -> list[str]:
        ring = self.rings["pods"]
        names: list[str] = ring[slot][dropped:]  # a new list
        if kept is None:
            return names
        ring[kept] = names
        return list(names)

    def table(self, wire: Any) -> list[str]:
        ring = self.rings["tables"]
        if type(wire) is int:
            found: list[str] = ring[wire]
            return found
        names: list[str]  # the wire's (slot, names) pair
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
            gathered: list[str] = array[nodes.positions[positions]].tolist()
            return gathered
        return [nodes[p] for p in positions.tolist()]

    def nodes_mark(self, slot: Optional[int], nodes: Any) -> _NodesMark:
        if slot is not None:
            if nodes is None:
                nodes = self.rings["tuples"][slot]
            else:
                self.rings["tuples"][slot] = nodes
        return _NodesMark(nodes)


def _decode_filter(receiver: Receiver, fields: tuple[Any, ...]) -> FilterPluginResult:
    nodes, palette, choice, pictures = fields
    return FilterPluginResult(receiver.nodes(nodes), palette, _array(choice),
                              {node: WrittenJSON(picture) for node, picture in pictures.items()})


def _decode_filter_summary(receiver: Receiver, fields: tuple[Any, ...]) -> FilterSummary:
    evaluated, feasible, *rest = fields
    return FilterSummary(receiver.nodes(evaluated), receiver.nodes(feasible), *rest)


def _decode_score(receiver: Receiver, fields: tuple[Any, ...]) -> ScoreResult:
    nodes, raw = fields
    raw = receiver.raw = _array(raw)
    return ScoreResult(receiver.nodes(nodes), raw)


def _decode_normalize(receiver: Receiver, fields: tuple[Any, ...]) -> NormalizeResult:
    nodes, normalized, weight, weighted = fields
    normalized = receiver.raw if type(normalized) is str and normalized == _SAME_AS_RAW else _array(normalized)
    weighted = normalized if type(weighted) is str and weighted == _SAME_AS_NORMALIZED else _array(weighted)
    return NormalizeResult(receiver.nodes(nodes), normalized, weight, weighted)


def _decode_total(receiver: Receiver, fields: tuple[Any, ...]) -> TotalResult:
    nodes, totals, node_name, ties, error, positions = fields
    nodes = receiver.nodes(nodes)
    if positions is not None:
        positions = _array(positions)
        ties = receiver.gathered(nodes, positions)
    return TotalResult(nodes, _array(totals), node_name, ties, error, positions)


def _decode_pre_score(receiver: Receiver, fields: tuple[Any, ...]) -> PreScorePluginResult:
    status, typed, state = fields
    return PreScorePluginResult(status, _WrittenState(state) if typed else state)


def _decode_pre_filter(receiver: Receiver, fields: tuple[Any, ...]) -> PreFilterPluginResult:
    status, node_names, state, picture = fields
    return PreFilterPluginResult(status, node_names, state, None if picture is None else _WrittenPicture(picture[0]))


_DECODERS: dict[type, Callable[[Receiver, Any], Any]] = {
    FilterPluginResult: _decode_filter,
    FilterSummary: _decode_filter_summary,
    ScoreResult: _decode_score,
    NormalizeResult: _decode_normalize,
    TotalResult: _decode_total,
    PreScorePluginResult: _decode_pre_score,
    PreFilterPluginResult: _decode_pre_filter,
}


class _EventUnpickler(pickle.Unpickler):
    def __init__(self, stream: BinaryIO, receiver: Receiver) -> None:
        super().__init__(stream)
        self.receiver = receiver

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__:
            if name == "_nodes":
                return self.receiver.nodes
            if name == "_nodes_mark":
                return self.receiver.nodes_mark
            if name == "_pod_names":
                return self.receiver.pod_names
            if name == "_pod_names_again":
                return self.receiver.pod_names_again
        return super().find_class(module, name)
