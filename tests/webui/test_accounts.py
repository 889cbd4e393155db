"""webui.accounts: the sign-up, sign-in and sign-out pages (CSRF on every form, problems in words, never
a 500), the header that says who is here, and the notices that say whose the scenarios are."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from webui.models import Scenario
from webui.services import scenarios

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "correct horse battery"
KEPT_ONLY_HERE = "Your scenarios are kept only in this browser"


def _sign_up(client: Client, name: str = "ada", password: str = GOOD_PASSWORD, again: str | None = None, **extra):
    form = {"username": name, "password": password, "password_again": password if again is None else again}
    return client.post("/accounts/signup/", {**form, **extra})


def _notice(page: str) -> str:
    found = re.search(r'<p class="owner-notice[^"]*" id="owner-notice" data-mode="([^"]+)">(.*?)</p>', page, re.S)
    return f"{found.group(1)}: {found.group(2)}" if found else ""


def _mine(client: Client) -> Scenario:
    """A scenario of ``client``'s anonymous session, made through the API as the list page makes one."""
    made = client.post("/api/scenarios", {"name": "mine", "text": scenarios.blank_template()}, "application/json")
    assert made.status_code == 201, made.content
    return Scenario.objects.get(pk=made.json()["id"])


def test_an_anonymous_visitor_is_offered_sign_in_and_sign_up_in_the_header():
    page = Client().get("/").content.decode()
    assert 'href="/accounts/login/?next=/"' in page and 'href="/accounts/signup/?next=/"' in page
    assert "Signed in as" not in page


def test_a_signed_in_person_is_named_in_the_header_with_a_sign_out_form():
    client = Client()
    client.force_login(User.objects.create_user("ada"))
    page = client.get("/").content.decode()
    assert re.search(r'Signed in as <strong id="account-name">ada</strong>', page)
    sign_out = re.search(r'<form method="post" action="/accounts/logout/".*?</form>', page, re.S).group(0)
    assert 'name="csrfmiddlewaretoken"' in sign_out and ">Sign out</button>" in sign_out
    assert "/accounts/login/" not in page


def test_an_anonymous_visitor_is_told_their_scenarios_are_kept_only_in_this_browser():
    client = Client()
    listing = _notice(client.get("/").content.decode())
    assert listing.startswith(f"anonymous: {KEPT_ONLY_HERE}") and 'href="/accounts/signup/?next=/"' in listing
    scenario = _mine(client)
    editor = _notice(client.get(f"/scenarios/{scenario.pk}/").content.decode())
    assert KEPT_ONLY_HERE in editor and f'href="/accounts/signup/?next=/scenarios/{scenario.pk}/"' in editor


def test_a_signed_in_person_s_list_says_whose_scenarios_they_are():
    client = Client()
    client.force_login(User.objects.create_user("ada"))
    assert _notice(client.get("/").content.decode()).startswith("signed-in: ada’s scenarios")


def test_single_user_mode_says_so_instead_of_the_warning_and_offers_no_sign_in(settings):
    settings.SCHEDLAB_SINGLE_USER = True
    client = Client()
    page = client.get("/").content.decode()
    assert "single-user mode (this machine)" in page and "/accounts/login/" not in page
    assert _notice(page).startswith("single-user: Single-user mode (this machine)")
    scenario = _mine(Client())
    editor = client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert _notice(editor).startswith("single-user:") and KEPT_ONLY_HERE not in editor
    for path in ("/accounts/signup/", "/accounts/login/"):
        assert "is not needed" in client.get(path).content.decode(), path


def test_the_sign_up_page_is_a_csrf_protected_form_in_the_app_s_look():
    client = Client(enforce_csrf_checks=True)
    page = client.get("/accounts/signup/?next=/scenarios/3/").content.decode()
    assert "<title>Sign up · SchedLab</title>" in page and 'class="brand"' in page
    form = re.search(r'<form method="post" action="/accounts/signup/".*?</form>', page, re.S).group(0)
    assert 'name="csrfmiddlewaretoken"' in form and 'name="next" value="/scenarios/3/"' in form
    assert 'autocomplete="new-password"' in form
    refused = client.post("/accounts/signup/", {"username": "ada", "password": GOOD_PASSWORD})
    assert refused.status_code == 403 and not User.objects.exists()


