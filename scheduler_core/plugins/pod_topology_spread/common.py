"""What Filter and Score share: resolved constraints, default selectors, inclusion policies, counting.

Mirrors podtopologyspread/common.go and helper.DefaultSelector. Counting matching pods per node is
the hot path at scale, so ``MatchCounter`` answers it from a label index kept in step with the
snapshot (or, for selectors without equalities, from counts remembered per node between cycles).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional

from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.model.labels import Matcher, compile_selector, map_selector_matches, merge_match_label_keys
from scheduler_core.model import (
    LABEL_HOSTNAME,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    Service,
    TopologySpreadConstraint,
    Workload,
)
from scheduler_core.plugins.helper import find_untolerated_taint, required_node_affinity_matches

HONOR = "Honor"
IGNORE = "Ignore"

# helper.DefaultSelector accepts a controller only with these exact group/version/kind.
CONTROLLER_KINDS = {
    ("v1", "ReplicationController"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
}


@dataclass(frozen=True, slots=True)
class Constraint:
    """topologySpreadConstraint: a pod's (or default) constraint with its selector resolved."""

    max_skew: int
    topology_key: str
    selector: Optional[LabelSelector]  # None selects nothing, as a nil LabelSelector does
    min_domains: int = 1
    honor_node_affinity: bool = True  # nodeAffinityPolicy, Honor when unset
    honor_node_taints: bool = False  # nodeTaintsPolicy, Ignore when unset
    matcher: Matcher = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "matcher", compile_selector(self.selector))

    @property
    def is_hostname(self) -> bool:
        return self.topology_key == LABEL_HOSTNAME


def resolve_constraints(
    specs: Iterable[TopologySpreadConstraint], action: str, pod_labels: Mapping[str, str]
) -> list[Constraint]:
    """filterTopologySpreadConstraints: those with ``whenUnsatisfiable == action``, matchLabelKeys merged."""
    resolved = []
    for spec in specs:
        if spec.when_unsatisfiable != action:
            continue
        selector = merge_match_label_keys(spec.label_selector, spec.match_label_keys, pod_labels)
        resolved.append(
            Constraint(
                max_skew=spec.max_skew,
                topology_key=spec.topology_key,
                selector=selector,
                min_domains=spec.min_domains if spec.min_domains is not None else 1,
                honor_node_affinity=(spec.node_affinity_policy or HONOR) == HONOR,
                honor_node_taints=(spec.node_taints_policy or IGNORE) == HONOR,
            )
        )
    return resolved


def default_selector(pod: Pod, services: Iterable[Service], workloads: Iterable[Workload]) -> LabelSelector:
    """helper.DefaultSelector over these Services and controllers (SpreadingListers.default_selector)."""
    return SpreadingListers(services, workloads).default_selector(pod)


class SpreadingListers:
    """The Services and controllers helper.DefaultSelector reads, indexed as its listers look them up:
    a Service by its namespace and the first pair of its selector (it selects a pod only when the
    pod has every pair of its selector, that one too), a controller by kind, namespace and name
    (the first listed, as a lister's Get finds the one there is). A 5,000-node cluster's 6,000
    Services were scanned whole for every pod, 14 ms a cycle."""

    def __init__(self, services: Iterable[Service], workloads: Iterable[Workload]) -> None:
        # Each distinct selector once: what a Service adds is its selector, and a cluster of copied
        # workloads has hundreds of Services selecting alike in one namespace, all asked per pod.
        self.selectors: dict[tuple[str, str, str], list[Mapping[str, str]]] = {}
        seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        for service in services:
            if service.selector:
                distinct = (service.namespace, tuple(sorted(service.selector.items())))
                if distinct in seen:
                    continue
                seen.add(distinct)
                key, value = next(iter(service.selector.items()))
                self.selectors.setdefault((service.namespace, key, value), []).append(service.selector)
        self.workloads: dict[tuple[str, str, str], Workload] = {}
        for workload in workloads:
            self.workloads.setdefault((workload.kind, workload.namespace, workload.name), workload)

    def default_selector(self, pod: Pod) -> LabelSelector:
        """The union of the selectors of the pod's Services and its controller.

        Services of the pod's namespace that select it contribute their label sets (each a subset
        of the pod's labels, so the union is the same in any order); a controller
        ReplicationController merges its map in too (overriding equal keys), a ReplicaSet or
        StatefulSet adds its selector's requirements. An empty result means "no default spreading".
        """
        label_set: dict[str, str] = {}
        namespace, labels = pod.namespace, pod.labels
        for key, value in labels.items():
            for selector in self.selectors.get((namespace, key, value), ()):
                if map_selector_matches(selector, labels):
                    label_set.update(selector)
        extra: tuple[LabelSelectorRequirement, ...] = ()
        owner = next((ref for ref in pod.owner_references if ref.controller), None)
        if owner is not None and (owner.api_version, owner.kind) in CONTROLLER_KINDS:
            workload = self.workloads.get((owner.kind, namespace, owner.name))
            if workload is not None and workload.selector is not None:
                if owner.kind == "ReplicationController":
                    label_set.update(workload.selector.match_labels)
                else:
                    extra = _requirements(workload.selector)
        return LabelSelector(tuple(sorted(label_set.items())), extra)


