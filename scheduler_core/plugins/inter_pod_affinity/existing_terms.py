"""Running pods' (anti-)affinity terms, grouped, for the fast path's symmetry checks.

PreFilter counts the required anti-affinity terms of running pods that match the incoming pod, and
PreScore weighs their required affinity and preferred terms, each at the running pod's node. The
reference walks every pod with affinity on every node and matches each term (``filtering`` /
``scoring``); once hundreds of such pods are bound that dominates a cycle.

Here equal terms are grouped: a *signature* ``(kind, term, weight)`` maps to ``{position: how many
pods on that node carry it}``. A cycle matches each distinct term once against the incoming pod —
and only terms that can match: a term whose selector has key=value pairs is filed under its first
pair, so only terms filed under one of the incoming pod's labels (or without pairs) are tried. The
groups follow the snapshot through the positions ``PodCounts.sync`` reports as changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping, Optional

from scheduler_core.framework.node_info import AffinityTerm
from scheduler_core.model import Pod
from scheduler_core.framework.pod_counts import PodCounts

if TYPE_CHECKING:
    from scheduler_core.framework.node_info import NodeInfo

# The kinds of term a running pod carries.
REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = range(4)

Signature = tuple[int, AffinityTerm, int]  # (kind, term, weight; 0 for required terms)
_UNPAIRED = None


def _signatures(node_info: "NodeInfo") -> list[Signature]:
    found: list[Signature] = []
    for info in node_info.pods_with_affinity:
        found.extend((REQUIRED_AFFINITY, term, 0) for term in info.required_affinity_terms)
        found.extend((REQUIRED_ANTI_AFFINITY, term, 0) for term in info.required_anti_affinity_terms)
        found.extend((PREFERRED_AFFINITY, w.term, w.weight) for w in info.preferred_affinity_terms)
        found.extend((PREFERRED_ANTI_AFFINITY, w.term, w.weight) for w in info.preferred_anti_affinity_terms)
    return [sig for sig in found if not sig[1].selector.is_nothing]  # those never match a pod


class ExistingTerms:
    """``signature -> {position: pods with it}``, with signatures filed by their selector's first pair."""

    def __init__(self) -> None:
        self._epoch = -1
        self._node_signatures: list[list[Signature]] = []
        self._positions: dict[Signature, dict[int, int]] = {}
        self._filed: dict[Optional[tuple[str, str]], set[Signature]] = {}

    def follow(self, counts: PodCounts, changed: list[int]) -> None:
        """Catch up after ``counts.sync`` returned ``changed`` (call after every sync)."""
        infos = counts.node_infos
        if counts.epoch != self._epoch:
            self._epoch = counts.epoch
            self._node_signatures = [[] for _ in infos]
            self._positions = {}
            self._filed = {}
            changed = [p for p, info in enumerate(infos) if info.pods_with_affinity]
        for position in changed:
            self._forget(position)
            self._learn(position, infos[position])

    def _learn(self, position: int, node_info: "NodeInfo") -> None:
        signatures = _signatures(node_info) if node_info.pods_with_affinity else []
        self._node_signatures[position] = signatures
        for sig in signatures:
            nodes = self._positions.get(sig)
            if nodes is None:
                nodes = self._positions[sig] = {}
                pairs = sig[1].selector.pairs
                self._filed.setdefault(pairs[0] if pairs else _UNPAIRED, set()).add(sig)
            nodes[position] = nodes.get(position, 0) + 1

    def _forget(self, position: int) -> None:
        for sig in self._node_signatures[position]:
            nodes = self._positions[sig]
            left = nodes[position] - 1
            if left:
                nodes[position] = left
                continue
            del nodes[position]
            if not nodes:
                del self._positions[sig]
                pairs = sig[1].selector.pairs
                pair = pairs[0] if pairs else _UNPAIRED
                filed = self._filed[pair]
                filed.discard(sig)
                if not filed:
                    del self._filed[pair]
        self._node_signatures[position] = []

    def matching(
        self, pod: Pod, namespace_labels: Mapping[str, str], kinds: frozenset[int]
    ) -> Iterator[tuple[Signature, dict[int, int]]]:
        """Signatures of these kinds whose term matches ``pod`` (``AffinityTerm.matches``), with
        the positions carrying them (read-only)."""
        filed = self._filed
        if not filed:
            return
        groups = [filed[pair] for pair in pod.labels.items() if pair in filed]
        unpaired = filed.get(_UNPAIRED)
        if unpaired:
            groups.append(unpaired)
        for group in groups:
            for sig in group:
                if sig[0] in kinds and sig[1].matches(pod, namespace_labels):
                    yield sig, self._positions[sig]
