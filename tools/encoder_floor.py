"""What storing the run to the end costs in the engine's process, against the least it could cost.

    python tools/encoder_floor.py FILE [--cycles N] [--rounds R]

Issue 27 item 4 asks the app's run at 0.8 of the engine alone, which leaves the app a quarter of
the engine's time per attempt. Over the first N attempts this takes, in CPU time of this one
process, on every event of the same stream: the engine producing it, today's columnar encoder
(``SegmentEncoder.add`` and, per attempt, ``finish``), and — right after the encoder, on the same
event — a floor any in-process encoder of this stream pays: each payload read once (its
``to_json()`` where it has no arrays, one copy of each array of the typed ones) and, per attempt,
the rows' JSON (as the encoder writes it) and the encoder's own deflate of the same members.
Measured side by side, so the machine's drifting speed moves all three alike. Prints each round and the floor over the engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from attempt_cost import arguments_and_scenario  # a sibling script (tools/ is on sys.path when run)
from scheduler_core.encoding.columnar import RunNames, SegmentEncoder, deflated, json_bytes
from scheduler_core.encoding.events import ExtensionPoint, FilterPluginResult, NormalizeResult, ScoreResult, TotalResult
from scheduler_core.run.loop import run_to_the_end


@dataclass
class Costs:
    """CPU seconds over ``attempts`` attempts."""

    attempts: int = 0
    engine: float = 0.0
    encoder: float = 0.0
    floor: float = 0.0

    def ms(self, seconds: float) -> float:
        return seconds * 1000 / max(self.attempts, 1)


def read_once(payload: Any) -> Any:
    """The least reading of a payload: its arrays copied, or its JSON where it has none."""
    kind = type(payload)
    if kind is FilterPluginResult:
        return np.array(payload.choice), [status.to_json() for status in payload.palette]
    if kind is ScoreResult:
        return np.array(payload.raw)
    if kind is NormalizeResult:
        return np.array(payload.normalized), np.array(payload.weighted)
    if kind is TotalResult:
        return np.array(payload.totals)
    return payload.to_json() if hasattr(payload, "to_json") else payload


def packed_floor(segment: SegmentEncoder) -> None:
    """The rows' JSON and a deflate of the members today's segment holds."""
    rows, _, members = segment.parts()
    for data in (json_bytes(rows), *(array.tobytes() for array in members.values())):
        deflated(data)


def measure(scenario: Any, attempts: int) -> Costs:
    names = RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])
    costs, clock = Costs(), time.process_time
    events = run_to_the_end(scenario, tie_break="first")
    next(events, None)  # the scheduler's set-up, before its first event, is counted for none
    segment: SegmentEncoder | None = None
    segment_cycle = -1
    while True:
        started = clock()
        event = next(events, None)
        costs.engine += clock() - started
        if event is None or (segment is not None and event.cycle != segment_cycle):
            if segment is not None:
                started = clock()
                segment.finish()
                costs.encoder += clock() - started
                started = clock()
                packed_floor(segment)
                costs.floor += clock() - started
            segment = None
            if event is None or costs.attempts >= attempts:
                return costs
        if segment is None:
            segment, segment_cycle = SegmentEncoder(names, 0), event.cycle
        started = clock()
        segment.add(event)
        between = clock()
        read_once(event.payload)
        costs.encoder += between - started
        costs.floor += clock() - between
        if event.extension_point is ExtensionPoint.CYCLE_END:
            costs.attempts += 1


def main() -> None:
    args, scenario = arguments_and_scenario(__doc__.splitlines()[0], rounds=3)
    for _ in range(args.rounds):
        costs = measure(scenario, args.cycles)
        print(
            f"attempts {costs.attempts}  engine {costs.ms(costs.engine):.3f} ms  encoder {costs.ms(costs.encoder):.3f} ms"
            f"  floor {costs.ms(costs.floor):.3f} ms  floor/engine {costs.floor / max(costs.engine, 1e-9):.2f}"
            f"  (0.8 leaves the app 0.25)"
        )


if __name__ == "__main__":
    main()
