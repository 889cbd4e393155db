"""The ReplicaSet stand-in (pkg/controller/replicaset: manageReplicas, getPodsToDelete), also
used by the Job stand-in for its parallelism (../shared/spec/CHANGES.md)."""

from __future__ import annotations

from typing import Optional

from scheduler_core.cluster.controllers import ranking
from scheduler_core.cluster.controllers.pods import make_pod, pod_manifest
from scheduler_core.cluster.controllers.state import ClusterState, CreatePod, DeletePod, Write
from scheduler_core.model import ControlledWorkload, Pod


def reconcile(
    state: ClusterState,
    workload: ControlledWorkload,
    wanted: Optional[int] = None,
    extra_labels: Optional[dict[str, str]] = None,
) -> list[Write]:
    """manageReplicas: the active pods (owned, matching, not terminating, not finished) against
    the wanted count; missing pods are created one at a time, surplus ones deleted."""
    wanted = workload.replicas if wanted is None else wanted
    state.unobserved.discard(workload.key)  # status.observedGeneration: this sync saw the spec
    active = [pod for pod in state.owned_pods(workload) if not pod.is_terminating]
    by = f"{workload.kind} {workload.key}"
    if len(active) < wanted:
        return [CreatePod(new_pod(state, workload, extra_labels or {}), by) for _ in range(wanted - len(active))]
    if len(active) == wanted:
        return []
    return [DeletePod(pod, by) for pod in ranking.pods_to_delete(state, workload, active, len(active) - wanted)]


def next_name(state: ClusterState, workload: ControlledWorkload) -> str:
    """``<workload>-<k>``, k counting up from 1 for this workload over the whole run, skipping
    names in use (the release uses generateName's random suffix)."""
    k = state.name_counters.get(workload.key, 0)
    while True:
        k += 1
        name = f"{workload.name}-{k}"
        if not state.name_in_use(workload.namespace, name):
            state.name_counters[workload.key] = k
            return name


def new_pod(state: ClusterState, workload: ControlledWorkload, labels: dict[str, str]) -> Pod:
    name = next_name(state, workload)
    pod = make_pod(
        pod_manifest(workload, name, labels), state.pod_count, state.priority_classes, workload.line, state.gates
    )
    state.add_pod(pod)  # known at once: the next name skips it
    state.created_ms[pod.key] = state.now_ms
    cost = ranking.deletion_cost((workload.template.get("metadata") or {}).get("annotations") or {})
    if cost:
        state.deletion_costs[pod.key] = cost
    return pod
