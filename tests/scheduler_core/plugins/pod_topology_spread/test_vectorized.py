"""PodTopologySpread's fast path (vectorized.py) against its per-node reference.

Each scenario is simulated twice, ``vectorized=True`` (PreFilter/PreScore over the NodeTable,
filter_batch/score_batch/normalize_batch) and ``vectorized=False`` (compute_pre_*_state over
NodeInfos, filter/score/normalize_score node by node); the trace summaries, pictures included,
must be identical.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.plugins.pod_topology_spread.vectorized import _first_seen_order, _FirstSeenOrders
from scheduler_core.model import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Scenario,
    SchedulerConfig,
    SchedulerConfiguration,
    Service,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    Workload,
)
from scheduler_core.plugins.pod_topology_spread import vectorized
from scheduler_core.plugins.pod_topology_spread.common import Constraint, count_matching
from scheduler_core.run.schedule_one import Scheduler, fresh_copy
from tests.scheduler_core.builders import make_node, make_pod

ROOT = Path(__file__).resolve().parents[5] / "shared"
CORPUS = ROOT / "conformance" / "public"
BENCH = ROOT / "bench"

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
RACK = "rack"

_DEFAULT_SPREADING = (
    "topologySpreadConstraints",
    "PodTopologySpread",
    "kind: Service",
    "kind: ReplicaSet",
    "kind: StatefulSet",
    "kind: ReplicationController",
)


def _spread_cases() -> list[str]:
    """Cases with constraints of their own, or what system-default spreading deduces selectors from."""
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        text = path.read_text()
        if any(marker in text for marker in _DEFAULT_SPREADING):
            cases.append(path.name[: -len(".yaml")])
    return cases


SPREAD_CASES = _spread_cases()


def _summary(events) -> str:
    return json.dumps(trace_summary(events), sort_keys=True)


def _both_paths(scenario: Scenario, limit=None, **kwargs) -> tuple[str, str]:
    out = []
    for fast in (True, False):
        if limit is None:
            events = simulate(scenario, vectorized=fast, **kwargs)
        else:
            scheduler = Scheduler(fresh_copy(scenario), vectorized=fast, **kwargs)
            scheduler.queue = scheduler.queue[:limit]
            events = scheduler.run()
        out.append(_summary(events))
    return out[0], out[1]


@pytest.fixture
def fast_path_calls(monkeypatch):
    """Counts the fast path's entry points, to show the comparisons exercise them."""
    calls = {"pre_filter": 0, "filter": 0, "pre_score": 0, "score": 0, "normalize": 0}

    def spy(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(vectorized, "compute_pre_filter_state", spy("pre_filter", vectorized.compute_pre_filter_state))
    monkeypatch.setattr(vectorized, "filter_verdicts", spy("filter", vectorized.filter_verdicts))
    monkeypatch.setattr(vectorized, "compute_pre_score_state", spy("pre_score", vectorized.compute_pre_score_state))
    monkeypatch.setattr(vectorized, "score_positions", spy("score", vectorized.score_positions))
    monkeypatch.setattr(vectorized, "normalize_scores", spy("normalize", vectorized.normalize_scores))
    return calls


# ---------------------------------------------------------------------------- the public corpus


def test_the_corpus_has_spreading_cases():
    assert len(SPREAD_CASES) >= 40


@pytest.mark.parametrize("case", SPREAD_CASES)
def test_conformance_case_same_on_both_paths(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    fast, reference = _both_paths(scenario)
    assert fast == reference


def test_the_corpus_exercises_every_fast_entry_point(fast_path_calls):
    for case in SPREAD_CASES:
        scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
        _summary(simulate(scenario, vectorized=True))
    assert all(fast_path_calls.values()), fast_path_calls


# ---------------------------------------------------------------------------- the bench scenarios


@pytest.fixture(scope="module")
def bench_scenarios():
    return {name: load_scenario((BENCH / f"{name}.yaml").read_bytes()) for name in ("spread_500", "spread_5000")}


@pytest.mark.parametrize("name", ["spread_500", "spread_5000"])
@pytest.mark.parametrize("percentage", [100, 0])
def test_bench_first_pods_same_on_both_paths(bench_scenarios, fast_path_calls, name, percentage):
    from scheduler_core.run.bench import with_percentage

    scenario = with_percentage(bench_scenarios[name], percentage)
    fast, reference = _both_paths(scenario, limit=30)
    assert fast == reference
    assert fast_path_calls["filter"] == 30 and fast_path_calls["score"] == 30


# ---------------------------------------------------------------------------- randomised scenarios


def _random_selector(rng: random.Random):
    kind = rng.randrange(9)
    if kind == 0:
        return None
    if kind == 1:
        return LabelSelector()
    if kind == 2:
        return LabelSelector((("app", rng.choice("abc")),))
    if kind == 3:
        return LabelSelector((("app", rng.choice("abc")), ("tier", rng.choice("xy"))))
    if kind == 4:
        return LabelSelector((), (LabelSelectorRequirement("app", "In", tuple(rng.sample("abc", 2))),))
    if kind == 5:
        return LabelSelector((), (LabelSelectorRequirement("app", "NotIn", (rng.choice("abc"),)),))
    if kind == 6:
        return LabelSelector((), (LabelSelectorRequirement("tier", "Exists"),))
    if kind == 7:
        return LabelSelector((("app", rng.choice("abc")),), (LabelSelectorRequirement("tier", "DoesNotExist"),))
    return LabelSelector((), (LabelSelectorRequirement("app", "In", (rng.choice("abc"),)),))


def _random_constraint(rng: random.Random) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew=rng.randint(1, 3),
        topology_key=rng.choice([HOST, HOST, ZONE, ZONE, REGION, RACK]),
        when_unsatisfiable=rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
        label_selector=_random_selector(rng),
        min_domains=rng.choice([None, None, 1, 2, 4]),
        node_affinity_policy=rng.choice([None, "Honor", "Ignore"]),
        node_taints_policy=rng.choice([None, "Honor", "Ignore"]),
        match_label_keys=rng.choice([(), (), ("tier",)]),
    )


def _random_labels(rng: random.Random) -> dict:
    labels = {"app": rng.choice("abcd")}
    if rng.random() < 0.5:
        labels["tier"] = rng.choice("xy")
    return labels


def _random_scenario(seed: int) -> Scenario:
    rng = random.Random(seed)
    nodes = []
    for i in range(rng.randint(2, 30)):
        name = f"n{i}"
        labels = {}
        if rng.random() < 0.9:
            labels[HOST] = name
        if rng.random() < 0.85:
            labels[ZONE] = rng.choice(["z1", "z2", "z3", ""])
        if rng.random() < 0.8:
            labels[REGION] = rng.choice(["r1", "r2"])
        if rng.random() < 0.5:
            labels[RACK] = f"k{rng.randrange(4)}"
        taints = (
            (Taint("dedicated", "x", rng.choice(["NoSchedule", "PreferNoSchedule"])),) if rng.random() < 0.2 else ()
        )
        nodes.append(make_node(name, labels, cpu=rng.choice([2000, 4000]), taints=taints, doc_index=i))
    pods = []
    index = len(nodes)
    for i in range(rng.randint(0, 60)):
        pods.append(
            make_pod(
                f"run-{i}",
                rng.choice(["default", "default", "other"]),
                _random_labels(rng),
                node=rng.choice(nodes).name,
                requests={"cpu": 100},
                doc_index=index,
            )
        )
        index += 1
    owner = OwnerReference("ReplicaSet", "rs-b", "apps/v1", True)
    for i in range(rng.randint(1, 12)):
        constraints = tuple(_random_constraint(rng) for _ in range(rng.choice([0, 1, 1, 2, 3])))
        fields = {}
        if rng.random() < 0.25:
            fields["node_selector"] = {REGION: "r1"}
        if rng.random() < 0.2:
            fields["affinity"] = Affinity(
                node_affinity=NodeAffinity(
                    required=NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(ZONE, "In", ("z1", "z2")),)),))
                )
            )
        if rng.random() < 0.3:
            fields["tolerations"] = (Toleration("dedicated", "Exists"),)
        if not constraints and rng.random() < 0.5:
            fields["owner_references"] = (owner,)
        pods.append(
            make_pod(
                f"pend-{i}",
                rng.choice(["default", "default", "other"]),
                _random_labels(rng),
                requests={"cpu": rng.choice([100, 1500])},
                priority=rng.choice([0, 0, 100]),
                topology_spread_constraints=constraints,
                doc_index=index,
                **fields,
            )
        )
        index += 1
    services = [Service("default", "svc-a", {"app": "a"})]
    workloads = [Workload("ReplicaSet", "default", "rs-b", LabelSelector((("app", "b"),)))]
    config = None
    if rng.random() < 0.3:
        config = SchedulerConfiguration(
            (
                SchedulerConfig(
                    plugin_args={
                        "PodTopologySpread": {
                            "defaultingType": "List",
                            "defaultConstraints": [
                                {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
                                {"maxSkew": 2, "topologyKey": HOST, "whenUnsatisfiable": "ScheduleAnyway"},
                            ],
                        }
                    }
                ),
            )
        )
    namespaces = {"default": Namespace("default"), "other": Namespace("other")}
    return Scenario(nodes, pods, namespaces, services, workloads, config)


@pytest.mark.parametrize("seed", range(150))
def test_random_scenario_same_on_both_paths(seed):
    fast, reference = _both_paths(_random_scenario(seed))
    assert fast == reference


def test_random_scenarios_exercise_the_fast_path(fast_path_calls):
    for seed in range(40):
        _summary(simulate(_random_scenario(seed), vectorized=True))
    assert all(fast_path_calls.values()), fast_path_calls


# ---------------------------------------------------------------------------- PodCounts


def test_pod_counts_follow_binds_and_removals():
    """Every change bumps table.version (binds do; a removal is emulated as a failed binding's)."""
    rng = random.Random(7)
    nodes = [NodeInfo(make_node(f"n{i}", {HOST: f"n{i}"})) for i in range(12)]
    table = NodeTable(nodes)
    counts = vectorized.PodCounts(max_selectors=4)
    selectors = [_random_selector(random.Random(s)) for s in range(12)]
    constraints = [Constraint(1, HOST, s) for s in selectors]
    bound = []
    for step in range(300):
        for _ in range(rng.choice([0, 1, 1, 2])):
            if bound and rng.random() < 0.3:
                node, pod = bound.pop(rng.randrange(len(bound)))
                node.remove_pod(pod)
                table.version += 1
            else:
                node = rng.choice(nodes)
                pod = make_pod(f"p{step}", rng.choice(["default", "other"]), _random_labels(rng))
                info = PodInfo(pod)
                node.add_pod(info)
                table.add_pod(node.name, info)
                bound.append((node, pod))
        counts.sync(table)
        for constraint in rng.sample(constraints, 3):
            namespace = rng.choice(["default", "other"])
            expected = [count_matching(info, namespace, constraint.matcher) for info in nodes]
            assert counts.array(namespace, constraint).tolist() == expected


def test_positions_of_refuses_nodes_outside_the_table():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(3)]
    table = NodeTable(nodes)
    counts = vectorized.PodCounts()
    counts.sync(table)
    assert counts.positions_of([nodes[2], nodes[0]]).tolist() == [2, 0]
    assert counts.positions_of([nodes[1].clone()]) is None


