"""/api/session (webui/routers/session.py): who you are, and the CSRF token."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_hands_out_a_csrf_token_and_cookie():
    client = Client()
    body = client.get("/api/session").json()
    assert body["anonymous"] is True and body["user"] is None
    assert client.cookies["csrftoken"].value


def test_it_names_a_signed_in_user(owner: Client):
    owner.force_login(User.objects.create_user("ada"))
    body = owner.get("/api/session").json()
    assert (body["user"], body["anonymous"]) == ("ada", False) and set(body) == {
        "csrfToken",
        "user",
        "anonymous",
        "singleUser",
    }


GOOD_PASSWORD = "correct horse battery"


def _post(client: Client, path: str, body: object) -> object:
    return client.post(f"/api/session/{path}", body, content_type="application/json")


def test_it_says_whether_this_is_the_single_user_mode(settings):
    assert Client().get("/api/session").json()["singleUser"] is False
    settings.SCHEDLAB_SINGLE_USER = True
    assert Client().get("/api/session").json()["singleUser"] is True


def test_signing_up_makes_the_account_signs_in_and_hands_out_a_new_csrf_token(owner: Client):
    before = owner.get("/api/session").json()["csrfToken"]
    response = _post(owner, "signup", {"username": "ada", "password": GOOD_PASSWORD})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["user"], body["anonymous"], body["singleUser"]) == ("ada", False, False)
    assert body["csrfToken"] != before
    assert owner.get("/api/session").json()["user"] == "ada"
    assert User.objects.get(username="ada").check_password(GOOD_PASSWORD)


@pytest.mark.parametrize(
    "body, field, words",
    [
        pytest.param({"username": "ada", "password": "short"}, "password", "too short", id="a weak password"),
        pytest.param(
            {"username": "bad name", "password": GOOD_PASSWORD}, "username", "valid username", id="a bad name"
        ),
        pytest.param({"username": "taken", "password": GOOD_PASSWORD}, "username", "is taken", id="a taken name"),
    ],
)
def test_a_refused_sign_up_is_400_naming_the_field(owner: Client, body, field, words):
    User.objects.create_user("taken")
    response = _post(owner, "signup", body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "account_invalid" and error["details"]["field"] == field
    assert error["message"].startswith(f"{field}: ") and words in error["message"]
    assert owner.get("/api/session").json()["anonymous"] is True


@pytest.mark.parametrize(
    "body, status, code",
    [
        pytest.param({"username": "ada"}, 422, "invalid_request", id="no password"),
        pytest.param({"username": ["ada"], "password": 7}, 422, "invalid_request", id="wrong types"),
        pytest.param(
            {"username": "a" * 151, "password": GOOD_PASSWORD}, 422, "invalid_request", id="a name over Django's 150"
        ),
        pytest.param("not json", 400, "http_error", id="not JSON"),
    ],
)
def test_a_malformed_sign_in_or_up_is_refused_in_the_one_error_shape_never_500(owner: Client, body, status, code):
    for path in ("signup", "login"):
        response = _post(owner, path, body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), path


def test_signing_in_with_the_right_password_and_refusing_a_wrong_one(owner: Client):
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    wrong = _post(owner, "login", {"username": "ada", "password": "nope nope nope"})
    assert wrong.status_code == 401
    assert wrong.json()["error"] == {
        "code": "sign_in_failed",
        "message": "that name and password do not match an account",
        "details": {},
    }
    good = _post(owner, "login", {"username": "ada", "password": GOOD_PASSWORD})
    assert good.status_code == 200 and good.json()["user"] == "ada"


def test_too_many_wrong_passwords_are_429_with_retry_after(owner: Client, settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 2
    for _ in range(2):
        assert _post(owner, "login", {"username": "ada", "password": "nope nope nope"}).status_code == 401
    limited = _post(owner, "login", {"username": "ada", "password": "nope nope nope"})
    assert limited.status_code == 429 and limited["Retry-After"] == str(settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS)
    assert limited.json()["error"]["details"] == {"limit": "max_sign_in_tries", "max": 2}


def test_signing_in_and_up_and_out_need_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/session").json()["csrfToken"]
    for path in ("signup", "login", "logout"):
        refused = _post(client, path, {"username": "ada", "password": GOOD_PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "csrf_failed", path
    response = client.post(
        "/api/session/signup",
        {"username": "ada", "password": GOOD_PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 201


def test_signing_out_leaves_an_empty_anonymous_session(owner: Client):
    _post(owner, "signup", {"username": "ada", "password": GOOD_PASSWORD})
    response = _post(owner, "logout", {})
    assert response.status_code == 200
    assert (response.json()["user"], response.json()["anonymous"]) == (None, True)
    assert owner.get("/api/session").json()["anonymous"] is True


def test_what_an_anonymous_visitor_made_is_theirs_after_signing_in_and_no_one_else_s(
    owner: Client, stranger: Client, scenario: dict
):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    assert _post(owner, "login", {"username": "ada", "password": GOOD_PASSWORD}).status_code == 200
    assert [s["id"] for s in owner.get("/api/scenarios").json() if not s["demo"]] == [scenario["id"]]
    assert owner.get(f"/api/runs/{run['id']}").status_code == 200
    assert owner.get(f"/api/scenarios/{scenario['id']}").json()["owned"] is True
    _post(stranger, "signup", {"username": "bob", "password": GOOD_PASSWORD})
    assert stranger.get(f"/api/scenarios/{scenario['id']}").status_code == 404
    assert stranger.get(f"/api/runs/{run['id']}").status_code == 404
    assert [s for s in stranger.get("/api/scenarios").json() if not s["demo"]] == []


def test_signing_out_and_back_in_from_another_browser_finds_them_again(owner: Client, scenario: dict):
    _post(owner, "signup", {"username": "ada", "password": GOOD_PASSWORD})
    _post(owner, "logout", {})
    assert [s for s in owner.get("/api/scenarios").json() if not s["demo"]] == []
    elsewhere = Client()
    _post(elsewhere, "login", {"username": "ada", "password": GOOD_PASSWORD})
    assert [s["id"] for s in elsewhere.get("/api/scenarios").json()] == [scenario["id"]]


def test_in_single_user_mode_everyone_here_sees_and_changes_everything_made_here(
    owner: Client, stranger: Client, scenario: dict, settings
):
    settings.SCHEDLAB_SINGLE_USER = True
    listed = stranger.get("/api/scenarios").json()
    assert [(s["id"], s["owned"]) for s in listed] == [(scenario["id"], True)]
    changed = stranger.put(
        f"/api/scenarios/{scenario['id']}",
        {"text": scenario["text"], "name": "renamed"},
        content_type="application/json",
    )
    assert changed.status_code == 200 and changed.json()["name"] == "renamed"
    run = stranger.post(f"/api/scenarios/{scenario['id']}/runs").json()
    assert owner.get(f"/api/runs/{run['id']}").status_code == 200
