"""scheduler_core.encoding.columnar: every event of every type comes back exactly as its JSON.

The corpus (every cycle of every public case) and the bench files (their first cycles, 500 and 5000
nodes) are encoded one segment per cycle, as the web app stores them, and decoded again; the
decoded events must serialise to the very same JSON text as ``Event.to_json()`` (values, types and
key order). Payloads the codec has no columns for (a new event type) must round-trip too.
"""

from __future__ import annotations

import io
import itertools
import json
import typing
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.encoding import columnar
from scheduler_core.encoding.columnar import (
    FormatError,
    RunNames,
    SegmentEncoder,
    decode_segment,
    decode_selected,
    encode_json_segment,
    encode_segment,
    read_archive,
)
from scheduler_core.encoding.events import Event, ExtensionPoint, FilterPluginResult, Payload, ScoreResult, TotalResult
from scheduler_core.framework.node_table import PositionedNames
from scheduler_core.framework.status import Status
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.timeline import STORY_POINTS
from tests.scheduler_core.builders import fill_one_node_each, no_default_spreading

SHARED = Path(__file__).resolve().parents[4] / "shared"
CORPUS = SHARED / "conformance" / "public"
BENCH = SHARED / "bench"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))
TIMELINE = SHARED / "conformance-timeline" / "public"
TIMELINE_CASES = sorted(p.name[: -len(".yaml")] for p in TIMELINE.glob("*.yaml"))
BENCHES = sorted(p.name[: -len(".yaml")] for p in BENCH.glob("*.yaml"))
BENCH_CYCLES = 3
SEEN_TYPES: set[str] = set()


def names_of(scenario) -> RunNames:
    return RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])


def segments(events, names: RunNames):
    """(events of one cycle, their blob), as the web app's writer cuts them."""
    group: list[Event] = []
    seq = 0
    for event in events:
        group.append(event)
        if event.extension_point is ExtensionPoint.CYCLE_END:
            yield group, encode_segment(group, names, seq)
            seq += len(group)
            group = []


def assert_round_trip(events, names: RunNames, cycles: int | None = None) -> int:
    count = 0
    for group, blob in segments(events, names):
        expected = [event.to_json() for event in group]
        decoded = decode_segment(blob, names)
        assert json.dumps(decoded.events) == json.dumps(expected)
        SEEN_TYPES.update(type(event.payload).__name__ for event in group)
        count += 1
        if cycles is not None and count >= cycles:
            break
    return count


@pytest.mark.parametrize("case", CASES)
def test_every_event_of_a_conformance_case_round_trips_exactly(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    assert_round_trip(simulate(scenario), names_of(scenario))


@pytest.mark.parametrize("bench", BENCHES)
def test_the_first_cycles_of_a_bench_file_round_trip_exactly(bench):
    scenario = load_scenario((BENCH / f"{bench}.yaml").read_bytes())
    assert assert_round_trip(simulate(scenario), names_of(scenario), cycles=BENCH_CYCLES) == BENCH_CYCLES


@pytest.mark.parametrize("case", TIMELINE_CASES)
def test_every_event_of_a_timeline_run_round_trips_exactly(case):
    """The run to the end adds loop events (queue moves, cluster changes) between cycles; the
    web app's writer cuts segments where the event's cycle number changes."""
    scenario = load_scenario((TIMELINE / f"{case}.yaml").read_bytes())
    names = names_of(scenario)
    seq = 0
    for _, group in itertools.groupby(run_to_the_end(scenario), key=lambda event: event.cycle):
        group = list(group)
        decoded = decode_segment(encode_segment(group, names, seq), names)
        assert json.dumps(decoded.events) == json.dumps([event.to_json() for event in group])
        SEEN_TYPES.update(type(event.payload).__name__ for event in group)
        seq += len(group)


@pytest.mark.parametrize("case", TIMELINE_CASES)
def test_selected_events_decode_exactly_as_in_the_whole_segment_with_their_seqs(case):
    scenario = load_scenario((TIMELINE / f"{case}.yaml").read_bytes())
    names = names_of(scenario)
    seq = 0
    for _, group in itertools.groupby(run_to_the_end(scenario), key=lambda event: event.cycle):
        group = list(group)
        whole = [event.to_json() for event in group]
        blob = encode_segment(group, names, seq)
        picked = decode_selected(blob, names, lambda pod, point: point in STORY_POINTS)
        assert picked == [(seq + i, event) for i, event in enumerate(whole) if event["extensionPoint"] in STORY_POINTS]
        seq += len(whole)


def test_members_only_unselected_events_refer_to_are_never_read(monkeypatch):
    scenario = load_scenario((BENCH / "spread_500.yaml").read_bytes())
    names = names_of(scenario)
    first_cycle = next(group for group, _ in segments(simulate(scenario), names))
    blob = encode_segment(first_cycle, names, 0)
    read: list[str] = []
    original = columnar._Members.__getitem__
    monkeypatch.setattr(columnar._Members, "__getitem__", lambda self, name: read.append(name) or original(self, name))
    picked = decode_selected(blob, names, lambda pod, point: point == ExtensionPoint.CYCLE_END.value)
    assert picked == [(len(first_cycle) - 1, {**first_cycle[-1].to_json()})]
    assert read == ["meta"]  # the Filter verdicts' and scores' arrays stayed deflated
    read.clear()
    decode_selected(blob, names, lambda pod, point: point == ExtensionPoint.FILTER.value)
    assert len(read) > 1


CHANGES_CASES = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "changes").glob("*.yaml"))


