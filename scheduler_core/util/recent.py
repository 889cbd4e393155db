"""The last few things made, found again by what they were made from.

The replicas of copied workloads, one cycle after another, mostly see the counts the last ones saw.
Where making a form of such counts is dear (sorting and writing thousands of pairs) and telling two
sources apart is cheap (compared in C or by NumPy), the last few made are kept beside their sources
and a source equal to one of them gets what was made for it.
"""

from __future__ import annotations

from typing import Callable, Generic, Optional, TypeVar

Source = TypeVar("Source")
Made = TypeVar("Made")


class RecentlyMade(Generic[Source, Made]):
    """The last ``kept`` sources and what was made of each, newest (or most recently found) first."""

    __slots__ = ("_kept", "_same", "_entries")

    def __init__(self, kept: int, same: Callable[[Source, Source], bool]) -> None:
        self._kept = kept
        self._same = same
        self._entries: list[tuple[Source, Made]] = []

    def find(self, source: Source) -> Optional[Made]:
        """What was made of a source ``same`` as this one (moved to the front: it stays while
        others are made), or None."""
        for index, (known, made) in enumerate(self._entries):
            if known is source or self._same(known, source):
                if index:
                    self._entries.insert(0, self._entries.pop(index))
                return made
        return None

    def keep(self, source: Source, made: Made) -> Made:
        """Keep ``made`` as what ``source`` gives; the oldest beyond ``kept`` are let go."""
        self._entries.insert(0, (source, made))
        del self._entries[self._kept :]
        return made

    def get(self, source: Source, make: Callable[[Source], Made]) -> Made:
        """What was made of an equal source, else ``make(source)``, kept."""
        found = self.find(source)
        return self.keep(source, make(source)) if found is None else found

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
