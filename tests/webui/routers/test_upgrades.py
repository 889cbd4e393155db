"""/api/upgrades (webui/routers/upgrades.py): ask what changes if we upgrade, read it (its owner or its
share link), cancel it, open either side as a run; fleet checks asked, read, listed and cancelled."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.webui.upgrade_support import MOVES_ON_UPGRADE, InProcessLongWorkers, said_to_run
from webui.models import Run, Upgrade, UpgradeStatus

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def workers(monkeypatch) -> InProcessLongWorkers:
    return InProcessLongWorkers(monkeypatch)


@pytest.fixture
def moves(owner: Client) -> dict:
    return owner.post("/api/scenarios", {"name": "moves", "text": MOVES_ON_UPGRADE}, content_type=JSON).json()


def ask(client: Client, scenario_id: int, body: dict | None = None):
    return client.post(f"/api/upgrades/scenarios/{scenario_id}", body or {}, content_type=JSON)


def test_a_comparison_is_asked_followed_and_answered_with_the_engine_s_payload(
    owner: Client, moves: dict, workers, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(owner, moves["id"])
    assert response.status_code == 201, response.content
    asked = response.json()
    assert {k: asked[k] for k in ("scenario", "scenarioName", "version", "fromRelease", "toRelease", "status")} == {
        "scenario": moves["id"],
        "scenarioName": "moves",
        "version": 1,
        "fromRelease": "v1.35",
        "toRelease": "v1.36",
        "status": "queued",
    }
    assert asked["release"]["source"] == "default" and asked["answer"] is None
    assert asked["progress"] == {"done": 0, "total": 0, "what": ""}
    workers.drain()
    done = owner.get(f"/api/upgrades/{asked['id']}").json()
    assert done["status"] == "succeeded" and done["progress"]["done"] == done["progress"]["total"]
    assert done["answer"] == Upgrade.objects.get(pk=asked["id"]).answer  # served as the engine wrote it
    [pod] = done["answer"]["pods"]
    assert (pod["pod"], pod["oldNode"], pod["newNode"], pod["causes"]) == (
        "default/web",
        "n1",
        "n2",
        ["balanced_allocation_scores_the_change"],
    )
    assert done["counts"]["elsewhere"] == 1
    listed = owner.get(f"/api/upgrades/scenarios/{moves['id']}").json()
    assert [u["id"] for u in listed] == [asked["id"]]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"fromRelease": "v1.36"}, "to"),
        ({"toRelease": "v2.0"}, "release"),
        ({"featureGates": "NodeDeclaredFeatures"}, "featureGates"),
        ({"featureGates": {"NoSuchGate": True}}, "featureGates"),
    ],
    ids=["nothing newer", "not a release", "a gate without value", "an unknown gate"],
)
def test_a_refused_release_or_gate_is_a_400_naming_it(owner: Client, moves: dict, body: dict, field: str):
    response = ask(owner, moves["id"], body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "release_invalid" and error["details"]["field"] == field and error["message"]


def test_a_body_out_of_bounds_is_a_422_and_another_s_scenario_a_404(owner: Client, stranger: Client, moves: dict):
    assert ask(owner, moves["id"], {"toRelease": "v" * 41}).status_code == 422
    assert ask(owner, moves["id"], {"featureGates": ["a"]}).status_code == 422
    assert ask(stranger, moves["id"]).status_code == 404  # not visible to them: not revealed
    assert ask(owner, moves["id"], {"run": 999}).status_code == 404


def test_asked_from_a_run_it_is_that_run_s_version_and_release(owner: Client, moves: dict, workers):
    run = owner.post(f"/api/scenarios/{moves['id']}/runs?release=v1.33").json()
    asked = ask(owner, moves["id"], {"run": run["id"]}).json()
    assert (asked["fromRelease"], asked["toRelease"], asked["release"]) == ("v1.33", "v1.34", run["release"])
    other = owner.post("/api/scenarios", {"name": "other", "text": MOVES_ON_UPGRADE}, content_type=JSON).json()
    assert ask(owner, other["id"], {"run": run["id"]}).status_code == 404  # a run of another scenario


def test_it_is_cancelled_once_and_never_by_someone_else(owner: Client, stranger: Client, moves: dict, workers):
    asked = ask(owner, moves["id"]).json()
    assert stranger.post(f"/api/upgrades/{asked['id']}/cancel").status_code == 404
    cancelled = owner.post(f"/api/upgrades/{asked['id']}/cancel").json()
    assert (cancelled["status"], cancelled["error"]) == ("cancelled", "cancelled by the owner")
    again = owner.post(f"/api/upgrades/{asked['id']}/cancel")
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"


def test_either_side_opens_as_a_run_once(owner: Client, moves: dict, workers, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        asked = ask(owner, moves["id"]).json()
    workers.drain()
    opened = owner.post(f"/api/upgrades/{asked['id']}/runs", {"side": "new"}, content_type=JSON)
    assert opened.status_code == 201
    run = opened.json()
    assert (run["releaseAsked"], run["release"]["version"], run["featureGates"]) == ("v1.36", "v1.36.3", {})
    again = owner.post(f"/api/upgrades/{asked['id']}/runs", {"side": "new"}, content_type=JSON).json()
    assert again["id"] == run["id"]
    old = owner.post(f"/api/upgrades/{asked['id']}/runs", {"side": "old"}, content_type=JSON).json()
    assert old["release"]["version"] == "v1.35.4" and old["id"] != run["id"]
    assert owner.get(f"/api/upgrades/{asked['id']}").json()["newRun"] == run["id"]
    assert owner.post(f"/api/upgrades/{asked['id']}/runs", {"side": "both"}, content_type=JSON).status_code == 422


def test_its_share_link_reads_it_and_the_runs_of_its_sides_but_writes_nothing(
    owner: Client, moves: dict, workers, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        asked = ask(owner, moves["id"]).json()
    workers.drain()
    side = owner.post(f"/api/upgrades/{asked['id']}/runs", {"side": "new"}, content_type=JSON).json()
    link = owner.post(f"/api/scenarios/{moves['id']}/share", {"upgrade": asked["id"]}, content_type=JSON).json()
    assert link["upgrade"] == asked["id"] and link["run"] is None
    visitor = Client()
    header = {"HTTP_X_SHARE_TOKEN": link["token"]}
    assert visitor.get(f"/api/upgrades/{asked['id']}", **header).json()["status"] == "succeeded"
    assert visitor.get(f"/api/share/{link['token']}").json()["upgrade"] == asked["id"]
    assert visitor.get(f"/api/runs/{side['id']}", **header).status_code == 200
    other_run = owner.post(f"/api/scenarios/{moves['id']}/runs").json()
    assert visitor.get(f"/api/runs/{other_run['id']}", **header).status_code == 404
    visitor.get("/api/session")
    csrf = visitor.cookies["csrftoken"].value
    refused = visitor.post(f"/api/upgrades/{asked['id']}/cancel", HTTP_X_CSRFTOKEN=csrf, **header)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "share_read_only"
    other = owner.post("/api/scenarios", {"name": "x", "text": MOVES_ON_UPGRADE}, content_type=JSON).json()
    wrong = owner.post(f"/api/scenarios/{other['id']}/share", {"upgrade": asked["id"]}, content_type=JSON)
    assert wrong.status_code == 404  # an upgrade of another scenario


def test_a_fleet_check_fills_in_row_by_row(owner: Client, moves: dict, workers, django_capture_on_commit_callbacks):
    newest = owner.post(
        "/api/scenarios", {"name": "newest", "text": said_to_run(MOVES_ON_UPGRADE, "v1.36.2")}, content_type=JSON
    ).json()
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            "/api/upgrades/fleet", {"scenarios": [moves["id"], newest["id"]], "toRelease": "v1.36"}, content_type=JSON
        )
    assert response.status_code == 201, response.content
    fleet = response.json()
    assert (fleet["toRelease"], fleet["finished"], [r["status"] for r in fleet["rows"]]) == (
        "v1.36",
        False,
        ["queued", "queued"],
    )
    assert fleet["rows"][0]["fromRelease"] == "" and fleet["rows"][0]["counts"] is None
    workers.drain()
    fleet = owner.get(f"/api/upgrades/fleet/{fleet['id']}").json()
    first, second = fleet["rows"]
    assert fleet["finished"] and (first["status"], second["status"]) == ("succeeded", "skipped")
    assert (first["scenarioName"], first["fromRelease"], first["release"]["source"]) == ("moves", "v1.35", "default")
    assert first["counts"] == {
        "elsewhere": 1,
        "morePending": 0,
        "rescored": 1,
        "reworded": 0,
        "causes": ["balanced_allocation_scores_the_change"],
    }
    assert first["causes"][0]["name"] == "balanced_allocation_scores_the_change"
    assert "kubernetes#135573" in first["causes"][0]["sentence"] and first["summary"].startswith("1 pod(s) land")
    assert second["release"]["where"].endswith("serverVersion v1.36.2") and "nothing to upgrade" in second["error"]
    listed = owner.get("/api/upgrades/fleet").json()
    assert listed == [{"id": fleet["id"], "toRelease": "v1.36", "created": listed[0]["created"], "scenarios": 2}]


def test_a_fleet_check_is_cancelled_and_another_s_is_not_found(owner: Client, stranger: Client, moves: dict, workers):
    fleet = owner.post("/api/upgrades/fleet", {"scenarios": [moves["id"]], "toRelease": "v1.36"}, content_type=JSON)
    fleet_id = fleet.json()["id"]
    assert stranger.get(f"/api/upgrades/fleet/{fleet_id}").status_code == 404
    assert stranger.post(f"/api/upgrades/fleet/{fleet_id}/cancel").status_code == 404
    cancelled = owner.post(f"/api/upgrades/fleet/{fleet_id}/cancel").json()
    assert cancelled["finished"] and cancelled["rows"][0]["status"] == "cancelled"
    assert owner.post(f"/api/upgrades/fleet/{fleet_id}/cancel").status_code == 409


def test_a_fleet_check_over_its_limits_is_refused_naming_them(owner: Client, moves: dict, settings, workers):
    settings.SCHEDLAB_MAX_FLEET_SCENARIOS = 1
    too_many = owner.post(
        "/api/upgrades/fleet", {"scenarios": [moves["id"], moves["id"] + 1], "toRelease": "v1.36"}, content_type=JSON
    )
    assert too_many.status_code == 413 and too_many.json()["error"]["details"]["limit"] == "max_fleet_scenarios"
    empty = owner.post("/api/upgrades/fleet", {"scenarios": [], "toRelease": "v1.36"}, content_type=JSON)
    assert empty.status_code == 422
    settings.SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER = 1
    assert ask(owner, moves["id"]).status_code == 201
    busy = owner.post("/api/upgrades/fleet", {"scenarios": [moves["id"]], "toRelease": "v1.36"}, content_type=JSON)
    assert busy.status_code == 429 and busy["Retry-After"]


def test_the_openapi_document_shows_the_engine_s_declaration_of_the_answer(owner: Client):
    document = owner.get("/api/openapi.json").json()
    schemas = document["components"]["schemas"]
    answer = schemas["UpgradeOut"]["properties"]["answer"]
    declared = next(branch for branch in answer["anyOf"] if branch.get("type") == "object")
    assert declared["title"] == "UpgradeComparison" and "$ref" not in str(declared)
    assert declared["properties"]["pods"]["items"]["title"] == "PodUpgrade"
    assert "oldNode" in declared["properties"]["pods"]["items"]["properties"]
    counts = next(b for b in schemas["FleetRowOut"]["properties"]["counts"]["anyOf"] if b.get("type") == "object")
    assert counts["title"] == "UpgradeCounts" and "morePending" in counts["properties"]
    assert "/api/upgrades/scenarios/{scenario_id}" in document["paths"]
    assert not Run.objects.exists() and not Upgrade.objects.filter(status=UpgradeStatus.RUNNING).exists()
