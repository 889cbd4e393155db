"""scheduler_core.util.forked: a forked child's answer read back whole; a child that fails, declines or
is cancelled gives none, and the caller does the work itself."""

from __future__ import annotations

import os

from scheduler_core.util.forked import READ_CHUNK, Forked


def _gone(pid: int) -> bool:
    """No process has ``pid`` now (it ended and was waited for)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_childs_answer_comes_back_whole_however_long():
    big = bytes(range(256)) * (3 * READ_CHUNK // 256 + 7)  # more than a pipe holds, in several reads
    child = Forked.start(lambda: big)
    assert child is not None and child.answer() == big


def test_the_child_works_on_what_this_process_had_at_the_fork():
    state = {"read": "the first half"}
    child = Forked.start(lambda: state["read"].encode())
    state["read"] = "changed here afterwards"
    assert child is not None and child.answer() == b"the first half"


def test_a_child_that_declines_or_fails_answers_nothing():
    declining = Forked.start(lambda: None)
    failing = Forked.start(lambda: 1 / 0)  # type: ignore[arg-type, return-value]
    exiting = Forked.start(lambda: os._exit(0))  # ends without writing
    assert declining is not None and declining.answer() is None
    assert failing is not None and failing.answer() is None
    assert exiting is not None and exiting.answer() is None


def test_a_cancelled_child_is_killed_and_waited_for():
    child = Forked.start(lambda: (os.read(os.pipe()[0], 1), b"")[1])  # blocks until killed
    assert child is not None
    child.cancel()
    assert _gone(child.pid)


def test_a_child_stuck_past_the_patience_given_is_killed_and_answers_nothing():
    stuck = Forked.start(lambda: (os.read(os.pipe()[0], 1), b"never")[1])  # blocks for good
    assert stuck is not None and stuck.answer(patience=0.1) is None
    assert _gone(stuck.pid)
    prompt = Forked.start(lambda: b"in time")
    assert prompt is not None and prompt.answer(patience=600) == b"in time"
