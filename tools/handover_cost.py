"""What the task's process spends an attempt on the forked engine's events: read back, then stored.

    python tools/handover_cost.py FILE [--cycles N] [--rounds R]

The app's run is bound by the task's process (docs/PERFORMANCE.md): the engine's process writes
each event as frames, and the task reads them back (the hand-over's ``Receiver``) and encodes a
columnar segment per cycle (``SegmentEncoder``). Here the frames of the first N attempts are written
once, as the engine's process writes them, then read back and encoded R times in this one process;
each round's CPU time per attempt is printed and the least of them, the figure a drifting machine
moves least. Run it in two checkouts, alternating, to compare a change.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from attempt_cost import arguments_and_scenario  # a sibling script (tools/ is on sys.path when run)
from scheduler_core.encoding.columnar import RunNames, SegmentEncoder
from scheduler_core.encoding.pipe.codec import Receiver, Sender
from scheduler_core.model import Scenario
from scheduler_core.run.loop import run_to_the_end

Frame = tuple[bytes, int]  # a frame's bytes and how many events it holds


@dataclass(frozen=True)
class Recorded:
    frames: list[Frame]
    attempts: int
    names: RunNames


def record(scenario: Scenario, cycles: int) -> Recorded:
    """The frames of the first ``cycles`` attempts (a frame per cycle number, as the engine's
    process cuts them when it keeps up), written by the hand-over's own sender."""
    sender, frames = Sender(), []
    keep = lambda frame, count: frames.append((bytes(frame), count))  # noqa: E731
    current = None
    for event in run_to_the_end(scenario, hand_over_only=True):
        if sender.count and event.cycle != current:
            sender.flush_to(keep)
            if event.cycle >= cycles:
                break
        current = event.cycle
        sender.add(event)
    else:
        if sender.count:
            sender.flush_to(keep)
    names = RunNames([node.name for node in scenario.nodes], [pod.key for pod in scenario.pending_pods])
    return Recorded(frames, min(cycles, (current or 0) + 1), names)


def task_side(recorded: Recorded) -> tuple[float, list[bytes]]:
    """CPU seconds to read every frame back and encode its events as the task does, and the segments."""
    receiver, blobs = Receiver(), []
    encoder: SegmentEncoder | None = None
    cycle, seq = -1, 0
    started = time.process_time()
    for body, count in recorded.frames:
        for event in receiver.events(body, count):
            if encoder is not None and event.cycle != cycle:
                blobs.append(encoder.finish())
                encoder = None
            if encoder is None:
                encoder, cycle = SegmentEncoder(recorded.names, seq), event.cycle
            encoder.add(event)
            seq += 1
    if encoder is not None:
        blobs.append(encoder.finish())
    return time.process_time() - started, blobs


def main() -> None:
    args, scenario = arguments_and_scenario(__doc__.splitlines()[0], rounds=9)
    recorded = record(scenario, args.cycles)
    each = []
    for _ in range(args.rounds):
        seconds, _blobs = task_side(recorded)
        each.append(seconds * 1000 / max(recorded.attempts, 1))
        print(f"attempts {recorded.attempts}  read back and stored {each[-1]:.3f} ms an attempt")
    print(f"least over {args.rounds} rounds: {min(each):.3f} ms an attempt")


if __name__ == "__main__":
    main()
