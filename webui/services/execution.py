"""Executing a claimed run: engine events -> stored batches -> published batches -> progress.

Safe to run twice: the engine is deterministic (tie_break="first"), so a retry regenerates the same
(seq -> event) stream; events already stored are skipped and (run, seq) is unique anyway.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from webui import publisher
from webui.models import Run, RunCycle, RunEvent, RunStatus
from webui.services import engine, runs
from webui.services.events import CYCLE_END, CYCLE_START

log = logging.getLogger(__name__)


class LostClaim(Exception):
    """The run was cancelled or re-claimed by another worker; stop quietly."""


class TooManyEvents(Exception):
    pass


class TooManyStoredBytes(Exception):
    pass


@dataclass
class EventWriter:
    run_id: int
    worker: str
    resume_from: int  # events with a lower seq are already stored
    buffer: list[RunEvent] = field(default_factory=list)
    cycle_rows: list[RunCycle] = field(default_factory=list)
    cycle_starts: dict[int, int] = field(default_factory=dict)  # cycle -> seq of its CycleStart
    cycles_done: int = 0
    next_seq: int = 0
    stored_bytes: int = 0  # of every event so far, stored before a retry or now (the stream is deterministic)
    last_flush: float = field(default_factory=time.monotonic)

    def add(self, event: engine.Event) -> None:
        data = event.to_json()
        if self.buffer and self._at_batch_boundary(data):
            self.flush()
        if self.next_seq >= settings.SCHEDLAB_MAX_EVENTS_PER_RUN:
            raise TooManyEvents()
        row = _row(self.run_id, self.next_seq, data)
        self.stored_bytes += len(row.payload_z)
        if self.stored_bytes > settings.SCHEDLAB_MAX_STORED_BYTES_PER_RUN:
            raise TooManyStoredBytes()
        if self.next_seq >= self.resume_from:
            self.buffer.append(row)
        self._index_cycle(row)
        self.next_seq += 1

    def _index_cycle(self, row: RunEvent) -> None:
        if row.extension_point == CYCLE_START:
            self.cycle_starts[row.cycle] = row.seq
        elif row.extension_point == CYCLE_END:
            self.cycles_done = row.cycle + 1
            if row.seq >= self.resume_from:
                self.cycle_rows.append(_cycle_row(row, self.cycle_starts.pop(row.cycle, row.seq)))

    @property
    def finished_enough(self) -> bool:
        """The benchmark-only cut (SCHEDLAB_RUN_FIRST_CYCLES) was reached."""
        first = settings.SCHEDLAB_RUN_FIRST_CYCLES
        return bool(first) and self.cycles_done >= first

    def _at_batch_boundary(self, data: dict) -> bool:
        # Batches end only between extension points (a live view never gets half a Filter step),
        # and only once they are big or old enough to be worth a write.
        last = self.buffer[-1]
        if (last.extension_point, last.cycle) == (data["extensionPoint"], data["cycle"]):
            return False
        big = len(self.buffer) >= settings.SCHEDLAB_EVENT_BATCH_SIZE
        return big or time.monotonic() - self.last_flush >= settings.SCHEDLAB_EVENT_FLUSH_SECONDS

    def flush(self) -> None:
        batch, self.buffer = self.buffer, []
        cycles, self.cycle_rows = self.cycle_rows, []
        progress = {"cycle": self.cycles_done, "event_count": self.next_seq, "stored_bytes": self.stored_bytes}
        with transaction.atomic():
            if not runs.beat(self.run_id, self.worker, **progress):
                raise LostClaim()
            RunEvent.objects.bulk_create(batch, ignore_conflicts=True)
            RunCycle.objects.bulk_create(cycles, ignore_conflicts=True)
        self.last_flush = time.monotonic()
        publisher.publish_events(self.run_id, batch)


def _row(run_id: int, seq: int, data: dict) -> RunEvent:
    return RunEvent(
        run_id=run_id,
        seq=seq,
        cycle=data["cycle"],
        pod=data.get("pod") or "",
        extension_point=str(data["extensionPoint"]),
        plugin=data.get("plugin"),
        payload=data.get("payload"),
    )


def _cycle_row(end: RunEvent, first_seq: int) -> RunCycle:
    payload = end.payload or {}
    return RunCycle(
        run_id=end.run_id,
        cycle=end.cycle,
        pod=end.pod,
        node_name=payload.get("nodeName"),
        first_seq=first_seq,
        end_seq=end.seq + 1,
        failed_scheduling_message=payload.get("failedSchedulingMessage"),
    )


def execute(run_id: int, worker: str) -> RunStatus | None:
    """Run a claimed run to the end; returns its final status (None when it was taken away)."""
    run = Run.objects.select_related("version").get(pk=run_id)
    writer = EventWriter(run_id, worker, resume_from=runs.stored_event_count(run_id))
    try:
        for event in engine.simulate_events(engine.load(run.version.text)):
            writer.add(event)
            if writer.finished_enough:
                break
        writer.flush()
    except LostClaim:
        log.info("run %s: cancelled or claimed by another worker; stopping", run_id)
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
    return RunStatus.SUCCEEDED if runs.finish(run_id, worker, RunStatus.SUCCEEDED) else None


def _fail(run_id: int, worker: str, message: str) -> RunStatus | None:
    return RunStatus.FAILED if runs.finish(run_id, worker, RunStatus.FAILED, message) else None
