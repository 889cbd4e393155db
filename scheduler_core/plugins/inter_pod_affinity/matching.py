"""Matching the incoming pod's terms against running pods, found through the label index."""

from __future__ import annotations

from typing import Callable

from scheduler_core.framework.node_info import AffinityTerm, Snapshot
from scheduler_core.plugins.inter_pod_affinity.pod_index import Candidates, PodLabelIndex


def namespace_check(term: AffinityTerm, snapshot: Snapshot) -> Callable[[str], bool]:
    """The namespace half of ``AffinityTerm.matches``, memoised per namespace for one cycle.

    A namespaceSelector is evaluated against the namespace's labels (none when undeclared), which
    is what kube-scheduler gets by merging the selected namespaces into the term's list.
    """
    memo: dict[str, bool] = {}

    def allowed(namespace: str) -> bool:
        verdict = memo.get(namespace)
        if verdict is None:
            verdict = memo[namespace] = _in_namespaces(term, namespace, snapshot)
        return verdict

    return allowed


def _in_namespaces(term: AffinityTerm, namespace: str, snapshot: Snapshot) -> bool:
    return namespace in term.namespaces or term.namespace_selector.matches(snapshot.labels_of_namespace(namespace))


def candidates(index: PodLabelIndex, snapshot: Snapshot, term: AffinityTerm) -> Candidates:
    found = index.candidates_for(term.selector)
    return found if found is not None else Candidates.scan(snapshot.node_infos)


def count_by_topology_value(term: AffinityTerm, index: PodLabelIndex, snapshot: Snapshot) -> dict[str, int]:
    """How many running pods match ``term``, per value of its topology key at their nodes."""
    found = candidates(index, snapshot, term)
    allowed = namespace_check(term, snapshot)
    selector, key = term.selector, term.topology_key
    counts: dict[str, int] = {}
    for node_info, pods in found.groups:
        value = node_info.node.labels.get(key)
        if value is None:
            continue
        matched = 0
        for pod_info in pods:
            pod = pod_info.pod
            if allowed(pod.namespace) and (found.certain or selector.matches(pod.labels)):
                matched += 1
        if matched:
            counts[value] = counts.get(value, 0) + matched
    return counts
