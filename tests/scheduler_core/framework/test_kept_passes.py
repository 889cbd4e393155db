"""framework/kept_passes.py: a few recent answers kept by inputs compared by equality."""

from __future__ import annotations

from scheduler_core.framework.kept_passes import RecentlyKept


def test_an_answer_is_read_back_under_equal_inputs_only():
    kept: RecentlyKept[str] = RecentlyKept()
    kept.put((1, "a", {"x": 1}), "first")
    assert kept.get((1, "a", {"x": 1})) == "first", "equal, not identical, inputs"
    assert kept.get((1, "a", {"x": 2})) is None
    assert (kept.hits, kept.misses) == (1, 1)


def test_the_oldest_answer_goes_first_and_a_read_makes_one_the_latest():
    kept: RecentlyKept[int] = RecentlyKept(size=2)
    kept.put((1,), 1)
    kept.put((2,), 2)
    assert kept.get((1,)) == 1  # now the latest: (2,) is the oldest
    kept.put((3,), 3)
    assert (kept.get((1,)), kept.get((2,)), kept.get((3,))) == (1, None, 3)


def test_clear_forgets_every_answer():
    kept: RecentlyKept[int] = RecentlyKept()
    kept.put((1,), 1)
    kept.clear()
    assert kept.get((1,)) is None
