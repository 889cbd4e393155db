"""What changes if we upgrade (issue 48): a scenario version run to the end under two releases and
every difference traced to the release change behind it — the engine's answer
(scheduler_core.answers.upgrade.compare_releases, through services/engine.py). This module stores
and dispatches; the workers compute:

- ``ask`` saves one comparison (from the release the scenario is replayed as — the dump's, or the
  run's it was asked from — to the next newer supported release, unless told otherwise) and sends
  ``compare_upgrade`` to the long-work queue (settings.CELERY_TASK_ROUTES), so it never holds the
  workers short runs wait for;
- ``fleet`` saves a fleet check: one comparison per scenario, each from that scenario's own release
  (found by the worker when it loads it) to one target, sent as one Celery group;
- ``execute`` (the task) claims a comparison, runs it, writes its progress as compare_releases
  reports it (and a heartbeat every engine.UPGRADE_CHECK_EVENTS events, when it also learns of a
  cancel) and stores the engine's UpgradeComparison and its counts;
- ``cancel`` / ``cancel_fleet`` stop them; ``sweep_stale_upgrades`` / ``recover_if_stale`` send
  again what a dead worker or a lost message left behind, or fail it after SCHEDLAB_MAX_RUN_ATTEMPTS;
- either release opens as a normal run of the same version (services/runs.py, ``open_upgrade_side``:
  runs start there, and webui.tasks imports this module).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app, group, signature
from celery.result import GroupResult
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from webui import publisher
from webui.models import FleetCheck, Run, Scenario, Upgrade, UpgradeStatus
from webui.services import access, engine, releases, scenarios
from webui.services.access import Actor
from webui.services.errors import Conflict, DomainError, LimitExceeded, NotFound, ReadOnlyShare, ReleaseInvalid

log = logging.getLogger(__name__)

UPGRADE_TASK = "webui.tasks.compare_upgrade"  # sent by name: webui.tasks imports this module
ACTIVE = (UpgradeStatus.QUEUED, UpgradeStatus.RUNNING)
CANCELLED_BY_OWNER = "cancelled by the owner"
FLEET_LISTED = 20


# --- asking ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wanted:
    """What the API was asked: the releases by name ("" = the default: from the release the scenario
    is replayed as, to the next newer supported one) and --feature-gates for both sides."""

    old: str = ""
    new: str = ""
    gates: str | dict[str, bool] | None = None


def ask(
    actor: Actor, scenario: Scenario, wanted: Wanted, version: int | None = None, from_run: Run | None = None
) -> Upgrade:
    """Save a comparison of ``version`` (the latest by default; a run's own version when asked from
    a run) and send it to the long-work queue. 400 when a release or gate is refused, when the
    version does not validate, or when there is no newer release to upgrade to."""
    source = from_run.version if from_run is not None else scenarios.visible_version(actor, scenario, version)
    engine.check(source.text).raise_if_invalid()
    gates = releases.asked(None, wanted.gates).gates
    if gates is None and from_run is not None:
        gates = from_run.feature_gates  # the run's own gates, unless others are asked
    loaded = engine.load_valid(source.text)
    old = _from_release(loaded, wanted, from_run)
    new = engine.asked_release(wanted.new) if wanted.new else engine.next_release(old)
    if new is None:
        raise ReleaseInvalid("to", [f"{old.name} is the newest supported release: choose an older one to upgrade from"])
    if new == old:
        raise ReleaseInvalid("to", [f"from and to are the same release ({old.name}): nothing would change"])
    engine.check_gates(old, gates)
    engine.check_gates(new, gates)
    if from_run is not None and from_run.release_choice and not wanted.old:
        choice = from_run.release_choice  # as the run was replayed, and why
    else:  # the dump's own choice when it is the release compared from, else that release asked for
        asked_old = "" if old == engine.replayed_release(loaded) else old.name
        choice = engine.release_choice(loaded, releases.Asked(asked_old, gates).request)
    with transaction.atomic():
        _within_limit(actor, 1)
        upgrade = Upgrade.objects.create(
            version=source,
            old_release=old.name,
            new_release=new.name,
            feature_gates=gates,
            release_choice=choice,
            enqueues=1,
            **actor.owner_fields(),
        )
        transaction.on_commit(lambda: _send(upgrade.pk), robust=True)
    return upgrade


def _from_release(loaded: engine.Scenario, wanted: Wanted, from_run: Run | None) -> engine.Release:
    if wanted.old:
        return engine.asked_release(wanted.old)
    if from_run is not None and from_run.release_choice:
        return engine.release_of_json(from_run.release_choice)
    return engine.replayed_release(loaded)


def fleet(actor: Actor, scenario_ids: list[int], target: str, gates: str | dict[str, bool] | None = None) -> FleetCheck:
    """A fleet check: each scenario (its latest version) compared from its own release to ``target``,
    one comparison per scenario sent together as a Celery group. A scenario already replayed as the
    target (or newer) is said so; one that does not validate fails with its problems."""
    wanted = list(dict.fromkeys(scenario_ids))  # each once, in the order given
    if not wanted:
        raise DomainError("choose at least one scenario to check", {"field": "scenarios"})
    most = settings.SCHEDLAB_MAX_FLEET_SCENARIOS
    if len(wanted) > most:
        raise LimitExceeded(
            "max_fleet_scenarios",
            most,
            f"a fleet check holds at most {most} scenarios (SCHEDLAB_MAX_FLEET_SCENARIOS); {len(wanted)} were chosen",
        )
    to = engine.asked_release(target)
    asked_gates = releases.asked(None, gates).gates
    engine.check_gates(to, asked_gates)
    chosen = [access.readable_scenario(actor, pk) for pk in wanted]
    with transaction.atomic():
        _within_limit(actor, len(chosen))
        check = FleetCheck.objects.create(target=to.name, feature_gates=asked_gates, **actor.owner_fields())
        rows = [
            Upgrade.objects.create(
                version=scenarios.latest_version(scenario),
                fleet=check,
                old_release="",  # the scenario's own release: the worker reads it when it loads the scenario
                new_release=to.name,
                feature_gates=asked_gates,
                enqueues=1,
                **actor.owner_fields(),
            )
            for scenario in chosen
        ]
        ids = [row.pk for row in rows]
        transaction.on_commit(lambda: _dispatch(ids), robust=True)
    return check


def _within_limit(actor: Actor, adding: int) -> None:
    most = settings.SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER
    active = Upgrade.objects.filter(actor.started_q(), status__in=ACTIVE).count()
    if active + adding > most:
        raise LimitExceeded(
            "max_queued_upgrades_per_owner",
            most,
            f"you have {active} upgrade comparisons queued or running and asked for {adding} more; the limit "
            f"(SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER) is {most}",
            status=429,
            retry_after=settings.SCHEDLAB_RETRY_AFTER_SECONDS,
        )


def _send(upgrade_id: int) -> None:
    sent = current_app.send_task(UPGRADE_TASK, args=[upgrade_id])  # routed to the long-work queue
    Upgrade.objects.filter(pk=upgrade_id).update(task_id=sent.id)


def _dispatch(upgrade_ids: list[int]) -> None:
    """A fleet check's comparisons as one Celery group: each goes to whichever long-work worker is free."""
    sent = group(signature(UPGRADE_TASK, args=(pk,), immutable=True) for pk in upgrade_ids).apply_async()
    assert isinstance(sent, GroupResult)  # a group's result (Celery's stubs type it as one task's)
    for pk, result in zip(upgrade_ids, sent.results or []):
        Upgrade.objects.filter(pk=pk).update(task_id=result.id)


