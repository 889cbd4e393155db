"""A compact, columnar form of a run's events: one NumPy ``.npz`` archive per stored segment.

Why: a cycle over 5000 nodes is ~1 MB as JSON (a node name per verdict and per score), and making
that JSON costs more than the cycle itself. Here the names travel once per run (``RunNames``);
inside a segment every per-node list is an integer array of node indices, Filter verdicts are
small integer codes into a per-event palette of statuses, and scores are integer arrays.

Format (version 1), a standard ``.npz`` (a ZIP of ``.npy`` files, deflated; ``numpy.load`` reads it):

- ``meta.npy``: uint8, UTF-8 JSON ``{"format", "version", "firstSeq", "arrays", "events"}``.
  ``arrays[k] = [member, offset, length, delta]`` locates column ``k``: ``length`` items from
  ``offset`` of the member ``.npy``; ``delta`` 1 means the column holds differences (its values are
  the running sum). ``events[i] = [cycle, pod, extensionPoint, plugin, payload]`` is event
  ``firstSeq + i``; ``payload`` is the event's JSON in which some values are references:

  ==========================  =============================================================
  ``{"$n": k}``               a list of node names: ``names.nodes[i]`` for ``i`` in column k
  ``{"$p": k}``               a list of pod names (``names.pods``)
  ``{"$i": k}``               a list of integers: column k
  ``{"$nm": k, "v": j}``      ``{node: int}``: keys from column k (node indices), values column j
  ``{"$st": k, "c": j,        ``{node: status}``: for each node of column k whose code in column j
  "pal": [...]}``             is >= 0, ``pal[code]`` (absent nodes passed; Filter verdicts)
  ``{"$lit": {...}}``         a dict whose own keys start with ``$`` (escaped, values decoded)
  ==========================  =============================================================

- one member per integer type in use (``i1``, ``u1``, ``i2``, ``u2``, ``i4``, ``u4``, ``i8``): the
  columns of that type, concatenated. Each column gets the smallest type that holds its values.

Every payload type round-trips exactly (``decode_segment(encode_segment(e)) == [x.to_json()]``):
the heavy known types are encoded from their arrays without building their JSON; any other payload
(new event types included) is encoded from its ``to_json()``, where long lists of node or pod
names, ``{node: int}`` maps and integer lists still become columns, and everything else stays JSON.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import numpy as np
import orjson
from isal import isal_zlib

from scheduler_core.framework.node_table import NodePositions, PositionedNames
from scheduler_core.encoding.events import (
    Event,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    NormalizeWire,
    PreFilterPluginResult,
    PreScorePluginResult,
    ScoreResult,
    ScoreWire,
    StoredFilterVerdicts,
    TotalResult,
    TotalWire,
)

FORMAT = "schedlab.events"
VERSION = 1
META = "meta"
MIN_COLUMN = 16
RECENT_LISTS = 8  # shorter lists stay JSON: a column costs more than a few names
PINNED_TUPLES = 256  # tuples of names remembered by identity (forgotten all at once beyond that)
# Deflate by ISA-L (isal_zlib, levels 0-3), not zlib: the same standard raw deflate that every ZIP
# reader (zipfile, numpy.load) inflates, written 2.3x (arrays) to 4x (the rows' JSON) faster than
# zlib's level 1 and a few % smaller: a 5,000-node attempt's ~57 KB took 0.33 ms with zlib, 0.13
# with ISA-L, on the task's side of a run (docs/PERFORMANCE.md).
COMPRESS_LEVEL = 1
REF_NODES, REF_PODS, REF_INTS, REF_NODE_MAP, REF_STATUSES, REF_LITERAL = "$n", "$p", "$i", "$nm", "$st", "$lit"
NPY_MAGIC, NPY_ALIGN = b"\x93NUMPY\x01\x00", 64
ZIP_LOCAL, ZIP_CENTRAL, ZIP_END = 0x04034B50, 0x02014B50, 0x06054B50
ZIP_VERSION, ZIP_DEFLATED = 20, 8
ZIP_TIME, ZIP_DATE = 0, (1980 - 1980) << 9 | 1 << 5 | 1  # 1980-01-01 00:00: segments carry no dates
# Smallest first: the first type whose range holds a column's values is used.
INT_TYPES = ("u1", "i1", "u2", "i2", "u4", "i4", "i8")
INT_RANGES = {name: (np.iinfo(name).min, np.iinfo(name).max) for name in INT_TYPES}
INT64 = np.iinfo(np.int64)


class FormatError(ValueError):
    """A blob that is not a segment of this format (or of a newer version)."""


@dataclass
class RunNames:
    """The names a run's segments refer to by index: its nodes (document order) and pending pods."""

    nodes: list[str]
    pods: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.node_index = {name: i for i, name in enumerate(self.nodes)}
        self.pod_index = {name: i for i, name in enumerate(self.pods)}
        # Consecutive cycles repeat the same name lists (feasible nodes, the queue): a list equal to
        # a recent one reuses its indices; comparing two lists of the same str objects is cheap.
        self._recent: list[tuple[str, list[str], np.ndarray]] = []
        # Tuples never change: one the engine hands out again (a picture's domain nodes, fixed per
        # snapshot) is found by identity. The tuple is kept with its indices so its id stays its own.
        self._tuples: dict[tuple[str, int], tuple[tuple[str, ...], np.ndarray]] = {}
        # A node table's name list -> whether its positions are this run's node indices (the
        # list is kept so its id stays its own).
        self._tables: dict[int, tuple[list[str], bool]] = {}
        self._positioned: list[tuple[PositionedNames | NodePositions, np.ndarray]] = []  # the latest lists, by identity

    def _positions(self, names: Sequence[str]) -> np.ndarray | None:
        """The indices of names gathered from a node table whose order is this run's (a prefix of
        it: nodes a step adds come last), read off the positions they were gathered from (or are
        kept as, when the hand-over gives them: ``NodePositions``)."""
        if type(names) is not PositionedNames and type(names) is not NodePositions:
            return None  # names in a list of their own: looked up
        if len(names.positions) != len(names):
            return None
        for seen, indices in self._positioned:  # one list goes into several events of a cycle
            if seen is names:
                return indices
        known = self._tables.get(id(names.table_names))
        if known is None:
            table = names.table_names
            if len(self._tables) >= PINNED_TUPLES:
                self._tables.clear()
            known = self._tables[id(table)] = (table, table == self.nodes[: len(table)])
        if not known[1]:
            return None
        indices = names.positions.astype(np.int64)  # a copy: the engine's array is its own
        self._positioned = [(names, indices), *self._positioned[: RECENT_LISTS - 1]]
        return indices

    def _consecutive(self, names: Sequence[str], kind: str) -> np.ndarray | None:
        """Indices of a list that is a run of the table wrapping around its end (the nodes Filter
        evaluated from its rotating start index), found by one list comparison instead of a lookup per name."""
        table, index = (self.nodes, self.node_index) if kind == REF_NODES else (self.pods, self.pod_index)
        first = index.get(names[0]) if names and type(names[0]) is str else None
        if first is None or len(names) > len(table):
            return None
        run = table[first : first + len(names)]
        if len(run) < len(names):
            run = run + table[: len(names) - len(run)]
        if run != names:
            return None
        return (np.arange(len(names), dtype=np.int64) + first) % len(table)

    def indices(self, names: Sequence[str], kind: str) -> np.ndarray | None:
        """Each name's index in the node (kind REF_NODES) or pod table; None if one is not there."""
        if kind == REF_NODES:
            positions = self._positions(names)
            if positions is not None:
                return positions
        if type(names) is tuple:
            pinned = self._tuples.get((kind, id(names)))
            if pinned is not None:
                return pinned[1]
            indices = self._lookup(names, kind)
            if indices is not None:
                if len(self._tuples) >= PINNED_TUPLES:
                    self._tuples.clear()
                self._tuples[kind, id(names)] = (names, indices)
            return indices
        for cached_kind, cached, indices in self._recent:
            if cached_kind == kind and len(cached) == len(names) and cached == names:
                return indices
        indices = self._after_head(names, kind)
        if indices is None:
            indices = self._lookup(names, kind)
        if indices is not None:
            # A copy of the list: the cache must not follow later changes to the caller's list.
            self._recent = [(kind, list(names), indices), *self._recent[: RECENT_LISTS - 1]]
        return indices

    def _after_head(self, names: Sequence[str], kind: str) -> np.ndarray | None:
        """The indices of a recent list without its first name: a queue after the pod at its head
        was taken (a run's CycleStart and queue events each attempt), one list comparison."""
        for cached_kind, cached, indices in self._recent:
            if cached_kind == kind and len(cached) == len(names) + 1 and cached[1:] == names:
                return indices[1:]
        return None

    def _lookup(self, names: Sequence[str], kind: str) -> np.ndarray | None:
        indices = self._consecutive(names, kind)
        if indices is not None:
            return indices
        index = self.node_index if kind == REF_NODES else self.pod_index
        if names and index.get(names[0]) is None:
            return None  # the common miss (pod names tried as nodes) without raising
        try:
            return np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
        except (KeyError, TypeError):
            return None


