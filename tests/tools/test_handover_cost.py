"""tools/handover_cost.py: the task's side of the hand-over over recorded frames gives the segments
the task would store from the engine's own stream."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.encoding.columnar import encode_segment
from scheduler_core.run.loop import run_to_the_end

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import handover_cost  # noqa: E402

CASE = ROOT.parent / "shared" / "conformance-timeline" / "public" / "preempt_10.yaml"  # 9 attempts


def test_the_recorded_frames_read_back_and_stored_are_the_segments_of_the_engines_stream():
    scenario = load_scenario(CASE.read_bytes())
    recorded = handover_cost.record(scenario, 3)
    seconds, blobs = handover_cost.task_side(recorded)
    assert recorded.attempts == 3 and seconds >= 0
    expected, seq = [], 0
    for cycle, group in itertools.groupby(run_to_the_end(scenario), key=lambda event: event.cycle):
        if cycle >= 3:
            break
        group = list(group)
        expected.append(encode_segment(group, recorded.names, seq))
        seq += len(group)
    assert blobs == expected


def test_a_run_shorter_than_asked_is_recorded_whole():
    scenario = load_scenario(CASE.read_bytes())
    recorded = handover_cost.record(scenario, 10_000)
    assert 0 < recorded.attempts < 10_000
    assert sum(count for _, count in recorded.frames) == sum(1 for _ in run_to_the_end(scenario))
