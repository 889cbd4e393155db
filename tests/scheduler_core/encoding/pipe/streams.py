"""What both event_pipe test modules compare: two streams of the same run, stored as the web app
stores them (one columnar segment per cycle number), segment bytes and event JSON alike."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from scheduler_core.encoding.columnar import RunNames, encode_segment
from scheduler_core.encoding.events import Event
from scheduler_core.scenario.limits import Limits

SHARED = Path(__file__).resolve().parents[5] / "shared"
BIG = Limits(max_pending_pods=100_000, max_bytes=1 << 30)  # any bench file fits


def stored(events, names: RunNames, cycles: int = 0) -> list[tuple[bytes, list[str]]]:
    """Per cycle number, the segment the web app would store and its events' JSON text."""
    out = []
    seq = 0
    for _, group in itertools.groupby(events, key=lambda event: event.cycle):
        group = list(group)
        out.append((encode_segment(group, names, seq), [json.dumps(event.to_json()) for event in group]))
        seq += len(group)
        if cycles and len(out) >= cycles:
            break
    return out


def assert_same_stored(
    scenario, run: Callable, passed_on: Callable[[Iterator[Event]], Iterator[Event]], cycles: int = 0
) -> int:
    """``run(scenario)`` stored directly and through ``passed_on``; how many cycle groups matched."""
    names = RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])
    here = stored(run(scenario), names, cycles)
    there = stored(passed_on(lambda hand_over: run(scenario, hand_over_only=hand_over)), names, cycles)
    assert len(there) == len(here)
    for cycle, (mine, theirs) in enumerate(zip(here, there)):
        assert theirs[1] == mine[1], f"cycle group {cycle}: events differ"
        assert theirs[0] == mine[0], f"cycle group {cycle}: segments differ"
    return len(here)
