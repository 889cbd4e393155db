"""The Celery app: `celery -A webui worker` (embedded mode spawns one itself)."""

import logging
import os
import threading
import time
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")

app = Celery("webui")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["webui"])
log = logging.getLogger(__name__)


@worker_ready.connect
def _recover_abandoned_runs(**_kwargs: Any) -> None:
    """Every worker sweeps for runs left behind (services.runs: a dead worker's "running" runs, and
    queued runs whose task message was lost or whose claim failed; capacity questions whose round's
    messages were lost, services.capacity): at start, then every
    SCHEDLAB_RECOVERY_SWEEP_SECONDS, so such a run is re-queued or failed even when nobody looks.

    A thread in each worker rather than Celery beat: nothing more to deploy or to keep running
    (embedded mode included), and sweeps by several workers at once are safe because every
    recovery step is a conditional UPDATE."""
    _sweep()
    threading.Thread(target=_sweep_forever, name="schedlab-sweeper", daemon=True).start()


@worker_process_init.connect
def _let_reading_fork(**_kwargs: Any) -> None:
    """A pool process runs one task at a time on its main thread: it may fork a child to read the
    second half of a big dump while it reads the first (services/engine.py, let_reading_fork)."""
    from webui.services import engine

    engine.let_reading_fork()


def _sweep() -> None:
    from django.db import close_old_connections

    from webui.services import capacity, runs, upgrades, uploads

    try:
        runs.sweep_stale_runs()
    except Exception:  # a database hiccup must not kill the sweeper thread
        log.exception("sweeping abandoned runs failed")
    try:  # capacity questions whose task messages were lost (services/capacity.py, recovery)
        capacity.sweep_stale_questions()
    except Exception:
        log.exception("sweeping stalled capacity questions failed")
    try:  # upgrade comparisons a dead worker or a lost message left behind (services/upgrades.py)
        upgrades.sweep_stale_upgrades()
    except Exception:
        log.exception("sweeping stalled upgrade comparisons failed")
    try:  # big uploads a dead worker or a lost message left behind (services/uploads.py)
        uploads.sweep_stale_uploads()
    except Exception:
        log.exception("sweeping stalled uploads failed")
    finally:
        close_old_connections()


def _sweep_forever() -> None:
    from django.conf import settings

    while True:
        time.sleep(settings.SCHEDLAB_RECOVERY_SWEEP_SECONDS)
        _sweep()
