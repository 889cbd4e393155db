"""webui.password_reset: forgot password — Django's reset flow in the app's look, the link sent through
EMAIL_BACKEND (tests: Django's in-memory outbox), each request counted against the sign-in limit, and
nothing of it in single-user mode."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "correct horse battery"
NEW_PASSWORD = "a new horse staple"
PAGES = (
    "/accounts/password/reset/",
    "/accounts/password/reset/sent/",
    "/accounts/password/reset/done/",
    "/accounts/password/reset/MQ/set-password/",
)


@pytest.fixture
def ada() -> User:
    return User.objects.create_user("ada", email="ada@example.com", password=GOOD_PASSWORD)


def _ask(client: Client, email: str = "ada@example.com"):
    return client.post("/accounts/password/reset/", {"email": email})


def _link() -> str:
    """The path of the link in the one e-mail sent."""
    [sent] = mail.outbox
    return re.search(r"http://testserver(/accounts/password/reset/\S+/)", sent.body).group(1)


def test_the_sign_in_page_links_the_reset_page():
    page = Client().get("/accounts/login/").content.decode()
    assert '<a href="/accounts/password/reset/" id="password-reset-link">Reset it by e-mail</a>' in page


def test_the_reset_page_is_a_csrf_protected_form_for_an_e_mail_address():
    client = Client(enforce_csrf_checks=True)
    page = client.get("/accounts/password/reset/").content.decode()
    assert "<title>Forgot your password · SchedLab</title>" in page and 'class="brand"' in page
    form = re.search(r'<form method="post" action="/accounts/password/reset/".*?</form>', page, re.S).group(0)
    assert 'name="csrfmiddlewaretoken"' in form and 'type="email" name="email"' in form
    assert "cannot be reset this way" in page
    assert _ask(client).status_code == 403 and mail.outbox == []


def test_the_link_sent_sets_a_new_password_once(ada):
    client = Client()
    asked = _ask(client)
    assert asked.status_code == 302 and asked["Location"] == "/accounts/password/reset/sent/"
    assert "a link to choose a new password is on its way" in client.get(asked["Location"]).content.decode()
    [sent] = mail.outbox
    assert (sent.to, sent.subject) == (["ada@example.com"], "Choose a new SchedLab password")
    assert "the SchedLab account ada on testserver" in sent.body
    opened = client.get(_link())
    assert opened.status_code == 302 and opened["Location"].endswith("/set-password/")
    page = client.get(opened["Location"]).content.decode()
    assert "Choose a new password" in page and page.count('autocomplete="new-password"') == 2
    form = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    done = client.post(opened["Location"], form)
    assert done.status_code == 302 and done["Location"] == "/accounts/password/reset/done/"
    assert "Your new password is set" in client.get(done["Location"]).content.decode()
    ada.refresh_from_db()
    assert ada.check_password(NEW_PASSWORD)
    again = Client().get(_link())
    assert again.status_code == 200 and "This link no longer works" in again.content.decode()


def test_an_address_of_no_account_is_answered_alike_and_sends_nothing(ada):
    asked = _ask(Client(), "nobody@example.com")
    assert asked.status_code == 302 and asked["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_a_refused_new_password_is_said_beside_its_field(ada):
    client = Client()
    _ask(client)
    form_url = client.get(_link())["Location"]
    refused = client.post(form_url, {"new_password1": "short", "new_password2": "short"})
    assert refused.status_code == 400 and "This password is too short" in refused.content.decode()
    ada.refresh_from_db()
    assert ada.check_password(GOOD_PASSWORD)


def test_a_forged_link_does_not_work(ada):
    page = Client().get("/accounts/password/reset/MQ/not-a-token/")
    assert page.status_code == 200 and "This link no longer works" in page.content.decode()


def test_reset_requests_count_against_the_sign_in_limit(ada, settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 1
    client = Client()
    assert _ask(client).status_code == 302
    limited = _ask(client)
    assert limited.status_code == 429 and "Too many sign-in tries from your network address" in limited.content.decode()
    assert len(mail.outbox) == 1


def test_single_user_mode_has_no_reset_and_says_so(ada, settings):
    settings.SCHEDLAB_SINGLE_USER = True
    client = Client()
    assert "/accounts/password/reset/" not in client.get("/accounts/login/").content.decode()
    for path in PAGES:
        page = client.get(path)
        assert page.status_code == 200 and "no password is needed here" in page.content.decode(), path
        assert "<form" not in page.content.decode().split("<main", 1)[1], path
    assert _ask(client).status_code == 403 and mail.outbox == []


def test_an_account_signed_up_with_an_e_mail_address_can_reset_its_password():
    form = {"username": "bob", "email": "bob@example.com", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}
    Client().post("/accounts/signup/", form)
    assert _ask(Client(), "bob@example.com").status_code == 302
    assert mail.outbox[0].to == ["bob@example.com"] and "/accounts/password/reset/" in _link()
