"""A worker SIGKILLed mid-run: the run completes on another worker (or is marked failed), is never
left running, stores no event twice, and a websocket watching it sees every event exactly once."""

import os
import signal
import threading

import pytest

from tests.webui import support

pytestmark = pytest.mark.service
# Big enough that the run is still going when we kill the worker: the columnar writer stores 120
# cycles of 500 nodes in under half a second, so 1500 cycles (~66,000 events, several seconds)
# leave the kill, made after the first 1000 events, far inside the run.
NODES, PENDING, RUNNING = 500, 1500, 200


@pytest.fixture
def stack(tmp_path):
    stack = support.Stack(
        tmp_path,
        SCHEDLAB_HEARTBEAT_STALE_SECONDS="3",
        CELERY_VISIBILITY_TIMEOUT="5",
        SCHEDLAB_EVENT_FLUSH_SECONDS="0.05",
    ).start()
    yield stack
    stack.stop()


def watch(stack, client, run_id: int, into: dict) -> threading.Thread:
    """Watch like a browser does: on a dropped connection, reconnect from the last seq + 1."""

    def read() -> None:
        events, end = [], None
        while end is None:
            more, end = support.receive_all(stack.websocket(client, f"/ws/runs/{run_id}/?since={len(events)}"))
            events += more
            into["reconnects"] = into.get("reconnects", -1) + 1
        into["events"], into["end"] = events, end

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_it_finishes_a_run_whose_worker_was_killed_mid_run(stack):
    doomed = stack.start_worker("doomed")
    client = stack.client()
    scenario = client.request(
        "POST", "/api/scenarios", {"name": "big", "text": support.scenario_text(NODES, PENDING, RUNNING)}
    ).body
    run = client.request("POST", f"/api/scenarios/{scenario['id']}/runs").body
    seen: dict = {}
    watcher = watch(stack, client, run["id"], seen)

    # Kill it well inside the run: a fifth of its events stored, most still to come.
    support.wait_until(
        lambda: client.request("GET", f"/api/runs/{run['id']}").body["eventCount"] >= 1000, 120, 0.05, "1000 events"
    )
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=10)
    at_kill = client.request("GET", f"/api/runs/{run['id']}").body
    assert at_kill["status"] == "running", f"the run finished before the kill; make the scenario bigger ({at_kill})"

    stack.start_worker("rescuer")
    final = support.wait_for_run(client, run["id"], 600)
    watcher.join(timeout=60)

    assert final["status"] in ("succeeded", "failed"), final
    if final["status"] == "failed":
        assert "stopped responding" in final["error"]
    else:
        # At least the doomed worker's attempt and the rescuer's; a busy machine may let the rescuer's
        # own heartbeat go stale once more (3 s here), which re-queues it without storing twice.
        assert final["attempts"] >= 2 and final["progress"]["cycle"] == PENDING
    count, distinct, top, event_count = support.stored_seqs_ok(run["id"])
    assert count == distinct == top == event_count
    assert [e["seq"] for e in seen["events"]] == list(range(count)), stack.logs()
    assert seen["end"]["status"] == final["status"]
    print(
        f"\nkilled at event {at_kill['eventCount']} of {count}; final status {final['status']} after {final['attempts']} attempts; websocket reconnects: {seen['reconnects']}"
    )
