"""tools/encoder_floor.py: the floor reads every event of the attempts asked for and packs what the encoder packs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from scheduler_core import load_scenario
from scheduler_core.encoding.events import NormalizeResult, ScoreResult

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import encoder_floor  # noqa: E402

CASE = sorted((ROOT.parent / "shared" / "conformance-timeline" / "public").glob("*.yaml"))[0]


def test_it_counts_the_attempts_asked_for_and_times_all_three():
    costs = encoder_floor.measure(load_scenario(CASE.read_bytes()), 2)
    assert costs.attempts == 2
    assert costs.engine > 0 and costs.encoder > 0 and costs.floor > 0


def test_a_run_shorter_than_asked_ends_with_its_last_attempt():
    scenario = load_scenario(CASE.read_bytes())
    assert 0 < encoder_floor.measure(scenario, 10_000).attempts < 10_000


def test_typed_payloads_are_read_as_copies_of_their_arrays():
    raw = np.array([3, 1, 2])
    copied = encoder_floor.read_once(ScoreResult(["a", "b", "c"], raw))
    raw[0] = 9
    assert copied.tolist() == [3, 1, 2]
    normalized, weighted = encoder_floor.read_once(NormalizeResult(["a"], np.array([5]), 2, np.array([10])))
    assert normalized.tolist() == [5] and weighted.tolist() == [10]


def test_it_prints_each_round_against_the_engine():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "encoder_floor.py"), str(CASE), "--cycles", "2", "--rounds", "2"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert out.count("floor/engine") == 2 and out.count("attempts 2 ") == 2
