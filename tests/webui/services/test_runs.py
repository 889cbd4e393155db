"""webui.services.runs: recovery of runs a dead worker left behind or whose task message was lost,
and deleting runs that a worker is still writing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.webui import support
from webui.models import Run, RunSegment, RunStatus, Scenario, ScenarioVersion, Upgrade
from webui.services import claims, engine, execution, releases, runs
from webui.services.access import Actor
from webui.services.errors import DomainError

pytestmark = pytest.mark.django_db


@pytest.fixture
def abandoned(settings) -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    stale = timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 5)
    return Run.objects.create(
        version=version, status=RunStatus.RUNNING, heartbeat=stale, attempts=1, claimed_by="dead:1"
    )


def test_it_requeues_an_abandoned_run_and_enqueues_it_after_commit(
    abandoned: Run, monkeypatch, django_capture_on_commit_callbacks
):
    from webui.tasks import execute_run

    sent = []
    monkeypatch.setattr(execute_run, "delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.recover_if_stale(abandoned)
    assert (run.status, run.claimed_by) == (RunStatus.QUEUED, "")
    assert sent == [abandoned.pk]


def test_it_fails_an_abandoned_run_that_used_up_its_attempts(abandoned: Run, settings):
    Run.objects.filter(pk=abandoned.pk).update(attempts=settings.SCHEDLAB_MAX_RUN_ATTEMPTS)
    abandoned.refresh_from_db()
    run = runs.recover_if_stale(abandoned)
    assert run.status == RunStatus.FAILED
    assert "stopped responding" in run.error and run.finished is not None


def test_it_leaves_a_run_with_a_fresh_heartbeat_alone(abandoned: Run):
    Run.objects.filter(pk=abandoned.pk).update(heartbeat=timezone.now())
    abandoned.refresh_from_db()
    assert runs.recover_if_stale(abandoned).status == RunStatus.RUNNING


def test_it_sweeps_every_stale_run(abandoned: Run, monkeypatch):
    from webui.tasks import execute_run

    monkeypatch.setattr(execute_run, "delay", lambda run_id: None)
    assert runs.sweep_stale_runs() == 1
    assert Run.objects.get(pk=abandoned.pk).status == RunStatus.QUEUED


# --- queued runs whose task message was lost ------------------------------------------------------


def queued_run(version: ScenarioVersion, age_seconds: float, enqueues: int = 1, attempts: int = 0) -> Run:
    queued_at = timezone.now() - timedelta(seconds=age_seconds)
    return Run.objects.create(
        version=version, status=RunStatus.QUEUED, queued_at=queued_at, enqueues=enqueues, attempts=attempts
    )


@pytest.fixture
def version() -> ScenarioVersion:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    return ScenarioVersion.objects.create(scenario=scenario, number=1, text="")


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    from webui.tasks import execute_run

    messages: list[int] = []
    monkeypatch.setattr(execute_run, "delay", messages.append)
    return messages


def test_it_sends_again_a_queued_run_the_idle_workers_never_claimed(
    version, settings, sent, django_capture_on_commit_callbacks
):
    lost = queued_run(version, settings.SCHEDLAB_QUEUED_STALE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.sweep_stale_runs() == 1
    lost.refresh_from_db()
    assert (lost.status, lost.enqueues, sent) == (RunStatus.QUEUED, 2, [lost.pk])
    assert lost.queued_at > timezone.now() - timedelta(seconds=5)


def test_it_sends_again_a_queued_run_that_a_later_run_overtook(
    version, settings, sent, django_capture_on_commit_callbacks
):
    stale = settings.SCHEDLAB_QUEUED_STALE_SECONDS
    lost = queued_run(version, stale + 30)
    later = queued_run(version, stale + 10)
    Run.objects.filter(pk=later.pk).update(
        status=RunStatus.RUNNING, started=timezone.now(), heartbeat=timezone.now(), attempts=1
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.sweep_stale_runs() == 1
    assert sent == [lost.pk]


def test_it_leaves_alone_a_queued_run_waiting_its_turn_behind_a_running_one(version, settings, sent):
    stale = settings.SCHEDLAB_QUEUED_STALE_SECONDS
    earlier = queued_run(version, stale + 30)
    Run.objects.filter(pk=earlier.pk).update(
        status=RunStatus.RUNNING, started=timezone.now(), heartbeat=timezone.now(), attempts=1
    )
    waiting = [queued_run(version, stale + 20), queued_run(version, stale + 10)]
    assert runs.sweep_stale_runs() == 0
    assert [runs.recover_if_stale(run).enqueues for run in waiting] == [1, 1]
    assert sent == []


def test_it_leaves_alone_a_run_queued_a_moment_ago(version, sent):
    fresh = queued_run(version, 1)
    assert runs.sweep_stale_runs() == 0
    assert runs.recover_if_stale(fresh).enqueues == 1 and sent == []


def test_it_fails_with_the_reason_a_queued_run_no_worker_could_start(version, settings, sent):
    tries = settings.SCHEDLAB_MAX_RUN_ATTEMPTS
    lost = queued_run(version, settings.SCHEDLAB_QUEUED_STALE_SECONDS + 1, enqueues=tries)
    run = runs.recover_if_stale(lost)
    assert run.status == RunStatus.FAILED and run.finished is not None
    assert run.error == (
        f"no worker could start it: its task was sent {tries} times without being claimed "
        "(SCHEDLAB_MAX_RUN_ATTEMPTS); the task queue or the database may be failing"
    )
    assert sent == []


# --- deleting while a worker writes ---------------------------------------------------------------


def test_it_cancels_the_runs_of_a_deleted_scenario_before_deleting_so_their_worker_writes_nothing(version, monkeypatch):
    """The race itself needs PostgreSQL and a real worker (test_service_reliability.py); here: the
    runs are cancelled first, on their own, and the worker's next write is refused."""
    version = ScenarioVersion.objects.create(scenario=version.scenario, number=2, text=support.scenario_text(3, 2))
    run = Run.objects.create(version=version, cycles=2)
    assert claims.claim(run.pk, "w")
    loaded = engine.load(version.text)
    writer = execution.writer_for(run, "w", loaded)
    events = iter(engine.simulate_events(loaded))
    writer.add(next(events))
    writer.flush()
    cancelled = []
    real_stop = runs._stop_active

    def record(found, reason):
        cancelled.append(list(found.filter(status__in=runs.ACTIVE_STATUSES).values_list("pk", flat=True)))
        return real_stop(found, reason)

    monkeypatch.setattr(runs, "_stop_active", record)
    runs.delete_scenario(version.scenario)
    assert cancelled == [[run.pk]]
    writer.add(next(events))
    with pytest.raises(execution.LostClaim):
        writer.flush()
    assert not Run.objects.filter(pk=run.pk).exists() and not RunSegment.objects.filter(run_id=run.pk).exists()