def _requirements(selector: LabelSelector) -> tuple[LabelSelectorRequirement, ...]:
    """metav1.LabelSelectorAsSelector(...).Requirements(): matchLabels become ``In`` requirements."""
    pairs = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in selector.match_labels)
    return pairs + selector.match_expressions


def node_has_all_keys(labels: Mapping[str, str], constraints: Iterable[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: every constraint's topology key is on the node."""
    return all(c.topology_key in labels for c in constraints)


def required_node_affinity(pod: Pod) -> Optional[Callable[[Node], bool]]:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match, or None when the pod requires nothing."""
    affinity = pod.affinity
    if not pod.node_selector and not (affinity and affinity.node_affinity and affinity.node_affinity.required):
        return None
    return lambda node: required_node_affinity_matches(pod, node)


class InclusionPolicy:
    """matchNodeInclusionPolicies for one pod: which nodes count for a constraint."""

    __slots__ = ("_pod", "_affinity", "_taint_verdicts")

    def __init__(self, pod: Pod) -> None:
        self._pod = pod
        self._affinity = required_node_affinity(pod)
        self._taint_verdicts: dict[str, bool] = {}

    def includes(self, constraint: Constraint, node: Node) -> bool:
        if constraint.honor_node_affinity and self._affinity is not None and not self._affinity(node):
            return False
        if constraint.honor_node_taints and not self._tolerates(node):
            return False
        return True

    def _tolerates(self, node: Node) -> bool:
        verdict = self._taint_verdicts.get(node.name)
        if verdict is None:
            verdict = tolerates_do_not_schedule_taints(self._pod, node)
            self._taint_verdicts[node.name] = verdict
        return verdict


def tolerates_do_not_schedule_taints(pod: Pod, node: Node) -> bool:
    """No NoSchedule/NoExecute taint of the node is left untolerated (FindMatchingUntoleratedTaint)."""
    return find_untolerated_taint(node.taints, pod.tolerations) is None


def count_matching(node_info: NodeInfo, namespace: str, matcher: Matcher) -> int:
    """countPodsMatchSelector: pods on the node in ``namespace`` that the selector matches;
    terminating pods are bypassed (kubernetes#87621)."""
    if matcher.is_nothing:
        return 0
    count = 0
    for info in node_info.pods:
        pod = info.pod
        if pod.namespace == namespace and not pod.is_terminating and matcher.matches(pod.labels):
            count += 1
    return count


class LabelIndex:
    """For each (namespace, label key, value): on which nodes, and how many pods carry it
    (terminating pods left out, as the plugin's counting leaves them out).

    Kept in step with the snapshot lazily: a node is re-indexed when its NodeInfo object or its
    ``generation`` (bumped on every pod added or removed) differs from what was indexed.
    """

    __slots__ = ("indexed_nodes", "by_pair")

    def __init__(self) -> None:
        # node name -> (the NodeInfo indexed, its generation then, the pairs its pods carried)
        self.indexed_nodes: dict[str, tuple[NodeInfo, int, list[tuple[str, str, str]]]] = {}
        # (namespace, key, value) -> node name -> pods there carrying the label
        self.by_pair: dict[tuple[str, str, str], dict[str, int]] = {}

    def sync(self, node_info: NodeInfo) -> None:
        name = node_info.node.name
        entry = self.indexed_nodes.get(name)
        if entry is not None:
            if entry[0] is node_info and entry[1] == node_info.generation:
                return
            for pair in entry[2]:
                table = self.by_pair[pair]
                table[name] -= 1
                if not table[name]:
                    del table[name]
        pairs = [
            (info.pod.namespace, key, value)
            for info in node_info.pods
            if not info.pod.is_terminating
            for key, value in info.pod.labels.items()
        ]
        for pair in pairs:
            table = self.by_pair.setdefault(pair, {})
            table[name] = table.get(name, 0) + 1
        self.indexed_nodes[name] = (node_info, node_info.generation, pairs)


class MatchCounter:
    """Counts matching pods per node without rescanning every pod for every node.

    A selector with key=value equalities is answered from the ``LabelIndex``: a node none of
    whose pods carries one of the pairs counts 0, a one-pair selector reads the count directly,
    and only the remaining nodes are scanned. Other selectors keep per-node counts per
    (namespace, selector) between cycles, recounting a node only when its pods changed.
    """

    def __init__(self, max_selectors: int = 64) -> None:
        self._max = max_selectors
        self._index = LabelIndex()
        self._tables: OrderedDict[tuple[str, Optional[LabelSelector]], dict[str, tuple[NodeInfo, int, int]]] = (
            OrderedDict()
        )

    def counter(self, namespace: str, constraint: Constraint) -> Callable[[NodeInfo], int]:
        matcher = constraint.matcher
        if matcher.is_nothing:
            return lambda node_info: 0
        if matcher.pairs:
            return self._indexed_counter(namespace, matcher)
        return self._cached_counter(namespace, constraint)

    def _indexed_counter(self, namespace: str, matcher: Matcher) -> Callable[[NodeInfo], int]:
        index = self._index
        indexed_nodes = index.indexed_nodes
        by_pair = index.by_pair
        pair_keys = [(namespace, key, value) for key, value in matcher.pairs]
        direct = len(pair_keys) == 1 and matcher.exact

        def count(node_info: NodeInfo) -> int:
            name = node_info.node.name
            entry = indexed_nodes.get(name)
            if entry is None or entry[0] is not node_info or entry[1] != node_info.generation:
                index.sync(node_info)
            for pair in pair_keys:
                table = by_pair.get(pair)
                if table is None or name not in table:
                    return 0
                if direct:
                    return table[name]
            return count_matching(node_info, namespace, matcher)

        return count

    def _cached_counter(self, namespace: str, constraint: Constraint) -> Callable[[NodeInfo], int]:
        key = (namespace, constraint.selector)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = {}
            if len(self._tables) > self._max:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(key)
        matcher = constraint.matcher

        def count(node_info: NodeInfo) -> int:
            entry = table.get(node_info.node.name)
            if entry is not None and entry[0] is node_info and entry[1] == node_info.generation:
                return entry[2]
            value = count_matching(node_info, namespace, matcher)
            table[node_info.node.name] = (node_info, node_info.generation, value)
            return value

        return count


# ---------------------------------------------------------------------------- Go float arithmetic

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1, _LG2, _LG3, _LG4, _LG5, _LG6, _LG7 = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_HALF_SQRT2 = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Go's math.Log, bit for bit (it differs from the C library in the last place, e.g. for 3).

    The weights in the conformance traces are Go's, so the same algorithm is used here:
    x = 2^k * (1+f), log(1+f) from a minimax polynomial in s = f/(2+f).
    """
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < _HALF_SQRT2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_LG1 + s4 * (_LG3 + s4 * (_LG5 + s4 * _LG7)))
    t2 = s4 * (_LG2 + s4 * (_LG4 + s4 * _LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_round(x: float) -> int:
    """int64(math.Round(x)): halves away from zero, exact for every float.

    (``plugins.helper.go_round`` adds 0.5 and floors, which rounds 0.49999999999999994 up.)
    """
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return int(whole)
