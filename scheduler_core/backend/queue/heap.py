"""A keyed heap (backend/heap): items addressed by key, popped in key order.

Each item's sort key is computed when it is added; the queue re-adds an item whenever what its
order depends on changes (a new timestamp, a new back-off), as the release's AddOrUpdate does.
Sort keys must be total (every key a tuple that ends with a unique value) so that popping is
deterministic where Go's heap would be arbitrary.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Callable, Generic, Iterator, Optional, TypeVar

T = TypeVar("T")


class KeyedHeap(Generic[T]):
    def __init__(self, key_of: Callable[[T], str], sort_key: Callable[[T], Any]) -> None:
        self._key_of = key_of
        self._sort_key = sort_key
        self._entries: list[tuple[Any, int, str]] = []
        self._items: dict[str, tuple[int, T]] = {}  # key -> (entry id, item)
        self._ids = itertools.count()

    def add_or_update(self, item: T) -> None:
        entry_id = next(self._ids)
        key = self._key_of(item)
        self._items[key] = (entry_id, item)
        heapq.heappush(self._entries, (self._sort_key(item), entry_id, key))

    def delete(self, item: T) -> bool:
        return self._items.pop(self._key_of(item), None) is not None

    def get(self, key: str) -> Optional[T]:
        found = self._items.get(key)
        return found[1] if found else None

    def has(self, item: T) -> bool:
        return self._key_of(item) in self._items

    def peek(self) -> Optional[T]:
        self._drop_stale()
        return self._items[self._entries[0][2]][1] if self._entries else None

    def pop(self) -> Optional[T]:
        self._drop_stale()
        if not self._entries:
            return None
        _, _, key = heapq.heappop(self._entries)
        return self._items.pop(key)[1]

    def _drop_stale(self) -> None:
        entries, items = self._entries, self._items
        while entries:
            _, entry_id, key = entries[0]
            live = items.get(key)
            if live is not None and live[0] == entry_id:
                return
            heapq.heappop(entries)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        """The items in key order (for pictures of the queue; not on a hot path)."""
        return iter(sorted((item for _, item in self._items.values()), key=self._sort_key))
