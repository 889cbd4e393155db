"""webui/services/events.py: reading a run's stored events back — pages with a clamped size, one
cycle's page, the engine's explanation with the numbers behind Filter reasons once the run has
finished, the trace kept once the run succeeded, and comparisons of finished runs only."""

import json

import pytest

from tests.scheduler_core.builders import numbers_scenario
from tests.webui import support
from webui.models import Run, RunMode, RunStatus, Scenario, ScenarioVersion
from webui.services import events
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
