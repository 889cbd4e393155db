"""Capacity questions (issue 26) answered by trials fanned out to the Celery workers.

The search is scheduler_core.answers.capacity_rounds': a proposer of rounds of independent trials. This
module only stores and dispatches:

- ``ask`` saves the question and sends ``advance_capacity``;
- ``advance`` rebuilds the search from the question, replays the outcomes of the rounds already run
  (the search is pure, so it reaches the same round), and either dispatches the next round as a
  Celery ``group`` of ``run_capacity_trial`` tasks (one per trial) or saves the answer;
- ``run_one_trial`` runs one trial, stores its outcome, and calls ``advance`` when it was the last of
  its round: the database counts a round's outcomes, so this is a chord whose join is a query, not
  a result backend (the embedded filesystem broker has none). Two trials ending at once both call
  ``advance``; the question row lock (and the round's unique rows) let one of them dispatch.
- ``sweep_stale_questions`` / ``recover_if_stale`` send again what a question whose task messages
  were lost still misses, or fail it after SCHEDLAB_CAPACITY_MAX_REDISPATCHES (see "recovery").

How many more copies of a pod fit (kind fit with a pod, issue 42) is answered by the engine's one
pass first (``scheduler_core.answers.capacity_pass.one_pass``), run whole inside ``advance`` on the worker
that got it: its progress (copies placed, per CPU second) is written to the question every
capacity_pass.PROGRESS_EVERY (1000) copies and published as the trials' is; only when the pass answers NeedsTrials
(``why``: pods left pending, copies that could preempt, claims or volumes that bind) do the rounds
below answer it. The question records which answered (``method``: counted, placed, trials) and why.

The answer's deciding trial is saved as a scenario of the asker's, forked from the question's
version, and run like any run, so it opens in the run view at the deciding step and share links work.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import pickle
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Optional

from celery import current_app, group, signature
from celery.result import GroupResult
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from webui import publisher
from webui.models import (
    FINISHED_STATUSES,
    CapacityKind,
    CapacityMethod,
    CapacityQuestion,
    CapacityTrial,
    Run,
    RunStatus,
    Scenario,
    ScenarioVersion,
)
from webui.services import engine, scenarios
from webui.services.access import Actor
from webui.services.engine import (
    DECIDING_TEXT_MOST,
    SCALABLE_KINDS,
    CapacityAnswer,
    CapacityError,
    FitAnswer,
    FragmentationAnswer,
    NeedsTrials,
    NodesAnswer,
    PassAnswer,
    Question,
    RemovableAnswer,
    ScenarioInvalid,
    Trial,
    TrialBase,
    TrialChanges,
    TrialOutcome,
    one_pass,
    replay,
    run_trial,
    search_for,
)
from webui.services.errors import Conflict, DomainError, NotFound

log = logging.getLogger(__name__)
CANCELLED_BY_OWNER = "cancelled by the owner"
EMBEDDED_WORKER_SLOTS = 2  # runembedded's default --concurrency
INSPECT_TIMEOUT_SECONDS = 1.0
BASES_KEPT = 2  # scenarios a worker process keeps loaded (a 5000-node one takes seconds to load)


# --- asking ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """What the API was asked: the engine's Question and the version it is about."""

    question: Question
    version: Optional[int] = None


def ask(actor: Actor, scenario: Scenario, asked: Asked) -> CapacityQuestion:
    """Save the question (refused at once when the scenario cannot answer it) and start it."""
    version = scenarios.visible_version(actor, scenario, asked.version)
    engine.check(version.text).raise_if_invalid()
    base = trial_base(version)
    try:
        search = search_for(base, asked.question)
        next(search)  # a missing workload or node is refused before the first round
        search.close()
    except CapacityError as exc:
        raise DomainError(str(exc), {"kind": asked.question.kind}) from None
    with transaction.atomic():
        question = CapacityQuestion.objects.create(
            version=version,
            kind=asked.question.kind,
            parameters=parameters_of(asked.question),
            width=trial_slots(),
            release_choice=base.scenario.release.to_json(),  # what every trial of it replays
            **actor.owner_fields(),
        )
        transaction.on_commit(lambda: _send_advance(question.pk), robust=True)
    return question


