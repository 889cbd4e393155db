"""The vectorised fast path (framework/batch.py): Filter and Score over a NodeTable at once.

Each topology key is a label column of value codes; a map of topology pairs becomes a lookup array
indexed by code, with one extra slot at the end, so a node without the key (code -1) reads it.
The per-node functions in ``filtering`` and ``scoring`` are the reference; tests compare the two.

``TermCounter`` is the fast path of PreFilter's and PreScore's counting of the incoming pod's terms:
matching pods per node come from ``PodCounts`` (scheduler_core/framework/pod_counts.py), and a term's counts
per topology value are an ``np.bincount`` over the key's label codes weighted by them.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np

from scheduler_core.framework.batch import PASS, FilterVerdicts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import LabelColumn, NodeTable
from scheduler_core.framework.status import Status
from scheduler_core.plugins.inter_pod_affinity.filtering import (
    REASON_AFFINITY,
    REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY,
    PreFilterState,
)
from scheduler_core.plugins.inter_pod_affinity.pair_columns import PairColumns, ValueNames
from scheduler_core.plugins.inter_pod_affinity.existing_terms import (
    PREFERRED_AFFINITY,
    PREFERRED_ANTI_AFFINITY,
    REQUIRED_AFFINITY,
    REQUIRED_ANTI_AFFINITY,
    ExistingTerms,
)
from scheduler_core.plugins.inter_pod_affinity.scoring import PreScoreState
from scheduler_core.framework.pod_counts import PodCounts, weighted_bincount

_AFFINITY, _ANTI, _EXISTING = 0, 1, 2  # the palette's statuses
_EXISTING_MAP, _AFFINITY_MAP, _ANTI_MAP = 0, 1, 2  # a PreFilterState's count maps (and its columns), in order


class FastCounts:
    """What the fast path keeps across cycles: matching pods per node (``PodCounts``), running
    pods' terms grouped (``ExistingTerms``) and, per label column, its values in name order."""

    def __init__(self) -> None:
        self.pod_counts = PodCounts()
        self.existing = ExistingTerms()
        self._value_names: dict[str, ValueNames] = {}

    def value_names(self, key: str, column: LabelColumn) -> ValueNames:
        """The column's values' ranks and wire names (made again when the key's column is another)."""
        cached = self._value_names.get(key)
        if cached is None or cached.column is not column:
            cached = self._value_names[key] = ValueNames(key, column)
        return cached

    def cycle(self, table: NodeTable[NodeInfo], snapshot: SharedLister) -> "TermCounter":
        return TermCounter(self, table, snapshot)

    def names(self, key: str, column: LabelColumn) -> tuple[np.ndarray, np.ndarray]:
        """The column's values as an object array, and each code's rank in sorted value order."""
        names = self.value_names(key, column)
        return names.values, names.rank


