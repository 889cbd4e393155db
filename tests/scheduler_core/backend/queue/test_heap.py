"""KeyedHeap: pops in key order; its listing (kept in order as items come and go) is the sorted live items."""

from __future__ import annotations

import random

from scheduler_core.backend.queue.heap import KeyedHeap


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
