"""webui.tasks.execute_run (and the execution service behind it): claim, idempotency, failure paths."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.webui import support
from webui.models import Run, RunCycle, RunEvent, RunStatus, Scenario, ScenarioVersion
from webui.services import engine, execution, runs
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(3, 3))
    return Run.objects.create(version=version, cycles=3, owner_session_key="k")


def events_of(run: Run) -> list[int]:
    return list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))


def test_it_runs_a_queued_run_to_success(run: Run):
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.cycle, run.attempts, run.error) == (RunStatus.SUCCEEDED, 3, 1, "")
    assert events_of(run) == list(range(run.event_count))
    assert run.finished is not None


def test_it_is_a_no_op_when_delivered_twice(run: Run):
    execute_run.apply(args=[run.pk])
    stored = events_of(run)
    result = execute_run.apply(args=[run.pk]).get()
    assert result.startswith("not claimed")
    assert events_of(run) == stored
    assert Run.objects.get(pk=run.pk).attempts == 1


def test_it_does_not_claim_a_run_another_worker_is_running(run: Run):
    assert runs.claim(run.pk, "worker-a")
    assert not runs.claim(run.pk, "worker-b")
    assert Run.objects.get(pk=run.pk).claimed_by == "worker-a"


def test_it_reclaims_a_run_whose_worker_stopped_beating_and_resumes_without_duplicates(run: Run, settings):
    assert runs.claim(run.pk, "dead-worker")
    # The dead worker had stored the first 5 events before dying.
    first = list(engine.simulate_events(engine.load(run.version.text)))[:5]
    RunEvent.objects.bulk_create([execution._row(run.pk, seq, e.to_json()) for seq, e in enumerate(first)])
    Run.objects.filter(pk=run.pk).update(heartbeat=timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 1))
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.attempts) == (RunStatus.SUCCEEDED, 2)
    assert events_of(run) == list(range(run.event_count))


def test_it_stops_when_the_run_is_cancelled_meanwhile(run: Run, monkeypatch):
    assert runs.claim(run.pk, "w")
    runs.cancel(run)
    assert execution.execute(run.pk, "w") is None
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.event_count == 0


def test_it_fails_a_run_over_the_events_limit_naming_it(run: Run, settings):
    settings.SCHEDLAB_MAX_EVENTS_PER_RUN = 4
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "SCHEDLAB_MAX_EVENTS_PER_RUN" in run.error


def test_it_fails_the_run_with_a_message_when_the_engine_raises(run: Run, monkeypatch):
    def explode(_scenario):
        raise RuntimeError("boom")
        yield

    monkeypatch.setattr(engine, "simulate_events", explode)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, "the simulation failed: RuntimeError: boom")


def test_it_fails_a_run_whose_version_no_longer_validates(run: Run):
    ScenarioVersion.objects.filter(pk=run.version_id).update(text="kind: [broken")
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.error.startswith("the scenario does not validate: ")


def test_it_publishes_each_stored_batch(run: Run, monkeypatch, settings):
    settings.SCHEDLAB_EVENT_FLUSH_SECONDS = 0  # flush at every extension-point boundary
    batches = []
    monkeypatch.setattr(execution.publisher, "publish_events", lambda run_id, batch: batches.append([e.seq for e in batch]))
    execute_run.apply(args=[run.pk])
    flat = [seq for batch in batches for seq in batch]
    assert flat == events_of(run)
    for batch in batches:  # a batch never splits an extension point of a cycle
        points = [(e.cycle, e.extension_point) for e in RunEvent.objects.filter(run=run, seq__in=batch).order_by("seq")]
        assert len(set(points)) == 1


def test_it_fails_a_run_over_the_stored_bytes_limit_naming_it(run: Run, settings):
    settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN = 300
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "the run's events take more than 300 bytes compressed (limit SCHEDLAB_MAX_STORED_BYTES_PER_RUN)"


def test_it_records_the_stored_bytes_and_one_index_row_per_cycle(run: Run):
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.stored_bytes == sum(len(bytes(e.payload_z)) for e in RunEvent.objects.filter(run=run))
    assert list(RunCycle.objects.filter(run=run).values_list("cycle", flat=True)) == [0, 1, 2]


def test_it_stops_after_the_first_cycles_when_benchmarking(run: Run, settings):
    settings.SCHEDLAB_RUN_FIRST_CYCLES = 1
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.cycle) == (RunStatus.SUCCEEDED, 1)
    assert set(RunEvent.objects.filter(run=run).values_list("cycle", flat=True)) == {0}


def test_a_resumed_run_keeps_its_cycle_index_and_byte_count_whole(run: Run, settings):
    settings.SCHEDLAB_EVENT_FLUSH_SECONDS = 0
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    complete = (run.stored_bytes, list(RunCycle.objects.filter(run=run).values_list("cycle", "first_seq", "end_seq")))
    # Forget the second half, as if the worker had died there, and let another worker finish.
    RunEvent.objects.filter(run=run, seq__gte=run.event_count // 2).delete()
    RunCycle.objects.filter(run=run, cycle__gte=1).delete()
    Run.objects.filter(pk=run.pk).update(status=RunStatus.QUEUED, stored_bytes=0)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.stored_bytes, list(RunCycle.objects.filter(run=run).values_list("cycle", "first_seq", "end_seq"))) == complete
