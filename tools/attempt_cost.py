"""What an attempt of the run to the end costs against a cycle of the single pass, on the same pods.

    python tools/attempt_cost.py FILE [--cycles N] [--rounds R]

Both streams are taken in this one process, alternating (single pass, then run to the end, R
times), each from its first cycle's start (the set-up is not counted: the scheduler's, and the
run's informers listing the pending pods into the queue) over its first N cycles,
in CPU seconds of the process: on a machine whose speed drifts from minute to minute, the ratio of
a pair taken seconds apart holds where either figure alone does not. Prints every pair and the
median ratio (issue 27: an attempt at most 1.2 times a cycle).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional

from scheduler_core import load_scenario, simulate
from scheduler_core.model import Scenario
from scheduler_core.encoding.events import Event, ExtensionPoint
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario.limits import Limits


def timed_cycles(
    events: Iterator[Event], cycles: int, seen: Optional[Callable[[Event], None]] = None
) -> tuple[int, float]:
    """The first ``cycles`` cycles of ``events`` from the first cycle's start: how many ended and
    the CPU seconds they took. ``seen`` is shown every event after that start, up to the last
    cycle's end (tools/first_attempts.py digests them)."""
    first = next((event for event in events if event.extension_point is ExtensionPoint.CYCLE_START), None)
    if first is None:
        return 0, 0.0
    started, done = time.process_time(), 0
    for event in events:
        if seen is not None:
            seen(event)
        if event.extension_point is ExtensionPoint.CYCLE_END:
            done += 1
            if done >= cycles:
                break
    return done, time.process_time() - started


def cpu_ms_per_cycle(events: Iterator[Event], cycles: int) -> float:
    """CPU milliseconds per cycle over the first ``cycles`` cycles, from the first cycle's start."""
    done, seconds = timed_cycles(events, cycles)
    return seconds * 1000 / max(done, 1)


def arguments_and_scenario(description: str, rounds: int) -> tuple[argparse.Namespace, Scenario]:
    """FILE [--cycles N] [--rounds R] read, and FILE loaded with limits any bench file fits in
    (tools/encoder_floor.py takes the same)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("file", type=Path)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    return args, load_scenario(args.file.read_bytes(), limits=Limits(max_pending_pods=100_000, max_bytes=1 << 30))


def main() -> None:
    args, scenario = arguments_and_scenario(__doc__.splitlines()[0], rounds=5)
    ratios = []
    for _ in range(args.rounds):
        cycle = cpu_ms_per_cycle(simulate(scenario), args.cycles)
        attempt = cpu_ms_per_cycle(run_to_the_end(scenario), args.cycles)
        ratios.append(attempt / cycle)
        print(f"cycle {cycle:.3f} ms  attempt {attempt:.3f} ms  attempt/cycle {attempt / cycle:.3f}")
    print(f"median attempt/cycle over {args.rounds} pairs: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
