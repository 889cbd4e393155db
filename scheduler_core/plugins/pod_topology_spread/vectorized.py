"""The fast path of PodTopologySpread: PreFilter, Filter, PreScore, Score and NormalizeScore over
the NodeTable's columns instead of node by node.

Every function here computes exactly what its per-node counterpart in ``filtering.py`` /
``scoring.py`` computes (those stay the readable reference; tests compare both paths):

* a topology domain is a label code of the key's ``LabelColumn``; per-domain sums are
  ``np.bincount`` over the nodes that pass the all-keys and inclusion-policy masks;
* matching pods per node come from ``PodCounts`` (scheduler_core/framework/pod_counts.py): one int64 array per
  (namespace, selector), kept in step with the snapshot by re-counting only the nodes whose
  ``NodeInfo.generation`` changed;
* scores use float64 with the reference's operation order (``count * weight + (maxSkew - 1)``
  summed constraint by constraint), rounded as Go's ``math.Round``.

Dicts that the pictures (``to_json``) and preemption (``update_with_pod``) read are still built,
in the same insertion order as the reference, but only per domain, never per pod.
"""

from __future__ import annotations

import weakref
from typing import Optional, Sequence

import numpy as np

from scheduler_core.framework.batch import PASS, FilterVerdicts, go_div
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import MISSING, LabelColumn, NodeTable, node_list
from scheduler_core.framework.status import Status
from scheduler_core.model import Pod
from scheduler_core.plugins.helper import find_untolerated_taint, required_node_affinity_mask, tainted_verdicts
from scheduler_core.plugins.pod_topology_spread.common import Constraint, go_log
from scheduler_core.plugins.pod_topology_spread.filtering import (
    REASON_CONSTRAINTS_NOT_MATCH,
    REASON_NODE_LABEL_NOT_MATCH,
    PreFilterState,
    critical_paths_of,
)
from scheduler_core.plugins.pod_topology_spread.scoring import PreScoreState
from scheduler_core.framework.pod_counts import PodCounts  # shared with InterPodAffinity; plugin.py builds it from here


# ---------------------------------------------------------------------------- masks


def all_keys_mask(table: NodeTable[NodeInfo], constraints: Sequence[Constraint]) -> np.ndarray:
    """nodeLabelsMatchSpreadConstraints for every node."""
    mask = np.ones(table.size, dtype=bool)
    for constraint in constraints:
        mask &= table.labels(constraint.topology_key).codes != MISSING
    return mask


class InclusionMasks:
    """matchNodeInclusionPolicies for every node: one mask per (affinity, taints) policy pair."""

    __slots__ = ("_pod", "_table", "_affinity", "_tolerated")

    def __init__(self, pod: Pod, table: NodeTable[NodeInfo]) -> None:
        self._pod = pod
        self._table = table
        self._affinity: Optional[np.ndarray] = None
        self._tolerated: Optional[np.ndarray] = None

    def of(self, constraint: Constraint) -> Optional[np.ndarray]:
        """The mask, or None when every node is included."""
        mask = None
        if constraint.honor_node_affinity:
            if self._affinity is None:
                self._affinity = required_node_affinity_mask(self._pod, self._table)
            mask = self._affinity
        if constraint.honor_node_taints and len(self._table.tainted):
            if self._tolerated is None:
                tolerations = self._pod.tolerations
                untolerated = tainted_verdicts(
                    self._table,
                    "PodTopologySpread:untolerated",
                    tolerations,
                    lambda taints: find_untolerated_taint(taints, tolerations) is not None,
                )
                self._tolerated = untolerated == 0
            mask = self._tolerated if mask is None else mask & self._tolerated
        return mask


def _first_seen_order(codes: np.ndarray) -> list[int]:
    """The distinct codes in order of first appearance (the reference's dict insertion order)."""
    if not len(codes):
        return []
    if int(codes.min()) < 0:  # not a table's value codes: sort them
        unique, first_at = np.unique(codes, return_index=True)
        sorted_order: list[int] = unique[np.argsort(first_at, kind="stable")].tolist()
        return sorted_order
    # Codes index a column's few values: each code's first position, without sorting the codes.
    first = np.full(int(codes.max()) + 1, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.int64))
    present = np.flatnonzero(first < len(codes))
    in_first_seen_order: list[int] = present[np.argsort(first[present], kind="stable")].tolist()
    return in_first_seen_order


class _FirstSeenOrders:
    """_first_seen_order of codes seen lately: every PreFilter of a run reads the same nodes' codes
    (the table's column under the same mask), so the answer is kept per distinct codes array."""

    __slots__ = ("_kept", "_orders")

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._orders: dict[tuple[str, bytes], tuple[int, ...]] = {}

    def __call__(self, codes: np.ndarray) -> tuple[int, ...]:
        key = (codes.dtype.str, codes.tobytes())
        order = self._orders.get(key)
        if order is None:
            if len(self._orders) >= self._kept:
                self._orders.clear()
            order = self._orders[key] = tuple(_first_seen_order(codes))
        return order


