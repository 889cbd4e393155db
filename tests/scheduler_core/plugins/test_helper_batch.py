"""Vectorised helpers (plugins/helper.py) against their per-node forms, on the random clusters of
tests/scheduler_core/builders.py (which the ``test_*_batch.py`` files share)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.model.labels import node_selector_matches, node_selector_term_matches
from scheduler_core.model import NodeSelector
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
from tests.scheduler_core.builders import clusters, terms


# ---------------------------------------------------------------------------- the helpers themselves


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(clusters(), st.lists(terms(), max_size=3))
def test_selector_masks_match_the_per_node_matchers(cluster, term_list):
    snapshot, pod, _ = cluster
    table = snapshot.table
    for term in term_list:
        assert node_selector_term_mask(table, term).tolist() == [
            node_selector_term_matches(term, info.node) for info in snapshot.node_infos
        ]
    selector = NodeSelector(tuple(term_list))
    assert node_selector_mask(table, selector).tolist() == [
        node_selector_matches(selector, info.node) for info in snapshot.node_infos
    ]
    assert required_node_affinity_mask(pod, table).tolist() == [
        required_node_affinity_matches(pod, info.node) for info in snapshot.node_infos
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=1, max_size=5, unique_by=lambda p: p[0]),
    st.lists(st.integers(-10, 200), min_size=1, max_size=30),
)
def test_broken_linear_batch_matches(points, utilizations):
    shape = [FunctionShapePoint(u, s) for u, s in sorted(points)]
    line, batch_line = build_broken_linear_function(shape), build_broken_linear_function_batch(shape)
    assert batch_line(np.asarray(utilizations, dtype=np.int64)).tolist() == [line(u) for u in utilizations]


@given(
    st.lists(
        st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from((0.5, -0.5, 2.5, -2.5, 0.49999999999999994)),
        min_size=1,
        max_size=30,
    )
)
def test_go_round_batch_matches(values):
    assert go_round_batch(np.asarray(values, dtype=np.float64)).tolist() == [go_round(v) for v in values]
    assert all(math.isfinite(v) for v in values)
