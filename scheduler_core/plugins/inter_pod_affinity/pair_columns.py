"""A topology-pair count map's columnar twin: per topology key, a count per value code of its label column.

The fast path counts by label codes and writes the maps (``filtering.PairCounts``) that Filter's
per-node checks, preemption's updates and the reference read. A map keyed by hostname has a pair per
node (thousands) and is read whole twice a cycle: Filter's batch looks every node up in it, and the
recorder writes it sorted by pair. While a state's maps are as counted, both read these columns
instead: one array lookup per node, and the pairs put in order by NumPy from each value's rank.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any, Optional

import numpy as np

from scheduler_core.framework.node_table import LabelColumn
from scheduler_core.util.recent import RecentlyMade


class ValueNames:
    """A label column's values as an object array, each code's ``rank`` in sorted value order, and
    each value as its pair's wire name (``key=value``, made when first asked): made once per column,
    for PreFilter's columns and PreScore's named totals alike."""

    __slots__ = ("key", "column", "values", "rank", "_wire_names")

    def __init__(self, key: str, column: LabelColumn) -> None:
        self.key = key
        self.column = column
        self.values = np.empty(len(column.values), dtype=object)
        self.values[:] = column.values
        self.rank = np.empty(len(column.values), dtype=np.int64)
        self.rank[sorted(range(len(column.values)), key=column.values.__getitem__)] = np.arange(len(column.values))
        self._wire_names: Optional[np.ndarray] = None

    @property
    def wire_names(self) -> np.ndarray:
        if self._wire_names is None:
            self._wire_names = np.empty(len(self.values), dtype=object)
            self._wire_names[:] = [f"{self.key}={value}" for value in self.column.values]
        return self._wire_names


class PairColumns:
    """``{(key, value): count}`` as, per key, its label column and an int64 count per value code
    (one slot more, never counted at: a node without the key reads 0 there). Filled once, by the
    fast path's counting; read-only after."""

    __slots__ = ("_by_key",)

    def __init__(self) -> None:
        self._by_key: dict[str, tuple[ValueNames, np.ndarray]] = {}

    def add(self, key: str, names: ValueNames, codes: np.ndarray, amounts: np.ndarray) -> None:
        """``amounts`` at ``codes`` (distinct codes of the key's column)."""
        entry = self._by_key.get(key)
        if entry is None:
            entry = self._by_key[key] = (names, np.zeros(len(names.column.values) + 1, dtype=np.int64))
        entry[1][codes] += amounts

    def pairs(self) -> dict[tuple[str, str], int]:
        """The map: ``(key, value)`` to count, for each count that is not zero."""
        counts_of: dict[tuple[str, str], int] = {}
        for key, (names, counts) in self._by_key.items():
            codes = np.flatnonzero(counts[:-1])
            values = map(names.column.values.__getitem__, codes.tolist())
            counts_of.update(zip(zip(repeat(key), values), counts[codes].tolist()))
        return counts_of

    def counted(self) -> bool:
        """The map is not empty."""
        return any(counts.any() for _, counts in self._by_key.values())

    def keys(self) -> list[str]:
        """The topology keys the map has a pair of."""
        return [key for key, (_, counts) in self._by_key.items() if counts.any()]

    def content(self) -> tuple[Any, ...]:
        """What tells two maps apart, compared at C speed: per key its column's values (the list
        itself, which never changes: the same column's compares by identity, value by value) and
        its counts as bytes."""
        return tuple(
            (key, names.column.values, counts.tobytes()) for key, (names, counts) in sorted(self._by_key.items())
        )

    def positive_at(self, key: str, column: LabelColumn, codes: np.ndarray) -> Optional[np.ndarray]:
        """Per node (its code in ``column``): the count at its pair is positive. None when the
        counts were taken over another column of the key (the caller reads the map)."""
        entry = self._by_key.get(key)
        if entry is None:
            return np.zeros(len(codes), dtype=bool)
        if entry[0].column is not column:
            return None
        positive: np.ndarray = entry[1][codes] > 0
        return positive

    def wire(self) -> dict[str, int]:
        """``filtering.pair_counts_json`` of the map: ``key=value`` to count, sorted by pair."""
        written: dict[str, int] = {}
        for key in sorted(self._by_key):
            names, counts = self._by_key[key]
            codes = np.flatnonzero(counts[:-1])
            codes = codes[np.argsort(names.rank[codes], kind="stable")]
            written.update(zip(names.wire_names[codes].tolist(), counts[codes].tolist()))
        return written

    def same_counts(self, other: PairColumns) -> bool:
        """The same pairs with the same counts, over the same columns (compared by NumPy)."""
        if self._by_key.keys() != other._by_key.keys():
            return False
        for key, (names, counts) in self._by_key.items():
            other_names, other_counts = other._by_key[key]
            if other_names is not names or not np.array_equal(counts, other_counts):
                return False
        return True


def columns_json(columns: PairColumns) -> dict[str, int]:
    """``columns.wire()``; equal counts among the last few written (compared by NumPy) have their
    form copied rather than sorted and written again."""
    return dict(WRITTEN.get(columns, PairColumns.wire))


def shared_pairs(columns: PairColumns) -> dict[tuple[str, str], int]:
    """``columns.pairs()``, or the map made for equal counts a little earlier: the same object,
    which its holders share and never change (a state copies it before its own change)."""
    return MADE.get(columns, PairColumns.pairs)


_KEPT = 4  # a cycle makes three: the existing pods' anti-affinity, the pod's affinity, its anti-affinity
WRITTEN: RecentlyMade[PairColumns, dict[str, int]] = RecentlyMade(_KEPT, PairColumns.same_counts)
MADE: RecentlyMade[PairColumns, dict[tuple[str, str], int]] = RecentlyMade(_KEPT, PairColumns.same_counts)