_first_seen_orders = _FirstSeenOrders(16)


# ---------------------------------------------------------------------------- PreFilter / Filter


class FilterArrays:
    """What filter_batch reads: per hard constraint, its LabelColumn and matchNum by value code."""

    __slots__ = ("columns", "match_by_code")

    def __init__(self, columns: list[LabelColumn], match_by_code: list[np.ndarray]) -> None:
        self.columns = columns
        self.match_by_code = match_by_code


def compute_pre_filter_state(
    pod: Pod, constraints: list[Constraint], table: NodeTable[NodeInfo], counts: PodCounts
) -> PreFilterState:
    """calPreFilterState over every node of the table (filtering.compute_pre_filter_state)."""
    has_all = all_keys_mask(table, constraints)
    policies = InclusionMasks(pod, table)
    match_num: list[dict[str, int]] = []
    columns: list[LabelColumn] = []
    match_by_code: list[np.ndarray] = []
    for constraint in constraints:
        column = table.labels(constraint.topology_key)
        policy = policies.of(constraint)
        mask = has_all if policy is None else has_all & policy
        codes = column.codes[mask]
        per_node = counts.array(pod.namespace, constraint)[mask]
        by_code = (
            np.bincount(codes, weights=per_node, minlength=len(column.values)).astype(np.int64)
            if len(codes)
            else np.zeros(len(column.values), dtype=np.int64)
        )
        values = column.values
        match_num.append({values[code]: int(by_code[code]) for code in _first_seen_orders(codes)})
        columns.append(column)
        match_by_code.append(by_code)
    state = PreFilterState(constraints, match_num, critical_paths_of(match_num))
    state.batch = FilterArrays(columns, match_by_code)
    return state


def filter_verdicts(state: PreFilterState, pod: Pod, positions: np.ndarray) -> FilterVerdicts:
    """filtering.filter_node over ``positions``: the first failing constraint decides a node's status."""
    arrays: FilterArrays = state.batch
    choice = np.full(len(positions), PASS, dtype=np.int32)
    undecided = np.ones(len(positions), dtype=bool)
    for i, constraint in enumerate(state.constraints):
        codes = arrays.columns[i].codes[positions]
        missing = codes == MISSING
        self_match = 1 if constraint.matcher.matches(pod.labels) else 0
        by_code = arrays.match_by_code[i]
        nums = by_code[np.where(missing, 0, codes)] if len(by_code) else np.zeros(len(codes), dtype=np.int64)
        skewed = ~missing & (nums + self_match - state.min_match_num(i) > constraint.max_skew)
        choice[undecided & missing] = 0
        choice[undecided & skewed] = 1
        undecided &= ~(missing | skewed)
    return FilterVerdicts(
        [Status.unresolvable(REASON_NODE_LABEL_NOT_MATCH), Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH)], choice
    )


# ---------------------------------------------------------------------------- PreScore / Score


class ScoreArrays:
    """What score_batch reads: per soft constraint, a count per table position (0 where unused)."""

    __slots__ = ("columns", "count_at", "ignored")

    def __init__(self, columns: list[LabelColumn], count_at: list[np.ndarray], ignored: np.ndarray) -> None:
        self.columns = columns
        self.count_at = count_at  # the node's domain count, or for hostname the node's own count
        self.ignored = ignored  # bool per table position


class _NameOrder:
    """The table's node names in sorted order, so per-node pictures come out already sorted."""

    __slots__ = ("rank", "table_names", "names", "sorted_names", "as_positions")

    def __init__(self, table: NodeTable[NodeInfo]) -> None:
        order = np.asarray(sorted(range(table.size), key=table.names.__getitem__), dtype=np.int64)
        self.rank = np.empty(table.size, dtype=np.int64)
        self.rank[order] = np.arange(table.size, dtype=np.int64)
        # Not the table itself: this is the value of a weak dictionary keyed by the table.
        self.table_names = table.names
        self.names = table.names_array
        self.sorted_names = table.names_at(order)
        self.as_positions = table.lists_as_positions  # the table's way of handing node lists on

    def sorted_names_of(self, positions: np.ndarray) -> tuple[np.ndarray, Sequence[str]]:
        """``positions`` re-ordered by node name, and those names (with their positions; only the
        picture reads them, so in the engine's own process they stay positions: node_list)."""
        ordered = positions[np.argsort(self.rank[positions], kind="stable")]
        if len(ordered) == len(self.sorted_names):
            return ordered, self.sorted_names
        return ordered, node_list(self.table_names, self.names, ordered, self.as_positions)


_NAME_ORDER: "weakref.WeakKeyDictionary[NodeTable[NodeInfo], _NameOrder]" = weakref.WeakKeyDictionary()


