"""webui/celery.py: the Celery app reads its settings from Django's (CELERY_*), and each worker's
sweeper recovers abandoned runs and stalled capacity questions and survives a failing sweep (a
database hiccup must not kill it)."""

import logging

import pytest
from django.conf import settings

from webui import celery
from webui.services import capacity, runs


def test_the_app_takes_djangos_celery_settings():
    assert celery.app.main == "webui"
    assert celery.app.conf.broker_url == settings.CELERY_BROKER_URL


@pytest.mark.django_db  # the sweep closes the thread's old connections when it is done
def test_a_sweep_recovers_abandoned_runs_and_stalled_questions(monkeypatch):
    swept = []
    monkeypatch.setattr(runs, "sweep_stale_runs", lambda: swept.append("runs"))
    monkeypatch.setattr(capacity, "sweep_stale_questions", lambda: swept.append("questions"))
    celery._sweep()
    assert swept == ["runs", "questions"]


@pytest.mark.django_db
def test_a_failing_sweep_is_logged_and_the_sweeper_goes_on(monkeypatch, caplog):
    def broken():
        raise RuntimeError("database went away")

    monkeypatch.setattr(runs, "sweep_stale_runs", broken)
    swept = []
    monkeypatch.setattr(capacity, "sweep_stale_questions", lambda: swept.append("questions"))
    with caplog.at_level(logging.ERROR, logger="webui.celery"):
        celery._sweep()  # does not raise
    assert [record.message for record in caplog.records] == ["sweeping abandoned runs failed"]
    assert swept == ["questions"]  # a failing run sweep does not keep the questions' from running
