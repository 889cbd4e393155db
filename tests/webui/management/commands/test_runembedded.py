"""The embedded mode, started the way the README starts it (`make run`), on a free port: no
PostgreSQL, no Redis; a run's events arrive over the websocket from a separate worker process; a
worker that dies is restarted and the run it had finishes."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.webui import support
from webui.management.commands import runembedded


@pytest.fixture
def embedded(tmp_path):
    port = support.free_port()
    env = support.clean_env(SCHEDLAB_VAR_DIR=str(tmp_path / "var"))
    log = tmp_path / "make-run.log"
    process = support.spawn(["make", "run", f"PORT={port}"], env, log)
    try:
        support.wait_until(
            lambda: "SchedLab is running at" in log.read_text(errors="replace") or process.poll() is not None,
            300,
            0.5,
            "make run",
        )
        assert process.poll() is None, log.read_text()
        support.wait_until(lambda: support.reachable("127.0.0.1", port), 60, what="daphne")
        yield port, log
    finally:
        support.stop(process, signal.SIGTERM, timeout=30)


def test_it_serves_a_run_over_the_websocket_in_embedded_mode(embedded):
    port, log = embedded
    assert f"http://127.0.0.1:{port}/" in log.read_text()
    client = support.HttpClient(f"http://127.0.0.1:{port}")
    client.start_session()
    demos = client.request("GET", "/api/scenarios").body
    assert {d["name"] for d in demos if d["demo"]} >= {"Topology spread: conflicting constraints"}
    demo = next(d for d in demos if d["name"] == "Topology spread: one zone constraint")
    run = client.request("POST", f"/api/scenarios/{demo['id']}/runs")
    assert run.status == 201, run.body
    ws = support.WebSocket("127.0.0.1", port, f"/ws/runs/{run.body['id']}/?since=0", cookie=client.cookie_header())
    events, end = support.receive_all(ws)
    assert end and end["status"] == "succeeded", log.read_text()[-3000:]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert events[-1]["extensionPoint"] == "RunEnd"  # a run is the scheduler run to the end


def test_it_stops_the_worker_with_the_server(tmp_path):
    port = support.free_port()
    env = support.clean_env(SCHEDLAB_VAR_DIR=str(tmp_path / "var"))
    log = tmp_path / "run.log"
    process = support.spawn([support.PYTHON, "manage.py", "runembedded", "--port", str(port)], env, log)
    support.wait_until(lambda: support.reachable("127.0.0.1", port), 120, what="daphne")
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 3  # daphne, the Celery worker and the long-work one
    os.kill(process.pid, signal.SIGTERM)  # only the parent: it must stop its children itself
    assert process.wait(timeout=30) == 0
    assert [pid for pid in children if os.path.exists(f"/proc/{pid}")] == []


def test_each_worker_consumes_its_own_queue_and_says_which_in_its_name(settings):
    short, long = runembedded.celery_worker("default", "celery", 2), runembedded.celery_worker("long", "long", 1)
    assert short[short.index("-Q") + 1] == "celery" and short[short.index("-n") + 1] == "default@%h"
    assert long[long.index("-Q") + 1] == settings.SCHEDLAB_LONG_QUEUE and "--concurrency=1" in long


def child_pids(parent: int) -> dict[str, int]:
    """runembedded's children by role, read from their command lines."""
    found = {}
    for pid in subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True).stdout.split():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except FileNotFoundError:  # a child that ended between pgrep and the read (a restart under way)
            continue
        role = "server" if "celery" not in cmdline else "long-worker" if " long@" in cmdline else "worker"
        found[role] = int(pid)
    return found


