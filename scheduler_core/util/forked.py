"""Work done meanwhile by a forked child, its answer (bytes) read back through a pipe.

The child is a copy of this process at the fork, so it starts from everything already read (a big
text, say) without a copy being sent; it computes, writes its answer and ends with ``os._exit``
(never this process's exit handlers, buffered output or connections). A child that fails, is killed
or answers nothing leaves the work to the caller, who does it itself: the answer is a shortcut,
never the only way to one.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from typing import Optional

READ_CHUNK = 1 << 20


class Forked:
    """A child's work under way (``start``); ``answer`` waits for it."""

    def __init__(self, pid: int, reading: int) -> None:
        self.pid = pid
        self.reading = reading

    @classmethod
    def start(cls, work: Callable[[], Optional[bytes]]) -> Optional[Forked]:
        """``work()`` in a forked child; None when this system cannot fork now (then do it here)."""
        if not hasattr(os, "fork"):
            return None
        reading, writing = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare now
            os.close(reading)
            os.close(writing)
            return None
        if pid == 0:
            os.close(reading)
            _child(work, writing)  # never returns
        os.close(writing)
        return cls(pid, reading)

    def answer(self, patience: Optional[float] = None) -> Optional[bytes]:
        """The child's answer once it has ended; None when it gave none (it declined or failed) or,
        given ``patience`` (seconds), when it has not ended by then: it is killed, and the caller
        does the work — a child stuck for good (on a lock another thread held at the fork, say)
        never holds its parent forever."""
        deadline = None if patience is None else time.monotonic() + patience
        chunks = []
        while True:
            if (
                deadline is not None
                and not select.select([self.reading], [], [], max(0.0, deadline - time.monotonic()))[0]
            ):
                self.cancel()
                return None
            chunk = os.read(self.reading, READ_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(self.reading)
        _, status = os.waitpid(self.pid, 0)
        if not chunks or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        return b"".join(chunks)

    def cancel(self) -> None:
        """The child's work is of no use now: it is killed and waited for."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(self.reading)
        os.waitpid(self.pid, 0)


def _child(work: Callable[[], Optional[bytes]], writing: int) -> None:
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a worker's handlers are its parent's business
        answer = work()
        if answer is not None:
            view = memoryview(answer)
            while view:
                view = view[os.write(writing, view) :]
            code = 0
    except BaseException:  # noqa: BLE001 - the parent does the work itself when nothing arrives
        pass
    finally:
        os._exit(code)
