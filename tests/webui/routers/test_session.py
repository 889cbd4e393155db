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


NEW_PASSWORD = "a new horse staple"


def _signed_up(client: Client, name: str = "ada") -> User:
    assert _post(client, "signup", {"username": name, "password": GOOD_PASSWORD}).status_code == 201
    return User.objects.get(username=name)


def _error(response) -> tuple[int, str, object]:
    error = response.json()["error"]
    return response.status_code, error["code"], error["details"].get("field")


def test_changing_the_password_keeps_the_session_signed_in(owner: Client):
    user = _signed_up(owner)
    response = _post(owner, "password", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD})
    assert response.status_code == 200, response.content
    assert (response.json()["user"], owner.get("/api/session").json()["user"]) == ("ada", "ada")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    elsewhere = Client()
    assert _post(elsewhere, "login", {"username": "ada", "password": GOOD_PASSWORD}).status_code == 401
    assert _post(elsewhere, "login", {"username": "ada", "password": NEW_PASSWORD}).status_code == 200


@pytest.mark.parametrize(
    "body, field, words",
    [
        pytest.param(
            {"currentPassword": "not it at all", "newPassword": NEW_PASSWORD},
            "currentPassword",
            "That is not your password",
            id="a wrong current password",
        ),
        pytest.param(
            {"currentPassword": GOOD_PASSWORD, "newPassword": "short"}, "newPassword", "too short", id="a weak one"
        ),
        pytest.param(
            {"currentPassword": GOOD_PASSWORD, "newPassword": "password123"},
            "newPassword",
            "too common",
            id="a common one",
        ),
    ],
)
def test_a_refused_password_change_is_400_naming_the_field(owner: Client, body, field, words):
    user = _signed_up(owner)
    response = _post(owner, "password", body)
    assert _error(response) == (400, "account_invalid", field)
    assert response.json()["error"]["message"].startswith(f"{field}: ") and words in response.json()["error"]["message"]
    user.refresh_from_db()
    assert user.check_password(GOOD_PASSWORD) and owner.get("/api/session").json()["user"] == "ada"


@pytest.mark.parametrize(
    "path, body",
    [
        pytest.param("password", {"currentPassword": GOOD_PASSWORD}, id="password: no new one"),
        pytest.param("password", {"current_password": GOOD_PASSWORD, "new_password": NEW_PASSWORD}, id="snake_case"),
        pytest.param("password", {"currentPassword": 7, "newPassword": [1]}, id="password: wrong types"),
        pytest.param("password", {"currentPassword": "x", "newPassword": "p" * 4097}, id="password: too long"),
        pytest.param("delete", {}, id="delete: no password"),
        pytest.param("delete", {"password": "p" * 4097}, id="delete: too long"),
    ],
)
def test_a_malformed_password_change_or_delete_is_422_and_changes_nothing(owner: Client, path, body):
    user = _signed_up(owner)
    response = _post(owner, path, body)
    assert (response.status_code, response.json()["error"]["code"]) == (422, "invalid_request")
    assert User.objects.get(pk=user.pk).check_password(GOOD_PASSWORD)


@pytest.mark.parametrize(
    "path, body",
    [
        pytest.param("password", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD}, id="password"),
        pytest.param("delete", {"password": GOOD_PASSWORD}, id="delete"),
    ],
)
def test_an_anonymous_visitor_is_told_to_sign_in_first(owner: Client, path, body):
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    response = _post(owner, path, body)
    assert _error(response) == (401, "unauthenticated", None)
    assert response.json()["error"]["message"].startswith("sign in first: ")
    assert User.objects.get(username="ada").check_password(GOOD_PASSWORD)


def test_wrong_current_passwords_are_429_like_sign_in_tries(owner: Client, settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 3
    _signed_up(owner)  # a sign-up counts as a try
    wrong = {"currentPassword": "not it at all", "newPassword": NEW_PASSWORD}
    for _ in range(2):
        assert _post(owner, "password", wrong).status_code == 400
    limited = _post(owner, "password", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD})
    assert limited.status_code == 429 and limited.json()["error"]["details"]["limit"] == "max_sign_in_tries"
    assert limited["Retry-After"] == str(settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS)
    assert _error(_post(owner, "delete", {"password": GOOD_PASSWORD}))[0] == 429


def test_changing_the_password_and_deleting_need_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/session").json()["csrfToken"]
    client.post(
        "/api/session/signup",
        {"username": "ada", "password": GOOD_PASSWORD},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    for path, body in (("password", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD}), ("delete", {})):
        refused = _post(client, path, body)
        assert _error(refused)[:2] == (403, "csrf_failed"), path
    assert User.objects.get(username="ada").check_password(GOOD_PASSWORD)


def test_deleting_the_account_deletes_what_it_made_and_signs_out(owner: Client, stranger: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    link = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type="application/json")
    assert link.status_code == 201, link.content
    _signed_up(owner)
    theirs = stranger.post(
        "/api/scenarios", {"name": "bob's", "text": scenario["text"]}, content_type="application/json"
    )
    response = _post(owner, "delete", {"password": GOOD_PASSWORD})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["user"], body["anonymous"]) == (None, True)
    assert body["deleted"] == {
        "scenarios": 1,
        "versions": 1,
        "runs": 1,
        "questions": 0,
        "upgrades": 0,
        "fleetChecks": 0,
        "shareLinks": 1,
    }
    assert not User.objects.filter(username="ada").exists()
    assert owner.get(f"/api/scenarios/{scenario['id']}").status_code == 404
    assert [s for s in owner.get("/api/scenarios").json() if not s["demo"]] == []
    assert [s["id"] for s in stranger.get("/api/scenarios").json()] == [theirs.json()["id"]]
    assert _post(Client(), "login", {"username": "ada", "password": GOOD_PASSWORD}).status_code == 401
    assert Client().get(f"/api/share/{link.json()['token']}").status_code == 404


def test_a_wrong_password_deletes_nothing(owner: Client, scenario: dict):
    _signed_up(owner)
    response = _post(owner, "delete", {"password": "not it at all"})
    assert _error(response) == (400, "account_invalid", "password")
    assert User.objects.filter(username="ada").exists()
    assert owner.get(f"/api/scenarios/{scenario['id']}").status_code == 200


def test_single_user_mode_changes_a_password_but_deletes_no_account(owner: Client, scenario: dict, settings):
    settings.SCHEDLAB_SINGLE_USER = True
    _signed_up(owner)
    changed = _post(owner, "password", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD})
    assert changed.status_code == 200
    refused = _post(owner, "delete", {"password": NEW_PASSWORD})
    assert _error(refused) == (403, "single_user_mode", None)
    assert "not available in single-user mode" in refused.json()["error"]["message"]
    assert User.objects.filter(username="ada").exists() and owner.get("/api/session").json()["user"] == "ada"
    assert owner.get(f"/api/scenarios/{scenario['id']}").status_code == 200


def test_signing_up_may_give_an_e_mail_address_and_a_bad_one_is_400_naming_it(owner: Client, stranger: Client):
    refused = _post(stranger, "signup", {"username": "bob", "password": GOOD_PASSWORD, "email": "not an address"})
    assert _error(refused) == (400, "account_invalid", "email") and not User.objects.filter(username="bob").exists()
    made = _post(owner, "signup", {"username": "ada", "password": GOOD_PASSWORD, "email": "ada@example.com"})
    assert made.status_code == 201 and User.objects.get(username="ada").email == "ada@example.com"
