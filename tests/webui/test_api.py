"""webui.api: who is asking (a session Actor, CSRF on writes, a share token reads only), one error
shape for every failure the handlers map, and one router per area mounted under /api/."""

import pytest
from django.db import OperationalError
from django.test import Client

from webui.services import scenarios

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_it_requires_csrf_on_writes(small_text: str):
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/session").json()["csrfToken"]
    refused = client.post("/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "csrf_failed"
    accepted = client.post("/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON, headers={"X-CSRFToken": token})
    assert accepted.status_code == 201


def test_it_answers_413_for_an_oversized_request_body(owner: Client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = owner.post("/api/scenarios", {"name": "big", "text": "x" * 5000}, content_type=JSON)
    assert response.status_code == 413
    assert response.json()["error"]["details"]["limit"] == "max_bytes"


def test_a_share_token_refuses_every_write_before_the_operation_runs(owner: Client, scenario: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    response = owner.put(f"/api/scenarios/{scenario['id']}", {"text": ""}, content_type=JSON, headers={"X-Share-Token": token})
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


@pytest.mark.parametrize(("path", "tag"), [
    ("/api/session", "misc"),
    ("/api/comparisons", "misc"),
    ("/api/scenarios/{scenario_id}", "scenarios"),
    ("/api/scenarios/{scenario_id}/share", "scenarios"),
    ("/api/runs/{run_id}/timeline", "runs"),
    ("/api/share/{token}", "share links"),
], ids=["the session is misc", "comparisons are misc", "a scenario is under scenarios",
        "a scenario's share links are made under scenarios", "a run's story is under runs", "opening a link is under share links"])
def test_each_area_s_router_is_mounted_under_its_prefix_with_its_tag(owner: Client, path: str, tag: str):
    operations = owner.get("/api/openapi.json").json()["paths"][path]
    assert {tag} == {t for operation in operations.values() for t in operation["tags"]}

