"""Issue 11's figures: the engine alone and a run through the real task, on one file, back to back.

The engine is timed first (``scheduler_core``'s own benchmark over the same first cycles), then the
task's work (webui.tasks.execute_run's: claim the run, services.execution.execute it) runs the file as
a user's run does (engine + columnar encoding + writes + publishing). Both start from the loaded
scenario (the task finds it in the engine memo, as validating a version leaves it) and both count from
the engine's first event (the execution service says when it arrives: its ``on_first_event``; the
scheduler's set-up before it, ~0.4 s at 5000 nodes, is reported apart), so the ratio compares
scheduling with scheduling-and-storing. Wall
and CPU time are both given: on a machine shared with other work, CPU time is the steadier figure.
With ``repeat`` > 1 the pair (engine, then task) is measured that many times, alternating, and the
speeds and ratios are the medians (each pair's ratio is kept in ``app_to_engine_each``): on a
virtual machine whose speed drifts from minute to minute one pair can land far from the rest.
"""

from __future__ import annotations

import itertools
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import cast
from pathlib import Path

from django.db import connection
from django.test.utils import override_settings

from webui import publisher
from webui.models import MEASURE_RUN_OWNER, Run, RunSegment, Scenario, ScenarioVersion
from webui.services import claims, engine, execution, segments
from webui.tasks import worker_id

OWNER = MEASURE_RUN_OWNER  # kept out of every list, single-user mode's too (models.MEASUREMENT_OWNERS)


@dataclass(frozen=True)
class Measurement:
    file: str
    status: str
    error: str
    cycles: int  # cycles run (the first N when limited)
    pending_pods: int
    events: int
    engine_pods_per_s: float  # the engine's event stream over the same cycles, just before, from its first event
    app_pods_per_s: float  # the task from the engine's first event to its end (engine, encoding, writes, publishing)
    app_to_engine: float  # app_pods_per_s / engine_pods_per_s (issue 11's goal: >= 0.5)
    engine_cpu_ms_per_cycle: float  # the same, in this process's CPU time (steadier on a busy machine)
    app_cpu_ms_per_cycle: float
    app_to_engine_cpu: float  # engine CPU time / app CPU time
    stored_bytes_per_cycle: int  # the segments' blobs
    json_bytes_per_cycle: int  # the same events as compact JSON (what the API's JSON answers carry)
    table_bytes_per_cycle: int | None  # PostgreSQL's own size of the segment tables (rows, TOAST, indexes)
    seconds_per_cycle: float  # the whole task (set-up included) / cycles
    decode_ms_per_cycle: float  # the server decoding one stored segment back to event JSON
    max_websocket_message_bytes: int
    seconds: float  # the whole task
    app_to_engine_each: list[float]  # every pair's ratio, in the order measured (one per repeat)
    setup_seconds: float  # of which before the engine's first event (building the scheduler's snapshot)
    load_seconds: float  # loading the scenario (once per version; not part of the above)

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def measure(path: Path, first_cycles: int = 0, mode: str = engine.MODE_TIMELINE, repeat: int = 1) -> Measurement:
    text = path.read_text()
    limits = {"SCHEDLAB_MAX_BYTES": max(len(text.encode()) + 1, 1 << 20), "SCHEDLAB_RUN_FIRST_CYCLES": first_cycles}
    pairs: list[tuple[Clock, Clock]] = []
    with override_settings(**limits):
        started = time.perf_counter()
        scenario = engine.load(text)
        load_seconds = time.perf_counter() - started
        for _ in range(max(repeat, 1)):
            alone = _engine_alone(scenario, first_cycles, mode)
            run = _queued_run(path.name, text, mode)
            table_before = _table_bytes()
            first_event = _FirstEvent()
            started = time.perf_counter()
            _execute(run, first_event.note)
            pairs.append((alone, Clock.since(first_event.at)))
            seconds = time.perf_counter() - started
    run.refresh_from_db()
    cycles = max(run.cycle, 1)
    table_after = _table_bytes()
    json_bytes, decode_seconds, widest = _replay(run)
    alone, app = _median_clock([a for a, _ in pairs]), _median_clock([b for _, b in pairs])
    each = [_ratio(b.wall, a.wall) for a, b in pairs]
    return Measurement(
        file=str(path),
        status=run.status,
        error=run.error,
        cycles=run.cycle,
        pending_pods=run.cycles,
        events=run.event_count,
        engine_pods_per_s=alone.pods_per_s(run.cycle),
        app_pods_per_s=app.pods_per_s(run.cycle),
        app_to_engine=statistics.median(each),
        engine_cpu_ms_per_cycle=alone.cpu_ms(run.cycle),
        app_cpu_ms_per_cycle=app.cpu_ms(run.cycle),
        app_to_engine_cpu=statistics.median(_ratio(b.cpu, a.cpu) for a, b in pairs),
        app_to_engine_each=each,
        stored_bytes_per_cycle=run.stored_bytes // cycles,
        json_bytes_per_cycle=json_bytes // cycles,
        table_bytes_per_cycle=(table_after - table_before) // cycles
        if table_after is not None and table_before is not None
        else None,
        seconds_per_cycle=round(seconds / cycles, 4),
        decode_ms_per_cycle=round(decode_seconds * 1000 / cycles, 2),
        max_websocket_message_bytes=widest,
        seconds=round(seconds, 2),
        setup_seconds=round(first_event.at.wall - started, 2),
        load_seconds=round(load_seconds, 2),
    )


