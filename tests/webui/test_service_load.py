"""Load, both modes, as the README starts them: 30 users start a run each at the same moment while 20
readers hit the API and pages back to back for 60 s. Done when: no request fails (no 5xx, no 429, no
refused connection), every run succeeds exactly once (one claim, one "succeeded" in the worker log,
every event stored once).

Figures for docs/OPERATIONS.md: `.venv/bin/python -m pytest tests/webui/test_service_load.py -m service -s`
(SCHEDLAB_LOAD_SECONDS overrides the 60 s window).
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from tests.webui import load, support

pytestmark = pytest.mark.service
PLAN = load.LoadPlan(seconds=float(os.environ.get("SCHEDLAB_LOAD_SECONDS", "60")))
# Every user comes from 127.0.0.1: the per-address limit must let all 30 through.
LIMITS = {"SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS": str(PLAN.runs + 10)}


def succeeded_lines(log_text: str) -> Counter:
    """How often each run's task reported success: Celery logs the task's return value."""
    return Counter(int(m) for m in re.findall(r"'run (\d+): succeeded'", log_text))


def server_tracebacks(log_text: str, keep: int = 3) -> list[str]:
    """The servers' logged tracebacks, so a failed request says why in CI's output."""
    return re.findall(
        r"Traceback \(most recent call last\):.*?\n(?:\S[^\n]*Error[^\n]*|\S[^\n]*Exception[^\n]*)", log_text, re.S
    )[:keep]


def check_exactly_once(result: load.LoadResult, stored, log_text: str) -> None:
    figures = result.figures()
    print(f"\n{figures.line()}")
    assert result.recorder.errors == [], (result.recorder.errors[:5], server_tracebacks(log_text))
    finals = {u.run_id: u.final for u in result.users}
    assert None not in finals and all(f is not None for f in finals.values()), finals
    assert {f["status"] for f in finals.values()} == {"succeeded"}, [
        f for f in finals.values() if f["status"] != "succeeded"
    ][:3]
    assert {f["attempts"] for f in finals.values()} == {1}
    assert succeeded_lines(log_text) == Counter(finals.keys())  # one success per run, no run twice
    counts = {stored(run_id) for run_id in finals}
    assert len(counts) == 1, counts  # identical runs, identical logs
    [(count, distinct, top, event_count)] = counts
    assert count == distinct == top == event_count > 0


WORKER_CONCURRENCY = 2
# The connection budget (docs/OPERATIONS.md): daphne's pool, plus one connection per worker pool process and one for the
# worker's recovery sweep.
CONNECTION_BUDGET = 10 + WORKER_CONCURRENCY + 1


@pytest.fixture
def production(tmp_path):
    stack = support.Stack(tmp_path, SCHEDLAB_DB_POOL_MAX_SIZE="10", **LIMITS).start()
    stack.start_worker("load", concurrency=WORKER_CONCURRENCY)
    yield stack
    stack.stop()


class ConnectionSampler(threading.Thread):
    """The peak number of open client connections to PostgreSQL on this machine, every 0.1 s.

    Counted on the client side (established TCP connections to port 5432, from `ss`): what the
    processes hold. pg_stat_activity would also list, for a moment, the backend of a connection a
    worker has just closed (a worker pool process closes its pool after every task) while it exits.
    """

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            sockets = subprocess.run(
                ["ss", "-tnH", "state", "established", "( dport = :5432 )"], capture_output=True, text=True, check=True
            ).stdout
            self.peak = max(self.peak, len(sockets.splitlines()))


def test_it_serves_30_runs_and_20_readers_in_production_mode_without_an_error(production):
    sampler = ConnectionSampler()
    sampler.start()
    result = load.run_load(f"http://127.0.0.1:{production.port}", PLAN)
    sampler.done.set()
    sampler.join(timeout=10)
    print(f"\nPostgreSQL connections held: peak {sampler.peak} (budget {CONNECTION_BUDGET})")
    # Every server's log: the worker's success lines and, should a request fail, the web server's traceback.
    logs = "\n".join(path.read_text(errors="replace") for path in sorted(production.tmp.glob("*.log")))
    check_exactly_once(result, support.stored_seqs_ok, logs)
    assert 1 <= sampler.peak <= CONNECTION_BUDGET


@pytest.fixture
def embedded(tmp_path):
    port = support.free_port()
    env = support.clean_env(SCHEDLAB_VAR_DIR=str(tmp_path / "var"), **LIMITS)
    log = tmp_path / "embedded.log"
    process = support.spawn([support.PYTHON, "manage.py", "runembedded", "--port", str(port)], env, log)
    try:
        support.wait_until(
            lambda: support.reachable("127.0.0.1", port) or process.poll() is not None, 180, what="runembedded"
        )
        assert process.poll() is None, log.read_text()
        yield port, tmp_path / "var" / "db.sqlite3", log
    finally:
        support.stop(process, signal.SIGTERM, timeout=30)


def sqlite_seqs(database: Path):
    def stored(run_id: int) -> tuple[int, int, int, int]:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as conn:
            count, distinct, top = conn.execute(support.STORED_SEQS.replace("%s", "?"), (run_id,)).fetchone()
            [event_count] = conn.execute("SELECT event_count FROM webui_run WHERE id = ?", (run_id,)).fetchone()
        return count, distinct, top, event_count

    return stored


def test_it_serves_30_runs_and_20_readers_in_embedded_mode_without_an_error(embedded):
    port, database, log = embedded
    result = load.run_load(f"http://127.0.0.1:{port}", PLAN)
    check_exactly_once(result, sqlite_seqs(database), log.read_text(errors="replace"))


# --- long work beside short work (issue 51, item 2) -----------------------------------------------

SHORT_RUNS = 30


@pytest.fixture
def deployed(tmp_path):
    """Production mode as docs/OPERATIONS.md deploys it: one worker for runs (-Q celery), one for
    long work (-Q long), so a capacity question can never hold the runs' pool."""
    limits = {"SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS": "40", "SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER": "40"}
    stack = support.Stack(tmp_path, **limits).start()
    runs = stack.start_worker("runs", concurrency=2, queues="celery")
    long = stack.start_worker("long", concurrency=1, queues="long")
    stack.wait_for_worker("runs", runs)
    stack.wait_for_worker("long", long)
    yield stack
    stack.stop()


