from typing import Any

from django.core.management.base import BaseCommand

from webui.services import demos


class Command(BaseCommand):
    help = "Create or update the demo scenarios from webui/demos/ (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        for demo, changed in demos.load_all():
            self.stdout.write(f"{'loaded ' if changed else 'up to date'} {demo.slug}")
