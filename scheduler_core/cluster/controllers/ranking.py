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
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cmp_to_key
from itertools import groupby
from typing import Callable, Optional

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import KIND_REPLICA_SET, ControlledWorkload, Pod

ANN_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
# podPhaseToOrdinal: Pending 0, Unknown 1, Running 2 (any other phase counts as 0).
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
# validFirstDigit then strconv.ParseInt(value, 10, 32): no plus sign, no leading zero ("0" alone).
_INTEGER = re.compile(r"-[0-9]+|0|[1-9][0-9]*")


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
    by_key = {pod.key: pod for pod in active}
    ranked = [ranked_pod(state, pod, 0) for pod in active]
    chosen = rank_for_deletion(ranked, on_node, count, now, fixed_tie_break)
    return [by_key[f"{active[0].namespace}/{pod.name}"] for pod in chosen]


def rank_for_deletion(
    pods: list[RankedPod], related_on_node: Counter[str], count: int, now: datetime, tie_break: TieBreak
) -> list[RankedPod]:
    """getPodsToDelete with getPodsRankedByRelatedPodsOnSameNode: unless every pod goes, each
    pod's rank is the related active pods on its node, and the pods are sorted by
    ActivePodsWithRanks.Less (``compare``; equal pods then in ``tie_break``'s order, where the
    release's sort is unstable)."""
    if count >= len(pods):
        return list(pods[:count])
    ranked = sorted((replace(pod, rank=related_on_node[pod.node_name]) for pod in pods), key=_first_rules)

    def order(a: RankedPod, b: RankedPod) -> int:
        return compare(a, b, now, tie_break) or tie_break(a, b)

    # Rules 1-5 order by a key; only pods equal on them need the pairwise rules after (fewer calls).
    chosen: list[RankedPod] = []
    for _, group in groupby(ranked, key=_first_rules):
        chosen.extend(sorted(group, key=cmp_to_key(order)))
        if len(chosen) >= count:
            break
    return chosen[:count]


def _first_rules(pod: RankedPod) -> tuple[bool, int, bool, int, int]:
    """compare's rules 1-5 as a key: unassigned, phase, not ready, lower cost, more related pods first."""
    return bool(pod.node_name), _PHASE_ORDINAL.get(pod.phase, 0), pod.ready, pod.cost, -pod.rank


@dataclass(frozen=True, slots=True)
class RankedPod:
    """What ActivePodsWithRanks.Less reads of a pod: its node, phase, readiness and the Ready
    condition's lastTransitionTime, container restarts, creationTimestamp (times as the API serves
    them: whole seconds), pod-deletion-cost and rank (related pods on its node); ``uid`` and
    ``created_exact`` only break ties."""

    name: str
    node_name: str
    phase: str
    ready: bool
    ready_since: Optional[datetime]
    created: Optional[datetime]
    cost: int = 0
    rank: int = 0
    restarts: int = 0
    uid: str = ""
    created_exact: Optional[datetime] = None


TieBreak = Callable[[RankedPod, RankedPod], int]


def uid_tie_break(a: RankedPod, b: RankedPod) -> int:
    """The release's: the pods' UIDs (random in a real cluster)."""
    return -1 if a.uid < b.uid else 0 if a.uid == b.uid else 1


def fixed_tie_break(a: RankedPod, b: RankedPod) -> int:
    """SchedLab's in place of the random UIDs: the newer creationTimestamp (to the millisecond)
    first, then the name descending."""
    if a.created_exact != b.created_exact and a.created_exact is not None and b.created_exact is not None:
        return -1 if a.created_exact > b.created_exact else 1
    return -1 if a.name > b.name else 0 if a.name == b.name else 1


def ranked_pod(state: ClusterState, pod: Pod, rank: int) -> RankedPod:
    """The kubelet stand-in's pod: a bound pod runs and is ready from its binding; no restarts."""
    running = is_running(pod)
    phase = "Running" if running else pod.phase if pod.node_name else "Pending"
    created = state.created(pod)
    return RankedPod(
        pod.name,
        pod.node_name,
        phase,
        running,
        state.ready_since(pod) if running else None,
        _seconds(created),
        state.deletion_costs.get(pod.key, 0),
        rank,
        0,
        pod.uid,
        created,
    )


def compare(a: RankedPod, b: RankedPod, now: datetime, tie_break: TieBreak) -> int:
    """ActivePodsWithRanks.Less as a comparison (negative: ``a`` is deleted first; 0: neither is
    less), rule by rule; where the release compares UIDs, ``tie_break`` decides."""
    if a.node_name != b.node_name and (not a.node_name or not b.node_name):
        return -1 if not a.node_name else 1
    for left, right in (
        (_PHASE_ORDINAL.get(a.phase, 0), _PHASE_ORDINAL.get(b.phase, 0)),
        (a.ready, b.ready),
        (a.cost, b.cost),
        (-a.rank, -b.rank),
    ):
        if left != right:
            return -1 if left < right else 1
    if a.ready and b.ready and _seconds(a.ready_since) != _seconds(b.ready_since):
        return _by_age(_seconds(a.ready_since), _seconds(b.ready_since), now, a, b, tie_break)
    if a.restarts != b.restarts:
        return -1 if a.restarts > b.restarts else 1
    if a.created != b.created:
        return _by_age(a.created, b.created, now, a, b, tie_break)
    return 0


def _by_age(
    first: Optional[datetime],
    second: Optional[datetime],
    now: datetime,
    a: RankedPod,
    b: RankedPod,
    tie_break: TieBreak,
) -> int:
    """LogarithmicScaleDown: a zero time first (afterOrZero), else the younger power-of-two bucket
    of age in nanoseconds first, the same bucket decided by the tie-break."""
    if first is None or second is None:
        return -1 if first is None else 1
    difference = _age_bucket(first, now) - _age_bucket(second, now)
    if difference == 0:
        return tie_break(a, b)
    return -1 if difference < 0 else 1


def _seconds(when: Optional[datetime]) -> Optional[datetime]:
    """A time as the API serves it (metav1.Time: whole seconds)."""
    return when.replace(microsecond=0) if when is not None else None


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
    return [
        rs
        for rs in state.workloads
        if rs.kind == KIND_REPLICA_SET
        and rs.namespace == replica_set.namespace
        and rs.owner is not None
        and rs.owner.kind == owner.kind
        and rs.owner.name == owner.name
        and rs.owner.uid == owner.uid
    ]


def _age_bucket(when: datetime, now: datetime) -> int:
    """logarithmicRankDiff's rank: the power-of-two bucket of the age in nanoseconds (an age of 0
    or less is bucket -1)."""
    age = now - when
    nanoseconds = age // timedelta(microseconds=1) * 1000
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1
