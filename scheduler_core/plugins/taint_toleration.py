"""TaintToleration (tainttoleration): taints repel pods that do not tolerate them.

Filter rejects a node with a NoSchedule or NoExecute taint the pod does not tolerate. Scoring counts
the node's PreferNoSchedule taints the pod does not tolerate (only its tolerations with effect
PreferNoSchedule or no effect count) and reverses the scale, so fewer such taints score higher.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.batch import FilterVerdicts, Palette, PASS, default_normalize
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import TaintFact
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, NodeScore
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Node, Pod, Taint, TaintEffect, Toleration
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.plugins.helper import (
    default_normalize_score,
    find_untolerated_taint,
    same_pod,
    tainted_verdicts,
    tolerations_tolerate_taint,
)

REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


def reason_naming(taint: Taint) -> str:
    """The reason before v1.34 (release/code.py ``taint_reason_without_taint``): the first
    untolerated taint by key and value."""
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


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


def _count_intolerable(taints: Iterable[Taint], tolerations: tuple[Toleration, ...]) -> int:
    return sum(
        1
        for taint in taints
        if taint.effect == PREFER_NO_SCHEDULE and not tolerations_tolerate_taint(tolerations, taint)
    )


class TaintToleration:
    name: ClassVar[str] = names.TAINT_TOLERATION

    def __init__(self, features: Features) -> None:
        self._names_taint = not features.taint_reason_without_taint
        # Before v1.34: every distinct reason by a code kept for the plugin's life, as the table
        # caches its nodes' codes from cycle to cycle (0: tolerated).
        self._reason_codes: dict[str, int] = {}
        # The codes are this instance's: its cached verdicts are keyed by it too (each profile has
        # its own instance, and the node table, with its cache, is shared by every profile).
        self._codes_owner = object()

    def _reason(self, taint: Taint) -> str:
        return reason_naming(taint) if self._names_taint else REASON_UNTOLERATED

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.TOLERATIONS, signers.tolerations(pod))]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): a node added or its taints updated; a pod's
        tolerations updated."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), node_changed_hint
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION), pod_toleration_changed_hint
            ),
        ]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        taint = find_untolerated_taint(node_info.node.taints, pod.tolerations)
        if taint is None:
            return None
        return Status.unresolvable(self._reason(taint))

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[TaintFact, ...]:
        """The taint filter stopped at (explanations only)."""
        taint = find_untolerated_taint(node_info.node.taints, pod.tolerations)
        return () if taint is None else (TaintFact(self._reason(taint), taint.key, taint.value, taint.effect),)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        state.write(_PRE_SCORE, _PreScoreState(_prefer_no_schedule_tolerations(pod)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        if pre_score is None:
            return 0, Status.error(f"reading {_PRE_SCORE.name!r} from cycleState: not found")
        return _count_intolerable(node_info.node.taints, pre_score.prefer_no_schedule_tolerations), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    # The fast path: only tainted nodes (table.tainted) are looked at, once per set of tolerations.

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        if not len(table.tainted):
            return None
        tolerations = pod.tolerations
        if self._names_taint:
            return self._filter_batch_naming_taints(table, positions, tolerations)
        untolerated = tainted_verdicts(
            table, "filter", tolerations, lambda taints: find_untolerated_taint(taints, tolerations) is not None
        )
        return FilterVerdicts.from_mask(untolerated[positions] != 0, Status.unresolvable(REASON_UNTOLERATED))

    def _filter_batch_naming_taints(
        self, table: NodeTable[NodeInfo], positions: np.ndarray, tolerations: tuple[Toleration, ...]
    ) -> FilterVerdicts:
        """Before v1.34 each node's status names its own first untolerated taint: one palette
        entry per distinct reason (the few tainted nodes are judged in Python)."""
        reason_codes = self._reason_codes

        def judge(taints: tuple[Taint, ...]) -> int:
            taint = find_untolerated_taint(taints, tolerations)
            if taint is None:
                return 0
            return reason_codes.setdefault(self._reason(taint), len(reason_codes) + 1)

        codes = tainted_verdicts(table, "filter-named", (self._codes_owner, tolerations), judge)[positions]
        palette = Palette()
        choice = np.full(len(positions), PASS, dtype=np.int32)
        for reason, code in reason_codes.items():
            hit = codes == code
            if np.logical_or.reduce(hit):
                choice[hit] = palette.add(Status.unresolvable(reason))
        return FilterVerdicts(palette.statuses, choice)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        pre_score = state.read_optional(_PRE_SCORE)
        tolerations = (
            pre_score.prefer_no_schedule_tolerations if pre_score is not None else _prefer_no_schedule_tolerations(pod)
        )
        if not len(table.tainted):
            return np.zeros(len(positions), dtype=np.int64)
        counts = tainted_verdicts(table, "score", tolerations, lambda taints: _count_intolerable(taints, tolerations))
        at_positions: np.ndarray = counts[positions]
        return at_positions

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, MAX_NODE_SCORE, True)


def new(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> TaintToleration:
    return TaintToleration(features)


def node_changed_hint(pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
    """isSchedulableAfterNodeChange: the node had a NoSchedule/NoExecute taint the pod does not
    tolerate (an added node counts as having had one) and has none now."""
    was_untolerated = old is None or find_untolerated_taint(old.taints, pod.tolerations) is not None
    if was_untolerated and find_untolerated_taint(new.taints, pod.tolerations) is None:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def pod_toleration_changed_hint(pod: Pod, old: Optional[Pod], new: Pod) -> QueueingHint:
    """isSchedulableAfterPodTolerationChange: a toleration added to the rejected pod itself."""
    return QueueingHint.QUEUE if same_pod(pod, new) else QueueingHint.QUEUE_SKIP
