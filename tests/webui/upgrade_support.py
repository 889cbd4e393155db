"""Scenarios and a stand-in for Celery shared by the upgrade comparison tests (services, router, task,
consumer, pages)."""

from __future__ import annotations

from webui.services import upgrades

# Two nodes, one pending pod of cpu only: v1.35 puts it on n1, v1.36 on n2 — NodeResourcesBalancedAllocation's
# v1.36 formula alone (kubernetes#135573), as tests/scheduler_core/answers/test_upgrade.py has it.
MOVES_ON_UPGRADE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: n2
  containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: NodeResourcesFit}]
"""


def said_to_run(text: str, version: str) -> str:
    """The scenario with a `kubectl version` record: the dump says the cluster runs ``version``."""
    minor = version.split(".")[1]
    record = f'serverVersion: {{major: "1", minor: "{minor}", gitVersion: {version}}}\n'
    return text.rstrip() + "\n---\n" + record


class InProcessLongWorkers:
    """Stands in for the long-work workers: records what would be sent, runs it on ``drain``."""

    def __init__(self, monkeypatch) -> None:
        self.sent: list[int] = []
        self.groups: list[list[int]] = []
        monkeypatch.setattr(upgrades, "_send", self._send)
        monkeypatch.setattr(upgrades, "_dispatch", self._dispatch)

    def _send(self, upgrade_id: int) -> None:
        self.sent.append(upgrade_id)

    def _dispatch(self, upgrade_ids: list[int]) -> None:
        self.groups.append(list(upgrade_ids))
        self.sent.extend(upgrade_ids)

    def drain(self) -> list[str]:
        """Run everything sent, in order; what each task returned."""
        done = []
        while self.sent:
            done.append(upgrades.execute(self.sent.pop(0), "test-worker"))
        return done