# --- reading --------------------------------------------------------------------------------------


def readable_upgrade(actor: Actor, upgrade_id: int) -> Upgrade:
    """The asker's, or the one a share link was made for (read-only)."""
    found = Upgrade.objects.select_related("version__scenario", "old_run", "new_run").filter(pk=upgrade_id).first()
    if found is None or not _can_read(actor, found):
        raise NotFound(f"upgrade comparison {upgrade_id} not found")
    return found


def _can_read(actor: Actor, upgrade: Upgrade) -> bool:
    if actor.share is not None:
        return actor.share.upgrade_id == upgrade.pk
    return actor.owns(upgrade)


def writable_upgrade(actor: Actor, upgrade_id: int) -> Upgrade:
    found = readable_upgrade(actor, upgrade_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    return found


def readable_fleet(actor: Actor, fleet_id: int) -> FleetCheck:
    """Fleet checks are their asker's (each row's comparison may be shared on its own)."""
    found = FleetCheck.objects.filter(pk=fleet_id).first()
    if found is None or actor.share is not None or not actor.owns(found):
        raise NotFound(f"fleet check {fleet_id} not found")
    return found


def listing(actor: Actor, scenario: Scenario) -> QuerySet[Upgrade]:
    return Upgrade.objects.filter(actor.owned_q(), version__scenario=scenario).select_related("version")


def fleets(actor: Actor) -> QuerySet[FleetCheck]:
    return FleetCheck.objects.filter(actor.owned_q())


def rows(check: FleetCheck) -> list[Upgrade]:
    """A fleet check's comparisons in the order the scenarios were chosen."""
    return list(check.upgrades.select_related("version__scenario").order_by("pk"))


def causes(upgrade: Upgrade) -> list[dict[str, str]]:
    """The release changes that do something on this cluster (UpgradeCounts.causes), each with the
    engine's sentence of what it is (from the stored answer)."""
    if not upgrade.counts or not upgrade.answer:
        return []
    sentences = {change["name"]: change["sentence"] for change in upgrade.answer.get("changes", [])}
    return [{"name": name, "sentence": sentences.get(name, "")} for name in upgrade.counts.get("causes", [])]


# --- the worker side ------------------------------------------------------------------------------


class _Stopped(Exception):
    """The comparison was cancelled, failed, or taken over by another worker: stop running it."""


def execute(upgrade_id: int, worker: str) -> str:
    """Run a queued comparison to its answer (the task's body)."""
    claimed = Upgrade.objects.filter(pk=upgrade_id, status=UpgradeStatus.QUEUED).update(
        status=UpgradeStatus.RUNNING,
        claimed_by=worker,
        heartbeat=timezone.now(),
        started=timezone.now(),
        attempts=F("attempts") + 1,
    )
    if not claimed:
        return "not claimed (finished, cancelled, running elsewhere or deleted)"
    row = Upgrade.objects.select_related("version").get(pk=upgrade_id)
    mine = Upgrade.objects.filter(pk=upgrade_id, status=UpgradeStatus.RUNNING, claimed_by=worker)

    def told(done: int, total: int, what: str) -> None:
        if not mine.update(done=done, total=total, what=what[:300], heartbeat=timezone.now()):
            raise _Stopped
        publisher.publish_upgrade(upgrade_id, row.fleet_id)

    def still_wanted() -> None:
        if not mine.update(heartbeat=timezone.now()):
            raise _Stopped

    try:
        outcome = _compare(row, mine, told, still_wanted)
    except _Stopped:
        log.info("upgrade %s: cancelled or taken over; stopping", upgrade_id)
        return "stopped"
    except DatabaseError as exc:  # not the comparison's fault: recovery sends it again
        log.warning("upgrade %s: database error, leaving it to recovery: %s: %s", upgrade_id, type(exc).__name__, exc)
        return "left to recovery"
    except engine.ScenarioInvalid as exc:
        outcome = _finish(mine, UpgradeStatus.FAILED, error=_invalid(exc))
    except engine.TooManyEvents:
        limit = settings.SCHEDLAB_MAX_EVENTS_PER_RUN
        message = f"a run of the comparison produced more than {limit} events (limit SCHEDLAB_MAX_EVENTS_PER_RUN)"
        outcome = _finish(mine, UpgradeStatus.FAILED, error=message)
    except DomainError as exc:  # a release or gate the scenario's release refuses
        outcome = _finish(mine, UpgradeStatus.FAILED, error=exc.message)
    except Exception as exc:  # an engine bug fails the comparison visibly, never leaves it running
        log.exception("upgrade %s failed", upgrade_id)
        outcome = _finish(mine, UpgradeStatus.FAILED, error=f"the comparison failed: {type(exc).__name__}: {exc}")
    publisher.publish_upgrade(upgrade_id, row.fleet_id)
    return f"upgrade {upgrade_id}: {outcome}"


def _compare(row: Upgrade, mine: QuerySet[Upgrade], told: engine.UpgradeProgress, still_wanted: Any) -> str:
    loaded = engine.load(row.version.text)
    new = engine.asked_release(row.new_release)
    if row.old_release:
        old = engine.asked_release(row.old_release)
    else:  # a fleet check's scenario: from its own release, said as the dump says it
        old = engine.replayed_release(loaded)
        choice = engine.release_choice(loaded, releases.Asked("", row.feature_gates).request)
        if not mine.update(old_release=old.name, release_choice=choice):
            raise _Stopped
        if old.minor >= new.minor:
            return _finish(
                mine,
                UpgradeStatus.SKIPPED,
                error=f"already replayed as {old.version} ({choice['sentence']}): nothing to upgrade to {new.name}",
            )
    engine.check_gates(old, row.feature_gates)
    engine.check_gates(new, row.feature_gates)
    result = engine.compare_upgrade(
        loaded,
        old,
        new,
        row.feature_gates,
        progress=told,
        still_wanted=still_wanted,
        max_events=settings.SCHEDLAB_MAX_EVENTS_PER_RUN,
    )
    return _finish(
        mine,
        UpgradeStatus.SUCCEEDED,
        answer=result.to_json(),
        counts=engine.upgrade_counts(result).to_json(),
        done=F("total"),
    )


def _finish(mine: QuerySet[Upgrade], status: UpgradeStatus, **fields: Any) -> str:
    if not mine.update(status=status, finished=timezone.now(), **fields):
        raise _Stopped
    return str(status)


def _invalid(exc: engine.ScenarioInvalid) -> str:
    problems = "; ".join(str(error) for error in exc.errors[:5])
    more = f" (and {len(exc.errors) - 5} more)" if len(exc.errors) > 5 else ""
    return f"the scenario does not validate: {problems}{more}"


# --- owner actions --------------------------------------------------------------------------------


def cancel(upgrade: Upgrade) -> Upgrade:
    """Stop it (a worker running it stops at its next report or heartbeat); 409 once finished."""
    if not _stop(Upgrade.objects.filter(pk=upgrade.pk)):
        raise Conflict(
            f"upgrade comparison {upgrade.pk} already finished ({Upgrade.objects.get(pk=upgrade.pk).status})"
        )
    publisher.publish_upgrade(upgrade.pk, upgrade.fleet_id)
    return Upgrade.objects.get(pk=upgrade.pk)


def cancel_fleet(check: FleetCheck) -> FleetCheck:
    """Stop every comparison of the check still queued or running; 409 when none is."""
    if not _stop(check.upgrades.all()):
        raise Conflict(f"fleet check {check.pk} already finished")
    for pk in check.upgrades.values_list("pk", flat=True):
        publisher.publish_upgrade(pk, check.pk)
    return check


def stop_all(found: QuerySet[Upgrade], reason: str) -> int:
    """Cancel the active comparisons among ``found``, an account's about to be deleted (services/accounts.py):
    a worker running one stops at its next report or heartbeat, queued ones are revoked."""
    stopped = list(found.filter(status__in=ACTIVE).values_list("pk", "fleet_id"))
    count = _stop(Upgrade.objects.filter(pk__in=[pk for pk, _ in stopped]), reason)
    for pk, fleet_id in stopped:
        publisher.publish_upgrade(pk, fleet_id)
    return count


def _stop(found: QuerySet[Upgrade], reason: str = CANCELLED_BY_OWNER) -> int:
    active = found.filter(status__in=ACTIVE)
    waiting = list(active.exclude(task_id="").values_list("task_id", flat=True))
    stopped = active.update(status=UpgradeStatus.CANCELLED, finished=timezone.now(), error=reason)
    _revoke(waiting)
    return stopped


def _revoke(task_ids: list[str]) -> None:
    if not task_ids:
        return
    try:
        current_app.control.revoke(task_ids)
    except Exception as exc:  # best effort: a worker that gets one anyway finds it cancelled
        log.info("upgrades: revoking %d task(s) failed (%s); the workers skip them", len(task_ids), exc)


# --- recovery -------------------------------------------------------------------------------------
# As for runs (services/runs.py): a comparison whose worker stopped beating (killed, machine gone)
# is queued again; a queued one whose message is gone (sent while the broker was down, lost with
# it) is sent again once the long-work workers sit idle; either is failed with the reason once
# SCHEDLAB_MAX_RUN_ATTEMPTS tries are used up. Every worker sweeps (celery.py), and every read.


def _stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS)


