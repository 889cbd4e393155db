"""InterPodAffinity's fast PreFilter/PreScore counting (batch.TermCounter over PodCounts and
ExistingTerms) against the pod-by-pod reference, on random clusters while pods bind and unbind."""

from __future__ import annotations

import json
import random

import pytest

from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.model import LabelSelector, LabelSelectorRequirement
from scheduler_core.plugins.inter_pod_affinity import batch, filtering, scoring
from scheduler_core.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from scheduler_core.plugins.inter_pod_affinity.existing_terms import ExistingTerms
from scheduler_core.plugins.inter_pod_affinity.pod_index import PodLabelIndex
from scheduler_core.framework.pod_counts import PodCounts
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot
from tests.scheduler_core.builders import HOST, ZONE, affinity, term, weighted

NAMESPACES = ["default", "other", "undeclared"]
NAMESPACE_LABELS = {"default": {"team": "a"}, "other": {"team": "b"}}
KEYS = [ZONE, HOST, "rack"]


def _labels(rng: random.Random) -> dict:
    return {key: rng.choice(["x", "y", "z"]) for key in ("app", "tier") if rng.random() < 0.7}


def _selector(rng: random.Random) -> LabelSelector:
    if rng.random() < 0.15:
        return LabelSelector((), (LabelSelectorRequirement("tier", rng.choice(["Exists", "DoesNotExist"])),))
    if rng.random() < 0.1:
        return LabelSelector()
    labels = {k: rng.choice(["x", "y"]) for k in rng.sample(["app", "tier"], rng.choice([1, 1, 2]))}
    return LabelSelector(tuple(sorted(labels.items())))


def _term_fields(rng: random.Random) -> dict:
    fields = {}
    roll = rng.random()
    if roll < 0.15:
        fields["namespaces"] = tuple(rng.sample(NAMESPACES, 2))
    elif roll < 0.3:
        fields["namespace_selector"] = rng.choice([LabelSelector(), LabelSelector((("team", "b"),))])
    return fields


def _term(rng: random.Random):
    return term(key=rng.choice(KEYS), label_selector=_selector(rng), **_term_fields(rng))


def _weighted(rng: random.Random):
    return weighted(rng.randint(1, 5), {}, rng.choice(KEYS), label_selector=_selector(rng), **_term_fields(rng))


def _random_pod(rng: random.Random, name: str):
    kinds = {}
    for kind, make in (
        ("required", _term),
        ("preferred", _weighted),
        ("anti_required", _term),
        ("anti_preferred", _weighted),
    ):
        if rng.random() < 0.3:
            kinds[kind] = [make(rng) for _ in range(rng.choice([1, 1, 2]))]
    return make_pod(name, rng.choice(NAMESPACES), _labels(rng), affinity=affinity(**kinds) if kinds else None)


def _cluster(rng: random.Random) -> Snapshot:
    nodes = []
    for i in range(rng.randint(3, 12)):
        labels = {HOST: f"n{i}"}
        if rng.random() < 0.8:
            labels[ZONE] = rng.choice(["a", "b", "c"])
        if rng.random() < 0.5:
            labels["rack"] = rng.choice(["r1", "r2"])
        nodes.append(make_node(f"n{i}", labels))
    running = []
    for j in range(rng.randint(0, 30)):
        pod = _random_pod(rng, f"run{j}")
        pod.node_name = rng.choice(nodes).name
        running.append(pod)
    return make_snapshot(nodes, running, NAMESPACE_LABELS)


