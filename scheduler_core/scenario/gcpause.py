"""Pausing Python's cyclic garbage collector while a scenario is read.

Reading a 5 MB dump builds about a million small objects (the YAML tree, then the model), none of
them in a reference cycle, so the collector's frequent passes over them find nothing to free: they
cost a fifth of the load (0.36 of 1.7 s of CPU on ../shared/bench/spread_5000.yaml). Reference
counting still frees everything as usual; only the cycle collector waits until the read is over.

The collector is one per process and a server reads scenarios in several threads at once: the
pause is counted, and the collector resumes when the last reader is done (and only if it was on).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_readers = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _readers, _was_enabled
    with _lock:
        if _readers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0 and _was_enabled:
                gc.enable()
