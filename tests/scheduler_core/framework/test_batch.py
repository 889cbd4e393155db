"""framework/batch.py: the fast path's structures and the per-node fallbacks that produce them
(so the two paths are interchangeable), plus Go's integer division and helper.DefaultNormalizeScore."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from scheduler_core.framework.batch import (
    PASS,
    FilterVerdicts,
    Palette,
    default_normalize,
    filter_per_node,
    go_div,
    normalize_per_node,
    score_per_node,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot

SMALL = Status.unschedulable("node too small")


class BySize:
    """Rejects nodes under 2000m cpu, scores each node by its cpu in cores, fails on "broken"."""

    name: ClassVar[str] = "BySize"

    def filter(self, state, pod, node_info):
        return SMALL if node_info.allocatable["cpu"] < 2000 else None

    def score(self, state, pod, node_info):
        if node_info.name == "broken":
            return 0, Status.error("cannot score")
        return node_info.allocatable["cpu"] // 1000, None

    def normalize_score(self, state, pod, scores):
        if any(s.score < 0 for s in scores):
            return Status.error("negative")
        for s in scores:
            s.score *= 10
        return None


def _table(*cpus: int, names=None):
    names = names or [f"n{i}" for i in range(len(cpus))]
    return make_snapshot([make_node(name, cpu=cpu) for name, cpu in zip(names, cpus)]).table


def test_verdicts_from_a_mask_and_all_passing():
    verdicts = FilterVerdicts.from_mask(np.array([True, False, True]), SMALL)
    assert verdicts.palette == [SMALL] and verdicts.choice.tolist() == [0, PASS, 0]
    assert verdicts.failed.tolist() == [True, False, True]
    assert FilterVerdicts.all_pass(2).failed.tolist() == [False, False]


def test_a_palette_keeps_each_distinct_status_once():
    palette = Palette()
    assert [palette.add(SMALL), palette.add(Status.unschedulable("other")), palette.add(SMALL)] == [0, 1, 0]
    assert len(palette.statuses) == 2
    # the same object again, and an equal one after another status: the first entry each time
    equal = Status.unschedulable("node too small")
    assert [palette.add(SMALL), palette.add(SMALL), palette.add(equal), palette.add(Status.unschedulable("x"))] == [
        0,
        0,
        0,
        2,
    ]
    assert palette.statuses == [SMALL, Status.unschedulable("other"), Status.unschedulable("x")]


def test_filter_per_node_runs_the_plugins_filter_on_the_positions_asked():
    table = _table(1000, 4000, 1500)
    verdicts = filter_per_node(BySize(), CycleState(), make_pod("p"), table, np.array([2, 1, 0]))
    assert verdicts.palette == [SMALL] and verdicts.choice.tolist() == [0, PASS, 0]


def test_score_per_node_returns_the_scores_or_the_first_failure():
    table = _table(1000, 4000, 3000, names=["a", "b", "broken"])
    assert score_per_node(BySize(), CycleState(), make_pod("p"), table, np.array([1, 0])).tolist() == [4, 1]
    failed = score_per_node(BySize(), CycleState(), make_pod("p"), table, np.array([0, 2]))
    assert isinstance(failed, Status) and failed.code == Code.ERROR


def test_normalize_per_node_goes_through_node_scores():
    normalized = normalize_per_node(BySize(), CycleState(), make_pod("p"), ["a", "b"], np.array([1, 4]))
    assert normalized.tolist() == [10, 40]
    failed = normalize_per_node(BySize(), CycleState(), make_pod("p"), ["a"], np.array([-1]))
    assert isinstance(failed, Status) and failed.reasons == ("negative",)


def test_go_div_truncates_toward_zero():
    assert go_div(np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])).tolist() == [3, -3, -3, 3]


def test_default_normalize_scales_to_the_maximum_and_reverses():
    """helper.DefaultNormalizeScore: score * 100 / max, reversed as 100 - that."""
    assert default_normalize(np.array([0, 5, 10]), 100, reverse=False).tolist() == [0, 50, 100]
    assert default_normalize(np.array([0, 5, 10]), 100, reverse=True).tolist() == [100, 50, 0]
    assert default_normalize(np.array([3, 7]), 100, reverse=False).tolist() == [42, 100]  # 300 / 7 = 42
    assert default_normalize(np.array([0, 0]), 100, reverse=True).tolist() == [100, 100]
    assert default_normalize(np.array([0, 0]), 100, reverse=False).tolist() == [0, 0]
    assert default_normalize(np.array([], dtype=np.int64), 100, reverse=True).tolist() == []
