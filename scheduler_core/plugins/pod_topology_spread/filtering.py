"""PreFilter/Filter half of PodTopologySpread (podtopologyspread/filtering.go).

For each hard constraint PreFilter counts the matching pods per topology domain over the nodes
that carry every hard constraint's key and pass the constraint's inclusion policies. Filter then
admits a node when ``matchNum[domain] + selfMatch - globalMinimum <= maxSkew``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from scheduler_core.framework.filter_facts import SpreadFact
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.util.wire import Wire
from scheduler_core.model import Node, Pod
from scheduler_core.plugins.pod_topology_spread.common import (
    Constraint,
    InclusionPolicy,
    MatchCounter,
    node_has_all_keys,
)

REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
REASON_NODE_LABEL_NOT_MATCH = REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_MAX_INT32 = 2**31 - 1


@dataclass(slots=True)
class _Path:
    value: str = ""
    match_num: int = _MAX_INT32


class CriticalPaths:
    """The two smallest-count domains of one constraint, kept as Go keeps them.

    ``paths[0].match_num`` is always the minimum; ``paths[1]`` is only "at least as large",
    which is enough for preemption's one-node-at-a-time updates (and must be ported as is,
    since after updates it decides what the minimum becomes).
    """

    __slots__ = ("paths",)

    def __init__(self, paths: Optional[list[_Path]] = None) -> None:
        self.paths = paths if paths is not None else [_Path(), _Path()]

    @property
    def minimum(self) -> int:
        return self.paths[0].match_num

    def update(self, value: str, num: int) -> None:
        first, second = self.paths
        if value == first.value:
            index = 0
        elif value == second.value:
            index = 1
        else:
            index = -1
        if index >= 0:
            self.paths[index].match_num = num
            if self.paths[0].match_num > self.paths[1].match_num:
                self.paths.reverse()
        elif num < first.match_num:
            self.paths[1] = _Path(first.value, first.match_num)
            self.paths[0] = _Path(value, num)
        elif num < second.match_num:
            self.paths[1] = _Path(value, num)

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([_Path(p.value, p.match_num) for p in self.paths])


class PreFilterState:
    """Per hard constraint: matching pods per domain and the critical paths (preFilterState)."""

    __slots__ = ("constraints", "match_num", "critical_paths", "batch", "_shared")

    def __init__(
        self, constraints: list[Constraint], match_num: list[dict[str, int]], critical_paths: list[CriticalPaths]
    ) -> None:
        self.constraints = constraints  # shared between clones: never changed
        self.match_num = match_num
        self.critical_paths = critical_paths
        # The fast path's arrays (vectorized.FilterArrays), equal to match_num; dropped by clone
        # and by update_with_pod, after which Filter goes node by node. Any: vectorized.py imports
        # this module, so the type cannot be named here without an import cycle.
        self.batch: Any = None
        # match_num's maps are shared with a clone (or the state cloned) until one side changes them.
        self._shared = False

    def min_match_num(self, index: int) -> int:
        """The global minimum, 0 while fewer domains than minDomains are eligible."""
        if len(self.match_num[index]) < self.constraints[index].min_domains:
            return 0
        return self.critical_paths[index].minimum

    def clone(self) -> "PreFilterState":
        """preFilterState.Clone: the copy's counts are its own. The per-domain maps are copied when
        first changed, not here: preemption's dry run clones the state for every potential node
        (thousands) and mostly removes pods no constraint selects, while a constraint keyed by
        hostname has a domain per node."""
        other = PreFilterState(self.constraints, self.match_num, [p.clone() for p in self.critical_paths])
        other._shared = self._shared = True
        return other

    def memo_content(self) -> tuple[Any, ...]:
        """The constraints (their selectors may come from the cluster's services and workloads),
        the counts (copies) and the critical paths."""
        paths = tuple((p.value, p.match_num) for critical in self.critical_paths for p in critical.paths)
        return (tuple(self.constraints), tuple(dict(m) for m in self.match_num), paths)

    def own_counts(self) -> None:
        """Before a change: match_num's maps are made this state's own if a clone shares them."""
        if self._shared:
            self.match_num = [dict(m) for m in self.match_num]
            self._shared = False

    def to_json(self) -> list[dict[str, Any]]:
        return [
            ConstraintCounts(
                c.topology_key,
                c.max_skew,
                c.min_domains,
                dict(sorted(self.match_num[i].items())),
                self.min_match_num(i),
            ).to_json()
            for i, c in enumerate(self.constraints)
        ]


class ConstraintCounts(Wire, omit_defaults=False):
    """One hard constraint of ``PreFilterState`` as the PreFilter event's state writes it (the state
    is a list of these): matching pods per domain, sorted, and the global minimum Filter subtracts."""

    topology_key: str
    max_skew: int
    min_domains: int
    match_num: dict[str, int]
    min_match_num: int


def compute_pre_filter_state(
    pod: Pod, constraints: list[Constraint], nodes: list[NodeInfo], counter: MatchCounter
) -> PreFilterState:
    """calPreFilterState over every node of the cycle."""
    match_num: list[dict[str, int]] = [{} for _ in constraints]
    policy = InclusionPolicy(pod)
    counts = [counter.counter(pod.namespace, c) for c in constraints]
    for node_info in nodes:
        node = node_info.node
        labels = node.labels
        if not node_has_all_keys(labels, constraints):
            continue
        for i, constraint in enumerate(constraints):
            if not policy.includes(constraint, node):
                continue
            value = labels[constraint.topology_key]
            domains = match_num[i]
            domains[value] = domains.get(value, 0) + counts[i](node_info)
    return PreFilterState(constraints, match_num, critical_paths_of(match_num))


def critical_paths_of(match_num: list[dict[str, int]]) -> list[CriticalPaths]:
    """Per constraint, the critical paths of its domains (calPreFilterState's last loop), fed in
    matchNum's order: ties keep the value fed first, so both PreFilters build them here alike."""
    paths = []
    for domains in match_num:
        critical = CriticalPaths()
        for value, num in domains.items():
            critical.update(value, num)
        paths.append(critical)
    return paths


def filter_node(state: PreFilterState, pod: Pod, node: Node) -> MaybeStatus:
    """Filter: every hard constraint's key present, and the skew within maxSkew."""
    labels = node.labels
    for i, constraint in enumerate(state.constraints):
        value = labels.get(constraint.topology_key)
        if value is None:
            return Status.unresolvable(REASON_NODE_LABEL_NOT_MATCH)
        self_match = 1 if constraint.matcher.matches(pod.labels) else 0
        skew = state.match_num[i].get(value, 0) + self_match - state.min_match_num(i)
        if skew > constraint.max_skew:
            return Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH)
    return None


