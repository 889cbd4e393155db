"""`manage.py measure_capacity FILE --pod NS/NAME [--max N]`: a pod-copies question through the app's
own path, in this process — the service's ``ask`` (what the web process does: check, load) and the
``advance_capacity`` task (what a worker does: load the version, the scenario's run, the one pass,
or the trial rounds run here one by one) — and prints one JSON line: CPU and wall seconds of each,
the method and answer, and the copies per CPU second the pass reported (issue 42)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

from django.core.management.base import BaseCommand, CommandParser
from django.test.utils import override_settings

from webui.models import MEASURE_CAPACITY_OWNER, CapacityQuestion, Scenario, ScenarioVersion
from webui.services import capacity, engine
from webui.services.access import Actor
from webui.services.capacity import Asked
from webui.tasks import advance_capacity

OWNER = MEASURE_CAPACITY_OWNER  # kept out of every list, single-user mode's too (models.MEASUREMENT_OWNERS)


class Command(BaseCommand):
    help = "Ask how many more copies of a pod fit through the service and the task, in this process, and time both."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--pod", required=True, help="NS/NAME of the pod to copy")
        parser.add_argument("--max", dest="most", type=int, default=None, help="the most copies placed")

    def handle(self, *args: Any, file: Path, pod: str, most: Optional[int], **options: Any) -> None:
        self.stdout.write(json.dumps(measure(file, pod, most)))


def measure(path: Path, pod: str, max_count: Optional[int] = None) -> dict[str, Any]:
    text = path.read_text()
    actor = Actor(session_key=OWNER)
    scenario = Scenario.objects.create(name=path.name, owner_session_key=OWNER)
    ScenarioVersion.saved(scenario, 1, text)
    advances: list[int] = []

    def in_process(trial_ids: list[int]) -> None:  # the trial rounds, when the pass needs them, run here
        for trial_id in trial_ids:
            capacity.run_one_trial(trial_id)

    with (
        override_settings(SCHEDLAB_MAX_BYTES=max(len(text.encode()) + 1, 1 << 20)),
        capacity.dispatched_by(capacity.Dispatch(advances.append, lambda run_id: None, in_process)),
    ):
        ask = _Clock()
        question = capacity.ask(actor, scenario, Asked(engine.Question("fit", pod=pod, max_count=max_count)))
        ask.stop()
        capacity._bases.clear()  # the worker is another process: it loads the version itself
        task = _Clock()
        for question_id in advances:
            advance_capacity.apply(args=(question_id,))
        task.stop()
    question = CapacityQuestion.objects.get(pk=question.pk)
    return {
        "file": str(path),
        "pod": pod,
        "max": max_count,
        "status": question.status,
        "error": question.error,
        "method": question.method,
        "why": question.why,
        "fits": question.copies_done,
        "stoppedAtMax": question.stopped_at_max,
        "stoppedBy": question.stopped_by,
        "message": question.stop_message,
        "nodesWithCopies": sum(1 for n in (question.per_node or {}).values() if n > 0),
        "copiesPerCpuSecond": question.copies_per_second,
        "trials": question.trials_done,
        "askCpuSeconds": ask.cpu,
        "askWallSeconds": ask.wall,
        "taskCpuSeconds": task.cpu,
        "taskWallSeconds": task.wall,
    }


class _Clock:
    def __init__(self) -> None:
        self._cpu, self._wall = time.process_time(), time.perf_counter()
        self.cpu = self.wall = 0.0

    def stop(self) -> None:
        self.cpu = round(time.process_time() - self._cpu, 3)
        self.wall = round(time.perf_counter() - self._wall, 3)
