from __future__ import annotations

import os

import pytest
from django.test import Client

from tests.webui import support

SERVICES = {"PostgreSQL": ("127.0.0.1", 5432), "Redis": ("127.0.0.1", 6379)}


@pytest.fixture(autouse=True)
def _fresh_memos() -> None:
    # The services keep answers per version / run id in process memos; each test's database starts
    # over at id 1, so a memo from the previous test would answer for another object.
    from webui.services import engine

    engine.forget_everything()


@pytest.fixture(autouse=True)
def _loaded_scenarios_apart(settings, tmp_path) -> None:
    # The loaded scenarios kept on disk (loaded_cache) outlive a process: each test keeps its own.
    settings.SCHEDLAB_LOADED_CACHE_DIR = str(tmp_path / "loaded")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # Tests create users; the production hasher is deliberately slow.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _people_apart(settings) -> None:
    # The tests run without SECRET_KEY, where single-user mode is the default: they pin the rules of
    # production (each visitor or user sees only their own); a single-user test turns it back on.
    settings.SCHEDLAB_SINGLE_USER = False


@pytest.fixture(autouse=True)
def _no_sign_in_tries_counted() -> None:
    # The sign-in limit counts tries per address in Django's cache, which outlives a test.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _require_services(request) -> None:
    """`service` tests skip when PostgreSQL/Redis are missing locally, but fail under CI."""
    if request.node.get_closest_marker("service") is None:
        return
    missing = [name for name, address in SERVICES.items() if not support.reachable(*address)]
    if not missing:
        return
    message = f"{', '.join(missing)} not reachable on 127.0.0.1"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set: service tests must run)")
    pytest.skip(message)


# API tests use Django's test Client rather than ninja's TestClient: ownership lives in the session
# and CSRF in middleware-set cookies, and ninja's TestClient bypasses both.
@pytest.fixture
def owner(db) -> Client:
    """An anonymous visitor with a session (the embedded single-user default)."""
    client = Client()
    client.get("/api/session")
    return client


@pytest.fixture
def stranger(db) -> Client:
    client = Client()
    client.get("/api/session")
    return client


@pytest.fixture
def small_text() -> str:
    return support.scenario_text(nodes=3, pending=2, running=1)


@pytest.fixture
def scenario(owner: Client, small_text: str) -> dict:
    response = owner.post("/api/scenarios", {"name": "small", "text": small_text}, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()
