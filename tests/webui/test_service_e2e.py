"""End to end against the production setup: PostgreSQL, Redis, daphne and a real Celery worker."""

import json

import pytest
import yaml

from tests.webui import support

pytestmark = pytest.mark.service


@pytest.fixture
def stack(tmp_path):
    stack = support.Stack(tmp_path).start()
    stack.start_worker("e2e")
    yield stack
    stack.stop()


def test_it_runs_a_scenario_through_a_worker_and_streams_it_over_the_websocket(stack):
    client = stack.client()
    created = client.request("POST", "/api/scenarios", {"name": "e2e", "text": support.scenario_text(6, 4, 2)})
    assert created.status == 201, created.body
    run = client.request("POST", f"/api/scenarios/{created.body['id']}/runs")
    assert run.status == 201 and run.body["status"] == "queued"

    ws = stack.websocket(client, f"/ws/runs/{run.body['id']}/?since=0")
    events, end = support.receive_all(ws)
    assert end is not None and end["status"] == "succeeded", stack.logs()
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert sum(e["extensionPoint"] == "CycleEnd" for e in events) == 4

    detail = client.request("GET", f"/api/runs/{run.body['id']}").body
    assert detail["progress"] == {"cycle": 4, "cycles": 4}
    assert support.stored_seqs_ok(run.body["id"]) == (len(events),) * 4
    trace = client.request("GET", f"/api/runs/{run.body['id']}/trace").body
    assert [c["pod"] for c in trace["cycles"]] == [f"default/pending-{i}" for i in range(4)]


def test_it_resumes_a_websocket_from_a_cursor(stack):
    client = stack.client()
    created = client.request("POST", "/api/scenarios", {"name": "e2e", "text": support.scenario_text(4, 2)}).body
    run = client.request("POST", f"/api/scenarios/{created['id']}/runs").body
    support.wait_for_run(client, run["id"], 120)
    everything, _ = support.receive_all(stack.websocket(client, f"/ws/runs/{run['id']}/?since=0"))
    middle = len(everything) // 2
    rest, end = support.receive_all(stack.websocket(client, f"/ws/runs/{run['id']}/?since={middle}"))
    assert rest == everything[middle:] and end["status"] == "succeeded"


def test_a_big_upload_streams_to_disk_is_read_by_the_long_work_worker_and_followed_over_the_websocket(stack):
    """Issue 50: the raw body kept as sent, the reading on a worker, its progress and end over Redis."""
    nodes = [yaml.safe_load(support.node_yaml(f"n{i}", "ab"[i % 2])) for i in range(1500)]
    pods = [yaml.safe_load(support.pod_yaml(f"p{i}")) for i in range(20)]
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + pods}).encode()
    client = stack.client()
    answer = client.post_bytes("/api/uploads/file?filename=cluster.json&name=big", data)
    assert answer.status == 202, answer.body
    upload = answer.body["id"]
    ws = stack.websocket(client, f"/ws/uploads/{upload}/")
    messages = []
    try:
        while (message := ws.receive()) is not None:
            messages.append(message)
    except ConnectionError:
        pass
    finally:
        ws.close()
    assert messages and messages[-1]["type"] == "end" and messages[-1]["status"] == "succeeded", stack.logs()
    progress = [m for m in messages if m["type"] == "progress"]
    assert progress[-1]["objectsRead"] == 1520 and progress[-1]["bytesRead"] == len(data)
    scenario = client.request("GET", f"/api/scenarios/{messages[-1]['scenario']}").body
    assert (scenario["name"], scenario["valid"], scenario["summary"]["nodes"]) == ("big", True, 1500)
    assert (stack.tmp / "var" / "uploads" / str(upload) / "0").read_bytes() == data  # kept as sent
