"""getPodsToDelete's ranking (ActivePodsWithRanks of v1.35) and SchedLab's fixed tie-break."""

from __future__ import annotations

from typing import Optional

import pytest

from scheduler_core.cluster.controllers import ranking
from scheduler_core.model import OwnerReference, Pod
from tests.scheduler_core.builders import cluster_state, controlled_workload

DEPLOYMENT = OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")


def _pod(name: str, owner: str, node: str = "", created_ms: int = 0, bound_ms: Optional[int] = None,
         cost: int = 0, labels: Optional[dict] = None) -> tuple:
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
    pytest.param([_pod("a", "new", "n1"), _pod("b", "new")], 1, 1000, True, ["b"],
                 id="an unassigned pod goes before an assigned one, however old"),
    pytest.param([_pod("a", "new", "n1", cost=-5), _pod("b", "new", "n2"), _pod("c", "new", "n2")], 1, 1000, True,
                 ["a"], id="a lower pod-deletion-cost goes before a pod on a crowded node"),
    pytest.param([_pod("a", "new", "n1", cost=5), _pod("b", "new", "n2", cost=5), _pod("c", "new", "n2", cost=5)],
                 1, 1000, True, ["c"], id="with equal costs a pod sharing its node with a related pod goes first"),
    pytest.param([_pod("a", "new", "n1", created_ms=9000), _pod("b", "new", "n2"), _pod("x", "old", "n2")],
                 1, 10000, True, ["b"],
                 id="the old ReplicaSet's pods of the same Deployment crowd a node too (related pods)"),
    pytest.param([_pod("a", "new", "n1", created_ms=9000), _pod("b", "new", "n2"), _pod("x", "old", "n2")],
                 1, 10000, False, ["a"],
                 id="a ReplicaSet without a controller has no related pods: the newer pod goes first"),
    pytest.param([_pod("a", "new", "n1", created_ms=0, bound_ms=9000), _pod("b", "new", "n2", created_ms=5000,
                                                                            bound_ms=5000)],
                 1, 10000, True, ["a"], id="of two ready pods the one ready for less time goes first"),
    pytest.param([_pod("b", "new", "n1", created_ms=0), _pod("a", "new", "n2", created_ms=10000)],
                 1, 30000, True, ["a"],
                 id="ages 30 s and 20 s share a power-of-two bucket: the fixed tie-break takes the newer"),
    pytest.param([_pod("a", "new", "n1", created_ms=900), _pod("b", "new", "n2", created_ms=100)],
                 1, 1000, True, ["a"],
                 id="creation times equal to the second: the newer to the millisecond goes first"),
    pytest.param([_pod("a", "new", "n1"), _pod("b", "new", "n2")], 1, 1000, True, ["b"],
                 id="pods equal in every rule go by name descending"),
    pytest.param([_pod("a", "new", "n1"), _pod("b", "new", "n2")], 2, 1000, True, ["a", "b"],
                 id="deleting every pod needs no ranking"),
]


@pytest.mark.parametrize(("pods", "count", "now_ms", "owned", "expected"), CASES)
def test_it_ranks_the_pods_to_delete_as_the_release_does(pods, count, now_ms, owned, expected):
    assert _rank(pods, count, now_ms, owned) == expected


def test_a_bucket_difference_outranks_the_exact_creation_time():
    """logarithmicRankDiff: ages 1 s and 3 s fall in buckets 29 and 31: the younger goes first,
    even when the fixed tie-break (name descending) would have picked the other."""
    assert _rank([_pod("z", "new", "n1", created_ms=1000), _pod("a", "new", "n2", created_ms=3000)],
                 1, 4000, True) == ["a"]


@pytest.mark.parametrize(("annotations", "cost"), [
    pytest.param({}, 0, id="no annotation costs 0"),
    pytest.param({ranking.ANN_DELETION_COST: "-7"}, -7, id="a negative integer is read"),
    pytest.param({ranking.ANN_DELETION_COST: "+12"}, 12, id="a leading plus is read as ParseInt reads it"),
    pytest.param({ranking.ANN_DELETION_COST: "1_000"}, 0, id="an underscore is not a Go integer"),
    pytest.param({ranking.ANN_DELETION_COST: " 5"}, 0, id="a space is not a Go integer"),
    pytest.param({ranking.ANN_DELETION_COST: "2147483648"}, 0, id="a value beyond int32 is ignored"),
    pytest.param({ranking.ANN_DELETION_COST: 5}, 0, id="a value that is not a string is ignored"),
])
def test_it_reads_the_deletion_cost_as_get_deletion_cost_from_pod_annotations(annotations, cost):
    assert ranking.deletion_cost(annotations) == cost
