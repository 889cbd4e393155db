"""webui.overload: a database that cannot serve answers 503 with Retry-After in the API's JSON error
shape (a short HTML page for pages), wherever it fails - in a view, in the session lookup, in the
session save after the view - never Django's HTML 500."""

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import InterfaceError, OperationalError
from django.test import Client

from webui import overload
from webui.services import scenarios

pytestmark = pytest.mark.django_db


def too_many() -> OperationalError:
    return OperationalError("connection failed: FATAL:  sorry, too many clients already")


def assert_unavailable_json(response, settings) -> None:
    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert response["Retry-After"] == str(settings.SCHEDLAB_RETRY_AFTER_SECONDS)
    error = response.json()["error"]
    assert error["code"] == "service_unavailable"
    assert error["details"] == {"retryAfter": settings.SCHEDLAB_RETRY_AFTER_SECONDS}
    assert "retry in" in error["message"]


@pytest.mark.parametrize(
    "raised",
    [too_many(), InterfaceError("connection already closed")],
    ids=["too many clients in a view", "a closed connection in a view"],
)
def test_it_answers_503_json_when_a_view_cannot_reach_the_database(owner: Client, monkeypatch, settings, raised):
    def fail(*_args, **_kwargs):
        raise raised

    monkeypatch.setattr(scenarios, "listing", fail)
    assert_unavailable_json(owner.get("/api/scenarios"), settings)


def with_session_cookie() -> Client:
    # Django's test client re-raises a request's exception even when handler500 answered it.
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "x" * 32  # the session is read (from the database) on first use
    return client


def test_it_answers_503_json_when_loading_the_session_fails(monkeypatch, settings):
    """The issue's `'SessionStore' object has no attribute '_session_cache'`: the session's first read
    fails inside SessionBase._get_session's `except AttributeError`, so that is the error's context."""

    def fail(self):
        raise too_many()

    monkeypatch.setattr(SessionStore, "load", fail)
    response = with_session_cookie().get("/api/runs")
    assert_unavailable_json(response, settings)


def test_it_answers_503_json_when_saving_the_session_after_the_view_fails(monkeypatch, settings):
    """SessionMiddleware saves a modified session after the view returned: outside every API handler."""
    saves = []
    real_save = SessionStore.save

    def second_save_fails(self, must_create=False):
        saves.append(must_create)
        if len(saves) > 1:
            raise too_many()
        return real_save(self, must_create)

    monkeypatch.setattr(SessionStore, "save", second_save_fails)
    client = Client(raise_request_exception=False)
    # A first write by an anonymous visitor creates its session in the view; the middleware saves again.
    response = client.post("/api/scenarios", {"name": "s", "text": ""}, content_type="application/json")
    assert len(saves) == 2
    assert_unavailable_json(response, settings)


def test_it_answers_a_short_503_page_with_retry_after_for_pages(monkeypatch, settings):
    def fail(self):
        raise too_many()

    monkeypatch.setattr(SessionStore, "load", fail)
    response = with_session_cookie().get("/admin/")  # a page that reads the user from the session
    assert response.status_code == 503
    assert response["Retry-After"] == str(settings.SCHEDLAB_RETRY_AFTER_SECONDS)
    assert response["Content-Type"].startswith("text/html")
    assert b"SchedLab is busy" in response.content


def test_it_answers_500_in_the_json_shape_for_an_unexpected_error_outside_a_view(monkeypatch):
    def explode(self, must_create=False):
        raise RuntimeError("a bug")

    monkeypatch.setattr(SessionStore, "save", explode)
    client = Client(raise_request_exception=False)
    response = client.post("/api/scenarios", {"name": "s", "text": ""}, content_type="application/json")
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal_error", "message": "an unexpected error occurred; it was logged", "details": {}}
    }


def raise_from(outer: Exception, inner: Exception) -> Exception:
    try:
        try:
            raise inner
        except type(inner):
            raise outer  # noqa: B904 - the implicit context is what is tested
    except type(outer) as caught:
        return caught


@pytest.mark.parametrize(
    "exc, expected",
    [
        pytest.param(too_many(), True, id="an OperationalError is unavailability"),
        pytest.param(
            raise_from(AttributeError("'SessionStore' object has no attribute '_session_cache'"), too_many()),
            True,
            id="an error raised while handling a database error is unavailability",
        ),
        pytest.param(RuntimeError("bug"), False, id="an unrelated error is not"),
        pytest.param(None, False, id="no error is not"),
    ],
)
def test_it_recognizes_database_unavailability_along_the_exception_chain(exc, expected):
    assert overload.is_unavailable(exc) is expected
