"""A capacity question fanned out to real Celery workers (PostgreSQL, Redis, daphne): the answer
equals the sequential CLI's, its rounds ran on both workers, progress streams over the websocket."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.webui import support
from tests.webui.capacity_support import CAPACITY_WEB, REPO

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
    done = subprocess.run([support.PYTHON, "-m", "scheduler_core", "capacity", str(REPO / "examples" / "capacity_web.yaml"),
                           "--workload", workload, "--json"], cwd=REPO, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def test_a_fanned_out_question_answers_as_the_cli_and_streams_its_progress(stack, tmp_path):
    client = stack.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "web", "text": CAPACITY_WEB}).body
    asked = client.request("POST", f"/api/scenarios/{scenario['id']}/capacity", {"kind": "fit", "workload": "default/web"})
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
    assert (fit["fits"], fit["stoppedBy"], fit["message"], fit["placements"]) == \
        (expected["fits"], expected["stoppedBy"], expected["message"], expected["placements"])
    ran = {name: (tmp_path / f"{name}.log").read_text(errors="replace").count("run_capacity_trial") for name in ("cap-a", "cap-b")}
    assert all(ran.values()), ran  # the rounds' trials went to both workers
    run = support.wait_for_run(client, read["deciding"]["run"], 120)
    assert run["status"] == "succeeded"
    cycles = client.request("GET", f"/api/runs/{run['id']}/cycles").body
    decided = next(c for c in cycles if c["cycle"] == read["deciding"]["cycle"])
    assert (decided["pod"], decided["nodeName"]) == (fit["stoppedBy"][0], None)
