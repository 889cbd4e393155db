"""Matching the incoming pod's terms against running pods, found through the label index."""

from __future__ import annotations

from typing import Callable

from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import AffinityTerm
from scheduler_core.plugins.inter_pod_affinity.pod_index import Candidates, PodLabelIndex


def namespace_check(terms: list[AffinityTerm], snapshot: SharedLister) -> Callable[[str], bool]:
    """Whether a namespace is in every term's namespaces (the namespace half of
    ``AffinityTerm.matches``), memoised per namespace for one cycle.

    A namespaceSelector is evaluated against the namespace's labels (none when undeclared), which
    is what kube-scheduler gets by merging the namespaces it selects into the term's list.
    """
    memo: dict[str, bool] = {}

    def allowed(namespace: str) -> bool:
        verdict = memo.get(namespace)
        if verdict is None:
            labels = snapshot.labels_of_namespace(namespace)
            verdict = memo[namespace] = all(
                namespace in term.namespaces or term.namespace_selector.matches(labels) for term in terms
            )
        return verdict

    return allowed


def candidates(
    terms: list[AffinityTerm], index: PodLabelIndex, snapshot: SharedLister, allowed: Callable[[str], bool]
) -> Candidates:
    """Running pods that may match all ``terms`` (a superset, see ``Candidates``' flags).

    The caller refreshes the index once per cycle before asking."""
    found = index.candidates([term.selector for term in terms], allowed)
    return found if found is not None else Candidates.scan(snapshot.node_infos)


def count_by_topology_value(term: AffinityTerm, index: PodLabelIndex, snapshot: SharedLister) -> dict[str, int]:
    """How many running pods match ``term``, per value of its topology key at their nodes."""
    allowed = namespace_check([term], snapshot)
    found = candidates([term], index, snapshot, allowed)
    selector, key = term.selector, term.topology_key
    counts: dict[str, int] = {}
    for node_info, pods in found.groups:
        value = node_info.node.labels.get(key)
        if value is None:
            continue
        if found.labels_checked and found.namespaces_checked:
            matched = len(pods)
        else:
            matched = sum(
                1
                for pod_info in pods
                if (found.namespaces_checked or allowed(pod_info.pod.namespace))
                and selector.matches(pod_info.pod.labels)
            )
        if matched:
            counts[value] = counts.get(value, 0) + matched
    return counts
