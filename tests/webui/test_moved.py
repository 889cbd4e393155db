"""webui/moved.py: the capacity paths that moved under /api/capacity answer a permanent redirect that
keeps the method and the body (308), so a script written against the old paths keeps working."""

import pytest
from django.test import Client

from tests.webui.capacity_support import CAPACITY_WEB

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def web(owner: Client) -> dict:
    return owner.post("/api/scenarios", {"name": "web", "text": CAPACITY_WEB}, content_type=JSON).json()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/api/scenarios/{id}/capacity", "/api/capacity/scenarios/{id}"),
        ("/api/scenarios/{id}/capacity/targets?version=1", "/api/capacity/scenarios/{id}/targets?version=1"),
    ],
    ids=["a scenario's questions", "what questions can name, its query kept"],
)
def test_an_old_capacity_path_redirects_to_the_new_one_keeping_the_method(owner: Client, web: dict, old: str, new: str):
    for method in ("get", "post"):
        response = getattr(owner, method)(old.format(id=web["id"]))
        assert (response.status_code, response["Location"]) == (308, new.format(id=web["id"])), method


def test_a_question_asked_at_the_old_path_is_asked_with_its_body(
    owner: Client, web: dict, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr("webui.services.capacity._send_advance", lambda question_id: None)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            f"/api/scenarios/{web['id']}/capacity",
            {"kind": "fit", "workload": "default/web"},
            content_type=JSON,
            follow=True,
        )
    assert response.redirect_chain == [(f"/api/capacity/scenarios/{web['id']}", 308)]
    assert response.status_code == 201
    assert (response.json()["kind"], response.json()["parameters"]["workload"]) == ("fit", "default/web")
    listed = owner.get(f"/api/scenarios/{web['id']}/capacity", follow=True).json()
    assert [question["id"] for question in listed] == [response.json()["id"]]
