"""Logic shared by the in-tree plugins (framework/plugins/helper), written once.

Integer arithmetic follows Go: ``int64`` division truncates toward zero and ``math.Round`` rounds
halves away from zero, which Python's ``//`` and ``round`` do not; the scores in the conformance
corpus depend on the difference.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Optional, Sequence

import numpy as np

from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.model.labels import (
    FIELD_NODE_NAME,
    map_selector_matches,
    node_selector_match_or_error,
    node_selector_matches,
    parse_int64,
    _valid_node_requirement as valid_node_requirement,
)
from scheduler_core.model import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    Taint,
    TaintEffect,
    Toleration,
)

from scheduler_core.framework.batch import go_div as go_div_batch

if TYPE_CHECKING:
    from scheduler_core.framework.node_info import NodeInfo
    from scheduler_core.framework.node_table import LabelColumn, NodeTable

# ---------------------------------------------------------------------------- Go arithmetic


def go_div(numerator: int, denominator: int) -> int:
    """Go's integer division: the quotient truncated toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def go_round(value: float) -> int:
    """Go's ``math.Round``: to the nearest integer, halves away from zero."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def go_div_batch_fast(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """batch.go_div, taking NumPy's floor division directly when it cannot differ (n >= 0, d > 0)."""
    if np.minimum.reduce(numerator, initial=0) >= 0 and np.minimum.reduce(denominator, initial=1) > 0:
        quotient: np.ndarray = numerator // denominator
        return quotient
    return go_div_batch(numerator, denominator)


def go_round_batch(values: np.ndarray) -> np.ndarray:
    """go_round over a float64 array, as int64."""
    rounded: np.ndarray = np.copysign(np.floor(np.abs(values) + 0.5), values).astype(np.int64)
    return rounded


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


def build_broken_linear_function_batch(shape: Sequence[FunctionShapePoint]) -> Callable[[np.ndarray], np.ndarray]:
    """build_broken_linear_function over an int64 array of utilisations (the same segments)."""
    points = tuple(shape)

    def evaluate(utilization: np.ndarray) -> np.ndarray:
        result = np.full(len(utilization), points[-1].score if points else 0, dtype=np.int64)
        done = np.zeros(len(utilization), dtype=bool)
        for index, point in enumerate(points):
            here = ~done & (utilization <= point.utilization)
            if index == 0:
                result[here] = points[0].score
            else:
                previous = points[index - 1]
                rise = (point.score - previous.score) * (utilization[here] - previous.utilization)
                result[here] = previous.score + go_div_batch(rise, point.utilization - previous.utilization)
            done |= here
        return result

    return evaluate


# ---------------------------------------------------------------------------- taints

DO_NOT_SCHEDULE_EFFECTS = frozenset((TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value))


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """v1helper.TolerationsTolerateTaint: some toleration tolerates the taint."""
    return any(toleration.tolerates(taint) for toleration in tolerations)


def find_untolerated_taint(
    taints: Iterable[Taint], tolerations: Sequence[Toleration], effects: frozenset[str] = DO_NOT_SCHEDULE_EFFECTS
) -> Optional[Taint]:
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


def required_node_affinity_match_or_error(pod: Pod, node: Node) -> tuple[bool, bool]:
    """RequiredNodeAffinity.Match with its error: (matched, a required term failed to parse — an
    existing pod's kept invalid label value); the nodeSelector map is checked first and never errs."""
    if pod.node_selector and not map_selector_matches(pod.node_selector, node.labels):
        return False, False
    affinity = pod.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    return (True, False) if required is None else node_selector_match_or_error(required, node)


def same_pod(pod: Pod, other: Pod) -> bool:
    """``pod.UID == other.UID``, by key where a dump gave no uid."""
    return pod.uid == other.uid if pod.uid and other.uid else pod.key == other.key


# ---------------------------------------------------------------------------- vectorised (NodeTable) forms
#
# The fast path's counterparts of the per-node checks above, over every node of a NodeTable at once.
# The masks below are derived from node labels, taints and images and cached per table: a node
# write makes the snapshot build a new table, so they never outlive the nodes they were read from;
# the per-node functions stay the reference the tests compare with.

