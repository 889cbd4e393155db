"""PreScore, Score and NormalizeScore: preferred terms, and the symmetry of running pods' terms.

PreScore sums weights per topology key and value of a running pod's node:
+w for each of the incoming pod's preferred affinity terms the running pod matches, -w for each
preferred anti-affinity term; +hardPodAffinityWeight for each required affinity term of the running
pod that the incoming pod matches, ±w for each of its preferred (anti-)affinity terms that does.
A node scores the sum over the topology keys it has; NormalizeScore maps [min, max] to [0, 100].
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Protocol

import numpy as np

from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, NodeScore
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo, PodInfo, WeightedAffinityTerm, cycle_pod_info
from scheduler_core.model import Node, Pod
from scheduler_core.model.names import INTER_POD_AFFINITY
from scheduler_core.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from scheduler_core.plugins.inter_pod_affinity.matching import count_by_topology_value
from scheduler_core.plugins.inter_pod_affinity.pod_index import PodLabelIndex
from scheduler_core.util.wire import Wire


class FastWeigher(Protocol):
    """What PreScore reads of the fast counting (batch.TermCounter is one; batch imports this
    module, so this one names the method it calls instead of the class)."""

    def weigh(self, state: "PreScoreState", has_preferred: bool, hard_weight: int) -> None: ...


# topology key -> value -> summed weight
TopologyScore = dict[str, dict[str, int]]


class PreScoreState:
    __slots__ = ("topology_score", "pod_info", "namespace_labels", "lookups", "values_sorted")

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str]) -> None:
        self.topology_score: TopologyScore = {}
        self.pod_info = pod_info
        self.namespace_labels = namespace_labels  # of the incoming pod's namespace
        # The fast path's topology_score as arrays: key -> score by label code (one extra slot,
        # 0, read by nodes without the key); None when PreScore ran node by node.
        self.lookups: Optional[dict[str, np.ndarray]] = None
        self.values_sorted = False  # each key's values were inserted in sorted order (the fast path)

    def add(self, node: Node, topology_key: str, weight: int) -> None:
        value = node.labels.get(topology_key)
        if value is not None:
            values = self.topology_score.setdefault(topology_key, {})
            values[value] = values.get(value, 0) + weight

    def to_json(self) -> dict[str, Any]:
        if self.values_sorted:
            return PreScoreScores({key: dict(values) for key, values in sorted(self.topology_score.items())}).to_json()
        return PreScoreScores(
            {key: dict(sorted(values.items())) for key, values in sorted(self.topology_score.items())}
        ).to_json()


class PreScoreScores(Wire, omit_defaults=False):
    """``PreScoreState``'s wire form (the PreScore event's state): per topology key and value, the
    summed weight of the terms the pods there match, keys and values sorted."""

    topology_score: TopologyScore


PRE_SCORE_STATE = StateKey[PreScoreState]("PreScore" + INTER_POD_AFFINITY)


def compute_pre_score_state(
    pod: Pod,
    snapshot: SharedLister,
    index: PodLabelIndex,
    args: InterPodAffinityArgs,
    counter: Optional[FastWeigher] = None,
) -> Optional[PreScoreState]:
    """The state, or None when PreScore skips (nothing to weigh, or nothing matched).

    With a ``counter`` (the fast path) the sums come from per-node counts and grouped terms
    (``batch.TermCounter``) instead of pod by pod; the state is the same.
    """
    pod_info = cycle_pod_info(pod)
    has_preferred = bool(pod_info.preferred_affinity_terms or pod_info.preferred_anti_affinity_terms)
    if args.ignore_preferred_terms_of_existing_pods and not has_preferred:
        return None
    if not has_preferred and not snapshot.have_pods_with_affinity():
        return None  # nothing to weigh: no term of the pod's, no running pod with terms
    state = PreScoreState(pod_info, snapshot.labels_of_namespace(pod.namespace))
    if counter is not None:
        counter.weigh(state, has_preferred, args.hard_pod_affinity_weight)
        return state if state.topology_score else None
    if has_preferred:
        index.refresh(snapshot)
        _weigh_incoming_terms(state, snapshot, index, pod_info.preferred_affinity_terms, +1)
        _weigh_incoming_terms(state, snapshot, index, pod_info.preferred_anti_affinity_terms, -1)
    for node_info in snapshot.have_pods_with_affinity():
        if node_info.node.labels:
            for existing in node_info.pods_with_affinity:
                _weigh_existing_pod_terms(state, existing, node_info.node, args.hard_pod_affinity_weight)
    return state if state.topology_score else None


def _weigh_incoming_terms(
    state: PreScoreState, snapshot: SharedLister, index: PodLabelIndex, terms: list[WeightedAffinityTerm], sign: int
) -> None:
    """The incoming pod's preferred terms against every running pod (candidates from the index)."""
    for weighted in terms:
        key = weighted.term.topology_key
        for value, count in count_by_topology_value(weighted.term, index, snapshot).items():
            values = state.topology_score.setdefault(key, {})
            values[value] = values.get(value, 0) + sign * weighted.weight * count


def _weigh_existing_pod_terms(state: PreScoreState, existing: PodInfo, node: Node, hard_weight: int) -> None:
    """A running pod's required affinity and preferred terms against the incoming pod."""
    pod, ns_labels = state.pod_info.pod, state.namespace_labels
    if hard_weight > 0:
        for term in existing.required_affinity_terms:
            if term.matches(pod, ns_labels):
                state.add(node, term.topology_key, hard_weight)
    for weighted in existing.preferred_affinity_terms:
        if weighted.term.matches(pod, ns_labels):
            state.add(node, weighted.term.topology_key, weighted.weight)
    for weighted in existing.preferred_anti_affinity_terms:
        if weighted.term.matches(pod, ns_labels):
            state.add(node, weighted.term.topology_key, -weighted.weight)


def score_node(state: PreScoreState, node_info: NodeInfo) -> int:
    labels = node_info.node.labels
    score = 0
    for key, values in state.topology_score.items():
        value = labels.get(key)
        if value is not None:
            score += values.get(value, 0)
    return score


def normalize(state: PreScoreState, scores: list[NodeScore]) -> None:
    """Min-max to [0, MAX_NODE_SCORE], truncated as Go's int64(float64); all equal gives 0."""
    if not state.topology_score or not scores:
        return
    low = min(s.score for s in scores)
    spread = max(s.score for s in scores) - low
    for entry in scores:
        scaled = 0.0
        if spread > 0:
            scaled = float(MAX_NODE_SCORE) * (float(entry.score - low) / float(spread))
        entry.score = int(scaled)


def read_pre_score_state(cycle_state: CycleState) -> Optional[PreScoreState]:
    return cycle_state.read_optional(PRE_SCORE_STATE)
