"""Logic shared by the in-tree plugins (framework/plugins/helper), written once.

Integer arithmetic follows Go: ``int64`` division truncates toward zero and ``math.Round`` rounds
halves away from zero, which Python's ``//`` and ``round`` do not; the scores in the conformance
corpus depend on the difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.labels import map_selector_matches, node_selector_matches
from scheduler_core.model import Node, Pod, Taint, TaintEffect, Toleration

# ---------------------------------------------------------------------------- Go arithmetic


def go_div(numerator: int, denominator: int) -> int:
    """Go's integer division: the quotient truncated toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def go_round(value: float) -> int:
    """Go's ``math.Round``: to the nearest integer, halves away from zero."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


# ---------------------------------------------------------------------------- normalisation


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> MaybeStatus:
    """helper.DefaultNormalizeScore: scale [0, max(scores)] to [0, max_priority], in place.

    ``reverse`` turns the scale around (a high raw score becomes a low normalized one). When every
    score is 0 the scores stay 0, or all become ``max_priority`` when reversed.
    """
    highest = max((s.score for s in scores), default=0)
    highest = max(highest, 0)
    if highest == 0:
        if reverse:
            for entry in scores:
                entry.score = max_priority
        return None
    for entry in scores:
        score = go_div(max_priority * entry.score, highest)
        entry.score = max_priority - score if reverse else score
    return None


# ---------------------------------------------------------------------------- broken-line shapes


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    utilization: int
    score: int


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """helper.BuildBrokenLinearFunction: linear between the points, flat outside them."""
    points = tuple(shape)

    def evaluate(utilization: int) -> int:
        for index, point in enumerate(points):
            if utilization <= point.utilization:
                if index == 0:
                    return points[0].score
                previous = points[index - 1]
                rise = (point.score - previous.score) * (utilization - previous.utilization)
                return previous.score + go_div(rise, point.utilization - previous.utilization)
        return points[-1].score

    return evaluate


# ---------------------------------------------------------------------------- taints

DO_NOT_SCHEDULE_EFFECTS = frozenset((TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value))


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """v1helper.TolerationsTolerateTaint: some toleration tolerates the taint."""
    return any(toleration.tolerates(taint) for toleration in tolerations)


def find_untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                           effects: frozenset[str] = DO_NOT_SCHEDULE_EFFECTS) -> Optional[Taint]:
    """v1helper.FindMatchingUntoleratedTaint over the taints whose effect is in ``effects``."""
    for taint in taints:
        if taint.effect in effects and not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


# ---------------------------------------------------------------------------- node affinity


def required_node_affinity_matches(pod: Pod, node: Node) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required terms.

    Used by NodeAffinity's Filter and by PodTopologySpread's ``nodeAffinityPolicy: Honor``.
    """
    if pod.node_selector and not map_selector_matches(pod.node_selector, node.labels):
        return False
    affinity = pod.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    return required is None or node_selector_matches(required, node)