def test_go_round_matches_the_scalar_one():
    from scheduler_core.plugins.pod_topology_spread.common import go_round

    values = np.array([0.49999999999999994, 0.5, 1.5, 2.5, -0.5, -1.5, 3.4999999, 7.0, 1e15 + 0.5, 0.0])
    assert vectorized._go_round(values).tolist() == [go_round(v) for v in values.tolist()]


# ---- the pieces below the batch methods: first-seen orders


def _reference(codes: list[int]) -> list[int]:
    """The per-node path's order: a dict filled node by node keeps each value where it first appeared."""
    return list(dict.fromkeys(codes))


@given(st.lists(st.integers(min_value=-1, max_value=12), max_size=60))
def test_first_seen_order_is_the_order_a_dict_would_keep(codes):
    assert _first_seen_order(np.asarray(codes, dtype=np.int32)) == _reference(codes)


@given(st.lists(st.lists(st.integers(min_value=0, max_value=5), max_size=20), min_size=1, max_size=8))
def test_kept_orders_answer_as_computed_ones(arrays):
    orders = _FirstSeenOrders(kept=3)
    for codes in arrays + arrays:  # each seen twice: the second answer may come from the memory
        assert list(orders(np.asarray(codes, dtype=np.int32))) == _reference(codes)
    assert len(orders._orders) <= 3


@pytest.mark.parametrize("as_positions", [False, True])
def test_scored_hosts_are_handed_on_as_the_table_hands_its_lists(as_positions):
    """The hostname constraint's scored nodes, in name order, as the table hands node lists on:
    gathered names in one process, positions in the engine's own (nothing there reads the names)."""
    from scheduler_core.framework.node_table import NodePositions, PositionedNames

    infos = [NodeInfo(make_node(name)) for name in ["n-c", "n-a", "n-d", "n-b"]]
    table = NodeTable(infos, lists_as_positions=as_positions)
    ordered, names = vectorized._name_order(table).sorted_names_of(np.array([0, 2, 3], dtype=np.int64))
    assert ordered.tolist() == [3, 0, 2]  # n-b, n-c, n-d
    assert list(names) == ["n-b", "n-c", "n-d"]
    assert type(names) is (NodePositions if as_positions else PositionedNames)
    _, every = vectorized._name_order(table).sorted_names_of(np.arange(4, dtype=np.int64))
    assert list(every) == ["n-a", "n-b", "n-c", "n-d"]
