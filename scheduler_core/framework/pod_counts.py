"""PodCounts: how many running pods on each node match a (namespaces, label selector) selection.

The vectorised fast paths of PodTopologySpread and InterPodAffinity both ask, every cycle, "how many
pods on each node match this selector in these namespaces". Scanning 10,000 pods in Python per
cycle is the cost; this answers from a label index instead and keeps the answers as one int64
array per table position, cached per selection and kept in step with the snapshot:

* a label index ``(namespace, key, value) -> {position: pods carrying it}`` answers selectors with
  key=value equalities (``Matcher.pairs``) by looking pods up instead of scanning them;
* the arrays of recently used selections are cached (LRU);
* ``sync`` finds the nodes whose ``NodeInfo.generation`` moved since the last call (binds, and a
  failed binding's removal; both bump ``NodeTable.version``) and re-counts only those, in the index
  and in every cached array.

Selections:

* ``array(namespace, constraint)``: one namespace and anything with a ``matcher`` and a hashable
  ``selector`` (PodTopologySpread's countPodsMatchSelector);
* ``term_array(term, labels_of_namespace)``: an ``AffinityTerm`` — its namespaces, or the namespaces
  its namespaceSelector selects by their labels (``AffinityTerm.matches``);
* ``all_terms_array(terms, labels_of_namespace)``: pods matching every one of several terms.
"""

from __future__ import annotations

import operator
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable, Hashable, Iterable, Mapping, Optional, Protocol, Sequence, Union

import numpy as np

from scheduler_core.framework.node_table import PositionedInfos
from scheduler_core.model.labels import Matcher

if TYPE_CHECKING:
    from scheduler_core.framework.node_info import AffinityTerm, NodeInfo, PodInfo
    from scheduler_core.framework.node_table import NodeTable

_GENERATION = operator.attrgetter("generation")

Namespaces = tuple[str, ...]  # sorted, distinct
LabelsOfNamespace = Callable[[str], Mapping[str, str]]


class SelectorLike(Protocol):
    """What ``PodCounts.array`` needs of a selection: the compiled matcher and a cache key."""

    @property
    def matcher(self) -> Matcher: ...

    @property
    def selector(self) -> Hashable: ...


class AllOf:
    """Several matchers as one (their conjunction), with the attributes PodCounts reads."""

    __slots__ = ("matchers", "pairs", "exact", "is_nothing")

    def __init__(self, matchers: Sequence[Matcher]) -> None:
        self.matchers = tuple(matchers)
        self.is_nothing = any(m.is_nothing for m in self.matchers)
        # Every matcher's pairs are necessary conditions; the conjunction is exactly its pairs only
        # when it is a single matcher that is exact (then PodCounts reads the index directly).
        self.pairs = tuple(dict.fromkeys(pair for m in self.matchers for pair in m.pairs))
        self.exact = len(self.matchers) == 1 and self.matchers[0].exact

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(m.matches(labels) for m in self.matchers)


Selection = Union[Matcher, AllOf]  # what the counts read: matches, pairs, exact, is_nothing


def count_on_node(
    node_info: "NodeInfo", namespaces: Namespaces, matcher: Selection, skip_terminating: bool = False
) -> int:
    """Pods on the node in one of ``namespaces`` that the matcher matches (the brute-force count)."""
    if matcher.is_nothing:
        return 0
    count = 0
    for info in node_info.pods:
        pod = info.pod
        if (
            pod.namespace in namespaces
            and matcher.matches(pod.labels)
            and not (skip_terminating and pod.is_terminating)
        ):
            count += 1
    return count


def term_namespaces(term: "AffinityTerm", present: Iterable[str], labels_of_namespace: LabelsOfNamespace) -> Namespaces:
    """The namespaces whose pods a term can match: its own list, plus, with a namespaceSelector,
    every namespace in ``present`` (those that have pods) whose labels it selects.

    An undeclared namespace has no labels, so an empty namespaceSelector still selects it, as
    ``AffinityTerm.matches`` does.
    """
    if term.namespace_selector.is_nothing:
        return tuple(sorted(term.namespaces))
    selector = term.namespace_selector
    return tuple(
        sorted(ns for ns in present if ns in term.namespaces or selector.matches(labels_of_namespace(ns) or {}))
    )


