"""Run lifecycle: start, claim, heartbeat, finish, cancel, and recovery of runs a dead worker left.

Every state change is a conditional UPDATE, so two workers (or a worker and a cancel) racing for
the same row cannot both win: "another worker got there first" is a normal outcome.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from webui.models import FINISHED_STATUSES, Run, RunEvent, RunStatus, Scenario
from webui.services import engine, scenarios
from webui.services.access import Actor
from webui.services.errors import Conflict, LimitExceeded

log = logging.getLogger(__name__)
ACTIVE_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)


def start(actor: Actor, scenario: Scenario) -> Run:
    version = scenarios.latest_version(scenario)
    check = engine.check(version.text)
    check.raise_if_invalid()  # 413 limit_exceeded for a size limit, else 400 scenario_invalid
    with transaction.atomic():
        _enforce_queue_limit(actor)
        run = Run.objects.create(version=version, cycles=check.summary.pendingPods, **actor.owner_fields())
        _enqueue_on_commit(run.pk)
    return run


def _enforce_queue_limit(actor: Actor) -> None:
    limit = settings.SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER
    if Run.objects.filter(actor.owned_q(), status__in=ACTIVE_STATUSES).count() >= limit:
        message = f"you already have {limit} runs queued or running; the limit (SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER) is {limit}"
        raise LimitExceeded("max_queued_runs_per_owner", limit, message, status=429)


def _enqueue_on_commit(run_id: int) -> None:
    from webui.tasks import execute_run  # tasks import services; import here to avoid the cycle

    execute_run.delay_on_commit(run_id)


def cancel(run: Run) -> Run:
    updated = Run.objects.filter(pk=run.pk, status__in=ACTIVE_STATUSES).update(
        status=RunStatus.CANCELLED, finished=timezone.now(), error="cancelled by the owner"
    )
    if not updated:
        raise Conflict(f"run {run.pk} already finished ({Run.objects.get(pk=run.pk).status})")
    return Run.objects.get(pk=run.pk)


def listing(actor: Actor, scenario: Scenario | None = None) -> QuerySet[Run]:
    runs = Run.objects.select_related("version__scenario")
    if scenario is not None:
        return runs.filter(version__scenario=scenario)
    return runs.filter(actor.owned_q())


# --- worker side --------------------------------------------------------------------------------


def _stale_before():
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS)


def claim(run_id: int, worker: str) -> bool:
    """queued -> running; or re-claim a running run whose worker stopped sending heartbeats."""
    claimable = Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, heartbeat__lt=_stale_before())
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


def stored_event_count(run_id: int) -> int:
    # Batches are written in order inside transactions, so the stored seqs are always 0..count-1.
    return RunEvent.objects.filter(run_id=run_id).count()


# --- recovery -------------------------------------------------------------------------------------


def recover_if_stale(run: Run) -> Run:
    """At-read sweep: a running run without a recent heartbeat is re-queued or failed, never stuck."""
    if run.status != RunStatus.RUNNING or run.heartbeat is None or run.heartbeat >= _stale_before():
        return run
    if run.attempts < settings.SCHEDLAB_MAX_RUN_ATTEMPTS:
        _requeue(run)
    else:
        _fail_abandoned(run)
    run.refresh_from_db()
    return run


def _requeue(run: Run) -> None:
    with transaction.atomic():
        requeued = Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING, heartbeat=run.heartbeat).update(
            status=RunStatus.QUEUED, claimed_by=""
        )
        if requeued:
            log.warning("run %s: worker %s stopped responding; re-queued", run.pk, run.claimed_by)
            _enqueue_on_commit(run.pk)


def _fail_abandoned(run: Run) -> None:
    message = (
        f"the worker running it stopped responding (no heartbeat for {settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS:g} s) "
        f"and it was already tried {run.attempts} times (SCHEDLAB_MAX_RUN_ATTEMPTS)"
    )
    Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING, heartbeat=run.heartbeat).update(
        status=RunStatus.FAILED, error=message, finished=timezone.now()
    )


def sweep_stale_runs() -> int:
    stale = list(Run.objects.filter(status=RunStatus.RUNNING, heartbeat__lt=_stale_before()))
    for run in stale:
        recover_if_stale(run)
    return len(stale)


def is_finished(status: str) -> bool:
    return status in FINISHED_STATUSES
