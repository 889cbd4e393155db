"""backend/queue/heap.py: a keyed heap whose items are re-added when their order changes."""

from __future__ import annotations

import random

from scheduler_core.backend.queue.heap import KeyedHeap


def _heap() -> KeyedHeap[tuple[str, int]]:
    return KeyedHeap(key_of=lambda item: item[0], sort_key=lambda item: (item[1], item[0]))


def test_it_pops_in_sort_key_order():
    heap = _heap()
    for item in [("b", 2), ("a", 2), ("c", 1)]:
        heap.add_or_update(item)
    assert [heap.pop(), heap.pop(), heap.pop(), heap.pop()] == [("c", 1), ("a", 2), ("b", 2), None]


def test_re_adding_an_item_replaces_it_and_its_old_place_is_forgotten():
    heap = _heap()
    heap.add_or_update(("a", 1))
    heap.add_or_update(("b", 2))
    heap.add_or_update(("a", 3))
    assert (len(heap), heap.peek(), heap.get("a")) == (2, ("b", 2), ("a", 3))
    assert [heap.pop(), heap.pop()] == [("b", 2), ("a", 3)]


def test_a_deleted_item_is_never_popped():
    heap = _heap()
    heap.add_or_update(("a", 1))
    heap.add_or_update(("b", 2))
    assert heap.delete(("a", 1)) and not heap.delete(("zz", 0))
    assert (heap.has(("a", 1)), heap.pop(), heap.pop()) == (False, ("b", 2), None)


def test_iterating_lists_the_items_in_order_without_popping():
    heap = _heap()
    for item in [("b", 2), ("c", 1)]:
        heap.add_or_update(item)
    assert (list(heap), len(heap)) == ([("c", 1), ("b", 2)], 2)


def test_the_listing_is_the_live_items_sorted_through_adds_updates_deletes_and_pops():
    rng = random.Random(7)
    ranks: dict[str, tuple[int, int]] = {}
    heap: KeyedHeap[str] = KeyedHeap(lambda name: name, lambda name: ranks[name])
    live: set[str] = set()
    for step in range(1200):
        name = f"p{rng.randrange(60)}"
        action = rng.random()
        if action < 0.5:
            ranks[name] = (rng.randrange(5), step)  # a new priority and timestamp: re-added
            heap.add_or_update(name)
            live.add(name)
        elif action < 0.7:
            assert heap.delete(name) == (name in live)
            live.discard(name)
        else:
            popped = heap.pop()
            expected = min(live, key=lambda n: ranks[n]) if live else None
            assert popped == expected
            live.discard(popped)
        ordered = sorted(live, key=lambda n: ranks[n])
        assert list(heap) == ordered and heap.keys() == ordered and len(heap) == len(live)
