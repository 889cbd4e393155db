"""PreFilter and Filter: the required (anti-)affinity of the incoming pod and of running pods.

PreFilter counts, per topology pair ``(key, value)``:
- ``existing_anti``: required anti-affinity terms of running pods that match the incoming pod,
  counted at the running pod's node for the term's key;
- ``affinity``: running pods matching ALL the incoming pod's required affinity terms (one per term's
  key at the pod's node);
- ``anti``: running pods matching each of the incoming pod's required anti-affinity terms.
Filter then reads only these maps, in O(terms + node labels) per node.
"""

from __future__ import annotations

import operator
from typing import Any, Mapping, Optional, Protocol

from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import AffinityFact
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import AffinityTerm, NodeInfo, PodInfo, cycle_pod_info
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Node, Pod
from scheduler_core.model.names import INTER_POD_AFFINITY
from scheduler_core.plugins.inter_pod_affinity.matching import candidates, count_by_topology_value, namespace_check
from scheduler_core.plugins.inter_pod_affinity.pair_columns import PairColumns, columns_json, shared_pairs
from scheduler_core.plugins.inter_pod_affinity.pod_index import PodLabelIndex
from scheduler_core.util.recent import RecentlyMade
from scheduler_core.util.wire import Wire


class FastTermCounts(Protocol):
    """What PreFilter reads of the fast counting (batch.TermCounter is one; batch imports this
    module, so this one names the methods it calls instead of the class). Each returns its counts
    as columns; the state makes its maps from them when they are read."""

    def count_existing_anti_affinity(self, state: "PreFilterState") -> PairColumns: ...

    def count_incoming_terms(self, state: "PreFilterState") -> tuple[PairColumns, PairColumns]: ...


REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

TopologyPair = tuple[str, str]
PairCounts = dict[TopologyPair, int]


