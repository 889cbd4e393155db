"""GET /api/runs/{id}/cycles and /events?cycle=N: one cycle at a time for big runs."""

import gzip
import json

import pytest
from django.test import Client

from scheduler_core.columnar import RunNames, decode_segment
from webui.models import Run
from webui.services import engine
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
        # The cycle's own events, CycleStart..CycleEnd (a run to the end has its moves around them).
        mine = [e for e in events if cycle["firstSeq"] <= e["seq"] < cycle["endSeq"]]
        assert all(e["cycle"] == cycle["cycle"] for e in mine)
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


def test_it_serves_a_cycle_as_its_stored_columnar_segment(owner: Client, run: dict):
    response = owner.get(f"/api/runs/{run['id']}/segment?cycle=1")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-npz"
    names = owner.get(f"/api/runs/{run['id']}/names").json()
    decoded = decode_segment(response.content, RunNames([n["name"] for n in names["nodes"]], names["pods"]))
    expected = owner.get(f"/api/runs/{run['id']}/events?cycle=1").json()["events"]
    assert [{"seq": decoded.first_seq + i, **e} for i, e in enumerate(decoded.events)] == expected


def test_it_answers_404_for_a_cycle_not_stored(owner: Client, run: dict):
    response = owner.get(f"/api/runs/{run['id']}/segment?cycle=9")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_it_gives_the_runs_names_once_gzipped_when_accepted(owner: Client, run: dict, small_text: str):
    plain = owner.get(f"/api/runs/{run['id']}/names")
    zipped = owner.get(f"/api/runs/{run['id']}/names", HTTP_ACCEPT_ENCODING="gzip, br")
    assert zipped["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    scenario = engine.load(small_text)
    assert plain.json() == {
        "nodes": [{"name": n.name, "labels": dict(n.labels)} for n in scenario.nodes],
        "pods": [p.key for p in scenario.pending_pods],
    }


def test_it_builds_the_names_of_a_run_stored_before_they_were_kept(owner: Client, run: dict):
    Run.objects.filter(pk=run["id"]).update(names_gz=None)
    names = owner.get(f"/api/runs/{run['id']}/names").json()
    assert [n["name"] for n in names["nodes"]] and Run.objects.get(pk=run["id"]).names_gz is not None


def test_it_lets_a_share_token_read_segments_and_names_but_not_strangers(owner: Client, stranger: Client, scenario: dict, run: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/runs/{run['id']}/segment?cycle=0", headers=headers).status_code == 200
    assert stranger.get(f"/api/runs/{run['id']}/names", headers=headers).status_code == 200
    assert stranger.get(f"/api/runs/{run['id']}/segment?cycle=0").status_code == 404
    assert stranger.get(f"/api/runs/{run['id']}/names").status_code == 404


def test_a_finished_runs_segment_is_cached_by_its_owner_but_never_through_a_share_link(owner: Client, stranger: Client, scenario: dict, run: dict):
    assert "immutable" in owner.get(f"/api/runs/{run['id']}/segment?cycle=0")["Cache-Control"]
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    shared = stranger.get(f"/api/runs/{run['id']}/segment?cycle=0", headers={"X-Share-Token": token})
    assert shared["Cache-Control"] == "no-store"
