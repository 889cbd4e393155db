"""The run's logical clock (the queue's clock.WithTicker).

Time is kept in whole milliseconds. Scheduling attempts take no time, yet the release compares
timestamps taken one after another (a pod added later sorts later among equal priorities), so
every reading also carries a sequence number: two readings at the same millisecond still order
as the real clock would order them.
"""

from __future__ import annotations

from typing import NamedTuple

MS_PER_SECOND = 1000


class Instant(NamedTuple):
    """A clock reading, ordered by (ms, seq): a tuple, so the queues compare readings at C speed."""

    ms: int
    seq: int


class LogicalClock:
    def __init__(self) -> None:
        self.ms = 0
        self._seq = 0

    def now(self) -> Instant:
        self._seq += 1
        return Instant(self.ms, self._seq)

    def advance_to(self, ms: int) -> None:
        if ms < self.ms:
            raise ValueError(f"the clock cannot go back from {self.ms} to {ms} ms")
        self.ms = ms


def truncate_to_second(ms: int) -> int:
    """time.Truncate(time.Second) on the logical clock."""
    return ms - ms % MS_PER_SECOND
