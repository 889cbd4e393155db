"""What an attempt found, kept for the next attempts whose inputs are equal to its own.

A pod that fits nowhere is tried again after every change that might help it, and the replicas of
a workload (the same spec, other names) are tried one after the other: between two such attempts
the cluster often did not change at all — each failure writes only the pod's own status. The
second attempt then reads exactly what the first read, so its Filter pass is the first's.
``RecentlyKept`` holds a few recent answers by their inputs (compared by equality, the cheapest
differences first); the caller says what the inputs are (run/schedule_one.py: the node table and
its version, the start index, the nominations the pass adds, the pod's scheduling fields and its
PreFilter states, ``kept_verdicts.filter_inputs``).
"""

from __future__ import annotations

from typing import Any, Generic, Optional, TypeVar

V = TypeVar("V")

RECENT = 8  # the answers of this many distinct inputs are kept (a copied workload has a few pod shapes)


class RecentlyKept(Generic[V]):
    """The answers of the last few distinct inputs, the latest first. Inputs are tuples compared
    item by item (a tuple compares its items by identity first, then by value)."""

    __slots__ = ("_recent", "_size", "hits", "misses")

    def __init__(self, size: int = RECENT) -> None:
        self._recent: list[tuple[tuple[Any, ...], V]] = []
        self._size = size
        self.hits = 0  # answers read back (tests and measurements read the counts)
        self.misses = 0

    def get(self, inputs: tuple[Any, ...]) -> Optional[V]:
        """The answer kept under inputs equal to these, now the latest; None if there is none."""
        for index, (known, answer) in enumerate(self._recent):
            if known == inputs:
                if index:
                    self._recent.insert(0, self._recent.pop(index))
                self.hits += 1
                return answer
        self.misses += 1
        return None

    def put(self, inputs: tuple[Any, ...], answer: V) -> None:
        """Keep ``answer`` under ``inputs`` (which must not change later), dropping the oldest."""
        self._recent.insert(0, (inputs, answer))
        del self._recent[self._size :]

    def clear(self) -> None:
        self._recent.clear()
