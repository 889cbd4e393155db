"""selectVictimsOnNode: the fewest lower-priority pods whose eviction lets the pod fit one node.

Works on a CLONED NodeInfo and a CLONED CycleState: every lower-priority pod is removed (PreFilter
states follow through their ``remove_pod`` extensions), the Filter plugins must then pass, and the
removed pods are reprieved one by one, most important first, as long as the pod still fits.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional, Sequence

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PluginsRunner
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.status import MaybeStatus, Status, is_success
from scheduler_core.util.gosort import sorted_slice
from scheduler_core.model.labels import Matcher, compile_selector
from scheduler_core.model import Pod, PodDisruptionBudget

REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
# Added to every priority before summing, so that negative priorities still sum "smaller is better".
PRIORITY_OFFSET = 2**31


@dataclass(frozen=True, slots=True)
class Victims:
    """extenderv1.Victims: the pods to evict, most important first, and how many break a PDB.

    What candidates are compared and listed by is worked out once, when the victims are chosen
    (a candidate's victims are compared and listed in every cycle that reuses them)."""

    pods: tuple[Pod, ...]
    num_pdb_violations: int = 0
    keys: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # The same as a list, made once: every preemption lists every candidate's victims (thousands),
    # mostly the same Victims kept from cycle to cycle. Shared by those lists: never changed.
    key_list: list[str] = field(init=False, repr=False, compare=False)
    highest_priority: int = field(init=False, repr=False, compare=False)
    priority_sum: int = field(init=False, repr=False, compare=False)
    # GetEarliestPodStartTime among the highest-priority victims (None: none has a start time, ``Now``).
    earliest_top_start: Optional[datetime] = field(init=False, repr=False, compare=False)
    # pickOneNodeForPreemption's first four criteria, each smaller-is-better, in their order.
    rank: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", tuple(sorted(pod.key for pod in self.pods)))
        object.__setattr__(self, "key_list", list(self.keys))
        priorities = [pod.priority for pod in self.pods]
        top = max(priorities) if priorities else 0
        object.__setattr__(self, "highest_priority", top)
        starts = [pod.start_time for pod in self.pods if pod.priority == top and pod.start_time is not None]
        object.__setattr__(self, "earliest_top_start", min(starts) if starts else None)
        object.__setattr__(self, "priority_sum", sum(priorities) + len(priorities) * PRIORITY_OFFSET)
        object.__setattr__(self, "rank", (self.num_pdb_violations, top, self.priority_sum, len(self.pods)))

    @property
    def pod_keys(self) -> list[str]:
        """The victims as sorted "namespace/name" keys, as the trace lists them (one list, shared:
        read it, never change it)."""
        return self.key_list


def may_preempt(victim: Pod, preemptor: Pod) -> bool:
    """isPreemptionAllowed: only strictly lower priority (the default IsEligiblePod allows all)."""
    return victim.priority < preemptor.priority


def has_potential_victims(node_info: NodeInfo, preemptor: Pod) -> bool:
    """Cheap test: does the node run any pod the preemptor may evict (``may_preempt``: a lower
    priority)? Asked of every potential node of every preemption: the node keeps its lowest."""
    lowest = node_info.lowest_priority()
    return lowest is not None and lowest < preemptor.priority


def started_before(a: Pod, b: Pod) -> bool:
    """``GetPodStartTime(a).Before(GetPodStartTime(b))``: a pod without status.startTime reads
    ``time.Now()``, later than any recorded start, and later than the previous ``Now`` read (the
    comparator reads ``a``'s first): two pods without a start time compare "before" both ways."""
    if a.start_time is None:
        return b.start_time is None
    return b.start_time is None or a.start_time < b.start_time


def more_important(a: PodInfo, b: PodInfo) -> bool:
    """util.MoreImportantPod: higher priority, then the earlier start.

    Pods without status.startTime compare "more important" both ways (see ``started_before``):
    the comparator is then inconsistent, and the order it produces is whatever Go's sort makes of it.
    """
    if a.pod.priority != b.pod.priority:
        return a.pod.priority > b.pod.priority
    return started_before(a.pod, b.pod)


def by_importance(infos: Sequence[PodInfo]) -> list[PodInfo]:
    """The reprieve order: ``sort.Slice(infos, MoreImportantPod)`` as Go computes it.

    Higher priorities come first; equal priorities by start time, and among pods without one, the
    order Go's pdqsort leaves with the always-true tie (reverse node order up to 12 pods, the
    insertion-sort range; beyond, whatever the partitioning does), reproduced call for call by
    ``scheduler_core.util.gosort``.
    """
    return sorted_slice(infos, more_important)


class SharedSelector:
    """The budgets of one namespace with one selector: a pod that matches one matches them all.

    Those listing no disrupted pod spend alike (one count for all of them, and the smallest
    allowance is the first to go below zero); those listing some are spent one by one (a pod they
    list spends nothing of theirs). A workload copied many times over with shared labels has one
    budget per copy, every one matching every copy's pods: they are counted once, not per budget.
    """

    __slots__ = ("number", "least_allowed", "listing")

    def __init__(self, number: int) -> None:
        self.number = number  # this group's place among its preemption's groups
        self.least_allowed: Optional[int] = None  # the smallest allowance of those listing none
        self.listing: list[tuple[int, PodDisruptionBudget]] = []  # (index, budget) of the others

    def add(self, index: int, pdb: PodDisruptionBudget) -> None:
        if pdb.disrupted_pods:
            self.listing.append((index, pdb))
        elif self.least_allowed is None or pdb.disruptions_allowed < self.least_allowed:
            self.least_allowed = pdb.disruptions_allowed


class Budgets:
    """The PodDisruptionBudgets one preemption reads, looked up by what a pod could match.

    filterPodsWithPDBViolation asks every budget about every potential victim, on every potential
    node: at the envelope, thousands of budgets times thousands of nodes per preemption. Here each
    selector is compiled once per preemption and a budget is asked only about the pods of its
    namespace that carry its selector's first ``key=value`` equality (every selector with one
    requires it); the others (only set-based requirements) about every pod of their namespace.
    Budgets with the same selector in one namespace are one ``SharedSelector``, asked once per pod.
    A budget with a nil or empty selector matches nothing and is left out. The answers are those of
    asking every budget in order: each budget's allowance is its own, so the order budgets are spent
    in does not matter, only the pods'.
    """

    __slots__ = ("pdbs", "_by_pair", "_by_namespace")

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self.pdbs = pdbs
        groups = 0
        # (namespace, key, value) -> matcher -> the budgets whose selector it is and whose first
        # equality that is
        self._by_pair: dict[tuple[str, str, str], dict[Matcher, SharedSelector]] = {}
        # namespace -> matcher -> the budgets whose selector it is and has no equality
        self._by_namespace: dict[str, dict[Matcher, SharedSelector]] = {}
        for index, pdb in enumerate(pdbs):
            if pdb.selector is None or pdb.selector.is_empty:
                continue
            matcher = compile_selector(pdb.selector)  # one object per distinct selector (cached)
            if matcher.pairs:
                key, value = matcher.pairs[0]
                bucket = self._by_pair.setdefault((pdb.namespace, key, value), {})
            else:
                bucket = self._by_namespace.setdefault(pdb.namespace, {})
            group = bucket.get(matcher)
            if group is None:
                group = bucket[matcher] = SharedSelector(groups)
                groups += 1
            group.add(index, pdb)

    def __len__(self) -> int:
        return len(self.pdbs)

    def matching(self, pod: Pod) -> list[SharedSelector]:
        """The groups of budgets whose selector matches the pod."""
        namespace, labels = pod.namespace, pod.labels
        found: list[SharedSelector] = []
        for matcher, group in self._by_namespace.get(namespace, {}).items():
            if matcher.matches(labels):
                found.append(group)
        for key, value in labels.items():
            for matcher, group in self._by_pair.get((namespace, key, value), {}).items():
                if matcher.matches(labels):
                    found.append(group)
        return found


class KeptBudgets:
    """One ``Budgets`` for the lister's budgets while they are as they were (each the same object,
    or an equal one): built when they change, not at every preemption, and one object that the
    dry runs' kept verdicts hold in their keys and compare by identity."""

    __slots__ = ("_pdbs", "_budgets")

    def __init__(self) -> None:
        self._pdbs: tuple[PodDisruptionBudget, ...] = ()
        self._budgets = Budgets(())

    def of(self, pdbs: Sequence[PodDisruptionBudget]) -> Budgets:
        kept = self._pdbs
        if pdbs is kept:
            # The snapshot's tuple, replaced when a budget changes (most preemptions): the 3,000
            # budgets of 500 Istio copies compared one by one took 43 µs at each.
            return self._budgets
        if not _same_or_equal(pdbs, kept):
            self._budgets = Budgets(tuple(pdbs))
        # The same or equal ones are kept too, so the next preemption finds them by identity.
        self._pdbs = tuple(pdbs)
        return self._budgets


def _same_or_equal(new: Sequence[PodDisruptionBudget], old: Sequence[PodDisruptionBudget]) -> bool:
    if len(new) != len(old):
        return False
    # The same objects compared in C first; equal ones one by one only when some differ.
    return all(map(operator.is_, new, old)) or all(a is b or a == b for a, b in zip(new, old))


def budgets_of(pdbs: "Sequence[PodDisruptionBudget] | Budgets") -> Budgets:
    return pdbs if isinstance(pdbs, Budgets) else Budgets(pdbs)


def split_by_pdb_violation(
    infos: list[PodInfo], pdbs: "Sequence[PodDisruptionBudget] | Budgets"
) -> tuple[list[PodInfo], list[PodInfo]]:
    """filterPodsWithPDBViolation: (violating, non-violating), each in the given order.

    Each budget's allowance is spent pod by pod in that order; a pod that takes a budget below
    zero would violate it. Pods without labels, or already listed as disrupted, spend nothing.
    Only the budgets that match a pod are looked at (``Budgets``), a group sharing a selector at once.
    """
    budgets = budgets_of(pdbs)
    spent_alike: dict[int, int] = {}  # group number -> what this call spent of its unlisting budgets
    spent: dict[int, int] = {}  # budget index -> what this call spent of it (budgets listing pods)
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for info in infos:
        pod = info.pod
        violated = False
        if pod.labels:
            for group in budgets.matching(pod):
                if group.least_allowed is not None:
                    spent_alike[group.number] = used = spent_alike.get(group.number, 0) + 1
                    if group.least_allowed - used < 0:
                        violated = True
                for index, pdb in group.listing:
                    if pod.name in pdb.disrupted_pods:
                        continue
                    spent[index] = used = spent.get(index, 0) + 1
                    if pdb.disruptions_allowed - used < 0:
                        violated = True
        (violating if violated else non_violating).append(info)
    return violating, non_violating


class _DryRunNode:
    """One node's clone and state clone, with the PreFilter extensions kept in step."""

    def __init__(self, framework: PluginsRunner, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        self.framework = framework
        self.state = state
        self.pod = pod
        self.node_info = node_info

    def remove(self, info: PodInfo) -> MaybeStatus:
        self.node_info.remove_pod(info.pod)
        return self.framework.run_pre_filter_remove_pod(self.state, self.pod, info, self.node_info)

    def remove_all(self, infos: list[PodInfo]) -> MaybeStatus:
        """``remove`` of each, in order, with the node's pods taken off at once first: the PreFilter
        extensions (InterPodAffinity, PodTopologySpread, VolumeRestrictions) read only the node of
        the NodeInfo they are given, never its pods, so each sees what it saw one pod at a time."""
        self.node_info.remove_pods(infos)
        return self.framework.run_pre_filter_remove_pods(self.state, self.pod, infos, self.node_info)

    def add(self, info: PodInfo) -> MaybeStatus:
        self.node_info.add_pod(info)
        return self.framework.run_pre_filter_add_pod(self.state, self.pod, info, self.node_info)

    def fits(self) -> MaybeStatus:
        """RunFilterPluginsWithNominatedPods: nominated pods of the node count here too."""
        return self.framework.run_filter_with_nominated_pods(self.state, self.pod, self.node_info)


def select_victims_on_node(
    framework: PluginsRunner,
    state: CycleState,
    pod: Pod,
    node_info: NodeInfo,
    pdbs: "Sequence[PodDisruptionBudget] | Budgets" = (),
) -> tuple[Optional[Victims], MaybeStatus]:
    """The victims on ``node_info`` (a clone, as ``state`` is), or the status saying why none work.

    UnschedulableAndUnresolvable ``REASON_NO_VICTIMS`` when nothing may be evicted; the first
    rejecting Filter status when the pod does not fit even with every lower-priority pod gone.
    Pods whose eviction would break a PodDisruptionBudget are reprieved first.
    """
    node = _DryRunNode(framework, state, pod, node_info)
    priority = pod.priority  # may_preempt, inline: asked of every pod of thousands of nodes
    potential = [info for info in node_info.pods if info.pod.priority < priority]
    if not potential:
        return None, Status.unresolvable(REASON_NO_VICTIMS)
    status = node.remove_all(potential)
    if not is_success(status):
        return None, status
    # Affinity of the pod to one of the removed pods is deliberately not considered (as upstream).
    status = node.fits()
    if not is_success(status):
        return None, status
    violating, non_violating = split_by_pdb_violation(by_importance(potential), pdbs)
    victims: list[PodInfo] = []
    num_violations = 0
    for group in (violating, non_violating):
        for info in group:
            reprieved, status = _reprieve(node, info)
            if status is not None:
                return None, status
            if not reprieved:
                victims.append(info)
                num_violations += group is violating
    if violating and non_violating:
        victims = by_importance(victims)
    return Victims(tuple(info.pod for info in victims), num_violations), None


def _reprieve(node: _DryRunNode, info: PodInfo) -> tuple[bool, MaybeStatus]:
    """Put the pod back; keep it if the preemptor still fits, else take it out again (a victim)."""
    status = node.add(info)
    if not is_success(status):
        return False, status
    if is_success(node.fits()):
        return True, None
    status = node.remove(info)
    return False, (None if is_success(status) else status)
