"""services/capacity.py: how a question is stored, dispatched in rounds and answered (driven in this
process; tests/webui/test_service_capacity.py runs it on real workers)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from scheduler_core.answers.capacity import TrialBase, TrialChanges, how_many_fit, run_trial
from scheduler_core.answers.capacity_json import without_trials
from scheduler_core.answers.capacity_pass import PROGRESS_EVERY, copies_by_trials, how_many_copies
from tests.webui.capacity_support import CAPACITY_PODS, CAPACITY_WEB, InProcessWorkers, many_copies_text
from webui import publisher
from webui.models import CapacityQuestion, CapacityTrial, Run, RunStatus, Scenario, ScenarioVersion
from webui.services import capacity

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def web(owner: Client) -> dict:
    return owner.post("/api/scenarios", {"name": "web", "text": CAPACITY_WEB}, content_type=JSON).json()


def test_sealed_trials_round_trip_and_a_forged_row_is_refused(settings):
    outcome = run_trial(TrialBase.from_text(CAPACITY_WEB), TrialChanges())
    blob = capacity.seal(outcome)
    assert capacity.unseal(blob).final == outcome.final
    settings.SECRET_KEY = "another deployment"
    with pytest.raises(ValueError, match="signature"):
        capacity.unseal(blob)


def test_a_round_holds_the_configured_slots_or_the_embedded_workers(settings):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = 5
    assert capacity.trial_slots() == 5
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND, settings.EMBEDDED = 0, True
    assert capacity.trial_slots() == capacity.EMBEDDED_WORKER_SLOTS


def test_rounds_are_dispatched_one_after_another_and_the_answer_keeps_no_scenario_text(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings
):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = 2
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(
            f"/api/capacity/scenarios/{web['id']}", {"kind": "fit", "workload": "default/web"}, content_type=JSON
        )
    question = CapacityQuestion.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        capacity.advance(workers.advances.pop())
    assert workers.rounds == [[CapacityTrial.objects.get(round=0).pk]]  # the baseline alone
    with django_capture_on_commit_callbacks(execute=True):
        capacity.advance(question.pk)  # its round is still open: nothing more is sent
    assert len(workers.rounds) == 1
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    assert question.status == RunStatus.SUCCEEDED and all(len(r) <= 2 for r in workers.rounds)
    assert [
        sorted(CapacityTrial.objects.filter(round=n).values_list("index", flat=True)) for n in range(question.rounds)
    ] == [list(range(len(r))) for r in workers.rounds]
    assert (
        "scenarioText" not in str(question.answer)
        and question.answer["fit"]["fits"]
        == how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web").fits
    )
    assert question.deciding_run.release_choice == question.release_choice  # replayed as the trials were
    trial_scenario = Scenario.objects.get(pk=question.deciding_run.version.scenario_id)
    assert (
        trial_scenario.forked_from_id == question.version_id
        and trial_scenario.owner_session_key == question.owner_session_key
    )
    assert (
        "kind: Changes" in question.deciding_run.version.text
        and question.deciding_label == f"{question.answer['fit']['fits'] + 1} more"
    )


def test_a_failing_trial_fails_the_question_with_its_reason(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)

    def broken(base, changes):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(capacity, "run_trial", broken)
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(f"/api/capacity/scenarios/{web['id']}", {"kind": "fragmentation"}, content_type=JSON)
    workers.drain(django_capture_on_commit_callbacks)
    question = CapacityQuestion.objects.get()
    assert question.status == RunStatus.FAILED and "engine exploded" in question.error


def test_a_question_names_the_release_its_trials_replay(owner: Client, web: dict):
    asked = owner.post(f"/api/capacity/scenarios/{web['id']}", {"kind": "fragmentation"}, content_type=JSON).json()
    assert asked["release"] == CapacityQuestion.objects.get(pk=asked["id"]).release_choice
    assert (asked["release"]["version"], asked["release"]["source"]) == ("v1.35.4", "default")


def test_targets_lists_the_scalable_workloads_and_nodes(owner: Client, web: dict):
    body = owner.get(f"/api/capacity/scenarios/{web['id']}/targets").json()
    assert body["workloads"] == [{"kind": "Deployment", "namespace": "default", "name": "web", "replicas": 4}]
    assert body["nodes"] == ["node-1", "node-2", "node-3"] and body["version"] == 1


def test_trials_read_the_scenario_under_the_servers_limits_as_its_runs_do(web: dict, settings, monkeypatch):
    """A server's limits (raised or lowered) are the capacity questions' too, not the engine's defaults."""
    settings.SCHEDLAB_MAX_NODES = 2
    monkeypatch.setattr(
        capacity, "_bases", OrderedDict()
    )  # a server's settings never change: the kept bases do not say them
    version = Scenario.objects.get(pk=web["id"]).versions.get()
    with pytest.raises(
        capacity.DomainError,
        match=r"more than 2 nodes; this server's administrator raises it with SCHEDLAB_MAX_NODES=N",
    ):
        capacity.trial_base(version)


