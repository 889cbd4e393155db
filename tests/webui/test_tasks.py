"""webui.tasks.execute_run (and the execution service behind it): claim, idempotency, failure paths."""

import gzip
import json
import os
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from tests.webui import support
from tests.webui.upgrade_support import MOVES_ON_UPGRADE
from webui.models import (
    Run,
    RunCycle,
    RunSegment,
    RunStatus,
    Scenario,
    ScenarioVersion,
    Upgrade,
    UpgradeStatus,
    Upload,
    UploadStatus,
)
from webui.services import claims, engine, events, execution, runs, segments
from webui.tasks import check_version, compare_upgrade, execute_run, read_upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(3, 3))
    return Run.objects.create(version=version, cycles=3, owner_session_key="k")


def stored(run: Run) -> list[dict]:
    return events.page(run, 0, 5000)


def events_of(run: Run) -> list[int]:
    return [event["seq"] for event in stored(run)]


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
    assert claims.claim(run.pk, "worker-a")
    assert not claims.claim(run.pk, "worker-b")
    assert Run.objects.get(pk=run.pk).claimed_by == "worker-a"


def test_it_reclaims_a_run_whose_worker_stopped_beating_and_resumes_without_duplicates(run: Run, settings):
    assert claims.claim(run.pk, "dead-worker")
    # The dead worker had stored the first cycle before dying.
    scenario = engine.load(run.version.text)
    writer = execution.writer_for(run, "dead-worker", scenario)
    for event in engine.simulate_events(scenario):
        writer.add(event)
        if writer.cycles_done == 1:
            break
    writer.flush()
    assert events_of(run) == list(range(writer.next_seq))
    Run.objects.filter(pk=run.pk).update(
        heartbeat=timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 1)
    )
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.attempts) == (RunStatus.SUCCEEDED, 2)
    assert events_of(run) == list(range(run.event_count))


def test_it_stops_when_the_run_is_cancelled_meanwhile(run: Run, monkeypatch):
    assert claims.claim(run.pk, "w")
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
    def explode(_scenario, _mode=None, hand_over_only=False):
        raise RuntimeError("boom")
        yield

    monkeypatch.setattr(engine, "simulate_events", explode)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, "the simulation failed: RuntimeError: boom")


def test_it_runs_the_release_the_run_asked_for(run: Run):
    Run.objects.filter(pk=run.pk).update(release="v1.33", feature_gates={"SchedulerAsyncPreemption": False})
    execute_run.apply(args=[run.pk])
    [start] = events.page(Run.objects.get(pk=run.pk), 0, 1)  # the run's RunStart says what it replays
    assert (start["extensionPoint"], start["payload"]["release"]) == (
        "RunStart",
        "v1.33.13 with SchedulerAsyncPreemption=false",
    )


def test_it_fails_a_run_whose_version_no_longer_validates(run: Run):
    broken = ScenarioVersion.saved(run.version.scenario, run.version.number + 1, "kind: [broken")
    Run.objects.filter(pk=run.pk).update(version=broken)  # as if a changed engine no longer read it
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.error.startswith("the scenario does not validate: ")


def test_it_tells_watchers_how_far_each_stored_batch_goes(run: Run, monkeypatch, settings):
    settings.SCHEDLAB_EVENT_FLUSH_SECONDS = 0  # flush at every cycle boundary
    told = []
    monkeypatch.setattr(execution.publisher, "publish_stored", lambda run_id, end_seq: told.append(end_seq))
    execute_run.apply(args=[run.pk])
    ends = [row.end_seq for row in RunSegment.objects.filter(run=run).order_by("first_seq")]
    assert told == ends  # one batch per cycle here: a batch never splits a cycle
    assert told[-1] == len(events_of(run))
    for row in RunCycle.objects.filter(run=run):  # every cycle's own events are in the batch told of it
        assert any(row.first_seq >= start and row.end_seq <= end for start, end in zip([0, *told], told))


