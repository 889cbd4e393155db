"""The embedded mode, started the way the README starts it (`make run`), on a free port: no
PostgreSQL, no Redis; a run's events arrive over the websocket from a separate worker process."""

import os
import signal
import subprocess

import pytest

from tests.webui import support


@pytest.fixture
def embedded(tmp_path):
    port = support.free_port()
    env = support.clean_env(SCHEDLAB_VAR_DIR=str(tmp_path / "var"))
    log = tmp_path / "make-run.log"
    process = support.spawn(["make", "run", f"PORT={port}"], env, log)
    try:
        support.wait_until(lambda: "SchedLab is running at" in log.read_text(errors="replace") or process.poll() is not None, 300, 0.5, "make run")
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
    assert events[-1]["extensionPoint"] == "CycleEnd"


def test_it_stops_the_worker_with_the_server(tmp_path):
    port = support.free_port()
    env = support.clean_env(SCHEDLAB_VAR_DIR=str(tmp_path / "var"))
    log = tmp_path / "run.log"
    process = support.spawn([support.PYTHON, "manage.py", "runembedded", "--port", str(port)], env, log)
    support.wait_until(lambda: support.reachable("127.0.0.1", port), 120, what="daphne")
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 2  # daphne and the Celery worker
    os.kill(process.pid, signal.SIGTERM)  # only the parent: it must stop its children itself
    assert process.wait(timeout=30) == 0
    assert [pid for pid in children if os.path.exists(f"/proc/{pid}")] == []
