from pathlib import Path

from django.core.management.base import BaseCommand

from webui.services import measure


class Command(BaseCommand):
    help = "Run a scenario file through the real task and print what it stores per cycle (issue 6)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--cycles", type=int, default=0, help="stop after the first N cycles (0: all)")
        parser.add_argument("--mode", choices=("timeline", "single"), default="timeline",
                            help="a run to the end (the app's default) or the single pass")

    def handle(self, *args, file: Path, cycles: int, mode: str, **options) -> None:
        result = measure.measure(file, first_cycles=cycles, mode=mode)
        self.stdout.write(result.to_json())
