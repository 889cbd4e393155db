"""webui.api: who is asking (a session Actor, CSRF on writes, a share token reads only), one error
shape for every failure the handlers map, one router per area each under its own prefix, and the
OpenAPI docs."""

import re

import pytest
from django.db import OperationalError
from django.test import Client

from webui.api import api
from webui.services import scenarios

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_it_requires_csrf_on_writes(small_text: str):
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/session").json()["csrfToken"]
    refused = client.post("/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "csrf_failed"
    accepted = client.post(
        "/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON, headers={"X-CSRFToken": token}
    )
    assert accepted.status_code == 201


def test_it_answers_413_for_an_oversized_request_body(owner: Client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = owner.post("/api/scenarios", {"name": "big", "text": "x" * 5000}, content_type=JSON)
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["details"]["limit"], error["details"]["max"]) == ("max_body_bytes", 1000)
    assert re.match(
        r"the request is 50\d\d bytes, more than the 1000 bytes a request's body may hold; send a scenario that big "
        r"as a file \(POST /api/uploads/file, as the importer sends any file of 8 MB or more\), or this server's "
        r"administrator raises the limit with SCHEDLAB_MAX_BODY_BYTES=50\d\d$",
        error["message"],
    )


def test_a_share_token_refuses_every_write_before_the_operation_runs(owner: Client, scenario: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    response = owner.put(
        f"/api/scenarios/{scenario['id']}", {"text": ""}, content_type=JSON, headers={"X-Share-Token": token}
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "share_read_only"
    assert len(owner.get(f"/api/scenarios/{scenario['id']}/versions").json()) == 1


def test_a_request_that_does_not_match_the_schema_gets_the_one_error_shape(owner: Client):
    response = owner.post("/api/scenarios", {"text": "no name"}, content_type=JSON)
    assert response.status_code == 422
    error = response.json()["error"]
    assert (error["code"], error["message"]) == ("invalid_request", "the request does not match the schema")
    assert error["details"]["errors"]


def test_a_database_that_cannot_answer_is_a_503_with_retry_after(owner: Client, monkeypatch, settings):
    def unreachable(*args, **kwargs):
        raise OperationalError("connection failed: FATAL:  sorry, too many clients already")

    monkeypatch.setattr(scenarios, "listing", unreachable)
    response = owner.get("/api/scenarios")
    assert response.status_code == 503 and response["Retry-After"] == str(settings.SCHEDLAB_RETRY_AFTER_SECONDS)
    assert response.json()["error"]["code"] == "service_unavailable"


def test_a_write_with_a_share_token_but_no_csrf_token_is_refused_by_the_csrf_check(owner: Client, scenario: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    client = Client(enforce_csrf_checks=True)
    response = client.put(
        f"/api/scenarios/{scenario['id']}", {"text": ""}, content_type=JSON, headers={"X-Share-Token": token}
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "csrf_failed"
    assert "sessionid" not in client.cookies  # refused before the anonymous writer's session was made


@pytest.mark.parametrize(
    ("path", "tag"),
    [
        ("/api/session", "session"),
        ("/api/validate", "validate"),
        ("/api/demos/{slug}/scenarios", "demos"),
        ("/api/comparisons", "comparisons"),
        ("/api/scenarios/{scenario_id}", "scenarios"),
        ("/api/scenarios/{scenario_id}/share", "scenarios"),
        ("/api/runs/{run_id}/timeline", "runs"),
        ("/api/share/{token}", "share links"),
        ("/api/capacity/scenarios/{scenario_id}", "capacity"),
        ("/api/capacity/{question_id}", "capacity"),
    ],
    ids=[
        "the session",
        "validation",
        "a demo's copy",
        "comparisons",
        "a scenario is under scenarios",
        "a scenario's share links are made under scenarios",
        "a run's story is under runs",
        "opening a link is under share links",
        "a scenario's capacity questions are under capacity",
        "one capacity question is under capacity",
    ],
)
def test_each_area_s_router_is_mounted_under_its_prefix_with_its_tag(owner: Client, path: str, tag: str):
    operations = owner.get("/api/openapi.json").json()["paths"][path]
    assert {tag} == {t for operation in operations.values() for t in operation["tags"]}


def test_no_router_is_mounted_at_the_root_and_each_writes_its_answers_by_alias():
    prefixes = [prefix for prefix, _router in api._routers if prefix]  # the api's own root router has none
    assert prefixes and "/" not in prefixes and len(prefixes) == len(set(prefixes))
    operations = [
        operation
        for _prefix, router in api._routers
        for view in router.path_operations.values()
        for operation in view.operations
    ]
    assert operations and all(operation.by_alias for operation in operations)


def test_it_serves_openapi_docs(owner: Client):
    assert owner.get("/api/docs").status_code == 200
    paths = owner.get("/api/openapi.json").json()["paths"]
    for path in (
        "/api/scenarios",
        "/api/scenarios/{scenario_id}",
        "/api/scenarios/{scenario_id}/runs",
        "/api/runs/{run_id}/events",
        "/api/runs/{run_id}/trace",
        "/api/scenarios/{scenario_id}/share",
    ):
        assert path in paths


def test_it_serves_the_docs_page_from_our_own_static_files(owner: Client):
    html = owner.get("/api/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()


def test_every_api_operation_has_a_summary_and_a_description(owner: Client):
    paths = owner.get("/api/openapi.json").json()["paths"]
    operations = [(method.upper(), path, op) for path, item in paths.items() for method, op in item.items()]
    assert len(operations) >= 30
    undocumented = [
        f"{method} {path}"
        for method, path, op in operations
        if not op.get("summary", "").strip() or len(op.get("description", "").strip()) < 20
    ]
    assert undocumented == []
    # Our summaries, not ninja's title-cased function names ("Scenario List").
    assert paths["/api/scenarios"]["get"]["summary"] == "List scenarios"
    assert "runner-up" in paths["/api/runs/{run_id}/cycles/{cycle}/explain"]["get"]["description"]
