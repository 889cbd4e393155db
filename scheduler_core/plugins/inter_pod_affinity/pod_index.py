"""Running pods indexed by label pair, so an incoming pod's terms look at candidates only.

kube-scheduler tests every term against every pod of every node (in parallel). At 10,000 running
pods that is too slow for Python, so the plugin keeps this index beside the snapshot: a term's
selector with a ``key=value`` equality (``Matcher.pairs``) can only match pods carrying that pair.
The index follows the snapshot by each NodeInfo's ``generation`` and re-reads only changed nodes.
Candidates are a superset: callers still evaluate the whole term on each of them.
"""

from __future__ import annotations

from typing import Iterable, Optional

from scheduler_core.framework.node_info import NodeInfo, PodInfo, Snapshot
from scheduler_core.labels import Matcher

Pair = tuple[str, str]


class _IndexedNode:
    __slots__ = ("node_info", "generation", "pairs")

    def __init__(self, node_info: NodeInfo, pairs: set[Pair]) -> None:
        self.node_info = node_info
        self.generation = node_info.generation
        self.pairs = pairs


class PodLabelIndex:
    """``(label key, value) -> node name -> pods``, refreshed lazily from a Snapshot."""

    def __init__(self) -> None:
        self._snapshot: Optional[Snapshot] = None
        self._nodes: dict[str, _IndexedNode] = {}
        self._by_pair: dict[Pair, dict[str, list[PodInfo]]] = {}
        self._sizes: dict[Pair, int] = {}  # how many pods carry each pair

    def refresh(self, snapshot: Snapshot) -> None:
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._nodes.clear()
            self._by_pair.clear()
            self._sizes.clear()
        for node_info in snapshot.node_infos:
            seen = self._nodes.get(node_info.name)
            if seen is not None and seen.node_info is node_info and seen.generation == node_info.generation:
                continue
            if seen is not None:
                self._forget(node_info.name, seen)
            self._nodes[node_info.name] = self._learn(node_info)
        if len(self._nodes) != len(snapshot.node_infos):
            current = {info.name for info in snapshot.node_infos}
            for name in [n for n in self._nodes if n not in current]:
                self._forget(name, self._nodes.pop(name))

    def _learn(self, node_info: NodeInfo) -> _IndexedNode:
        pairs: set[Pair] = set()
        name = node_info.name
        for pod_info in node_info.pods:
            for pair in pod_info.pod.labels.items():
                pairs.add(pair)
                self._by_pair.setdefault(pair, {}).setdefault(name, []).append(pod_info)
                self._sizes[pair] = self._sizes.get(pair, 0) + 1
        return _IndexedNode(node_info, pairs)

    def _forget(self, name: str, seen: _IndexedNode) -> None:
        for pair in seen.pairs:
            nodes = self._by_pair.get(pair)
            if nodes is None:
                continue
            pods = nodes.pop(name, None)
            if pods:
                self._sizes[pair] -= len(pods)
            if not nodes:
                del self._by_pair[pair]
                del self._sizes[pair]

    def candidates(self, selectors: Iterable[Matcher]) -> Optional["Candidates"]:
        """Pods that may match every selector given, or None when no selector narrows the search.

        Only one pair is used, the rarest one: each selector's pairs are all necessary conditions.
        """
        best: Optional[Pair] = None
        best_size = -1
        for selector in selectors:
            if selector.is_nothing:
                return Candidates([], False)
            for pair in selector.pairs:
                size = self._sizes.get(pair, 0)
                if best is None or size < best_size:
                    best, best_size = pair, size
        if best is None:
            return None
        if best_size == 0:
            return Candidates([], False)
        groups = [(self._nodes[name].node_info, pods) for name, pods in self._by_pair[best].items()]
        return Candidates(groups, False)

    def candidates_for(self, selector: Matcher) -> Optional["Candidates"]:
        """As ``candidates`` for one selector; ``certain`` when its one pair is the whole selector."""
        found = self.candidates((selector,))
        if found is not None and selector.exact and len(selector.pairs) == 1:
            found.certain = True
        return found


class Candidates:
    """Candidate pods grouped by node; ``certain``: all of them match the selector's labels."""

    __slots__ = ("groups", "certain")

    def __init__(self, groups: list[tuple[NodeInfo, list[PodInfo]]], certain: bool) -> None:
        self.groups = groups
        self.certain = certain

    @classmethod
    def scan(cls, nodes: Iterable[NodeInfo]) -> "Candidates":
        return cls([(info, info.pods) for info in nodes if info.pods], False)
