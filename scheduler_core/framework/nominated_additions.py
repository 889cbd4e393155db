"""The nominated pods the nominated pass on numbers adds, node by node, and what they request.

RunFilterPluginsWithNominatedPods adds on a node the pods nominated there with a priority equal to
or higher than the pod's, except the pod itself (addGENominatedPods). When only NodeResourcesFit
reads a node's pods, the pass counts their requests in (plugins/node_resources/numeric.py), so
what it reads is which pods are nominated where, not their order in a node's list. While pods wait
nominated every attempt asks, and replicas of one workload ask alike: the answer for a priority is
made once per change of the nominations (the nominator's ``content_version``), and a pod that is
itself nominated to one of the nodes gets it with its own entry made again without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from scheduler_core.framework.node_info import PodInfo, requests_summed
from scheduler_core.framework.options import NominatedPods
from scheduler_core.model import Pod

Entries = list[tuple[str, tuple[Pod, ...]]]  # (node, the pods to add there): nodes with some only


@dataclass(slots=True, eq=False)
class Additions:
    """The pods to add on each node with some, the nodes' positions in the table (same order), and
    what the pods request together per node, made once per set of resources asked."""

    entries: Entries
    positions: np.ndarray
    sums: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # For a pod nominated itself: the answer for its priority, its node's entry there, and the
    # pods left on that node without it (none: the entry is dropped).
    derived_from: Optional[tuple["Additions", int, tuple[Pod, ...]]] = None


class NominatedAdditions:
    """``Framework.nominated_additions`` and what goes with it, kept as the module says."""

    __slots__ = ("_nominator", "_pod_info", "_for_priority_asked", "_for_priority", "_own_asked", "_own_from", "_own")

    def __init__(self, nominator: NominatedPods, pod_info: Callable[[Pod], PodInfo]) -> None:
        self._nominator = nominator
        self._pod_info = pod_info  # a nominated pod's PodInfo (the framework keeps them)
        self._for_priority_asked: Optional[tuple[object, ...]] = None
        self._for_priority: Optional[Additions] = None
        self._own_asked: Optional[tuple[str, str]] = None
        self._own_from: Optional[Additions] = None  # the shared answer ``_own`` was made from
        self._own: Optional[Additions] = None

    def of(self, pod: Pod, index: dict[str, int], nominated_nodes: Callable[[], set[str]]) -> Additions:
        """The additions for ``pod`` on the nodes of ``index`` (a node table's); ``nominated_nodes``:
        the nodes of ``index`` with nominated pods."""
        shared = self._of_priority(pod.priority, index, nominated_nodes)
        node = self._nominator.node_of(pod)
        if node is None or node not in index:
            return shared
        asked = (pod.key, node)
        if self._own is None or self._own_from is not shared or asked != self._own_asked:
            self._own_asked, self._own_from, self._own = asked, shared, _without(shared, pod, node)
        return self._own

    def requests(self, additions: Additions, resources: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """What the pods of each entry request of ``resources`` together (a row per entry) and how
        many they are. Read only."""
        found = additions.sums.get(resources)
        if found is None:
            found = additions.sums[resources] = self._summed(additions, resources)
        return found

    def _of_priority(self, priority: int, index: dict[str, int], nominated_nodes: Callable[[], set[str]]) -> Additions:
        asked = (self._nominator.content_version, priority, index)
        if asked != self._for_priority_asked or self._for_priority is None:
            entries: Entries = []
            for node in nominated_nodes():
                pods = tuple(p for p in self._nominator.nominated_pods_for_node(node) if p.priority >= priority)
                if pods:
                    entries.append((node, pods))
            positions = np.fromiter((index[node] for node, _ in entries), dtype=np.int64, count=len(entries))
            self._for_priority_asked, self._for_priority = asked, Additions(entries, positions)
        return self._for_priority

    def _summed(self, additions: Additions, resources: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        derived = additions.derived_from
        if derived is None:
            groups = [[self._pod_info(other) for other in pods] for _, pods in additions.entries]
            return requests_summed(groups, resources)
        # The shared answer's sums with the pod's node's row made again (or dropped).
        shared, row, left = derived
        totals, counts = self.requests(shared, resources)
        if not left:
            return np.delete(totals, row, axis=0), np.delete(counts, row)
        own_totals, own_counts = requests_summed([[self._pod_info(other) for other in left]], resources)
        totals, counts = totals.copy(), counts.copy()
        totals[row], counts[row] = own_totals[0], own_counts[0]
        return totals, counts


def _without(shared: Additions, pod: Pod, node: str) -> Additions:
    """``shared`` with ``pod`` taken off its node's entry (the entry dropped when nothing is left)."""
    row = next((i for i, (name, _) in enumerate(shared.entries) if name == node), None)
    if row is None:
        return shared
    left = tuple(other for other in shared.entries[row][1] if other.key != pod.key)
    if len(left) == len(shared.entries[row][1]):
        return shared
    entries = list(shared.entries)
    if left:
        entries[row] = (node, left)
        positions = shared.positions
    else:
        del entries[row]
        positions = np.delete(shared.positions, row)
    return Additions(entries, positions, derived_from=(shared, row, left))
