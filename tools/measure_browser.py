"""Measures what a person waits for in the browser, on a big scenario (issue 11). Not a test: it
prints numbers (JSON) and asserts nothing about time.

    .venv/bin/python tools/measure_browser.py ../shared/bench/spread_5000.yaml [--rounds 3]

Starts the app as `make run` does (`manage.py runembedded`, SQLite, its own var dir, a free port) and
drives Debian's Chromium with Playwright (headless, 1440x900):

- import: the file chosen on the scenario list and imported; from the end of the upload until the
  editor shows the scenario and its check (the editor's data-import-usable-ms), and from the click;
- keystrokes: typing at the end of the 5 MB text, one key every 150 ms, then again while the
  debounced validation of the changed text is in flight; each keystroke's Event Timing duration
  (from the key event until the next frame is painted);
- tables: opening the Nodes & Pods tab until the first page of rows is shown;
- run view: the whole file run through the app; fresh page loads of cycle 500's Filter, Score,
  PreFilter and Total (navigation to the `step-painted` and `charts-drawn` marks); step changes in
  one page (←/→ between steps, Shift+←/→ to other cycles, cycles not loaded yet included): from the
  key event to the changed step's `step-painted` mark (its charts are drawn before it).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
]
VIEWPORT = {"width": 1440, "height": 900}
STEPS = ("Filter", "Score", "PreFilter", "Total")

OBSERVE_KEYS = """() => {
    window.__keys = [];
    new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.name === "keydown") window.__keys.push(entry.duration);
    }).observe({ type: "event", durationThreshold: 0, buffered: false });
}"""

MARK_AFTER = """([name, after]) => {
    const found = performance.getEntriesByName(name).filter((m) => m.startTime >= after);
    return found.length ? found[found.length - 1].startTime : null;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(var: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    env.update(SCHEDLAB_VAR_DIR=str(var), PYTHONUNBUFFERED="1")
    log = open(var / "server.log", "ab")  # noqa: SIM115 - the server writes to it for its whole life
    process = subprocess.Popen(
        [sys.executable, "manage.py", "runembedded", "--port", str(port), "--concurrency", "1"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(180):
        try:
            with urllib.request.urlopen(url + "/api/demos", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("the server did not start")


def stop_server(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)


def summary(values: list[float]) -> dict:
    values = [round(v, 1) for v in values]
    return {"n": len(values), "min": min(values), "median": round(statistics.median(values), 1), "max": max(values)}


def measure_import(page, url: str, path: Path) -> tuple[int, dict]:
    page.goto(url + "/")
    page.set_input_files("#import-file", str(path))
    clicked = time.perf_counter()
    page.click("#import-form button[type=submit]")
    page.wait_for_url(lambda u: "/scenarios/" in u, timeout=120_000)
    page.wait_for_selector("body[data-import-usable-ms]", timeout=120_000)
    total = time.perf_counter() - clicked
    usable_ms = int(page.get_attribute("body", "data-import-usable-ms"))
    saved_ms = int(page.get_attribute("body", "data-import-saved-ms"))
    scenario_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    return scenario_id, {
        "upload_done_to_usable_s": round(usable_ms / 1000, 2),
        "of_which_server_save_s": round(saved_ms / 1000, 2),
        "click_to_usable_s": round(total, 2),
        "validity": page.text_content("#validity"),
    }


def measure_typing(page) -> dict:
    page.evaluate(OBSERVE_KEYS)
    page.locator("#yaml-text").click()
    page.keyboard.press("Control+End")
    for char in "# typed while measuring\n":
        page.keyboard.type(char)
        page.wait_for_timeout(150)
    idle = list(page.evaluate("window.__keys"))
    page.wait_for_timeout(500)  # the debounced check of the changed text starts now (5 MB to the server)
    page.evaluate("window.__keys = []")
    for char in "# and while it is checked\n":
        page.keyboard.type(char)
        page.wait_for_timeout(60)
    busy = list(page.evaluate("window.__keys"))
    page.wait_for_function("() => !document.querySelector('#validity').classList.contains('checking')", timeout=60_000)
    return {"keystroke_ms": summary(idle), "keystroke_while_checking_ms": summary(busy)}


def measure_tables(page) -> dict:
    started = time.perf_counter()
    page.click("#tab-tables")
    page.wait_for_selector("#nodes-table tbody tr", timeout=60_000)
    return {
        "tables_first_page_s": round(time.perf_counter() - started, 2),
        "pager": page.text_content("#nodes-pager span"),
    }


def api_post(page, url: str, path: str) -> dict:
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        url + path, headers={"X-CSRFToken": token, "Content-Type": "application/json"}, data="{}"
    )
    assert response.ok, response.text()
    return response.json()


def run_to_end(page, url: str, scenario_id: int) -> dict:
    run = api_post(page, url, f"/api/scenarios/{scenario_id}/runs")
    started = time.perf_counter()
    while run["status"] not in ("succeeded", "failed", "cancelled"):
        time.sleep(1)
        run = page.request.get(f"{url}/api/runs/{run['id']}").json()
    run["wall_s"] = round(time.perf_counter() - started, 1)
    return run


def measure_fresh_loads(browser, session: dict, url: str, run_id: int, rounds: int) -> dict:
    """Each load in a new browser context (empty caches) carrying the owner's session cookie."""
    text, charts = [], []
    for _ in range(rounds):
        for step in STEPS:
            context = browser.new_context(viewport=VIEWPORT, storage_state=session)
            page = context.new_page()
            page.goto(f"{url}/runs/{run_id}/?cycle=500&step={step}")
            page.wait_for_function(
                f"() => document.querySelector('#run-root')?.dataset.shown?.startsWith('500:{step}')", timeout=60_000
            )
            page.wait_for_function("() => performance.getEntriesByName('step-painted').length > 0", timeout=60_000)
            page.wait_for_function("() => performance.getEntriesByName('charts-drawn').length > 0", timeout=60_000)
            text.append(page.evaluate("performance.getEntriesByName('step-painted')[0].startTime"))
            charts.append(page.evaluate("performance.getEntriesByName('charts-drawn')[0].startTime"))
            context.close()
    return {"fresh_text_ms": summary(text), "fresh_charts_ms": summary(charts)}


def measure_step_changes(browser, session: dict, url: str, run_id: int) -> dict:
    context = browser.new_context(viewport=VIEWPORT, storage_state=session)
    page = context.new_page()
    page.goto(f"{url}/runs/{run_id}/?cycle=500&step=Filter")
    page.wait_for_function("() => performance.getEntriesByName('charts-drawn').length > 0", timeout=60_000)
    page.evaluate("window.addEventListener('keydown', (e) => { window.__pressed = performance.now(); }, true)")
    keys = [
        "ArrowRight",
        "ArrowRight",
        "ArrowRight",
        "ArrowRight",
        "ArrowRight",
        "ArrowLeft",
        "Shift+ArrowRight",
        "Shift+ArrowRight",
        "Shift+ArrowLeft",
        "ArrowLeft",
        "ArrowLeft",
        "Shift+ArrowRight",
        "ArrowRight",
    ]
    times, steps = [], []
    for key in keys:
        shown = page.get_attribute("#run-root", "data-shown")
        page.keyboard.press(key)
        page.wait_for_function(
            f"() => document.querySelector('#run-root').dataset.shown !== {json.dumps(shown)}", timeout=30_000
        )
        pressed = page.evaluate("window.__pressed")
        painted = None
        while painted is None:
            painted = page.evaluate(MARK_AFTER, ["step-painted", pressed])
        times.append(painted - pressed)
        steps.append(f"{key} -> {page.get_attribute('#run-root', 'data-shown')}: {round(painted - pressed)} ms")
        page.wait_for_timeout(300)
    context.close()
    return {"step_change_ms": summary(times), "step_changes": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    out: dict = {"file": str(options.file), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="schedlab-measure-") as var:
        process, url = start_server(Path(var))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                page = browser.new_context(viewport=VIEWPORT).new_page()
                scenario_id, out["import"] = measure_import(page, url, options.file)
                out["editor"] = measure_typing(page)
                out["tables"] = measure_tables(page)
                page.goto(f"{url}/scenarios/{scenario_id}/")  # the saved text (the typed lines were never saved)
                run = run_to_end(page, url, scenario_id)
                out["run"] = {
                    k: run[k] for k in ("id", "status", "eventCount", "storedBytesPerCycle", "wall_s", "error")
                }
                print(json.dumps(out), file=sys.stderr, flush=True)
                session = page.context.storage_state()
                out["run_view"] = measure_fresh_loads(browser, session, url, run["id"], options.rounds)
                out["run_view"].update(measure_step_changes(browser, session, url, run["id"]))
                browser.close()
        finally:
            stop_server(process)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
