"""NodeInfo and PodInfo (pkg/scheduler/framework/types.go); the cache and the Snapshot holding them are
scheduler_core.backend.cache's.

A NodeInfo aggregates what is bound to a node: its pods, the sum of their requests, used host
ports, and the pods carrying (anti-)affinity, so plugins never rescan every pod.
"""

from __future__ import annotations


from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import numpy as np

from scheduler_core.framework.storage import claim_key
from scheduler_core.model.labels import Matcher, compile_selector, merge_match_label_keys
from scheduler_core.model import (
    CPU,
    MEMORY,
    Node,
    Pod,
    PodAffinityTerm,
    ResourceList,
)
from scheduler_core.model.resources import host_ports, non_zero_requests, pod_requests


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A PodAffinityTerm resolved for its pod: selector compiled, namespaces defaulted."""

    namespaces: frozenset[str]
    selector: Matcher
    topology_key: str
    namespace_selector: Matcher  # NOTHING when the term has none

    def matches(self, pod: Pod, namespace_labels: Optional[Mapping[str, str]]) -> bool:
        """framework.AffinityTerm.Matches: namespace (listed or selected) and labels."""
        # An undeclared namespace has no labels; an empty selector still selects it, as in Go.
        in_namespace = pod.namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {})
        return in_namespace and self.selector.matches(pod.labels)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def resolve_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """framework.newAffinityTerm: no namespaces and no namespaceSelector means the pod's own."""
    selector = merge_match_label_keys(term.label_selector, term.match_label_keys, pod.labels, "In")
    selector = merge_match_label_keys(selector, term.mismatch_label_keys, pod.labels, "NotIn")
    namespaces = frozenset(term.namespaces)
    if not namespaces and term.namespace_selector is None:
        namespaces = frozenset((pod.namespace,))
    return AffinityTerm(
        namespaces, compile_selector(selector), term.topology_key, compile_selector(term.namespace_selector)
    )


def claim_keys(pod: Pod) -> tuple[str, ...]:
    """The "namespace/claim" of each of the pod's persistentVolumeClaim volumes: what
    NodeInfo.updatePVCRefCounts counts (not ephemeral volumes)."""
    return tuple(claim_key(pod.namespace, volume.claim_name) for volume in pod.volumes if volume.is_claim)


class PodInfo:
    """A pod with its requests and affinity terms computed once (framework.PodInfo)."""

    __slots__ = (
        "pod",
        "requests",
        "non_zero_requests",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "host_ports",
        "claim_keys",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.requests: ResourceList = pod_requests(pod)
        self.non_zero_requests: ResourceList = non_zero_requests(pod)
        # The (hostIP, protocol, port) a node's used ports count for the pod, read at every add and
        # remove (preemption's dry run removes and puts back pods on thousands of cloned nodes).
        self.host_ports: tuple[tuple[str, str, int], ...] = tuple(host_ports(pod))
        # Its claims as the node's claim counts key them, read at every add and remove too.
        self.claim_keys = claim_keys(pod)
        affinity = pod.affinity
        pod_aff = affinity.pod_affinity if affinity else None
        anti = affinity.pod_anti_affinity if affinity else None
        self.required_affinity_terms = [resolve_term(pod, t) for t in (pod_aff.required if pod_aff else ())]
        self.required_anti_affinity_terms = [resolve_term(pod, t) for t in (anti.required if anti else ())]
        self.preferred_affinity_terms = [
            WeightedAffinityTerm(resolve_term(pod, w.term), w.weight) for w in (pod_aff.preferred if pod_aff else ())
        ]
        self.preferred_anti_affinity_terms = [
            WeightedAffinityTerm(resolve_term(pod, w.term), w.weight) for w in (anti.preferred if anti else ())
        ]

    def with_pod(self, pod: Pod) -> "PodInfo":
        """The same computed parts for another version of the pod whose spec and labels are these."""
        other = PodInfo.__new__(PodInfo)
        for name in PodInfo.__slots__:
            setattr(other, name, getattr(self, name))
        other.pod = pod
        other.claim_keys = claim_keys(pod)  # not the spec's containers: pods of one template claim their own
        return other

    @property
    def has_affinity(self) -> bool:
        """Any pod (anti-)affinity at all: the pod goes on NodeInfo.pods_with_affinity."""
        affinity = self.pod.affinity
        return affinity is not None and (affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None)

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.required_anti_affinity_terms)

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