@dataclass(frozen=True)
class Targets:
    version: int
    workloads: list[dict[str, Any]]  # kind, namespace, name, replicas
    nodes: list[str]
    pods: list[str]
    unusable: list[dict[str, str]]  # kind, namespace, name, reason: workloads the controllers cannot use


class OwnSteps(DomainError):
    """The version has steps of its own (a Changes document with steps): capacity questions start from
    the scenario's own run, so they cannot be asked of it (scheduler_core.answers.capacity.TrialBase)."""


EARLIER_LOOKED_AT = 10  # versions before a refused one looked at for one the questions can be asked of


def targets(version: ScenarioVersion, look_back: bool = True) -> Targets:
    """What a question about ``version`` may name (the scenario loaded, nothing scheduled). A version
    with steps of its own is refused (400) naming, when ``look_back``, the newest of the versions just
    before it that questions can be asked of (``details.withoutSteps``, null when none is): after a
    step was added in the Changes panel, the cluster view offers the version before it."""
    engine.check(version.text).raise_if_invalid()
    try:
        base = trial_base(version)
    except OwnSteps as exc:
        earlier = latest_without_steps(version) if look_back else None
        raise OwnSteps(exc.message, {"withoutSteps": earlier}) from None
    scenario = base.scenario
    assert scenario.changes is not None
    workloads = [
        {"kind": w.kind, "namespace": w.namespace, "name": w.name, "replicas": w.replicas}
        for w in scenario.changes.workloads
        if w.kind in SCALABLE_KINDS
    ]
    unusable = [
        {"kind": w.kind, "namespace": w.namespace, "name": w.name, "reason": w.reason}
        for w in scenario.changes.unusable
    ]
    return Targets(
        version.number,
        workloads,
        [node.name for node in scenario.nodes],
        [pod.key for pod in scenario.pods],
        unusable,
    )


def latest_without_steps(version: ScenarioVersion) -> Optional[int]:
    """The newest of the EARLIER_LOOKED_AT versions before ``version`` that checks and has no steps
    of its own, or None."""
    earlier = version.scenario.versions.filter(number__lt=version.number).order_by("-number")
    for candidate in earlier[:EARLIER_LOOKED_AT]:
        try:
            engine.check(candidate.text).raise_if_invalid()
            trial_base(candidate)
        except DomainError:
            continue
        return candidate.number
    return None


def parameters_of(question: Question) -> dict[str, Any]:
    return {
        "workload": question.workload,
        "pod": question.pod,
        "likes": list(question.likes),
        "nodes": list(question.nodes),
        "max": question.max_count,
    }


def question_of(row: CapacityQuestion) -> Question:
    p = row.parameters
    return Question(
        row.kind,
        p.get("workload"),
        p.get("pod"),
        tuple(p.get("likes") or ()),
        tuple(p.get("nodes") or ()),
        p.get("max"),
    )


def trial_slots() -> int:
    """How many trials a round holds: the setting, else the workers' pool sizes added up."""
    if settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND:
        return settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND
    if settings.EMBEDDED:
        return EMBEDDED_WORKER_SLOTS
    try:
        stats = current_app.control.inspect(timeout=INSPECT_TIMEOUT_SECONDS).stats() or {}
    except Exception:  # a broker without broadcast, or none reachable: the embedded worker's size
        log.info("capacity: the workers could not be asked their pool sizes; %s trials a round", EMBEDDED_WORKER_SLOTS)
        return EMBEDDED_WORKER_SLOTS
    slots = sum(int(s.get("pool", {}).get("max-concurrency", 1)) for s in stats.values())
    return max(1, slots or EMBEDDED_WORKER_SLOTS)


# Tasks are sent by name: webui.tasks imports this module (and services.runs imports webui.tasks).
ADVANCE_TASK = "webui.tasks.advance_capacity"
TRIAL_TASK = "webui.tasks.run_capacity_trial"
RUN_TASK = "webui.tasks.execute_run"
ACTIVE_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)


@dataclass(frozen=True)
class Dispatch:
    """Where the service sends its work: a question to advance, a saved run to execute, a round's
    trials to run. Celery's workers (``CELERY``) unless a caller runs them itself (``dispatched_by``)."""

    advance: Callable[[int], None]
    run: Callable[[int], None]
    trials: Callable[[list[int]], None]