class PodCounts:
    """Matching pods per node, as an int64 per table position, for each (namespaces, selector)."""

    def __init__(self, max_selectors: int = 64, skip_terminating: bool = False) -> None:
        self._max = max_selectors
        # PodTopologySpread does not count terminating pods (countPodsMatchSelector); InterPodAffinity does.
        self._skip_terminating = skip_terminating
        self._table: Optional[weakref.ref[NodeTable[NodeInfo]]] = None
        self._infos: list["NodeInfo"] = []
        self._generations = np.zeros(0, dtype=np.int64)
        self._node_pairs: list[list[tuple[str, str, str]]] = []
        self._node_namespaces: list[list[str]] = []
        self._by_pair: dict[tuple[str, str, str], dict[int, int]] = {}
        self._namespaces: dict[str, int] = {}  # namespace -> running pods in it
        self._arrays: OrderedDict[Hashable, tuple[Namespaces, Selection, np.ndarray]] = OrderedDict()
        self._position_of_id: dict[int, int] = {}
        self._version = -1
        self.epoch = 0  # bumped by every full reset

    # -- keeping in step

    def sync(self, table: NodeTable[NodeInfo]) -> list[int]:
        """Catch up with the table; returns the positions re-counted (all of them after a reset,
        which also bumps ``epoch``), so structures kept beside this one can follow."""
        infos = table.node_infos
        if (
            self._table is None
            or self._table() is not table
            or self._infos is not infos
            or len(infos) != len(self._generations)
        ):
            self._reset(table)
            return list(range(len(infos)))
        # NodeInfos change only by binding (which bumps table.version) and, right after a bind,
        # by a failed binding's removal: an unchanged version means nothing to re-count.
        if table.version == self._version:
            return []
        touched = table.changed_since(self._version)
        self._version = table.version
        if touched is None:
            generations = np.fromiter(map(_GENERATION, infos), dtype=np.int64, count=len(infos))
            changed_list = np.flatnonzero(generations != self._generations).tolist()
            self._generations = generations
        else:  # only the nodes the table says were touched can have moved
            changed_list = [p for p in touched if infos[p].generation != self._generations[p]]
            for position in changed_list:
                self._generations[position] = infos[position].generation
        if not changed_list:
            return []
        for position in changed_list:
            self._unindex(position)
            self._index(position)
        for namespaces, matcher, counts in self._arrays.values():
            for position in changed_list:
                counts[position] = self._count(position, namespaces, matcher)
        return changed_list

    def _reset(self, table: NodeTable[NodeInfo]) -> None:
        global _last_indexed
        infos = table.node_infos
        self.epoch += 1
        self._table = weakref.ref(table)
        self._version = table.version
        self._infos = infos
        self._generations = np.fromiter(map(_GENERATION, infos), dtype=np.int64, count=len(infos))
        self._arrays = OrderedDict()
        self._position_of_id = {id(info): position for position, info in enumerate(infos)}
        # _index for every node, inlined: this runs over every pod of the cluster once.
        self._node_pairs = node_pairs = []
        self._node_namespaces = node_namespaces = []
        by_pair: dict[tuple[str, str, str], dict[int, int]] = {}
        namespace_sizes: dict[str, int] = {}
        self._by_pair, self._namespaces = by_pair, namespace_sizes
        source = _same_index(self, table)
        _last_indexed = weakref.ref(self)
        if source is not None:
            self._copy_index(source)
            return
        for position, info in enumerate(infos):
            pairs = [(p.pod.namespace, key, value) for p in self._pods(info) for key, value in p.pod.labels.items()]
            node_pairs.append(pairs)
            for pair in pairs:
                nodes = by_pair.get(pair)
                if nodes is None:
                    by_pair[pair] = {position: 1}
                else:
                    nodes[position] = nodes.get(position, 0) + 1
            namespaces = [p.pod.namespace for p in self._pods(info)]
            node_namespaces.append(namespaces)
            for namespace in namespaces:
                namespace_sizes[namespace] = namespace_sizes.get(namespace, 0) + 1

    def _copy_index(self, source: PodCounts) -> None:
        """``source``'s index as this one's own: a node's lists are replaced, never changed in place,
        so they are shared; the maps under each pair change in place, so they are copied."""
        self._node_pairs = list(source._node_pairs)
        self._node_namespaces = list(source._node_namespaces)
        self._by_pair = {pair: dict(nodes) for pair, nodes in source._by_pair.items()}
        self._namespaces = dict(source._namespaces)

    def _index(self, position: int) -> None:
        pods = self._pods(self._infos[position])
        pairs = [(info.pod.namespace, key, value) for info in pods for key, value in info.pod.labels.items()]
        by_pair = self._by_pair
        for pair in pairs:
            nodes = by_pair.get(pair)
            if nodes is None:
                nodes = by_pair[pair] = {}
            nodes[position] = nodes.get(position, 0) + 1
        self._node_pairs[position] = pairs
        namespaces = [info.pod.namespace for info in pods]
        sizes = self._namespaces
        for namespace in namespaces:
            sizes[namespace] = sizes.get(namespace, 0) + 1
        self._node_namespaces[position] = namespaces

    def _unindex(self, position: int) -> None:
        by_pair = self._by_pair
        for pair in self._node_pairs[position]:
            nodes = by_pair[pair]
            left = nodes[position] - 1
            if left:
                nodes[position] = left
            else:
                del nodes[position]
                if not nodes:
                    del by_pair[pair]
        self._node_pairs[position] = []
        sizes = self._namespaces
        for namespace in self._node_namespaces[position]:
            left = sizes[namespace] - 1
            if left:
                sizes[namespace] = left
            else:
                del sizes[namespace]
        self._node_namespaces[position] = []

    def _pods(self, info: NodeInfo) -> list[PodInfo]:
        if self._skip_terminating:
            return [p for p in info.pods if not p.pod.is_terminating]
        return info.pods

    # -- answers

    def positions_of(self, nodes: Sequence["NodeInfo"]) -> Optional[np.ndarray]:
        """The table positions of these NodeInfo objects, or None when one is not the table's own."""
        if isinstance(nodes, PositionedInfos) and nodes.table_infos is self._infos:
            return nodes.positions  # gathered from this table: its positions came along
        if len(nodes) == len(self._infos) and nodes == self._infos:  # identity compare, in C
            return np.arange(len(nodes), dtype=np.int64)
        try:
            return np.fromiter(map(self._position_of_id.__getitem__, map(id, nodes)), dtype=np.int64, count=len(nodes))
        except KeyError:
            return None

    @property
    def node_infos(self) -> list["NodeInfo"]:
        """The table's NodeInfos as of the last ``sync`` (by position)."""
        return self._infos

    @property
    def namespaces(self) -> list[str]:
        """The namespaces that have running pods (as of the last ``sync``)."""
        return list(self._namespaces)

    def array(self, namespace: str, selection: SelectorLike) -> np.ndarray:
        """countPodsMatchSelector for every node (read-only; valid until the next ``sync``)."""
        return self.matching((namespace,), selection.matcher, selection.selector)

    def term_array(self, term: "AffinityTerm", labels_of_namespace: LabelsOfNamespace) -> np.ndarray:
        """Pods per node that ``term`` matches (``AffinityTerm.matches``), read-only until ``sync``."""
        return self.matching(term_namespaces(term, self._namespaces, labels_of_namespace), term.selector)

    def all_terms_array(self, terms: Sequence["AffinityTerm"], labels_of_namespace: LabelsOfNamespace) -> np.ndarray:
        """Pods per node that every one of ``terms`` matches."""
        if len(terms) == 1:
            return self.term_array(terms[0], labels_of_namespace)
        allowed = set(term_namespaces(terms[0], self._namespaces, labels_of_namespace))
        for term in terms[1:]:
            allowed.intersection_update(term_namespaces(term, self._namespaces, labels_of_namespace))
        matchers = tuple(term.selector for term in terms)
        return self.matching(tuple(sorted(allowed)), AllOf(matchers), ("all of", matchers))

    def matching(self, namespaces: Namespaces, matcher: Selection, key: Optional[Hashable] = None) -> np.ndarray:
        """Pods per node in one of ``namespaces`` (sorted) that ``matcher`` matches.

        ``key`` identifies the matcher in the cache (the matcher itself when None).
        """
        cache_key = (namespaces, matcher if key is None else key)
        entry = self._arrays.get(cache_key)
        if entry is not None:
            self._arrays.move_to_end(cache_key)
            return entry[2]
        counts = self._full_count(namespaces, matcher)
        self._arrays[cache_key] = (namespaces, matcher, counts)
        if len(self._arrays) > self._max:
            self._arrays.popitem(last=False)
        return counts

    def _full_count(self, namespaces: Namespaces, matcher: Selection) -> np.ndarray:
        counts = np.zeros(len(self._infos), dtype=np.int64)
        if matcher.is_nothing or not namespaces:
            return counts
        if matcher.pairs:
            if len(namespaces) > 1:
                for namespace in namespaces:
                    counts += self._full_count((namespace,), matcher)
                return counts
            namespace = namespaces[0]
            found = [self._by_pair.get((namespace, key, value)) for key, value in matcher.pairs]
            tables = [t for t in found if t is not None]
            if len(tables) != len(found):  # a pair no pod carries
                return counts
            if len(tables) == 1 and matcher.exact:
                only = tables[0]
                counts[np.fromiter(only.keys(), dtype=np.int64, count=len(only))] = np.fromiter(
                    only.values(), dtype=np.int64, count=len(only)
                )
                return counts
            smallest = min(tables, key=len)
            candidates = [p for p in smallest if all(p in t for t in tables)]
        else:
            candidates = [p for p, info in enumerate(self._infos) if info.pods]
        infos = self._infos
        for position in candidates:
            counts[position] = count_on_node(infos[position], namespaces, matcher, self._skip_terminating)
        return counts

    def _count(self, position: int, namespaces: Namespaces, matcher: Selection) -> int:
        if matcher.is_nothing or not namespaces:
            return 0
        if matcher.pairs and len(namespaces) == 1:
            namespace = namespaces[0]
            for key, value in matcher.pairs:
                nodes = self._by_pair.get((namespace, key, value))
                if nodes is None or position not in nodes:
                    return 0
                if matcher.exact and len(matcher.pairs) == 1:
                    return nodes[position]
        return count_on_node(self._infos[position], namespaces, matcher, self._skip_terminating)