# --- encoding ----------------------------------------------------------------------------------


class _Columns:
    """Collects a segment's integer columns; identical columns are stored once."""

    def __init__(self) -> None:
        self.columns: list[tuple[np.ndarray, bool]] = []  # (values, delta)
        self._by_content: dict[tuple[str, bytes, bool], int] = {}
        self._by_indices: dict[int, tuple[np.ndarray, int]] = {}
        self._passed: dict[int, int] = {}  # how many codes -> the column of that many -1s

    def add(self, values: np.ndarray, delta: bool = False) -> int:
        stored = _differences(values) if delta else values
        stored = stored.astype(_smallest_type(stored))  # a copy: the engine's array may change later
        key = (stored.dtype.str, stored.tobytes(), delta)
        found = self._by_content.get(key)
        if found is None:
            found = self._by_content[key] = len(self.columns)
            self.columns.append((stored, delta))
        return found

    def all_passed(self, count: int) -> int:
        """The column of ``count`` Filter codes of -1 (every node passed), as ``add`` stores them."""
        found = self._passed.get(count)
        if found is None:
            found = self._passed[count] = self.add(np.full(count, -1, dtype=np.int64))
        return found

    def names(self, names: Sequence[str], table: RunNames, kind: str) -> int | None:
        """The column of a list of names (indices, delta-coded), or None if one is unknown."""
        indices = table.indices(names, kind)
        if indices is None:
            return None
        known = self._by_indices.get(id(indices))  # the table hands out the same array for equal lists
        if known is None:
            known = self._by_indices[id(indices)] = (
                indices,
                self.add(indices, delta=True),
            )  # holds the array: ids stay unique
        return known[1]


