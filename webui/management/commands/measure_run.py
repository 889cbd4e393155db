from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.services import measure


class Command(BaseCommand):
    help = "Run a scenario file through the real task and print what it stores per cycle (issue 6)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--cycles", type=int, default=0, help="stop after the first N cycles (0: all)")
        parser.add_argument(
            "--mode",
            choices=("timeline", "single"),
            default="timeline",
            help="a run to the end (the app's default) or the single pass",
        )
        parser.add_argument(
            "--repeat",
            type=int,
            default=1,
            help="measure the (engine, task) pair N times, alternating; report the medians",
        )

    def handle(self, *args: Any, file: Path, cycles: int, mode: str, repeat: int, **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        result = measure.measure(file, first_cycles=cycles, mode=mode, repeat=repeat)
        self.stdout.write(result.to_json())
