"""While a run streams its events the objects alive at its first event are frozen; they thaw when
the last stream ends, however it ends."""

from __future__ import annotations

import gc

import pytest

from scheduler_core.util import gcfreeze
from scheduler_core.util.gcfreeze import frozen_after_first


@pytest.fixture(autouse=True)
def thawed():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_nothing_is_frozen_before_the_first_event_and_everything_alive_is_during_the_stream():
    seen = []

    def events():
        seen.append(gc.get_freeze_count())  # the set-up, before the first event
        yield 1
        seen.append(gc.get_freeze_count())
        yield 2

    assert list(frozen_after_first(events())) == [1, 2]
    assert seen[0] == 0 and seen[1] > 0
    assert gc.get_freeze_count() == 0


def test_a_stream_closed_early_thaws():
    stream = frozen_after_first(iter(range(5)))
    assert next(stream) == 0
    assert gc.get_freeze_count() > 0
    stream.close()
    assert gc.get_freeze_count() == 0


def test_a_stream_that_fails_thaws():
    def events():
        yield 1
        raise RuntimeError("engine bug")

    with pytest.raises(RuntimeError):
        list(frozen_after_first(events()))
    assert gc.get_freeze_count() == 0


def test_an_empty_stream_freezes_nothing():
    assert list(frozen_after_first(iter(()))) == []
    assert gc.get_freeze_count() == 0 and gcfreeze._streams == 0


def test_only_the_last_of_two_streams_thaws():
    first, second = frozen_after_first(iter(range(3))), frozen_after_first(iter(range(3)))
    next(first), next(second)
    first.close()
    assert gc.get_freeze_count() > 0
    second.close()
    assert gc.get_freeze_count() == 0
