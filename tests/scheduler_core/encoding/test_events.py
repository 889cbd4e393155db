"""The event stream read back from its wire form: ``event_from_json`` undoes ``Event.to_json`` for
every event every conformance run emits, and refuses a kind this release does not write."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core import load_scenario, simulate
from scheduler_core.encoding.events import (
    BindingStep,
    ClusterChanged,
    ClusterChangeKind,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    PreFilterPluginResult,
    StoredFilterVerdicts,
    UnknownEventKind,
    WrittenJSON,
    event_from_json,
    read_events,
)
from scheduler_core.framework.status import Status
from scheduler_core.run.loop import run_to_the_end

SHARED = Path(__file__).resolve().parents[4] / "shared"
TRACE_CASES = sorted((SHARED / "conformance" / "public").glob("*.yaml"))
TIMELINE_CASES = (
    sorted((SHARED / "conformance-timeline" / "public").glob("*.yaml"))
    + sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))
    + sorted((SHARED / "conformance-steps" / "public").glob("*.yaml"))
)
# What the wire form keeps of a payload whose live form holds more (arrays, plugin types).
READ_AS = {FilterPluginResult: StoredFilterVerdicts}


def _assert_round_trip(events: list[Event]) -> set[ExtensionPoint]:
    """Each event read back from its JSON (through text, as stored) writes the same JSON, reads
    back equal to itself (the typed form is a fixpoint), and has the live payload's type."""
    for live in events:
        written = json.loads(json.dumps(live.to_json()))
        read = event_from_json(written)
        assert read.to_json() == written, live
        assert event_from_json(json.loads(json.dumps(read.to_json()))) == read
        assert type(read.payload) is READ_AS.get(type(live.payload), type(live.payload))
        assert (read.cycle, read.pod, read.extension_point, read.plugin) == (
            live.cycle,
            live.pod,
            live.extension_point,
            live.plugin,
        )
        if not isinstance(live.payload, (FilterPluginResult, PreFilterPluginResult)) and not _has_arrays(live):
            assert read == live  # the payloads whose live form is its wire form come back equal
    return {event.extension_point for event in events}


def _has_arrays(event: Event) -> bool:
    """Score, NormalizeScore and Total hold numpy arrays live (the wire form has lists), and
    PreScore a plugin's typed state: those compare through their JSON only."""
    return event.extension_point in (
        ExtensionPoint.SCORE,
        ExtensionPoint.NORMALIZE_SCORE,
        ExtensionPoint.TOTAL,
        ExtensionPoint.PRE_SCORE,
    )


def test_the_corpora_are_present():
    assert len(TRACE_CASES) >= 134 and len(TIMELINE_CASES) >= 62


@pytest.mark.parametrize("path", TRACE_CASES, ids=lambda p: p.stem)
def test_every_trace_event_reads_back_as_written(path):
    _assert_round_trip(list(simulate(load_scenario(path.read_bytes()))))


@pytest.mark.parametrize("path", TIMELINE_CASES, ids=lambda p: f"{p.parents[1].name}/{p.stem}")
def test_every_timeline_event_reads_back_as_written(path):
    _assert_round_trip(list(run_to_the_end(load_scenario(path.read_bytes()))))


def test_the_corpora_exercise_every_kind_of_event():
    """A kind no run emits would leave its reader untested: the corpora together emit them all."""
    seen: set[ExtensionPoint] = set()
    for path in TIMELINE_CASES:
        seen |= _assert_round_trip(list(run_to_the_end(load_scenario(path.read_bytes()))))
    steps = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "changes").glob("*.yaml"))
    for path in steps:
        seen |= _assert_round_trip(list(run_to_the_end(load_scenario(path.read_bytes()))))
    # No in-tree plugin of the release has a Permit or PostBind step: their events are built below.
    assert seen == set(ExtensionPoint) - {ExtensionPoint.PERMIT, ExtensionPoint.POST_BIND}


