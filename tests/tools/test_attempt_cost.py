"""tools/attempt_cost.py: the per-cycle CPU figure counts the cycles it was asked for, from the first cycle's start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scheduler_core.encoding.events import Event, ExtensionPoint

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import attempt_cost  # noqa: E402


def _stream(cycles: int, consumed: list[int], set_up: int = 0):
    for _ in range(set_up):  # the run's start and the informers' first list, before any cycle
        consumed.append(-1)
        yield Event(0, "default/p", ExtensionPoint.QUEUE_MOVE, None, None)
    for cycle in range(cycles):
        for point in (ExtensionPoint.CYCLE_START, ExtensionPoint.CYCLE_END):
            consumed.append(cycle)
            yield Event(cycle, "default/p", point, None, None)


def test_it_stops_after_the_cycles_asked_for():
    consumed: list[int] = []
    assert attempt_cost.cpu_ms_per_cycle(_stream(10, consumed), 3) >= 0
    assert consumed[-1] == 2  # three CycleEnds read, nothing after


def test_it_starts_at_the_first_cycle_and_counts_as_many_after_a_set_up():
    consumed: list[int] = []
    assert attempt_cost.cpu_ms_per_cycle(_stream(10, consumed, set_up=5), 3) >= 0
    assert consumed[:5] == [-1] * 5 and consumed[-1] == 2


def test_an_empty_stream_costs_nothing():
    assert attempt_cost.cpu_ms_per_cycle(iter(()), 3) == 0.0


def test_it_prints_pairs_and_their_median_for_a_scenario(tmp_path):
    scenario = ROOT.parent / "shared" / "conformance-timeline" / "public"
    path = sorted(scenario.glob("*.yaml"))[0]
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "attempt_cost.py"), str(path), "--cycles", "2", "--rounds", "2"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert out.count("attempt/cycle") == 3 and "median attempt/cycle over 2 pairs" in out
