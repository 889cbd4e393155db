"""NodeResourcesFit's filter_batch and score_batch (every scoring strategy) against the per-node
methods: the same statuses (combined reasons, Unschedulable vs UnschedulableAndUnresolvable,
ignored resources) and Go's integer scores."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.model import CPU, MEMORY
from scheduler_core.plugins import node_resources
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot
from tests.scheduler_core.builders import (
    GPU,
    RESOURCE_NAMES,
    assert_filter_same,
    assert_same_as_pods_come_and_go,
    assert_score_same,
    clusters,
    pod_moves,
)


@st.composite
def fit_args(draw):
    kind = draw(st.sampled_from((None, "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")))
    args = {
        "ignoredResources": draw(st.lists(st.sampled_from((GPU, "example.com/fpga")), max_size=1)),
        "ignoredResourceGroups": draw(st.lists(st.sampled_from(("example.com", "other.io")), max_size=1)),
    }
    if kind is not None:
        resources = [
            {"name": name, "weight": draw(st.integers(1, 100))}
            for name in draw(st.lists(st.sampled_from(RESOURCE_NAMES), unique=True, max_size=4))
        ]
        strategy = {"type": kind, "resources": resources}
        if kind == "RequestedToCapacityRatio":
            utilizations = sorted(draw(st.sets(st.integers(0, 100), min_size=1, max_size=4)))
            strategy["requestedToCapacityRatio"] = {
                "shape": [{"utilization": u, "score": draw(st.integers(0, 10))} for u in utilizations]
            }
        args["scoringStrategy"] = strategy
    return args


@settings(max_examples=150, deadline=None)
@given(clusters(), fit_args())
def test_batch_methods_match_the_per_node_ones(cluster, args):
    snapshot, pod, positions = cluster
    plugin, state, table = node_resources.new_fit(args, None), CycleState(), snapshot.table
    plugin.pre_filter(state, pod, snapshot.node_infos)
    assert_filter_same(plugin, state, pod, table, positions)
    plugin.pre_score(state, pod, snapshot.node_infos)
    assert_score_same(plugin, state, pod, table, positions)


@settings(max_examples=100, deadline=None)
@given(clusters(), fit_args(), pod_moves())
def test_batch_methods_match_the_per_node_ones_as_pods_come_and_go(cluster, args, moves):
    """Filter's shortfalls and the score are kept per request between cycles and made again where
    a pod was bound or taken off: still the per-node answers on every ask."""
    snapshot, pod, positions = cluster
    plugin = node_resources.new_fit(args, None)
    assert_same_as_pods_come_and_go(plugin, snapshot, pod, positions, moves, score=False)
    assert_same_as_pods_come_and_go(plugin, snapshot, pod, positions, [], score=True)


def test_combined_reasons_keep_their_order_and_palette_follows_first_appearance():
    nodes = [
        make_node("n0", cpu=1000, memory=1 << 30),
        make_node("n1", cpu=4000, memory=8 << 30),
        make_node("n2", cpu=1000, memory=8 << 30, pods=0),
        make_node("n3", cpu=1000, memory=1 << 30),
    ]
    snapshot = make_snapshot(nodes)
    plugin, state = node_resources.new_fit(None, None), CycleState()
    pod = make_pod("p", requests={CPU: 2000, MEMORY: 2 << 30})
    plugin.pre_filter(state, pod, snapshot.node_infos)
    verdicts = plugin.filter_batch(state, pod, snapshot.table, np.arange(4))
    assert verdicts.palette == [
        Status.unresolvable("Insufficient cpu", "Insufficient memory"),
        Status.unresolvable("Too many pods", "Insufficient cpu"),
    ]
    assert verdicts.choice.tolist() == [0, -1, 1, 0]