class PodInfoCache:
    """PodInfo of pods seen recently, built once while nothing it is computed from changed.

    Keyed by the pod's key; an entry is used only for the very same Pod object with the same
    fingerprint (the run updates pending pods in place — labels, resizes — so the parts PodInfo
    reads are compared, not trusted). At most ``kept`` entries: the whole cache is dropped when full.
    """

    __slots__ = ("_kept", "_infos")

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._infos: dict[str, tuple[PodInfo, tuple[object, ...]]] = {}

    def of(self, pod: Pod) -> PodInfo:
        fingerprint = pod_info_fingerprint(pod)
        known = self._infos.get(pod.key)
        if known is not None and known[0].pod is pod and known[1] == fingerprint:
            return known[0]
        if len(self._infos) >= self._kept:
            self._infos.clear()
        info = PodInfo(pod)
        self._infos[pod.key] = (info, fingerprint)
        return info


def requests_summed(groups: Sequence[Sequence[PodInfo]], resources: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """What each group of pods requests of ``resources`` together (a row per group) and how many
    pods each group has: the nominated pods to add on each of many nodes, counted in at once."""
    totals = np.array([_requested(group, resources) for group in groups], dtype=np.int64)
    counts = np.fromiter((len(group) for group in groups), dtype=np.int64, count=len(groups))
    return totals.reshape(len(groups), len(resources)), counts


def _requested(group: Sequence[PodInfo], resources: Sequence[str]) -> list[int]:
    if len(group) == 1:  # mostly one pod: read it straight
        requests = group[0].requests
        return [requests.get(name, 0) for name in resources]
    return [sum(info.requests.get(name, 0) for info in group) for name in resources]


def pod_info_fingerprint(pod: Pod) -> tuple[object, ...]:
    """What PodInfo is computed from (requests, affinity terms and their namespace and labels, claims)."""
    return (
        pod.namespace,
        pod.containers,
        pod.init_containers,
        pod.overhead,
        pod.pod_level_requests,
        pod.container_statuses,
        pod.resize_infeasible,
        pod.affinity,
        tuple(pod.labels.items()),
        pod.volumes,
    )


# The cycle's pod: its PreFilter, PreScore and binding each want its PodInfo.
_CYCLE_PODS = PodInfoCache(64)


def cycle_pod_info(pod: Pod) -> PodInfo:
    """PodInfo(pod), shared by the plugins of a cycle and its binding (same pod, same answer)."""
    return _CYCLE_PODS.of(pod)


class NodeInfo:
    """A node and what is bound to it. ``generation`` changes on every add/remove."""

    __slots__ = (
        "node",
        "name",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "requested",
        "non_zero_requested",
        "used_ports",
        "image_sizes",
        "pvc_ref_counts",
        "generation",
        "_lowest_priority",
    )

    def __init__(self, node: Node) -> None:
        self.node = node
        # the node's name, an attribute (not read through ``node`` every time: preemption and the
        # Filter walk ask it of thousands of nodes per attempt); a node's update keeps its name
        self.name: str = node.name
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.requested: ResourceList = {}
        self.non_zero_requested: ResourceList = {CPU: 0, MEMORY: 0}
        # (hostIP, protocol, port) -> how many pods use it
        self.used_ports: dict[tuple[str, str, int], int] = {}
        # image name -> (size in bytes, number of nodes that have it), filled by the Snapshot
        self.image_sizes: dict[str, tuple[int, int]] = {}
        # "namespace/claim" -> how many of the node's pods use it (persistentVolumeClaim volumes only)
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = 0
        # (generation, the lowest priority of the node's pods then): see lowest_priority
        self._lowest_priority: Optional[tuple[int, Optional[int]]] = None

    @property
    def allocatable(self) -> ResourceList:
        return self.node.allocatable

    def add_pod(self, info: PodInfo) -> None:
        self.pods.append(info)
        if info.has_affinity:
            self.pods_with_affinity.append(info)
        if info.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(info)
        self._account(info, +1)

    def remove_pod(self, pod: Pod) -> PodInfo:
        """The pod's entry, whichever version of the pod it holds (the cache keys pods by name)."""
        index = self._index_of(pod)
        info = self.pods.pop(index)
        if info in self.pods_with_affinity:
            self.pods_with_affinity.remove(info)
        if info in self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity.remove(info)
        self._account(info, -1)
        return info

    def remove_pods(self, infos: Sequence[PodInfo]) -> None:
        """``remove_pod`` of each of these entries of the node's own, at once: the same pods and
        affinity lists (in their order), sums, ports, claim counts and generation as removing them
        one by one. Preemption's dry run takes every lower-priority pod off a cloned node; one by
        one, each removal looked for its entry and through the affinity lists (quadratic in the
        node's pods: at 30 pods a node and 5,000 nodes, most of a preempting attempt)."""
        gone = {id(info) for info in infos}
        kept = [info for info in self.pods if id(info) not in gone]
        if len(kept) + len(gone) != len(self.pods) or len(gone) != len(infos):
            missing = next(info for info in infos if info not in self.pods)
            raise KeyError(f"pod {missing.pod.key} is not on node {self.name}")
        self.pods = kept
        if self.pods_with_affinity:
            self.pods_with_affinity = [info for info in self.pods_with_affinity if id(info) not in gone]
        if self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity = [
                info for info in self.pods_with_required_anti_affinity if id(info) not in gone
            ]
        self._subtract_requests(infos, kept)
        for info in infos:
            self._account_uses(info, -1)
        self.generation += len(infos)

    def _subtract_requests(self, gone: Sequence[PodInfo], kept: list[PodInfo]) -> None:
        """The sums less the requests of the pods ``gone``, ``kept`` being the node's pods left.
        The sums are the node's pods' (every change goes through _account, in integers): when
        fewer pods stay than leave (a preemptor above most of a node's pods), what stays is summed
        instead, each resource the sums name kept in its place (at 0 when no pod left asks for it,
        as subtracting leaves it)."""
        if len(kept) < len(gone):
            requested = self.requested
            for name in requested:  # in place: every resource stays named, in its order
                requested[name] = 0
            self.non_zero_requested[CPU] = self.non_zero_requested[MEMORY] = 0
            for info in kept:  # their resources are among those named: they were counted in
                self._account_requests(info, +1)
            return
        for info in gone:
            self._account_requests(info, -1)

    def _index_of(self, pod: Pod) -> int:
        """The position of the pod's entry: the very object first (preemption's dry run takes off
        the node's own entries, a victim at a time), else the entry of the same key."""
        for index, info in enumerate(self.pods):
            if info.pod is pod:
                return index
        key = pod.key
        for index, info in enumerate(self.pods):
            if info.pod.key == key:
                return index
        raise KeyError(f"pod {key} is not on node {self.name}")

    def _account(self, info: PodInfo, sign: int) -> None:
        self._account_requests(info, sign)
        self._account_uses(info, sign)
        self.generation += 1

    def _account_requests(self, info: PodInfo, sign: int) -> None:
        requested, non_zero = self.requested, self.non_zero_requested
        for name, amount in info.requests.items():
            requested[name] = requested.get(name, 0) + sign * amount
        non_zero[CPU] += sign * info.non_zero_requests.get(CPU, 0)
        non_zero[MEMORY] += sign * info.non_zero_requests.get(MEMORY, 0)

    def _account_uses(self, info: PodInfo, sign: int) -> None:
        """The pod's host ports and claims."""
        for port in info.host_ports:
            # HostPortInfo is a set, not a count: removing a pod frees its ports even when another
            # pod on the node declares the same one (the release's cache, and so its preemption
            # dry run, do this).
            if sign > 0:
                self.used_ports[port] = 1
            else:
                self.used_ports.pop(port, None)
        if info.claim_keys:
            self._count_claims(info.claim_keys, sign)

    def _count_claims(self, keys: tuple[str, ...], sign: int) -> None:
        """NodeInfo.updatePVCRefCounts: only persistentVolumeClaim volumes (not ephemeral ones)."""
        for key in keys:
            count = self.pvc_ref_counts.get(key, 0) + sign
            if count > 0:
                self.pvc_ref_counts[key] = count
            else:
                self.pvc_ref_counts.pop(key, None)

    def clone(self) -> "NodeInfo":
        other = NodeInfo.__new__(NodeInfo)  # every slot is set below: no empty maps made to be replaced
        other.node = self.node
        other.name = self.name
        other.pods = list(self.pods)
        other.pods_with_affinity = list(self.pods_with_affinity)
        other.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        other.requested = dict(self.requested)
        other.non_zero_requested = dict(self.non_zero_requested)
        other.used_ports = dict(self.used_ports)
        other.image_sizes = self.image_sizes
        other.pvc_ref_counts = dict(self.pvc_ref_counts)
        other.generation = self.generation
        other._lowest_priority = self._lowest_priority
        return other

    def lowest_priority(self) -> Optional[int]:
        """The lowest priority of the node's pods (None: no pods). Kept while the node's pods are the
        same (its generation): preemption asks it of every potential node on every attempt, to skip
        the nodes where the pod may evict nobody."""
        known = self._lowest_priority
        if known is not None and known[0] == self.generation:
            return known[1]
        lowest = min((info.pod.priority for info in self.pods), default=None)
        self._lowest_priority = (self.generation, lowest)
        return lowest

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, {len(self.pods)} pods)"
