"""The vectorised fast path (framework/batch.py): Filter and Score over a NodeTable at once.

Each topology key is a label column of value codes; a map of topology pairs becomes a lookup array
indexed by code, with one extra slot at the end, so a node without the key (code -1) reads it.
The per-node functions in ``filtering`` and ``scoring`` are the reference; tests compare the two.

``TermCounter`` is the fast path of PreFilter's and PreScore's counting of the incoming pod's terms:
matching pods per node come from ``PodCounts`` (scheduler_core/pod_counts.py), and a term's counts
per topology value are an ``np.bincount`` over the key's label codes weighted by them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from scheduler_core.framework.batch import PASS, FilterVerdicts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.node_info import AffinityTerm, Snapshot
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import Status
from scheduler_core.plugins.inter_pod_affinity.filtering import (
    REASON_AFFINITY,
    REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY,
    PairCounts,
    PreFilterState,
)
from scheduler_core.plugins.inter_pod_affinity.scoring import PreScoreState
from scheduler_core.pod_counts import PodCounts, weighted_bincount

_AFFINITY, _ANTI, _EXISTING = 0, 1, 2


class TermCounter:
    """Running pods matching the incoming pod's terms, per topology value, from the NodeTable.

    What ``matching.count_by_topology_value`` answers by walking candidate pods: every matching pod
    counts once at its node's value of the term's topology key; nodes without the key count nothing
    and values without a matching pod do not appear. ``PodCounts`` is synced on first use only.
    """

    __slots__ = ("_table", "_counts", "_labels_of_namespace", "_synced")

    def __init__(self, table: NodeTable, counts: PodCounts, snapshot: Snapshot) -> None:
        self._table = table
        self._counts = counts
        self._labels_of_namespace = snapshot.labels_of_namespace
        self._synced = False

    def _pod_counts(self) -> PodCounts:
        if not self._synced:
            self._counts.sync(self._table)
            self._synced = True
        return self._counts

    def by_value(self, term: AffinityTerm) -> list[tuple[str, int]]:
        """(value, matching pods) for each value of the term's key with at least one."""
        return self._by_value(term.topology_key, self._pod_counts().term_array(term, self._labels_of_namespace))

    def all_terms_by_value(self, terms: Sequence[AffinityTerm]) -> list[list[tuple[str, int]]]:
        """For each term, (value of its key, pods matching ALL the terms) as ``by_value``."""
        per_node = self._pod_counts().all_terms_array(terms, self._labels_of_namespace)
        return [self._by_value(term.topology_key, per_node) for term in terms]

    def _by_value(self, key: str, per_node: np.ndarray) -> list[tuple[str, int]]:
        column = self._table.labels(key)
        codes, sums = weighted_bincount(column.codes, per_node)
        values = column.values
        return [(values[code], count) for code, count in zip(codes.tolist(), sums.tolist())]


def _lookup(table: NodeTable, key: str, values: Iterable[tuple[str, int]], dtype) -> np.ndarray:
    """An array over the key's value codes (plus the missing slot, left 0) holding each value's number."""
    column = table.labels(key)
    lookup = np.zeros(len(column.values) + 1, dtype=dtype)
    for value, number in values:
        code = column.code_of.get(value)
        if code is not None:
            lookup[code] = number
    return lookup


def _positive_at(counts: PairCounts, table: NodeTable, key: str, codes: np.ndarray) -> np.ndarray:
    """Per node: the count at (key, node's value) is positive (False without the key)."""
    lookup = _lookup(table, key, ((v, True) for (k, v), n in counts.items() if k == key and n > 0), bool)
    return lookup[codes]


def filter_batch(state: PreFilterState, table: NodeTable, positions: np.ndarray) -> FilterVerdicts:
    choice = np.full(len(positions), PASS, dtype=np.int32)
    # Assigned in reverse order of the checks, so the first failing check's status wins.
    if state.existing_anti:
        for key in {k for k, _ in state.existing_anti}:
            codes = table.labels(key).codes[positions]
            choice[_positive_at(state.existing_anti, table, key, codes)] = _EXISTING
    if state.anti:
        for term in state.pod_info.required_anti_affinity_terms:
            codes = table.labels(term.topology_key).codes[positions]
            choice[_positive_at(state.anti, table, term.topology_key, codes)] = _ANTI
    choice[~_affinity_satisfied(state, table, positions)] = _AFFINITY
    palette = [Status.unresolvable(REASON_AFFINITY), Status.unschedulable(REASON_ANTI_AFFINITY),
               Status.unschedulable(REASON_EXISTING_ANTI_AFFINITY)]
    return FilterVerdicts(palette, choice)


def _affinity_satisfied(state: PreFilterState, table: NodeTable, positions: np.ndarray) -> np.ndarray:
    has_keys = np.ones(len(positions), dtype=bool)
    pods_exist = np.ones(len(positions), dtype=bool)
    for term in state.pod_info.required_affinity_terms:
        column = table.labels(term.topology_key)
        codes = column.codes[positions]
        has_keys &= codes >= 0
        pods_exist &= _positive_at(state.affinity, table, term.topology_key, codes)
    if not state.affinity and state.matches_own_affinity:
        return has_keys  # the first pod of a self-affine group
    return has_keys & pods_exist


def score_batch(state: PreScoreState, table: NodeTable, positions: np.ndarray) -> np.ndarray:
    total = np.zeros(len(positions), dtype=np.int64)
    for key, values in state.topology_score.items():
        lookup = _lookup(table, key, values.items(), np.int64)
        total += lookup[table.labels(key).codes[positions]]
    return total


def normalize_batch(state: PreScoreState, scores: np.ndarray) -> np.ndarray:
    """As ``scoring.normalize``: float64 arithmetic then truncation, like Go's int64(float64)."""
    if not state.topology_score or len(scores) == 0:
        return scores
    low = int(scores.min())
    spread = int(scores.max()) - low
    if spread <= 0:
        return np.zeros_like(scores)
    scaled = float(MAX_NODE_SCORE) * ((scores - low).astype(np.float64) / float(spread))
    return scaled.astype(np.int64)
