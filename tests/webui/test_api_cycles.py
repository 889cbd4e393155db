"""GET /api/runs/{id}/cycles and /events?cycle=N: one cycle at a time for big runs."""

import pytest
from django.test import Client

from webui.models import Run
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def run(owner: Client, scenario: dict) -> dict:
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return owner.get(f"/api/runs/{run['id']}").json()


def all_events(client: Client, run_id: int) -> list[dict]:
    return client.get(f"/api/runs/{run_id}/events?limit=5000").json()["events"]


def test_it_lists_each_cycle_with_its_pod_node_and_seq_range(owner: Client, run: dict):
    events = all_events(owner, run["id"])
    cycles = owner.get(f"/api/runs/{run['id']}/cycles").json()
    assert [c["cycle"] for c in cycles] == [0, 1]
    for cycle in cycles:
        mine = [e for e in events if e["cycle"] == cycle["cycle"]]
        assert (cycle["firstSeq"], cycle["endSeq"]) == (mine[0]["seq"], mine[-1]["seq"] + 1)
        assert (mine[0]["extensionPoint"], mine[-1]["extensionPoint"]) == ("CycleStart", "CycleEnd")
        assert cycle["pod"] == mine[0]["pod"]
        assert cycle["nodeName"] == mine[-1]["payload"]["nodeName"] and cycle["nodeName"]
        assert cycle["failedSchedulingMessage"] is None


def test_it_reports_why_a_pod_was_not_scheduled(owner: Client, small_text: str):
    text = small_text.replace("memory: 64Mi", "memory: 64Ti")
    created = owner.post("/api/scenarios", {"name": "too big", "text": text}, content_type=JSON).json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    [first, _] = owner.get(f"/api/runs/{run['id']}/cycles").json()
    assert first["nodeName"] is None and "Insufficient memory" in first["failedSchedulingMessage"]


def test_it_answers_all_events_of_one_cycle_at_once(owner: Client, run: dict):
    events = all_events(owner, run["id"])
    body = owner.get(f"/api/runs/{run['id']}/events?cycle=1&limit=1").json()
    assert body["events"] == [e for e in events if e["cycle"] == 1]
    assert (body["next"], body["done"]) == (body["events"][-1]["seq"] + 1, True)


def test_it_answers_an_unknown_cycle_with_no_events(owner: Client, run: dict):
    assert owner.get(f"/api/runs/{run['id']}/events?cycle=99").json() == {"events": [], "next": 0, "done": True}


def test_it_says_a_running_runs_unfinished_cycle_is_not_done(owner: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    assert owner.get(f"/api/runs/{run['id']}/events?cycle=0").json() == {"events": [], "next": 0, "done": False}
    assert owner.get(f"/api/runs/{run['id']}/cycles").json() == []


def test_it_states_the_stored_bytes_per_cycle(owner: Client, run: dict):
    stored = Run.objects.get(pk=run["id"]).stored_bytes
    assert stored > 0
    assert (run["storedBytes"], run["storedBytesPerCycle"]) == (stored, stored // 2)


def test_it_lets_a_share_token_read_cycles_but_not_strangers(owner: Client, stranger: Client, scenario: dict, run: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    headers = {"X-Share-Token": token}
    assert len(stranger.get(f"/api/runs/{run['id']}/cycles", headers=headers).json()) == 2
    assert stranger.get(f"/api/runs/{run['id']}/events?cycle=0", headers=headers).json()["events"]
    assert stranger.get(f"/api/runs/{run['id']}/cycles").status_code == 404
    assert stranger.get(f"/api/runs/{run['id']}/events?cycle=0").status_code == 404