def test_short_runs_start_and_finish_while_a_long_question_is_running_and_it_can_be_cancelled(deployed):
    """A 'which nodes can go?' question on 150 nodes running a 300-replica Deployment (a trial per
    node, then the greedy set: many minutes of work on the long worker) is running; 30 runs of a
    3-node scenario started together all succeed before it ends (none waits for it), and the
    question is then cancelled through the API."""
    client = deployed.client()
    big = client.request("POST", "/api/scenarios", {"name": "big", "text": support.deployment_text(150, 300)}).body
    asked = client.request("POST", f"/api/capacity/scenarios/{big['id']}", {"kind": "removable"})
    assert asked.status == 201, asked.body
    question = asked.body["id"]
    support.wait_until(
        lambda: client.request("GET", f"/api/capacity/{question}").body["progress"]["done"] >= 1,
        300,
        0.2,
        "the question's first trial",
    )

    small = client.request("POST", "/api/scenarios", {"name": "small", "text": support.scenario_text(3, 5)}).body
    runs = [client.request("POST", f"/api/scenarios/{small['id']}/runs").body for _ in range(SHORT_RUNS)]
    finals = [support.wait_for_run(client, run["id"], 600) for run in runs]
    assert {final["status"] for final in finals} == {"succeeded"}, [f for f in finals if f["status"] != "succeeded"][:2]
    still = client.request("GET", f"/api/capacity/{question}").body
    assert still["status"] in ("queued", "running"), still["status"]  # every run ended before the question did

    waits = sorted((_when(final["started"]) - _when(final["created"])).total_seconds() for final in finals)
    print(
        f"\n{SHORT_RUNS} runs beside a running question: start waits median {waits[len(waits) // 2]:.2f} s, "
        f"max {waits[-1]:.2f} s; the question was at trial {still['progress']['done']} of ~{still['progress']['estimate']}"
    )

    cancelled = client.request("POST", f"/api/capacity/{question}/cancel")
    assert cancelled.status == 200 and cancelled.body["status"] == "cancelled", cancelled.body


def _when(text: str):  # type: ignore[no-untyped-def]
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))
