"""SchedLab's Django project and app in one package."""

from webui.celery import app as celery_app

__all__ = ["celery_app"]
