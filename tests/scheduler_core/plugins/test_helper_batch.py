"""Vectorised helpers (plugins/helper.py) against their per-node forms, and the random clusters the
other ``test_*_batch.py`` files share: each compares a plugin's batch methods with its per-node ones.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.framework.batch import (
    FilterVerdicts,
    filter_per_node,
    normalize_per_node,
    score_per_node,
)
from scheduler_core.framework.status import Status
from scheduler_core.labels import node_selector_matches, node_selector_term_matches
from scheduler_core.model import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
)
from scheduler_core.plugins.helper import (
    FunctionShapePoint,
    build_broken_linear_function,
    build_broken_linear_function_batch,
    go_round,
    go_round_batch,
    node_selector_mask,
    node_selector_term_mask,
    required_node_affinity_mask,
    required_node_affinity_matches,
)
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot

GPU = "example.com/gpu"
HUGEPAGES = "hugepages-2Mi"
LABEL_KEYS = ("zone", "pool", "num", "gpu")
LABEL_VALUES = ("a", "b", "c", "1", "5", "10", "-3", "+7", "x1", "")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus")
IMAGES = ("nginx", "nginx:1.25", "redis:7", "reg.io:5000/app", "busybox:latest")
RESOURCE_NAMES = (CPU, MEMORY, EPHEMERAL_STORAGE, GPU, HUGEPAGES, "foo")

# ---------------------------------------------------------------------------- random clusters

taints = st.builds(Taint, st.sampled_from(("k1", "k2", "node.kubernetes.io/unschedulable")),
                   st.sampled_from(("", "v")), st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute")))
tolerations = st.builds(Toleration, st.sampled_from(("", "k1", "k2", "node.kubernetes.io/unschedulable")),
                        st.sampled_from(("Equal", "Exists", "")), st.sampled_from(("", "v")),
                        st.sampled_from(("", "NoSchedule", "PreferNoSchedule", "NoExecute")))
amounts = st.one_of(st.just(0), st.integers(1, 10), st.integers(0, 64_000), st.integers(0, 1 << 40))


def requirements(node_names=("n0", "n1", "n2")):
    label = st.builds(NodeSelectorRequirement, st.sampled_from(LABEL_KEYS), st.sampled_from(OPERATORS),
                      st.lists(st.sampled_from(LABEL_VALUES), max_size=3).map(tuple))
    field = st.builds(NodeSelectorRequirement, st.sampled_from(("metadata.name", "metadata.uid")),
                      st.sampled_from(("In", "NotIn", "Exists")),
                      st.lists(st.sampled_from(node_names + ("zz",)), max_size=2).map(tuple))
    return label, field


def terms():
    label, field = requirements()
    return st.builds(NodeSelectorTerm, st.lists(label, max_size=3).map(tuple), st.lists(field, max_size=1).map(tuple))


def node_affinities():
    return st.builds(NodeAffinity,
                     st.one_of(st.none(), st.builds(NodeSelector, st.lists(terms(), max_size=3).map(tuple))),
                     st.lists(st.builds(PreferredSchedulingTerm, st.integers(0, 100), terms()),
                              max_size=3).map(tuple))


@st.composite
def nodes(draw, index: int):
    labels = draw(st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), max_size=4))
    allocatable = {}
    for name in RESOURCE_NAMES:
        if draw(st.booleans()):
            allocatable[name] = draw(amounts)
    allocatable[PODS] = draw(st.integers(0, 4))
    images = tuple(ContainerImage(tuple(draw(st.sets(st.sampled_from(IMAGES), min_size=1, max_size=2))),
                                  draw(st.integers(0, 3000)) << 20)
                   for _ in range(draw(st.integers(0, 2))))
    node = make_node(f"n{index}", labels, taints=draw(st.lists(taints, max_size=3)),
                     unschedulable=draw(st.booleans()), images=images, doc_index=index)
    node.allocatable.clear()
    node.allocatable.update(allocatable)
    return node


def containers(ports: bool = True):
    port = st.builds(ContainerPort, st.integers(80, 81), st.sampled_from((0, 80, 8080)),
                     st.sampled_from(("TCP", "UDP")), st.sampled_from(("", "0.0.0.0", "10.0.0.1")))
    requests = st.dictionaries(st.sampled_from(RESOURCE_NAMES), amounts, max_size=4)
    return st.builds(Container, st.just("c"), st.sampled_from(IMAGES), requests,
                     st.lists(port, max_size=2 if ports else 0).map(tuple))


@st.composite
def clusters(draw, max_nodes: int = 12):
    """(snapshot, pending pod, positions in a random evaluation order)."""
    count = draw(st.integers(1, max_nodes))
    node_list = [draw(nodes(i)) for i in range(count)]
    running = []
    for i in range(draw(st.integers(0, 2 * count))):
        host = draw(st.integers(0, count - 1))
        running.append(make_pod(f"r{i}", node=f"n{host}", containers=(draw(containers()),)))
    affinity = draw(node_affinities())
    pod = make_pod("p", containers=tuple(draw(st.lists(containers(), min_size=0, max_size=2))),
                   init_containers=tuple(draw(st.lists(containers(ports=False), max_size=1))),
                   tolerations=tuple(draw(st.lists(tolerations, max_size=3))),
                   node_selector=draw(st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES),
                                                      max_size=2)),
                   affinity=Affinity(node_affinity=affinity) if draw(st.booleans()) else None,
                   node=draw(st.sampled_from(("", "", "n0", "n1", "zz"))))
    snapshot = make_snapshot(node_list, running)
    positions = np.asarray(draw(st.permutations(range(count)))[:draw(st.integers(1, count))], dtype=np.int64)
    return snapshot, pod, positions


# ---------------------------------------------------------------------------- comparisons


def statuses(verdicts: FilterVerdicts) -> list:
    return [verdicts.palette[c] if c >= 0 else None for c in verdicts.choice.tolist()]


def assert_filter_same(plugin, state, pod, table, positions) -> None:
    fast = plugin.filter_batch(state, pod, table, positions)
    fast = fast if fast is not None else FilterVerdicts.all_pass(len(positions))
    assert len(fast.choice) == len(positions)
    assert statuses(fast) == statuses(filter_per_node(plugin, state, pod, table, positions))


def assert_score_same(plugin, state, pod, table, positions) -> None:
    reference = score_per_node(plugin, state, pod, table, positions)
    assert not isinstance(reference, Status)
    fast = plugin.score_batch(state, pod, table, positions)
    assert fast.dtype == np.int64
    assert fast.tolist() == reference.tolist()
    if hasattr(plugin, "normalize_score"):
        names = [table.names[p] for p in positions.tolist()]
        normalized = normalize_per_node(plugin, state, pod, names, reference)
        assert not isinstance(normalized, Status)
        assert plugin.normalize_batch(state, pod, fast.copy()).tolist() == normalized.tolist()


# ---------------------------------------------------------------------------- the helpers themselves


@settings(max_examples=150, deadline=None)
@given(clusters(), st.lists(terms(), max_size=3))
def test_selector_masks_match_the_per_node_matchers(cluster, term_list):
    snapshot, pod, _ = cluster
    table = snapshot.table
    for term in term_list:
        assert node_selector_term_mask(table, term).tolist() == [
            node_selector_term_matches(term, info.node) for info in snapshot.node_infos]
    selector = NodeSelector(tuple(term_list))
    assert node_selector_mask(table, selector).tolist() == [
        node_selector_matches(selector, info.node) for info in snapshot.node_infos]
    assert required_node_affinity_mask(pod, table).tolist() == [
        required_node_affinity_matches(pod, info.node) for info in snapshot.node_infos]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=1, max_size=5, unique_by=lambda p: p[0]),
       st.lists(st.integers(-10, 200), min_size=1, max_size=30))
def test_broken_linear_batch_matches(points, utilizations):
    shape = [FunctionShapePoint(u, s) for u, s in sorted(points)]
    line, batch_line = build_broken_linear_function(shape), build_broken_linear_function_batch(shape)
    assert batch_line(np.asarray(utilizations, dtype=np.int64)).tolist() == [line(u) for u in utilizations]


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from((0.5, -0.5, 2.5, -2.5, 0.49999999999999994)),
                min_size=1, max_size=30))
def test_go_round_batch_matches(values):
    assert go_round_batch(np.asarray(values, dtype=np.float64)).tolist() == [go_round(v) for v in values]
    assert all(math.isfinite(v) for v in values)
