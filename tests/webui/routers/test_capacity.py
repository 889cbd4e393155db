"""/api/scenarios/{id}/capacity and /api/capacity/{id}: ask, follow, read the answer, cancel; the
deciding trial's run opens at the step that shows the answer (webui/routers/capacity.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from scheduler_core.answers.capacity import TrialBase, how_many_fit
from tests.webui.capacity_support import CAPACITY_WEB, InProcessWorkers
from webui.models import CapacityQuestion, RunCycle, RunStatus
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def web(owner: Client) -> dict:
    response = owner.post("/api/scenarios", {"name": "web", "text": CAPACITY_WEB}, content_type=JSON)
    assert response.status_code == 201, response.content
    return response.json()


def ask(client: Client, scenario_id: int, **body):
    return client.post(f"/api/scenarios/{scenario_id}/capacity", body, content_type=JSON)


def test_it_answers_how_many_more_fit_as_the_cli_does_and_opens_the_deciding_cycle(
        owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = 3
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        asked = ask(owner, web["id"], kind="fit", workload="default/web")
    assert asked.status_code == 201, asked.content
    body = asked.json()
    assert (body["status"], body["width"], body["answer"], body["progress"]["done"]) == ("queued", 3, None, 0)
    workers.drain(django_capture_on_commit_callbacks)
    read = owner.get(f"/api/capacity/{body['id']}").json()
    sequential = how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web")
    fit = read["answer"]["fit"]
    assert read["status"] == "succeeded"
    assert (fit["fits"], fit["stoppedBy"], fit["message"], fit["placements"]) == \
        (sequential.fits, sequential.stopped_by, sequential.message, sequential.placements)
    assert fit["explanation"] == sequential.explanation.headline
    assert read["progress"]["done"] == read["progress"]["estimate"] == fit["trials"]
    assert max(len(r) for r in workers.rounds) == 3 and len(workers.rounds) < sequential.trials
    deciding = read["deciding"]
    assert workers.runs == [deciding["run"]]
    execute_run.apply(args=[deciding["run"]])
    cycle = RunCycle.objects.get(run_id=deciding["run"], cycle=deciding["cycle"])
    # the run's cycle the link opens is the N+1-th copy's last failed attempt, with the answer's message
    assert (cycle.pod, cycle.node_name, cycle.failed_scheduling_message) == (fit["stoppedBy"][0], None, fit["message"])
    assert deciding["url"] == f"/runs/{deciding['run']}/?cycle={deciding['cycle']}&step=Filter&changeStep=1"
    shared = owner.post(f"/api/scenarios/{deciding['scenario']}/share", {"run": deciding["run"], "step": "cycle=1"},
                        content_type=JSON)
    assert shared.status_code == 201, shared.content


def test_it_answers_which_nodes_can_go_with_the_budget_that_keeps_them(
        owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks):
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="removable", nodes=["node-1"]).json()
    workers.drain(django_capture_on_commit_callbacks)
    read = owner.get(f"/api/capacity/{body['id']}").json()
    verdicts = read["answer"]["removable"]["verdicts"]
    assert [(v["node"], v["removable"]) for v in verdicts] == [("node-1", False)]
    assert any("blocked by budget default/web-pdb" in reason for reason in verdicts[0]["reasons"])
    assert read["deciding"]["step"] == 1 and read["deciding"]["cycle"] is None


def test_it_answers_fragmentation_and_nodes_needed(owner: Client, web: dict, monkeypatch,
                                                   django_capture_on_commit_callbacks):
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        frag = ask(owner, web["id"], kind="fragmentation").json()
        nodes = ask(owner, web["id"], kind="nodes", likes=["node-1"]).json()
    workers.drain(django_capture_on_commit_callbacks)
    resources = owner.get(f"/api/capacity/{frag['id']}").json()["answer"]["fragmentation"]["resources"]
    assert [r["resource"] for r in resources] == ["cpu", "memory", "pods"]
    assert next(r for r in resources if r["resource"] == "cpu")["freeTotal"] == 4000  # 6 CPU less 4 × 500m
    needed = owner.get(f"/api/capacity/{nodes['id']}").json()
    assert needed["answer"]["nodes"] == {"pending": [], "templates": [], "trials": 1} and needed["deciding"] is None


def test_it_refuses_a_question_the_scenario_cannot_answer(owner: Client, web: dict):
    response = ask(owner, web["id"], kind="fit", workload="default/nothing")
    assert response.status_code == 400 and "no Deployment" in response.json()["error"]["message"]
    assert ask(owner, web["id"], kind="nodes", likes=["ghost"]).status_code == 400
    assert ask(owner, web["id"], kind="guess").status_code == 422
    assert CapacityQuestion.objects.count() == 0


def test_only_the_asker_reads_or_cancels_a_question(owner: Client, stranger: Client, web: dict, monkeypatch,
                                                    django_capture_on_commit_callbacks):
    InProcessWorkers(monkeypatch)
    assert ask(stranger, web["id"], kind="fragmentation").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="fragmentation").json()
    assert stranger.get(f"/api/capacity/{body['id']}").status_code == 404
    assert stranger.post(f"/api/capacity/{body['id']}/cancel").status_code == 404
    assert stranger.get(f"/api/scenarios/{web['id']}/capacity").status_code == 404
    assert [q["id"] for q in owner.get(f"/api/scenarios/{web['id']}/capacity").json()] == [body["id"]]


def test_cancelling_stops_the_question_and_its_trials(owner: Client, web: dict, monkeypatch,
                                                      django_capture_on_commit_callbacks):
    workers = InProcessWorkers(monkeypatch)
    revoked: list[list[str]] = []
    monkeypatch.setattr("webui.services.capacity._revoke", revoked.append)
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="fit", workload="default/web").json()
    workers.drain(django_capture_on_commit_callbacks, stop_after=1)  # the baseline ran; round 2 is out
    cancelled = owner.post(f"/api/capacity/{body['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert workers.trials and revoked == [[f"task-{trial_id}" for trial_id in workers.trials]]
    assert workers.drain(django_capture_on_commit_callbacks) == len(workers.rounds[-1])
    read = owner.get(f"/api/capacity/{body['id']}").json()
    assert (read["status"], read["answer"], read["progress"]["done"]) == (RunStatus.CANCELLED, None, 1)
    assert owner.post(f"/api/capacity/{body['id']}/cancel").status_code == 409
