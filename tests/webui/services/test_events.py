"""webui/services/events.py: reading a run's stored events back — pages with a clamped size, one
cycle's page, the engine's explanation with the numbers behind Filter reasons once the run has
finished, the trace kept once the run succeeded, and comparisons of finished runs only."""

import json

import pytest

from tests.scheduler_core.builders import numbers_scenario
from tests.webui import support
from webui.models import Run, RunMode, RunStatus, Scenario, ScenarioVersion
from webui.services import events, objects
from webui.services.errors import DomainError, NotFound
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db


def _run(text: str, cycles: int, mode: str = RunMode.TIMELINE) -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=text)
    run = Run.objects.create(version=version, cycles=cycles, owner_session_key="k", mode=mode)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    return run


@pytest.fixture
def run() -> Run:
    return _run(support.scenario_text(3, 2), 2)


def test_a_page_starts_at_the_cursor_and_its_size_is_clamped(run: Run):
    everything = events.page(run, 0, limit=10**9)
    assert [e["seq"] for e in everything] == list(range(run.event_count))
    assert [e["seq"] for e in events.page(run, 3, limit=0)] == [3]  # at least one event
    assert events.page(run, run.event_count) == []


def test_a_cycle_page_says_where_to_go_on_and_whether_the_cycle_is_done():
    run = _run(support.scenario_text(3, 2), 2, RunMode.SINGLE)  # a single pass: each cycle ends with CycleEnd
    body = json.loads(events.cycle_page_json(run, 0, run_finished=False))
    assert {e["cycle"] for e in body["events"]} == {0}
    assert body["events"][-1]["extensionPoint"] == events.CYCLE_END and body["done"]
    assert body["next"] == body["events"][-1]["seq"] + 1
    assert json.loads(events.cycle_page_json(run, 99, run_finished=False)) == {"events": [], "next": 0, "done": False}
    assert json.loads(events.cycle_page_json(run, 99, run_finished=True))["done"]


def test_a_cycle_of_a_run_to_the_end_is_done_once_its_cycle_end_is_stored_though_events_follow_it():
    run = _run(support.scenario_text(3, 2), 2)  # timeline: AttemptEnd and queue moves follow CycleEnd
    body = json.loads(events.cycle_page_json(run, 0, run_finished=False))
    points = [e["extensionPoint"] for e in body["events"]]
    assert events.CYCLE_END in points and points[-1] != events.CYCLE_END
    assert body["done"]


def test_the_finished_cycles_are_indexed(run: Run):
    assert [row.cycle for row in events.cycles(run.pk)] == [0, 1]


def test_an_explanation_carries_the_numbers_once_the_run_has_finished():
    run = _run(numbers_scenario(), 1)
    explained = events.explanation(run, 0)
    assert explained.pod == "default/big" and explained.filter_details_note is None
    assert explained.filter_details is not None and set(explained.filter_details.nodes) == {
        "full",
        "tainted",
        "hdd",
        "ports",
    }
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run.refresh_from_db()
    unfinished = events.explanation(run, 0)
    assert unfinished.filter_details is None
    assert unfinished.filter_details_note == "the numbers behind the reasons are given once the run has finished"
    with pytest.raises(NotFound):
        events.explanation(run, 5)


def test_the_trace_download_is_built_cycle_by_cycle_in_chunks(run: Run, monkeypatch):
    monkeypatch.setattr(events, "TRACE_CHUNK_BYTES", 1)  # a chunk per cycle
    chunks = list(events.trace_chunks(run))
    assert len(chunks) == len(events.trace(Run.objects.get(pk=run.pk))["cycles"]) + 1  # the last closes the list
    assert json.loads(b"".join(chunks)) == json.loads(json.dumps(events.trace(run)))


def test_a_succeeded_runs_trace_is_kept_on_the_run(run: Run):
    assert run.trace is None
    summary = events.trace(run)
    run.refresh_from_db()
    assert run.trace == summary and events.trace(run) is run.trace


def test_only_succeeded_runs_are_compared(run: Run):
    other = _run(support.scenario_text(3, 2), 2)
    compared = events.comparison(run, other, None)
    assert (compared["a"], compared["b"], compared["modes"]) == (run.pk, other.pk, ["timeline", "timeline"])
    Run.objects.filter(pk=other.pk).update(status=RunStatus.FAILED)
    other.refresh_from_db()
    with pytest.raises(DomainError) as refused:
        events.comparison(run, other, None)
    assert refused.value.details == {"runs": [other.pk]}


def test_a_run_without_steps_has_no_step_cluster_and_its_story_names_its_mode(run: Run):
    with pytest.raises(NotFound, match="has no step 1"):
        events.step_cluster(run, 1)
    assert events.story(run)["mode"] == "timeline"


# --- the run view's bounded reads: the story's summary and entries, the whole story in chunks, a step's page


