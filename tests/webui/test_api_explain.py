"""GET /api/runs/{id}/cycles/{n}/explain: the engine's explanation of one cycle, served as typed JSON."""

import pytest
from django.test import Client

from webui.services import demos
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


def finished_run(client: Client, text: str) -> dict:
    created = client.post("/api/scenarios", {"name": "explained", "text": text}, content_type=JSON).json()
    run = client.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return {**client.get(f"/api/runs/{run['id']}").json(), "scenario": created["id"]}


@pytest.fixture
def conflict_run(owner: Client) -> dict:
    return finished_run(owner, demos.get("seed_pts_conflict").text)


def test_it_says_why_the_conflicting_spread_example_fits_nowhere(owner: Client, conflict_run: dict):
    body = owner.get(f"/api/runs/{conflict_run['id']}/cycles/0/explain").json()
    assert (body["outcome"], body["node"], body["pod"]) == ("unschedulable", None, "default/mypod")
    assert body["headline"] == "zone allows zoneB (node3); node allows node2 (zoneA): no node is allowed by both."
    assert [(c["topologyKey"], c["allowed"]) for c in body["spread"]["constraints"]] == [
        ("zone", [{"value": "zoneB", "nodes": ["node3"]}]),
        ("node", [{"value": "node2", "nodes": ["node2"]}]),
    ]
    assert body["spread"]["allowedByAll"] == []
    assert body["filter"]["groups"] == [{"reason": "node(s) didn't match pod topology spread constraints", "count": 3,
                                         "plugins": ["PodTopologySpread"], "nodes": ["node1", "node2", "node3"],
                                         "outsidePreFilter": False}]
    assert body["winner"] is None


def test_it_explains_the_winner_of_a_scheduled_cycle(owner: Client):
    run = finished_run(owner, demos.get("seed_pts_single_constraint").text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    winner = body["winner"]
    assert (body["outcome"], body["node"], winner["node"], winner["runnerUp"]) == ("scheduled", "node4", "node4", "node3")
    assert body["headline"] == winner["sentence"] == "node4 beat node3 by 2: NodeResourcesFit +2."
    by_plugin = {p["plugin"]: p["difference"] for p in winner["plugins"]}
    assert by_plugin["NodeResourcesFit"] == 2 and sum(by_plugin.values()) == winner["margin"] == 2


def test_it_answers_404_for_a_cycle_without_events(owner: Client, conflict_run: dict):
    response = owner.get(f"/api/runs/{conflict_run['id']}/cycles/7/explain")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_lets_a_share_token_read_explanations_but_not_strangers(owner: Client, stranger: Client, conflict_run: dict):
    token = owner.post(f"/api/scenarios/{conflict_run['scenario']}/share", {"run": conflict_run["id"]},
                       content_type=JSON).json()["token"]
    path = f"/api/runs/{conflict_run['id']}/cycles/0/explain"
    assert stranger.get(path, headers={"X-Share-Token": token}).json()["outcome"] == "unschedulable"
    assert stranger.get(path).status_code == 404