def filter_facts(state: PreFilterState, pod: Pod, node: Node) -> tuple[SpreadFact, ...]:
    """filter_node's comparison for the constraint that rejected the node (the first one, as
    filter_node stops there): its domain, counts and skew. Explanations only."""
    labels = node.labels
    for i, constraint in enumerate(state.constraints):
        value = labels.get(constraint.topology_key)
        if value is None:
            return (
                SpreadFact(REASON_NODE_LABEL_NOT_MATCH, constraint.topology_key, None, 0, 0, 0, constraint.max_skew),
            )
        self_match = 1 if constraint.matcher.matches(pod.labels) else 0
        fact = SpreadFact(
            REASON_CONSTRAINTS_NOT_MATCH,
            constraint.topology_key,
            value,
            state.match_num[i].get(value, 0),
            self_match,
            state.min_match_num(i),
            constraint.max_skew,
        )
        if fact.skew > constraint.max_skew:
            return (fact,)
    return ()


def update_with_pod(state: PreFilterState, changed: Pod, pod: Pod, node: Optional[Node], delta: int) -> None:
    """updateWithPod: preemption added (+1) or removed (-1) ``changed`` on ``node``."""
    if changed.namespace != pod.namespace or node is None:
        return
    labels = node.labels
    if not node_has_all_keys(labels, state.constraints):
        return
    state.batch = None
    policy = InclusionPolicy(pod)
    for i, constraint in enumerate(state.constraints):
        if not constraint.matcher.matches(changed.labels) or not policy.includes(constraint, node):
            continue
        value = labels[constraint.topology_key]
        state.own_counts()
        state.match_num[i][value] = state.match_num[i].get(value, 0) + delta
        state.critical_paths[i].update(value, state.match_num[i][value])