# --- recovery: lost task messages -----------------------------------------------------------------


def _stall(question_id: int) -> None:
    """No progress for longer than the stale threshold (the clock is moved, nothing waits)."""
    CapacityQuestion.objects.filter(pk=question_id).update(
        progressed=timezone.now() - timedelta(seconds=settings.SCHEDLAB_CAPACITY_STALE_SECONDS + 1)
    )


def _sweep(capture) -> int:
    with capture(execute=True):
        return capacity.sweep_stale_questions()


def _ask_fit(owner: Client, web: dict, capture) -> CapacityQuestion:
    with capture(execute=True):
        owner.post(
            f"/api/capacity/scenarios/{web['id']}", {"kind": "fit", "workload": "default/web"}, content_type=JSON
        )
    return CapacityQuestion.objects.get()


def _first_round_sent(owner: Client, web: dict, monkeypatch, capture) -> tuple[InProcessWorkers, CapacityQuestion]:
    """A fit question asked with in-process workers, its first round's trial messages sent, none run yet."""
    workers = InProcessWorkers(monkeypatch)
    question = _ask_fit(owner, web, capture)
    workers.drain(capture, stop_after=0)
    return workers, question


def _first_round_lost(
    owner: Client, web: dict, monkeypatch, capture
) -> tuple[InProcessWorkers, CapacityQuestion, list]:
    """As _first_round_sent, with those messages then lost (taken off the workers' queue) and returned."""
    workers, question = _first_round_sent(owner, web, monkeypatch, capture)
    sent = list(workers.trials)
    workers.trials.clear()
    return workers, question, sent


def test_a_question_whose_messages_are_lost_in_every_round_is_answered_by_the_sweep_as_the_cli(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings
):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND, settings.SCHEDLAB_CAPACITY_MAX_REDISPATCHES = 2, 1000
    workers = InProcessWorkers(monkeypatch)
    question = _ask_fit(owner, web, django_capture_on_commit_callbacks)
    workers.advances.clear()  # the broker was down when the question was asked
    recovered = 0
    while not CapacityQuestion.objects.get(pk=question.pk).is_finished:
        assert _sweep(django_capture_on_commit_callbacks) == 0  # a question making progress is left alone
        _stall(question.pk)
        assert _sweep(django_capture_on_commit_callbacks) == 1
        recovered += 1
        if workers.trials:  # the round's first trial ran, then the rest of its messages were lost too
            workers.drain(django_capture_on_commit_callbacks, stop_after=1)
            workers.trials.clear()
        else:
            workers.drain(django_capture_on_commit_callbacks, stop_after=0)  # the advance: a round sent ...
            workers.trials.clear()  # ... and lost whole
    question.refresh_from_db()
    assert question.status == RunStatus.SUCCEEDED and question.redispatches == recovered > question.rounds
    assert (
        question.answer["fit"]["fits"] == how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web").fits
    )
    assert question.trials_done == CapacityTrial.objects.filter(question=question).count()  # each outcome once


