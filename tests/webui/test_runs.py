"""webui.services.runs: recovery of runs a dead worker left behind."""

from datetime import timedelta

import pytest
from django.utils import timezone

from webui.models import Run, RunStatus, Scenario, ScenarioVersion
from webui.services import runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def abandoned(settings) -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    stale = timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 5)
    return Run.objects.create(version=version, status=RunStatus.RUNNING, heartbeat=stale, attempts=1, claimed_by="dead:1")


def test_it_requeues_an_abandoned_run_and_enqueues_it_after_commit(abandoned: Run, monkeypatch, django_capture_on_commit_callbacks):
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
