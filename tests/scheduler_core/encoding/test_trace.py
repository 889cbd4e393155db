"""The trace summary is a projection of the event stream, from live or stored (JSON) events."""

from __future__ import annotations

import json
from pathlib import Path

from scheduler_core import TraceBuilder, load_scenario, simulate, trace_cycles, trace_summary
from scheduler_core.encoding.trace import TRACE_READS
from scheduler_core.encoding.events import ExtensionPoint

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "conformance" / "public"


def _events(case: str):
    return list(simulate(load_scenario((CORPUS / f"{case}.yaml").read_bytes())))


def test_stored_events_rebuild_the_same_trace_as_live_ones():
    events = _events("gen_1005")
    builder = TraceBuilder()
    for event in events:
        builder.add_json(json.loads(json.dumps(event.to_json())))
    assert builder.summary() == trace_summary(events)


def test_an_unschedulable_cycle_carries_post_filter_and_the_failed_scheduling_message():
    cycle = trace_summary(_events("seed_pts_conflict"))["cycles"][0]
    assert cycle["nodeName"] is None
    assert cycle["failedSchedulingMessage"].startswith("0/")
    assert cycle["postFilter"]["code"] in ("Unschedulable", "Success")
    assert cycle["feasibleNodes"] == [] and cycle["scores"] == {}


def test_a_scheduled_cycle_has_no_optional_failure_keys():
    cycle = trace_summary(_events("seed_pts_single_constraint"))["cycles"][0]
    assert cycle["nodeName"] == "node4"
    assert "failedSchedulingMessage" not in cycle and "postFilter" not in cycle and "error" not in cycle
    assert cycle["preFilterState"]["PodTopologySpread"][0]["matchNum"] == {"zoneA": 2, "zoneB": 1}


TIMELINE = CORPUS.parents[1] / "conformance-timeline" / "public"


def test_volume_plugins_states_stay_out_of_the_trace_but_travel_in_the_event_stream():
    """The spec's preFilterState is PodTopologySpread's and InterPodAffinity's only."""
    events = list(simulate(load_scenario((TIMELINE / "volumes_2.yaml").read_bytes())))
    states = {e.plugin for e in events if e.extension_point.value == "PreFilter" and e.plugin and e.payload.state}
    assert "VolumeBinding" in states
    assert all("preFilterState" not in cycle for cycle in trace_summary(events)["cycles"])
    start = next(e for e in events if e.extension_point.value == "CycleStart").to_json()["payload"]
    assert start["volumes"][0]["claim"] == "default/want-0"
    reserve = next(e for e in events if e.extension_point.value == "Reserve" and e.plugin == "VolumeBinding")
    assert reserve.to_json()["payload"]["state"]["staticBindings"] == [{"claim": "default/want-0", "volume": "lpv-1"}]


def test_cycles_are_given_one_at_a_time_each_once_the_next_starts():
    events = _events("gen_1001")  # three pending pods
    summary = trace_summary(events)
    assert len(summary["cycles"]) > 1
    started = []

    def watched():
        for event in events:
            if event.extension_point.value == "CycleStart":
                started.append(event.pod)  # the cycles the builder has been handed the start of
            yield event

    seen = []
    for cycle in trace_cycles(watched()):
        seen.append(cycle)
        # a cycle comes out when the one after it starts (or at the end), never later
        assert len(started) in (len(seen) + 1, len(summary["cycles"]))
    assert seen == summary["cycles"]


def test_a_pass_made_for_the_summary_alone_gives_the_same_summary():
    """``TRACE_READS`` names every point the builder reads: a pass that writes only those (no
    QueueSort, no binding events) builds the summary of the pass that writes everything."""
    left_out: set[ExtensionPoint] = set()
    for case in ("gen_1001", "gen_1005", "seed_pts_conflict"):
        scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
        every = list(simulate(scenario))
        some = list(simulate(scenario, reads=TRACE_READS))
        assert trace_summary(some) == trace_summary(every)
        left_out |= {e.extension_point for e in every} - {e.extension_point for e in some}
    assert left_out == {ExtensionPoint.RESERVE, ExtensionPoint.PRE_BIND, ExtensionPoint.BIND}
