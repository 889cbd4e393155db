"""A count map's columns against the map: the wire form (pairs in order), the per-node lookups, the
cache of forms written."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from scheduler_core.framework.node_table import NodeTable
from scheduler_core.plugins.inter_pod_affinity import filtering, pair_columns
from scheduler_core.plugins.inter_pod_affinity.pair_columns import PairColumns, ValueNames, columns_json, shared_pairs
from tests.scheduler_core.builders import HOST, ZONE, make_node, make_snapshot

KEYS = [HOST, ZONE]


def _table(rng: random.Random) -> NodeTable:
    nodes = []
    for i in range(rng.randint(1, 40)):
        labels = {HOST: f"host-{rng.randint(0, 99)}"}  # hosts share values; some nodes lack a zone
        if rng.random() < 0.8:
            labels[ZONE] = rng.choice(["b", "a", "c10", "c9", "Z"])
        nodes.append(make_node(f"n{i}", labels))
    return make_snapshot(nodes, []).table


def _names(table: NodeTable) -> dict[str, ValueNames]:
    return {key: ValueNames(key, table.labels(key)) for key in KEYS}  # one per column, as FastCounts keeps them


def _counted(
    rng: random.Random, table: NodeTable, names: dict[str, ValueNames]
) -> tuple[PairColumns, dict[tuple[str, str], int]]:
    """Random additions, as the fast path makes them (distinct codes, positive amounts), to both forms."""
    columns, counts = PairColumns(), {}
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(KEYS)
        column = table.labels(key)
        codes = np.array(
            sorted(rng.sample(range(len(column.values)), rng.randint(0, len(column.values)))), dtype=np.int64
        )
        amounts = np.array([rng.randint(1, 5) for _ in codes], dtype=np.int64)
        columns.add(key, names[key], codes, amounts)
        for code, amount in zip(codes.tolist(), amounts.tolist()):
            pair = (key, column.values[code])
            counts[pair] = counts.get(pair, 0) + amount
    return columns, counts


@pytest.mark.parametrize("seed", range(40))
def test_columns_read_as_the_map(seed):
    rng = random.Random(seed)
    table = _table(rng)
    columns, counts = _counted(rng, table, _names(table))
    assert json.dumps(columns.wire()) == json.dumps(filtering.pair_counts_json(counts))
    positions = table.positions()
    for key in KEYS:
        column = table.labels(key)
        codes = column.codes[positions]
        expected = [
            counts.get((key, info.node.labels[key]), 0) > 0 if key in info.node.labels else False
            for info in table.node_infos
        ]
        assert columns.positive_at(key, column, codes).tolist() == expected


def test_another_column_of_the_key_is_not_answered():
    rng = random.Random(1)
    table, other = _table(rng), _table(rng)
    columns, _ = _counted(random.Random(3), table, _names(table))
    columns.add(HOST, ValueNames(HOST, table.labels(HOST)), np.array([0]), np.array([1]))
    column = other.labels(HOST)
    assert columns.positive_at(HOST, column, column.codes) is None


def test_equal_counts_are_written_once_and_copied():
    table = _table(random.Random(5))
    names = _names(table)
    first, _ = _counted(random.Random(8), table, names)
    again, _ = _counted(random.Random(8), table, names)
    assert first.wire()  # counts to write
    assert first is not again and first.same_counts(again)
    pair_columns.WRITTEN.clear()
    written = columns_json(first)
    copied = columns_json(again)
    assert copied == written and copied is not written
    assert len(pair_columns.WRITTEN) == 1  # found, not written again
    changed, _ = _counted(random.Random(9), table, names)
    assert not changed.same_counts(first)
    assert columns_json(changed) == changed.wire()
    assert len(pair_columns.WRITTEN) == 2


def test_equal_counts_share_one_map():
    table = _table(random.Random(5))
    names = _names(table)
    first, counts = _counted(random.Random(8), table, names)
    again, _ = _counted(random.Random(8), table, names)
    changed, other_counts = _counted(random.Random(9), table, names)
    made = shared_pairs(first)
    assert made == counts and shared_pairs(again) is made
    assert shared_pairs(changed) == other_counts and shared_pairs(changed) is not made
