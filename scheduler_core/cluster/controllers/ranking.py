"""Which pods a ReplicaSet deletes first when it has too many (pkg/controller/replicaset
getPodsToDelete, getPodsRankedByRelatedPodsOnSameNode; pkg/controller ActivePodsWithRanks).

The release sorts the surplus pods with a comparator whose rules, in order, prefer for deletion:
1. an unassigned pod over an assigned one;
2. a Pending pod over an Unknown one over a Running one;
3. a not-ready pod over a ready one;
4. a lower ``controller.kubernetes.io/pod-deletion-cost`` (PodDeletionCost, on by default);
5. a pod on a node crowded with related pods — the rank is the number of active pods of the
   ReplicaSets with the same controller (a Deployment's old and new ReplicaSets) on the pod's node;
   a ReplicaSet without a controller ranks every pod 0;
6. of two ready pods, the one ready for less time, in powers-of-two buckets of age
   (LogarithmicScaleDown; a zero time first);
7. more container restarts (SchedLab models none: always equal);
8. the newer pod, by creationTimestamp, in the same logarithmic buckets (a zero time first).
Timestamps are whole seconds, as the API serves them (metav1.Time drops the nanoseconds).

Where the release's answer is random — equal buckets with different times are ordered by the
pods' random UIDs, and equal pods keep the unspecified order of an unstable sort — SchedLab
fixes it as ../shared/spec/CHANGES.md does: the newer creationTimestamp (to the millisecond) first, then
the name descending.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Optional

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import KIND_REPLICA_SET, ControlledWorkload, Pod

ANN_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
# podPhaseToOrdinal: Pending 0, Unknown 1, Running 2 (any other phase counts as 0).
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_INTEGER = re.compile(r"[+-]?[0-9]+")  # what strconv.ParseInt(value, 10, 32) accepts


def deletion_cost(annotations: dict[str, str]) -> int:
    """GetDeletionCostFromPodAnnotations: the annotation as an int32; absent or invalid is 0
    (the API server refuses an invalid value, so the release never sees one)."""
    value = annotations.get(ANN_DELETION_COST)
    if not isinstance(value, str) or not _INTEGER.fullmatch(value):
        return 0
    cost = int(value)
    return cost if INT32_MIN <= cost <= INT32_MAX else 0


def pods_to_delete(state: ClusterState, replica_set: ControlledWorkload, active: list[Pod], count: int) -> list[Pod]:
    """getPodsToDelete: the first ``count`` of ``active`` in the ranking's order."""
    if count >= len(active):
        return list(active)
    on_node = colocated_counts(state, replica_set)
    now = state.epoch + timedelta(milliseconds=state.now_ms)
    by_name = sorted(active, key=lambda pod: pod.name, reverse=True)
    ranked = sorted(by_name, key=lambda pod: _sort_key(state, pod, on_node[pod.node_name], now))
    return ranked[:count]


def colocated_counts(state: ClusterState, replica_set: ControlledWorkload) -> Counter[str]:
    """getIndirectlyRelatedPods + getPodsRankedByRelatedPodsOnSameNode: per node name, the
    active pods matching the selector of any ReplicaSet with the same controller (each counted
    once)."""
    counts: Counter[str] = Counter()
    if replica_set.owner is None:
        return counts  # getReplicaSetsWithSameController: no controller, no related pods
    seen: set[str] = set()
    for related in _same_controller(state, replica_set):
        matcher = compile_selector(related.selector) if related.selector is not None else None
        for pod in state.pods_in(related.namespace):
            if pod.key in seen or not state.live(pod) or matcher is None or not matcher.matches(pod.labels):
                continue
            seen.add(pod.key)
            if not pod.is_terminating:
                counts[pod.node_name] += 1
    return counts


def _same_controller(state: ClusterState, replica_set: ControlledWorkload) -> list[ControlledWorkload]:
    owner = replica_set.owner
    assert owner is not None
    return [rs for rs in state.workloads if rs.kind == KIND_REPLICA_SET and rs.namespace == replica_set.namespace
            and rs.owner is not None and rs.owner.kind == owner.kind and rs.owner.name == owner.name
            and rs.owner.uid == owner.uid]


def _sort_key(state: ClusterState, pod: Pod, colocated: int, now: datetime) -> tuple[object, ...]:
    """The comparator's rules as one key (smaller: deleted first), then the fixed tie-break."""
    running = is_running(pod)
    ready = running
    created = state.created(pod)
    return (bool(pod.node_name), _phase_ordinal(pod, running), ready, state.deletion_costs.get(pod.key, 0),
            -colocated, _age_bucket(state.ready_since(pod), now) if ready else 0,
            _age_bucket(created, now), -created.timestamp())


def _phase_ordinal(pod: Pod, running: bool) -> int:
    """The kubelet stand-in: a bound pod runs from its binding; an unbound one is Pending."""
    if running:
        return _PHASE_ORDINAL["Running"]
    return _PHASE_ORDINAL.get(pod.phase, 0) if pod.node_name else 0


def _age_bucket(when: Optional[datetime], now: datetime) -> int:
    """logarithmicRankDiff as a key: the power-of-two bucket of the age in nanoseconds (an age
    of 0 or less is bucket -1), younger first. The time is truncated to the second, as the API
    serves it. (The release puts a zero time first; no pod of a run has one.)"""
    if when is None:
        return -1
    age = now - when.replace(microsecond=0)
    nanoseconds = age // timedelta(microseconds=1) * 1000
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1
