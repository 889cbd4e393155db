"""Executing a claimed run: engine events -> columnar segments -> stored batches -> progress.

Safe to run twice: the engine is deterministic (tie_break="first"), so a retry regenerates the same
(seq -> event) stream; events already stored are skipped and (run, seq) is unique anyway.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, models, transaction

from webui import publisher
from webui.models import Run, RunCycle, RunSegment, RunStatus
from webui.services import claims, engine, releases, segments

log = logging.getLogger(__name__)

CYCLE_START, CYCLE_END = engine.ExtensionPoint.CYCLE_START, engine.ExtensionPoint.CYCLE_END


BATCH_BYTES = 1 << 20  # segments written together at most (time usually cuts first: SCHEDLAB_EVENT_FLUSH_SECONDS)


class LostClaim(Exception):
    """The run was cancelled or re-claimed by another worker; stop quietly."""


class TooManyEvents(Exception):
    pass


class TooManyStoredBytes(Exception):
    pass


@dataclass
class EventWriter:
    """Encodes the stream into one columnar segment per cycle and stores them in batches.

    A segment holds every event of one cycle number: in a run to the end that is the attempt
    (CycleStart..CycleEnd) with what follows it before the next attempt (AttemptEnd, queue moves,
    cluster changes), so a segment closes when the next cycle's first event arrives."""

    run_id: int
    worker: str
    names: engine.RunNames
    resume_from: int  # events with a lower seq are already stored (whole segments)
    stored_bytes: int = 0  # of every segment so far, stored before a retry or now (the stream is deterministic)
    segments: list[SegmentRow] = field(default_factory=list)  # closed, not yet written
    pending_bytes: int = 0  # the blobs of ``segments``
    cycle_rows: list[CycleRow] = field(default_factory=list)
    cycle_starts: dict[int, int] = field(default_factory=dict)  # cycle -> seq of its CycleStart
    open: engine.SegmentEncoder | None = None  # the segment being built
    open_cycle: int = -1
    cycles_done: int = 0
    next_seq: int = 0
    last_flush: float = field(default_factory=time.monotonic)
    # The limits, read once: Django's settings object costs microseconds per read, and add() runs
    # for every event (thousands per second).
    max_events: int = field(default_factory=lambda: settings.SCHEDLAB_MAX_EVENTS_PER_RUN)
    max_stored_bytes: int = field(default_factory=lambda: settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN)
    first_cycles: int = field(default_factory=lambda: settings.SCHEDLAB_RUN_FIRST_CYCLES)
    flush_seconds: float = field(default_factory=lambda: settings.SCHEDLAB_EVENT_FLUSH_SECONDS)

    def add(self, event: engine.Event) -> None:
        if self.next_seq >= self.max_events:
            raise TooManyEvents()
        if self.open is not None and event.cycle != self.open_cycle:
            self._close()  # a segment holds one cycle's events
            if self._due():
                self.flush()
        storing = self.next_seq >= self.resume_from
        if storing:
            if self.open is None:
                self.open, self.open_cycle = engine.SegmentEncoder(self.names, self.next_seq), event.cycle
            self.open.add(event)
        point = event.extension_point  # the cycle index, inline: this runs for every event
        if point is CYCLE_START:
            self.cycle_starts[event.cycle] = self.next_seq
        elif point is CYCLE_END:
            self._cycle_ended(event, storing)
        self.next_seq += 1

    def _cycle_ended(self, event: engine.Event, storing: bool) -> None:
        self.cycles_done = event.cycle + 1
        first_seq = self.cycle_starts.pop(event.cycle, self.next_seq)
        if storing:
            self.cycle_rows.append(_cycle_row(self.run_id, event, first_seq, self.next_seq + 1))

    def _close(self) -> None:
        encoder = self.open
        assert encoder is not None  # callers close the segment they have open
        blob = encoder.finish()
        self.stored_bytes += len(blob)
        if self.stored_bytes > self.max_stored_bytes:
            raise TooManyStoredBytes()
        self.pending_bytes += len(blob)
        first = encoder.first_seq
        self.segments.append((self.run_id, self.open_cycle, first, first + len(encoder), blob))
        self.open = None

    @property
    def finished_enough(self) -> bool:
        """The benchmark-only cut (SCHEDLAB_RUN_FIRST_CYCLES) was reached."""
        return bool(self.first_cycles) and self.cycles_done >= self.first_cycles

    def _due(self) -> bool:
        # Batches end only between cycles (a live view never gets half a cycle), and only once they
        # are old or big enough to be worth a write: a write (a transaction, a heartbeat, a message
        # to watchers) costs milliseconds, a 5000-node cycle's segment ~7 KB.
        return self.pending_bytes >= BATCH_BYTES or time.monotonic() - self.last_flush >= self.flush_seconds

    def flush(self) -> None:
        if self.open is not None:  # the run's end: its last events, even if their cycle did not end
            self._close()
        batch, self.segments, self.pending_bytes = self.segments, [], 0
        cycles, self.cycle_rows = self.cycle_rows, []
        progress = {"cycle": self.cycles_done, "event_count": self.next_seq, "stored_bytes": self.stored_bytes}
        with transaction.atomic():
            if not claims.beat(self.run_id, self.worker, **progress):
                raise LostClaim()
            insert_new(RunSegment, SEGMENT_COLUMNS, batch)
            insert_new(RunCycle, CYCLE_COLUMNS, cycles)
        self.last_flush = time.monotonic()
        if batch:
            _run, _cycle, _first_seq, end_seq, _blob = batch[-1]
            publisher.publish_stored(self.run_id, end_seq)


