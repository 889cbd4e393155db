"""`make run`: migrate, load the demos, then daphne (ASGI) and one Celery worker together.

Same code path as production, with no servers to install: SQLite in WAL mode, kombu's filesystem
broker and the in-memory channel layer (the websocket tails the database for cross-process events).
Ctrl-C (or SIGTERM) stops both processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run SchedLab on one machine: ASGI server and Celery worker together."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes")

    def handle(self, *args, host: str, port: int, concurrency: int, **options) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        call_command("load_demos")
        children = [self._worker(concurrency), self._server(host, port)]
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        self.stdout.write(self.style.SUCCESS(f"SchedLab is running at http://{host}:{port}/  (Ctrl-C stops it)"), ending="\n")
        self.stdout.flush()
        try:
            died = self._wait(children)
        except KeyboardInterrupt:
            died = None
        finally:
            _stop(children)
        if died is not None:
            raise CommandError(f"{' '.join(died.args[2:5])} exited with code {died.returncode}; stopped the rest")

    def _worker(self, concurrency: int) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "celery", "-A", "webui", "worker", "--loglevel=INFO", f"--concurrency={concurrency}"]
        return subprocess.Popen(cmd, env=os.environ.copy())

    def _server(self, host: str, port: int) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "webui.asgi:application"]
        return subprocess.Popen(cmd, env=os.environ.copy())

    def _wait(self, children: list[subprocess.Popen]) -> subprocess.Popen:
        # If either process dies, stop the other: half a SchedLab would look up but never run anything.
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        return next(child for child in children if child.poll() is not None)


def _stop(children: list[subprocess.Popen]) -> None:
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + 10
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
