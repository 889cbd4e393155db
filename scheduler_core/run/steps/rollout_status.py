"""`kubectl rollout status` over the rollouts a step started (kubectl/pkg/polymorphichelpers
rollout_status.go: StatusViewerFor, one viewer per kind): each StepEnd reports every rollout
under way until it is complete. The counts are the controllers' status (``rollout_status`` of
cluster/controllers/deployment.py, statefulset.py, daemonset.py).
"""

from __future__ import annotations

from typing import Callable

from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.controllers import daemonset, deployment, statefulset
from scheduler_core.cluster.controllers.availability import Resyncs
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.encoding.events import RolloutStatus
from scheduler_core.model import KIND_DAEMON_SET, KIND_DEPLOYMENT, KIND_STATEFUL_SET, ControlledWorkload, ObjectRef, Pod

ROLLOUT_KINDS = (KIND_DEPLOYMENT, KIND_STATEFUL_SET, KIND_DAEMON_SET)  # a template change of these replaces pods

STATUS_VIEWERS: dict[str, Callable[[ClusterState, ControlledWorkload], RolloutStatus]] = {
    KIND_DEPLOYMENT: deployment.rollout_status,
    KIND_STATEFUL_SET: statefulset.rollout_status,
    KIND_DAEMON_SET: daemonset.rollout_status,
}


class Rollouts:
    """The rollouts under way, in the order they started."""

    def __init__(self, state: ClusterState, resyncs: Resyncs, clock: LogicalClock) -> None:
        self.state = state
        self.resyncs = resyncs
        self.clock = clock
        self.under_way: list[ObjectRef] = []  # reported by the next StepEnd (until complete)

    def start(self, workload: ControlledWorkload) -> None:
        """A Deployment's, StatefulSet's or DaemonSet's template changed: a Deployment is synced as
        the release syncs it from now on; each StepEnd reports the rollout until it is complete."""
        if workload.kind == KIND_DEPLOYMENT:
            self.state.rolling.add(workload.key)
        ref = ObjectRef(workload.kind, workload.namespace, workload.name)
        if ref not in self.under_way:
            self.under_way.append(ref)
        for pod in self._pods_behind(workload):  # their availability now moves the rollout
            self.resyncs.expect_available(pod, self.clock.ms, self.under_way)

    def _pods_behind(self, workload: ControlledWorkload) -> list[Pod]:
        """The workload's pods (a Deployment's: its ReplicaSets')."""
        if workload.kind != KIND_DEPLOYMENT:
            return self.state.owned_pods(workload)
        return [pod for rs in deployment.owned_replica_sets(self.state, workload) for pod in self.state.owned_pods(rs)]

    def daemon_set_rolling(self) -> bool:
        return any(ref.kind == KIND_DAEMON_SET for ref in self.under_way)

    def statuses(self) -> list[RolloutStatus]:
        """The rollouts under way as the step went quiet; a complete one is reported once."""
        statuses: list[RolloutStatus] = []
        still: list[ObjectRef] = []
        for ref in self.under_way:
            workload = self.state.workload(ref)
            if workload is None:
                continue
            status = STATUS_VIEWERS[ref.kind](self.state, workload)
            statuses.append(status)
            if not status.complete:
                still.append(ref)
        self.under_way = still
        return statuses