@pytest.mark.parametrize("path", CHANGES_CASES, ids=lambda path: path.stem)
def test_every_event_of_a_run_with_steps_round_trips_exactly(path):
    """Runs with steps add step events and pods the controllers create (names the run's table
    of pending pods does not hold)."""
    scenario = load_scenario(path.read_bytes())
    names = names_of(scenario)
    seq = 0
    for _, group in itertools.groupby(run_to_the_end(scenario), key=lambda event: event.cycle):
        group = list(group)
        decoded = decode_segment(encode_segment(group, names, seq), names)
        assert json.dumps(decoded.events) == json.dumps([event.to_json() for event in group])
        SEEN_TYPES.update(type(event.payload).__name__ for event in group)
        seq += len(group)


def test_the_corpus_and_bench_files_exercised_every_payload_type():
    # Runs after the parametrized tests above (pytest keeps file order).
    every = {payload_type.__name__ for payload_type in typing.get_args(Payload)}
    assert every <= SEEN_TYPES, f"never exercised: {sorted(every - SEEN_TYPES)}"


def test_a_5000_node_cycle_is_small():
    scenario = load_scenario((BENCH / "spread_5000.yaml").read_bytes())
    names = names_of(scenario)
    sizes = [len(blob) for _, (_, blob) in zip(range(3), segments(simulate(scenario), names))]
    assert max(sizes) < 20 * 1024  # issue 11: <= 20 KB per cycle at 5000 nodes (it is ~7 KB)


@dataclass
class Eviction:  # a payload type the codec has never heard of (the timeline adds some)
    victims: list[str]
    node_scores: dict[str, int]
    on: list[str]
    detail: dict

    def to_json(self) -> dict:
        return {"victims": self.victims, "nodeScores": self.node_scores, "on": self.on, "detail": self.detail}


