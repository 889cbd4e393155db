"""webui/celery.py: the Celery app reads its settings from Django's (CELERY_*), and each worker's
sweeper recovers abandoned runs and stalled capacity questions and survives a failing sweep (a
database hiccup must not kill it)."""

import logging

import pytest
from django.conf import settings

from celery.signals import worker_process_init

from webui import celery
from webui.services import capacity, engine, runs, upgrades


def test_the_app_takes_djangos_celery_settings():
    assert celery.app.main == "webui"
    assert celery.app.conf.broker_url == settings.CELERY_BROKER_URL


def test_upgrade_comparisons_and_capacity_questions_go_to_the_long_work_queue_and_runs_stay_on_the_default_one():
    """A capacity question held both default workers and a 4-node run failed unclaimed (issue 51 item 2)."""
    router = celery.app.amqp.router
    long_tasks = ("compare_upgrade", "advance_capacity", "run_capacity_trial", "read_upload")  # read_upload: issue 50
    for long in (f"webui.tasks.{task}" for task in long_tasks):
        assert router.route({}, long)["queue"].name == settings.SCHEDLAB_LONG_QUEUE == "long"
    assert router.route({}, "webui.tasks.execute_run")["queue"].name == "celery"


@pytest.mark.django_db  # the sweep closes the thread's old connections when it is done
def test_a_sweep_recovers_abandoned_runs_and_stalled_questions(monkeypatch):
    swept = []
    monkeypatch.setattr(runs, "sweep_stale_runs", lambda: swept.append("runs"))
    monkeypatch.setattr(capacity, "sweep_stale_questions", lambda: swept.append("questions"))
    monkeypatch.setattr(upgrades, "sweep_stale_upgrades", lambda: swept.append("upgrades"))
    celery._sweep()
    assert swept == ["runs", "questions", "upgrades"]


@pytest.mark.django_db
def test_a_failing_sweep_is_logged_and_the_sweeper_goes_on(monkeypatch, caplog):
    def broken():
        raise RuntimeError("database went away")

    monkeypatch.setattr(runs, "sweep_stale_runs", broken)
    swept = []
    monkeypatch.setattr(capacity, "sweep_stale_questions", lambda: swept.append("questions"))
    monkeypatch.setattr(upgrades, "sweep_stale_upgrades", broken)
    with caplog.at_level(logging.ERROR, logger="webui.celery"):
        celery._sweep()  # does not raise
    assert [record.message for record in caplog.records] == [
        "sweeping abandoned runs failed",
        "sweeping stalled upgrade comparisons failed",
    ]
    assert swept == ["questions"]  # a failing run sweep does not keep the questions' from running


def test_a_pool_process_may_fork_to_read_a_big_dump_and_the_web_process_never_does(monkeypatch):
    monkeypatch.setattr(engine, "_reading_may_fork", False)  # as in any process until a worker's starts
    celery._let_reading_fork()  # what worker_process_init calls in each pool process
    assert engine._reading_may_fork is True
    assert celery._let_reading_fork in [receiver() for _, receiver in worker_process_init.receivers]
