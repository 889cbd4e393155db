"""getPodsToDelete's ranking (ActivePodsWithRanks of v1.35) and SchedLab's fixed tie-break."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Optional

import pytest

from scheduler_core.cluster.controllers import ranking
from scheduler_core.model import OwnerReference, Pod
from tests.scheduler_core.builders import cluster_state, controlled_workload

DEPLOYMENT = OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")


def _pod(
    name: str,
    owner: str,
    node: str = "",
    created_ms: int = 0,
    bound_ms: Optional[int] = None,
    cost: int = 0,
    labels: Optional[dict] = None,
) -> tuple:
    ref = OwnerReference("ReplicaSet", owner, "apps/v1", True, f"uid-{owner}")
    pod = Pod(name, labels=labels or {"app": owner}, node_name=node, owner_references=(ref,), phase="Pending")
    return pod, created_ms, bound_ms, cost


def _rank(pods: list[tuple], count: int, now_ms: int, owned: bool = True) -> list[str]:
    """Rank the pods of ReplicaSet "new" (owned by Deployment web unless ``owned`` is False),
    with an old ReplicaSet "old" of the same Deployment."""
    new = controlled_workload("ReplicaSet", "new", replicas=1, owner=DEPLOYMENT if owned else None)
    old = controlled_workload("ReplicaSet", "old", replicas=1, owner=DEPLOYMENT)
    state = cluster_state(pods=[p for p, *_ in pods], workloads=[new, old])
    for pod, created_ms, bound_ms, cost in pods:
        state.created_ms[pod.key] = created_ms
        if bound_ms is not None:
            state.bound_ms[pod.key] = bound_ms
        if cost:
            state.deletion_costs[pod.key] = cost
    state.now_ms = now_ms
    active = [p for p, *_ in pods if p.owner_references[0].name == "new"]
    return [pod.name for pod in ranking.pods_to_delete(state, new, active, count)]


CASES = [
    pytest.param(
        [_pod("a", "new", "n1"), _pod("b", "new")],
        1,
        1000,
        True,
        ["b"],
        id="an unassigned pod goes before an assigned one, however old",
    ),
    pytest.param(
        [_pod("a", "new", "n1", cost=-5), _pod("b", "new", "n2"), _pod("c", "new", "n2")],
        1,
        1000,
        True,
        ["a"],
        id="a lower pod-deletion-cost goes before a pod on a crowded node",
    ),
    pytest.param(
        [_pod("a", "new", "n1", cost=5), _pod("b", "new", "n2", cost=5), _pod("c", "new", "n2", cost=5)],
        1,
        1000,
        True,
        ["c"],
        id="with equal costs a pod sharing its node with a related pod goes first",
    ),
    pytest.param(
        [_pod("a", "new", "n1", created_ms=9000), _pod("b", "new", "n2"), _pod("x", "old", "n2")],
        1,
        10000,
        True,
        ["b"],
        id="the old ReplicaSet's pods of the same Deployment crowd a node too (related pods)",
    ),
    pytest.param(
        [_pod("a", "new", "n1", created_ms=9000), _pod("b", "new", "n2"), _pod("x", "old", "n2")],
        1,
        10000,
        False,
        ["a"],
        id="a ReplicaSet without a controller has no related pods: the newer pod goes first",
    ),
    pytest.param(
        [_pod("a", "new", "n1", created_ms=0, bound_ms=9000), _pod("b", "new", "n2", created_ms=5000, bound_ms=5000)],
        1,
        10000,
        True,
        ["a"],
        id="of two ready pods the one ready for less time goes first",
    ),
    pytest.param(
        [_pod("b", "new", "n1", created_ms=0), _pod("a", "new", "n2", created_ms=10000)],
        1,
        30000,
        True,
        ["a"],
        id="ages 30 s and 20 s share a power-of-two bucket: the fixed tie-break takes the newer",
    ),
    pytest.param(
        [_pod("a", "new", "n1", created_ms=900), _pod("b", "new", "n2", created_ms=100)],
        1,
        1000,
        True,
        ["a"],
        id="creation times equal to the second: the newer to the millisecond goes first",
    ),
    pytest.param(
        [_pod("a", "new", "n1"), _pod("b", "new", "n2")],
        1,
        1000,
        True,
        ["b"],
        id="pods equal in every rule go by name descending",
    ),
    pytest.param(
        [_pod("a", "new", "n1"), _pod("b", "new", "n2")],
        2,
        1000,
        True,
        ["a", "b"],
        id="deleting every pod needs no ranking",
    ),
]


@pytest.mark.parametrize(("pods", "count", "now_ms", "owned", "expected"), CASES)
def test_it_ranks_the_pods_to_delete_as_the_release_does(pods, count, now_ms, owned, expected):
    assert _rank(pods, count, now_ms, owned) == expected


def test_a_bucket_difference_outranks_the_exact_creation_time():
    """logarithmicRankDiff: ages 1 s and 3 s fall in buckets 29 and 31: the younger goes first,
    even when the fixed tie-break (name descending) would have picked the other."""
    assert _rank([_pod("z", "new", "n1", created_ms=1000), _pod("a", "new", "n2", created_ms=3000)], 1, 4000, True) == [
        "a"
    ]


@pytest.mark.parametrize(
    ("annotations", "cost"),
    [
        pytest.param({}, 0, id="no annotation costs 0"),
        pytest.param({ranking.ANN_DELETION_COST: "-7"}, -7, id="a negative integer is read"),
        pytest.param({ranking.ANN_DELETION_COST: "+12"}, 0, id="a leading plus fails validFirstDigit"),
        pytest.param({ranking.ANN_DELETION_COST: "007"}, 0, id="a leading zero fails validFirstDigit"),
        pytest.param({ranking.ANN_DELETION_COST: "0"}, 0, id="zero alone is read"),
        pytest.param({ranking.ANN_DELETION_COST: "-007"}, -7, id="a minus sign passes validFirstDigit, then ParseInt"),
        pytest.param({ranking.ANN_DELETION_COST: "-"}, 0, id="a minus sign alone is not an integer"),
        pytest.param({ranking.ANN_DELETION_COST: "1_000"}, 0, id="an underscore is not a Go integer"),
        pytest.param({ranking.ANN_DELETION_COST: " 5"}, 0, id="a space is not a Go integer"),
        pytest.param({ranking.ANN_DELETION_COST: "2147483648"}, 0, id="a value beyond int32 is ignored"),
        pytest.param({ranking.ANN_DELETION_COST: 5}, 0, id="a value that is not a string is ignored"),
    ],
)
def test_it_reads_the_deletion_cost_as_get_deletion_cost_from_pod_annotations(annotations, cost):
    assert ranking.deletion_cost(annotations) == cost


# ---------------------------------------------------------------------------- the release's table
# pkg/controller/controller_utils_test.go TestSortingActivePodsWithRanks (v1.35 defaults:
# PodDeletionCost and LogarithmicScaleDown on), transcribed: pod(name, node, phase, ready,
# restarts, readySince, created, cost); Less compared both ways with the release's UID tie-break
# (every UID empty, as upstream). Its case 14, with PodDeletionCost disabled, is not v1.35's
# default and is left out. "1 month" is 30 days (AddDate(0, -1, 0); the same power-of-two bucket).

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
MONTH, H2, H5, H8 = (
    NOW - timedelta(days=30),
    NOW - timedelta(hours=2),
    NOW - timedelta(hours=5),
    NOW - timedelta(hours=8),
)


def _ranked(name, node, phase, ready, restarts, ready_since, created, cost=0):
    return ranking.RankedPod(name, node, phase, ready, ready_since if ready else None, created, cost, 0, restarts)


UNSCHEDULED = _ranked("unscheduled", "", "Pending", False, 0, None, None)
SCHEDULED_PENDING = _ranked("pending", "node", "Pending", False, 0, None, None)
UNKNOWN_PHASE = _ranked("unknown-phase", "node", "Unknown", False, 0, None, None)
RUNNING_NOT_READY = _ranked("not-ready", "node", "Running", False, 0, None, None)
READY_NO_TRANSITION = _ranked("ready-no-last-transition-time", "node", "Running", True, 0, None, None)
READY_NOW = _ranked("ready-now", "node", "Running", True, 0, NOW, NOW)
READY_THEN = _ranked("ready-then", "node", "Running", True, 0, MONTH, MONTH)
READY_HIGH_RESTARTS = _ranked("ready-high-restarts", "node", "Running", True, 9001, NOW, NOW)
READY_NOW_CREATED_THEN = _ranked("ready-now-created-then", "node", "Running", True, 0, NOW, MONTH)
LOW_COST = _ranked("low-deletion-cost", "node", "Running", True, 0, NOW, MONTH, 10)
HIGH_COST = _ranked("high-deletion-cost", "node", "Running", True, 0, NOW, MONTH, 100)
UNSCHEDULED_5H = _ranked("unscheduled-5-hours", "", "Pending", False, 0, H5, H5)
UNSCHEDULED_8H = _ranked("unscheduled-10-hours", "", "Pending", False, 0, H8, H8)
READY_2H = _ranked("ready-2-hours", "", "Running", True, 0, H2, MONTH)
READY_5H = _ranked("ready-5-hours", "", "Running", True, 0, H5, MONTH)
READY_10H = _ranked("ready-10-hours", "", "Running", True, 0, H8, MONTH)


def _less(first, second) -> bool:
    return ranking.compare(first, second, NOW, ranking.uid_tie_break) < 0


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(p1, p2, id=f"Equality tests {i}")
        for i, (p1, p2) in enumerate(
            [
                (UNSCHEDULED, UNSCHEDULED),
                (SCHEDULED_PENDING, SCHEDULED_PENDING),
                (UNKNOWN_PHASE, UNKNOWN_PHASE),
                (RUNNING_NOT_READY, RUNNING_NOT_READY),
                (READY_NOW_CREATED_THEN, READY_NOW_CREATED_THEN),
                (READY_NOW, READY_NOW),
                (READY_THEN, READY_THEN),
                (READY_HIGH_RESTARTS, READY_HIGH_RESTARTS),
                (READY_NOW_CREATED_THEN, READY_NOW_CREATED_THEN),
                (UNSCHEDULED_5H, UNSCHEDULED_8H),
                (READY_5H, READY_10H),
            ]
        )
    ],
)
def test_sorting_active_pods_with_ranks_equality(first, second):
    first, second = replace(first, rank=1), replace(second, rank=1)
    assert not _less(first, second) and not _less(second, first)


@pytest.mark.parametrize(
    ("lesser", "greater"),
    [
        pytest.param(lesser, greater, id=f"Inequality tests {i}")
        for i, (lesser, greater) in zip(
            [*range(14), 15],
            [
                ((UNSCHEDULED, 1), (SCHEDULED_PENDING, 2)),
                ((UNSCHEDULED, 2), (SCHEDULED_PENDING, 1)),
                ((SCHEDULED_PENDING, 1), (UNKNOWN_PHASE, 2)),
                ((UNKNOWN_PHASE, 1), (RUNNING_NOT_READY, 2)),
                ((RUNNING_NOT_READY, 1), (READY_NO_TRANSITION, 1)),
                ((READY_NO_TRANSITION, 1), (READY_NOW, 1)),
                ((READY_NOW, 2), (READY_NO_TRANSITION, 1)),
                ((READY_NOW, 1), (READY_THEN, 1)),
                ((READY_NOW, 2), (READY_THEN, 1)),
                ((READY_HIGH_RESTARTS, 1), (READY_NOW, 1)),
                ((READY_NOW, 2), (READY_HIGH_RESTARTS, 1)),
                ((READY_NOW, 1), (READY_NOW_CREATED_THEN, 1)),
                ((READY_NOW_CREATED_THEN, 2), (READY_NOW, 1)),
                ((LOW_COST, 2), (HIGH_COST, 1)),
                ((READY_2H, 1), (READY_5H, 1)),
            ],
        )
    ],
)
def test_sorting_active_pods_with_ranks_inequality(lesser, greater):
    lesser, greater = replace(lesser[0], rank=lesser[1]), replace(greater[0], rank=greater[1])
    assert _less(lesser, greater) and not _less(greater, lesser)


# pkg/controller/replicaset/replica_set_test.go TestGetPodsToDelete: getPodsToDelete(pods,
# related, diff), related defaulting to the pods; a ready pod's Ready condition has no
# lastTransitionTime and no pod a creationTimestamp (newPod), so equal pods keep their order.
U_PENDING = _ranked("unscheduled-pending-pod", "", "Pending", False, 0, None, None)
S_PENDING = _ranked("scheduled-pending-pod", "fake-node", "Pending", False, 0, None, None)
NOT_READY = _ranked("scheduled-running-not-ready-pod", "fake-node", "Running", False, 0, None, None)
READY_1 = _ranked("scheduled-running-ready-pod-on-node-1", "fake-node-1", "Running", True, 0, None, None)
READY_2 = _ranked("scheduled-running-ready-pod-on-node-2", "fake-node-2", "Running", True, 0, None, None)


@pytest.mark.parametrize(
    ("pods", "related", "diff", "expected"),
    [
        pytest.param([], None, 0, [], id="len(pods) = 0 (i.e., diff = 0 too)"),
        pytest.param([NOT_READY, READY_1], None, 2, [NOT_READY, READY_1], id="diff = len(pods)"),
        pytest.param([READY_1, NOT_READY], None, 1, [NOT_READY], id="diff < len(pods)"),
        pytest.param(
            [READY_1, READY_1, READY_2, NOT_READY, S_PENDING, U_PENDING],
            None,
            6,
            [READY_1, READY_1, READY_2, NOT_READY, S_PENDING, U_PENDING],
            id="various pod phases and conditions, diff = len(pods)",
        ),
        pytest.param(
            [READY_1, READY_1, READY_2, NOT_READY, S_PENDING, U_PENDING],
            [],
            6,
            [READY_1, READY_1, READY_2, NOT_READY, S_PENDING, U_PENDING],
            id="various pod phases and conditions, diff = len(pods), relatedPods empty",
        ),
        pytest.param([S_PENDING, U_PENDING], None, 1, [U_PENDING], id="scheduled vs unscheduled, diff < len(pods)"),
        pytest.param(
            [READY_1, NOT_READY, NOT_READY], None, 2, [NOT_READY, NOT_READY], id="ready vs not-ready, diff < len(pods)"
        ),
        pytest.param(
            [READY_1, READY_2],
            [READY_1, READY_2, READY_2],
            1,
            [READY_2],
            id="ready and colocated with another ready pod vs not colocated, diff < len(pods)",
        ),
        pytest.param([S_PENDING, NOT_READY], None, 1, [S_PENDING], id="pending vs running, diff < len(pods)"),
        pytest.param(
            [READY_1, READY_2, NOT_READY, S_PENDING, U_PENDING],
            None,
            3,
            [U_PENDING, S_PENDING, NOT_READY],
            id="various pod phases and conditions, diff < len(pods)",
        ),
    ],
)
def test_get_pods_to_delete(pods, related, diff, expected):
    related = pods if related is None else related
    on_node = Counter(pod.node_name for pod in related)  # every related pod here is active

    def keep_order(a, b) -> int:  # equal pods: the release's sort leaves them, here, as given
        return 0

    chosen = ranking.rank_for_deletion(pods, on_node, diff, NOW, keep_order)
    assert [pod.name for pod in chosen] == [pod.name for pod in expected]
