"""/api/session, /api/demos, /api/docs."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


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
