"""Running pods indexed by namespace and label pair, so an incoming pod's terms see candidates only.

kube-scheduler tests every term against every pod of every node (in parallel). At 10,000 running
pods that is too slow for Python, so the plugin keeps this index beside the snapshot: a term's
selector with a ``key=value`` equality (``Matcher.pairs``) can only match pods carrying that pair,
and only pods in the term's namespaces count. The index follows the snapshot by each NodeInfo's
``generation`` and re-reads only the nodes that changed since the last cycle.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.model.labels import Matcher

Pair = tuple[str, str]
Bucket = tuple[str, str, str]  # (namespace, label key, label value)
NodePods = list[tuple[NodeInfo, list[PodInfo]]]


class Candidates:
    """Pods grouped by node. ``namespaces_checked``: all are in the term's namespaces;
    ``labels_checked``: all match its label selector."""

    __slots__ = ("groups", "namespaces_checked", "labels_checked")

    def __init__(self, groups: NodePods, namespaces_checked: bool = True, labels_checked: bool = False) -> None:
        self.groups = groups
        self.namespaces_checked = namespaces_checked
        self.labels_checked = labels_checked

    @classmethod
    def scan(cls, nodes: Iterable[NodeInfo]) -> "Candidates":
        """Every running pod: nothing checked."""
        return cls([(info, info.pods) for info in nodes if info.pods], False, False)


class _IndexedNode:
    __slots__ = ("node_info", "generation", "buckets")

    def __init__(self, node_info: NodeInfo, buckets: set[Bucket]) -> None:
        self.node_info = node_info
        self.generation = node_info.generation
        self.buckets = buckets


class PodLabelIndex:
    """``(namespace, key, value) -> node name -> pods``, refreshed lazily from a Snapshot."""

    def __init__(self) -> None:
        self._snapshot: Optional[SharedLister] = None
        self._nodes: dict[str, _IndexedNode] = {}
        self._buckets: dict[Bucket, dict[str, list[PodInfo]]] = {}
        # pair -> namespace -> how many pods carry the pair there
        self._sizes: dict[Pair, dict[str, int]] = {}

    def refresh(self, snapshot: SharedLister) -> None:
        """Re-read the nodes whose pods changed since the last call (all of them for a new snapshot)."""
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._nodes.clear()
            self._buckets.clear()
            self._sizes.clear()
        nodes = self._nodes
        for node_info in snapshot.node_infos:
            seen = nodes.get(node_info.node.name)
            if seen is not None and seen.node_info is node_info and seen.generation == node_info.generation:
                continue
            if seen is not None:
                self._forget(node_info.node.name, seen)
            nodes[node_info.node.name] = self._learn(node_info)
        if len(nodes) != len(snapshot.node_infos):
            current = {info.node.name for info in snapshot.node_infos}
            for name in [n for n in nodes if n not in current]:
                self._forget(name, nodes.pop(name))

    def _learn(self, node_info: NodeInfo) -> _IndexedNode:
        buckets: set[Bucket] = set()
        name = node_info.name
        for pod_info in node_info.pods:
            namespace = pod_info.pod.namespace
            for key, value in pod_info.pod.labels.items():
                bucket = (namespace, key, value)
                buckets.add(bucket)
                self._buckets.setdefault(bucket, {}).setdefault(name, []).append(pod_info)
                per_namespace = self._sizes.setdefault((key, value), {})
                per_namespace[namespace] = per_namespace.get(namespace, 0) + 1
        return _IndexedNode(node_info, buckets)

    def _forget(self, name: str, seen: _IndexedNode) -> None:
        for bucket in seen.buckets:
            nodes = self._buckets[bucket]
            pods = nodes.pop(name)
            if not nodes:
                del self._buckets[bucket]
            namespace, key, value = bucket
            per_namespace = self._sizes[(key, value)]
            per_namespace[namespace] -= len(pods)
            if not per_namespace[namespace]:
                del per_namespace[namespace]
                if not per_namespace:
                    del self._sizes[(key, value)]

    def candidates(self, selectors: Iterable[Matcher], allowed: Callable[[str], bool]) -> Optional[Candidates]:
        """Pods in an ``allowed`` namespace that may match every selector given, or None when no
        selector has a pair to narrow the search by.

        One pair is used, the rarest: each selector's pairs are all necessary conditions. When the
        only selector is exactly that pair, every candidate matches it (``labels_checked``).
        """
        selectors = list(selectors)
        best: Optional[Pair] = None
        best_size = -1
        for selector in selectors:
            if selector.is_nothing:
                return Candidates([])
            for pair in selector.pairs:
                size = sum(self._sizes.get(pair, {}).values())
                if best is None or size < best_size:
                    best, best_size = pair, size
        if best is None:
            return None
        groups: NodePods = []
        for namespace in self._sizes.get(best, {}):
            if allowed(namespace):
                nodes = self._buckets[(namespace, *best)]
                groups.extend((self._nodes[name].node_info, pods) for name, pods in nodes.items())
        exact = len(selectors) == 1 and selectors[0].exact and len(selectors[0].pairs) == 1
        return Candidates(groups, True, exact)