def _differences(values: np.ndarray) -> np.ndarray:
    """values[i] - values[i - 1] (the first kept): np.diff(prepend=0), without its 70 µs of set-up."""
    out = np.empty_like(values)
    out[:1] = values[:1]
    np.subtract(values[1:], values[:-1], out=out[1:])
    return out


def _int_array(values: Any) -> np.ndarray | None:
    """values as an int64 array, or None when they are not all integers (bools are not)."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iu":  # signed or unsigned integers (bools are "b")
            return None
        if values.dtype == np.uint64 and values.size and values.max() > INT64.max:
            return None  # beyond int64: stays JSON
        return values.astype(np.int64, copy=False)
    if set(map(type, values)) != {int}:  # exactly int: not bool, float or str
        return None
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return None


class _Encoder:
    def __init__(self, names: RunNames) -> None:
        self.names = names
        self.columns = _Columns()

    # typed payloads: their arrays go straight into columns (no JSON is built for them)

    def payload(self, payload: Any) -> Any:
        encode = _TYPED.get(type(payload))
        encoded = encode(self, payload) if encode is not None else None
        return encoded if encoded is not None else self.value(payload.to_json())

    def node_list(self, nodes: Sequence[str]) -> Any:
        return self.value(self.node_column(nodes))

    def node_column(self, nodes: Sequence[str]) -> Any:
        """A node list inside JSON that ``value`` will read: a column reference it keeps as is, or
        the names as a list (which ``value`` encodes as it encodes any list)."""
        column = self.columns.names(nodes, self.names, REF_NODES) if len(nodes) >= MIN_COLUMN else None
        return _Encoded({REF_NODES: column}) if column is not None else list(nodes)

    def node_map(self, nodes: Sequence[str], values: Any) -> Any | None:
        ints = _int_array(values)
        keys = self.columns.names(nodes, self.names, REF_NODES) if ints is not None else None
        if ints is None or keys is None or len(ints) != len(nodes):
            return None
        return {REF_NODE_MAP: keys, "v": self.columns.add(ints)}

    def filter_result(self, result: FilterPluginResult) -> Any | None:
        if not result.palette and len(result.nodes):  # every node passed: its codes are all -1
            return self._all_passed(result)
        codes = _int_array(result.choice)
        keys = self.columns.names(result.nodes, self.names, REF_NODES) if codes is not None else None
        if codes is None or keys is None or len(codes) != len(result.nodes):
            return None
        palette = [self.value(status.to_json()) for status in result.palette]
        return self._verdicts(result, {REF_STATUSES: keys, "c": self.columns.add(codes), "pal": palette})

    def _all_passed(self, result: FilterPluginResult) -> Any | None:
        """A verdict without a status: the column of its -1 codes made once per segment, not
        read off the codes of each event (5 plugins an attempt, 5,000 codes each)."""
        count = len(result.nodes)
        keys = self.columns.names(result.nodes, self.names, REF_NODES) if len(result.choice) == count else None
        if keys is None:
            return None
        return self._verdicts(result, {REF_STATUSES: keys, "c": self.columns.all_passed(count), "pal": []})

    def _verdicts(self, result: FilterPluginResult, statuses: dict[str, Any]) -> Any:
        pictures = self.value(result.pictures_json()) if result.pictures else {}
        return StoredFilterVerdicts(statuses, len(result.nodes), pictures).to_json()

    def pre_score(self, result: PreScorePluginResult) -> Any:
        """A typed state's per-node counts straight from their arrays."""
        return self.value(result.to_json(node_counts=self.node_counts))

    def node_counts(self, nodes: Sequence[str], counts: Any) -> Any | None:
        """``{node: int}`` inside JSON that ``value`` will read, as ``mapping`` would encode it."""
        encoded = self.node_map(nodes, counts) if len(nodes) >= MIN_COLUMN else None
        return _Encoded(encoded) if encoded is not None else None

    def pre_filter(self, result: PreFilterPluginResult) -> Any:
        """The picture's node lists (tuples fixed per snapshot) straight into columns."""
        return self.value(result.to_json(node_list=self.node_column))

    # The typed encoders below write each payload's declared wire form (events.py) with column
    # references in place of its node lists and maps: its keys, their order and what is left out
    # come from the declaration, as ``to_json`` has them.

    def filter_summary(self, summary: FilterSummary) -> Any:
        """The summary's own JSON (its optional keys included) with the node lists as columns."""
        return msgspec.structs.replace(
            summary, evaluated=self.node_list(summary.evaluated), feasible_nodes=self.node_list(summary.feasible_nodes)
        ).to_json()

    def score(self, result: ScoreResult) -> Any | None:
        raw = self.node_map(result.nodes, result.raw)
        return ScoreWire(raw).to_json() if raw is not None else None

    def normalize(self, result: NormalizeResult) -> Any | None:
        normalized = self.node_map(result.nodes, result.normalized)
        weighted = self.node_map(result.nodes, result.weighted)
        if normalized is None or weighted is None:
            return None
        return NormalizeWire(normalized, result.weight, weighted).to_json()

    def total(self, result: TotalResult) -> Any | None:
        totals = self.node_map(result.nodes, result.totals)
        if totals is None:
            return None
        return TotalWire(totals, result.node_name, self.ties(result), result.error).to_json()

    def ties(self, result: TotalResult) -> Any:
        """The nodes with the top total, from their positions in ``nodes`` when the event has them."""
        positions = result.tie_positions
        if positions is not None and len(positions) >= MIN_COLUMN:
            indices = self.names.indices(result.nodes, REF_NODES)
            if indices is not None:
                return {REF_NODES: self.columns.add(indices[positions], delta=True)}
        return self.value(list(result.ties))

    # any JSON value: long lists of names and {node: int} maps still become columns

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind in _SCALARS:  # most values: answered before any isinstance
            return value
        if isinstance(value, dict):
            return self.mapping(value)
        if isinstance(value, list) or kind is NodePositions:  # positions: a node list as the hand-over gives it
            return self.sequence(value)
        return value

    def mapping(self, value: dict[str, Any]) -> Any:
        if type(value) is _Encoded:
            return value
        if len(value) >= MIN_COLUMN:
            encoded = self.node_map(list(value), list(value.values()))
            if encoded is not None:
                return encoded
        value_of = self.value
        out = {key: value_of(item) for key, item in value.items()}
        return {REF_LITERAL: out} if _has_reference_key(value) else out

    def sequence(self, value: list[Any]) -> Any:
        if len(value) >= MIN_COLUMN:
            if type(value[0]) is str:
                for ref in (REF_NODES, REF_PODS):
                    column = self.columns.names(value, self.names, ref)
                    if column is not None:
                        return {ref: column}
            ints = _int_array(value)
            if ints is not None:
                return {REF_INTS: self.columns.add(ints)}
        return [self.value(item) for item in value]


