"""pod_topology_spread.vectorized: the pieces below the plugin's batch methods (the methods
themselves are held to the per-node path in test_batch.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.plugins.pod_topology_spread.vectorized import _first_seen_order, _FirstSeenOrders


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
