"""Vectorised Filter and Score over many nodes at once (the fast path).

A plugin may offer, beside its per-node ``filter``/``score``:

    filter_batch(state, pod, table, positions) -> FilterVerdicts | None   (None: every node passes)
    score_batch(state, pod, table, positions) -> np.ndarray[int64]
    normalize_batch(state, pod, scores: np.ndarray) -> np.ndarray[int64]  (with ScoreExtensions)

``positions`` are indexes into the NodeTable (document order). For a plugin without them the
framework falls back to its per-node methods, producing the same structures, so the two paths are
interchangeable and tests compare them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import FilterPlugin, NodeScore, NormalizeScorePlugin, ScorePlugin
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import Pod

PASS = -1
# all_pass's choices: views of one read-only array, grown as needed (a verdict is never changed in
# place: those who change one copy its choices first)
_all_pass = np.full(0, PASS, dtype=np.int32)


@dataclass(slots=True)
class FilterVerdicts:
    """One plugin's Filter result over ``positions``: ``choice[i]`` indexes ``palette`` or is PASS."""

    palette: list[Status]
    choice: np.ndarray  # int32, one per position

    @classmethod
    def all_pass(cls, count: int) -> "FilterVerdicts":
        global _all_pass
        if len(_all_pass) < count:
            _all_pass = np.full(max(count, 2 * len(_all_pass)), PASS, dtype=np.int32)
            _all_pass.flags.writeable = False
        return cls([], _all_pass[:count])

    @classmethod
    def from_mask(cls, failed: np.ndarray, status: Status) -> "FilterVerdicts":
        return cls([status], np.where(failed, 0, PASS).astype(np.int32))

    @property
    def failed(self) -> np.ndarray:
        failed: np.ndarray = self.choice != PASS
        return failed


class Palette:
    """Collects distinct statuses while a plugin builds its verdicts (reasons combine, e.g. cpu+memory)."""

    def __init__(self) -> None:
        self.statuses: list[Status] = []
        self._index: dict[Status, int] = {}
        # A plugin that hands out one status object for many nodes is found by identity, without
        # hashing the status again (a Python-level hash of its fields) for each node.
        self._last: Optional[Status] = None
        self._last_index = -1

    def add(self, status: Status) -> int:
        if status is self._last:
            return self._last_index
        index = self._index.get(status)
        if index is None:
            index = self._index[status] = len(self.statuses)
            self.statuses.append(status)
        self._last, self._last_index = status, index
        return index


def filter_per_node(
    plugin: FilterPlugin, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
) -> FilterVerdicts:
    """The fallback: the plugin's own ``filter`` on each node."""
    palette = Palette()
    choice = np.full(len(positions), PASS, dtype=np.int32)
    infos = table.node_infos
    for i, position in enumerate(positions.tolist()):
        status = plugin.filter(state, pod, infos[position])
        if status is not None and status.code != Code.SUCCESS:
            choice[i] = palette.add(status)
    return FilterVerdicts(palette.statuses, choice)


def score_per_node(
    plugin: ScorePlugin, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
) -> np.ndarray | Status:
    """The fallback: the plugin's own ``score`` on each node; the first failed status instead."""
    infos = table.node_infos
    values = np.empty(len(positions), dtype=np.int64)
    for i, position in enumerate(positions.tolist()):
        value, status = plugin.score(state, pod, infos[position])
        if status is not None and status.code != Code.SUCCESS:
            return status
        values[i] = value
    return values


def normalize_per_node(
    plugin: NormalizeScorePlugin, state: CycleState, pod: Pod, names: Sequence[str], raw: np.ndarray
) -> np.ndarray | Status:
    """The plugin's own ``normalize_score`` over NodeScores; its failed status instead."""
    scores = [NodeScore(name, int(value)) for name, value in zip(names, raw.tolist())]
    status = plugin.normalize_score(state, pod, scores)
    if status is not None and status.code != Code.SUCCESS:
        return status
    return np.fromiter((s.score for s in scores), dtype=np.int64, count=len(scores))


def go_div(numerator: np.ndarray, denominator: Any) -> np.ndarray:
    """Go's integer division (truncates toward zero) on int64 arrays; denominators are non-zero."""
    quotient = np.abs(numerator) // np.abs(denominator)
    truncated: np.ndarray = np.where((numerator < 0) != (np.asarray(denominator) < 0), -quotient, quotient)
    return truncated


def default_normalize(scores: np.ndarray, max_priority: int, reverse: bool) -> np.ndarray:
    """helper.DefaultNormalizeScore, vectorised: the maximum starts at 0, as in Go."""
    if len(scores) == 0:
        return scores
    highest = max(int(np.maximum.reduce(scores)), 0)
    if highest == 0:
        return np.full_like(scores, max_priority) if reverse else scores.copy()
    normalized = go_div(scores * max_priority, highest)
    return max_priority - normalized if reverse else normalized