class PreFilterState:
    """What Filter reads; cloned before preemption's dry run changes it through add/remove_pod."""

    __slots__ = (
        "_existing_anti",
        "_affinity",
        "_anti",
        "pod_info",
        "namespace_labels",
        "matches_own_affinity",
        "term_namespaces",
        "columns",
        "_shared",
    )

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str]) -> None:
        # The count maps; None while only their columns are (made from them on first read).
        self._existing_anti: Optional[PairCounts] = {}
        self._affinity: Optional[PairCounts] = {}
        self._anti: Optional[PairCounts] = {}
        self.pod_info = pod_info
        self.namespace_labels = namespace_labels  # of the incoming pod's namespace
        # The pod matches all its own required affinity terms (false when it has none).
        self.matches_own_affinity = matches_all(pod_info.required_affinity_terms, pod_info.pod, namespace_labels)
        # The namespaces a running pod must be in for the pod's own required terms to count it (None
        # when a term selects namespaces by their labels): preemption's dry run tells this state of
        # every lower-priority pod of thousands of nodes, and most are in none of them.
        terms = (*pod_info.required_affinity_terms, *pod_info.required_anti_affinity_terms)
        self.term_namespaces: Optional[frozenset[str]] = (
            None
            if any(not term.namespace_selector.is_nothing for term in terms)
            else frozenset().union(*(term.namespaces for term in terms))
        )
        # The maps (existing_anti, affinity, anti) as the fast path counted them, while unchanged:
        # what Filter's batch and the wire form read; the maps themselves are made only when read.
        self.columns: Optional[tuple[PairColumns, PairColumns, PairColumns]] = None
        # The count maps are shared with a clone (or the state cloned) until one side changes them.
        self._shared = False

    def counted_as(self, columns: tuple[PairColumns, PairColumns, PairColumns]) -> None:
        """The fast path's counts: the maps are made from these columns when first read."""
        self.columns = columns
        self._existing_anti = self._affinity = self._anti = None

    @property
    def existing_anti(self) -> PairCounts:
        return self._existing_anti if self._existing_anti is not None else self._maps()[0]

    @property
    def affinity(self) -> PairCounts:
        return self._affinity if self._affinity is not None else self._maps()[1]

    @property
    def anti(self) -> PairCounts:
        return self._anti if self._anti is not None else self._maps()[2]

    def _maps(self) -> tuple[PairCounts, PairCounts, PairCounts]:
        if self._existing_anti is None or self._affinity is None or self._anti is None:
            assert self.columns is not None  # the maps are left unmade only beside their columns
            # Maps made for equal counts before are shared (copied before a change, as a clone's).
            self._existing_anti, self._affinity, self._anti = map(shared_pairs, self.columns)
            self._shared = True
        return self._existing_anti, self._affinity, self._anti

    def has_existing_anti(self) -> bool:
        return self.columns[0].counted() if self.columns is not None else bool(self.existing_anti)

    def has_affinity(self) -> bool:
        return self.columns[1].counted() if self.columns is not None else bool(self.affinity)

    def has_anti(self) -> bool:
        return self.columns[2].counted() if self.columns is not None else bool(self.anti)

    def clone(self) -> "PreFilterState":
        """preFilterState.Clone: the copy's counts are its own. Copied when first changed, not here:
        preemption's dry run clones the state for every potential node (thousands) and mostly
        removes pods no count is about, while a count keyed by hostname has a pair per node. The
        maps are made before they are shared (not by each of thousands of clones)."""
        other = PreFilterState.__new__(PreFilterState)
        other._existing_anti, other._affinity, other._anti = self._maps()
        other.pod_info = self.pod_info  # never changes
        other.namespace_labels = self.namespace_labels
        other.matches_own_affinity = self.matches_own_affinity
        other.term_namespaces = self.term_namespaces
        other.columns = self.columns
        other._shared = self._shared = True
        return other

    def memo_content(self) -> tuple[Any, ...]:
        """The counts (copies: a map may be shared with a later state; or their columns' content,
        compared as bytes) and the namespace's labels; the rest follows from the pod."""
        if self.columns is not None:
            return (*(columns.content() for columns in self.columns), dict(self.namespace_labels))
        return (dict(self.existing_anti), dict(self.affinity), dict(self.anti), dict(self.namespace_labels))

    def _own_counts(self) -> None:
        """Before a change: the count maps are made this state's own if a clone shares them."""
        maps = self._maps()
        if self._shared:
            self._existing_anti, self._affinity, self._anti = (dict(counts) for counts in maps)
            self._shared = False

    def update_with_pod(self, other: PodInfo, node: Node, sign: int, snapshot: SharedLister) -> None:
        """A running pod appears on (sign +1) or leaves (-1) ``node`` during preemption."""
        if not other.required_anti_affinity_terms:
            namespaces = self.term_namespaces
            if namespaces is not None and other.pod.namespace not in namespaces:
                return  # no term of its own, and in no namespace the pod's terms look at: counted nowhere
        incoming = self.pod_info
        bumps: list[tuple[int, str]] = []  # (which count map, topology key), in updateWithPod's order
        for term in other.required_anti_affinity_terms:
            if term.matches(incoming.pod, self.namespace_labels):
                bumps.append((0, term.topology_key))
        other_ns_labels = snapshot.labels_of_namespace(other.pod.namespace)
        if matches_all(incoming.required_affinity_terms, other.pod, other_ns_labels):
            for term in incoming.required_affinity_terms:
                bumps.append((1, term.topology_key))
        for term in incoming.required_anti_affinity_terms:
            if term.matches(other.pod, other_ns_labels):
                bumps.append((2, term.topology_key))
        if not bumps:
            return
        self._own_counts()
        self.columns = None
        counts = (self.existing_anti, self.affinity, self.anti)
        for which, topology_key in bumps:
            _bump(counts[which], node, topology_key, sign)

    def to_json(self) -> dict[str, Any]:
        if self.columns is not None:
            return PreFilterCounts(*map(columns_json, self.columns)).to_json()
        return PreFilterCounts(
            pair_counts_json(self.existing_anti), pair_counts_json(self.affinity), pair_counts_json(self.anti)
        ).to_json()


