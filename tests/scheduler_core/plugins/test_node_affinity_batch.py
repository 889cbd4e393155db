"""NodeAffinity's filter_batch / score_batch / normalize_batch against the per-node methods,
with and without the profile's addedAffinity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.model import NodeAffinity as NodeAffinitySpec
from scheduler_core.model import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from scheduler_core.plugins.node_affinity import NodeAffinity, NodeAffinityArgs
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot
from tests.scheduler_core.builders import (
    assert_filter_same,
    assert_score_same,
    clusters,
    node_affinities,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(clusters(), st.one_of(st.none(), node_affinities()))
def test_batch_methods_match_the_per_node_ones(cluster, added):
    snapshot, pod, positions = cluster
    plugin = NodeAffinity(NodeAffinityArgs(added))
    state, table = CycleState(), snapshot.table
    infos = [snapshot.node_infos[p] for p in positions]
    plugin.pre_filter(state, pod, infos)
    assert_filter_same(plugin, state, pod, table, positions)
    plugin.pre_score(state, pod, infos)
    assert_score_same(plugin, state, pod, table, positions)


def test_enforced_affinity_comes_before_the_pod_s_own():
    term = NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),))
    snapshot = make_snapshot([make_node("n0", {"zone": "a"}), make_node("n1", {"zone": "b"})])
    plugin = NodeAffinity(NodeAffinityArgs(NodeAffinitySpec(NodeSelector((term,)))))
    pod = make_pod("p", node_selector={"zone": "b"})
    verdicts = plugin.filter_batch(CycleState(), pod, snapshot.table, np.arange(2))
    reasons = [verdicts.palette[c].reasons for c in verdicts.choice.tolist()]
    assert reasons == [
        ("node(s) didn't match Pod's node affinity/selector",),
        ("node(s) didn't match scheduler-enforced node affinity",),
    ]
