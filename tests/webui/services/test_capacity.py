"""services/capacity.py: how a question is stored, dispatched in rounds and answered (driven in this
process; tests/webui/test_service_capacity.py runs it on real workers)."""

from __future__ import annotations

import pytest
from django.test import Client

from scheduler_core.capacity import TrialBase, TrialChanges, how_many_fit, run_trial
from tests.webui.capacity_support import CAPACITY_WEB, InProcessWorkers
from webui.models import CapacityQuestion, CapacityTrial, RunStatus, Scenario
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
        owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = 2
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(f"/api/scenarios/{web['id']}/capacity", {"kind": "fit", "workload": "default/web"}, content_type=JSON)
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
    assert [sorted(CapacityTrial.objects.filter(round=n).values_list("index", flat=True)) for n in range(question.rounds)] == \
        [list(range(len(r))) for r in workers.rounds]
    assert "scenarioText" not in str(question.answer) and question.answer["fit"]["fits"] == \
        how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web").fits
    trial_scenario = Scenario.objects.get(pk=question.deciding_run.version.scenario_id)
    assert trial_scenario.forked_from_id == question.version_id and trial_scenario.owner_session_key == question.owner_session_key
    assert "kind: Changes" in trial_scenario.text and question.deciding_label == f"{question.answer['fit']['fits'] + 1} more"


def test_a_failing_trial_fails_the_question_with_its_reason(owner: Client, web: dict, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    workers = InProcessWorkers(monkeypatch)

    def broken(base, changes):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(capacity, "run_trial", broken)
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(f"/api/scenarios/{web['id']}/capacity", {"kind": "fragmentation"}, content_type=JSON)
    workers.drain(django_capture_on_commit_callbacks)
    question = CapacityQuestion.objects.get()
    assert question.status == RunStatus.FAILED and "engine exploded" in question.error


def test_targets_lists_the_scalable_workloads_and_nodes(owner: Client, web: dict):
    body = owner.get(f"/api/scenarios/{web['id']}/capacity/targets").json()
    assert body["workloads"] == [{"kind": "Deployment", "namespace": "default", "name": "web", "replicas": 4}]
    assert body["nodes"] == ["node-1", "node-2", "node-3"] and body["version"] == 1
