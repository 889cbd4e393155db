"""The hand-over's codec: events written as the engine emits them, and read back typed.

Not a generic pickle of the events, which costs the engine as much as storing them:

- an event goes as a tuple of plain values (its payload's type as a number, then its fields), which
  the C pickler writes without calling back into Python;
- a node list gathered from a node table (``PositionedNames``) goes as its positions; the table's
  name list goes once, and the reader hands the list on as positions over its own copy
  (``NodePositions``, as the engine's process has it): the columnar encoder stores the positions,
  and nothing in the task's process reads the names;
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

import io
import operator
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Optional

import msgspec
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
from scheduler_core.framework.node_table import NodePositions, PositionedNames
from scheduler_core.framework.status import Code, Status

MIN_JOINED = 64  # pod-name lists at least this long go as one string
PASSED_KEPT = 64  # lengths of all-passed Filter codes the reader keeps an array for (a step adds nodes)
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


# Every payload the engine emits (and those a stream reads back as), numbered on the wire: each
# struct the events module declares, in declaration order (both sides import the same module).
PAYLOAD_TYPES: tuple[type[msgspec.Struct], ...] = tuple(
    cls
    for cls in vars(events).values()
    if isinstance(cls, type)
    and issubclass(cls, msgspec.Struct)
    and cls.__module__ == events.__name__
    and cls is not Event
)
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
        # ScoreResult.raw of the event being written, and of the one before it (see _send_normalized)
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
            self.dump((*envelope, _PLANS[WrittenJSON].code, (payload.to_json(),)))
        self.count += 1

    def _take_back(self, start: int) -> None:
        self.buffer.seek(start)
        for ring, slot, old in reversed(self.journal):
            ring.undo(slot, old)

    def payload(self, kind: type, payload: Any) -> tuple[int, Any]:
        """(its type's number, its fields in declaration order, each as _SENT says or as it is)."""
        plan = _PLANS.get(kind)
        if plan is None:
            return _UNKNOWN, payload
        if not plan.sent:
            return plan.code, plan.get(payload)
        values = list(plan.get(payload))
        for position, send in plan.sent:
            values[position] = send(self, payload)
        return plan.code, values

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
        name = _DTYPE_NAMES.get(kind)
        if name is None:
            if kind.hasobject:
                return values
            name = _dtype_name(kind)
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


def _send_choice(sender: Sender, result: FilterPluginResult) -> Any:
    # No status in the palette: every code is -1 (every node passed), as for most plugins on most
    # nodes. Said as (how many, dtype), not as the codes: 5 plugins' 20 KB an attempt at 5,000 nodes
    # that both processes would copy.
    choice = result.choice
    if not result.palette and type(choice) is np.ndarray and choice.ndim == 1 and choice.dtype.kind == "i":
        return len(choice), _dtype_name(choice.dtype)
    return sender.array(choice)


def _send_filter_pictures(sender: Sender, result: FilterPluginResult) -> dict[str, Any]:
    return {node: picture.to_json() for node, picture in result.pictures.items()}


def _send_raw(sender: Sender, result: ScoreResult) -> Any:
    sender.raw = result.raw
    return sender.array(result.raw)


def _send_normalized(sender: Sender, result: NormalizeResult) -> Any:
    # A plugin without NormalizeScore hands its raw scores on as they are (the same array): the
    # recorder emits a plugin's ScoreResult and NormalizeResult back to back from one outcome, so
    # the array of the event just written is this one, unchanged; the reader reuses its own.
    raw = sender.previous_raw
    return _SAME_AS_RAW if raw is not None and result.normalized is raw else sender.array(result.normalized)


def _send_weighted(sender: Sender, result: NormalizeResult) -> Any:
    # A weight of 1 leaves the normalized array as the weighted one (Framework.run_score_plugin).
    return _SAME_AS_NORMALIZED if result.weighted is result.normalized else sender.array(result.weighted)


def _send_ties(sender: Sender, result: TotalResult) -> Any:
    # With the positions, the ties are the engine's own nodes[p] for p in them: gathered again there.
    return None if result.tie_positions is not None else result.ties


def _send_tie_positions(sender: Sender, result: TotalResult) -> Any:
    positions = result.tie_positions
    return sender.array(positions) if positions is not None else None


def _send_pre_score_state(sender: Sender, result: PreScorePluginResult) -> tuple[bool, Any]:
    """(typed, its JSON): a typed state's per-node counts left as marks the reader's to_json fills."""
    state = result.state
    typed = hasattr(state, "to_json")
    return typed, state.to_json(_CountsMark) if typed else state


def _send_picture(sender: Sender, result: PreFilterPluginResult) -> Any:
    picture = result.picture
    return None if picture is None else picture.to_json(_NodesMark)


def _send_queues(sender: Sender, start: CycleStart) -> Any:
    queues = start.queues
    return None if queues is None else {name: sender.pod_names(names) for name, names in queues.items()}


_SAME_AS_RAW = "raw"  # NormalizeResult.normalized: the array of the ScoreResult just before
_SAME_AS_NORMALIZED = "normalized"  # NormalizeResult.weighted: its normalized array

SendField = Callable[[Sender, Any], Any]
# How a payload's fields go over the pipe when not as they are, by field name: every other field of
# its declaration (events.py) goes as its value, so a field added there travels without a word
# here. Sent in declaration order (the rings are filled in the order the reader meets them: a
# CycleStart's queue, then its queues).
_SENT: dict[type, dict[str, SendField]] = {
    FilterPluginResult: {
        "nodes": lambda sender, r: sender.nodes(r.nodes),
        "choice": _send_choice,
        "pictures": _send_filter_pictures,
    },
    FilterSummary: {
        "evaluated": lambda sender, s: sender.nodes(s.evaluated),
        "feasible_nodes": lambda sender, s: sender.nodes(s.feasible_nodes),
    },
    ScoreResult: {"nodes": lambda sender, r: sender.nodes(r.nodes), "raw": _send_raw},
    NormalizeResult: {
        "nodes": lambda sender, r: sender.nodes(r.nodes),
        "normalized": _send_normalized,
        "weighted": _send_weighted,
    },
    TotalResult: {
        "nodes": lambda sender, r: sender.nodes(r.nodes),
        "totals": lambda sender, r: sender.array(r.totals),
        "ties": _send_ties,
        "tie_positions": _send_tie_positions,
    },
    PreScorePluginResult: {"state": _send_pre_score_state},
    PreFilterPluginResult: {"picture": _send_picture},
    CycleStart: {"queue": lambda sender, s: sender.pod_names(s.queue), "queues": _send_queues},
    QueueSortResult: {"order": lambda sender, r: sender.pod_names(r.order)},
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


def _dtype_name(kind: np.dtype[Any]) -> str:
    name = _DTYPE_NAMES.get(kind)  # ``dtype.str`` builds its string on every read (0.5 µs)
    if name is None:
        name = _DTYPE_NAMES[kind] = kind.str
    return name


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
        self.passed: dict[tuple[int, str], np.ndarray] = {}  # all_passed's arrays

    def events(self, body: bytes, count: int) -> Iterator[Event]:
        unpickler = _EventUnpickler(io.BytesIO(body), self)
        for _ in range(count):
            cycle, pod, point, plugin, code, fields = unpickler.load()
            yield Event(cycle, pod, _POINTS[point], plugin, self.payload(code, fields))

    def payload(self, code: int, fields: Any) -> Any:
        if code == _UNKNOWN:
            return fields
        plan = _BY_CODE[code]
        if not plan.read:
            return plan.kind(*fields)
        wire = dict(zip(plan.names, fields))
        for name, read in plan.read:
            wire[name] = read(self, wire)
        return plan.kind(**wire)

    def nodes(self, wire: Any) -> Any:
        kind = type(wire)
        if kind is int:
            return self.rings["lists"][wire]
        if kind is not tuple or not wire or type(wire[0]) is not int:
            return wire
        slot, table, positions = wire
        # Kept as positions, as the engine's process keeps them: the columnar encoder reads the
        # positions, and gathering 5,000 names here that nobody reads was ~5 % of the task's process.
        value = self.rings["lists"][slot] = NodePositions(_array(positions), self.table(table))
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
        array = self.arrays.get(id(nodes.table_names)) if type(nodes) is NodePositions else None
        if array is not None:
            gathered: list[str] = array[nodes.positions[positions]].tolist()
            return gathered
        return [nodes[p] for p in positions.tolist()]

    def all_passed(self, count: int, dtype: str) -> np.ndarray:
        """The codes of a Filter verdict that every node passed (all -1): one read-only array for
        each length and type, which nothing may change (the codes of every such event)."""
        key = (count, dtype)
        codes = self.passed.get(key)
        if codes is None:
            if len(self.passed) >= PASSED_KEPT:
                self.passed.clear()
            codes = self.passed[key] = np.full(count, -1, dtype=dtype)
            codes.flags.writeable = False
        return codes

    def nodes_mark(self, slot: Optional[int], nodes: Any) -> _NodesMark:
        if slot is not None:
            if nodes is None:
                nodes = self.rings["tuples"][slot]
            else:
                self.rings["tuples"][slot] = nodes
        return _NodesMark(nodes)


def _read_choice(receiver: Receiver, wire: dict[str, Any]) -> Any:
    choice = wire["choice"]
    if type(choice) is tuple and len(choice) == 2 and type(choice[0]) is int:
        return receiver.all_passed(*choice)
    return _array(choice)


def _read_raw(receiver: Receiver, wire: dict[str, Any]) -> Any:
    raw = receiver.raw = _array(wire["raw"])
    return raw


def _read_normalized(receiver: Receiver, wire: dict[str, Any]) -> Any:
    normalized = wire["normalized"]
    return receiver.raw if type(normalized) is str and normalized == _SAME_AS_RAW else _array(normalized)


def _read_weighted(receiver: Receiver, wire: dict[str, Any]) -> Any:
    weighted = wire["weighted"]  # read after normalized (the table's order)
    return wire["normalized"] if type(weighted) is str and weighted == _SAME_AS_NORMALIZED else _array(weighted)


def _read_ties(receiver: Receiver, wire: dict[str, Any]) -> Any:
    positions = wire["tie_positions"]  # read after nodes and tie_positions (the table's order)
    if positions is None:
        return wire["ties"]
    nodes = wire["nodes"]
    if type(nodes) is NodePositions:  # kept as positions, as the engine's process has them
        return NodePositions(nodes.positions[positions], nodes.table_names)
    return receiver.gathered(nodes, positions)


def _read_pre_score_state(receiver: Receiver, wire: dict[str, Any]) -> Any:
    typed, state = wire["state"]
    return _WrittenState(state) if typed else state


def _read_picture(receiver: Receiver, wire: dict[str, Any]) -> Any:
    picture = wire["picture"]
    return None if picture is None else _WrittenPicture(picture)


ReadField = Callable[[Receiver, dict[str, Any]], Any]
# How each field _SENT sends is read back, by field name, in this order (a field may read others
# already read); the reader gets every other field as it was sent.
_READ: dict[type, dict[str, ReadField]] = {
    FilterPluginResult: {
        "nodes": lambda receiver, wire: receiver.nodes(wire["nodes"]),
        "choice": _read_choice,
        "pictures": lambda receiver, wire: {node: WrittenJSON(picture) for node, picture in wire["pictures"].items()},
    },
    FilterSummary: {
        "evaluated": lambda receiver, wire: receiver.nodes(wire["evaluated"]),
        "feasible_nodes": lambda receiver, wire: receiver.nodes(wire["feasible_nodes"]),
    },
    ScoreResult: {"nodes": lambda receiver, wire: receiver.nodes(wire["nodes"]), "raw": _read_raw},
    NormalizeResult: {
        "nodes": lambda receiver, wire: receiver.nodes(wire["nodes"]),
        "normalized": _read_normalized,
        "weighted": _read_weighted,
    },
    TotalResult: {
        "nodes": lambda receiver, wire: receiver.nodes(wire["nodes"]),
        "totals": lambda receiver, wire: _array(wire["totals"]),
        "tie_positions": lambda receiver, wire: _array(wire["tie_positions"]),
        "ties": _read_ties,
    },
    PreScorePluginResult: {"state": _read_pre_score_state},
    PreFilterPluginResult: {"picture": _read_picture},
    CycleStart: {
        "queue": lambda receiver, wire: _unpickled(wire, "queue"),
        "queues": lambda receiver, wire: _unpickled(wire, "queues"),
    },
    QueueSortResult: {"order": lambda receiver, wire: _unpickled(wire, "order")},
}


def _unpickled(wire: dict[str, Any], name: str) -> Any:
    """A field the unpickler already made whole (pod-name lists: _pod_names, _pod_names_again)."""
    return wire[name]


@dataclass(frozen=True)
class _Plan:
    """How one payload type goes over the pipe, made from its declaration at import."""

    kind: type[msgspec.Struct]
    code: int
    names: tuple[str, ...]  # its fields, in declaration order
    get: Callable[[Any], tuple[Any, ...]]  # all of them at once
    sent: tuple[tuple[int, SendField], ...]  # (position, how) of the fields not sent as they are
    read: tuple[tuple[str, ReadField], ...]  # how those are read back, in order


def _plan(kind: type[msgspec.Struct], code: int) -> _Plan:
    names = kind.__struct_fields__
    sent, read = _SENT.get(kind, {}), _READ.get(kind, {})
    unknown = (set(sent) | set(read)) - set(names)
    if unknown or set(sent) != set(read):
        raise TypeError(
            f"the pipe codec's fields of {kind.__name__} do not match its declaration: "
            f"sent {sorted(sent)}, read {sorted(read)}, declared {list(names)}"
        )
    get = operator.attrgetter(*names)
    getter = get if len(names) > 1 else (lambda obj: (get(obj),))
    return _Plan(
        kind, code, names, getter, tuple((names.index(name), how) for name, how in sent.items()), tuple(read.items())
    )


_PLANS: dict[type, _Plan] = {kind: _plan(kind, code) for code, kind in enumerate(PAYLOAD_TYPES)}
_BY_CODE: tuple[_Plan, ...] = tuple(_PLANS[kind] for kind in PAYLOAD_TYPES)


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