def _celery_advance(question_id: int) -> None:
    current_app.send_task(ADVANCE_TASK, args=[question_id])


def _celery_run(run_id: int) -> None:
    current_app.send_task(RUN_TASK, args=[run_id])


def _celery_trials(trial_ids: list[int]) -> None:
    """The round as one Celery group: each trial goes to whichever worker is free."""
    sent = group(signature(TRIAL_TASK, args=(trial_id,), immutable=True) for trial_id in trial_ids).apply_async()
    assert isinstance(sent, GroupResult)  # a group's result (Celery's stubs type it as one task's)
    for trial_id, result in zip(trial_ids, sent.results or []):
        CapacityTrial.objects.filter(pk=trial_id).update(task_id=result.id)


CELERY = Dispatch(_celery_advance, _celery_run, _celery_trials)
_DISPATCH: ContextVar[Dispatch] = ContextVar("capacity_dispatch", default=CELERY)


@contextmanager
def dispatched_by(dispatch: Dispatch) -> Iterator[None]:
    """The service's work sent to ``dispatch`` instead of Celery while the block runs (in this
    context): a measurement that runs the task in its own process (manage.py measure_capacity)."""
    token = _DISPATCH.set(dispatch)
    try:
        yield
    finally:
        _DISPATCH.reset(token)


def _send_advance(question_id: int) -> None:
    _DISPATCH.get().advance(question_id)


def _send_run(run_id: int) -> None:
    _DISPATCH.get().run(run_id)


def readable_question(actor: Actor, question_id: int) -> CapacityQuestion:
    """Questions are their asker's (a share link shows the deciding run, not the question)."""
    question = (
        CapacityQuestion.objects.select_related("version__scenario", "deciding_run").filter(pk=question_id).first()
    )
    if question is None or actor.share is not None or not actor.owns(question):
        raise NotFound(f"capacity question {question_id} not found")
    return question


def listing(actor: Actor, scenario: Scenario) -> QuerySet[CapacityQuestion]:
    return CapacityQuestion.objects.filter(actor.owned_q(), version__scenario=scenario).select_related("version")


def cancel(question: CapacityQuestion) -> CapacityQuestion:
    """Stop it: status cancelled, outstanding trials revoked (and skipped by workers that got them)."""
    if not stop_all(CapacityQuestion.objects.filter(pk=question.pk), CANCELLED_BY_OWNER):
        raise Conflict(
            f"capacity question {question.pk} already finished ({CapacityQuestion.objects.get(pk=question.pk).status})"
        )
    return CapacityQuestion.objects.get(pk=question.pk)


def stop_all(found: QuerySet[CapacityQuestion], reason: str) -> int:
    """Cancel the active questions among ``found`` (a cancel, or an account about to be deleted): their
    one pass stops at its next progress report, their workers skip the trials not yet run, the rest
    are revoked. Returns how many were stopped."""
    ids = list(found.filter(status__in=ACTIVE_STATUSES).values_list("pk", flat=True))
    stopped = CapacityQuestion.objects.filter(pk__in=ids, status__in=ACTIVE_STATUSES).update(
        status=RunStatus.CANCELLED, finished=timezone.now(), error=reason
    )
    outstanding = list(
        CapacityTrial.objects.filter(question_id__in=ids, outcome__isnull=True)
        .exclude(task_id="")
        .values_list("task_id", flat=True)
    )
    _revoke(outstanding)
    for question_id in ids:
        publisher.publish_capacity(question_id)
    return stopped


def _revoke(task_ids: list[str]) -> None:
    if not task_ids:
        return
    try:
        current_app.control.revoke(task_ids)
    except Exception as exc:  # best effort: a worker that gets one anyway sees the question cancelled
        log.info("capacity: revoking %d trial(s) failed (%s); the workers skip them", len(task_ids), exc)


# --- the worker side ------------------------------------------------------------------------------


_bases: "OrderedDict[int, tuple[str, TrialBase]]" = OrderedDict()


