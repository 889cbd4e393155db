"""The order in which the scheduler's snapshot lists nodes (backend/cache/node_tree.go).

The cache files nodes by zone — ``region:\\x00:zone`` from their labels, the deprecated
``failure-domain.beta`` labels first — with zones in the order their first node arrived, and the
snapshot lists them round-robin across zones: the first node of each zone, then the second of each,
and so on. Filter walks this list from the rotating start index, so when ``numFeasibleNodesToFind``
is below the node count (100 nodes or more and percentageOfNodesToScore under 100, or a profile
without score plugins) it decides which nodes are looked at. Nodes arrive in document order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from scheduler_core.model import LABEL_REGION, LABEL_REGION_BETA, LABEL_ZONE, LABEL_ZONE_BETA


def zone_key(labels: Mapping[str, str]) -> str:
    """utilnode.GetZoneKey: "" for a node with neither a region nor a zone."""
    zone = labels.get(LABEL_ZONE_BETA, labels.get(LABEL_ZONE, ""))
    region = labels.get(LABEL_REGION_BETA, labels.get(LABEL_REGION, ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def tree_order(node_labels: Iterable[Mapping[str, str]]) -> np.ndarray:
    """nodeTree.list(): document positions in the order the snapshot lists the nodes."""
    zones: dict[str, list[int]] = {}  # insertion-ordered, as nodeTree.zones
    for position, labels in enumerate(node_labels):
        zones.setdefault(zone_key(labels), []).append(position)
    order: list[int] = []
    for depth in range(max((len(members) for members in zones.values()), default=0)):
        order.extend(members[depth] for members in zones.values() if depth < len(members))
    return np.asarray(order, dtype=np.int64)
