"""A run's stored event log: columnar segments (one per cycle) and the names they refer to.

Segments are written by services.execution and read here for every JSON answer (event pages, a
cycle's events, the websocket, the trace); the browser's run view reads the blobs themselves
(``GET /api/runs/{id}/segment?cycle=N``) with the names (``GET /api/runs/{id}/names``).
"""

from __future__ import annotations

import gzip
import json
from typing import Any, Iterator

from django.db.models import Max, Sum
from django.db.models.functions import Length

from webui.models import Run, RunSegment, RunStatus
from webui.services import engine, releases
from webui.services.errors import Conflict

_NAMES: engine.Memo[engine.RunNames] = engine.Memo(16)  # run id -> RunNames (the names of a run never change)


def run_names_from(document: dict[str, Any]) -> engine.RunNames:
    return engine.RunNames([node["name"] for node in document["nodes"]], list(document["pods"]))


class NamesNotReady(Conflict):
    """A run whose worker has not started it: it keeps the names before its first event."""

    code = "names_not_ready"


def stored_names_gz(run: Run) -> bytes:
    """The run's names (gzip JSON), which its worker keeps before the first event. Asked sooner
    (queued, or its worker still reading the scenario): NamesNotReady, rather than this process
    reading the whole scenario for them as the worker does (seconds and gigabytes on a 5,000-node
    dump). A finished run stored before they were kept gets them from its version."""
    if run.names_gz is None:
        # Read again: the run may have started since this request read it (its worker keeps the
        # names before its first segment, which this request may already have found).
        run.refresh_from_db(fields=["names_gz", "status"])
    if run.names_gz is None and not run.is_finished:
        raise NamesNotReady(_not_ready_message(run))
    if run.names_gz is None:
        blob = engine.run_names_gz(engine.load_valid(run.version.text, releases.request_of(run)))
        Run.objects.filter(pk=run.pk, names_gz__isnull=True).update(names_gz=blob)
        run.names_gz = blob
    return bytes(run.names_gz)


def _not_ready_message(run: Run) -> str:
    if run.status == RunStatus.QUEUED:
        return f"run {run.pk} has not started yet: its names are kept when it starts; ask again"
    return f"run {run.pk} is starting: its worker is still reading the scenario, and keeps its names before the first cycle; ask again"


def run_names(run: Run) -> engine.RunNames:
    names = _NAMES.get(run.pk)
    if names is None:
        names = _NAMES.put(run.pk, run_names_from(json.loads(gzip.decompress(stored_names_gz(run)))))
    return names


def remember_names(run_id: int, names: engine.RunNames) -> None:
    """The writer already has them: readers in the same process need not decompress them again."""
    _NAMES.put(run_id, names)


def decode(row: RunSegment, names: engine.RunNames) -> list[dict[str, Any]]:
    """The segment's events, each as the API shows it: the engine's JSON plus its seq."""
    segment = engine.decode_segment(row.blob, names)
    return [{"seq": segment.first_seq + i, **event} for i, event in enumerate(segment.events)]


def decode_selected(row: RunSegment, names: engine.RunNames, wanted: engine.EventFilter) -> list[dict[str, Any]]:
    """The segment's events that ``wanted`` picks (the others are not decoded), as decode() gives them."""
    return [{"seq": seq, **event} for seq, event in engine.decode_selected(row.blob, names, wanted)]


def events_from(run: Run, since: int, limit: int, whole_segments: bool = False) -> list[dict[str, Any]]:
    """Up to ``limit`` events with seq >= since, in seq order; with ``whole_segments``, the last
    segment read is given whole (so a batch ends at a cycle's end), even past the limit."""
    out: list[dict[str, Any]] = []
    names = None
    for row in _segments_from(run.pk, since):
        names = names or run_names(run)
        out.extend(event for event in decode(row, names) if event["seq"] >= since)
        if len(out) >= limit:
            break
    return out if whole_segments else out[:limit]


def _segments_from(run_id: int, since: int, batch: int = 8) -> Iterator[RunSegment]:
    """Segments ending after `since`, in order, read a few at a time by plain keyset queries: no
    server-side cursor is left open on a pooled connection when the reader stops early."""
    after = since
    while True:
        rows = list(RunSegment.objects.filter(run_id=run_id, end_seq__gt=after).order_by("first_seq")[:batch])
        yield from rows
        if len(rows) < batch:
            return
        after = rows[-1].end_seq


def cycle_rows(run_id: int, cycle: int) -> list[RunSegment]:
    return list(RunSegment.objects.filter(run_id=run_id, cycle=cycle).order_by("first_seq"))


def cycle_events(run: Run, cycle: int) -> list[dict[str, Any]]:
    rows = cycle_rows(run.pk, cycle)
    if not rows:  # not stored yet (its run may not have started: no names either)
        return []
    names = run_names(run)
    return [event for row in rows for event in decode(row, names) if event["cycle"] == cycle]


def cycle_blob(run: Run, cycle: int) -> bytes | None:
    """The stored blob of a cycle (a cycle is one segment; should it span several, they are joined)."""
    rows = cycle_rows(run.pk, cycle)
    if not rows:
        return None
    if len(rows) == 1:
        return bytes(rows[0].blob)
    names = run_names(run)
    encoder = engine.SegmentEncoder(names, rows[0].first_seq)
    for event in (e for row in rows for e in decode(row, names)):
        encoder.add_json(event)
    return encoder.finish()


def stored_event_count(run_id: int) -> int:
    # Segments are written whole and in order, so the stored seqs are always 0..count-1.
    return RunSegment.objects.filter(run_id=run_id).aggregate(n=Max("end_seq"))["n"] or 0


def stored_bytes(run_id: int) -> int:
    return RunSegment.objects.filter(run_id=run_id).aggregate(n=Sum(Length("blob")))["n"] or 0