NODES = [f"node-{i}" for i in range(40)]
PODS = [f"default/p-{i}" for i in range(40)]
ODD_PAYLOADS = {
    "long lists of node and pod names become columns": Eviction(
        PODS[:20], {n: i * 7 for i, n in enumerate(NODES)}, NODES[::-1], {}
    ),
    "keys that look like references are escaped": Eviction(
        [], {}, [], {"$n": 3, "$lit": {"$i": [1, 2]}, "nested": [{"$p": 0}]}
    ),
    "bools stay bools, never ints": Eviction(
        [], {n: bool(i % 2) for i, n in enumerate(NODES)}, [], {"flags": [True, False] * 10}
    ),
    "integers beyond 64 bits stay JSON": Eviction(
        [], {n: 2**70 + i for i, n in enumerate(NODES)}, [], {"big": [2**64] * 20}
    ),
    "negative and wide integers keep their values": Eviction(
        [], {n: -(2**40) * i for i, n in enumerate(NODES)}, [], {"ints": list(range(-10, 30))}
    ),
    "floats and mixed lists stay JSON": Eviction(
        [], {n: i / 3 for i, n in enumerate(NODES)}, [], {"mixed": [1, "a", None, 2.5] * 5}
    ),
    "names the run does not know stay JSON": Eviction(
        [f"x/{i}" for i in range(20)], {f"ghost-{i}": i for i in range(20)}, NODES[:3] + ["ghost"] * 20, {}
    ),
    "empty and short containers": Eviction([], {}, [], {"e": [], "d": {}, "short": NODES[:2]}),
    "text beyond ASCII and a lone surrogate": Eviction([], {}, [], {"zone": "zürich-東京-🚀", "odd": "a\ud800b"}),
    "integer and boolean keys read back as JSON writes them": Eviction(
        [], {}, [], {"by": {1: "a", 2: "b"}, "flags": {True: "t", None: "n"}}
    ),
}


@pytest.mark.parametrize("payload", ODD_PAYLOADS.values(), ids=ODD_PAYLOADS.keys())
def test_a_payload_type_it_does_not_know_round_trips_exactly(payload):
    names = RunNames(NODES, PODS)
    event = Event(0, "default/p-0", ExtensionPoint.POST_FILTER, "SomeNewPlugin", payload)
    decoded = decode_segment(encode_segment([event], names, 17), names)
    assert decoded.first_seq == 17
    assert json.dumps(decoded.events) == json.dumps([event.to_json()])


def test_events_given_as_json_round_trip_too():
    names = RunNames(NODES, PODS)
    events = [
        {
            "cycle": 4,
            "pod": "default/p-1",
            "extensionPoint": "Queue",
            "plugin": None,
            "payload": {"moved": PODS, "to": "activeQ"},
        }
    ]
    assert decode_segment(encode_json_segment(events, names, 0), names).events == events


def test_long_name_lists_are_stored_as_index_columns_not_text():
    names = RunNames(NODES, PODS)
    blob = encode_json_segment(
        [{"cycle": 0, "pod": "", "extensionPoint": "X", "plugin": None, "payload": {"on": NODES * 5}}], names, 0
    )
    meta, members = read_archive(blob)
    assert meta["events"][0][4] == {"on": {"$n": 0}}
    assert b"node-1" not in json.dumps(meta).encode()
    assert sum(array.nbytes for array in members.values()) <= 200  # 200 one-byte deltas


def test_a_segment_is_a_plain_numpy_npz():
    names = RunNames(NODES, PODS)
    blob = encode_json_segment(
        [{"cycle": 0, "pod": "", "extensionPoint": "X", "plugin": None, "payload": {"s": list(range(100))}}], names, 0
    )
    with np.load(io.BytesIO(blob)) as archive:
        assert set(archive.files) == {"meta", "u1"}
        assert archive["u1"].tolist() == list(range(100))


def test_it_refuses_what_is_not_a_segment():
    with pytest.raises(FormatError):
        decode_segment(b"not a zip", RunNames([]))
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.frombuffer(b'{"format":"other","version":1}', dtype=np.uint8))
    with pytest.raises(FormatError, match="unsupported"):
        decode_segment(buffer.getvalue(), RunNames([]))