class _Encoded(dict[str, Any]):
    """A reference a typed encoder put inside JSON that ``value`` then walks: kept as it is (a
    plain dict with a ``$`` key would be escaped as a literal)."""


# Each encoder takes the payload of its own type (the key); Any stands for that per-key type.
_TYPED: dict[type, Callable[[_Encoder, Any], Any]] = {
    PreFilterPluginResult: _Encoder.pre_filter,
    PreScorePluginResult: _Encoder.pre_score,
    FilterPluginResult: _Encoder.filter_result,
    FilterSummary: _Encoder.filter_summary,
    ScoreResult: _Encoder.score,
    NormalizeResult: _Encoder.normalize,
    TotalResult: _Encoder.total,
}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _has_reference_key(value: dict[str, Any]) -> bool:
    """A key that reads as one of ours (``$n``, ...): the dict is stored as a literal."""
    for key in value:
        if type(key) is str and key[:1] == "$":
            return True
    return False


def _smallest_type(values: np.ndarray) -> str:
    if not len(values):
        return "u1"
    # Most columns (counts, scores, indices) hold no negative value: then the OR of all of them is
    # non-negative and at most a bound exactly when every value is (one pass instead of min and max).
    bits = int(np.bitwise_or.reduce(values))
    if bits >= 0:
        return "u1" if bits <= 0xFF else "u2" if bits <= 0xFFFF else "u4" if bits <= 0xFFFFFFFF else "i8"
    low, high = int(values.min()), int(values.max())
    return next(name for name in INT_TYPES if INT_RANGES[name][0] <= low and high <= INT_RANGES[name][1])