def test_it_stores_one_segment_per_cycle_that_decodes_to_the_engines_events(run: Run):
    execute_run.apply(args=[run.pk])
    expected = [e.to_json() for e in engine.simulate_events(engine.load(run.version.text))]
    assert [{k: v for k, v in e.items() if k != "seq"} for e in stored(run)] == expected
    rows = RunSegment.objects.filter(run=run).order_by("first_seq")
    by_cycle = {}
    for event in stored(run):
        first, end = by_cycle.get(event["cycle"], (event["seq"], event["seq"]))
        by_cycle[event["cycle"]] = (first, event["seq"] + 1)
    # One segment per cycle number: the attempt and what follows it until the next attempt.
    assert [(r.cycle, r.first_seq, r.end_seq) for r in rows] == [(c, *span) for c, span in sorted(by_cycle.items())]


def test_it_keeps_the_runs_names_once(run: Run):
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    names = segments.run_names_from(json.loads(gzip.decompress(run.names_gz)))
    scenario = engine.load(run.version.text)
    assert names.nodes == [n.name for n in scenario.nodes]
    assert names.pods == [p.key for p in scenario.pending_pods]


def test_it_fails_a_run_over_the_stored_bytes_limit_naming_it(run: Run, settings):
    settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN = 300
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "the run's events take more than 300 bytes compressed (limit SCHEDLAB_MAX_STORED_BYTES_PER_RUN)"


def test_it_records_the_stored_bytes_and_one_index_row_per_cycle(run: Run):
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.stored_bytes == sum(len(bytes(s.blob)) for s in RunSegment.objects.filter(run=run))
    assert list(RunCycle.objects.filter(run=run).values_list("cycle", flat=True)) == [0, 1, 2]


def test_it_stops_after_the_first_cycles_when_benchmarking(run: Run, settings):
    settings.SCHEDLAB_RUN_FIRST_CYCLES = 1
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.cycle) == (RunStatus.SUCCEEDED, 1)
    assert set(RunSegment.objects.filter(run=run).values_list("cycle", flat=True)) == {0}


def test_a_resumed_run_keeps_its_cycle_index_and_byte_count_whole(run: Run, settings):
    settings.SCHEDLAB_EVENT_FLUSH_SECONDS = 0
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    complete = (run.stored_bytes, list(RunCycle.objects.filter(run=run).values_list("cycle", "first_seq", "end_seq")))
    # Forget the second half, as if the worker had died there, and let another worker finish.
    RunSegment.objects.filter(run=run, cycle__gte=1).delete()
    RunCycle.objects.filter(run=run, cycle__gte=1).delete()
    Run.objects.filter(pk=run.pk).update(status=RunStatus.QUEUED, stored_bytes=0)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (
        run.stored_bytes,
        list(RunCycle.objects.filter(run=run).values_list("cycle", "first_seq", "end_seq")),
    ) == complete