@pytest.mark.parametrize("point", [ExtensionPoint.PERMIT, ExtensionPoint.POST_BIND])
def test_a_binding_step_no_corpus_emits_reads_back(point):
    event = Event(1, "default/p", point, "Example", BindingStep({"code": "Wait", "reasons": []}, "n1", {"k": 1}))
    assert event_from_json(json.loads(json.dumps(event.to_json()))) == event


def test_read_events_reads_a_stream_of_json_lines_in_order():
    events = list(simulate(load_scenario(TRACE_CASES[0].read_bytes())))
    lines = [json.dumps(event.to_json()) for event in events]
    read = list(read_events(json.loads(line) for line in lines))
    assert [event.to_json() for event in read] == [json.loads(line) for line in lines]


def test_a_pre_filter_picture_comes_back_as_its_json():
    event = {
        "cycle": 0,
        "pod": "default/p",
        "extensionPoint": "PreFilter",
        "plugin": "PodTopologySpread",
        "payload": {"status": None, "nodeNames": None, "state": None, "picture": {"constraints": []}},
    }
    read = event_from_json(event)
    assert read.payload == PreFilterPluginResult(None, None, None, WrittenJSON({"constraints": []}))
    assert read.to_json() == event


def test_an_unknown_extension_point_is_refused_by_name():
    event = {"cycle": 3, "pod": "default/p", "extensionPoint": "Reprieve", "plugin": None, "payload": {}}
    with pytest.raises(UnknownEventKind, match=r"unknown event kind 'Reprieve' \(cycle 3, pod 'default/p'\)"):
        event_from_json(event)


def test_an_unknown_cluster_change_is_refused_by_name():
    event = {
        "cycle": 0,
        "pod": "default/p",
        "extensionPoint": "Cluster",
        "plugin": None,
        "payload": {"timeMs": 0, "kind": "PodTeleported", "object": "default/p"},
    }
    with pytest.raises(UnknownEventKind, match="unknown cluster change kind 'PodTeleported'"):
        event_from_json(event)


def test_a_cluster_change_reads_back_typed():
    event = Event(
        2,
        "default/v",
        ExtensionPoint.CLUSTER,
        None,
        ClusterChanged(1500, ClusterChangeKind.POD_TERMINATING, "default/v", "n1", "preempted"),
    )
    assert event_from_json(event.to_json()) == event


def test_a_pod_created_carries_its_labels_and_claims_and_reads_back_typed():
    created = ClusterChanged(
        1000,
        ClusterChangeKind.POD_CREATED,
        "default/web-abc-1",
        None,
        "ReplicaSet default/web-abc",
        {"app": "web", "pod-template-hash": "abc"},
        [{"name": "gpu", "resourceClaimTemplateName": "gpu-t"}],
    )
    event = Event(0, "default/web-abc-1", ExtensionPoint.CLUSTER, None, created)
    wire = event.to_json()
    assert wire["payload"]["labels"] == {"app": "web", "pod-template-hash": "abc"}
    assert wire["payload"]["claims"] == [{"name": "gpu", "resourceClaimTemplateName": "gpu-t"}]
    assert event_from_json(wire) == event
    # Other changes keep their shape: no labels, no claims.
    other = ClusterChanged(1500, ClusterChangeKind.POD_TERMINATING, "default/v", "n1", "preempted").to_json()
    assert "labels" not in other and "claims" not in other


# ---- the live form's own readings


@given(st.lists(st.integers(min_value=-1, max_value=2), max_size=40))
def test_filter_statuses_name_every_rejected_node_in_evaluation_order(choices):
    # The rejected nodes are found with flatnonzero; the reference walks every node.
    palette = [Status.unschedulable("too small"), Status.unresolvable("tainted"), Status.unschedulable("a", "b")]
    nodes = [f"node-{i}" for i in range(len(choices))]
    result = FilterPluginResult(nodes, palette, np.asarray(choices, dtype=np.int64))
    rendered = [status.to_json() for status in palette]
    expected = {node: rendered[c] for node, c in zip(nodes, choices) if c >= 0}
    got = result.statuses
    assert got == expected
    assert list(got) == list(expected)
