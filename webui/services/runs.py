"""Run lifecycle: start, cancel, delete, and recovery of runs that a dead worker left running or
whose task message was lost. The worker's own side (claim, heartbeat, finish) is services/claims.py.

Every state change is a conditional UPDATE, so two workers (or a worker and a cancel) racing for
the same row cannot both win: "another worker got there first" is a normal outcome.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Q, QuerySet
from django.utils import timezone

from webui.models import (
    FINISHED_STATUSES,
    Run,
    RunMode,
    RunStatus,
    Scenario,
    ScenarioVersion,
    Upgrade,
    forget_unused_pieces,
    pieces_of,
)
from webui.services import access, engine, releases, scenarios
from webui.services.claims import stale_before
from webui.services.access import Actor
from webui.services.errors import Conflict, DomainError, LimitExceeded
from webui.tasks import execute_run

log = logging.getLogger(__name__)
ACTIVE_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)
# pg_advisory_xact_lock key serializing run starts, so two starts cannot both pass a limit check
# (SQLite needs none: its IMMEDIATE transactions already take the write lock up front).
RUN_START_LOCK = 0x5C4ED1AB
CANCELLED_BY_OWNER = "cancelled by the owner"
DELETED_WHILE_ACTIVE = "deleted while it was queued or running"


# --- starting -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueLimit:
    """One bound on the runs queued or running at once, answered with 429 naming it."""

    name: str  # the API's details.limit
    setting: str
    counted: Callable[[Actor], Q | None]  # the runs it counts for this actor; None: not applicable
    whose: str  # completes "... already has N runs queued or running"

    @property
    def maximum(self) -> int:
        value: int = getattr(settings, self.setting)
        return value

    def check(self, actor: Actor) -> None:
        scope = self.counted(actor)
        if scope is None:
            return
        active = Run.objects.filter(scope, status__in=ACTIVE_STATUSES).count()
        if active >= self.maximum:
            message = (
                f"{self.whose} already {active} runs queued or running; the limit ({self.setting}) is {self.maximum}"
            )
            raise LimitExceeded(
                self.name, self.maximum, message, status=429, retry_after=settings.SCHEDLAB_RETRY_AFTER_SECONDS
            )


QUEUE_LIMITS = (
    QueueLimit(
        "max_queued_runs_per_owner", "SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER", lambda actor: actor.started_q(), "you have"
    ),
    QueueLimit(
        "max_queued_runs_per_address",
        "SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS",
        lambda actor: Q(client_address=actor.address) if actor.address else None,
        "your network address has",
    ),
    QueueLimit("max_queued_runs", "SCHEDLAB_MAX_QUEUED_RUNS", lambda actor: Q(), "the server has"),
)


def start(
    actor: Actor,
    scenario: Scenario,
    mode: str = RunMode.TIMELINE,
    wanted: releases.Asked = releases.AS_THE_DUMP_SAYS,
    version: ScenarioVersion | None = None,
) -> Run:
    """Queue a run of ``version`` (default: the latest) replayed as the release ``wanted`` (default: as
    the dump says); the choice is the run's, the text stays as it is."""
    version = version or scenarios.latest_version(scenario)
    check = releases.checked(version.text, wanted)  # 400 release_invalid for a refused release or gate
    check.raise_if_invalid()  # 413 limit_exceeded for a size limit, else 400 scenario_invalid
    with transaction.atomic():
        _serialize_starts()
        for limit in QUEUE_LIMITS:
            limit.check(actor)
        run = Run.objects.create(
            version=version,
            mode=mode,
            cycles=check.valid_summary.pending_pods,
            client_address=actor.address,
            enqueues=1,
            release=wanted.release,
            feature_gates=wanted.gates,
            release_choice=check.release,
            # the names its view reads first, when the process that checked the text kept them
            names_gz=engine.kept_run_names(version.digest, wanted.request),
            **actor.owner_fields(),
        )
        _enqueue_on_commit(run.pk)
    return run


def _serialize_starts() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RUN_START_LOCK])


def _enqueue_on_commit(run_id: int) -> None:
    # robust: a broker that is down must not turn a committed run into an error answer; the run
    # stays queued and the recovery sweep sends its message again.
    transaction.on_commit(lambda: _send_task(run_id), robust=True)


