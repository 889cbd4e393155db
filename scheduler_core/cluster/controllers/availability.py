"""When a controller counts a pod available (podutil.IsPodAvailable with spec.minReadySeconds),
and when it looks again.

The kubelet stand-in makes a bound pod ready at its binding (its Ready condition's
lastTransitionTime, which the API serves in whole seconds). A pod is available once it is ready
and ``minReadySeconds`` have passed since then: ``lastTransitionTime + minReadySeconds`` strictly
before now. A pod bound in the scenario was ready before the run began, long enough: it is
available from the start. Every controller re-syncs a workload ``minReadySeconds + 1 s`` after
one of its pods became ready (the ReplicaSet's, StatefulSet's and DaemonSet's pod update handlers:
``enqueueAfter(minReadySeconds + 1 s)``, the second added against clock skew): that is when the
run wakes up to let them see the pod available.
"""

from __future__ import annotations

import heapq
from typing import Collection, Optional

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.model import (
    KIND_DAEMON_SET,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    POLICY_PARALLEL,
    ControlledWorkload,
    ObjectRef,
    Pod,
)

MS = 1000


def is_available(state: ClusterState, pod: Pod, min_ready_seconds: int) -> bool:
    """IsPodAvailable: running and ready, and ready for longer than ``min_ready_seconds``."""
    if not is_running(pod):
        return False
    ready_ms = state.bound_ms.get(pod.key)
    if min_ready_seconds == 0 or ready_ms is None:
        return True
    return ready_ms // MS * MS + min_ready_seconds * MS < state.now_ms


def resync_ms(state: ClusterState, pod: Pod, min_ready_seconds: int) -> Optional[int]:
    """When the pod's controller syncs again to find it available (None: no wait to make)."""
    ready_ms = state.bound_ms.get(pod.key)
    if min_ready_seconds == 0 or ready_ms is None:
        return None
    return ready_ms + (min_ready_seconds + 1) * MS


def owner_to_resync(state: ClusterState, pod: Pod, rollouts: Collection[ObjectRef]) -> Optional[ControlledWorkload]:
    """The controller whose progress the pod's availability moves, if it waits for it: a
    ReplicaSet of a Deployment rolling out, a StatefulSet rolling out or going OrderedReady, a
    DaemonSet rolling out (``rollouts``: the rollouts under way) — and only with minReadySeconds."""
    ref = next((r for r in pod.owner_references if r.controller), None)
    owner = state.workload(ObjectRef(ref.kind, pod.namespace, ref.name)) if ref is not None else None
    if owner is None or owner.min_ready_seconds == 0:
        return None
    rolling = ObjectRef(owner.kind, owner.namespace, owner.name) in rollouts
    if owner.kind == KIND_REPLICA_SET:
        deploys = owner.owner is not None and f"{owner.namespace}/{owner.owner.name}" in state.rolling
        return owner if deploys else None
    if owner.kind == KIND_STATEFUL_SET:
        return owner if rolling or owner.pod_management_policy != POLICY_PARALLEL else None
    return owner if owner.kind == KIND_DAEMON_SET and rolling else None


class Resyncs:
    """The controllers' re-syncs to find a pod available (the pod update handlers'
    ``enqueueAfter(minReadySeconds + 1 s)``): when the run wakes up for them, soonest first."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self._due: list[int] = []  # a heap of times

    def expect_available(self, pod: Pod, now_ms: int, rollouts: Collection[ObjectRef]) -> None:
        """A pod became ready (the kubelet stand-in: at its binding): when its availability moves
        its controller, that controller's resync is a time to wake up."""
        owner = owner_to_resync(self.state, pod, rollouts)
        if owner is None:
            return
        self.state.now_ms = now_ms
        at = resync_ms(self.state, pod, owner.min_ready_seconds)
        if at is not None and at > self.state.now_ms:
            heapq.heappush(self._due, at)

    def next_ms(self) -> Optional[int]:
        return self._due[0] if self._due else None

    def take_due(self, now_ms: int) -> bool:
        """Whether a resync is due by ``now_ms`` (all of those due are taken)."""
        due = bool(self._due) and self._due[0] <= now_ms
        while self._due and self._due[0] <= now_ms:
            heapq.heappop(self._due)
        return due
