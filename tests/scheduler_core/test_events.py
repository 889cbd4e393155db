"""events: the wire form of the engine's typed events."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.events import FilterPluginResult
from scheduler_core.framework.status import Status


@given(st.lists(st.integers(min_value=-1, max_value=2), max_size=40))
def test_filter_statuses_name_every_rejected_node_in_evaluation_order(choices):
    # The rejected nodes are found with flatnonzero; the reference walks every node.
    palette = [Status.unschedulable("too small"), Status.unresolvable("tainted"), Status.unschedulable("a", "b")]
    nodes = [f"node-{i}" for i in range(len(choices))]
    result = FilterPluginResult(nodes, palette, np.asarray(choices, dtype=np.int64))
    rendered = [status.to_json() for status in palette]
    expected = {node: rendered[c] for node, c in zip(nodes, choices) if c >= 0}
    got = result.statuses
    assert got == expected
    assert list(got) == list(expected)