def test_it_leaves_a_run_queued_for_recovery_when_the_database_fails_at_claim_time(
    run: Run, monkeypatch, settings, django_capture_on_commit_callbacks
):
    real_claim = claims.claim

    def connection_killed(run_id, worker):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(claims, "claim", connection_killed)
    assert execute_run.apply(args=[run.pk]).get() == f"run {run.pk}: claim failed"
    run.refresh_from_db()
    assert (run.status, run.attempts) == (RunStatus.QUEUED, 0)

    # Recovery finds it lost (nothing is running) and sends it again; this time the claim works.
    monkeypatch.setattr(claims, "claim", real_claim)
    Run.objects.filter(pk=run.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS + 1)
    )
    sent = []
    monkeypatch.setattr(execute_run, "delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.sweep_stale_runs() == 1
    assert sent == [run.pk]
    execute_run.apply(args=sent)
    run.refresh_from_db()
    assert (run.status, run.attempts, run.enqueues) == (RunStatus.SUCCEEDED, 1, 1)


def test_it_leaves_a_run_to_recovery_when_the_database_fails_mid_run(run: Run, monkeypatch):
    def connection_lost(*_args, **_kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(claims, "beat", connection_lost)
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert (run.status, run.error) == (
        RunStatus.RUNNING,
        "",
    )  # not failed: its heartbeat goes stale, recovery re-queues it


# --- advance_capacity: a pod-copies question answered by the one pass inside the task ------------


def test_advance_capacity_answers_pod_copies_in_the_task_itself_and_needs_no_trial_task(
    monkeypatch, django_capture_on_commit_callbacks
):
    from scheduler_core.answers.capacity import TrialBase
    from scheduler_core.answers.capacity_pass import how_many_copies
    from tests.webui.capacity_support import CAPACITY_PODS
    from webui.models import CapacityQuestion, CapacityTrial
    from webui.services import capacity
    from webui.tasks import advance_capacity

    sent: list = []
    monkeypatch.setattr(capacity, "_dispatch", sent.append)
    monkeypatch.setattr(capacity, "_send_run", lambda run_id: None)
    scenario = Scenario.objects.create(name="pods", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=CAPACITY_PODS)
    question = CapacityQuestion.objects.create(
        version=version, kind="fit", parameters={"pod": "default/cache-0"}, owner_session_key="k"
    )
    with django_capture_on_commit_callbacks(execute=True):
        advance_capacity.apply(args=[question.pk])
    question.refresh_from_db()
    expected = how_many_copies(TrialBase.from_text(CAPACITY_PODS), "default/cache-0")
    assert (question.status, question.method, question.copies_done, question.stop_message) == (
        RunStatus.SUCCEEDED,
        "placed",
        expected.fits,
        expected.message,
    )
    assert not sent and not CapacityTrial.objects.exists()


def test_compare_upgrade_runs_a_queued_comparison_to_its_answer_once():
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=MOVES_ON_UPGRADE)
    upgrade = Upgrade.objects.create(version=version, old_release="v1.35", new_release="v1.36", owner_session_key="k")
    assert compare_upgrade.apply(args=[upgrade.pk]).get() == f"upgrade {upgrade.pk}: succeeded"
    upgrade.refresh_from_db()
    assert upgrade.status == UpgradeStatus.SUCCEEDED and upgrade.answer["new"] == "v1.36.3"
    assert upgrade.claimed_by.endswith(f":{os.getpid()}")
    assert compare_upgrade.apply(args=[upgrade.pk]).get().startswith("not claimed")  # delivered twice: once


def test_read_upload_saves_a_queued_upload_as_a_version_once_telling_its_watchers(monkeypatch, settings, tmp_path):
    settings.SCHEDLAB_UPLOAD_DIR = str(tmp_path)
    text = support.scenario_text(nodes=2, pending=1)
    (tmp_path / "1").mkdir()
    (tmp_path / "1" / "0").write_text(text)
    upload = Upload.objects.create(
        name="u", size=len(text), files=[{"name": "a.yaml", "path": "1/0", "size": len(text)}], owner_session_key="k"
    )
    told: list[tuple[str, int]] = []
    monkeypatch.setattr(
        "webui.services.uploads.publisher.publish_upload",
        lambda pk: told.append(tuple(Upload.objects.filter(pk=pk).values_list("status", "bytes_read").get())),
    )
    assert read_upload.apply(args=[upload.pk]).get().startswith(f"upload {upload.pk}: saved as scenario ")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.SUCCEEDED and upload.version.text == text
    assert upload.claimed_by.endswith(f":{os.getpid()}")
    assert told[0] == ("reading", 0) and told[-1] == ("succeeded", len(text))
    assert read_upload.apply(args=[upload.pk]).get().endswith("not queued (finished, or read elsewhere)")


def test_check_version_stores_a_versions_whole_check_for_the_web_processes():
    from webui.models import Scenario, ScenarioVersion, TextCheck

    scenario = Scenario.objects.create(name="big", owner_session_key="k" * 32)
    version = ScenarioVersion.saved(scenario, 1, support.scenario_text(nodes=2, pending=1))
    assert check_version.apply(args=[version.pk]).get() == f"version {version.pk}: checked"
    stored = TextCheck.objects.get(digest=version.digest)
    assert stored.engine == engine.check_fingerprint() and stored.result["summary"]["nodes"] == 2