def test_signing_up_keeps_what_this_browser_made_and_goes_where_it_was_asked():
    client = Client()
    scenario = _mine(client)
    response = _sign_up(client, next=f"/scenarios/{scenario.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/scenarios/{scenario.pk}/"
    user = User.objects.get(username="ada")
    assert list(Scenario.objects.filter(owner=user)) == [scenario]
    page = client.get("/").content.decode()
    welcome = (
        "Welcome, ada: you are signed in. The 1 scenario(s) and 0 run(s) this browser made are now in your account."
    )
    assert welcome in page


@pytest.mark.parametrize(
    "name, password, again, field, words",
    [
        pytest.param("ada", "short", None, "password", "This password is too short", id="a weak password"),
        pytest.param("taken", GOOD_PASSWORD, None, "username", "is taken", id="a taken name"),
        pytest.param("ada", GOOD_PASSWORD, "another one", "password_again", "The two passwords differ", id="typos"),
        pytest.param("", GOOD_PASSWORD, None, "username", "This field is required", id="no name"),
    ],
)
def test_a_refused_sign_up_says_why_beside_the_field(name, password, again, field, words):
    User.objects.create_user("taken")
    response = _sign_up(Client(), name, password, again)
    assert response.status_code == 400
    errors = re.search(
        rf'<ul class="error-list field-errors" id="{field}-errors".*?</ul>', response.content.decode(), re.S
    )
    assert errors and words in errors.group(0)
    assert User.objects.count() == 1


def test_signing_in_claims_the_session_and_a_wrong_password_is_said_in_words():
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    client = Client()
    scenario = _mine(client)
    wrong = client.post("/accounts/login/", {"username": "ada", "password": "not it at all"})
    assert wrong.status_code == 401
    assert "That name and password do not match an account." in wrong.content.decode()
    signed_in = client.post("/accounts/login/", {"username": "ada", "password": GOOD_PASSWORD})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"
    assert Scenario.objects.get(pk=scenario.pk).owner.username == "ada"


def test_too_many_tries_are_said_on_the_page_with_429(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 1
    client = Client()
    assert client.post("/accounts/login/", {"username": "ada", "password": "nope"}).status_code == 401
    limited = client.post("/accounts/login/", {"username": "ada", "password": "nope"})
    assert limited.status_code == 429 and "Too many sign-in tries from your network address" in limited.content.decode()


@pytest.mark.parametrize(
    "wanted", ["https://evil.example/", "//evil.example/", "javascript:alert(1)"], ids=["absolute", "scheme-less", "js"]
)
def test_it_never_sends_anyone_off_the_site_after_signing_in(wanted):
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    response = Client().post("/accounts/login/", {"username": "ada", "password": GOOD_PASSWORD, "next": wanted})
    assert response["Location"] == "/"


def test_signing_out_is_a_post_that_leaves_an_empty_anonymous_session():
    client = Client()
    scenario = _mine(client)
    _sign_up(client)
    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/").content.decode()
    assert "Signed out. What ada made stays in that account" in page and KEPT_ONLY_HERE in page
    assert [s for s in client.get("/api/scenarios").json() if not s["demo"]] == []
    assert Scenario.objects.get(pk=scenario.pk).owner.username == "ada"


NEW_PASSWORD = "a new horse staple"


def _field_errors(page: str, field: str) -> str:
    found = re.search(rf'<ul class="error-list field-errors" id="{field}-errors".*?</ul>', page, re.S)
    return found.group(0) if found else ""


def _change(client: Client, current: str = GOOD_PASSWORD, new: str = NEW_PASSWORD, again: str | None = None):
    form = {"current_password": current, "new_password": new, "new_password_again": new if again is None else again}
    return client.post("/accounts/password/", form)


def test_the_header_links_the_password_and_delete_pages_for_a_signed_in_person():
    client = Client()
    assert "/accounts/password/" not in client.get("/").content.decode()
    _sign_up(client)
    page = client.get("/").content.decode()
    assert '<a href="/accounts/password/" id="change-password-link">Change password</a>' in page
    assert '<a href="/accounts/delete/" id="delete-account-link">Delete account</a>' in page


def test_the_password_page_is_a_csrf_protected_form_for_a_signed_in_person_only():
    anonymous = Client().get("/accounts/password/")
    assert anonymous.status_code == 302 and anonymous["Location"] == "/accounts/login/?next=/accounts/password/"
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("ada", password=GOOD_PASSWORD))
    page = client.get("/accounts/password/").content.decode()
    assert "<title>Change your password · SchedLab</title>" in page
    form = re.search(r'<form method="post" action="/accounts/password/".*?</form>', page, re.S).group(0)
    assert 'name="csrfmiddlewaretoken"' in form and 'autocomplete="current-password"' in form
    assert form.count('autocomplete="new-password"') == 2
    assert _change(client).status_code == 403
    assert User.objects.get(username="ada").check_password(GOOD_PASSWORD)


def test_changing_the_password_keeps_this_browser_signed_in():
    client = Client()
    _sign_up(client)
    response = _change(client)
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/").content.decode()
    assert "Your password is changed. This browser stays signed in" in page and 'id="account-name">ada<' in page
    assert User.objects.get(username="ada").check_password(NEW_PASSWORD)


@pytest.mark.parametrize(
    "current, new, again, field, words",
    [
        pytest.param("not it at all", NEW_PASSWORD, None, "current_password", "That is not your password.", id="wrong"),
        pytest.param(GOOD_PASSWORD, "short", None, "new_password", "This password is too short", id="a weak one"),
        pytest.param(GOOD_PASSWORD, NEW_PASSWORD, "another one", "new_password_again", "differ", id="typos"),
    ],
)
def test_a_refused_password_change_says_why_beside_the_field(current, new, again, field, words):
    client = Client()
    _sign_up(client)
    response = _change(client, current, new, again)
    assert response.status_code == 400 and words in _field_errors(response.content.decode(), field)
    assert User.objects.get(username="ada").check_password(GOOD_PASSWORD)


def test_too_many_wrong_current_passwords_are_said_on_the_page_with_429(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 2
    client = Client()
    _sign_up(client)  # a sign-up counts as a try
    assert _change(client, current="not it at all").status_code == 400
    limited = _change(client)
    assert limited.status_code == 429 and "Too many sign-in tries from your network address" in limited.content.decode()


def test_the_delete_page_says_what_will_be_deleted_and_asks_for_the_password():
    client = Client()
    scenario = _mine(client)
    client.post(f"/api/scenarios/{scenario.pk}/runs")
    _sign_up(client)
    page = client.get("/accounts/delete/").content.decode()
    assert "<title>Delete your account · SchedLab</title>" in page and 'id="delete-name">ada<' in page
    listed = re.findall(r'<li data-kind="(\w+)">([^<]*)</li>', page)
    assert listed == [
        ("scenarios", "1 scenario"),
        ("versions", "1 saved version"),
        ("runs", "1 run"),
        ("questions", "0 capacity questions"),
        ("upgrades", "0 upgrade comparisons"),
        ("fleet_checks", "0 fleet checks"),
        ("share_links", "0 share links"),
    ]
    form = re.search(r'<form method="post" action="/accounts/delete/".*?</form>', page, re.S).group(0)
    assert 'name="csrfmiddlewaretoken"' in form and 'type="password" name="password"' in form
    anonymous = Client().get("/accounts/delete/")
    assert anonymous.status_code == 302 and anonymous["Location"] == "/accounts/login/?next=/accounts/delete/"


def test_deleting_the_account_signs_out_to_an_empty_list_and_says_what_went():
    client = Client()
    scenario = _mine(client)
    _sign_up(client)
    wrong = client.post("/accounts/delete/", {"password": "not it at all"})
    assert wrong.status_code == 400 and "That is not your password." in _field_errors(
        wrong.content.decode(), "password"
    )
    response = client.post("/accounts/delete/", {"password": GOOD_PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/").content.decode()
    assert "The account ada is deleted, with 1 scenario, 1 saved version, 0 runs," in page
    assert "You are signed out." in page and KEPT_ONLY_HERE in page
    assert not User.objects.filter(username="ada").exists() and not Scenario.objects.filter(pk=scenario.pk).exists()
    assert [s for s in client.get("/api/scenarios").json() if not s["demo"]] == []


def test_single_user_mode_has_no_account_to_delete_and_says_so(settings):
    settings.SCHEDLAB_SINGLE_USER = True
    client = Client()
    _sign_up(client)
    page = client.get("/").content.decode()
    assert "/accounts/password/" in page and "/accounts/delete/" not in page
    shown = client.get("/accounts/delete/")
    assert shown.status_code == 200 and "there are no accounts to delete here" in shown.content.decode()
    assert "<form" not in shown.content.decode().split("<main", 1)[1]
    refused = client.post("/accounts/delete/", {"password": GOOD_PASSWORD})
    assert refused.status_code == 403 and User.objects.filter(username="ada").exists()
    assert "/accounts/delete/" not in client.get("/accounts/password/").content.decode()


def test_signing_up_may_give_an_e_mail_address_for_a_forgotten_password():
    page = Client().get("/accounts/signup/").content.decode()
    form = re.search(r'<form method="post" action="/accounts/signup/".*?</form>', page, re.S).group(0)
    assert 'type="email" name="email"' in form and 'autocomplete="email"' in form
    assert form.index('name="username"') < form.index('name="email"') < form.index('name="password"')
    refused = _sign_up(Client(), email="not an address")
    assert refused.status_code == 400 and "Enter a valid email address." in refused.content.decode()
    assert _sign_up(Client(), email="ada@example.com").status_code == 302
    assert User.objects.get(username="ada").email == "ada@example.com"
