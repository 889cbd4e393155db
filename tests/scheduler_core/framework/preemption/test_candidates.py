"""pickOneNodeForPreemption's criteria, in order (pkg/scheduler/framework/preemption, v1.35.4)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import random

import pytest

from scheduler_core.framework.preemption.candidates import (
    Candidate,
    _walk,
    best_candidates,
    earliest_start_of_highest_priority,
)
from scheduler_core.framework.preemption.victims import Victims
from tests.scheduler_core.builders import make_pod

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


def victim(name: str, priority: int, started: int | None = 0):
    return make_pod(name, priority=priority, start_time=None if started is None else T0 + timedelta(minutes=started))


def candidate(node: str, *pods, violations: int = 0) -> Candidate:
    return Candidate(node, Victims(tuple(pods), violations))


def best(*candidates) -> list[str]:
    return [c.node for c in best_candidates(list(candidates))]


def test_fewest_pdb_violations_first():
    assert best(candidate("n1", victim("a", 1), violations=1), candidate("n2", victim("b", 9))) == ["n2"]


def test_then_the_lowest_highest_priority():
    assert best(candidate("n1", victim("a", 5)), candidate("n2", victim("b", 1), victim("c", 1))) == ["n2"]


def test_then_the_smallest_priority_sum_then_the_fewest_victims():
    assert best(candidate("n1", victim("a", 3), victim("b", 3)), candidate("n2", victim("c", 3), victim("d", -5))) == [
        "n2"
    ]
    assert best(candidate("n1", victim("a", 0), victim("b", 0)), candidate("n2", victim("c", 0))) == ["n2"]


def test_then_the_node_whose_highest_priority_victims_started_latest():
    # GetEarliestPodStartTime among the highest-priority victims; the latest of those wins.
    early = candidate("n1", victim("a", 1, started=0), victim("z", 0, started=50))
    late = candidate("n2", victim("b", 1, started=30), victim("y", 0, started=0))
    assert earliest_start_of_highest_priority(early.victims) == T0
    assert best(early, late) == ["n2"]


def test_victims_without_a_start_time_read_now_and_tie_with_each_other():
    # time.Now() is later than any recorded start: such nodes win, and tie among themselves (the
    # real scheduler's random pick; a run to the end takes the first in node order).
    started = candidate("n1", victim("a", 1, started=0))
    fresh_1, fresh_2 = candidate("n2", victim("b", 1, started=None)), candidate("n3", victim("c", 1, started=None))
    assert best(started, fresh_1, fresh_2) == ["n2", "n3"]


@pytest.mark.parametrize("seed", range(20))
def test_the_best_candidates_are_those_the_explained_walk_keeps(seed):
    rng = random.Random(seed)
    starts = [None, 0, 10, 20]
    candidates = [
        candidate(
            f"n{i}",
            *(victim(f"p{i}-{k}", rng.choice([0, 1, 5]), rng.choice(starts)) for k in range(rng.randint(1, 3))),
            violations=rng.choice([0, 0, 1]),
        )
        for i in range(rng.randint(1, 40))
    ]
    best_nodes = [c.node for c in best_candidates(candidates)]
    assert best_nodes == [c.node for c in _walk(candidates).remaining]
    assert best_candidates(candidates) is not candidates  # a new list, as the walk's
