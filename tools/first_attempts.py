"""The first attempts of a run to the end: CPU per attempt, and a digest of what they decided.

    python tools/first_attempts.py FILE [--attempts N]

For before/after measurements of an engine change on a cluster too big to run to the end (the
envelope's 150,000 pods: its attempts that preempt cost ~0.1 s each): the file is read once (two
processes, as the CLI reads it), the run to the end is taken from its first attempt's start over
its first N attempts, and the digest covers each attempt's pod, node, FailedScheduling message and
PostFilter result, so two checkouts that print the same digest decided those attempts alike.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from attempt_cost import timed_cycles  # a sibling script (tools/ is on sys.path when run)
from scheduler_core import load_scenario
from scheduler_core.encoding.events import CycleEnd, Event, ExtensionPoint
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario.limits import Limits
from scheduler_core.util.wire import Wire


@dataclass(frozen=True)
class Attempts:
    count: int
    cpu_seconds: float
    digest: str  # of the attempts' outcomes (hex, 16 digits)

    @property
    def ms_per_attempt(self) -> float:
        return self.cpu_seconds * 1000 / max(self.count, 1)


def first_attempts(events: Iterator[Event], attempts: int) -> Attempts:
    """The first ``attempts`` attempts of ``events``, timed from the first attempt's start."""
    digest = hashlib.sha256()

    def seen(event: Event) -> None:
        payload = event.payload
        if event.extension_point is ExtensionPoint.POST_FILTER and isinstance(payload, Wire):
            digest.update(json.dumps(payload.to_json(), sort_keys=True, default=str).encode())
        elif event.extension_point is ExtensionPoint.CYCLE_END and isinstance(payload, CycleEnd):
            digest.update(
                f"{event.cycle}\0{event.pod}\0{payload.node_name}\0{payload.failed_scheduling_message}\n".encode()
            )

    done, seconds = timed_cycles(events, attempts, seen)
    return Attempts(done, seconds, digest.hexdigest()[:16])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--attempts", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    limits = Limits(max_pending_pods=200_000, max_bytes=1 << 31, max_documents=1_000_000)
    scenario = load_scenario(args.file.read_bytes(), limits=limits, second_process=True)
    print(f"read in {time.perf_counter() - started:.1f} s")
    result = first_attempts(run_to_the_end(scenario, tie_break="first", hand_over_only=True), args.attempts)
    print(
        f"{result.count} attempts, {result.cpu_seconds:.2f} CPU s, {result.ms_per_attempt:.1f} ms each, digest {result.digest}"
    )


if __name__ == "__main__":
    main()
