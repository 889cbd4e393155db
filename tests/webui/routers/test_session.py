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
    assert (body["user"], body["anonymous"]) == ("ada", False) and set(body) == {"csrfToken", "user", "anonymous"}
