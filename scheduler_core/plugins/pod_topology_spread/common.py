"""What Filter and Score share: resolved constraints, default selectors, inclusion policies, counting.

Mirrors podtopologyspread/common.go and helper.DefaultSelector. Counting matching pods per node is
the hot path at scale, so ``MatchCounter`` remembers each node's count per (namespace, selector)
across cycles and recounts a node only when its pod list changed (``NodeInfo.generation``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional

from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.labels import (
    Matcher,
    compile_selector,
    map_selector_matches,
    merge_match_label_keys,
    node_selector_matches,
)
from scheduler_core.model import (
    LABEL_HOSTNAME,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    Service,
    TaintEffect,
    TopologySpreadConstraint,
    Workload,
)

HONOR = "Honor"
IGNORE = "Ignore"

# helper.DefaultSelector accepts a controller only with these exact group/version/kind.
_CONTROLLER_KINDS = {
    ("v1", "ReplicationController"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
}
_DO_NOT_SCHEDULE_EFFECTS = (TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value)


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


def resolve_constraints(specs: Iterable[TopologySpreadConstraint], action: str,
                        pod_labels: Mapping[str, str]) -> list[Constraint]:
    """filterTopologySpreadConstraints: those with ``whenUnsatisfiable == action``, matchLabelKeys merged."""
    resolved = []
    for spec in specs:
        if spec.when_unsatisfiable != action:
            continue
        selector = merge_match_label_keys(spec.label_selector, spec.match_label_keys, pod_labels)
        resolved.append(Constraint(
            max_skew=spec.max_skew,
            topology_key=spec.topology_key,
            selector=selector,
            min_domains=spec.min_domains if spec.min_domains is not None else 1,
            honor_node_affinity=(spec.node_affinity_policy or HONOR) == HONOR,
            honor_node_taints=(spec.node_taints_policy or IGNORE) == HONOR,
        ))
    return resolved


def default_selector(pod: Pod, services: Iterable[Service], workloads: Iterable[Workload]) -> LabelSelector:
    """helper.DefaultSelector: the union of the selectors of the pod's Services and its controller.

    Services of the pod's namespace that select it contribute their label sets; a controller
    ReplicationController merges its map in too (overriding equal keys), a ReplicaSet or
    StatefulSet adds its selector's requirements. An empty result means "no default spreading".
    """
    label_set: dict[str, str] = {}
    for service in services:
        if service.namespace == pod.namespace and service.selector and map_selector_matches(service.selector,
                                                                                             pod.labels):
            label_set.update(service.selector)
    extra: tuple[LabelSelectorRequirement, ...] = ()
    owner = next((ref for ref in pod.owner_references if ref.controller), None)
    if owner is not None and (owner.api_version, owner.kind) in _CONTROLLER_KINDS:
        workload = _find_workload(workloads, owner.kind, pod.namespace, owner.name)
        if workload is not None and workload.selector is not None:
            if owner.kind == "ReplicationController":
                label_set.update(workload.selector.match_labels)
            else:
                extra = _requirements(workload.selector)
    return LabelSelector(tuple(sorted(label_set.items())), extra)


def _find_workload(workloads: Iterable[Workload], kind: str, namespace: str, name: str) -> Optional[Workload]:
    return next((w for w in workloads if w.kind == kind and w.namespace == namespace and w.name == name), None)


def _requirements(selector: LabelSelector) -> tuple[LabelSelectorRequirement, ...]:
    """metav1.LabelSelectorAsSelector(...).Requirements(): matchLabels become ``In`` requirements."""
    pairs = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in selector.match_labels)
    return pairs + selector.match_expressions


def node_has_all_keys(labels: Mapping[str, str], constraints: Iterable[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: every constraint's topology key is on the node."""
    return all(c.topology_key in labels for c in constraints)


def required_node_affinity(pod: Pod) -> Optional[Callable[[Node], bool]]:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match, or None when the pod requires nothing."""
    node_selector = pod.node_selector
    node_affinity = pod.affinity.node_affinity if pod.affinity else None
    required = node_affinity.required if node_affinity else None
    if not node_selector and required is None:
        return None

    def matches(node: Node) -> bool:
        if node_selector and not map_selector_matches(node_selector, node.labels):
            return False
        return required is None or node_selector_matches(required, node)

    return matches


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
    for taint in node.taints:
        if taint.effect not in _DO_NOT_SCHEDULE_EFFECTS:
            continue
        if not any(toleration.tolerates(taint) for toleration in pod.tolerations):
            return False
    return True


def count_matching(node_info: NodeInfo, namespace: str, matcher: Matcher) -> int:
    """countPodsMatchSelector: pods on the node in ``namespace`` that the selector matches."""
    if matcher.is_nothing:
        return 0
    count = 0
    for info in node_info.pods:
        pod = info.pod
        if pod.namespace == namespace and matcher.matches(pod.labels):
            count += 1
    return count


class MatchCounter:
    """Per-node counts of matching pods, remembered per (namespace, selector) between cycles.

    An entry is reused only for the very NodeInfo it was computed on and only while its
    ``generation`` (bumped on every pod added or removed) is unchanged.
    """

    def __init__(self, max_selectors: int = 64) -> None:
        self._max = max_selectors
        self._tables: OrderedDict[tuple[str, Optional[LabelSelector]], dict[str, tuple[NodeInfo, int, int]]] = \
            OrderedDict()

    def counter(self, namespace: str, constraint: Constraint) -> Callable[[NodeInfo], int]:
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
    6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
    1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01)
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
    """int64(math.Round(x)): halves away from zero, exact for every float."""
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return int(whole)


def go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
