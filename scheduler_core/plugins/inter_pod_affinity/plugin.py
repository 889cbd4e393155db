"""The InterPodAffinity plugin (framework/plugins/interpodaffinity/plugin.go).

The class is thin: PreFilter/Filter live in ``filtering``, PreScore/Score/NormalizeScore in
``scoring``, their vectorised twins in ``batch``. It reads the cluster only through ``handle.snapshot``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.batch import FilterVerdicts, filter_per_node
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle, NodeScore, PreFilterResult
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import AffinityTerm, NodeInfo, PodInfo, resolve_term
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import Node, Pod
from scheduler_core.plugins.inter_pod_affinity import batch, filtering, scoring
from scheduler_core.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from scheduler_core.plugins.inter_pod_affinity.pod_index import PodLabelIndex


class InterPodAffinity:
    name: ClassVar[str] = names.INTER_POD_AFFINITY

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        """A pod with pod (anti-)affinity is never batched; otherwise its labels matter (existing
        pods' terms may select it) unless only pods with terms of their own are considered."""
        refusal = self.refuses_to_sign(pod)
        if refusal is not None:
            return refusal
        if self.args.ignore_preferred_terms_of_existing_pods:
            return []
        return [(signers.LABELS, signers.labels(pod))]

    def refuses_to_sign(self, pod: Pod) -> Optional[signers.Unsignable]:
        affinity = pod.affinity
        if affinity is not None and (affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None):
            return signers.Unsignable(self.name, "pods with InterPodAffinity are not signable")
        return None

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        self.args = args
        self._handle = handle
        self._index = PodLabelIndex()  # running pods by label, shared by PreFilter and PreScore
        self._fast = batch.FastCounts()  # the fast path's per-node counts, kept across cycles

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): pod changes; nodes added or relabelled."""
        pod_actions = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_actions), _pod_change_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions), _node_change_hint),
        ]

    @property
    def _snapshot(self) -> SharedLister:
        return self._handle.snapshot

    def _counter(self) -> Optional[batch.TermCounter]:
        """Counting over the snapshot's NodeTable when the framework runs the fast path, else None."""
        framework = getattr(self._handle, "framework", None)
        if framework is None or not getattr(framework, "vectorized", False):
            return None
        snapshot = self._snapshot
        table = snapshot.table
        if table.node_infos is not snapshot.node_infos:
            return None
        return self._fast.cycle(table, snapshot)

    # ------------------------------------------------------------------ PreFilter / Filter

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        computed, needed = filtering.compute_pre_filter_state(pod, self._snapshot, self._index, self._counter())
        if not needed:
            return None, SKIP
        state.write(filtering.PRE_FILTER_STATE, computed)
        return None, None

    def pre_filter_extensions(self) -> "InterPodAffinity":
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod_to_add, node_info, +1)

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod_to_remove, node_info, -1)

    def _update(self, state: CycleState, other: PodInfo, node_info: NodeInfo, sign: int) -> MaybeStatus:
        computed = filtering.read_pre_filter_state(state)
        if computed is None:
            return _missing_state(filtering.PRE_FILTER_STATE.name)
        computed.update_with_pod(other, node_info.node, sign, self._snapshot)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        computed = filtering.read_pre_filter_state(state)
        if computed is None:
            return _missing_state(filtering.PRE_FILTER_STATE.name)
        return filtering.filter_node(computed, node_info)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[Any, ...]:
        """The rejecting term and the pods counted in the node's domain (explanations only)."""
        computed = filtering.read_pre_filter_state(state)
        return () if computed is None else filtering.filter_facts(computed, node_info)

    def pre_filter_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        computed = filtering.read_pre_filter_state(state)
        return computed.to_json() if computed is not None else None

    # ------------------------------------------------------------------ PreScore / Score

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        computed = scoring.compute_pre_score_state(pod, self._snapshot, self._index, self.args, self._counter())
        if computed is None:
            return SKIP
        state.write(scoring.PRE_SCORE_STATE, computed)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        computed = scoring.read_pre_score_state(state)
        if computed is None:
            return 0, _missing_state(scoring.PRE_SCORE_STATE.name)
        return scoring.score_node(computed, node_info), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        computed = scoring.read_pre_score_state(state)
        if computed is None:
            return _missing_state(scoring.PRE_SCORE_STATE.name)
        scoring.normalize(computed, scores)
        return None

    def pre_score_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        computed = scoring.read_pre_score_state(state)
        return computed.to_json() if computed is not None else None

    # ------------------------------------------------------------------ the vectorised fast path

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> FilterVerdicts:
        computed = filtering.read_pre_filter_state(state)
        if computed is None:
            return filter_per_node(self, state, pod, table, positions)  # reports the missing state
        return batch.filter_batch(computed, table, positions)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        computed = scoring.read_pre_score_state(state)
        if computed is None:
            return np.zeros(len(positions), dtype=np.int64)  # PreScore skipped: Score is not run
        return batch.score_batch(computed, table, positions)

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        computed = scoring.read_pre_score_state(state)
        return scores if computed is None else batch.normalize_batch(computed, scores)