_TABLE_CACHES: "weakref.WeakKeyDictionary[NodeTable[NodeInfo], dict[Hashable, Any]]" = weakref.WeakKeyDictionary()
_CACHE_LIMIT = 4096


def table_cache(table: "NodeTable[NodeInfo]", kind: str) -> dict[Hashable, Any]:
    """A per-table dict for static (label/taint/image derived) arrays, bounded in size."""
    caches = _TABLE_CACHES.get(table)
    if caches is None:
        caches = _TABLE_CACHES[table] = {}
    cache = caches.get(kind)
    if cache is None or len(cache) > _CACHE_LIMIT:
        cache = caches[kind] = {}
    return cache


# per_node_values: the keys asked for once (their values are kept from the second time on) and the
# values kept, per table; each bounded (a new key past the bound drops the oldest, so pods of many
# sizes in turn keep the most recent sixteen rather than none).
_SEEN_LIMIT = 256
_KEPT_LIMIT = 16


def per_node_values(
    table: "NodeTable[NodeInfo]",
    kind: str,
    key: Hashable,
    positions: np.ndarray,
    over: Callable[[np.ndarray], np.ndarray],
    at: Callable[[int], int],
) -> np.ndarray:
    """``over(positions)`` for a per-node function: each node's value depends only on that node's
    columns in the table (its pods' amounts and count, its allocatable) and on ``key``. From the
    second time a key is asked for, the values of every node are kept and, on later calls, made
    again (``at``, one node at a time) only at the nodes whose pods changed since (the table logs
    them; a node change builds a new table). A cycle then costs a lookup instead of the dozens of
    array operations ``over`` takes, whatever the number of nodes: most attempts follow one
    binding, which changed one node."""
    seen = table_cache(table, kind + "/seen")
    kept = table_cache(table, kind + "/kept")
    entry = kept.get(key)
    if entry is None:
        if key not in seen:
            if len(seen) >= _SEEN_LIMIT:
                del seen[next(iter(seen))]
            seen[key] = None
            return over(positions)
        if len(kept) >= _KEPT_LIMIT:
            del kept[next(iter(kept))]
        entry = kept[key] = [table.version, over(np.arange(table.size, dtype=np.int64))]
    elif entry[0] != table.version:
        changed = table.changed_since(entry[0])
        if changed is None:
            entry[1] = over(np.arange(table.size, dtype=np.int64))
        else:
            kept_values = entry[1]
            for position in changed:
                kept_values[position] = at(position)
        entry[0] = table.version
    answer: np.ndarray = entry[1][positions]
    return answer


def _label_lookup(
    column: "LabelColumn", operator: str, values: tuple[str, ...], cache: dict[Hashable, Any]
) -> np.ndarray:
    """One bool per column value code, plus a last entry for a node without the key (code -1)."""
    size = len(column.values)
    if operator == "In":
        lookup = np.zeros(size + 1, dtype=bool)
        codes = [column.code_of[v] for v in values if v in column.code_of]
        lookup[codes] = True
        return lookup
    if operator == "NotIn":
        lookup = np.ones(size + 1, dtype=bool)
        codes = [column.code_of[v] for v in values if v in column.code_of]
        lookup[codes] = False
        return lookup
    if operator == "Exists":
        lookup = np.ones(size + 1, dtype=bool)
        lookup[-1] = False
        return lookup
    if operator == "DoesNotExist":
        lookup = np.zeros(size + 1, dtype=bool)
        lookup[-1] = True
        return lookup
    if operator in ("Gt", "Lt"):
        bound = parse_int64(values[0]) if len(values) == 1 else None
        lookup = np.zeros(size + 1, dtype=bool)
        if bound is None:
            return lookup
        parsed = cache.get(("ints", id(column)))
        if parsed is None or parsed[0] is not column:
            ints = [parse_int64(v) for v in column.values]
            parsed = cache[("ints", id(column))] = (column, ints)
        for code, value in enumerate(parsed[1]):
            if value is not None:
                lookup[code] = value > bound if operator == "Gt" else value < bound
        return lookup
    return np.zeros(size + 1, dtype=bool)


