"""The vectorised fast path against the per-node reference: identical trace summaries.

``simulate(..., vectorized=False)`` runs every plugin node by node (the readable port of Go);
the default runs each plugin's ``filter_batch`` / ``score_batch`` / ``normalize_batch`` over the
NodeTable. Every public conformance case and every bench scenario (its first pods) must give the
same summary — every filter status, raw, normalized and weighted score, and choice — both ways.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from scheduler_core import load_scenario, trace_summary
from scheduler_core.bench import with_percentage
from scheduler_core.scheduler import Scheduler, fresh_copy, simulate
from tests.scheduler_core.conformance import diff_traces

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS = SHARED / "conformance" / "public"
BENCH = SHARED / "bench"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))
BENCHES = sorted(p.name[: -len(".yaml")] for p in BENCH.glob("*.yaml"))
BENCH_PODS = 30  # the first pending pods, as `bench --limit 30`
# Scenarios with volumes: the volume plugins have no batch methods, the others must still agree.
VOLUMES = SHARED / "conformance-timeline" / "public"
VOLUME_CASES = sorted(p.name[: -len(".yaml")] for p in VOLUMES.glob("volumes_*.yaml"))


def _normal(summary: dict) -> dict:
    return json.loads(json.dumps(summary, sort_keys=True))


def _assert_same(fast: dict, reference: dict) -> None:
    problems = diff_traces(_normal(reference), _normal(fast))
    assert not problems, "\n".join(problems[:40])


def test_the_corpora_are_present():
    assert len(CASES) >= 134
    assert len(BENCHES) == 10


@pytest.mark.parametrize("case", CASES)
def test_conformance_case_is_the_same_both_ways(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    fast = trace_summary(simulate(scenario, vectorized=True))
    reference = trace_summary(simulate(scenario, vectorized=False))
    _assert_same(fast, reference)


@pytest.mark.parametrize("case", VOLUME_CASES)
def test_volumes_case_is_the_same_both_ways(case):
    scenario = load_scenario((VOLUMES / f"{case}.yaml").read_bytes())
    _assert_same(trace_summary(simulate(scenario, vectorized=True)), trace_summary(simulate(scenario, vectorized=False)))


@lru_cache(maxsize=2)
def _bench_scenario(name: str):
    return load_scenario((BENCH / f"{name}.yaml").read_bytes())


def _bench_summary(name: str, percentage, vectorized: bool) -> dict:
    scenario = fresh_copy(with_percentage(_bench_scenario(name), percentage))
    scheduler = Scheduler(scenario, vectorized=vectorized)
    scheduler.queue = scheduler.queue[:BENCH_PODS]
    return trace_summary(scheduler.run())


@pytest.mark.parametrize("percentage", [None, 0], ids=["scenario-percentage", "adaptive"])
@pytest.mark.parametrize("name", BENCHES)
def test_bench_scenario_is_the_same_both_ways(name, percentage):
    fast = _bench_summary(name, percentage, True)
    reference = _bench_summary(name, percentage, False)
    assert len(fast["cycles"]) == min(BENCH_PODS, len(fast["cycles"])) and fast["cycles"]
    _assert_same(fast, reference)