def _pod_change_hint(pod: Pod, old: Optional[Pod], new: Optional[Pod]) -> QueueingHint:
    """isSchedulableAfterPodChange: a bound pod now matches all the pod's required affinity terms
    (added, or relabelled to match), or no longer matches all its anti-affinity terms (deleted, or
    relabelled away)."""
    if (new is not None and not new.node_name) or (old is not None and not old.node_name):
        return QueueingHint.QUEUE_SKIP
    terms, anti_terms = _required_terms(pod)
    if new is not None and old is not None:
        gained = not _matches_all(terms, old) and _matches_all(terms, new)
        lost = _matches_all(anti_terms, old) and not _matches_all(anti_terms, new)
        return QueueingHint.QUEUE if gained or lost else QueueingHint.QUEUE_SKIP
    if new is not None:
        return QueueingHint.QUEUE if _matches_all(terms, new) else QueueingHint.QUEUE_SKIP
    assert old is not None  # a delete: the pod as it was
    return QueueingHint.QUEUE if _matches_all(anti_terms, old) else QueueingHint.QUEUE_SKIP


def _node_change_hint(pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
    """isSchedulableAfterNodeChange: for a required affinity term, a node added with its topology
    key, or updated to gain the key or move to another domain; for a required anti-affinity
    term, any node added, or one that lost the key or moved to another domain."""
    info = PodInfo(pod)
    for term in info.required_affinity_terms:
        key = term.topology_key
        if old is None:
            if key in new.labels:
                return QueueingHint.QUEUE
            continue
        if key in new.labels and (key not in old.labels or old.labels[key] != new.labels[key]):
            return QueueingHint.QUEUE
    for term in info.required_anti_affinity_terms:
        key = term.topology_key
        if old is None:
            return QueueingHint.QUEUE
        if key in old.labels and (key not in new.labels or old.labels[key] != new.labels[key]):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


# The hint runs for every waiting pod on every pod event: each pod's required terms are resolved
# once (pod key -> the pod object, affinity and labels they were resolved from, and the terms).
_TERMS: dict[str, tuple[Pod, Any, dict[str, str], list[AffinityTerm], list[AffinityTerm]]] = {}
_TERMS_KEPT = 10_000


def _required_terms(pod: Pod) -> tuple[list[AffinityTerm], list[AffinityTerm]]:
    """PodInfo's required affinity and anti-affinity terms of the pod, without its requests."""
    known = _TERMS.get(pod.key)
    if known is not None and known[0] is pod and known[1] is pod.affinity and known[2] == pod.labels:
        return known[3], known[4]
    affinity = pod.affinity
    pod_affinity = affinity.pod_affinity if affinity else None
    anti = affinity.pod_anti_affinity if affinity else None
    terms = [resolve_term(pod, term) for term in (pod_affinity.required if pod_affinity else ())]
    anti_terms = [resolve_term(pod, term) for term in (anti.required if anti else ())]
    if len(_TERMS) >= _TERMS_KEPT:
        _TERMS.clear()
    _TERMS[pod.key] = (pod, affinity, dict(pod.labels), terms, anti_terms)
    return terms, anti_terms


def _matches_all(terms: list[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: no terms match nothing; namespace labels are not looked up."""
    return bool(terms) and all(term.matches(pod, None) for term in terms)


def _missing_state(key: str) -> Status:
    return Status.error(f'error reading "{key}" from cycleState: not found')


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> InterPodAffinity:
    return InterPodAffinity(InterPodAffinityArgs.parse(args), handle)