@dataclass(frozen=True)
class Clock:
    """Wall and CPU seconds (CPU time: this process's own work, which other processes on a busy
    machine do not inflate as they do the wall clock)."""

    wall: float
    cpu: float

    @classmethod
    def now(cls) -> Clock:
        return cls(time.perf_counter(), time.process_time())

    @classmethod
    def since(cls, start: Clock) -> Clock:
        end = cls.now()
        return cls(end.wall - start.wall, end.cpu - start.cpu)

    def pods_per_s(self, cycles: int) -> float:
        return round(cycles / self.wall, 1) if self.wall > 0 else 0.0

    def cpu_ms(self, cycles: int) -> float:
        return round(self.cpu * 1000 / max(cycles, 1), 3)


def _median_clock(clocks: list[Clock]) -> Clock:
    return Clock(statistics.median(c.wall for c in clocks), statistics.median(c.cpu for c in clocks))


def _ratio(app: float, alone: float) -> float:
    """app pods/s over engine pods/s, for the same cycles: the engine's time over the app's."""
    return round(alone / app, 3) if app > 0 else 0.0


def _engine_alone(scenario: engine.Scenario, first_cycles: int, mode: str) -> Clock:
    """The engine's own stream over the same cycles, timed as the task is: from its first event."""
    events = engine.simulate_events(scenario, mode)
    first = next(events, None)
    start = Clock.now()
    done = 0
    for event in itertools.chain([first] if first is not None else [], events):
        if event.extension_point is engine.ExtensionPoint.CYCLE_END:
            done += 1
            if first_cycles and done >= first_cycles:
                break
    return Clock.since(start)


class _FirstEvent:
    """Notes when the task gets the engine's first event: what came before is the scheduler's set-up
    (its snapshot of thousands of nodes and pods; in the engine's own process when the run forks
    one, engine.run_events), which is timed for neither."""

    at: Clock = Clock(0.0, 0.0)

    def note(self) -> None:
        self.at = Clock.now()


def _execute(run: Run, on_first_event: Callable[[], None]) -> None:
    """What the task (webui.tasks.execute_run) does with a run — claim it, execute it — here, with the
    execution service told when the engine's first event arrives."""
    worker = worker_id(None)
    if not claims.claim(run.pk, worker):
        raise RuntimeError(f"run {run.pk} could not be claimed")
    execution.execute(run.pk, worker, on_first_event=on_first_event)


def _queued_run(name: str, text: str, mode: str) -> Run:
    scenario = Scenario.objects.create(name=f"measure {name}", owner_session_key=OWNER)
    version = ScenarioVersion.saved(scenario, 1, text)
    return Run.objects.create(
        version=version, mode=mode, cycles=engine.check(text).valid_summary.pending_pods, owner_session_key=OWNER
    )


def _replay(run: Run) -> tuple[int, float, int]:
    """JSON bytes of the stored events, time to decode them, and the biggest websocket message a cycle makes."""
    json_bytes, decode_seconds, widest = 0, 0.0, 0
    names = segments.run_names(run)
    for row in RunSegment.objects.filter(run=run).order_by("first_seq").iterator(chunk_size=16):
        tick = time.perf_counter()
        found = segments.decode(row, names)
        decode_seconds += time.perf_counter() - tick
        json_bytes += sum(len(json.dumps(event["payload"], separators=(",", ":"))) for event in found)
        for sent in publisher.websocket_messages([cast(publisher.EventMessage, dict(event)) for event in found]):
            widest = max(widest, len(json.dumps(sent)))
    return json_bytes, decode_seconds, widest


def _table_bytes() -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size('webui_runsegment') + pg_total_relation_size('webui_runcycle')")
        size: int = cursor.fetchone()[0]
        return size