def test_a_round_complete_but_never_advanced_is_advanced_by_the_sweep(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    question = _ask_fit(owner, web, django_capture_on_commit_callbacks)
    with monkeypatch.context() as lost:  # the worker storing the round's last outcome dies before advancing
        workers.drain(django_capture_on_commit_callbacks, stop_after=0)
        lost.setattr(capacity, "advance", lambda question_id: None)
        workers.drain(django_capture_on_commit_callbacks)
    assert CapacityQuestion.objects.get(pk=question.pk).rounds == 1 and not workers.advances
    _stall(question.pk)
    assert _sweep(django_capture_on_commit_callbacks) == 1 and workers.advances == [question.pk]
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    assert question.status == RunStatus.SUCCEEDED and question.redispatches == 1
    assert (
        question.answer["fit"]["fits"] == how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web").fits
    )


def test_a_trial_delivered_twice_stores_once_and_advances_once(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers, question = _first_round_sent(owner, web, monkeypatch, django_capture_on_commit_callbacks)
    (baseline,) = workers.trials
    workers.drain(django_capture_on_commit_callbacks, stop_after=1)
    sent = len(workers.rounds)
    with django_capture_on_commit_callbacks(execute=True):
        assert capacity.run_one_trial(baseline) == "already run"  # the re-sent copy arrives after all
    question.refresh_from_db()
    assert (question.trials_done, question.rounds, len(workers.rounds)) == (1, 2, sent)


def test_a_question_stalling_after_every_resend_ends_failed_with_the_reason(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings
):
    settings.SCHEDLAB_CAPACITY_MAX_REDISPATCHES = 2
    workers, question = _first_round_sent(owner, web, monkeypatch, django_capture_on_commit_callbacks)
    for _ in range(2):  # every message sent again is lost again
        workers.trials.clear()
        _stall(question.pk)
        assert _sweep(django_capture_on_commit_callbacks) == 1 and workers.trials
    workers.trials.clear()
    _stall(question.pk)
    assert _sweep(django_capture_on_commit_callbacks) == 1 and not workers.trials and not workers.advances
    read = owner.get(f"/api/capacity/{question.pk}").json()
    assert read["status"] == "failed" and "SCHEDLAB_CAPACITY_MAX_REDISPATCHES" in read["error"]
    assert "sent again 2 times" in read["error"]
    assert _sweep(django_capture_on_commit_callbacks) == 0  # failed: the sweep leaves it alone


def test_reading_a_stalled_question_sends_its_lost_trials_again(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers, question, lost = _first_round_lost(owner, web, monkeypatch, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        owner.get(f"/api/capacity/{question.pk}")
    assert not workers.trials  # not stale yet
    _stall(question.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert owner.get(f"/api/capacity/{question.pk}").json()["status"] == "running"
    assert workers.trials == lost


def test_trials_waiting_behind_a_long_run_are_left_alone_until_the_workers_go_past_them(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    """As queued runs' recovery (services.runs.QueueProgress): busy workers are not a lost message."""
    workers, question, waiting = _first_round_lost(owner, web, monkeypatch, django_capture_on_commit_callbacks)
    owner_fields = {"owner_id": question.owner_id, "owner_session_key": question.owner_session_key}
    long_run = Run.objects.create(
        version=question.version,
        status=RunStatus.RUNNING,
        heartbeat=timezone.now(),
        queued_at=timezone.now() - timedelta(days=1),
        started=timezone.now(),
        **owner_fields,
    )
    _stall(question.pk)
    assert _sweep(django_capture_on_commit_callbacks) == 0 and not workers.trials
    Run.objects.create(
        version=question.version,
        status=RunStatus.SUCCEEDED,
        queued_at=timezone.now(),
        started=timezone.now(),
        **owner_fields,
    )  # queued after the round, already claimed
    assert _sweep(django_capture_on_commit_callbacks) == 1 and workers.trials == waiting
    assert Run.objects.get(pk=long_run.pk).status == RunStatus.RUNNING


# --- pod copies: the one pass first (issue 42) -----------------------------------------------------


@pytest.fixture
def pods(owner: Client) -> dict:
    return owner.post("/api/scenarios", {"name": "pods", "text": CAPACITY_PODS}, content_type=JSON).json()


def _ask_copies(owner: Client, scenario: dict, capture, **body) -> CapacityQuestion:
    with capture(execute=True):
        asked = owner.post(f"/api/capacity/scenarios/{scenario['id']}", {"kind": "fit", **body}, content_type=JSON)
    assert asked.status_code == 201, asked.content
    return CapacityQuestion.objects.get(pk=asked.json()["id"])


@pytest.mark.parametrize(("pod", "method"), [("default/api-0", "counted"), ("default/cache-0", "placed")])
def test_a_pod_copies_question_is_answered_by_one_pass_as_the_cli(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks, pod: str, method: str
):
    workers = InProcessWorkers(monkeypatch)
    question = _ask_copies(owner, pods, django_capture_on_commit_callbacks, pod=pod)
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    cli = how_many_copies(TrialBase.from_text(CAPACITY_PODS), pod)
    assert (question.status, question.method, question.why) == (RunStatus.SUCCEEDED, method, cli.why)
    assert (
        question.copies_done,
        question.per_node,
        question.stopped_by,
        question.stop_message,
        question.stopped_at_max,
    ) == (cli.fits, cli.placements, cli.stopped_by, cli.message, False)
    assert not workers.rounds and not CapacityTrial.objects.exists() and question.trials_done == 0  # no trial at all
    assert question.answer == {"copies": without_trials(cli.wire())}  # the engine's answer, less its trial
    assert "scenarioText" not in str(question.answer)
    assert workers.runs == [question.deciding_run_id] and question.deciding_label == f"{cli.fits + 1} more"
    assert question.deciding_cycle == cli.deciding_cycle == 0 + cli.fits  # the scenario's own run has no attempt


def test_copies_that_could_preempt_fall_back_to_the_trial_rounds_saying_why(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    question = _ask_copies(owner, pods, django_capture_on_commit_callbacks, pod="default/urgent-0")
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    trials = how_many_fit(TrialBase.from_text(CAPACITY_PODS), pod="default/urgent-0")
    assert (question.status, question.method) == (RunStatus.SUCCEEDED, "trials") and workers.rounds
    assert question.why.startswith("the copies could preempt lower-priority pods")
    assert (question.copies_done, question.per_node, [question.stopped_by], question.stop_message) == (
        trials.fits,
        trials.placements,
        trials.stopped_by,
        trials.message,
    )
    copies = question.answer["copies"]
    assert (copies["method"], copies["why"], copies["displaced"]) == ("trials", question.why, trials.displaced)
    assert (copies["stoppedBy"], copies["explanation"]) == (trials.stopped_by, trials.explanation.to_json())
    assert list(copies) == [key for key in without_trials(copies_by_trials(trials, question.why))]  # the pass's keys


def test_the_pass_reports_its_copies_and_rate_every_thousand_copies(
    owner: Client, monkeypatch, django_capture_on_commit_callbacks
):
    scenario = owner.post("/api/scenarios", {"name": "many", "text": many_copies_text()}, content_type=JSON).json()
    workers = InProcessWorkers(monkeypatch)
    seen: list[tuple] = []

    def published(question_id: int) -> None:  # what a watcher reads each time the worker says the row changed
        seen.append(
            CapacityQuestion.objects.filter(pk=question_id)
            .values_list("status", "method", "copies_done", "copies_per_second")
            .get()
        )

    monkeypatch.setattr(publisher, "publish_capacity", published)
    question = _ask_copies(owner, scenario, django_capture_on_commit_callbacks, pod="default/p")
    workers.drain(django_capture_on_commit_callbacks)
    running = [row for row in seen if row[0] == RunStatus.RUNNING]
    assert [row[2] for row in running] == [PROGRESS_EVERY] and running[0][1] == "" and running[0][3] > 0
    question.refresh_from_db()
    assert (question.method, question.copies_done, question.stopped_at_max) == ("placed", 1199, False)
    assert seen[-1][:3] == (RunStatus.SUCCEEDED, "placed", 1199) and question.deciding_run_id is not None


def test_cancelling_stops_the_pass_at_its_next_report(owner: Client, monkeypatch, django_capture_on_commit_callbacks):
    scenario = owner.post("/api/scenarios", {"name": "many", "text": many_copies_text()}, content_type=JSON).json()
    workers = InProcessWorkers(monkeypatch)
    monkeypatch.setattr(capacity, "_revoke", lambda task_ids: None)

    def cancel_when_running(question_id: int) -> None:
        question = CapacityQuestion.objects.get(pk=question_id)
        if question.status == RunStatus.RUNNING and question.copies_done:
            monkeypatch.setattr(publisher, "publish_capacity", lambda question_id: None)
            owner.post(f"/api/capacity/{question_id}/cancel")

    monkeypatch.setattr(publisher, "publish_capacity", cancel_when_running)
    question = _ask_copies(owner, scenario, django_capture_on_commit_callbacks, pod="default/p")
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    assert (question.status, question.answer, question.copies_done, question.method) == (
        RunStatus.CANCELLED,
        None,
        PROGRESS_EVERY,
        "",
    )
    assert question.deciding_run_id is None and not workers.runs


def test_a_second_delivery_leaves_the_pass_to_the_first_and_recovery_takes_over_a_dead_one(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    question = _ask_copies(owner, pods, django_capture_on_commit_callbacks, pod="default/cache-0")
    # the first delivery took the pass, then its worker died (nothing more written)
    CapacityQuestion.objects.filter(pk=question.pk).update(pass_claim=1, status=RunStatus.RUNNING)
    workers.drain(django_capture_on_commit_callbacks)  # the message delivered again meanwhile: not its pass
    question.refresh_from_db()
    assert (question.status, question.method, question.answer) == (RunStatus.RUNNING, "", None)
    _stall(question.pk)
    assert _sweep(django_capture_on_commit_callbacks) == 1 and workers.advances == [question.pk]
    workers.drain(django_capture_on_commit_callbacks)
    question.refresh_from_db()
    assert (question.status, question.method, question.redispatches, question.pass_claim) == (
        RunStatus.SUCCEEDED,
        "placed",
        1,
        2,
    )
    assert question.copies_done == how_many_copies(TrialBase.from_text(CAPACITY_PODS), "default/cache-0").fits


def test_stopping_all_cancels_the_active_questions_found_revokes_their_trials_and_tells_watchers(monkeypatch):
    version = ScenarioVersion.objects.create(
        scenario=Scenario.objects.create(name="s", owner_session_key="k"), number=1
    )
    running, done, elsewhere = (
        CapacityQuestion.objects.create(version=version, kind="fit", status=status)
        for status in (RunStatus.RUNNING, RunStatus.SUCCEEDED, RunStatus.QUEUED)
    )
    CapacityTrial.objects.create(question=running, round=0, index=0, label="a", changes=b"", task_id="t-1")
    CapacityTrial.objects.create(
        question=running, round=0, index=1, label="b", changes=b"", outcome=b"x", task_id="t-2"
    )
    revoked: list[list[str]] = []
    told: list[int] = []
    monkeypatch.setattr(capacity, "_revoke", revoked.append)
    monkeypatch.setattr(publisher, "publish_capacity", told.append)
    found = CapacityQuestion.objects.filter(pk__in=[running.pk, done.pk])
    assert capacity.stop_all(found, "its account was deleted") == 1
    running.refresh_from_db()
    assert (running.status, running.error) == (RunStatus.CANCELLED, "its account was deleted")
    assert revoked == [["t-1"]] and told == [running.pk]
    assert CapacityQuestion.objects.get(pk=done.pk).status == RunStatus.SUCCEEDED
    assert CapacityQuestion.objects.get(pk=elsewhere.pk).status == RunStatus.QUEUED


def test_work_goes_where_dispatched_by_says_while_the_block_runs_and_to_celery_after():
    advanced: list[int] = []
    ran: list[int] = []
    rounds: list[list[int]] = []
    with capacity.dispatched_by(capacity.Dispatch(advanced.append, ran.append, rounds.append)):
        capacity._send_advance(7)
        capacity._send_run(8)
        capacity._dispatch([9, 10])
    assert (advanced, ran, rounds) == ([7], [8], [[9, 10]])
    assert capacity._DISPATCH.get() is capacity.CELERY