# The last PodCounts to index a table whole. InterPodAffinity's and PodTopologySpread's each index the
# same table at a run's first cycle (and after every node change): the second copies the first's
# index rather than walking every pod's labels again (~0.15 s at 150,000 pods).
_last_indexed: Optional[weakref.ref[PodCounts]] = None


def _same_index(counts: PodCounts, table: NodeTable[NodeInfo]) -> Optional[PodCounts]:
    """The last PodCounts indexed, when its index is what ``counts`` would build of ``table`` now:
    the same table at the same version, and the same pods (the same ``skip_terminating``, or no pod
    terminating)."""
    other = _last_indexed() if _last_indexed is not None else None
    if other is None or other is counts or other._table is None or other._table() is not table:
        return None
    if other._version != table.version or other._infos is not table.node_infos:
        return None
    if other._skip_terminating != counts._skip_terminating and any(
        info.pod.is_terminating for node_info in table.node_infos for info in node_info.pods
    ):
        return None
    return other


def weighted_bincount(codes: np.ndarray, per_node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum ``per_node`` by label code, skipping nodes without the key (code < 0) and zero counts.

    Returns the codes with a positive sum (ascending) and those sums (int64): how many matching
    pods sit in each topology domain, as the Go code counts them pod by pod at the pod's node.
    """
    positions = np.flatnonzero((per_node > 0) & (codes >= 0))
    if not len(positions):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    sums = np.bincount(codes[positions], weights=per_node[positions])
    found = np.flatnonzero(sums)
    return found, sums[found].astype(np.int64)