@pytest.mark.parametrize("seed", range(60))
def test_fast_states_equal_the_reference_while_pods_come_and_go(seed):
    rng = random.Random(seed)
    snapshot = _cluster(rng)
    table = snapshot.table
    fast = batch.FastCounts()
    bound = []
    args = InterPodAffinityArgs(rng.choice([0, 1, 7]), rng.random() < 0.2)
    for step in range(15):
        pod = _random_pod(rng, f"p{step}")
        reference, needed = filtering.compute_pre_filter_state(pod, snapshot, PodLabelIndex())
        got, got_needed = filtering.compute_pre_filter_state(
            pod, snapshot, PodLabelIndex(), fast.cycle(table, snapshot)
        )
        assert (got_needed, got.to_json()) == (needed, reference.to_json())
        assert json.dumps(got.to_json()) == json.dumps(reference.to_json())  # the pairs in the same order
        assert got.columns is not None and reference.columns is None
        positions = table.positions()
        verdicts = batch.filter_batch(got, table, positions)
        assert verdicts.choice.tolist() == batch.filter_batch(reference, table, positions).choice.tolist()
        again, _ = filtering.compute_pre_filter_state(pod, snapshot, PodLabelIndex(), fast.cycle(table, snapshot))
        assert again.memo_content() == got.memo_content()  # the columns' content: equal counts, equal keys
        assert (got._existing_anti, got._affinity, got._anti) == (None, None, None)  # read from the columns only
        assert (got.existing_anti, got.affinity, got.anti) == (
            reference.existing_anti,
            reference.affinity,
            reference.anti,
        )
        # preemption's dry run changes a clone: its counts are read from the maps again
        if snapshot.node_infos[0].pods:
            victim = snapshot.node_infos[0].pods[0]
            got_clone, reference_clone = got.clone(), reference.clone()
            for state in (got_clone, reference_clone):
                state.update_with_pod(victim, snapshot.node_infos[0].node, -1, snapshot)
            assert json.dumps(got_clone.to_json()) == json.dumps(reference_clone.to_json())
            verdicts = batch.filter_batch(got_clone, table, positions)
            assert verdicts.choice.tolist() == batch.filter_batch(reference_clone, table, positions).choice.tolist()
            assert json.dumps(got.to_json()) == json.dumps(reference.to_json())  # the original unchanged
            # ... and so are the maps the states with equal counts share
            assert again.existing_anti is got.existing_anti
            maps = (reference.existing_anti, reference.affinity, reference.anti)
            assert (
                (got.existing_anti, got.affinity, got.anti) == (again.existing_anti, again.affinity, again.anti) == maps
            )
            again.update_with_pod(victim, snapshot.node_infos[0].node, -1, snapshot)
            assert (got.existing_anti, got.affinity, got.anti) == maps
        reference = scoring.compute_pre_score_state(pod, snapshot, PodLabelIndex(), args)
        got = scoring.compute_pre_score_state(pod, snapshot, PodLabelIndex(), args, fast.cycle(table, snapshot))
        assert (got is None) == (reference is None)
        if got is not None:
            assert got.topology_score == reference.topology_score
            assert got.to_json() == reference.to_json()
            assert list(got.to_json()["topologyScore"]) == list(reference.to_json()["topologyScore"])
            for key, values in got.to_json()["topologyScore"].items():
                assert list(values) == list(reference.to_json()["topologyScore"][key])
            positions = table.positions()
            expected = [scoring.score_node(reference, info) for info in snapshot.node_infos]
            assert batch.score_batch(got, table, positions).tolist() == expected
        # bind (and sometimes unbind) so the counts have to follow
        if bound and rng.random() < 0.3:
            snapshot.unbind(bound.pop(rng.randrange(len(bound))))
        else:
            snapshot.bind(pod, rng.choice(snapshot.node_infos).name)
            bound.append(pod)


def test_existing_terms_group_equal_terms_and_forget_them():
    snapshot = make_snapshot([make_node("n0", {ZONE: "a"}), make_node("n1", {ZONE: "b"})], (), NAMESPACE_LABELS)
    counts, existing = PodCounts(), ExistingTerms()
    existing.follow(counts, counts.sync(snapshot.table))
    pods = [make_pod(f"p{i}", affinity=affinity(anti_required=[term({"app": "web"}, ZONE)])) for i in range(3)]
    for pod, node in zip(pods, ["n0", "n0", "n1"]):
        snapshot.bind(pod, node)
    existing.follow(counts, counts.sync(snapshot.table))
    web = make_pod("w", labels={"app": "web"})
    found = list(existing.matching(web, {}, frozenset(range(4))))
    assert len(found) == 1 and found[0][1] == {0: 2, 1: 1}
    assert list(existing.matching(make_pod("x", labels={"app": "db"}), {}, frozenset(range(4)))) == []
    for pod in pods:
        snapshot.unbind(pod)
    existing.follow(counts, counts.sync(snapshot.table))
    assert list(existing.matching(web, {}, frozenset(range(4)))) == []
