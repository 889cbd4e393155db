"""What PodTopologySpread's Filter will decide, per hard constraint and per domain (a picture).

The PreFilter state holds the counts; Filter turns them into one verdict per node, the first
failing constraint deciding. The run view and ``scheduler_core.answers.explain`` need each constraint's
OWN verdict per domain instead — which domains constraint A allows, which constraint B allows —
to show why a pod fits nowhere when each constraint alone would allow something. The verdicts are
computed here with Filter's own rule (``filtering.filter_node``), so the picture cannot disagree
with the Filter events: a node passes the plugin exactly when every constraint allows its domain.

Cost matters (it is built in every cycle with hard constraints): the nodes of each domain depend
only on the node labels, so the fast path groups them once per NodeTable and label key; a cycle
then adds one array operation per constraint. The JSON is made only when the event is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import MISSING, NodeTable
from scheduler_core.model import Pod
from scheduler_core.plugins.pod_topology_spread.filtering import PreFilterState
from scheduler_core.util.wire import Wire, row_writer, rows_writer


@dataclass(frozen=True, slots=True)
class DomainNodes:
    """The nodes grouped by one label key: the values (sorted), each value's nodes (node order),
    and the nodes without the key."""

    values: tuple[str, ...]
    nodes: tuple[tuple[str, ...], ...]
    without_key: tuple[str, ...]

    def with_values(self, extra: Iterable[str]) -> "DomainNodes":
        """Also the domains in ``extra`` (counted yet without a node here), with no nodes."""
        merged = dict(zip(self.values, self.nodes))
        for value in extra:
            merged.setdefault(value, ())
        values = tuple(sorted(merged))
        return DomainNodes(values, tuple(merged[v] for v in values), self.without_key)


def group_nodes(nodes: Iterable[NodeInfo], key: str) -> DomainNodes:
    """The reference grouping, node by node."""
    by_value: dict[str, list[str]] = {}
    without: list[str] = []
    for info in nodes:
        value = info.node.labels.get(key)
        if value is None:
            without.append(info.name)
        else:
            by_value.setdefault(value, []).append(info.name)
    values = tuple(sorted(by_value))
    return DomainNodes(values, tuple(tuple(by_value[v]) for v in values), tuple(without))


def group_table(table: NodeTable[NodeInfo], key: str) -> DomainNodes:
    """The same grouping over the table's label column (a stable sort keeps node order)."""
    column = table.labels(key)
    codes = column.codes
    present = np.flatnonzero(codes != MISSING)
    order = present[np.argsort(codes[present], kind="stable")]
    groups = np.split(order, np.flatnonzero(np.diff(codes[order])) + 1) if len(order) else []
    by_value = {column.values[codes[g[0]]]: tuple(table.names_array[g].tolist()) for g in groups}
    values = tuple(sorted(by_value))
    without = tuple(table.names_array[codes == MISSING].tolist())
    return DomainNodes(values, tuple(by_value[v] for v in values), without)


@dataclass(frozen=True, slots=True)
class ConstraintVerdicts:
    """One hard constraint over its domains (arrays aligned with ``domains.values``)."""

    topology_key: str
    max_skew: int
    min_domains: int
    self_match: int  # 1 when the incoming pod matches the constraint's own selector
    min_match_num: int  # the global minimum Filter subtracts (0 while under minDomains)
    eligible_domains: int  # domains PreFilter counted (what minDomains is compared with)
    domains: DomainNodes
    match_num: np.ndarray  # matching pods counted per domain (0 where none of its nodes was counted)
    counted: np.ndarray  # bool: the domain is among the eligible domains PreFilter counted
    skew: np.ndarray  # match_num + self_match - min_match_num: what placing the pod there would make
    allowed: np.ndarray  # bool: skew <= max_skew

    def to_json(self, node_list: Callable[[tuple[str, ...]], Any] = list) -> dict[str, Any]:
        """Its wire form (``ConstraintPicture``). ``node_list`` turns a domain's node names into their
        JSON (a list; the columnar encoder passes its own, which stores the same, fixed, tuple once per
        run instead of once per cycle)."""
        domains = _DOMAINS(
            zip(
                self.domains.values,
                self.match_num.tolist(),
                self.skew.tolist(),
                self.allowed.tolist(),
                self.counted.tolist(),
                map(node_list, self.domains.nodes),
            )
        )
        return _CONSTRAINT(
            self.topology_key,
            self.max_skew,
            self.min_domains,
            self.self_match,
            self.min_match_num,
            self.eligible_domains,
            domains,
            node_list(self.domains.without_key),
        )


@dataclass(frozen=True, slots=True)
class SpreadPicture:
    """Every hard constraint's verdicts over every node of the cycle's snapshot."""

    constraints: tuple[ConstraintVerdicts, ...]

    def to_json(self, node_list: Callable[[tuple[str, ...]], Any] = list) -> dict[str, Any]:
        """Its wire form (``SpreadPictureJSON``)."""
        return _PICTURE([c.to_json(node_list) for c in self.constraints])


# The wire forms: the PreFilter event's picture as the stream writes it and the browser reads it.


class DomainPicture(Wire, omit_defaults=False):
    """One domain (label value) under one constraint: matching pods counted there, the skew placing
    the pod there would make, whether that is allowed, whether PreFilter counted the domain, and its
    nodes (a column reference where the columnar encoder stores them)."""

    value: str
    match_num: int
    skew: int
    allowed: bool
    counted: bool
    nodes: list[str]


class ConstraintPicture(Wire, omit_defaults=False):
    """``ConstraintVerdicts``' wire form."""

    topology_key: str
    max_skew: int
    min_domains: int
    self_match: int
    min_match_num: int
    eligible_domains: int
    domains: list[DomainPicture]
    nodes_without_key: list[str]


class SpreadPictureJSON(Wire, omit_defaults=False):
    """``SpreadPicture``'s wire form."""

    constraints: list[ConstraintPicture]


# Thousands of domains a cycle (a hostname key) are written straight from the arrays (util/wire.py).
_DOMAINS = rows_writer(DomainPicture)
_CONSTRAINT = row_writer(ConstraintPicture)
_PICTURE = row_writer(SpreadPictureJSON)


def spread_picture(state: PreFilterState, pod: Pod, groupings: list[DomainNodes]) -> SpreadPicture:
    """``groupings[i]``: the nodes grouped by constraint i's topology key."""
    return SpreadPicture(tuple(_verdicts(state, i, pod, grouping) for i, grouping in enumerate(groupings)))


def _verdicts(state: PreFilterState, index: int, pod: Pod, domains: DomainNodes) -> ConstraintVerdicts:
    constraint = state.constraints[index]
    counted = state.match_num[index]
    if not counted.keys() <= set(domains.values):
        domains = domains.with_values(counted)
    minimum = state.min_match_num(index)
    self_match = 1 if constraint.matcher.matches(pod.labels) else 0
    match_num = np.fromiter((counted.get(v, 0) for v in domains.values), dtype=np.int64, count=len(domains.values))
    is_counted = np.fromiter((v in counted for v in domains.values), dtype=bool, count=len(domains.values))
    skew = match_num + self_match - minimum  # as Filter computes it, with counted.get(value, 0)
    return ConstraintVerdicts(
        constraint.topology_key,
        constraint.max_skew,
        constraint.min_domains,
        self_match,
        minimum,
        len(counted),
        domains,
        match_num,
        is_counted,
        skew,
        skew <= constraint.max_skew,
    )