def _send_task(run_id: int) -> None:
    execute_run.delay(run_id)


# --- an upgrade comparison's sides (services/upgrades.py) -----------------------------------------

UPGRADE_SIDES = ("old", "new")


def open_upgrade_side(actor: Actor, upgrade: Upgrade, side: str) -> Run:
    """Either release of the comparison as a normal run of the same version (made once, then
    reused while you may read it): the release and gates the comparison replayed that side with."""
    if side not in UPGRADE_SIDES:
        raise DomainError(f"side is old or new, not {side!r}", {"field": "side"})
    existing = upgrade.old_run if side == "old" else upgrade.new_run
    if existing is not None and access.can_read_run(actor, existing):
        return existing
    release = upgrade.old_release if side == "old" else upgrade.new_release
    if not release:
        raise DomainError("the scenario's own release is not known yet: wait for the comparison to start")
    scenario = access.runnable_scenario(actor, upgrade.version.scenario_id)
    # {} rather than None: exactly the release's defaults, as compare_releases replayed it (None
    # would take the gates of the dump's kube-scheduler).
    wanted = releases.Asked(release, upgrade.feature_gates or {})
    run = start(actor, scenario, RunMode.TIMELINE, wanted, version=upgrade.version)
    Upgrade.objects.filter(pk=upgrade.pk).update(**{f"{side}_run": run})
    return run


# --- owner actions --------------------------------------------------------------------------------


def cancel(run: Run) -> Run:
    if not _stop_active(Run.objects.filter(pk=run.pk), CANCELLED_BY_OWNER):
        raise Conflict(f"run {run.pk} already finished ({Run.objects.get(pk=run.pk).status})")
    return Run.objects.get(pk=run.pk)


def _stop_active(found: QuerySet[Run], reason: str) -> int:
    """Cancel the active runs among `found`. Once this commits, their workers' next heartbeat fails
    and they stop without writing another event (events are written with the heartbeat, in one
    transaction that needs the run still running and theirs)."""
    return found.filter(status__in=ACTIVE_STATUSES).update(
        status=RunStatus.CANCELLED, finished=timezone.now(), error=reason
    )


def stop_all(found: QuerySet[Run], reason: str) -> int:
    """Cancel the active runs among ``found``, committed before they are deleted (as delete_scenario does
    for one scenario's): an account's, when it is deleted (services/accounts.py)."""
    return _stop_active(found, reason)


def delete(run: Run) -> None:
    """Cancel it first, then delete it with its events: see delete_scenario."""
    _stop_active(Run.objects.filter(pk=run.pk), DELETED_WHILE_ACTIVE)
    Run.objects.filter(pk=run.pk).delete()


def delete_scenario(scenario: Scenario) -> None:
    """Cancel its runs in a transaction of their own, then delete everything.

    Deleting a running run at once would race its worker: an event batch committed after the
    cascade's DELETE of the events but before the run's DELETE breaks the event -> run foreign key
    (PostgreSQL checks it at commit: a 500). After the cancel commits no batch can be written."""
    _stop_active(Run.objects.filter(version__scenario=scenario), DELETED_WHILE_ACTIVE)
    with transaction.atomic():
        held = pieces_of(ScenarioVersion.objects.filter(scenario=scenario))
        scenario.delete()
        forget_unused_pieces(held)  # its texts' pieces that no other version shares


def listing(actor: Actor, scenario: Scenario | None = None) -> QuerySet[Run]:
    runs = Run.objects.select_related("version__scenario")
    if scenario is not None:
        return runs.filter(version__scenario=scenario)
    return runs.filter(actor.owned_q())


# --- recovery -------------------------------------------------------------------------------------
# One recovery for every way a run can be left behind, run by each worker at start and every
# SCHEDLAB_RECOVERY_SWEEP_SECONDS (celery.py), and for a single run whenever someone reads it:
# - running, but its worker stopped sending heartbeats (killed, machine gone): queued again;
# - queued, but its task message is gone (never sent because the broker was down, lost with the
#   broker, or its task failed before claiming it, e.g. a database error): sent again.
# Either way a run is failed with the reason once SCHEDLAB_MAX_RUN_ATTEMPTS tries are used up.


