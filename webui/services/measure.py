"""Issue 6's figure: what one run of a scenario file stores per cycle, through the real task code."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from django.db import connection
from django.test.utils import override_settings

from webui import publisher
from webui.models import Run, RunEvent, Scenario, ScenarioVersion, compress_payload
from webui.tasks import execute_run

OWNER = "measure_run"


@dataclass(frozen=True)
class Measurement:
    file: str
    status: str
    error: str
    cycles: int  # cycles run (the first N when limited)
    pending_pods: int
    events: int
    stored_bytes_per_cycle: int
    json_bytes_per_cycle: int  # the same payloads as compact JSON, for comparison
    table_bytes_per_cycle: int | None  # PostgreSQL's own size of the event table (rows, TOAST, indexes)
    seconds_per_cycle: float  # the whole task: engine + JSON + compression + writes + publishing
    compress_ms_per_cycle: float
    max_websocket_message_bytes: int
    seconds: float

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def measure(path: Path, first_cycles: int = 0) -> Measurement:
    text = path.read_text()
    limits = {"SCHEDLAB_MAX_BYTES": max(len(text.encode()) + 1, 1 << 20), "SCHEDLAB_RUN_FIRST_CYCLES": first_cycles}
    with override_settings(**limits):
        run = _queued_run(path.name, text)
        table_before = _table_bytes()
        started = time.perf_counter()
        execute_run.apply(args=[run.pk])
        seconds = time.perf_counter() - started
    run.refresh_from_db()
    cycles = max(run.cycle, 1)
    table_after = _table_bytes()
    json_bytes, compress_seconds, widest = _replay(run)
    return Measurement(
        file=str(path), status=run.status, error=run.error, cycles=run.cycle, pending_pods=run.cycles,
        events=run.event_count, stored_bytes_per_cycle=run.stored_bytes // cycles, json_bytes_per_cycle=json_bytes // cycles,
        table_bytes_per_cycle=(table_after - table_before) // cycles if table_after is not None else None,
        seconds_per_cycle=round(seconds / cycles, 3), compress_ms_per_cycle=round(compress_seconds * 1000 / cycles, 1),
        max_websocket_message_bytes=widest, seconds=round(seconds, 1),
    )


def _queued_run(name: str, text: str) -> Run:
    scenario = Scenario.objects.create(name=f"measure {name}", owner_session_key=OWNER, text=text)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=text)
    from webui.services import engine

    return Run.objects.create(version=version, cycles=engine.check(text).summary.pendingPods, owner_session_key=OWNER)


def _replay(run: Run) -> tuple[int, float, int]:
    """JSON bytes, time to compress them again, and the biggest websocket message a cycle makes."""
    json_bytes, compress_seconds, widest = 0, 0.0, 0
    for cycle in range(run.cycle):
        messages = [publisher.event_message(row) for row in RunEvent.objects.filter(run=run, cycle=cycle).order_by("seq")]
        for message in messages:
            tick = time.perf_counter()
            compress_payload(message["payload"])
            compress_seconds += time.perf_counter() - tick
            json_bytes += len(json.dumps(message["payload"], separators=(",", ":")))
        for sent in publisher.websocket_messages(messages):
            widest = max(widest, len(json.dumps(sent)))
    return json_bytes, compress_seconds, widest


def _table_bytes() -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size('webui_runevent') + pg_total_relation_size('webui_runcycle')")
        return cursor.fetchone()[0]