class TermCounter:
    """One cycle's counting over the NodeTable, for PreFilter and PreScore.

    ``by_value`` is what ``matching.count_by_topology_value`` answers by walking candidate pods:
    every matching pod counts once at its node's value of the term's topology key; nodes without
    the key count nothing; values without a matching pod do not appear. The running pods' terms
    are matched once per distinct term (``ExistingTerms``). Everything syncs on first use.
    """

    __slots__ = ("_fast", "_table", "_labels_of_namespace", "_synced", "_snapshot")

    def __init__(self, fast: FastCounts, table: NodeTable[NodeInfo], snapshot: SharedLister) -> None:
        self._fast = fast
        self._table = table
        self._labels_of_namespace = snapshot.labels_of_namespace
        self._synced = False
        self._snapshot = snapshot

    def _sync(self) -> FastCounts:
        fast = self._fast
        if not self._synced:
            fast.existing.follow(fast.pod_counts, fast.pod_counts.sync(self._table))
            self._synced = True
        return fast

    # -- the incoming pod's terms

    def _codes_and_counts(self, key: str, per_node: np.ndarray) -> tuple[LabelColumn, np.ndarray, np.ndarray]:
        column = self._table.labels(key)
        codes, sums = weighted_bincount(column.codes, per_node)
        return column, codes, sums

    def count_incoming_terms(self, state: PreFilterState) -> tuple[PairColumns, PairColumns]:
        """filtering's _count_incoming_affinity and _count_incoming_anti_affinity from per-node
        counts, as columns: at each value of a term's key, the pods matching it (for affinity,
        matching ALL the pod's terms)."""
        info = state.pod_info
        affinity, anti = PairColumns(), PairColumns()
        terms = info.required_affinity_terms
        if terms:
            per_node = self._sync().pod_counts.all_terms_array(terms, self._labels_of_namespace)
            for term in terms:
                self._add_counts(affinity, term.topology_key, per_node)
        for term in info.required_anti_affinity_terms:
            per_node = self._sync().pod_counts.term_array(term, self._labels_of_namespace)
            self._add_counts(anti, term.topology_key, per_node)
        return affinity, anti

    def _add_counts(self, columns: PairColumns, key: str, per_node: np.ndarray) -> None:
        column, codes, sums = self._codes_and_counts(key, per_node)
        columns.add(key, self._fast.value_names(key, column), codes, sums)

    # -- running pods' terms

    def count_existing_anti_affinity(self, state: PreFilterState) -> PairColumns:
        """filtering._count_existing_anti_affinity as columns: one per matching term at its pod's
        node. No running pod with required anti-affinity (the snapshot keeps their nodes listed):
        nothing to count, and no need to bring the per-node counts up to date for it."""
        columns = PairColumns()
        if not self._snapshot.have_pods_with_required_anti_affinity():
            return columns
        sums = _Sums(self._table)
        pod = state.pod_info.pod
        for (_, term, _), nodes in self._sync().existing.matching(pod, state.namespace_labels, _REQUIRED_ANTI):
            sums.add_at_positions(term.topology_key, nodes, 1)
        for key, column, codes, totals in sums.entries():
            columns.add(key, self._fast.value_names(key, column), codes, totals)
        return columns

    def weigh(self, state: PreScoreState, has_preferred: bool, hard_weight: int) -> None:
        """scoring.compute_pre_score_state's sums, from per-node counts; also the lookup arrays
        score_batch reads (``state.lookups``)."""
        sums = _Sums(self._table)
        fast = self._sync()
        info = state.pod_info
        if has_preferred:
            for sign, terms in ((1, info.preferred_affinity_terms), (-1, info.preferred_anti_affinity_terms)):
                for weighted in terms:
                    term = weighted.term
                    per_node = fast.pod_counts.term_array(term, self._labels_of_namespace)
                    _, codes, counts = self._codes_and_counts(term.topology_key, per_node)
                    sums.add_at_codes(term.topology_key, codes, counts * (sign * weighted.weight))
        kinds = _SCORED if hard_weight > 0 else _SCORED_SOFT
        for (kind, term, weight), nodes in fast.existing.matching(info.pod, state.namespace_labels, kinds):
            amount = (
                hard_weight if kind == REQUIRED_AFFINITY else -weight if kind == PREFERRED_ANTI_AFFINITY else weight
            )
            sums.add_at_positions(term.topology_key, nodes, amount)
        lookups = state.lookups = {}
        for key, column, codes, totals in sums.entries(touched=True):
            names, rank = fast.names(key, column)
            order = np.argsort(rank[codes], kind="stable")  # in value order, as to_json shows them
            codes = codes[order]
            state.topology_score[key] = dict(zip(names[codes].tolist(), totals[order].tolist()))
            lookup = np.zeros(len(column.values) + 1, dtype=np.int64)
            lookup[codes] = totals[order]
            lookups[key] = lookup
        state.values_sorted = True


_REQUIRED_ANTI = frozenset((REQUIRED_ANTI_AFFINITY,))
_SCORED = frozenset((REQUIRED_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY))
_SCORED_SOFT = frozenset((PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY))