def _lost_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS)


def _abandoned() -> Q:
    return Q(status=UpgradeStatus.RUNNING, heartbeat__lt=_stale_before())


def _lost() -> Q:
    return Q(status=UpgradeStatus.QUEUED, queued_at__lt=_lost_before())


def _long_workers_idle() -> bool:
    return not Upgrade.objects.filter(status=UpgradeStatus.RUNNING, heartbeat__gte=_stale_before()).exists()


def sweep_stale_upgrades() -> int:
    """Recover every comparison left behind; returns how many were found."""
    found = list(Upgrade.objects.filter(_abandoned()))
    if _long_workers_idle():
        found += list(Upgrade.objects.filter(_lost()))
    for upgrade in found:
        _recover(upgrade)
    return len(found)


def recover_if_stale(upgrade: Upgrade) -> Upgrade:
    """At-read sweep: a comparison left behind is sent again or failed, never stuck."""
    stale = Upgrade.objects.filter(_abandoned(), pk=upgrade.pk).exists() or (
        Upgrade.objects.filter(_lost(), pk=upgrade.pk).exists() and _long_workers_idle()
    )
    if stale:
        _recover(upgrade)
        upgrade.refresh_from_db()
    return upgrade


def _recover(upgrade: Upgrade) -> None:
    tries = upgrade.attempts if upgrade.status == UpgradeStatus.RUNNING else upgrade.enqueues - upgrade.attempts
    same = Upgrade.objects.filter(
        pk=upgrade.pk, status=upgrade.status, heartbeat=upgrade.heartbeat, queued_at=upgrade.queued_at
    )
    if tries >= settings.SCHEDLAB_MAX_RUN_ATTEMPTS:
        message = (
            f"no worker finished it after {tries} tries (SCHEDLAB_MAX_RUN_ATTEMPTS): the long-work workers "
            f"(queue {settings.SCHEDLAB_LONG_QUEUE}) stopped, or none is running"
        )
        if same.update(status=UpgradeStatus.FAILED, error=message, finished=timezone.now()):
            log.error("upgrade %s: %s", upgrade.pk, message)
    else:
        with transaction.atomic():
            if same.update(
                status=UpgradeStatus.QUEUED, claimed_by="", queued_at=timezone.now(), enqueues=F("enqueues") + 1
            ):
                log.warning("upgrade %s: left behind (%s); sending it again", upgrade.pk, upgrade.status)
                transaction.on_commit(lambda: _send(upgrade.pk), robust=True)
    publisher.publish_upgrade(upgrade.pk, upgrade.fleet_id)
