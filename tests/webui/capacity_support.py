"""Drives capacity questions in this process, as the workers would (shared by the capacity tests):
the round's group is recorded instead of sent, then its trials are run one by one."""

from __future__ import annotations

from pathlib import Path

from webui.models import CapacityTrial
from webui.services import capacity

REPO = Path(__file__).resolve().parents[2]
CAPACITY_WEB = (REPO / "examples" / "capacity_web.yaml").read_text()
# Copies of default/api-0 are counted, of default/cache-0 placed one by one, of default/urgent-0
# (high priority: they could preempt) answered by the trials (issue 42).
CAPACITY_PODS = (REPO / "examples" / "capacity_pods.yaml").read_text()


def many_copies_text(nodes: int = 600) -> str:
    """Two zones of 1-CPU nodes and one pod of 400m spread over hosts and zones (two DoNotSchedule
    constraints: placed one by one, two copies a node): more than 1000 copies fit."""
    spread = "".join(
        f"  - {{maxSkew: 1, topologyKey: {key}, whenUnsatisfiable: DoNotSchedule, "
        "labelSelector: {matchLabels: {app: p}}}\n"
        for key in ("kubernetes.io/hostname", "topology.kubernetes.io/zone")
    )
    documents = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}, "
        f"topology.kubernetes.io/zone: z{i % 2}}}}}\nstatus: {{allocatable: {{cpu: '1', memory: 8Gi, pods: '110'}}}}\n"
        for i in range(nodes)
    ]
    documents.append(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: p}}\nspec:\n"
        "  nodeName: n0\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: 400m}}}\n"
        "  topologySpreadConstraints:\n" + spread
    )
    return "---\n".join(documents)


class InProcessWorkers:
    """Stands in for Celery: records what would be sent, runs it on ``drain``."""

    def __init__(self, monkeypatch) -> None:
        self.trials: list[int] = []
        self.advances: list[int] = []
        self.runs: list[int] = []
        self.rounds: list[list[int]] = []
        monkeypatch.setattr(capacity, "_dispatch", self._dispatch)
        monkeypatch.setattr(capacity, "_send_advance", self.advances.append)
        monkeypatch.setattr(capacity, "_send_run", self.runs.append)

    def _dispatch(self, trial_ids: list[int]) -> None:
        for trial_id in trial_ids:  # the task ids a cancel revokes
            CapacityTrial.objects.filter(pk=trial_id).update(task_id=f"task-{trial_id}")
        self.rounds.append(list(trial_ids))
        self.trials.extend(trial_ids)

    def drain(self, capture, stop_after: int | None = None) -> int:
        """Run everything sent (on_commit callbacks executed by ``capture``), or every advance sent
        and at most ``stop_after`` trials; returns trials run."""
        ran = 0
        while self.advances or self.trials:
            with capture(execute=True):
                if self.advances:
                    capacity.advance(self.advances.pop(0))
                    continue
                if stop_after is not None and ran >= stop_after:
                    break
                capacity.run_one_trial(self.trials.pop(0))
                ran += 1
        return ran
