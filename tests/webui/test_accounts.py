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
