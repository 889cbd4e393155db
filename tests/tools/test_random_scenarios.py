"""tools/random_scenarios.py: what it writes loads, schedules the same on the fast and the per-node
path, and runs to the end — on inputs far more varied than the corpora."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario, trace_summary
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.run.schedule_one import simulate
from scheduler_core.encoding.timeline import timeline_summary
from tests.scheduler_core.conformance import diff_traces

TOOL = Path(__file__).resolve().parents[2] / "tools" / "random_scenarios.py"
spec = importlib.util.spec_from_file_location("random_scenarios", TOOL)
random_scenarios = importlib.util.module_from_spec(spec)
spec.loader.exec_module(random_scenarios)

SEEDS = {
    "general": range(1, 9),
    "preemption": range(1, 6),
    "volumes": range(1, 6),
    "big": range(1, 3),
    "config": range(1, 6),
    "dra": range(1, 7),
}
CASES = [(kind, seed) for kind, seeds in SEEDS.items() for seed in seeds]


def _normal(summary: dict) -> dict:
    return json.loads(json.dumps(summary, sort_keys=True))


def test_the_same_seed_writes_the_same_text():
    assert random_scenarios.scenario_text("general", 7) == random_scenarios.scenario_text("general", 7)
    assert random_scenarios.scenario_text("general", 7) != random_scenarios.scenario_text("general", 8)


@pytest.mark.parametrize("kind, seed", CASES, ids=[f"{kind} seed {seed}" for kind, seed in CASES])
def test_a_random_scenario_loads_schedules_alike_both_ways_and_runs_to_the_end(kind, seed):
    scenario = load_scenario(random_scenarios.scenario_text(kind, seed))
    assert scenario.pending_pods
    fast = trace_summary(simulate(scenario, vectorized=True))
    reference = trace_summary(simulate(scenario, vectorized=False))
    problems = diff_traces(_normal(reference), _normal(fast))
    assert not problems, "\n".join(problems[:20])
    timeline = timeline_summary(run_to_the_end(scenario, tie_break="first"))
    assert timeline["attempts"] and set(timeline["final"]) >= {pod.key for pod in scenario.pending_pods}
