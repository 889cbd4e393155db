"""Run a score plugin the way the framework does: PreScore, Score on each node, NormalizeScore."""

from __future__ import annotations

from typing import Optional

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status
from scheduler_core.model import Pod


def run_scoring(
    plugin, pod: Pod, nodes: list[NodeInfo], state: Optional[CycleState] = None
) -> tuple[Optional[Status], list[int], list[int]]:
    """Returns (PreScore status, raw scores, normalized scores); a skipped plugin scores nothing."""
    state = state or CycleState()
    pre_score = plugin.pre_score(state, pod, nodes) if hasattr(plugin, "pre_score") else None
    if pre_score is not None:
        return pre_score, [], []
    scores = []
    for node in nodes:
        value, status = plugin.score(state, pod, node)
        assert status is None
        scores.append(NodeScore(node.name, value))
    raw = [s.score for s in scores]
    if hasattr(plugin, "normalize_score"):
        assert plugin.normalize_score(state, pod, scores) is None
    return None, raw, [s.score for s in scores]
