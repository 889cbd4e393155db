"""Keeping Python's cyclic garbage collector off the scenario while a run streams its events.

A run holds about a million long-lived objects (the scenario, then the scheduler's snapshot of it)
and allocates steadily as it goes (each cycle's state and events). CPython's collector does a full
pass, over every tracked object, whenever the objects promoted since the last one reach a quarter
of the long-lived ones: 13 times in the first 400 attempts of ``../shared/bench/loop_5000.yaml``,
about 1 s of CPU in all (~5% of the run). None of those objects is garbage while the run lasts, so
once the set-up is done they are frozen (``gc.freeze``: moved to a generation the collector never
scans) and thawed when the stream ends; the same 400 attempts then spend about 0.1 s in full
passes. Reference counting frees everything as usual; only cycles among the frozen objects wait
for the thaw. The set-up itself (the snapshot being built: every pass would scan it, none would
find garbage) runs with the collector paused (``scenario.gcpause.collector_paused``, as loading does).

The collector is one per process, and a worker or server may stream several runs at once: each
stream freezes what is alive when its own set-up ends, and the last stream to end thaws.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_streams = 0


@contextmanager
def collector_frozen() -> Iterator[None]:
    global _streams
    with _lock:
        _streams += 1
        gc.freeze()
    try:
        yield
    finally:
        with _lock:
            _streams -= 1
            if _streams == 0:
                gc.unfreeze()


def frozen_after_first(events: Iterator[T]) -> Iterator[T]:
    """``events`` unchanged, with the objects alive at its first item (the scheduler's set-up is done
    by then) frozen until it ends or is closed."""
    first = next(events, None)
    if first is None:
        return
    with collector_frozen():
        yield first
        yield from events