class PreFilterCounts(Wire, omit_defaults=False):
    """``PreFilterState``'s wire form (the PreFilter event's state): per "key=value" pair, the running
    pods whose required anti-affinity matches the pod, and the pods matching its own required
    affinity and anti-affinity terms."""

    existing_anti_affinity_counts: dict[str, int]
    affinity_counts: dict[str, int]
    anti_affinity_counts: dict[str, int]


PRE_FILTER_STATE = StateKey[PreFilterState]("PreFilter" + INTER_POD_AFFINITY)


def pair_counts_json(counts: PairCounts) -> dict[str, int]:
    """The counts' wire form, sorted by pair (the pairs are distinct, so the counts are never
    compared). An equal dict among the last few written (compared in C, far faster than sorting
    and writing thousands of pairs again) has its form copied."""
    if not counts:
        return {}
    wire = _WRITTEN.find(counts)
    if wire is None:
        wire = _WRITTEN.keep(dict(counts), {f"{key}={value}": count for (key, value), count in sorted(counts.items())})
    return dict(wire)


_WRITTEN: RecentlyMade[PairCounts, dict[str, int]] = RecentlyMade(4, operator.eq)  # a cycle writes three maps


def _bump(counts: PairCounts, node: Node, topology_key: str, delta: int) -> None:
    """Add ``delta`` at the node's pair for the key (if it has the label); zero entries vanish."""
    value = node.labels.get(topology_key)
    if value is None:
        return
    pair = (topology_key, value)
    total = counts.get(pair, 0) + delta
    if total:
        counts[pair] = total
    else:
        counts.pop(pair, None)


def matches_all(terms: list[AffinityTerm], pod: Pod, namespace_labels: Mapping[str, str]) -> bool:
    """True iff there is at least one term and the pod matches every one."""
    if not terms:
        return False
    return all(term.matches(pod, namespace_labels) for term in terms)


# ---------------------------------------------------------------------------- PreFilter


def compute_pre_filter_state(
    pod: Pod, snapshot: SharedLister, index: PodLabelIndex, counter: Optional[FastTermCounts] = None
) -> tuple[PreFilterState, bool]:
    """The state, and whether Filter has anything to check (False means Skip).

    With a ``counter`` (the fast path) the counting is done over the NodeTable and grouped terms
    (``batch.TermCounter``) instead of pod by pod; the counts are the same.
    """
    pod_info = cycle_pod_info(pod)
    state = PreFilterState(pod_info, snapshot.labels_of_namespace(pod.namespace))
    if counter is not None:
        existing = counter.count_existing_anti_affinity(state)
        state.counted_as((existing, *counter.count_incoming_terms(state)))
    else:
        _count_existing_anti_affinity(state, snapshot)
        if pod_info.required_affinity_terms or pod_info.required_anti_affinity_terms:
            index.refresh(snapshot)
            _count_incoming_affinity(state, snapshot, index)
            _count_incoming_anti_affinity(state, snapshot, index)
    needed = state.has_existing_anti() or bool(
        pod_info.required_affinity_terms or pod_info.required_anti_affinity_terms
    )
    return state, needed


def _count_existing_anti_affinity(state: PreFilterState, snapshot: SharedLister) -> None:
    pod, ns_labels, counts = state.pod_info.pod, state.namespace_labels, state.existing_anti
    for node_info in snapshot.have_pods_with_required_anti_affinity():
        node = node_info.node
        for existing in node_info.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                if term.matches(pod, ns_labels):
                    _add(counts, node, term.topology_key)


def _count_incoming_affinity(state: PreFilterState, snapshot: SharedLister, index: PodLabelIndex) -> None:
    terms = state.pod_info.required_affinity_terms
    if not terms:
        return
    allowed = namespace_check(terms, snapshot)
    found = candidates(terms, index, snapshot, allowed)
    for node_info, pods in found.groups:
        for existing in pods:
            if allowed(existing.pod.namespace) and all(t.selector.matches(existing.pod.labels) for t in terms):
                for term in terms:
                    _add(state.affinity, node_info.node, term.topology_key)


