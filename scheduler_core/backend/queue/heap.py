"""A keyed heap (backend/heap): items addressed by key, popped in key order.

Each item's sort key is computed when it is added; the queue re-adds an item whenever what its
order depends on changes (a new timestamp, a new back-off), as the release's AddOrUpdate does.
Sort keys must be total (every key a tuple that ends with a unique value) so that popping is
deterministic where Go's heap would be arbitrary.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from typing import Any, Callable, Generic, Iterator, Optional, TypeVar

T = TypeVar("T")


class KeyedHeap(Generic[T]):
    """Besides the heap, the live items are kept listed in key order (``_order`` with their keys
    alongside), updated on every add, delete and pop: a picture of the queue costs a list copy,
    not a sort, however often the run takes one."""

    def __init__(self, key_of: Callable[[T], str], sort_key: Callable[[T], Any]) -> None:
        self._key_of = key_of
        self._sort_key = sort_key
        self._entries: list[tuple[Any, int, str]] = []
        self._items: dict[str, tuple[int, T, Any]] = {}  # key -> (entry id, item, sort key)
        self._ids = itertools.count()
        self._order: list[tuple[Any, int]] = []  # (sort key, entry id) of every live item, ascending
        self._order_keys: list[str] = []  # their keys, in the same order

    def add_or_update(self, item: T) -> None:
        entry_id = next(self._ids)
        key = self._key_of(item)
        sort_key = self._sort_key(item)
        replaced = self._items.get(key)
        if replaced is not None:
            self._unlist(replaced)
        self._items[key] = (entry_id, item, sort_key)
        heapq.heappush(self._entries, (sort_key, entry_id, key))
        at = bisect.bisect_left(self._order, (sort_key, entry_id))
        self._order.insert(at, (sort_key, entry_id))
        self._order_keys.insert(at, key)

    def delete(self, item: T) -> bool:
        found = self._items.pop(self._key_of(item), None)
        if found is None:
            return False
        self._unlist(found)
        return True

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
        found = self._items.pop(key)
        self._unlist(found)
        return found[1]

    def _unlist(self, found: tuple[int, T, Any]) -> None:
        entry_id, _, sort_key = found
        at = bisect.bisect_left(self._order, (sort_key, entry_id))
        del self._order[at]
        del self._order_keys[at]

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
        """The items in key order (for pictures of the queue)."""
        items = self._items
        return iter([items[key][1] for key in self._order_keys])

    def keys(self) -> list[str]:
        """The items' keys in key order (a copy)."""
        return list(self._order_keys)
