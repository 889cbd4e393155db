"""Browser tests: the real app (daphne + a Celery worker, `manage.py runembedded`) on a free port,
driven by Debian's Chromium through Playwright. No browser is ever downloaded: without
/usr/bin/chromium these tests skip (under CI=true they fail, so a missing install is noticed).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
STARTUP_SECONDS = 90
VIEWPORT = {"width": 1440, "height": 900}  # a laptop screen


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


# The log of every server started (path -> its size when the running test began): a failing test's
# report carries what the servers wrote during it (the worker's, daphne's), so a failure seen once on
# a busy CI machine can be read afterwards rather than only guessed at.
SERVER_LOGS: dict[Path, int] = {}
LOG_EXCERPT_CHARS = 6000


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    for log in SERVER_LOGS:
        SERVER_LOGS[log] = log.stat().st_size if log.exists() else 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and SERVER_LOGS:
        for log, start in SERVER_LOGS.items():
            if log.exists():
                with open(log, "rb") as handle:
                    handle.seek(start)
                    written = handle.read().decode(errors="replace")
                report.sections.append(
                    (f"server log during the test ({log.parent.name})", written[-LOG_EXCERPT_CHARS:])
                )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url + "/api/demos", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the server did not answer within {STARTUP_SECONDS}s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> str:
    """Base URL of a fresh SchedLab (own SQLite database and broker folder), embedded as `make run`
    starts it but with visitors apart (SCHEDLAB_SINGLE_USER=0, as in production): each test is a
    visitor of its own, who sees only what they made, whatever the tests before made."""
    yield from _serve(tmp_path_factory, {"SCHEDLAB_SINGLE_USER": "0"})


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory) -> str:
    """Exactly as `make run` starts it: no SECRET_KEY, so single-user mode."""
    yield from _serve(tmp_path_factory, {})


@pytest.fixture(scope="session")
def production_server(tmp_path_factory) -> str:
    """The same app in production mode (SECRET_KEY set: each visitor's scenarios their own, accounts),
    still on its own SQLite database and broker folder, over plain HTTP on loopback."""
    production = {"SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1", "HTTPS": "false"}
    yield from _serve(tmp_path_factory, production)


# What the objects-mode server takes for a big scenario: a few small objects' worth (the editor's
# objects mode without a 4 MiB text in the test).
SMALL_EDITOR_MAX_BYTES = 2000


@pytest.fixture(scope="session")
def small_editor_server(tmp_path_factory) -> str:
    """The server with SCHEDLAB_EDITOR_MAX_BYTES small: a scenario of a few objects is in objects mode."""
    yield from _serve(
        tmp_path_factory, {"SCHEDLAB_SINGLE_USER": "0", "SCHEDLAB_EDITOR_MAX_BYTES": str(SMALL_EDITOR_MAX_BYTES)}
    )


def _serve(tmp_path_factory, extra_env: dict[str, str]):
    var = tmp_path_factory.mktemp("schedlab-var")
    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DEBUG")
    }
    env.update(SCHEDLAB_VAR_DIR=str(var), PYTHONUNBUFFERED="1", **extra_env)
    log = var / "server.log"
    SERVER_LOGS[log] = 0
    with open(log, "ab") as handle:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runembedded", "--port", str(port), "--concurrency", "1"],
            cwd=REPO,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log)
        yield url
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=5)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing (CI is set: browser tests must run; `make chromium` installs it)")
        pytest.skip(f"{CHROMIUM} is missing (`make chromium` installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class PageErrors(list):
    """JavaScript errors and CSP violations seen by a page; every test asserts it stays empty."""


def new_page(browser, errors: PageErrors):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console: {msg.text}")
            if msg.type == "error" and "Content Security Policy" in msg.text
            else None
        ),
    )
    return context, page


@pytest.fixture
def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture
def page(browser, server, page_errors):
    context, page = new_page(browser, page_errors)
    page.base_url = server
    yield page
    context.close()
    assert not page_errors, page_errors


@pytest.fixture
def production_page(browser, production_server, page_errors):
    """A visitor of the production-mode server (its base_url)."""
    yield from _visit(browser, production_server, page_errors)


@pytest.fixture
def small_editor_page(browser, small_editor_server, page_errors):
    """A visitor of the server whose editor takes a few objects for a big scenario (its base_url)."""
    yield from _visit(browser, small_editor_server, page_errors)


@pytest.fixture
def embedded_page(browser, embedded_server, page_errors):
    """A visitor of the single-user embedded server (its base_url)."""
    yield from _visit(browser, embedded_server, page_errors)


def _visit(browser, base_url: str, page_errors: PageErrors):
    context, page = new_page(browser, page_errors)
    page.base_url = base_url
    yield page
    context.close()
    assert not page_errors, page_errors


@pytest.fixture
def fresh_page(browser, server, page_errors):
    """A second, unrelated visitor (own cookies and storage): opens share links."""
    contexts = []

    def make():
        context, page = new_page(browser, page_errors)
        contexts.append(context)
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def snap(tmp_path):
    """Screenshots go to $SCHEDLAB_SCREENSHOTS (e.g. docs/screenshots) when set, else to tmp."""
    target = Path(os.environ.get("SCHEDLAB_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, full_page: bool = False) -> Path:
        path = target / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
