"""/api/session, /api/validate, /api/demos, /api/docs and /api/comparisons (webui/routers/misc.py)."""

import json
from pathlib import Path

import pytest
from django.test import Client

from webui.models import Run
from webui.services import events
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def finished_run(client: Client, scenario_id: int) -> dict:
    """A run of the scenario's latest version, run to the end as a worker runs it."""
    run = client.post(f"/api/scenarios/{scenario_id}/runs").json()
    execute_run.apply(args=[run["id"]])
    return run


def test_it_hands_out_a_csrf_token_and_cookie():
    client = Client()
    body = client.get("/api/session").json()
    assert body["anonymous"] is True and body["user"] is None
    assert client.cookies["csrftoken"].value


def test_it_lists_the_demo_scenarios(owner: Client):
    demos = owner.get("/api/demos").json()
    assert [d["slug"] for d in demos] == ["capacity_web", "seed_pod_affinity", "seed_pts_conflict", "seed_pts_single_constraint", "seed_pts_two_constraints"]
    assert all(d["name"] and d["description"] for d in demos)


def test_it_creates_an_owned_scenario_from_a_demo(owner: Client):
    response = owner.post("/api/demos/seed_pts_conflict/scenarios")
    assert response.status_code == 201
    body = response.json()
    assert (body["owned"], body["demo"], body["valid"]) == (True, False, True)


def test_it_answers_404_for_an_unknown_demo(owner: Client):
    response = owner.post("/api/demos/nope/scenarios")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no demo named 'nope'"


def test_it_serves_openapi_docs(owner: Client):
    assert owner.get("/api/docs").status_code == 200
    paths = owner.get("/api/openapi.json").json()["paths"]
    for path in ("/api/scenarios", "/api/scenarios/{scenario_id}", "/api/scenarios/{scenario_id}/runs", "/api/runs/{run_id}/events", "/api/runs/{run_id}/trace", "/api/scenarios/{scenario_id}/share"):
        assert path in paths


def test_it_serves_the_docs_page_from_our_own_static_files(owner: Client):
    html = owner.get("/api/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()


def test_every_api_operation_has_a_summary_and_a_description(owner: Client):
    paths = owner.get("/api/openapi.json").json()["paths"]
    operations = [(method.upper(), path, op) for path, item in paths.items() for method, op in item.items()]
    assert len(operations) >= 30
    undocumented = [f"{method} {path}" for method, path, op in operations
                    if not op.get("summary", "").strip() or len(op.get("description", "").strip()) < 20]
    assert undocumented == []
    # Our summaries, not ninja's title-cased function names ("Scenario List").
    assert paths["/api/scenarios"]["get"]["summary"] == "List scenarios"
    assert "runner-up" in paths["/api/runs/{run_id}/cycles/{cycle}/explain"]["get"]["description"]


# --- /api/comparisons


def test_it_compares_two_runs_of_two_configurations(owner: Client):
    here = FIXTURES / "compare"
    text = (here / "two_nodes.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    first = finished_run(owner, created["id"])
    owner.put(f"/api/scenarios/{created['id']}", {"text": text + "---\n" + (here / "most_allocated.yaml").read_text()},
              content_type=JSON)
    second = finished_run(owner, created["id"])
    result = owner.get(f"/api/comparisons?a={first['id']}&b={second['id']}&pod=default/web").json()
    assert result["summary"] == "1 pod(s) land elsewhere in B than in A."
    assert {"pod": "default/web", "a": "n2", "b": "n1"} in result["pods"]  # LeastAllocated, then MostAllocated
    assert result["scores"]["pod"] == "default/web" and result["modes"] == ["timeline", "timeline"]


def test_it_refuses_to_compare_a_run_that_has_not_finished(owner: Client, scenario: dict):
    finished = finished_run(owner, scenario["id"])
    queued = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    response = owner.get(f"/api/comparisons?a={finished['id']}&b={queued['id']}")
    assert response.status_code == 400 and "have not succeeded" in response.json()["error"]["message"]


TOLERATING_POD = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: default}\n"
                  "spec: {tolerations: [{operator: Exists}], containers: [{name: c}]}\n")


def test_a_comparison_is_the_engine_s_answer_as_typed_with_the_keys_it_has(owner: Client):
    """ComparisonOut: every key of events.comparison kept, and `aWhy`/`bWhy` only where a run left the pod pending."""
    text = (FIXTURES / "whatif" / "tainted.yaml").read_text() + TOLERATING_POD
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    a, b = finished_run(owner, created["id"]), finished_run(owner, created["id"])
    body = owner.get(f"/api/comparisons?a={a['id']}&b={b['id']}&pod=default/p").json()
    expected = events.comparison(Run.objects.get(pk=a["id"]), Run.objects.get(pk=b["id"]), "default/p")
    assert body == json.loads(json.dumps(expected))
    [pending] = [row for row in body["pods"] if row["pod"] == "default/p"]
    assert pending["a"] is None and pending["aWhy"] and pending["bWhy"]
    assert not any("aWhy" in row for row in body["pods"] if row["a"] is not None)
