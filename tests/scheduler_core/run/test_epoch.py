"""When a replay happens on the wall clock: after everything the dump records."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.framework.options import DEFAULT_EPOCH
from scheduler_core.run.epoch import run_epoch
from tests.scheduler_core.builders import node_text, pod_text, scenario_text

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "dra_binding_conditions.yaml"


def test_a_scenario_recording_no_time_starts_at_the_default_epoch():
    scenario = load_scenario(scenario_text(node_text("n1"), pod_text("p")))
    assert run_epoch(scenario) == DEFAULT_EPOCH


def test_a_claims_allocation_time_is_a_time_the_dump_records():
    """The example's claim was allocated at 2026-05-01T10:00:00Z: the run starts the second after."""
    scenario = load_scenario(EXAMPLE.read_text())
    allocated = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    assert run_epoch(scenario) == allocated + timedelta(seconds=1)


def test_pods_start_times_still_take_a_second_per_pod_before_the_run():
    started = EXAMPLE.read_text().replace(
        "metadata: {name: inference, namespace: default, uid: uid-inference}\nspec:\n",
        "metadata: {name: inference, namespace: default, uid: uid-inference}\nstatus: {startTime: "
        '"2026-05-01T10:05:00Z"}\nspec:\n  nodeName: node-2\n',
    )
    scenario = load_scenario(started)
    assert run_epoch(scenario) == datetime(2026, 5, 1, 10, 5, tzinfo=timezone.utc) + timedelta(
        seconds=len(scenario.pods) + 1
    )
