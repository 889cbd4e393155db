"""Celery tasks. Thin: reload and claim the row, then hand over to services.execution."""

from __future__ import annotations

import os
import socket

from celery import shared_task

from webui.services import execution, runs


def worker_id(hostname: str | None) -> str:
    return f"{hostname or socket.gethostname()}:{os.getpid()}"


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def execute_run(self, run_id: int) -> str:
    worker = worker_id(self.request.hostname)
    if not runs.claim(run_id, worker):
        return "not claimed (finished, running elsewhere, or out of attempts)"
    status = execution.execute(run_id, worker)
    return f"run {run_id}: {status or 'taken over'}"