def group_alive(pgid: int) -> bool:
    """Any process of the group still running (zombies waiting for their reaper do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def test_it_restarts_a_killed_worker_keeps_serving_and_finishes_the_run_it_had(tmp_path):
    port = support.free_port()
    env = support.clean_env(
        SCHEDLAB_VAR_DIR=str(tmp_path / "var"),
        SCHEDLAB_HEARTBEAT_STALE_SECONDS="3",
        SCHEDLAB_RECOVERY_SWEEP_SECONDS="0.5",
        SCHEDLAB_EVENT_FLUSH_SECONDS="0.05",
    )
    log = tmp_path / "run.log"
    process = support.spawn([support.PYTHON, "manage.py", "runembedded", "--port", str(port)], env, log)
    try:
        support.wait_until(lambda: support.reachable("127.0.0.1", port), 120, what="daphne")
        client = support.HttpClient(f"http://127.0.0.1:{port}")
        client.start_session()
        scenario = client.request(
            "POST", "/api/scenarios", {"name": "big", "text": support.scenario_text(500, 600, 200)}
        ).body
        run = client.request("POST", f"/api/scenarios/{scenario['id']}/runs").body
        support.wait_until(
            lambda: client.request("GET", f"/api/runs/{run['id']}").body["eventCount"] >= 1000, 180, 0.05, "1000 events"
        )

        doomed = child_pids(process.pid)["worker"]
        os.kill(doomed, signal.SIGKILL)  # the worker alone, as a crash would: its pool process is orphaned
        assert client.request("GET", "/api/session").status == 200  # the app keeps serving meanwhile
        support.wait_until(lambda: child_pids(process.pid).get("worker", doomed) != doomed, 60, 0.2, "a new worker")
        support.wait_until(lambda: not group_alive(doomed), 30, 0.2, "the orphaned pool process to go with it")
        # the new worker may already have finished the run again: what matters is that it was not failed
        assert client.request("GET", f"/api/runs/{run['id']}").body["status"] in ("queued", "running", "succeeded")

        final = support.wait_for_run(client, run["id"], 300)
        assert (final["status"], final["attempts"]) == ("succeeded", 2), log.read_text()[-3000:]
        seqs, cursor, done = [], 0, False
        while not done:
            page = client.request("GET", f"/api/runs/{run['id']}/events?since={cursor}&limit=5000").body
            seqs += [e["seq"] for e in page["events"]]
            cursor, done = page["next"], page["done"]
        assert seqs == list(range(final["eventCount"]))  # every event once, resumed after the stored ones
        assert "celery worker exited with code -9; starting it again" in log.read_text()
        assert process.poll() is None  # still up: only Ctrl-C / SIGTERM stops it
    finally:
        support.stop(process, signal.SIGTERM, timeout=30)
    assert process.returncode == 0


@pytest.mark.parametrize(
    "ran_for, previous, expected",
    [
        pytest.param(0.5, 0.0, 1.0, id="a child that died at once waits a second"),
        pytest.param(0.5, 1.0, 2.0, id="and twice as long each time it dies at once again"),
        pytest.param(0.5, 20.0, 30.0, id="but never longer than 30 s"),
        pytest.param(61.0, 30.0, 0.0, id="a child that ran a while is restarted at once"),
    ],
)
def test_it_backs_off_restarting_a_child_that_keeps_dying(ran_for, previous, expected):
    child = runembedded.Child("worker", ["true"], started_at=100.0, backoff=previous)
    assert child.schedule_restart(now=100.0 + ran_for) == expected
    assert child.restart_at == 100.0 + ran_for + expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_does_not_outlive_a_supervisor_killed_with_sigkill(tmp_path):
    script = (
        "import sys, time; from webui.management.commands.runembedded import Child; "
        "c = Child('sleeper', ['sleep', '120']); c.start(); print(c.process.pid, flush=True); time.sleep(120)"
    )
    supervisor = subprocess.Popen([sys.executable, "-c", script], cwd=support.REPO, stdout=subprocess.PIPE, text=True)
    child_pid = int(supervisor.stdout.readline())
    os.kill(supervisor.pid, signal.SIGKILL)
    supervisor.wait(timeout=10)
    support.wait_until(lambda: not _alive(child_pid), 10, 0.1, "the orphaned child to be killed")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (reaped by init later) is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