class _Sums:
    """Per topology key: an int64 sum per label code, and which codes were touched at all."""

    __slots__ = ("_table", "_by_key")

    def __init__(self, table: NodeTable[NodeInfo]) -> None:
        self._table = table
        self._by_key: dict[str, tuple[LabelColumn, np.ndarray, np.ndarray]] = {}

    def _entry(self, key: str) -> tuple[LabelColumn, np.ndarray, np.ndarray]:
        entry = self._by_key.get(key)
        if entry is None:
            column = self._table.labels(key)
            size = len(column.values)
            entry = self._by_key[key] = (column, np.zeros(size, dtype=np.int64), np.zeros(size, dtype=bool))
        return entry

    def add_at_codes(self, key: str, codes: np.ndarray, amounts: np.ndarray) -> None:
        """``codes`` distinct and present (as weighted_bincount returns them)."""
        if not len(codes):
            return
        _, totals, touched = self._entry(key)
        totals[codes] += amounts
        touched[codes] = True

    def add_at_positions(self, key: str, nodes: dict[int, int], amount: int) -> None:
        """``amount`` for each pod counted in ``nodes`` (position -> pods), at the node's value."""
        column, totals, touched = self._entry(key)
        positions = np.fromiter(nodes.keys(), dtype=np.int64, count=len(nodes))
        pods = np.fromiter(nodes.values(), dtype=np.int64, count=len(nodes))
        codes = column.codes[positions]
        present = codes >= 0
        codes, pods = codes[present], pods[present]
        if not len(codes):
            return
        totals += np.bincount(codes, weights=pods * amount, minlength=len(totals)).astype(np.int64)
        touched[codes] = True

    def entries(self, touched: bool = False) -> Iterator[tuple[str, LabelColumn, np.ndarray, np.ndarray]]:
        """(key, column, codes, their sums) per key: codes with a non-zero sum, or with ``touched``
        every code anything was added at (a zero sum included)."""
        for key, (column, totals, hit) in self._by_key.items():
            codes = np.flatnonzero(hit if touched else totals)
            if len(codes):
                yield key, column, codes, totals[codes]


def _lookup(table: NodeTable[NodeInfo], key: str, values: Iterable[tuple[str, int]], dtype: type[Any]) -> np.ndarray:
    """An array over the key's value codes (plus the missing slot, left 0) holding each value's number."""
    column = table.labels(key)
    lookup = np.zeros(len(column.values) + 1, dtype=dtype)
    for value, number in values:
        code = column.code_of.get(value)
        if code is not None:
            lookup[code] = number
    return lookup


def _positive_at(
    state: PreFilterState, which: int, table: NodeTable[NodeInfo], key: str, positions: np.ndarray
) -> np.ndarray:
    """Per node: the count at (key, node's value) is positive (False without the key), in the
    state's map ``which`` (0 existing_anti, 1 affinity, 2 anti); read from its columns while the
    state has them as counted (the map is not made)."""
    column = table.labels(key)
    codes = column.codes[positions]
    if state.columns is not None:
        positive = state.columns[which].positive_at(key, column, codes)
        if positive is not None:
            return positive
    counts = (state.existing_anti, state.affinity, state.anti)[which]
    lookup = _lookup(table, key, ((v, True) for (k, v), n in counts.items() if k == key and n > 0), bool)
    at_codes: np.ndarray = lookup[codes]
    return at_codes


def filter_batch(state: PreFilterState, table: NodeTable[NodeInfo], positions: np.ndarray) -> FilterVerdicts:
    choice = np.full(len(positions), PASS, dtype=np.int32)
    # Assigned in reverse order of the checks, so the first failing check's status wins.
    if state.has_existing_anti():
        keys = state.columns[0].keys() if state.columns is not None else {k for k, _ in state.existing_anti}
        for key in keys:
            choice[_positive_at(state, _EXISTING_MAP, table, key, positions)] = _EXISTING
    if state.has_anti():
        for term in state.pod_info.required_anti_affinity_terms:
            choice[_positive_at(state, _ANTI_MAP, table, term.topology_key, positions)] = _ANTI
    choice[~_affinity_satisfied(state, table, positions)] = _AFFINITY
    palette = [
        Status.unresolvable(REASON_AFFINITY),
        Status.unschedulable(REASON_ANTI_AFFINITY),
        Status.unschedulable(REASON_EXISTING_ANTI_AFFINITY),
    ]
    return FilterVerdicts(palette, choice)


def _affinity_satisfied(state: PreFilterState, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
    has_keys = np.ones(len(positions), dtype=bool)
    pods_exist = np.ones(len(positions), dtype=bool)
    for term in state.pod_info.required_affinity_terms:
        has_keys &= table.labels(term.topology_key).codes[positions] >= 0
        pods_exist &= _positive_at(state, _AFFINITY_MAP, table, term.topology_key, positions)
    if not state.has_affinity() and state.matches_own_affinity:
        return has_keys  # the first pod of a self-affine group
    return has_keys & pods_exist


def score_batch(state: PreScoreState, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
    total = np.zeros(len(positions), dtype=np.int64)
    lookups = state.lookups
    for key, values in state.topology_score.items():
        lookup = lookups[key] if lookups is not None else _lookup(table, key, values.items(), np.int64)
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
