"""Load: 50 concurrent runs on 2 workers; every event stored exactly once, the API answers meanwhile."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.webui import support

pytestmark = pytest.mark.service
RUNS = 50


@pytest.fixture
def stack(tmp_path):
    stack = support.Stack(tmp_path, SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER=str(RUNS * 2)).start()
    stack.start_worker("load-1")
    stack.start_worker("load-2")
    yield stack
    stack.stop()


def test_it_stores_every_event_of_50_concurrent_runs_exactly_once(stack):
    client = stack.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "load", "text": support.scenario_text(60, 12, 20)}).body
    started = time.monotonic()
    with ThreadPoolExecutor(10) as pool:
        created = list(pool.map(lambda _: client.request("POST", f"/api/scenarios/{scenario['id']}/runs"), range(RUNS)))
    assert [r.status for r in created] == [201] * RUNS, [r.body for r in created if r.status != 201][:2]
    ids = [r.body["id"] for r in created]

    latencies = []
    while True:  # the API keeps answering while the workers are busy
        tick = time.monotonic()
        runs = client.request("GET", "/api/runs").body
        latencies.append(time.monotonic() - tick)
        if all(r["status"] in ("succeeded", "failed") for r in runs if r["id"] in ids):
            break
        assert time.monotonic() - started < 900, "runs did not finish in 15 minutes"
        time.sleep(0.2)
    elapsed = time.monotonic() - started

    assert {r["status"] for r in runs if r["id"] in ids} == {"succeeded"}
    counts = {support.stored_seqs_ok(run_id) for run_id in ids}
    assert len(counts) == 1, counts  # identical runs, identical logs
    [(count, distinct, top, event_count)] = counts
    assert count == distinct == top == event_count > 0
    print(f"\nN={RUNS} runs x {count} events on 2 workers in {elapsed:.1f}s; API max latency {max(latencies) * 1000:.0f} ms over {len(latencies)} calls")
    assert max(latencies) < 5