SEGMENT_COLUMNS = ("run", "cycle", "first_seq", "end_seq", "blob")
SegmentRow = tuple[int, int, int, int, bytes]  # the values of SEGMENT_COLUMNS
CYCLE_COLUMNS = ("run", "cycle", "pod", "node_name", "first_seq", "end_seq", "failed_scheduling_message")
CycleRow = tuple[int, int, str, str | None, int, int, str | None]  # the values of CYCLE_COLUMNS


def _cycle_row(run_id: int, end: engine.Event, first_seq: int, end_seq: int) -> CycleRow:
    """A RunCycle row (CYCLE_COLUMNS)."""
    payload = end.payload
    assert isinstance(payload, engine.CycleEnd)  # a CycleEnd event's payload
    return (run_id, end.cycle, end.pod, payload.node_name, first_seq, end_seq, payload.failed_scheduling_message)


def insert_new(model: type[models.Model], columns: tuple[str, ...], rows: list[SegmentRow] | list[CycleRow]) -> None:
    """The rows (values of ``columns``, in order), those already there skipped: what
    ``bulk_create(ignore_conflicts=True)`` writes (INSERT ... ON CONFLICT DO NOTHING, on PostgreSQL
    and SQLite alike), without building a model instance and preparing each of its fields per row:
    a batch of 125 segments and their cycle rows took 9.5 ms of the task's CPU that way, 4.2 ms so.
    The values are plain ints, strings, None and bytes, which both drivers take as they are."""
    if not rows:
        return
    meta, quote = model._meta, connection.ops.quote_name
    names = ", ".join(quote(_column(meta.get_field(column))) for column in columns)
    marks = ", ".join(["%s"] * len(columns))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(meta.db_table)} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING", rows
        )


def _column(field: models.Field[Any, Any] | models.ForeignObjectRel) -> str:
    assert isinstance(field, models.Field) and field.column is not None  # the model's own concrete fields
    return field.column


def writer_for(run: Run, worker: str, scenario: engine.Scenario) -> EventWriter:
    """A writer that resumes after the segments a previous attempt stored; the run's names are kept first."""
    document = engine.run_names_document(scenario)
    if run.names_gz is None:  # kept at the run's start when another process had read the scenario
        Run.objects.filter(pk=run.pk).update(names_gz=engine.names_document_gz(document))
    names = segments.run_names_from(document)
    segments.remember_names(run.pk, names)
    resume_from = segments.stored_event_count(run.pk)
    stored = segments.stored_bytes(run.pk) if resume_from else 0
    return EventWriter(run.pk, worker, names, resume_from=resume_from, stored_bytes=stored)


def execute(run_id: int, worker: str, on_first_event: Callable[[], None] | None = None) -> RunStatus | None:
    """Run a claimed run to the end; returns its final status (None when it was taken away).
    ``on_first_event``: told when the engine's first event arrives (engine.run_events; measure.py)."""
    try:
        run = Run.objects.select_related("version").get(pk=run_id)
        version = run.version
        # The collector stays off from the read to the engine's first event, where the stream freezes
        # what is alive: a loaded 150,000-pod scenario is a million objects, none of them garbage,
        # and a pass over them sooner (at the first allocations after the read) took 0.6 s.
        with engine.collector_paused():
            scenario = engine.load_stored(
                version.digest, version.length, lambda: version.text, releases.request_of(run)
            )
            writer = writer_for(run, worker, scenario)
            events = engine.run_events(scenario, run.mode, on_first_event)
            first = next(events, None)
        # Closed when the run stops early (cancelled, over a limit): a forked engine is killed then.
        with closing(events):
            for event in itertools.chain([first] if first is not None else [], events):
                writer.add(event)
                if writer.finished_enough:
                    break
        writer.flush()
    except (LostClaim, Run.DoesNotExist):
        log.info("run %s: cancelled, deleted or claimed by another worker; stopping", run_id)
        return None
    except DatabaseError as exc:
        # Not the run's fault: leave it running; its heartbeat goes stale and recovery re-queues it
        # (resuming after the stored events) or fails it after SCHEDLAB_MAX_RUN_ATTEMPTS.
        log.warning("run %s: database error, leaving it to recovery: %s: %s", run_id, type(exc).__name__, exc)
        return None
    except engine.ScenarioInvalid as exc:
        return _fail(run_id, worker, "the scenario does not validate: " + "; ".join(str(e) for e in exc.errors))
    except TooManyEvents:
        limit = settings.SCHEDLAB_MAX_EVENTS_PER_RUN
        return _fail(run_id, worker, f"the run produced more than {limit} events (limit SCHEDLAB_MAX_EVENTS_PER_RUN)")
    except TooManyStoredBytes:
        limit = settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN
        message = f"the run's events take more than {limit} bytes compressed (limit SCHEDLAB_MAX_STORED_BYTES_PER_RUN)"
        return _fail(run_id, worker, message)
    except Exception as exc:  # an engine bug must fail the run visibly, not leave it running
        log.exception("run %s failed", run_id)
        return _fail(run_id, worker, f"the simulation failed: {type(exc).__name__}: {exc}")
    return RunStatus.SUCCEEDED if claims.finish(run_id, worker, RunStatus.SUCCEEDED) else None


def _fail(run_id: int, worker: str, message: str) -> RunStatus | None:
    return RunStatus.FAILED if claims.finish(run_id, worker, RunStatus.FAILED, message) else None
