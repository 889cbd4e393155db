"""A run with steps through the API: the timeline's typed `steps` (each step's summary) and
GET /api/runs/{id}/steps/{k}/cluster (the cluster at the end of a step, what moved marked)."""

import gzip
import json
from pathlib import Path

import pytest
from django.test import Client

from webui import api
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "changes_scale_drain.yaml"


@pytest.fixture
def stepped_run(owner: Client) -> dict:
    """examples/changes_scale_drain.yaml run to the end: web 4 → 6, then node-1 drained under a budget."""
    created = owner.post("/api/scenarios", {"name": "steps", "text": EXAMPLE.read_text()}, content_type="application/json")
    assert created.status_code == 201, created.content
    run = owner.post(f"/api/scenarios/{created.json()['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return owner.get(f"/api/runs/{run['id']}").json()


def test_the_timeline_gives_each_step_with_its_summary(owner: Client, stepped_run: dict):
    story = owner.get(f"/api/runs/{stepped_run['id']}/timeline").json()
    assert [(s["step"], s["name"]) for s in story["steps"]] == [(0, "scenario"), (1, "scale web to 6"), (2, "maintenance on node-1")]
    scale, drain = story["steps"][1]["summary"], story["steps"][2]["summary"]
    assert len(scale["created"]) == 2 and len(scale["placed"]) == 2 and scale["pending"] == []
    assert story["steps"][2]["operations"] == ["drain node-1"]
    assert len(drain["evicted"]) == 2 and len(drain["created"]) == 2 and drain["blocked"] == []
    assert story["steps"][2]["text"].startswith("step 2 — maintenance on node-1: 2 created, 2 evicted, 2 placed")
    step_entries = [e["index"] for e in story["entries"] if e["kind"] == "step"]
    assert step_entries == [0, 1, 2]


def test_a_run_without_steps_has_no_steps_in_its_timeline(owner: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    assert "steps" not in owner.get(f"/api/runs/{run['id']}/timeline").json()
    assert owner.get(f"/api/runs/{run['id']}/steps/0/cluster").status_code == 404


def test_the_cluster_at_the_end_of_a_step_marks_what_it_created_and_evicted(owner: Client, stepped_run: dict):
    url = f"/api/runs/{stepped_run['id']}/steps/{{}}/cluster"
    scaled = owner.get(url.format(1)).json()
    assert [n["name"] for n in scaled["nodes"]] == ["node-1", "node-2", "node-3"]
    marks = [p["mark"] for p in scaled["pods"]]
    assert marks.count("new") == 2 and marks.count("") == 4 and scaled["gone"] == []
    assert all(p["labels"]["app"] == "web" for p in scaled["pods"])
    drained = owner.get(url.format(2)).json()
    node_1 = next(n for n in drained["nodes"] if n["name"] == "node-1")
    assert node_1["unschedulable"] is True
    assert [(g["node"], g["how"]) for g in drained["gone"]] == [("node-1", "evicted"), ("node-1", "evicted")]
    assert all(p["node"] != "node-1" for p in drained["pods"])
    assert owner.get(url.format(3)).status_code == 404


def test_the_cluster_of_a_step_is_read_only_to_others(stranger: Client, stepped_run: dict):
    assert stranger.get(f"/api/runs/{stepped_run['id']}/steps/1/cluster").status_code == 404


def test_a_drain_blocked_by_a_budget_is_in_the_steps_summary_with_the_budget(owner: Client):
    text = EXAMPLE.read_text().replace("minAvailable: 5", "minAvailable: 4").replace(
        "replicas: 6}", "replicas: 4}")  # 4 running, 4 wanted: no eviction is allowed
    created = owner.post("/api/scenarios", {"name": "blocked", "text": text}, content_type="application/json").json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    drain = owner.get(f"/api/runs/{run['id']}/timeline").json()["steps"][2]["summary"]
    assert drain["evicted"] == [] and drain["blocked"]
    assert {b["budget"] for b in drain["blocked"]} == {"default/web-pdb"}
    cluster = owner.get(f"/api/runs/{run['id']}/steps/2/cluster").json()
    assert cluster["gone"] == [] and next(n for n in cluster["nodes"] if n["name"] == "node-1")["unschedulable"] is True


def test_a_large_step_cluster_is_sent_gzipped_to_clients_that_accept_it(owner: Client, stepped_run: dict, monkeypatch):
    monkeypatch.setattr(api, "GZIP_MIN_BYTES", 100)
    response = owner.get(f"/api/runs/{stepped_run['id']}/steps/1/cluster", HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.content))["step"] == 1
