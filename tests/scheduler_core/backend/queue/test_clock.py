"""backend/queue/clock.py: the run's logical clock, whose readings order even within a millisecond."""

from __future__ import annotations

import pytest

from scheduler_core.backend.queue.clock import Instant, LogicalClock, truncate_to_second


def test_two_readings_at_the_same_millisecond_order_as_they_were_taken():
    clock = LogicalClock()
    first, second = clock.now(), clock.now()
    assert first.ms == second.ms == 0 and first < second


def test_the_clock_moves_forward_only():
    clock = LogicalClock()
    clock.advance_to(1500)
    assert clock.now().ms == 1500 and Instant(1000, 9) < Instant(1500, 1)
    with pytest.raises(ValueError, match="the clock cannot go back from 1500 to 1000 ms"):
        clock.advance_to(1000)


@pytest.mark.parametrize(("ms", "truncated"), [(0, 0), (999, 0), (1000, 1000), (2750, 2000)])
def test_truncating_to_the_second(ms, truncated):
    assert truncate_to_second(ms) == truncated