def _name_order(table: NodeTable[NodeInfo]) -> _NameOrder:
    order = _NAME_ORDER.get(table)
    if order is None:
        order = _NAME_ORDER[table] = _NameOrder(table)
    return order


def _domain_codes(column: LabelColumn) -> tuple[np.ndarray, list[str]]:
    """Codes where a missing key reads as the value "" (Go's ``node.Labels[key]``), and their values."""
    values = list(column.values)
    empty = column.code_of.get("")
    if empty is None:
        empty = len(values)
        values.append("")
    return np.where(column.codes == MISSING, empty, column.codes), values


def compute_pre_score_state(
    pod: Pod,
    constraints: list[Constraint],
    feasible: np.ndarray,
    table: NodeTable[NodeInfo],
    require_all_topologies: bool,
    counts: PodCounts,
) -> PreScoreState:
    """scoring.compute_pre_score_state with the scored nodes given as table positions."""
    state = PreScoreState(constraints)
    size = table.size
    names = table.names
    has_all = all_keys_mask(table, constraints) if require_all_topologies else None
    ignored = np.zeros(size, dtype=bool)
    kept = feasible
    if has_all is not None:
        dropped = ~has_all[feasible]
        if dropped.any():
            ignored[feasible[dropped]] = True
            state.ignored_nodes = {names[p] for p in feasible[dropped].tolist()}
            kept = feasible[~dropped]
    policies = InclusionMasks(pod, table)
    columns: list[LabelColumn] = []
    count_at: list[np.ndarray] = []
    weights: list[float] = []
    for i, constraint in enumerate(constraints):
        column = table.labels(constraint.topology_key)
        columns.append(column)
        per_node = counts.array(pod.namespace, constraint)
        if constraint.is_hostname:
            weights.append(go_log(float(len(kept) + 2)))
            hosts, host_names = _name_order(table).sorted_names_of(kept[column.codes[kept] != MISSING])
            state.host_arrays[i] = (host_names, per_node[hosts])  # in name order
            count_at.append(per_node)
            continue
        codes, values = _domain_codes(column)
        domains = _first_seen_order(codes[kept])
        weights.append(go_log(float(len(domains) + 2)))
        in_domains = np.zeros(len(values), dtype=bool)
        in_domains[domains] = True
        mask = in_domains[codes]
        if has_all is not None:
            mask &= has_all
        policy = policies.of(constraint)
        if policy is not None:
            mask &= policy
        by_code = (
            np.bincount(codes[mask], weights=per_node[mask], minlength=len(values)).astype(np.int64)
            if mask.any()
            else np.zeros(len(values), dtype=np.int64)
        )
        state.domain_counts[i] = {values[code]: int(by_code[code]) for code in domains}
        count_at.append(by_code[codes])
    state.weights = weights
    state.batch = ScoreArrays(columns, count_at, ignored)
    return state


def _go_round(values: np.ndarray) -> np.ndarray:
    """common.go_round over a float64 array: halves away from zero, exact for every float."""
    whole = np.trunc(values)
    away = np.abs(values - whole) >= 0.5
    rounded: np.ndarray = (whole + np.where(away, np.sign(values), 0.0)).astype(np.int64)
    return rounded


def score_positions(state: PreScoreState, positions: np.ndarray) -> np.ndarray:
    """scoring.score_node over ``positions`` (the float sums in the reference's order)."""
    arrays: ScoreArrays = state.batch
    total = np.zeros(len(positions), dtype=np.float64)
    for i, constraint in enumerate(state.constraints):
        present = arrays.columns[i].codes[positions] != MISSING
        term = arrays.count_at[i][positions].astype(np.float64) * state.weights[i] + float(constraint.max_skew - 1)
        total = np.where(present, total + term, total)
    ignored = arrays.ignored[positions]
    state.scored_ignored = ignored
    scores = _go_round(total)
    scores[ignored] = 0
    return scores


def normalize_scores(state: PreScoreState, scores: np.ndarray) -> np.ndarray:
    """scoring.normalize: ``100 * (max + min - s) / max``; ignored nodes get 0, all-zero gets 100.

    ``scores`` are those score_positions (or the plugin's fallback) returned last for this state.
    """
    ignored = state.scored_ignored
    if ignored is None or len(ignored) != len(scores):
        if state.ignored_nodes:
            raise RuntimeError("PodTopologySpread: normalize_batch without the matching score_batch")
        ignored = np.zeros(len(scores), dtype=bool)
    considered = scores[~ignored]
    min_score = int(considered.min()) if len(considered) else 0
    max_score = max(int(considered.max()) if len(considered) else 0, 0)
    if max_score == 0:
        normalized = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
    else:
        normalized = go_div(MAX_NODE_SCORE * (max_score + min_score - scores), max_score).astype(np.int64)
    normalized[ignored] = 0
    return normalized