def _count_incoming_anti_affinity(state: PreFilterState, snapshot: SharedLister, index: PodLabelIndex) -> None:
    for term in state.pod_info.required_anti_affinity_terms:
        for value, count in count_by_topology_value(term, index, snapshot).items():
            pair = (term.topology_key, value)
            state.anti[pair] = state.anti.get(pair, 0) + count


def _add(counts: PairCounts, node: Node, topology_key: str) -> None:
    value = node.labels.get(topology_key)
    if value is not None:
        pair = (topology_key, value)
        counts[pair] = counts.get(pair, 0) + 1


# ---------------------------------------------------------------------------- Filter


def filter_node(state: PreFilterState, node_info: NodeInfo) -> MaybeStatus:
    labels = node_info.node.labels
    if not _satisfies_pod_affinity(state, labels):
        return Status.unresolvable(REASON_AFFINITY)
    if not _satisfies_pod_anti_affinity(state, labels):
        return Status.unschedulable(REASON_ANTI_AFFINITY)
    if not _satisfies_existing_anti_affinity(state, labels):
        return Status.unschedulable(REASON_EXISTING_ANTI_AFFINITY)
    return None


def _satisfies_pod_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    pods_exist = True
    for term in state.pod_info.required_affinity_terms:
        value = labels.get(term.topology_key)
        if value is None:
            return False  # the node must have every topology key
        if state.affinity.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # The first pod of a group with affinity to itself: nothing in the cluster matches the terms
    # yet, but the pod matches its own terms, so it may go to any node with the keys.
    return not state.affinity and state.matches_own_affinity


def _satisfies_pod_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    if not state.anti:
        return True
    for term in state.pod_info.required_anti_affinity_terms:
        value = labels.get(term.topology_key)
        if value is not None and state.anti.get((term.topology_key, value), 0) > 0:
            return False
    return True


def _satisfies_existing_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    counts = state.existing_anti
    if not counts:
        return True
    return not any(counts.get(pair, 0) > 0 for pair in labels.items())


def filter_facts(state: PreFilterState, node_info: NodeInfo) -> tuple[AffinityFact, ...]:
    """What filter_node compared for the check that rejected the node (explanations only)."""
    labels = node_info.node.labels
    if not _satisfies_pod_affinity(state, labels):
        return tuple(
            _term_fact(REASON_AFFINITY, f"affinity term {n}", term.topology_key, labels, state.affinity)
            for n, term in enumerate(state.pod_info.required_affinity_terms, 1)
            if state.affinity.get((term.topology_key, labels.get(term.topology_key, "")), 0) <= 0
            or term.topology_key not in labels
        )
    if not _satisfies_pod_anti_affinity(state, labels):
        return tuple(
            _term_fact(REASON_ANTI_AFFINITY, f"anti-affinity term {n}", term.topology_key, labels, state.anti)
            for n, term in enumerate(state.pod_info.required_anti_affinity_terms, 1)
            if state.anti.get((term.topology_key, labels.get(term.topology_key, "")), 0) > 0
        )
    if not _satisfies_existing_anti_affinity(state, labels):
        return tuple(
            AffinityFact(
                REASON_EXISTING_ANTI_AFFINITY,
                "existing pods' anti-affinity",
                key,
                value,
                state.existing_anti[(key, value)],
            )
            for key, value in labels.items()
            if state.existing_anti.get((key, value), 0) > 0
        )
    return ()


def _term_fact(reason: str, term: str, key: str, labels: Mapping[str, str], counts: PairCounts) -> AffinityFact:
    value = labels.get(key)
    return AffinityFact(reason, term, key, value, counts.get((key, value), 0) if value is not None else 0)


def read_pre_filter_state(cycle_state: CycleState) -> Optional[PreFilterState]:
    return cycle_state.read_optional(PRE_FILTER_STATE)
