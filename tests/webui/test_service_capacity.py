"""A capacity question fanned out to real Celery workers (PostgreSQL, Redis, daphne): the answer
equals the sequential CLI's, its rounds ran on both workers, progress streams over the websocket; a
question whose message the broker lost is recovered by the workers' sweep; a pod-copies question is
answered by one worker's one pass, its copies streamed as it places them."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.webui import support
from tests.webui.capacity_support import CAPACITY_WEB, REPO, many_copies_text

pytestmark = pytest.mark.service


@pytest.fixture
def stack(tmp_path):
    stack = support.Stack(tmp_path, SCHEDLAB_CAPACITY_TRIALS_PER_ROUND="4").start()
    workers = [(name, stack.start_worker(name)) for name in ("cap-a", "cap-b")]
    for name, worker in workers:
        stack.wait_for_worker(name, worker)
    yield stack
    stack.stop()


def cli_answer(workload: str) -> dict:
    done = subprocess.run(
        [
            support.PYTHON,
            "-m",
            "scheduler_core",
            "capacity",
            str(REPO / "examples" / "capacity_web.yaml"),
            "--workload",
            workload,
            "--json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_fanned_out_question_answers_as_the_cli_and_streams_its_progress(stack, tmp_path):
    client = stack.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "web", "text": CAPACITY_WEB}).body
    asked = client.request(
        "POST", f"/api/capacity/scenarios/{scenario['id']}", {"kind": "fit", "workload": "default/web"}
    )
    assert asked.status == 201, asked.body
    ws = stack.websocket(client, f"/ws/capacity/{asked.body['id']}/")
    messages = []
    while (message := ws.receive()) is not None:
        messages.append(message)
        if message["type"] == "end":
            break
    assert messages[-1] == {"type": "end", "status": "succeeded", "error": ""}, stack.logs()
    done = [m["done"] for m in messages if m["type"] == "progress"]
    assert done == sorted(done) and done[-1] > 1
    read = client.request("GET", f"/api/capacity/{asked.body['id']}").body
    expected = cli_answer("default/web")
    fit = read["answer"]["fit"]
    assert (fit["fits"], fit["stoppedBy"], fit["message"], fit["placements"]) == (
        expected["fits"],
        expected["stoppedBy"],
        expected["message"],
        expected["placements"],
    )
    ran = {
        name: (tmp_path / f"{name}.log").read_text(errors="replace").count("run_capacity_trial")
        for name in ("cap-a", "cap-b")
    }
    assert all(ran.values()), ran  # the rounds' trials went to both workers
    run = support.wait_for_run(client, read["deciding"]["run"], 120)
    assert run["status"] == "succeeded"
    cycles = client.request("GET", f"/api/runs/{run['id']}/cycles").body
    decided = next(c for c in cycles if c["cycle"] == read["deciding"]["cycle"])
    assert (decided["pod"], decided["nodeName"]) == (fit["stoppedBy"][0], None)


def test_a_pod_copies_question_is_placed_by_one_worker_its_copies_streamed_as_they_go(stack, tmp_path):
    client = stack.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "many", "text": many_copies_text(1500)}).body
    asked = client.request(
        "POST", f"/api/capacity/scenarios/{scenario['id']}", {"kind": "fit", "pod": "default/p", "max": 2500}
    )
    assert asked.status == 201, asked.body
    ws = stack.websocket(client, f"/ws/capacity/{asked.body['id']}/")
    messages = []
    while (message := ws.receive()) is not None:
        messages.append(message)
        if message["type"] == "end":
            break
    assert messages[-1] == {"type": "end", "status": "succeeded", "error": ""}, stack.logs()
    # The socket opens after the question is asked: on a busy machine the pass may be past a report
    # by then, so the reports seen are checked, not their number (services/test_capacity.py checks
    # that every 1000th copy is published).
    placing = [m for m in messages if m["type"] == "progress" and m["status"] == "running" and m["copies"]]
    assert all(m["copies"] in (1000, 2000) and m["copiesPerSecond"] > 0 and m["method"] == "" for m in placing)
    assert (messages[-2]["method"], messages[-2]["copies"]) == ("placed", 2500)
    read = client.request("GET", f"/api/capacity/{asked.body['id']}").body
    copies = read["answer"]["copies"]
    assert (copies["fits"], copies["stoppedAtMax"], copies["perNode"]["nodeCount"]) == (2500, True, 1500)
    logs = "".join((tmp_path / f"{name}.log").read_text(errors="replace") for name in ("cap-a", "cap-b"))
    assert (
        "Task webui.tasks.advance_capacity[" in logs and "Task webui.tasks.run_capacity_trial[" not in logs
    )  # no trial


def test_a_question_whose_messages_the_broker_lost_is_recovered_by_the_workers_sweep(tmp_path):
    """The question's first message is lost with the broker's data (Redis flushed before any worker
    runs); the worker's recovery sweep sends it again, and the answer is still the CLI's. A 1 s stale
    threshold can also make the sweep re-send trials that are merely running: stored once regardless."""
    stack = support.Stack(
        tmp_path,
        SCHEDLAB_CAPACITY_TRIALS_PER_ROUND="2",
        SCHEDLAB_CAPACITY_STALE_SECONDS="1",
        SCHEDLAB_RECOVERY_SWEEP_SECONDS="0.5",
        SCHEDLAB_CAPACITY_MAX_REDISPATCHES="1000",
    ).start()
    try:
        client = stack.client()
        scenario = client.request("POST", "/api/scenarios", {"name": "web", "text": CAPACITY_WEB}).body
        asked = client.request(
            "POST", f"/api/capacity/scenarios/{scenario['id']}", {"kind": "fit", "workload": "default/web"}
        )
        assert asked.status == 201, asked.body
        support.flush_redis()  # the advance_capacity message is gone
        ws = stack.websocket(client, f"/ws/capacity/{asked.body['id']}/")
        stack.wait_for_worker("cap-sweep", stack.start_worker("cap-sweep", concurrency=2))
        while (message := ws.receive()) is not None and message["type"] != "end":
            pass
        assert message == {"type": "end", "status": "succeeded", "error": ""}, stack.logs()
        question = support.postgres_rows("SELECT redispatches, trials_done FROM webui_capacityquestion")[0]
        trials = support.postgres_rows("SELECT count(*) FROM webui_capacitytrial")[0][0]
        assert question[0] >= 1 and question[1] == trials  # recovered; every outcome counted once
        fit = client.request("GET", f"/api/capacity/{asked.body['id']}").body["answer"]["fit"]
        expected = cli_answer("default/web")
        assert (fit["fits"], fit["stoppedBy"], fit["message"]) == (
            expected["fits"],
            expected["stoppedBy"],
            expected["message"],
        )
    finally:
        stack.stop()