def _npy(array: np.ndarray) -> bytes:
    """A 1-D array as a .npy file (format 1.0), as numpy.save writes it."""
    header = f"{{'descr': '{array.dtype.str}', 'fortran_order': False, 'shape': ({len(array)},), }}"
    padding = -(len(NPY_MAGIC) + 2 + len(header) + 1) % NPY_ALIGN  # numpy aligns the data to 64 bytes
    encoded = (header + " " * padding + "\n").encode("latin1")
    return NPY_MAGIC + struct.pack("<H", len(encoded)) + encoded + array.tobytes()


def deflated(data: bytes) -> bytes:
    """Raw deflate (no zlib header), as a ZIP member stores it."""
    packed: bytes = isal_zlib.compress(data, COMPRESS_LEVEL, -15)
    return packed


def _archive(members: dict[str, bytes]) -> bytes:
    """A ZIP of deflated members, written directly (zipfile's per-member machinery costs more than
    deflating a cycle's few kilobytes). Plain ZIP: no ZIP64 (a segment is far below 4 GiB)."""
    out = bytearray()
    central = bytearray()
    for name, data in members.items():
        packed = deflated(data)
        encoded = name.encode()
        fields = (
            ZIP_VERSION,
            0,
            ZIP_DEFLATED,
            ZIP_TIME,
            ZIP_DATE,
            isal_zlib.crc32(data),
            len(packed),
            len(data),
            len(encoded),
        )
        central += (
            struct.pack("<IHHHHHHIIIHHHHHII", ZIP_CENTRAL, ZIP_VERSION, *fields, 0, 0, 0, 0, 0, len(out)) + encoded
        )
        out += struct.pack("<IHHHHHIIIHH", ZIP_LOCAL, *fields, 0) + encoded + packed
    end = struct.pack("<IHHHHIIH", ZIP_END, 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + end)


