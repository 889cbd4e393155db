"""Reading a run's stored event log (API pages, websocket catch-up, trace)."""

from __future__ import annotations

import json
import zlib
from typing import Any

from webui import publisher
from webui.models import Run, RunCycle, RunEvent, RunStatus
from webui.services import engine

CYCLE_START = engine.ExtensionPoint.CYCLE_START.value
CYCLE_END = engine.ExtensionPoint.CYCLE_END.value
PAGE_SIZE = 500
MAX_PAGE_SIZE = 5000


def page(run_id: int, since: int, limit: int = PAGE_SIZE) -> list[publisher.EventMessage]:
    """Events with seq >= since, in order; `since` is a cursor (the next seq the reader wants)."""
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    rows = RunEvent.objects.filter(run_id=run_id, seq__gte=since).order_by("seq")[:limit]
    return [publisher.event_message(row) for row in rows]


def cycle_events(run_id: int, cycle: int) -> list[publisher.EventMessage]:
    """Every stored event of one cycle, in order (a cycle is a few dozen events, whatever its size)."""
    rows = RunEvent.objects.filter(run_id=run_id, cycle=cycle).order_by("seq")
    return [publisher.event_message(row) for row in rows]


def cycle_page_json(run_id: int, cycle: int, run_finished: bool) -> bytes:
    """The ?cycle= answer (EventsPageOut) as JSON bytes, built without decoding the payloads.

    Payloads are stored as zlib-compressed compact JSON; they are spliced in as they are, so a
    5000-node cycle costs its decompression and nothing else (no parse, no validation, no re-encode).
    """
    rows = RunEvent.objects.filter(run_id=run_id, cycle=cycle).order_by("seq").values_list(
        "seq", "cycle", "pod", "extension_point", "plugin", "payload_z"
    )
    parts: list[bytes] = []
    last_seq, last_point = None, None
    for seq, cyc, pod, point, plugin, blob in rows:
        head = json.dumps({"seq": seq, "cycle": cyc, "pod": pod, "extensionPoint": point, "plugin": plugin}, separators=(",", ":"))
        parts.append(head[:-1].encode() + b',"payload":' + zlib.decompress(blob) + b"}")
        last_seq, last_point = seq, point
    cursor = last_seq + 1 if last_seq is not None else 0
    done = last_point == CYCLE_END or run_finished
    tail = json.dumps({"next": cursor, "done": done}, separators=(",", ":"))
    return b'{"events":[' + b",".join(parts) + b"]," + tail[1:].encode()


def cycles(run_id: int) -> list[RunCycle]:
    """The finished cycles' index rows, written with each CycleEnd (no payload is decoded here)."""
    return list(RunCycle.objects.filter(run_id=run_id).order_by("cycle"))


def trace(run: Run) -> dict[str, Any]:
    if run.trace is not None:
        return run.trace
    rows = RunEvent.objects.filter(run=run).order_by("seq").iterator(chunk_size=2000)
    summary = engine.trace(publisher.engine_json(row) for row in rows)
    if run.status == RunStatus.SUCCEEDED:  # a running run's trace is partial: build it again next time
        Run.objects.filter(pk=run.pk).update(trace=summary)
    return summary
