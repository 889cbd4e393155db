"""The worker's side of a run: claim it, beat (record progress), finish it.

Every change is a conditional UPDATE, so two workers (or a worker and a cancel) racing for the same
row cannot both win: "another worker got there first" is a normal outcome. Apart from the run
lifecycle (services/runs.py), which enqueues the task that calls these: no import cycle.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from webui.models import Run, RunStatus


def stale_before() -> datetime:
    """A running run whose last heartbeat is older than this was left behind by its worker."""
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS)


def claim(run_id: int, worker: str) -> bool:
    """queued -> running; or re-claim a running run whose worker stopped sending heartbeats."""
    claimable = Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, heartbeat__lt=stale_before())
    now = timezone.now()
    updated = Run.objects.filter(claimable, pk=run_id, attempts__lt=settings.SCHEDLAB_MAX_RUN_ATTEMPTS).update(
        status=RunStatus.RUNNING, claimed_by=worker, heartbeat=now, started=now, attempts=F("attempts") + 1
    )
    return bool(updated)


def beat(run_id: int, worker: str, *, cycle: int, event_count: int, stored_bytes: int = 0) -> bool:
    """Record progress; False when the run was cancelled or another worker took it over."""
    return bool(
        Run.objects.filter(pk=run_id, status=RunStatus.RUNNING, claimed_by=worker).update(
            heartbeat=timezone.now(), cycle=cycle, event_count=event_count, stored_bytes=stored_bytes
        )
    )


def finish(run_id: int, worker: str, status: RunStatus, error: str = "") -> bool:
    return bool(
        Run.objects.filter(pk=run_id, status=RunStatus.RUNNING, claimed_by=worker).update(
            status=status, error=error[:10_000], finished=timezone.now(), heartbeat=timezone.now()
        )
    )
