"""Issues 6 and 11: a spread_5000 run through the real task stores each cycle's full detail compactly.

`manage.py measure_run FILE [--cycles N]` prints the figures (the engine alone, then the task); this
runs the first MEASURE_CYCLES of the file's 1000 cycles (0 for all). Sizes are asserted, never times.
"""

import json
import os
import subprocess

import pytest

from tests.webui import support

pytestmark = pytest.mark.service
SPREAD_5000 = support.REPO.parent / "shared" / "bench" / "spread_5000.yaml"  # ../shared beside the checkout
CYCLES = int(os.environ.get("MEASURE_CYCLES", "40"))
KIB = 1024


@pytest.mark.skipif(not SPREAD_5000.exists(), reason="the shared bench scenarios are not on this machine")
def test_it_stores_a_spread_5000_cycle_in_under_20_kib(tmp_path):
    env = support.clean_env(
        DATABASE_URL=support.POSTGRES_URL, REDIS_URL=support.REDIS_TEST_URL, SCHEDLAB_VAR_DIR=str(tmp_path)
    )
    support.reset_postgres()
    subprocess.run(
        [support.PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=support.REPO, env=env, check=True, timeout=180
    )
    args = [support.PYTHON, "manage.py", "measure_run", str(SPREAD_5000), f"--cycles={CYCLES}", "--repeat=2"]
    done = subprocess.run(args, cwd=support.REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"\nspread_5000, {result['cycles']} of {result['pending_pods']} cycles: {result}")

    assert (result["status"], result["cycles"]) == ("succeeded", CYCLES or result["pending_pods"])
    assert result["stored_bytes_per_cycle"] <= 20 * KIB < 700 * KIB < result["json_bytes_per_cycle"]
    assert result["table_bytes_per_cycle"] < 40 * KIB  # what PostgreSQL really spends, indexes included
    assert result["max_websocket_message_bytes"] <= 512 * KIB
    assert result["engine_pods_per_s"] > 0 and result["app_pods_per_s"] > 0  # measured, never asserted
    each = result["app_to_engine_each"]  # one ratio per (engine, task) pair; the figure is their median
    assert len(each) == 2 and result["app_to_engine"] == sum(each) / 2
