"""framework/nominated_additions.py: the nominated pods the nominated pass on numbers adds per node,
shared by the pods of one priority, a nominated pod's own entry made again without it."""

from __future__ import annotations

import numpy as np

from scheduler_core.backend.queue.nominator import NominatingInfo, Nominator
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.nominated_additions import NominatedAdditions
from tests.scheduler_core.builders import make_pod

INDEX = {"n1": 0, "n2": 1, "n3": 2}


def _nominated(*pods_and_nodes):
    nominator = Nominator(lambda pod: bool(pod.node_name))
    for pod, node in pods_and_nodes:
        nominator.add_nominated_pod(pod, NominatingInfo(node))
    additions = NominatedAdditions(nominator, PodInfo)
    return nominator, additions


def _nodes(nominator):
    return lambda: {node for node in nominator.nodes_with_nominated_pods() if node in INDEX}


def _as_sets(found):
    return {node: {pod.key for pod in pods} for node, pods in found.entries}


def test_pods_of_one_priority_share_the_answer_and_lower_priority_nominees_are_left_out():
    high, low = make_pod("high", priority=10, requests={"cpu": 300}), make_pod("low", priority=0, requests={"cpu": 100})
    nominator, additions = _nominated((high, "n1"), (low, "n2"))
    first, twin = make_pod("a", priority=5), make_pod("b", priority=5)
    found = additions.of(first, INDEX, _nodes(nominator))
    assert additions.of(twin, INDEX, _nodes(nominator)) is found
    assert _as_sets(found) == {"n1": {"default/high"}}
    assert found.positions.tolist() == [0]
    totals, counts = additions.requests(found, ("cpu",))
    assert (totals.tolist(), counts.tolist()) == ([[300]], [1])


def test_a_nominated_pod_is_not_added_on_its_own_node_and_the_sums_follow():
    a = make_pod("a", priority=5, requests={"cpu": 200})
    b = make_pod("b", priority=5, requests={"cpu": 400})
    c = make_pod("c", priority=5, requests={"cpu": 800})
    nominator, additions = _nominated((a, "n1"), (b, "n1"), (c, "n2"))
    shared = additions.of(make_pod("twin", priority=5), INDEX, _nodes(nominator))
    rows = {node: row for row, (node, _) in enumerate(shared.entries)}
    totals, counts = additions.requests(shared, ("cpu",))
    assert totals[rows["n1"]].tolist() == [600] and counts[rows["n1"]] == 2
    own = additions.of(a, INDEX, _nodes(nominator))
    assert _as_sets(own) == {"n1": {"default/b"}, "n2": {"default/c"}}
    own_totals, own_counts = additions.requests(own, ("cpu",))
    assert own_totals[rows["n1"]].tolist() == [400] and own_counts[rows["n1"]] == 1
    assert totals[rows["n1"]].tolist() == [600], "the shared sums are left as they were"
    alone = additions.of(c, INDEX, _nodes(nominator))  # its node's entry is dropped
    assert _as_sets(alone) == {"n1": {"default/a", "default/b"}}
    assert alone.positions.tolist() == [0]
    alone_totals, alone_counts = additions.requests(alone, ("cpu",))
    assert (alone_totals.tolist(), alone_counts.tolist()) == ([[600]], [2])


def test_a_change_of_who_is_nominated_where_makes_the_answer_again_and_a_renomination_does_not():
    a, b = make_pod("a", priority=5), make_pod("b", priority=5)
    nominator, additions = _nominated((a, "n1"))
    asking = make_pod("twin", priority=5)
    found = additions.of(asking, INDEX, _nodes(nominator))
    nominator.add_nominated_pod(a, NominatingInfo("n1"))  # a failed attempt nominates it again
    assert additions.of(asking, INDEX, _nodes(nominator)) is found
    nominator.add_nominated_pod(b, NominatingInfo("n3"))
    again = additions.of(asking, INDEX, _nodes(nominator))
    assert again is not found and _as_sets(again) == {"n1": {"default/a"}, "n3": {"default/b"}}
    assert np.sort(again.positions).tolist() == [0, 2]
