"""Share links (webui/routers/shares.py and /api/scenarios/{id}/share): read-only access to one version
(and optionally one run), revocable."""

import json

import pytest
from django.core.management import call_command
from django.test import Client

from webui.models import Scenario, ShareLink
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def run(owner: Client, scenario: dict) -> dict:
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return run


@pytest.fixture
def token(owner: Client, scenario: dict, run: dict) -> str:
    response = owner.post(
        f"/api/scenarios/{scenario['id']}/share", {"run": run["id"], "step": "cycle=1"}, content_type=JSON
    )
    assert response.status_code == 201
    body = response.json()
    assert body["url"] == f"http://testserver/share/{body['token']}"
    return body["token"]


def test_it_makes_unguessable_tokens(token: str):
    assert len(token) >= 43  # token_urlsafe(32): 256 random bits
    assert ShareLink.objects.get(token=token).step == "cycle=1"


def test_it_resolves_a_token_to_what_it_shows(stranger: Client, token: str, scenario: dict, run: dict):
    body = stranger.get(f"/api/share/{token}").json()
    assert body["readOnly"] is True
    assert (body["scenario"]["id"], body["version"]["number"], body["run"]["id"], body["step"]) == (
        scenario["id"],
        1,
        run["id"],
        "cycle=1",
    )
    assert body["version"]["text"] == scenario["text"]


def test_it_lets_a_token_read_the_scenario_run_events_and_trace(
    stranger: Client, token: str, scenario: dict, run: dict
):
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/scenarios/{scenario['id']}", headers=headers).json()["owned"] is False
    assert stranger.get(f"/api/runs/{run['id']}?token={token}").json()["status"] == "succeeded"
    assert stranger.get(f"/api/runs/{run['id']}/events", headers=headers).json()["events"]
    trace = stranger.get(f"/api/runs/{run['id']}/trace", headers=headers)
    assert json.loads(b"".join(trace.streaming_content))["cycles"]


def test_it_shows_only_the_shared_version(owner: Client, stranger: Client, token: str, scenario: dict):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "secret: edit"}, content_type=JSON)
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/scenarios/{scenario['id']}", headers=headers).json()["text"] == scenario["text"]
    assert stranger.get(f"/api/scenarios/{scenario['id']}/versions/2", headers=headers).status_code == 404
    assert [v["number"] for v in stranger.get(f"/api/scenarios/{scenario['id']}/versions", headers=headers).json()] == [
        1
    ]


@pytest.mark.parametrize(
    "method, path",
    [
        ("put", "/api/scenarios/{sid}"),
        ("delete", "/api/scenarios/{sid}"),
        ("post", "/api/scenarios/{sid}/runs"),
        ("post", "/api/scenarios/{sid}/share"),
        ("post", "/api/scenarios/{sid}/fork"),
        ("post", "/api/runs/{rid}/cancel"),
    ],
    ids=[
        "it refuses a save",
        "it refuses a delete",
        "it refuses a run",
        "it refuses a re-share",
        "it refuses a fork",
        "it refuses a cancel",
    ],
)
def test_it_refuses_every_write_made_with_a_share_token(
    owner: Client, token: str, scenario: dict, run: dict, method: str, path: str
):
    url = path.format(sid=scenario["id"], rid=run["id"])
    response = getattr(owner, method)(url, {"text": "x"}, content_type=JSON, headers={"X-Share-Token": token})
    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "share_read_only",
        "message": "share links are read-only",
        "details": {},
    }


def test_it_revokes_a_token(owner: Client, stranger: Client, token: str, scenario: dict):
    assert stranger.delete(f"/api/share/{token}").status_code == 403
    body = owner.delete(f"/api/share/{token}").json()
    assert body["revoked"] is True
    assert stranger.get(f"/api/share/{token}").status_code == 404
    assert stranger.get(f"/api/scenarios/{scenario['id']}?token={token}").json()["error"]["code"] == "not_found"


def test_it_lists_a_scenarios_links_for_the_owner_only(owner: Client, stranger: Client, token: str, scenario: dict):
    assert [link["token"] for link in owner.get(f"/api/scenarios/{scenario['id']}/shares").json()] == [token]
    assert stranger.get(f"/api/scenarios/{scenario['id']}/shares").status_code == 404


def test_it_forks_a_shared_version_into_the_visitors_own_scenario(
    owner: Client, stranger: Client, token: str, scenario: dict
):
    response = stranger.post(f"/api/share/{token}/fork", {"name": "my copy"}, content_type=JSON)
    assert response.status_code == 201
    fork = response.json()
    assert (fork["name"], fork["owned"], fork["forkedFrom"], fork["text"]) == (
        "my copy",
        True,
        scenario["id"],
        scenario["text"],
    )
    assert owner.get(f"/api/scenarios/{scenario['id']}").json()["version"] == 1  # the original is untouched


def test_a_revoked_token_reads_nothing_and_still_writes_nothing(
    owner: Client, stranger: Client, token: str, scenario: dict, run: dict
):
    owner.delete(f"/api/share/{token}")
    headers = {"X-Share-Token": token}
    for path in (
        f"/api/runs/{run['id']}",
        f"/api/runs/{run['id']}/events",
        f"/api/runs/{run['id']}/cycles",
        f"/api/runs/{run['id']}/events?cycle=0",
        f"/api/scenarios/{scenario['id']}/objects",
    ):
        response = stranger.get(path, headers=headers)
        assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found"), path
    response = stranger.put(f"/api/scenarios/{scenario['id']}", {"text": "x"}, content_type=JSON, headers=headers)
    assert (response.status_code, response.json()["error"]["code"]) == (403, "share_read_only")


def demo_scenario_id() -> int:
    call_command("load_demos")
    return Scenario.objects.get(demo_slug="seed_pts_conflict").pk


def finished(client: Client, scenario_id: int) -> dict:
    run = client.post(f"/api/scenarios/{scenario_id}/runs").json()
    execute_run.apply(args=[run["id"]])
    return run


def test_it_shares_a_comparison_of_a_demo_run_with_a_run_of_another_scenario(
    owner: Client, stranger: Client, scenario: dict
):
    """Issue 28: "Share this comparison" was offered on demo runs and then refused. A demo is public:
    a link to your own run of it (compared with any run you may read) is allowed, and read-only."""
    demo_run = finished(owner, demo_scenario_id())
    other = finished(owner, scenario["id"])
    response = owner.post(
        f"/api/scenarios/{demo_run['scenario']}/share",
        {"run": demo_run["id"], "compareRun": other["id"]},
        content_type=JSON,
    )
    assert response.status_code == 201, response.json()
    token = response.json()["token"]
    answer = stranger.get(f"/api/comparisons?a={demo_run['id']}&b={other['id']}", headers={"X-Share-Token": token})
    assert answer.status_code == 200 and answer.json()["a"] == demo_run["id"]
    assert (
        stranger.post(f"/api/scenarios/{demo_run['scenario']}/runs", headers={"X-Share-Token": token}).status_code
        == 403
    )


def test_it_refuses_a_demo_link_to_someone_elses_run(owner: Client, stranger: Client):
    demo_run = finished(owner, demo_scenario_id())
    response = stranger.post(f"/api/scenarios/{demo_run['scenario']}/share", {"run": demo_run["id"]}, content_type=JSON)
    assert response.status_code == 404