def test_a_damaged_member_is_refused_as_not_a_segment():
    names = RunNames(NODES, PODS)
    blob = bytearray(
        encode_json_segment(
            [{"cycle": 0, "pod": "", "extensionPoint": "X", "plugin": None, "payload": {"s": list(range(0, 2000, 7))}}],
            names,
            0,
        )
    )
    member = next(info for info in zipfile.ZipFile(io.BytesIO(bytes(blob))).infolist() if info.filename != "meta.npy")
    data_at = member.header_offset + 30 + len(member.filename) + len(member.extra)
    blob[data_at + member.compress_size // 2] ^= 0xFF
    with pytest.raises(FormatError):
        decode_segment(bytes(blob), names)


def test_segments_are_read_without_python_syntax_parsing(monkeypatch):
    # numpy.lib.format parses .npy headers with ast.literal_eval, which CPython 3.11.7 cannot run in
    # two threads at once (a server's 500 under load): the reader must never reach the ast module.
    import ast

    def refuse(*args, **kwargs):
        raise AssertionError("a segment's member was read through ast")

    monkeypatch.setattr(ast, "parse", refuse)
    monkeypatch.setattr(ast, "literal_eval", refuse)
    names = RunNames(NODES, PODS)
    events = [
        {
            "cycle": 0,
            "pod": "",
            "extensionPoint": "X",
            "plugin": None,
            "payload": {"s": list(range(0, 70000, 3)), "n": list(range(-300, 300)), "on": NODES * 3},
        }
    ]
    assert decode_segment(encode_json_segment(events, names, 0), names).events == events


@pytest.mark.parametrize(
    "header, problem",
    [
        (b"{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", "little-endian"),
        (b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", "integer"),
        (b"{'descr': '<i4', 'fortran_order': True, 'shape': (3,), }", "1-D"),
        (b"{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", "1-D"),
        (b"{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", "header says 4"),
    ],
)
def test_a_member_whose_header_is_not_the_written_form_is_refused(header, problem):
    header += b" " * (-(len(columnar.NPY_MAGIC) + 2 + len(header) + 1) % 64) + b"\n"
    data = columnar.NPY_MAGIC + len(header).to_bytes(2, "little") + header + np.arange(3, dtype="<i4").tobytes()
    with pytest.raises(ValueError, match=problem):
        columnar._read_npy(data)


def test_members_are_deflated_as_any_zip_reader_inflates_them():
    for data in (b"", b"x", json.dumps(list(range(3000))).encode(), np.arange(5000, dtype=np.int16).tobytes()):
        assert zlib.decompress(columnar.deflated(data), -15) == data


def test_numpy_save_output_reads_as_the_same_array():
    for values in (
        np.arange(5, dtype=np.uint8),
        np.array([-(2**40), 0, 7], dtype=np.int64),
        np.array([], dtype=np.int16),
    ):
        buffer = io.BytesIO()
        np.save(buffer, values)
        read = columnar._read_npy(buffer.getvalue())
        assert read.dtype == values.dtype and read.tolist() == values.tolist()


def test_equal_name_lists_reuse_their_indices_but_a_changed_list_does_not():
    names = RunNames(NODES, PODS)
    listed = NODES[:20]
    first = names.indices(listed, "$n")
    assert names.indices(list(listed), "$n") is first
    listed[0] = "node-39"  # the caller changes its list afterwards: the cache kept a copy
    assert names.indices(listed, "$n").tolist()[0] == 39


def test_a_queue_less_its_head_is_read_off_the_recent_queue(monkeypatch):
    names = RunNames(NODES, PODS)
    queue = [PODS[i] for i in (7, 3, 9, 1, 0, 12, 30, 2, 5, 4, 6, 8, 10, 11, 13, 14, 15)]  # not in table order
    first = names.indices(queue, "$p")
    monkeypatch.setattr(RunNames, "_lookup", lambda *_: pytest.fail("looked the names up one by one"))
    assert names.indices(queue[1:], "$p").tolist() == first.tolist()[1:]
    assert names.indices(queue[2:], "$p").tolist() == first.tolist()[2:]  # the list less its head is recent too
    monkeypatch.undo()
    assert names.indices([*queue[1:], PODS[20]], "$p").tolist() == [
        *first.tolist()[1:],
        20,
    ]  # not a queue less its head


def test_names_gathered_from_a_node_table_are_read_off_their_positions(monkeypatch):
    positions = np.array([5, 3, 30, 1])
    gathered = PositionedNames([NODES[i] for i in positions.tolist()], positions, NODES)
    names = RunNames(NODES, PODS)
    monkeypatch.setattr(RunNames, "_lookup", lambda *_: pytest.fail("looked the names up one by one"))
    first = names.indices(gathered, "$n")
    assert first.tolist() == [5, 3, 30, 1]
    assert names.indices(gathered, "$n") is first  # the same list in the next event of the cycle
    positions[0] = 7  # the engine's array is its own: what was read stays
    assert first.tolist() == [5, 3, 30, 1]


def test_positions_are_indices_only_where_the_table_lists_the_runs_nodes_in_its_order():
    grown = NODES + ["node-40"]  # a step added a node after the run's names were taken: a prefix
    gathered = PositionedNames(["node-40", "node-2"], np.array([40, 2]), grown)
    assert RunNames(grown, PODS).indices(gathered, "$n").tolist() == [40, 2]
    other = list(reversed(NODES))  # another order: the positions say nothing about the indices
    gathered = PositionedNames([other[0], other[1]], np.array([0, 1]), other)
    assert RunNames(NODES, PODS).indices(gathered, "$n").tolist() == [39, 38]


def test_a_segment_encoder_counts_its_events():
    encoder = SegmentEncoder(RunNames(NODES), 0)
    encoder.add_json({"cycle": 0, "pod": "", "extensionPoint": "X", "plugin": None, "payload": None})
    assert len(encoder) == 1


def test_a_run_of_names_wrapping_around_the_table_is_read_without_a_lookup_per_name():
    names = RunNames(NODES, PODS)
    rotated = NODES[35:] + NODES[:30]
    assert names.indices(rotated, "$n").tolist() == list(range(35, 40)) + list(range(30))
    assert names.indices(NODES[3:1:-1] * 9, "$n").tolist() == [3, 2] * 9  # not a run: looked up one by one
    assert names.indices(NODES + ["node-0"], "$n").tolist() == list(range(40)) + [0]  # longer than the table


@dataclass
class ArrayPayload:  # payloads may carry NumPy arrays, as the engine's do
    values: np.ndarray

    def to_json(self) -> dict:
        return {"values": self.values.tolist()}


ARRAYS = {
    "unsigned 64-bit values beyond int64 stay exact": np.array([2**64 - 1] * 20, dtype=np.uint64),
    "booleans stay booleans": np.array([True, False] * 10),
    "floats stay floats": np.linspace(0, 1, 20),
}


@pytest.mark.parametrize("values", ARRAYS.values(), ids=ARRAYS.keys())
def test_array_payloads_of_any_dtype_round_trip_exactly(values):
    names = RunNames(NODES, PODS)
    event = Event(0, "default/p-0", ExtensionPoint.SCORE, "X", ArrayPayload(values))
    assert json.dumps(decode_segment(encode_segment([event], names, 0), names).events) == json.dumps([event.to_json()])


@pytest.mark.parametrize("raw", ARRAYS.values(), ids=ARRAYS.keys())
def test_a_score_event_with_unusual_arrays_falls_back_to_json_exactly(raw):
    names = RunNames(NODES, PODS)
    event = Event(0, "default/p-0", ExtensionPoint.SCORE, "X", ScoreResult(NODES[:20], raw))
    assert json.dumps(decode_segment(encode_segment([event], names, 0), names).events) == json.dumps([event.to_json()])


def test_a_run_with_batching_hints_round_trips_exactly():
    scenario = load_scenario(no_default_spreading() + fill_one_node_each())
    names = names_of(scenario)
    hinted = 0
    for _, group in itertools.groupby(run_to_the_end(scenario), key=lambda event: event.cycle):
        group = list(group)
        decoded = decode_segment(encode_segment(group, names, 0), names)
        assert json.dumps(decoded.events) == json.dumps([event.to_json() for event in group])
        hinted += sum(1 for event in decoded.events if event["payload"].get("batchHint"))
    assert hinted == 2


def _stored_payload(event: Event, names: RunNames):
    """The payload as the segment's meta holds it (references, not decoded)."""
    meta, _ = columnar.read_archive(encode_segment([event], names, 0))
    return meta["events"][0][4]


def test_a_tuple_of_names_handed_out_again_is_found_by_identity(monkeypatch):
    names = RunNames(NODES, PODS)
    domain = tuple(NODES[::3])  # not a run of the table: a lookup per name the first time
    first = names.indices(domain, "$n")
    assert first.tolist() == list(range(0, 40, 3))
    monkeypatch.setattr(columnar.np, "fromiter", None)  # no lookup per name the second time
    assert names.indices(domain, "$n") is first
    assert names.indices(("node-1", "unknown") * 8, "$n") is None  # refused, and not remembered


def test_the_spread_picture_s_domain_nodes_and_the_hostname_counts_are_columns():
    scenario = load_scenario((BENCH / "spread_5000.yaml").read_bytes())
    names = names_of(scenario)
    first_cycle = list(
        itertools.takewhile(lambda e: e.extension_point is not ExtensionPoint.CYCLE_END, simulate(scenario))
    )
    spread = [e for e in first_cycle if e.plugin == "PodTopologySpread"]
    pre_filter = [e for e in spread if e.extension_point is ExtensionPoint.PRE_FILTER]
    pre_score = [e for e in spread if e.extension_point is ExtensionPoint.PRE_SCORE]
    picture = _stored_payload(pre_filter[0], names)["picture"]["constraints"][0]
    assert all(set(domain["nodes"]) == {"$n"} for domain in picture["domains"])
    counts = _stored_payload(pre_score[0], names)["state"]["constraints"][0]["counts"]
    assert set(counts) == {"$nm", "v"}
    for event in pre_filter + pre_score:
        assert decode_segment(encode_segment([event], names, 0), names).events == [event.to_json()]


def test_ties_are_stored_from_their_positions_and_decode_to_the_same_names():
    names = RunNames(NODES, PODS)
    totals = np.array([5, 9] * 20)
    positions = np.flatnonzero(totals == 9)
    result = TotalResult(NODES, totals, NODES[1], [NODES[p] for p in positions], tie_positions=positions)
    event = Event(0, "default/p-0", ExtensionPoint.TOTAL, None, result)
    assert set(_stored_payload(event, names)["ties"]) == {"$n"}
    assert decode_segment(encode_segment([event], names, 0), names).events == [event.to_json()]
    short = TotalResult(NODES, totals, NODES[1], NODES[1:4:2], tie_positions=np.array([1, 3]))
    assert _stored_payload(Event(0, "default/p-0", ExtensionPoint.TOTAL, None, short), names)["ties"] == NODES[1:4:2]


def test_dynamic_resources_node_pictures_in_filter_events_round_trip_exactly():
    """A pending GPU pod: DynamicResources' Filter event carries a picture per node it rejected."""
    scenario = load_scenario(
        (Path(__file__).resolve().parents[2] / "fixtures" / "dra" / "pending_gpu.yaml").read_text()
    )
    names = names_of(scenario)
    events = list(simulate(scenario))
    [filtered] = [e for e in events if e.extension_point is ExtensionPoint.FILTER and e.plugin == "DynamicResources"]
    assert sorted(filtered.payload.pictures) == ["node-1", "node-2"]
    assert assert_round_trip(events, names) == 1


def test_verdicts_every_node_passed_share_one_column_of_codes_and_round_trip_exactly():
    # Most plugins pass every node: their codes (all -1) are one column per segment, made once,
    # the same as the codes read one by one would store (one byte each); a rejection keeps its own.
    names = RunNames(NODES, PODS)
    rejected = Status.unschedulable("node(s) had untolerated taint")
    choice = np.full(len(NODES), -1, dtype=np.int32)
    some = choice.copy()
    some[3] = 0
    group = [
        Event(0, "default/p", ExtensionPoint.FILTER, plugin, FilterPluginResult(NODES, [], choice.copy()))
        for plugin in ("NodeName", "NodeUnschedulable", "NodeResourcesFit")
    ]
    group.append(
        Event(0, "default/p", ExtensionPoint.FILTER, "TaintToleration", FilterPluginResult(NODES, [rejected], some))
    )
    group.append(Event(0, "default/p", ExtensionPoint.FILTER, "NodeAffinity", FilterPluginResult([], [], choice[:0])))
    blob = encode_segment(group, names, 0)
    assert json.dumps(decode_segment(blob, names).events) == json.dumps([event.to_json() for event in group])
    meta, members = read_archive(blob)
    codes = [row[4]["statuses"]["c"] for row in meta["events"][:4]]
    assert codes[0] == codes[1] == codes[2] != codes[3]
    member, offset, length, _ = meta["arrays"][codes[0]]
    assert member == "i1" and members[member][offset : offset + length].tolist() == [-1] * len(NODES)
