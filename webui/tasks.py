"""Celery tasks. Thin: reload and claim the row, then hand over to services.execution."""

from __future__ import annotations

import logging
import os
import socket

from celery import Task, shared_task
from django.db import DatabaseError

from webui.services import capacity, claims, documents, execution, upgrades, uploads

log = logging.getLogger(__name__)


def worker_id(hostname: str | None) -> str:
    return f"{hostname or socket.gethostname()}:{os.getpid()}"


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def execute_run(self: Task[[int], str], run_id: int) -> str:
    worker = worker_id(self.request.hostname)
    try:
        claimed = claims.claim(run_id, worker)
    except DatabaseError as exc:
        # The claim did not commit (or we cannot know): the run is still queued, or running with a
        # fresh heartbeat that will go stale. The recovery sweep sends it again either way.
        log.warning(
            "run %s: claiming it failed (%s: %s); the recovery sweep will send it again",
            run_id,
            type(exc).__name__,
            exc,
        )
        return f"run {run_id}: claim failed"
    if not claimed:
        return "not claimed (finished, running elsewhere, or out of attempts)"
    status = execution.execute(run_id, worker)
    return f"run {run_id}: {status or 'taken over'}"


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_capacity(question_id: int) -> None:
    """A capacity question's next round (a group of run_capacity_trial), or its answer."""
    capacity.advance(question_id)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_capacity_trial(trial_id: int) -> str:
    """One trial of a capacity question; the last of its round advances the question."""
    return capacity.run_one_trial(trial_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def compare_upgrade(self: Task[[int], str], upgrade_id: int) -> str:
    """What changes if we upgrade: one comparison run to its answer (routed to the long-work queue,
    settings.CELERY_TASK_ROUTES; a fleet check sends a group of them)."""
    return upgrades.execute(upgrade_id, worker_id(self.request.hostname))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def read_upload(self: Task[[int], str], upload_id: int) -> str:
    """A big upload read, checked and saved as a version (routed to the long-work queue,
    settings.CELERY_TASK_ROUTES: reading a 100 MB dump never holds the workers short runs wait for)."""
    return uploads.read(upload_id, worker_id(self.request.hostname))


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def check_version(version_id: int) -> str:
    """The engine's whole check of a version edited object by object (services/documents.py), stored for
    the web processes (routed to the long-work queue, settings.CELERY_TASK_ROUTES: never in a request)."""
    return documents.run_check(version_id)