def _pack(columns: list[tuple[np.ndarray, bool]]) -> tuple[list[list[Any]], dict[str, np.ndarray]]:
    """Columns grouped into one array per integer type; returns their locations and the members."""
    groups: dict[str, list[np.ndarray]] = {}
    offsets: dict[str, int] = {}
    located = []
    for values, delta in columns:
        kind = values.dtype.str[1:]
        groups.setdefault(kind, []).append(values)
        located.append([kind, offsets.get(kind, 0), len(values), int(delta)])
        offsets[kind] = offsets.get(kind, 0) + len(values)
    members = {kind: np.concatenate(parts).astype(kind) for kind, parts in groups.items()}
    return located, members


def json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON of a segment's meta. orjson writes a 5,000-node attempt's rows ~7 times
    faster than ``json.dumps`` (0.26 of the writer's 1.5 ms per attempt were that call); what it
    refuses (an integer beyond 64 bits, a string with a lone surrogate) is written by ``json``.
    Either text reads back to the same values with ``json.loads``, which the readers use."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":")).encode()


class SegmentEncoder:
    """Builds one segment event by event (each payload is read when it is added, as it was emitted)."""

    def __init__(self, names: RunNames, first_seq: int) -> None:
        self.first_seq = first_seq
        self._encoder = _Encoder(names)
        self._rows: list[list[Any]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, event: Event) -> None:
        self._rows.append(
            [event.cycle, event.pod, event.extension_point.value, event.plugin, self._encoder.payload(event.payload)]
        )

    def add_json(self, event: dict[str, Any]) -> None:
        """An event already in its JSON form (``Event.to_json()``)."""
        payload = self._encoder.value(event.get("payload"))
        self._rows.append([event["cycle"], event["pod"], event["extensionPoint"], event.get("plugin"), payload])

    def parts(self) -> tuple[list[list[Any]], list[list[Any]], dict[str, np.ndarray]]:
        """What ``finish`` writes: the event rows, the columns' locations and the members."""
        located, members = _pack(self._encoder.columns.columns)
        return self._rows, located, members

    def finish(self) -> bytes:
        rows, located, members = self.parts()
        meta = {"format": FORMAT, "version": VERSION, "firstSeq": self.first_seq, "arrays": located, "events": rows}
        meta_bytes = np.frombuffer(json_bytes(meta), dtype=np.uint8)
        return _archive({f"{name}.npy": _npy(array) for name, array in {META: meta_bytes, **members}.items()})


def encode_segment(events: Iterable[Event], names: RunNames, first_seq: int) -> bytes:
    """Events (consecutive seqs from ``first_seq``) as one compressed columnar blob."""
    segment = SegmentEncoder(names, first_seq)
    for event in events:
        segment.add(event)
    return segment.finish()


def encode_json_segment(events: Iterable[dict[str, Any]], names: RunNames, first_seq: int) -> bytes:
    segment = SegmentEncoder(names, first_seq)
    for event in events:
        segment.add_json(event)
    return segment.finish()


# --- decoding ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    first_seq: int
    events: list[dict[str, Any]]  # each as Event.to_json(): {"cycle", "pod", "extensionPoint", "plugin", "payload"}


class _Decoder:
    def __init__(self, names: RunNames, located: list[list[Any]], members: _Members) -> None:
        self.names = names
        self.located = located
        self.members = members
        self._cache: dict[int, list[Any]] = {}

    def column(self, k: int) -> list[Any]:
        if k not in self._cache:
            kind, offset, length, delta = self.located[k]
            values = self.members[kind][offset : offset + length].astype(np.int64)
            self._cache[k] = (np.cumsum(values) if delta else values).tolist()
        return self._cache[k]

    def node_names(self, k: int) -> list[str]:
        nodes = self.names.nodes
        return [nodes[i] for i in self.column(k)]

    def value(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if not isinstance(value, dict):
            return value
        if REF_NODES in value:
            return self.node_names(value[REF_NODES])
        if REF_PODS in value:
            pods = self.names.pods
            return [pods[i] for i in self.column(value[REF_PODS])]
        if REF_INTS in value:
            return list(self.column(value[REF_INTS]))
        if REF_NODE_MAP in value:
            return dict(zip(self.node_names(value[REF_NODE_MAP]), self.column(value["v"])))
        if REF_STATUSES in value:
            palette = [self.value(status) for status in value["pal"]]
            pairs = zip(self.node_names(value[REF_STATUSES]), self.column(value["c"]))
            return {node: palette[code] for node, code in pairs if code >= 0}
        if REF_LITERAL in value:
            value = value[REF_LITERAL]
        return {key: self.value(item) for key, item in value.items()}


# The one header form a segment's members have (``_npy`` writes it, as numpy.save does for a 1-D
# integer array). Read here by a pattern, not by numpy.lib.format: NumPy parses the header with
# ast.literal_eval, and CPython 3.11 before 3.11.8 builds AST objects with one recursion counter per
# interpreter, so two server threads reading segments at once could fail with "SystemError: AST
# constructor recursion depth mismatch" (seen as a 500 under load; CPython gh-106905).
_NPY_HEADER = re.compile(rb"\{'descr': '([<|])([iu][1248])', 'fortran_order': False, 'shape': \((\d+),\), \} *\n")


def _read_npy(data: bytes) -> np.ndarray:
    """A member's 1-D integer array (read-only, over ``data``)."""
    if data[: len(NPY_MAGIC)] != NPY_MAGIC or len(data) < len(NPY_MAGIC) + 2:
        raise ValueError("not a version 1.0 .npy member")
    start = len(NPY_MAGIC) + 2
    (header_length,) = struct.unpack_from("<H", data, len(NPY_MAGIC))
    header = _NPY_HEADER.fullmatch(data, start, start + header_length)
    if header is None:
        raise ValueError("not a 1-D little-endian integer .npy member")
    dtype, count = np.dtype("<" + header[2].decode()), int(header[3])
    if len(data) - start - header_length != count * dtype.itemsize:
        raise ValueError(
            f"member holds {len(data) - start - header_length} bytes, its header says {count} × {dtype.itemsize}"
        )
    return np.frombuffer(data, dtype=dtype, count=count, offset=start + header_length)


class _Members:
    """The archive's members, each read (and inflated) only when a decoded payload refers to it: a
    reader that wants only some events (the story wants no per-node array) skips the rest."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self._archive = archive
        self._read: dict[str, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._read:
            try:
                self._read[name] = _read_npy(self._archive.read(f"{name}.npy"))
            except (KeyError, OSError, ValueError, EOFError, zlib.error, zipfile.BadZipFile) as exc:
                raise FormatError(f"not an events segment: member {name}: {exc}") from None
        return self._read[name]

    def names(self) -> list[str]:
        return [info.filename.removesuffix(".npy") for info in self._archive.infolist()]


def _open(blob: bytes | memoryview) -> tuple[dict[str, Any], _Members]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(blob)))
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise FormatError(f"not an events segment: {exc}") from None
    members = _Members(archive)
    if META not in members.names():
        raise FormatError("not an events segment: no meta member")
    meta = json.loads(members[META].tobytes())  # not orjson: it reads an integer beyond 64 bits as a float
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise FormatError(f"unsupported events segment: {meta.get('format')} version {meta.get('version')}")
    return meta, members


def read_archive(blob: bytes | memoryview) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The segment's meta JSON and its members (one array per integer type)."""
    meta, members = _open(blob)
    return meta, {name: members[name] for name in members.names() if name != META}


# Which events a reader wants, from what the segment's meta says of each without decoding it.
EventFilter = Callable[[str, str], bool]  # (pod, extensionPoint) -> decode this event


def decode_segment(blob: bytes | memoryview, names: RunNames) -> Segment:
    meta, members = _open(blob)
    return Segment(meta["firstSeq"], [event for _, event in _decoded(meta, members, names)])


def decode_selected(blob: bytes | memoryview, names: RunNames, wanted: EventFilter) -> list[tuple[int, dict[str, Any]]]:
    """(seq, event) for the segment's events that ``wanted`` picks; the others are never decoded,
    nor are the members only they refer to."""
    meta, members = _open(blob)
    return list(_decoded(meta, members, names, wanted))


def _decoded(
    meta: dict[str, Any], members: _Members, names: RunNames, wanted: EventFilter | None = None
) -> Iterable[tuple[int, dict[str, Any]]]:
    decoder = _Decoder(names, meta["arrays"], members)
    for seq, (cycle, pod, point, plugin, payload) in enumerate(meta["events"], start=meta["firstSeq"]):
        if wanted is None or wanted(pod, point):
            yield (
                seq,
                {
                    "cycle": cycle,
                    "pod": pod,
                    "extensionPoint": point,
                    "plugin": plugin,
                    "payload": decoder.value(payload),
                },
            )