def trial_base(version: ScenarioVersion) -> TrialBase:
    """The version loaded for trials, kept per process: every trial and every replay needs it.
    Kept with its text: a database started over (tests) reuses ids for other versions."""
    kept = _bases.get(version.pk)
    base = kept[1] if kept is not None and kept[0] == version.text else None
    if base is None:
        try:
            base = TrialBase.from_text(version.text, limits=engine.engine_limits())  # the server's, as its runs
        except CapacityError as exc:  # from_text refuses only a scenario with steps of its own
            raise OwnSteps(str(exc)) from None
        except ScenarioInvalid as exc:  # it checks, but not with the controllers on: each problem said (400)
            errors = [engine.error_json(error) for error in exc.errors]
            raise DomainError(
                f"capacity questions cannot read the scenario with its controllers ({len(errors)} problem(s)): "
                + "; ".join(engine.in_server_words(str(error)) for error in exc.errors[:3]),
                {"errors": errors},
            ) from None
        _bases[version.pk] = (version.text, base)
        while len(_bases) > BASES_KEPT:
            _bases.popitem(last=False)
    _bases.move_to_end(version.pk)
    return base


def advance(question_id: int) -> None:
    """Answer a pod-copies question by the one pass; else (or when the pass needs trials) dispatch
    the question's next round, or save its answer, once its last round is complete."""
    try:
        if _by_one_pass(question_id):
            publisher.publish_capacity(question_id)
            return
        with transaction.atomic():
            question = (
                CapacityQuestion.objects.select_for_update().select_related("version__scenario").get(pk=question_id)
            )
            if question.is_finished or _round_open(question):
                return
            _step(question)
    except IntegrityError:
        log.info("capacity question %s: another worker dispatched this round", question_id)
    except CapacityQuestion.DoesNotExist:
        return
    except Exception as exc:  # an engine or data error fails the question visibly, never leaves it running
        log.exception("capacity question %s failed", question_id)
        _fail(question_id, f"the search failed: {type(exc).__name__}: {exc}")
    publisher.publish_capacity(question_id)


# --- the one pass (pod copies) ---------------------------------------------------------------------
# It runs outside any transaction: it takes seconds to minutes on large clusters, and its progress
# must be committed as it goes for the API and the websocket to see it. Two deliveries of the same
# advance (a redelivery, a recovery re-send) are told apart by ``pass_claim``: the pass may be taken
# while pass_claim <= redispatches, i.e. nobody took it since recovery last sent the question again.


class _PassStopped(Exception):
    """The question was cancelled (or failed), or a later delivery holds its pass: stop placing."""


def _by_one_pass(question_id: int) -> bool:
    """True when the one pass dealt with the question (answered it, or it is another delivery's or
    finished); False when the rounds answer it (not a pod-copies question, or the pass needs trials)."""
    question = CapacityQuestion.objects.select_related("version__scenario").get(pk=question_id)
    if not question.asks_copies or question.method == CapacityMethod.TRIALS:
        return False
    if question.is_finished:
        return True
    taken = CapacityQuestion.objects.filter(
        pk=question_id,
        status__in=ACTIVE_STATUSES,
        method=CapacityMethod.UNKNOWN,
        pass_claim__lte=F("redispatches"),
    ).update(
        pass_claim=F("redispatches") + 1,
        status=RunStatus.RUNNING,
        progressed=timezone.now(),
        copies_done=0,
        copies_per_second=None,
    )
    if not taken:
        log.info("capacity question %s: its one pass is another delivery's, or it finished", question_id)
        return True
    question.refresh_from_db()
    mine = CapacityQuestion.objects.filter(pk=question_id, pass_claim=question.pass_claim, status__in=ACTIVE_STATUSES)

    def told(copies: int, seconds: float) -> None:
        if not mine.update(
            copies_done=copies, copies_per_second=copies / seconds if seconds > 0 else None, progressed=timezone.now()
        ):
            raise _PassStopped
        publisher.publish_capacity(question_id)

    asked = question_of(question)
    assert asked.pod is not None
    try:
        answered = one_pass(trial_base(question.version), asked.pod, asked.max_count, progress=told)
    except _PassStopped:
        log.info("capacity question %s: its one pass stopped (cancelled, or taken over)", question_id)
        return True
    if isinstance(answered, NeedsTrials):
        return not mine.update(method=CapacityMethod.TRIALS, why=answered.why, progressed=timezone.now())
    with transaction.atomic():
        fields = _pass_fields(question, answered)
        if not mine.update(**fields):  # cancelled meanwhile: the deciding run's rows are rolled back
            transaction.set_rollback(True)
    return True


