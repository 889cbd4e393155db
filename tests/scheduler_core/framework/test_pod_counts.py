"""PodCounts (scheduler_core/framework/pod_counts.py) against brute force while pods come and go."""

from __future__ import annotations

import random

import numpy as np

from scheduler_core.framework.node_info import NodeInfo, PodInfo, resolve_term
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import LabelSelector, LabelSelectorRequirement, PodAffinityTerm
from scheduler_core.framework.pod_counts import PodCounts, weighted_bincount
from tests.scheduler_core.builders import make_node, make_pod

NAMESPACES = ["default", "other", "undeclared"]
NAMESPACE_LABELS = {"default": {"team": "a"}, "other": {"team": "b", "env": "prod"}}


def _labels(rng: random.Random) -> dict:
    return {key: rng.choice(["x", "y", "z"]) for key in ("app", "tier", "color") if rng.random() < 0.6}


def _selector(rng: random.Random) -> LabelSelector:
    match_labels = tuple(
        sorted({k: rng.choice(["x", "y"]) for k in rng.sample(["app", "tier"], rng.randrange(3))}.items())
    )
    expressions = []
    if rng.random() < 0.4:
        expressions.append(
            rng.choice(
                [
                    LabelSelectorRequirement("color", "Exists"),
                    LabelSelectorRequirement("color", "NotIn", ("z",)),
                    LabelSelectorRequirement("tier", "In", ("y",)),
                    LabelSelectorRequirement("app", "In", ("x", "z")),
                ]
            )
        )
    return LabelSelector(match_labels, tuple(expressions))


def _namespace_selector(rng: random.Random):
    return rng.choice(
        [
            None,
            None,
            LabelSelector(),
            LabelSelector((("team", "a"),)),
            LabelSelector((), (LabelSelectorRequirement("env", "DoesNotExist"),)),
        ]
    )


def _term(rng: random.Random):
    owner = make_pod("owner", rng.choice(NAMESPACES))
    namespaces = tuple(rng.sample(NAMESPACES, rng.randrange(3)))
    return resolve_term(owner, PodAffinityTerm(_selector(rng), "host", namespaces, _namespace_selector(rng)))


def _brute(nodes, term) -> list[int]:
    return [
        sum(1 for p in info.pods if term.matches(p.pod, NAMESPACE_LABELS.get(p.pod.namespace, {}))) for info in nodes
    ]


def _labels_of(namespace: str) -> dict:
    return NAMESPACE_LABELS.get(namespace, {})


def test_term_arrays_follow_binds_and_removals():
    rng = random.Random(11)
    nodes = [NodeInfo(make_node(f"n{i}", {"host": f"n{i}"})) for i in range(15)]
    table = NodeTable(nodes)
    counts = PodCounts(max_selectors=5)
    terms = [_term(random.Random(seed)) for seed in range(20)]
    bound = []
    for step in range(300):
        for _ in range(rng.choice([0, 1, 1, 3])):
            if bound and rng.random() < 0.35:
                node, pod = bound.pop(rng.randrange(len(bound)))
                node.remove_pod(pod)
                table.version += 1
            else:
                node = rng.choice(nodes)
                pod = make_pod(f"p{step}", rng.choice(NAMESPACES), _labels(rng))
                info = PodInfo(pod)
                node.add_pod(info)
                table.add_pod(node.name, info)
                bound.append((node, pod))
        counts.sync(table)
        assert sorted(counts.namespaces) == sorted({p.pod.namespace for info in nodes for p in info.pods})
        for term in rng.sample(terms, 4):
            assert counts.term_array(term, _labels_of).tolist() == _brute(nodes, term), term
        chosen = rng.sample(terms, rng.choice([1, 2, 3]))
        expected = [
            sum(
                1 for p in info.pods if all(t.matches(p.pod, NAMESPACE_LABELS.get(p.pod.namespace, {})) for t in chosen)
            )
            for info in nodes
        ]
        assert counts.all_terms_array(chosen, _labels_of).tolist() == expected


def test_sync_reports_the_positions_it_recounted_and_resets_on_a_new_table():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(4)]
    table = NodeTable(nodes)
    counts = PodCounts()
    assert counts.sync(table) == [0, 1, 2, 3] and counts.epoch == 1
    assert counts.sync(table) == []
    info = PodInfo(make_pod("p", labels={"app": "x"}))
    nodes[2].add_pod(info)
    table.add_pod("n2", info)
    assert counts.sync(table) == [2]
    assert counts.matching(("default",), compile_selector(LabelSelector((("app", "x"),)))).tolist() == [0, 0, 1, 0]
    other = NodeTable(nodes)
    assert counts.sync(other) == [0, 1, 2, 3] and counts.epoch == 2


