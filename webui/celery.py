"""The Celery app: `celery -A webui worker` (embedded mode spawns one itself)."""

import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")

app = Celery("webui")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["webui"])


@worker_ready.connect
def _recover_abandoned_runs(**_kwargs) -> None:
    """A worker that starts after a crash picks up runs its predecessor left behind."""
    from webui.services import runs

    runs.sweep_stale_runs()