def _pass_fields(question: CapacityQuestion, answer: PassAnswer) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "status": RunStatus.SUCCEEDED,
        "finished": timezone.now(),
        "progressed": timezone.now(),
        "method": answer.method,
        "why": answer.why,
        "copies_done": answer.fits,
        "copies_per_second": answer.copies_per_second,
        "per_node": answer.placements,
        "stopped_by": answer.stopped_by or "",
        "stop_message": answer.message,
        "stopped_at_max": not answer.checked_next,
        "answer": {"copies": engine.without_trials(answer.wire())},
    }
    if answer.checked_next and answer.fits < DECIDING_TEXT_MOST:
        changes = answer.deciding_changes()
        label = f"{answer.fits + 1} more"
        fields.update(
            deciding_run=_save_deciding_run(question, label, answer.base.trial_text(changes), 1),
            deciding_label=label,
            deciding_cycle=answer.deciding_cycle,
            deciding_step=1,
        )
    return fields


def _round_open(question: CapacityQuestion) -> bool:
    return CapacityTrial.objects.filter(question=question, round=question.rounds - 1, outcome__isnull=True).exists()


def _step(question: CapacityQuestion) -> None:
    base = trial_base(question.version)
    upcoming, answer = replay(search_for(base, question_of(question), question.width), _stored_rounds(question))
    if answer is not None:
        _finish(question, base, answer)
        return
    assert upcoming is not None
    rows = CapacityTrial.objects.bulk_create(
        [
            CapacityTrial(
                question=question, round=question.rounds, index=i, label=p.label[:500], changes=seal(p.changes)
            )
            for i, p in enumerate(upcoming.proposals)
        ]
    )
    CapacityQuestion.objects.filter(pk=question.pk).update(
        status=RunStatus.RUNNING,
        rounds=question.rounds + 1,
        trials_estimate=upcoming.estimate,
        progressed=timezone.now(),
    )
    ids = [row.pk for row in rows]
    transaction.on_commit(lambda: _dispatch(ids), robust=True)


def _stored_rounds(question: CapacityQuestion) -> list[list[TrialOutcome]]:
    rounds: list[list[TrialOutcome]] = [[] for _ in range(question.rounds)]
    for row in CapacityTrial.objects.filter(question=question).order_by("round", "index").only("round", "outcome"):
        assert row.outcome is not None  # a round is replayed once all its outcomes are stored
        rounds[row.round].append(unseal(bytes(row.outcome)))
    return rounds


def _dispatch(trial_ids: list[int]) -> None:
    _DISPATCH.get().trials(trial_ids)


def run_one_trial(trial_id: int) -> str:
    """Run one trial of a question still running, store its outcome, advance when the round is done."""
    row = CapacityTrial.objects.select_related("question__version").filter(pk=trial_id).first()
    if row is None or row.question.is_finished:
        return "skipped: the question is finished, cancelled or deleted"
    if row.outcome is not None:
        return "already run"
    try:
        outcome = run_trial(trial_base(row.question.version), unseal(bytes(row.changes)))
    except Exception as exc:
        log.exception("capacity trial %s failed", trial_id)
        _fail(row.question_id, f"trial {row.label!r} failed: {type(exc).__name__}: {exc}")
        publisher.publish_capacity(row.question_id)
        return "failed"
    with transaction.atomic():
        stored = CapacityTrial.objects.filter(pk=trial_id, outcome__isnull=True).update(outcome=seal(outcome))
        if stored:
            CapacityQuestion.objects.filter(pk=row.question_id).update(
                trials_done=F("trials_done") + 1, progressed=timezone.now()
            )
    if not stored:  # a redelivered or re-sent copy: the delivery that stored it advances the question
        return "already run"
    publisher.publish_capacity(row.question_id)
    advance(row.question_id)
    return f"trial {row.round}.{row.index}: {row.label}"


def _fail(question_id: int, message: str) -> None:
    CapacityQuestion.objects.filter(pk=question_id).exclude(status__in=FINISHED_STATUSES).update(
        status=RunStatus.FAILED, error=message[:2000], finished=timezone.now()
    )