def recover_if_stale(run: Run) -> Run:
    """At-read sweep: a run left behind is queued again or failed, never stuck."""
    if _is_abandoned(run):
        _recover_abandoned(run)
    elif _is_lost(run):
        _recover_lost(run)
    else:
        return run
    run.refresh_from_db()
    return run


def _is_abandoned(run: Run) -> bool:
    return run.status == RunStatus.RUNNING and run.heartbeat is not None and run.heartbeat < stale_before()


def _recover_abandoned(run: Run) -> None:
    if run.attempts < settings.SCHEDLAB_MAX_RUN_ATTEMPTS:
        _requeue_abandoned(run)
    else:
        _fail_abandoned(run)


def _requeue_abandoned(run: Run) -> None:
    with transaction.atomic():
        requeued = Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING, heartbeat=run.heartbeat).update(
            status=RunStatus.QUEUED, claimed_by="", queued_at=timezone.now(), enqueues=F("enqueues") + 1
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


def _lost_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS)


@dataclass(frozen=True)
class QueueProgress:
    """How far the workers got through the task queue, to tell a lost message from a long queue.

    The broker hands messages out in order, so a run still waiting behind others is left alone. Its
    message is gone when a run queued after it was already claimed, or when no run is running at
    all (the workers sit idle) - SCHEDLAB_QUEUED_STALE_SECONDS after its message was sent, so that a
    worker that just fetched it has time to claim it."""

    newest_claimed: datetime | None  # queued_at of the last-queued run claimed since it was queued
    idle: bool

    def lost(self, run: Run) -> bool:
        if run.status != RunStatus.QUEUED or run.queued_at >= _lost_before():
            return False
        return self.idle or (self.newest_claimed is not None and self.newest_claimed > run.queued_at)


def queue_progress(since: datetime) -> QueueProgress:
    """Only runs queued after `since` (the oldest one in question) matter: the index bounds the scan."""
    claimed = Run.objects.filter(queued_at__gt=since, started__gte=F("queued_at")).aggregate(newest=Max("queued_at"))
    return QueueProgress(claimed["newest"], idle=not Run.objects.filter(status=RunStatus.RUNNING).exists())


def _is_lost(run: Run) -> bool:
    if run.status != RunStatus.QUEUED or run.queued_at >= _lost_before():
        return False  # the common case answers without a query
    return queue_progress(run.queued_at).lost(run)


def _recover_lost(run: Run) -> None:
    sent_unclaimed = run.enqueues - run.attempts
    if sent_unclaimed < settings.SCHEDLAB_MAX_RUN_ATTEMPTS:
        _resend_lost(run)
    else:
        _fail_lost(run, sent_unclaimed)


def _resend_lost(run: Run) -> None:
    with transaction.atomic():
        resent = Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED, queued_at=run.queued_at).update(
            queued_at=timezone.now(), enqueues=F("enqueues") + 1
        )
        if resent:
            log.warning(
                "run %s: still queued %s after its task was sent; sending it again",
                run.pk,
                timezone.now() - run.queued_at,
            )
            _enqueue_on_commit(run.pk)


def _fail_lost(run: Run, sent_unclaimed: int) -> None:
    message = (
        f"no worker could start it: its task was sent {sent_unclaimed} times without being claimed "
        f"(SCHEDLAB_MAX_RUN_ATTEMPTS); the task queue or the database may be failing"
    )
    Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED, queued_at=run.queued_at).update(
        status=RunStatus.FAILED, error=message, finished=timezone.now()
    )
    log.error("run %s: %s", run.pk, message)


def sweep_stale_runs() -> int:
    """Recover every run left behind; returns how many were found."""
    abandoned = list(Run.objects.filter(status=RunStatus.RUNNING, heartbeat__lt=stale_before()))
    waiting = list(Run.objects.filter(status=RunStatus.QUEUED, queued_at__lt=_lost_before()).order_by("queued_at"))
    progress = queue_progress(waiting[0].queued_at) if waiting else None
    lost = [run for run in waiting if progress.lost(run)] if progress is not None else []
    for run in abandoned:
        _recover_abandoned(run)
    for run in lost:
        _recover_lost(run)
    return len(abandoned) + len(lost)


def is_finished(status: str) -> bool:
    return status in FINISHED_STATUSES
