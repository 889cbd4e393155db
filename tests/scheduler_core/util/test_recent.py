import operator

from scheduler_core.util.recent import RecentlyMade


def _made(made: list[str]):
    def make(source: list[int]) -> str:
        made.append(str(source))
        return str(source)

    return make


def test_an_equal_source_gets_what_was_made_for_the_first():
    recent: RecentlyMade[list[int], str] = RecentlyMade(2, operator.eq)
    made: list[str] = []
    first = recent.get([1, 2], _made(made))
    again = recent.get([1, 2], _made(made))
    assert again is first and made == ["[1, 2]"]


def test_the_oldest_beyond_kept_is_let_go_and_a_find_keeps_an_entry():
    recent: RecentlyMade[list[int], str] = RecentlyMade(2, operator.eq)
    made: list[str] = []
    recent.get([1], _made(made))
    recent.get([2], _made(made))
    assert recent.find([1]) == "[1]"  # now the newest: [2] is the oldest
    recent.get([3], _made(made))
    assert len(recent) == 2
    assert recent.find([2]) is None
    assert recent.find([1]) == "[1]" and recent.find([3]) == "[3]"


def test_sameness_is_the_callers():
    recent: RecentlyMade[str, int] = RecentlyMade(4, lambda known, source: known.lower() == source.lower())
    recent.keep("Pod", 1)
    assert recent.find("POD") == 1
    assert recent.find("node") is None
    recent.clear()
    assert recent.find("pod") is None
