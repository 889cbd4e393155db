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

from typing import Optional

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.model import Pod

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