# --- recovery -------------------------------------------------------------------------------------
# A round's task messages can be lost (the broker was down when the group was sent, a worker was
# killed before acking and the message was not redelivered), and so can the advance sent by ``ask``.
# Nothing would move such a question again, so the runs' recovery sweep (celery.py: every worker, at
# start and every SCHEDLAB_RECOVERY_SWEEP_SECONDS) and every read of a question look for ones with no
# progress for SCHEDLAB_CAPACITY_STALE_SECONDS while the workers went past them (as for queued runs:
# idle, or a run queued later already claimed; trials waiting behind long runs are left alone) and
# send again what they miss: the current round's trials without outcome, or the advance when the
# round is complete (or none was sent). Sending twice is safe: a trial stores its outcome only while it has none and only the delivery that stored it
# advances; advance holds the question's row lock and a round's rows are unique. After
# SCHEDLAB_CAPACITY_MAX_REDISPATCHES such re-sends the question is failed with the reason.


def _stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_CAPACITY_STALE_SECONDS)


def sweep_stale_questions() -> int:
    """Recover every capacity question left behind; returns how many were found."""
    stale = [
        q
        for q in CapacityQuestion.objects.filter(status__in=ACTIVE_STATUSES, progressed__lt=_stale_before()).only(
            "pk", "progressed"
        )
        if _workers_went_past(q)
    ]
    for question in stale:
        _recover(question.pk)
    return len(stale)


def _workers_went_past(question: CapacityQuestion) -> bool:
    """Its messages are gone, not waiting behind long runs: the workers sit idle (no run running),
    or already claimed a run queued after the question last moved (the broker hands out in order)."""
    if not Run.objects.filter(status=RunStatus.RUNNING).exists():
        return True
    return Run.objects.filter(queued_at__gt=question.progressed, started__gte=F("queued_at")).exists()


def recover_if_stale(question: CapacityQuestion) -> CapacityQuestion:
    """At-read sweep: a question whose messages were lost is sent again or failed, never stuck."""
    if question.is_finished or question.progressed >= _stale_before() or not _workers_went_past(question):
        return question
    _recover(question.pk)
    question.refresh_from_db()
    return question


def _recover(question_id: int) -> None:
    with transaction.atomic():
        question = (
            CapacityQuestion.objects.select_for_update()
            .filter(pk=question_id, status__in=ACTIVE_STATUSES, progressed__lt=_stale_before())
            .first()
        )
        if question is None:  # finished, or another sweep (or a trial) moved it meanwhile
            return
        if question.redispatches >= settings.SCHEDLAB_CAPACITY_MAX_REDISPATCHES:
            _fail_stalled(question)
        else:
            _resend(question)
    publisher.publish_capacity(question_id)


def _resend(question: CapacityQuestion) -> None:
    missing = list(
        CapacityTrial.objects.filter(question=question, round=max(question.rounds, 1) - 1, outcome__isnull=True)
        .order_by("index")
        .values_list("pk", flat=True)
    )
    CapacityQuestion.objects.filter(pk=question.pk).update(
        redispatches=F("redispatches") + 1, progressed=timezone.now()
    )
    if question.rounds and missing:
        log.warning(
            "capacity question %s: no progress for %gs; sending %d trial(s) of round %d again",
            question.pk,
            settings.SCHEDLAB_CAPACITY_STALE_SECONDS,
            len(missing),
            question.rounds - 1,
        )
        transaction.on_commit(lambda: _dispatch(missing), robust=True)
    else:
        log.warning(
            "capacity question %s: no progress for %gs with its round complete; advancing it again",
            question.pk,
            settings.SCHEDLAB_CAPACITY_STALE_SECONDS,
        )
        transaction.on_commit(lambda: _send_advance(question.pk), robust=True)


def _fail_stalled(question: CapacityQuestion) -> None:
    message = (
        f"the workers stopped making progress on it: no trial finished for "
        f"{settings.SCHEDLAB_CAPACITY_STALE_SECONDS:g} s after its tasks were sent again {question.redispatches} "
        f"times (SCHEDLAB_CAPACITY_MAX_REDISPATCHES); the task queue or the workers may be failing"
    )
    _fail(question.pk, message)
    log.error("capacity question %s: %s", question.pk, message)


# --- the answer -----------------------------------------------------------------------------------


