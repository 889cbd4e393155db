"""TaintToleration (tainttoleration): taints repel pods that do not tolerate them.

Filter rejects a node with a NoSchedule or NoExecute taint the pod does not tolerate. Scoring counts
the node's PreferNoSchedule taints the pod does not tolerate (only its tolerations with effect
PreferNoSchedule or no effect count) and reverses the scale, so fewer such taints score higher.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, NodeScore
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod, TaintEffect, Toleration
from scheduler_core.plugins.helper import default_normalize_score, find_untolerated_taint, tolerations_tolerate_taint

REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
PREFER_NO_SCHEDULE = TaintEffect.PREFER_NO_SCHEDULE.value


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    prefer_no_schedule_tolerations: tuple[Toleration, ...]

    def clone(self) -> "_PreScoreState":
        return self


_PRE_SCORE = StateKey[_PreScoreState]("PreScore" + names.TAINT_TOLERATION)


def _prefer_no_schedule_tolerations(pod: Pod) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: tolerations with effect PreferNoSchedule or none."""
    return tuple(t for t in pod.tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)


def _count_intolerable(node_info: NodeInfo, tolerations: tuple[Toleration, ...]) -> int:
    return sum(1 for taint in node_info.node.taints
               if taint.effect == PREFER_NO_SCHEDULE and not tolerations_tolerate_taint(tolerations, taint))


class TaintToleration:
    name: ClassVar[str] = names.TAINT_TOLERATION

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if find_untolerated_taint(node_info.node.taints, pod.tolerations) is None:
            return None
        return Status.unresolvable(REASON_UNTOLERATED)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> MaybeStatus:
        state.write(_PRE_SCORE, _PreScoreState(_prefer_no_schedule_tolerations(pod)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            return 0, Status.error(f"reading {_PRE_SCORE.name!r} from cycleState: not found")
        return _count_intolerable(node_info, pre_score.prefer_no_schedule_tolerations), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)


def new(args: Optional[Mapping], handle) -> TaintToleration:
    return TaintToleration()