def _app_counts(counts: PodCounts, value: str) -> list[int]:
    return counts.matching(("default",), compile_selector(LabelSelector((("app", value),)))).tolist()


def test_a_second_index_of_the_same_table_is_copied_and_then_kept_apart():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(3)]
    for i, app in enumerate(["x", "x", "y"]):
        nodes[i].add_pod(PodInfo(make_pod(f"p{i}", labels={"app": app})))
    table = NodeTable(nodes)
    affinity, spread = PodCounts(), PodCounts(skip_terminating=True)
    affinity.sync(table)
    spread.sync(table)
    assert spread._by_pair == affinity._by_pair
    assert all(spread._by_pair[pair] is not nodes for pair, nodes in affinity._by_pair.items())  # copied
    info = PodInfo(make_pod("p3", labels={"app": "x"}))
    nodes[2].add_pod(info)
    table.add_pod("n2", info)
    assert spread.sync(table) == [2] and _app_counts(spread, "x") == [1, 1, 1]
    assert _app_counts(affinity, "x") == [1, 1, 0]  # not synced yet: the copy's change is its own
    assert affinity.sync(table) == [2] and _app_counts(affinity, "x") == [1, 1, 1]


def test_an_index_that_counts_terminating_pods_is_not_copied_for_one_that_does_not():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(2)]
    nodes[0].add_pod(PodInfo(make_pod("running", labels={"app": "x"})))
    nodes[1].add_pod(PodInfo(make_pod("leaving", labels={"app": "x"}, deletion_timestamp="2026-11-28T00:00:00Z")))
    table = NodeTable(nodes)
    affinity, spread = PodCounts(), PodCounts(skip_terminating=True)
    affinity.sync(table)
    spread.sync(table)
    assert _app_counts(affinity, "x") == [1, 1] and _app_counts(spread, "x") == [1, 0]


def test_a_namespace_selector_selects_undeclared_namespaces_only_when_empty():
    nodes = [NodeInfo(make_node("n0")), NodeInfo(make_node("n1"))]
    for i, namespace in enumerate(["undeclared", "other"]):
        info = PodInfo(make_pod(f"p{i}", namespace, {"app": "x"}))
        nodes[i].add_pod(info)
    table = NodeTable(nodes)
    counts = PodCounts()
    counts.sync(table)
    owner = make_pod("owner", "default")
    everything = resolve_term(owner, PodAffinityTerm(LabelSelector((("app", "x"),)), "h", (), LabelSelector()))
    prod = resolve_term(
        owner, PodAffinityTerm(LabelSelector((("app", "x"),)), "h", (), LabelSelector((("env", "prod"),)))
    )
    listed = resolve_term(
        owner, PodAffinityTerm(LabelSelector((("app", "x"),)), "h", ("undeclared",), LabelSelector((("env", "prod"),)))
    )
    own = resolve_term(owner, PodAffinityTerm(LabelSelector((("app", "x"),)), "h"))
    assert counts.term_array(everything, _labels_of).tolist() == [1, 1]
    assert counts.term_array(prod, _labels_of).tolist() == [0, 1]
    assert counts.term_array(listed, _labels_of).tolist() == [1, 1]
    assert counts.term_array(own, _labels_of).tolist() == [0, 0]


def test_weighted_bincount_skips_nodes_without_the_key_and_empty_values():
    codes = np.array([0, 1, -1, 0, 2, 1], dtype=np.int32)
    per_node = np.array([2, 0, 5, 1, 0, 3], dtype=np.int64)
    found, sums = weighted_bincount(codes, per_node)
    assert found.tolist() == [0, 1] and sums.tolist() == [3, 3]
    found, sums = weighted_bincount(codes, np.zeros(6, dtype=np.int64))
    assert found.tolist() == [] and sums.tolist() == []


def test_positions_of_nodes_gathered_from_the_table_are_the_positions_they_came_from():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(5)]
    table = NodeTable(nodes)
    counts = PodCounts()
    counts.sync(table)
    wanted = np.asarray([3, 0, 4], dtype=np.int64)
    gathered = table.infos_at(wanted)
    assert list(gathered) == [nodes[3], nodes[0], nodes[4]]
    assert counts.positions_of(gathered) is gathered.positions  # taken along, not found again
    assert counts.positions_of(list(gathered)).tolist() == [3, 0, 4]  # a plain list: found by identity
    elsewhere = NodeTable(list(nodes)).infos_at(wanted)  # another table's list: found by identity too
    assert counts.positions_of(elsewhere) is not elsewhere.positions
    assert counts.positions_of(elsewhere).tolist() == [3, 0, 4]
