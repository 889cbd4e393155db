"""GET /api/runs/{id}/cycles/{n}/explain: the engine's explanation of one cycle, served as typed JSON."""

import pytest
from django.test import Client

from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text, preemption_scenario
from webui.services import demos, events
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


def test_it_gives_the_numbers_behind_each_filter_reason(owner: Client):
    """The engine's facts (a replay of the run): request against free room, the taint, the port's
    holder, the label the nodeSelector wanted — in the sentence and typed per node and plugin."""
    run = finished_run(owner, numbers_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert "1 Insufficient cpu (full: cpu: asks 2500m; free 1800m of 4000m allocatable (2200m requested by 9 pod(s)))" in body["headline"]
    nodes = body["filterDetails"]["nodes"]
    [cpu] = nodes["full"]["plugins"]["NodeResourcesFit"]["facts"]
    assert (cpu["requested"], cpu["free"], cpu["allocatable"], cpu["used"], cpu["pods"]) == (2500, 1800, 4000, 2200, 9)
    assert cpu["requested"] > cpu["allocatable"] - cpu["used"]
    assert nodes["tainted"]["plugins"]["TaintToleration"]["facts"][0]["text"] == "untolerated taint dedicated=gpu:NoSchedule"
    assert nodes["ports"]["plugins"]["NodePorts"]["facts"][0]["usedBy"] == ["default/web-0"]
    assert nodes["hdd"]["plugins"]["NodeAffinity"]["facts"][0]["nodeValue"] == "hdd"
    assert body["filterDetailsNote"] is None


def test_it_says_why_a_run_too_large_to_replay_has_no_numbers(owner: Client, monkeypatch):
    monkeypatch.setattr(events, "EXPLAIN_REPLAY_NODE_CYCLES", 3)
    run = finished_run(owner, numbers_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert body["filterDetails"] is None
    assert body["filterDetailsNote"].startswith("the numbers behind the reasons need a replay of 1 cycles over 4 nodes")
    assert "(full, hdd, ports, tainted)" not in body["headline"] and "1 Insufficient cpu (full)" in body["headline"]


def test_it_ranks_the_preemption_candidates_with_the_deciding_criterion(owner: Client):
    run = finished_run(owner, preemption_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    ranking = body["preemption"]
    assert (ranking["chosen"], ranking["deciding"]) == ("a", "highestPriority")
    assert ranking["sentence"] == "a won on lowest highest victim priority (criterion 2 of 5)."
    assert [(c["node"], c["highestPriority"], c["droppedAt"], c["chosen"]) for c in ranking["candidates"]] == [
        ("a", 1, None, True), ("b", 5, "highestPriority", False)]
    assert [c["key"] for c in ranking["criteria"]] == ["pdbViolations", "highestPriority", "prioritySum", "victims", "latestStart"]


def test_it_says_the_release_skipped_scoring_for_a_single_feasible_node(owner: Client):
    run = finished_run(owner, demos.get("seed_pts_two_constraints").text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert (body["scoring"]["skipped"], body["scoring"]["node"]) == (True, "node4")
    assert "When only one node after predicate, just use it" in body["scoring"]["sentence"]
    scored = finished_run(owner, demos.get("seed_pts_single_constraint").text)
    assert owner.get(f"/api/runs/{scored['id']}/cycles/0/explain").json()["scoring"]["skipped"] is False


def test_it_says_when_only_some_rejected_nodes_have_numbers(owner: Client, monkeypatch):
    monkeypatch.setattr(events, "EXPLAIN_NODES_PER_PLUGIN", 1)
    text = "---\n".join([node_text(name, cpu="1") for name in ("a", "b", "c")] + [pod_text("web", cpu="2")])
    run = finished_run(owner, text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert list(body["filterDetails"]["nodes"]) == ["a"]
    assert body["filterDetailsNote"] == "numbers for the first 1 nodes each plugin rejected (1 of 3 rejected nodes)"
