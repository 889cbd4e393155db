"""`make run`: migrate, load the demos, then daphne (ASGI) and two Celery workers together: one for
runs and everything short, one for the long-work queue (upgrade comparisons: settings.CELERY_TASK_ROUTES),
so that long work never holds the worker short runs wait for.

Same code path as production, with no servers to install: SQLite in WAL mode, kombu's filesystem
broker and the in-memory channel layer (the websocket tails the database for cross-process events).

This command supervises both: a process that dies is started again (a run its worker had in flight
is picked up by the new worker's recovery sweep, as in production), so only Ctrl-C (or SIGTERM)
stops the app. Each child runs in a process group of its own: stopping a Celery worker must also
stop the pool processes it forked, even when the worker itself was killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

POLL_SECONDS = 0.5
STOP_SECONDS = 10.0
# A child that dies soon after it started is restarted after a growing pause, so a broken
# configuration does not spin; one that ran a while is restarted at once.
FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 30.0
HEALTHY_AFTER_SECONDS = 60.0


def _die_with_parent() -> None:
    """In the child, before exec (Linux): SIGKILL it when the supervisor dies, even if the supervisor
    itself is SIGKILLed, so no orphaned server keeps the port or a worker keeps claiming runs."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


PR_SET_PDEATHSIG = 1


@dataclass
class Child:
    name: str
    args: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = None  # set while it is down, waiting to be started again
    backoff: float = 0.0
    restarts: int = 0

    def start(self) -> int:
        """Start it; its pid."""
        self.process = subprocess.Popen(
            self.args,
            env=os.environ.copy(),
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        self.started_at, self.restart_at = time.monotonic(), None
        return self.process.pid

    def died(self) -> int | None:
        """Its exit code, once, when it has just been found dead."""
        if self.process is None or self.restart_at is not None:
            return None
        return self.process.poll()

    def schedule_restart(self, now: float) -> float:
        ran_for = now - self.started_at
        self.backoff = (
            0.0
            if ran_for >= HEALTHY_AFTER_SECONDS
            else min(MAX_BACKOFF_SECONDS, max(FIRST_BACKOFF_SECONDS, self.backoff * 2))
        )
        self.restart_at = now + self.backoff
        return self.backoff

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Signal its whole process group (a dead worker's orphaned pool processes included)."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass

    def wait(self, deadline: float) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop(signal.SIGKILL)
            self.process.wait(timeout=5)


@dataclass
class Supervisor:
    children: list[Child]
    say: Callable[[str], None] = print

    def start_all(self) -> None:
        for child in self.children:
            child.start()

    def supervise(self) -> None:
        """Forever: only Ctrl-C or SIGTERM (raised as KeyboardInterrupt) ends it."""
        while True:
            self.tick(time.monotonic())
            time.sleep(POLL_SECONDS)

    def tick(self, now: float) -> None:
        for child in self.children:
            code = child.died()
            if code is not None:
                child.stop(signal.SIGKILL)  # what it forked must not keep running without it
                pause = child.schedule_restart(now)
                self.say(f"{child.name} exited with code {code}; starting it again in {pause:g} s")
            elif child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                pid = child.start()
                self.say(f"{child.name} started again (restart {child.restarts}, pid {pid})")

    def stop_all(self) -> None:
        for child in self.children:
            child.stop(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for child in self.children:
            child.wait(deadline)
            child.stop(signal.SIGKILL)  # pool processes that outlived their worker


class Command(BaseCommand):
    help = "Run SchedLab on one machine: ASGI server and Celery worker together, restarted if they die."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes (runs)")
        parser.add_argument(
            "--long-concurrency",
            type=int,
            default=2,
            help="processes of the long-work worker (capacity questions' trials, upgrade comparisons)",
        )

    def handle(self, *args: Any, host: str, port: int, concurrency: int, long_concurrency: int, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        call_command("load_demos")
        worker = celery_worker("default", "celery", concurrency)
        long_worker = celery_worker("long", settings.SCHEDLAB_LONG_QUEUE, long_concurrency)
        server = [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "webui.asgi:application"]
        children = [
            Child("celery worker", worker),
            Child("celery long-work worker", long_worker),
            Child("daphne", server),
        ]
        supervisor = Supervisor(children, say=self._say)
        signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
        try:
            supervisor.start_all()
            self._say(self.style.SUCCESS(f"SchedLab is running at http://{host}:{port}/  (Ctrl-C stops it)"))
            supervisor.supervise()
        except KeyboardInterrupt:
            pass
        finally:
            supervisor.stop_all()

    def _say(self, message: str) -> None:
        self.stdout.write(message, ending="\n")
        self.stdout.flush()


def celery_worker(name: str, queue: str, concurrency: int) -> list[str]:
    """A Celery worker consuming one queue (its node name says which)."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "webui",
        "worker",
        "-n",
        f"{name}@%h",
        "-Q",
        queue,
        "--loglevel=INFO",
        f"--concurrency={concurrency}",
    ]


def _raise_keyboard_interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt()