def _story() -> dict:
    """A story as the engine writes it, small enough to read: two pods' attempts, a move, a change, a step."""
    attempts = [
        {"cycle": 0, "pod": "default/web-1", "nodeName": None, "text": "web-1 unschedulable"},
        {"cycle": 1, "pod": "default/web-10", "nodeName": "n1", "text": "web-10 scheduled"},
        {"cycle": 2, "pod": "default/web-1", "nodeName": "n2", "text": "web-1 scheduled"},
    ]
    moves = [{"cycle": 0, "pod": "default/web-1", "text": "web-1 moved"}]
    changes = [{"cycle": 2, "pod": "default/web-1", "text": "web-1 bound"}]
    steps = [{"step": 0, "text": "step 0", "summary": {"created": ["default/web-1", "default/web-10"]}}]
    entries = [
        {"kind": "step", "index": 0},
        {"kind": "attempt", "index": 0},
        {"kind": "move", "index": 0},
        {"kind": "attempt", "index": 1},
        {"kind": "attempt", "index": 2},
        {"kind": "change", "index": 0},
    ]
    final = {"default/web-1": "n2", "default/web-10": "n1", "default/gone": "deleted", "default/late": None}
    return {
        "mode": "timeline",
        "attempts": attempts,
        "moves": moves,
        "changes": changes,
        "entries": entries,
        "steps": steps,
        "final": final,
        "nominated": {"default/late": "n1"},
        "timeMs": 700,
        "finished": True,
        "outcome": "the end",
    }


def test_the_summary_counts_the_story_and_carries_none_of_its_items():
    summary = events.timeline_summary(_story())
    assert summary == {
        "mode": "timeline",
        "timeMs": 700,
        "finished": True,
        "outcome": "the end",
        "counts": {
            "entries": 6,
            "attempts": 3,
            "moves": 1,
            "changes": 1,
            "pods": 4,
            "placed": 2,
            "pending": 1,
            "deleted": 1,
            "nominated": 1,
        },
    }


def test_entries_are_a_window_with_their_items_and_an_offset_past_the_end_reads_none():
    story = _story()
    page = events.timeline_entries(story, events.EntryQuery(offset=1, limit=2))
    assert (page["total"], page["matched"], page["offset"], page["limit"]) == (6, 6, 1, 2)
    assert page["entries"] == [
        {"kind": "attempt", "index": 0, "item": story["attempts"][0]},
        {"kind": "move", "index": 0, "item": story["moves"][0]},
    ]
    past = events.timeline_entries(story, events.EntryQuery(offset=50))
    assert past["entries"] == [] and past["matched"] == 6
    clamped = events.timeline_entries(story, events.EntryQuery(limit=10**6))
    assert clamped["limit"] == events.MAX_TIMELINE_PAGE and len(clamped["entries"]) == 6


def test_entries_filter_by_a_part_of_the_pod_keeping_step_headings_and_by_kind():
    story = _story()
    web_10 = events.timeline_entries(story, events.EntryQuery(pod="web-10"))
    assert [(e["kind"], e["index"]) for e in web_10["entries"]] == [("step", 0), ("attempt", 1)]
    assert web_10["entries"][0]["item"] == {"step": 0, "text": "step 0"}  # a heading: its summary is the summary's
    web_1 = events.timeline_entries(story, events.EntryQuery(pod=" web-1 "))  # also web-10: a part of a name
    assert web_1["matched"] == 6 and web_1["pod"] == " web-1 "
    attempts = events.timeline_entries(story, events.EntryQuery(kind="attempt", pod="default/web-1"))
    assert [e["index"] for e in attempts["entries"]] == [0, 1, 2]


def test_entries_asked_for_a_cycle_answer_the_page_holding_its_attempt():
    story = _story()
    assert events.timeline_entries(story, events.EntryQuery(cycle=2, limit=2))["offset"] == 4
    assert events.timeline_entries(story, events.EntryQuery(cycle=1, limit=2))["offset"] == 2
    assert events.timeline_entries(story, events.EntryQuery(cycle=9, offset=3, limit=2))["offset"] == 3


def test_the_whole_story_written_in_chunks_is_the_story(monkeypatch):
    monkeypatch.setattr(events, "STORY_CHUNK_ITEMS", 2)
    story = _story()
    chunks = list(events.story_chunks(story, {"recorded": None}))
    assert len(chunks) > 10
    whole = json.loads(b"".join(chunks))
    assert list(whole) == [
        "mode",
        "attempts",
        "moves",
        "changes",
        "entries",
        "final",
        "nominated",
        "timeMs",
        "finished",
        "outcome",
        "recorded",
    ]
    assert all(whole[key] == story[key] for key in whole if key != "recorded") and whole["recorded"] is None
    empty = json.loads(b"".join(events.story_chunks({"mode": "single", "attempts": []}, {})))
    assert empty["attempts"] == empty["moves"] == [] and empty["final"] == {}


def test_a_steps_page_counts_its_marks_and_lists_the_gone_of_its_nodes():
    run = _run((support.REPO / "examples" / "changes_scale_drain.yaml").read_text(), 0)
    drained = events.step_page(run, 2, objects.PageQuery(limit=1))
    assert (drained["step"], drained["nodeCount"], drained["matched"], drained["goneCount"]) == (2, 3, 3, 2)
    assert drained["marks"]["gone"] == 2 and sum(drained["marks"].values()) >= 2
    ((node, written),) = drained["nodes"]
    assert node.name == "node-1" and node.unschedulable and written is not None and written.name == "node-1"
    assert [g.how for g in drained["gone"]] == ["evicted", "evicted"]
    other = events.step_page(run, 2, objects.PageQuery(offset=1, limit=1))
    assert other["gone"] == [] and all(p.node in ("node-2", None) for p in other["pods"])
    with pytest.raises(NotFound):
        events.step_page(run, 3, objects.PageQuery())
