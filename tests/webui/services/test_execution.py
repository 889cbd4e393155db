"""webui/services/execution.py: the EventWriter turns the engine's stream into one segment per cycle
with an index row per finished cycle, resumes after what a previous attempt stored, and execute()
answers with the run's final status (the task around it is in tests/webui/test_tasks.py)."""

import pytest

from tests.webui import support
from webui.models import Run, RunCycle, RunSegment, RunStatus, Scenario, ScenarioVersion
from webui.services import claims, engine, execution, segments

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(3, 2))
    run = Run.objects.create(version=version, cycles=2, owner_session_key="k")
    assert claims.claim(run.pk, "w")
    return run


def _engine_events(run: Run) -> list[engine.Event]:
    return list(engine.simulate_events(engine.load(run.version.text)))


def _write(run: Run, events) -> execution.EventWriter:
    writer = execution.writer_for(run, "w", engine.load(run.version.text))
    for event in events:
        writer.add(event)
    writer.flush()
    return writer


def test_each_cycle_is_one_segment_and_each_finished_cycle_one_index_row(run: Run):
    stream = _engine_events(run)
    writer = _write(run, stream)
    stored = list(RunSegment.objects.filter(run=run).order_by("first_seq"))
    assert [s.cycle for s in stored] == sorted({e.cycle for e in stream})
    assert stored[0].first_seq == 0 and stored[-1].end_seq == len(stream) == writer.next_seq
    assert all(a.end_seq == b.first_seq for a, b in zip(stored, stored[1:]))
    rows = list(RunCycle.objects.filter(run=run).order_by("cycle"))
    assert [(r.cycle, r.pod) for r in rows] == [(0, "default/pending-0"), (1, "default/pending-1")]
    starts = [seq for seq, e in enumerate(stream) if e.extension_point is engine.ExtensionPoint.CYCLE_START]
    assert [r.first_seq for r in rows] == starts
    run.refresh_from_db()
    assert (run.cycle, run.event_count, run.stored_bytes) == (2, len(stream), sum(len(s.blob) for s in stored))


def test_a_writer_resumes_after_the_segments_already_stored(run: Run):
    stream = _engine_events(run)
    first_cycle = [e for e in stream if e.cycle == 0]
    _write(run, first_cycle + [stream[len(first_cycle)]])  # the second cycle's first event opens a segment
    assert segments.stored_event_count(run.pk) > len(first_cycle)  # that open segment was flushed at the end
    RunSegment.objects.filter(run=run, cycle=1).delete()  # as if the worker died before storing it
    again = execution.writer_for(run, "w", engine.load(run.version.text))
    assert again.resume_from == len(first_cycle)
    for event in stream:
        again.add(event)
    again.flush()
    assert segments.stored_event_count(run.pk) == len(stream)


def test_the_stored_bytes_limit_stops_the_writer(run: Run, settings):
    settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN = 10
    writer = execution.writer_for(run, "w", engine.load(run.version.text))
    with pytest.raises(execution.TooManyStoredBytes):
        for event in _engine_events(run):
            writer.add(event)


def test_the_benchmark_cut_ends_after_the_first_cycles(run: Run, settings):
    settings.SCHEDLAB_RUN_FIRST_CYCLES = 1
    assert execution.execute(run.pk, "w") == RunStatus.SUCCEEDED
    run.refresh_from_db()
    assert run.cycle == 1 and RunCycle.objects.filter(run=run).count() == 1


def test_execute_fails_a_run_over_the_stored_bytes_limit_naming_it(run: Run, settings):
    settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN = 10
    assert execution.execute(run.pk, "w") == RunStatus.FAILED
    run.refresh_from_db()
    assert "SCHEDLAB_MAX_STORED_BYTES_PER_RUN" in run.error


def test_execute_gives_up_quietly_on_a_run_another_worker_holds(run: Run):
    assert execution.execute(run.pk, "another-worker") is None
    run.refresh_from_db()
    assert (run.status, run.event_count) == (RunStatus.RUNNING, 0)


@pytest.fixture
def in_child(settings):
    settings.SCHEDLAB_ENGINE_PROCESS = "child"


def _stored_segments(run: Run) -> list[tuple[int, int, bytes]]:
    return [(s.first_seq, s.end_seq, bytes(s.blob)) for s in RunSegment.objects.filter(run=run).order_by("first_seq")]


def test_a_run_whose_engine_runs_in_a_forked_process_stores_the_same_segments(run: Run, settings, in_child):
    assert execution.execute(run.pk, "w") == RunStatus.SUCCEEDED
    forked = _stored_segments(run)
    rows = list(
        RunCycle.objects.filter(run=run)
        .order_by("cycle")
        .values_list("cycle", "pod", "node_name", "first_seq", "end_seq")
    )
    other = Run.objects.create(version=run.version, cycles=2, owner_session_key="k")
    assert claims.claim(other.pk, "w")
    settings.SCHEDLAB_ENGINE_PROCESS = "inline"
    assert execution.execute(other.pk, "w") == RunStatus.SUCCEEDED
    assert forked == _stored_segments(other) and forked
    assert rows == list(
        RunCycle.objects.filter(run=other)
        .order_by("cycle")
        .values_list("cycle", "pod", "node_name", "first_seq", "end_seq")
    )


def test_a_forked_engine_that_raises_fails_the_run_with_its_message(run: Run, monkeypatch, in_child):
    def explode(_scenario, _mode=None, hand_over_only=False):
        raise RuntimeError("boom")
        yield

    monkeypatch.setattr(engine, "simulate_events", explode)  # the child runs the patched module: forked after it
    assert execution.execute(run.pk, "w") == RunStatus.FAILED
    run.refresh_from_db()
    assert run.error == "the simulation failed: RuntimeError: boom"


def test_a_run_stopped_early_kills_its_forked_engine(run: Run, settings, monkeypatch, in_child):
    settings.SCHEDLAB_RUN_FIRST_CYCLES = 1
    closed = []
    real = engine.run_events

    def watched(*args, **kwargs):
        stream = real(*args, **kwargs)
        closed.append(stream)
        return stream

    monkeypatch.setattr(engine, "run_events", watched)
    assert execution.execute(run.pk, "w") == RunStatus.SUCCEEDED
    assert closed and closed[0].gi_frame is None  # closed, its finally (kill and reap the child) done


def test_it_tells_when_the_engine_s_first_event_arrives(run: Run):
    told: list[int] = []
    assert execution.execute(run.pk, "w", on_first_event=lambda: told.append(RunSegment.objects.count())) == (
        RunStatus.SUCCEEDED
    )
    assert told == [0]  # once, before anything was stored