def test_a_run_starts_replayed_as_the_release_asked_of_the_version_asked():
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    first = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(2, 1))
    ScenarioVersion.objects.create(scenario=scenario, number=2, text=support.scenario_text(3, 2))
    actor = Actor(session_key="k")
    run = runs.start(actor, scenario, wanted=releases.Asked("v1.32", {"SchedulerAsyncPreemption": True}), version=first)
    assert (run.version_id, run.cycles, run.release, run.feature_gates) == (
        first.pk,
        1,
        "v1.32",
        {"SchedulerAsyncPreemption": True},
    )
    assert (
        run.release_choice["sentence"]
        == "replayed as kube-scheduler v1.32.13 with SchedulerAsyncPreemption=true (asked for)"
    )
    latest = runs.start(actor, scenario)
    assert (latest.version.number, latest.release, latest.feature_gates) == (2, "", None)
    assert latest.release_choice == engine.check(support.scenario_text(3, 2)).release


def test_an_upgrade_s_side_opens_as_a_run_of_its_version_with_exactly_the_release_s_defaults():
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(2, 1))
    upgrade = Upgrade.objects.create(version=version, old_release="v1.34", new_release="v1.35", owner_session_key="k")
    actor = Actor(session_key="k")
    old = runs.open_upgrade_side(actor, upgrade, "old")
    assert (old.release, old.feature_gates, old.version_id) == ("v1.34", {}, version.pk)
    upgrade.refresh_from_db()
    assert upgrade.old_run_id == old.pk and runs.open_upgrade_side(actor, upgrade, "old") == old
    with pytest.raises(DomainError, match="side is old or new"):
        runs.open_upgrade_side(actor, upgrade, "middle")
    unknown = Upgrade.objects.create(version=version, old_release="", new_release="v1.36", owner_session_key="k")
    with pytest.raises(DomainError, match="not known yet"):
        runs.open_upgrade_side(actor, unknown, "old")


def test_stopping_all_cancels_only_the_active_runs_among_those_found_with_the_reason():
    version = ScenarioVersion.objects.create(
        scenario=Scenario.objects.create(name="s", owner_session_key="k"), number=1
    )
    queued, running = Run.objects.create(version=version), Run.objects.create(version=version, status=RunStatus.RUNNING)
    done = Run.objects.create(version=version, status=RunStatus.SUCCEEDED)
    elsewhere = Run.objects.create(version=version)
    assert runs.stop_all(Run.objects.exclude(pk=elsewhere.pk), "its account was deleted") == 2
    for run in (queued, running):
        run.refresh_from_db()
        assert (run.status, run.error) == (RunStatus.CANCELLED, "its account was deleted") and run.finished
    assert Run.objects.get(pk=done.pk).status == RunStatus.SUCCEEDED
    assert Run.objects.get(pk=elsewhere.pk).status == RunStatus.QUEUED


def test_a_run_of_a_text_another_process_read_starts_with_its_names_and_otherwise_without(settings):
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    text = support.scenario_text(3, 2)
    ScenarioVersion.objects.create(scenario=scenario, number=1, text=text)
    actor = Actor(session_key="k")
    assert runs.start(actor, scenario).names_gz is None  # a small text: nobody keeps it on disk
    engine.forget_everything()
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0  # a big one: the check's process keeps it and its names
    run = runs.start(actor, scenario)
    assert bytes(run.names_gz) == engine.run_names_gz(engine.load(text))
    asked = runs.start(actor, scenario, wanted=releases.Asked("v1.33"))
    loaded = engine.load(text, releases.Asked("v1.33").request)
    assert bytes(asked.names_gz) == engine.run_names_gz(loaded)
