"""DefaultPreemption's reprieve order beyond Go's insertion-sort range (more than 12 potential victims).

selectVictimsOnNode sorts the potential victims with sort.Slice and util.MoreImportantPod; pods
without a start time tie "more important" both ways, so the order is the one Go's pdqsort leaves.
The expected orders were printed by a Go program running sort.Slice with that comparator on the
same priorities (Go 1.19's sort package with Go 1.24+'s xorshift, see tests/scheduler_core/util/test_gosort.py).
"""

from __future__ import annotations

import pytest

from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.interfaces import PostFilterResult
from scheduler_core.framework.preemption.victims import by_importance, more_important
from tests.scheduler_core.builders import make_node, preemptor, run_post_filter, running

# Priorities by node order, and the node-order indexes in the order Go's sort.Slice leaves them.
TWENTY_EQUAL = [1] * 20
TWENTY_EQUAL_GO = [6, 0, 4, 16, 12, 3, 17, 1, 9, 15, 14, 7, 5, 13, 8, 18, 2, 11, 19, 10]
ALTERNATING = [3, 1] * 8
ALTERNATING_GO = [6, 10, 4, 12, 2, 14, 0, 8, 15, 1, 13, 3, 11, 5, 9, 7]


def _pods(priorities):
    return [running(f"p{i:02d}", "n1", 100, prio) for i, prio in enumerate(priorities)]


@pytest.mark.parametrize(
    "priorities, go_order",
    [(TWENTY_EQUAL, TWENTY_EQUAL_GO), (ALTERNATING, ALTERNATING_GO)],
    ids=["twenty-equal", "alternating"],
)
def test_by_importance_is_go_sort_slice_order(priorities, go_order):
    infos = [PodInfo(pod) for pod in _pods(priorities)]
    assert [infos.index(info) for info in by_importance(infos)] == go_order


def test_up_to_twelve_equal_pods_keep_the_reverse_node_order():
    infos = [PodInfo(pod) for pod in _pods([1] * 12)]
    assert by_importance(infos) == infos[::-1]


def test_more_important_is_priority_then_always_true():
    low, high, other_low = (PodInfo(p) for p in _pods([1, 5, 1]))
    assert more_important(high, low) and not more_important(low, high)
    assert more_important(low, other_low) and more_important(other_low, low)


@pytest.mark.parametrize(
    "priorities, go_order",
    [(TWENTY_EQUAL, TWENTY_EQUAL_GO), (ALTERNATING, ALTERNATING_GO)],
    ids=["twenty-equal", "alternating"],
)
def test_the_last_pods_in_go_order_are_the_victims(priorities, go_order):
    # A full node of 100m pods; the preemptor needs 300m, so all but the last three reprieved fit.
    pods = _pods(priorities)
    outcome = run_post_filter([make_node("n1", cpu=100 * len(pods))], pods, preemptor(cpu=300))
    victims = sorted(f"default/p{i:02d}" for i in go_order[-3:])
    assert outcome.code == "Success"
    assert outcome.result == PostFilterResult("n1", {"n1": victims}, victims)