def label_requirement_mask(
    table: "NodeTable[NodeInfo]", key: str, operator: str, values: tuple[str, ...]
) -> np.ndarray:
    """labels.Requirement.Matches over every node (as ``labels._requirement_predicate``)."""
    cache = table_cache(table, "label")
    mask: Optional[np.ndarray] = cache.get((key, operator, values))
    if mask is None:
        column = table.labels(key)
        mask = cache[(key, operator, values)] = _label_lookup(column, operator, values, cache)[column.codes]
    return mask


def _field_mask(table: "NodeTable[NodeInfo]", req: NodeSelectorRequirement) -> np.ndarray:
    """metadata.name In/NotIn with one value; anything else never matches (labels._field_predicate)."""
    mask = np.zeros(table.size, dtype=bool)
    if req.key != FIELD_NODE_NAME or req.operator not in ("In", "NotIn") or len(req.values) != 1:
        return mask
    position = table.index.get(req.values[0])
    if position is not None:
        mask[position] = True
    return mask if req.operator == "In" else ~mask


def node_selector_term_mask(table: "NodeTable[NodeInfo]", term: NodeSelectorTerm) -> np.ndarray:
    """node_selector_term_matches over every node: all expressions and fields; an empty or
    invalid term matches nothing."""
    cache = table_cache(table, "term")
    mask: Optional[np.ndarray] = cache.get(term)
    if mask is not None:
        return mask
    mask = np.zeros(table.size, dtype=bool)
    if (term.match_expressions or term.match_fields) and all(map(valid_node_requirement, term.match_expressions)):
        mask = ~mask
        for req in term.match_expressions:
            mask &= label_requirement_mask(table, req.key, req.operator, req.values)
        for req in term.match_fields:
            mask &= _field_mask(table, req)
    cache[term] = mask
    return mask


def node_selector_mask(table: "NodeTable[NodeInfo]", selector: NodeSelector) -> np.ndarray:
    """node_selector_matches over every node: terms are ORed."""
    mask = np.zeros(table.size, dtype=bool)
    for term in selector.terms:
        mask |= node_selector_term_mask(table, term)
    return mask


def required_node_affinity_mask(pod: Pod, table: "NodeTable[NodeInfo]") -> np.ndarray:
    """required_node_affinity_matches over every node (a bool per table position; do not modify)."""
    affinity = pod.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    if not pod.node_selector and required is None:
        return np.ones(table.size, dtype=bool)
    cache = table_cache(table, "required")
    key = (tuple(sorted(pod.node_selector.items())), required)
    mask: Optional[np.ndarray] = cache.get(key)
    if mask is None:
        mask = np.ones(table.size, dtype=bool)
        for label, value in key[0]:
            mask &= label_requirement_mask(table, label, "In", (value,))
        if required is not None:
            mask &= node_selector_mask(table, required)
        cache[key] = mask
    return mask


def distinct_values(keys: np.ndarray) -> list[int]:
    """The distinct non-negative ints of ``keys``, ascending; bincount for small ones (np.unique sorts)."""
    if not len(keys):
        return []
    if int(keys.max()) < 1 << 16:
        return np.flatnonzero(np.bincount(keys)).tolist()
    distinct: list[int] = np.unique(keys).tolist()
    return distinct


def tainted_verdicts(
    table: "NodeTable[NodeInfo]", kind: str, key: Hashable, judge: Callable[[tuple[Taint, ...]], int]
) -> np.ndarray:
    """``judge(taints)`` for every node, as an int64 per table position: 0 where a node has no taints.

    Only the (usually few) tainted nodes are looked at in Python; the result is cached under
    ``(kind, key)``, which must determine the judgement (the table is rebuilt when a node changes).
    """
    cache = table_cache(table, "taint")
    values: Optional[np.ndarray] = cache.get((kind, key))
    if values is None:
        values = np.zeros(table.size, dtype=np.int64)
        infos = table.node_infos
        for position in table.tainted.tolist():
            values[position] = judge(infos[position].node.taints)
        cache[(kind, key)] = values
    return values
