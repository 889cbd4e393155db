"""PreScore/Score/NormalizeScore half of PodTopologySpread (podtopologyspread/scoring.go).

A node's raw score is ``round(Σ count(domain) * ln(#domains + 2) + (maxSkew - 1))`` over the soft
constraints whose key it has; fewer matching pods means a better normalised score. Domain counts
cover every node of the cluster that passes the inclusion policies, but only for the domains of
the scored nodes. The hostname key is counted per node (at PreScore here, for the picture; Go
counts it in Score, on the same snapshot).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE, NodeScore
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.model import Pod
from scheduler_core.plugins.helper import go_div
from scheduler_core.util.wire import Wire
from scheduler_core.plugins.pod_topology_spread.common import (
    Constraint,
    InclusionPolicy,
    MatchCounter,
    go_log,
    go_round,
    node_has_all_keys,
)

# (node names, their counts) -> their JSON, or None for the plain {node: count} dict
NodeCountsJSON = Callable[[Sequence[str], np.ndarray], Any]


class PreScoreState:
    """preScoreState: soft constraints, ignored nodes, per-domain counts and normalising weights."""

    __slots__ = (
        "constraints",
        "ignored_nodes",
        "domain_counts",
        "weights",
        "host_counts",
        "host_arrays",
        "batch",
        "scored_ignored",
    )

    def __init__(self, constraints: list[Constraint]) -> None:
        self.constraints = constraints
        self.ignored_nodes: set[str] = set()
        # Per constraint: domain value -> matching pods (empty for the hostname key).
        self.domain_counts: list[dict[str, int]] = [{} for _ in constraints]
        self.weights: list[float] = []
        # Per hostname constraint: scored node name -> matching pods on it.
        self.host_counts: list[dict[str, int]] = [{} for _ in constraints]
        # The fast path's instead (nothing reads them but the picture): per hostname constraint the
        # scored node names in name order and their counts, an array; made into a dict only as JSON.
        self.host_arrays: list[Optional[tuple[Sequence[str], np.ndarray]]] = [None for _ in constraints]
        self.batch: Any = None  # the fast path's arrays (vectorized.ScoreArrays), when PreScore built them
        self.scored_ignored: Optional[np.ndarray] = (
            None  # bool per position of the last score_batch, for normalize_batch
        )

    def clone(self) -> "PreScoreState":
        return self  # read-only after PreScore, as in Go

    def to_json(self, node_counts: Optional[NodeCountsJSON] = None) -> dict[str, Any]:
        """``node_counts(names, counts)``: the JSON of the fast path's per-node counts, or None for a
        plain dict (the columnar encoder passes its own: the arrays go into columns as they are)."""
        constraints = []
        for i, c in enumerate(self.constraints):
            arrays = self.host_arrays[i]
            if arrays is not None:
                names, values = arrays
                counts = node_counts(names, values) if node_counts is not None else None
                if counts is None:
                    counts = dict(zip(names, values.tolist()))
            else:
                counts = dict(sorted((self.host_counts[i] if c.is_hostname else self.domain_counts[i]).items()))
            constraints.append(ConstraintScoreCounts(c.topology_key, c.max_skew, counts, self.weights[i]))
        return PreScoreCounts(constraints, sorted(self.ignored_nodes)).to_json()


class ConstraintScoreCounts(Wire, omit_defaults=False):
    """One soft constraint of ``PreScoreState`` as the PreScore event writes it: matching pods per
    domain (per node for the hostname key), sorted, and its normalising weight. ``counts`` is a
    column reference where the columnar encoder stores the fast path's arrays as they are."""

    topology_key: str
    max_skew: int
    counts: dict[str, int]
    weight: float


class PreScoreCounts(Wire):
    """``PreScoreState``'s wire form: its soft constraints, and the nodes it ignores (missing a
    constraint's key) only when there are any."""

    constraints: list[ConstraintScoreCounts]
    ignored_nodes: list[str] = []


def topology_normalizing_weight(size: int) -> float:
    """ln(size + 2): smaller topologies are not watered down by bigger ones."""
    return go_log(float(size + 2))


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    return float(count) * weight + float(max_skew - 1)


def compute_pre_score_state(
    pod: Pod,
    constraints: list[Constraint],
    feasible: Sequence[NodeInfo],
    all_nodes: list[NodeInfo],
    require_all_topologies: bool,
    counter: MatchCounter,
) -> PreScoreState:
    state = PreScoreState(constraints)
    _init_domains(state, feasible, require_all_topologies)
    policy = InclusionPolicy(pod)
    counts = [counter.counter(pod.namespace, c) for c in constraints]
    for node_info in all_nodes:
        node = node_info.node
        labels = node.labels
        if require_all_topologies and not node_has_all_keys(labels, constraints):
            continue
        for i, constraint in enumerate(constraints):
            domains = state.domain_counts[i]
            if not domains or not policy.includes(constraint, node):
                continue
            value = labels.get(constraint.topology_key, "")
            if value in domains:
                domains[value] += counts[i](node_info)
    for i, constraint in enumerate(constraints):
        if constraint.is_hostname:
            state.host_counts[i] = {
                info.node.name: counts[i](info)
                for info in feasible
                if info.node.name not in state.ignored_nodes and constraint.topology_key in info.node.labels
            }
    return state


def _init_domains(state: PreScoreState, feasible: Sequence[NodeInfo], require_all_topologies: bool) -> None:
    """initPreScoreState: ignored nodes, the domains of the scored nodes, and the weights."""
    sizes = [0] * len(state.constraints)
    for node_info in feasible:
        labels = node_info.node.labels
        if require_all_topologies and not node_has_all_keys(labels, state.constraints):
            state.ignored_nodes.add(node_info.node.name)
            continue
        for i, constraint in enumerate(state.constraints):
            if constraint.is_hostname:
                continue  # counted per node at Score
            value = labels.get(constraint.topology_key, "")
            if value not in state.domain_counts[i]:
                state.domain_counts[i][value] = 0
                sizes[i] += 1
    scored = len(feasible) - len(state.ignored_nodes)
    state.weights = [
        topology_normalizing_weight(scored if c.is_hostname else sizes[i]) for i, c in enumerate(state.constraints)
    ]


def score_node(state: PreScoreState, node_info: NodeInfo, count_on_node: Callable[[int, NodeInfo], int]) -> int:
    """Score: the summed, weighted counts of the node's domains (0 for an ignored node)."""
    node = node_info.node
    if node.name in state.ignored_nodes:
        return 0
    total = 0.0
    for i, constraint in enumerate(state.constraints):
        value = node.labels.get(constraint.topology_key)
        if value is None:
            continue
        if constraint.is_hostname:
            count = state.host_counts[i].get(node.name)
            if count is None:
                count = count_on_node(i, node_info)
        else:
            count = state.domain_counts[i][value]
        total += score_for_count(count, constraint.max_skew, state.weights[i])
    return go_round(total)


def normalize(state: Optional[PreScoreState], scores: list[NodeScore]) -> None:
    """NormalizeScore: ``100 * (max + min - s) / max``; ignored nodes get 0, all-zero gets 100."""
    if state is None:
        return
    ignored = state.ignored_nodes
    considered = [s.score for s in scores if s.name not in ignored]
    min_score = min(considered, default=0)
    max_score = max(considered + [0])
    for entry in scores:
        if entry.name in ignored:
            entry.score = 0
        elif max_score == 0:
            entry.score = MAX_NODE_SCORE
        else:
            entry.score = go_div(MAX_NODE_SCORE * (max_score + min_score - entry.score), max_score)