def _finish(question: CapacityQuestion, base: TrialBase, answer: CapacityAnswer) -> None:
    deciding = deciding_of(answer)
    fields: dict[str, Any] = {
        "status": RunStatus.SUCCEEDED,
        "finished": timezone.now(),
        "trials_estimate": F("trials_done"),
    }
    if not (isinstance(answer, FitAnswer) and question.asks_copies):
        fields["answer"] = answer_json(answer)
    else:  # the pass needed trials: the same fields, the answer in the pass's form
        fields.update(
            answer={"copies": engine.without_trials(engine.copies_by_trials(answer, question.why))},
            copies_done=answer.fits,
            per_node=answer.placements,
            stopped_by=answer.stopped_by[0] if answer.stopped_by else "",
            stop_message=answer.message,
            stopped_at_max=not answer.checked_next,
        )
    if deciding is not None:
        trial, cycle, step = deciding
        pending = sum(1 for node in trial.outcome.final.values() if node is None)
        fields.update(
            deciding_run=_save_deciding_run(question, trial.label, trial.scenario_text, pending),
            deciding_label=trial.label[:500],
            deciding_cycle=cycle,
            deciding_step=step,
        )
    CapacityQuestion.objects.filter(pk=question.pk).update(**fields)


def deciding_of(answer: CapacityAnswer) -> Optional[tuple[Trial, Optional[int], Optional[int]]]:
    """The trial that shows the answer, the cycle in it that does, and the step of its Changes."""
    if isinstance(answer, FitAnswer):
        if answer.deciding is None:
            return answer.fitting, None, 1
        explanation = answer.explanation
        return answer.deciding, explanation.cycle if explanation is not None else None, 1
    if isinstance(answer, NodesAnswer):
        for template in answer.templates:
            return template.deciding or template.fitting, None, 1
        return None
    if isinstance(answer, RemovableAnswer):
        staying = next((v.node for v in answer.verdicts if not v.removable), None)
        if staying is not None:
            return answer.deciding[staying], None, 1
        return (answer.together_trial, None, 1) if answer.together_trial is not None else None
    return None


def _save_deciding_run(question: CapacityQuestion, label: str, text: str, pending: int) -> Run:
    """The deciding trial (its whole scenario ``text``) as a scenario of the asker's, forked from
    the question's version, and its run."""
    source = question.version
    owner = {"owner_id": question.owner_id, "owner_session_key": question.owner_session_key}
    name = f"{source.scenario.name} · capacity trial: {label}"[:200]
    scenario = Scenario.objects.create(name=name, description=source.scenario.description, forked_from=source, **owner)
    version = ScenarioVersion.saved(scenario, 1, text)
    # replayed as the question's trials were (its version's release, as the dump says): its header says so
    run = Run.objects.create(
        version=version, cycles=pending, enqueues=1, release_choice=question.release_choice, **owner
    )
    transaction.on_commit(lambda: _send_run(run.pk), robust=True)
    return run


def answer_json(answer: CapacityAnswer) -> dict[str, Any]:
    """The answer as stored and served, under its kind: the engine's declaration of it less its trials
    (engine.without_trials: the deciding one is saved as a run; they can be megabytes)."""
    return {_ANSWER_KEYS[type(answer)]: engine.without_trials(answer.wire())}


_ANSWER_KEYS: dict[type[CapacityAnswer], str] = {
    FitAnswer: "fit",
    NodesAnswer: "nodes",
    RemovableAnswer: "removable",
    FragmentationAnswer: "fragmentation",
}


# --- sealed pickles -------------------------------------------------------------------------------
# Trial changes and outcomes are engine dataclasses that only the workers read back. Pickle keeps
# them whole; the HMAC (keyed by SECRET_KEY) means a row not written by this deployment is refused
# rather than unpickled.


def seal(value: TrialChanges | TrialOutcome) -> bytes:
    body = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)
    return _mac(body) + body


def unseal(blob: bytes) -> Any:
    mac, body = blob[:32], blob[32:]
    if not hmac.compare_digest(mac, _mac(body)):
        raise ValueError("a capacity trial's stored data does not carry this deployment's signature")
    return pickle.loads(zlib.decompress(body))


def _mac(body: bytes) -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), body, hashlib.sha256).digest()


KINDS = tuple(CapacityKind.values)
