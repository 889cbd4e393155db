"""services/claims.py: the worker's side of a run — one claimant at a time, heartbeats and the
finish only from the claimant, a stale run taken over."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from webui.models import Run, RunStatus, Scenario, ScenarioVersion
from webui.services import claims

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued() -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    return Run.objects.create(version=version)


def test_only_the_first_worker_claims_a_queued_run(queued: Run):
    assert (claims.claim(queued.pk, "a"), claims.claim(queued.pk, "b")) == (True, False)
    queued.refresh_from_db()
    assert (queued.status, queued.claimed_by, queued.attempts) == (RunStatus.RUNNING, "a", 1)


def test_a_run_whose_heartbeat_went_stale_is_taken_over(queued: Run, settings):
    claims.claim(queued.pk, "dead")
    stale = timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 1)
    Run.objects.filter(pk=queued.pk).update(heartbeat=stale)
    assert claims.claim(queued.pk, "alive")
    queued.refresh_from_db()
    assert (queued.claimed_by, queued.attempts) == ("alive", 2)


def test_a_run_out_of_attempts_is_not_claimed(queued: Run, settings):
    Run.objects.filter(pk=queued.pk).update(attempts=settings.SCHEDLAB_MAX_RUN_ATTEMPTS)
    assert not claims.claim(queued.pk, "a")


def test_heartbeats_record_progress_until_the_run_is_cancelled(queued: Run):
    claims.claim(queued.pk, "a")
    assert claims.beat(queued.pk, "a", cycle=3, event_count=40, stored_bytes=900)
    queued.refresh_from_db()
    assert (queued.cycle, queued.event_count, queued.stored_bytes) == (3, 40, 900)
    assert not claims.beat(queued.pk, "b", cycle=4, event_count=50), "another worker's beat does not count"
    Run.objects.filter(pk=queued.pk).update(status=RunStatus.CANCELLED)
    assert not claims.beat(queued.pk, "a", cycle=4, event_count=50)


def test_only_the_claimant_finishes_a_run_and_long_errors_are_cut(queued: Run):
    claims.claim(queued.pk, "a")
    assert not claims.finish(queued.pk, "b", RunStatus.SUCCEEDED)
    assert claims.finish(queued.pk, "a", RunStatus.FAILED, "x" * 20_000)
    queued.refresh_from_db()
    assert (queued.status, len(queued.error), queued.finished is not None) == (RunStatus.FAILED, 10_000, True)
