"""ImageLocality (imagelocality): favour nodes that already hold the pod's container images.

Each image present on the node adds its size scaled by the share of nodes holding it (so an
image everywhere counts fully, one on few nodes little — spreading avoids piling pods on one
node). The sum is clamped to [23MB, 1000MB x containers] and mapped linearly onto [0, 100].
Init containers count. There is no PreScore, so the plugin scores every cycle.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework import batch
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.model import Pod
from scheduler_core.plugins.helper import go_div, table_cache

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """An image named without a tag means ``:latest`` (a ':' before the last '/' is a registry port)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(size: int, num_nodes: int, total_nodes: int) -> int:
    return int(size * (num_nodes / total_nodes))


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_nodes: int) -> int:
    total = 0
    for container in (*pod.init_containers, *pod.containers):
        found = node_info.image_sizes.get(normalized_image_name(container.image))
        if found is not None:
            size, num_nodes = found
            total += scaled_image_score(size, num_nodes, total_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = min(max(sum_scores, MIN_THRESHOLD), max_threshold)
    return go_div(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def calculate_priority_batch(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """calculate_priority over many nodes (same clamping, Go division)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = np.minimum(np.maximum(sum_scores, MIN_THRESHOLD), max_threshold)
    return batch.go_div(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


ImageIndex = dict[str, tuple[np.ndarray, np.ndarray, int]]


def image_index(table: NodeTable[NodeInfo]) -> ImageIndex:
    """Image name -> (positions of the nodes holding it, its size on each, number of nodes)."""
    cache = table_cache(table, "images")
    index = cache.get("index")
    if index is None:
        gathered: dict[str, tuple[list[int], list[int], int]] = {}
        for position, info in enumerate(table.node_infos):
            for name, (size, num_nodes) in info.image_sizes.items():
                entry = gathered.setdefault(name, ([], [], num_nodes))
                entry[0].append(position)
                entry[1].append(size)
        index = cache["index"] = {
            name: (np.asarray(p, dtype=np.int64), np.asarray(s, dtype=np.int64), n)
            for name, (p, s, n) in gathered.items()
        }
    return index


def sum_image_scores_batch(table: NodeTable[NodeInfo], pod: Pod, total_nodes: int) -> np.ndarray:
    """sum_image_scores for every table position, visiting only the nodes holding the pod's images."""
    index = image_index(table)
    totals = np.zeros(table.size, dtype=np.int64)
    for container in (*pod.init_containers, *pod.containers):
        found = index.get(normalized_image_name(container.image))
        if found is not None:
            positions, sizes, num_nodes = found
            # int(size * (num_nodes / total_nodes)): float64 product, truncated, as scaled_image_score
            totals[positions] += (sizes.astype(np.float64) * (num_nodes / total_nodes)).astype(np.int64)
    return totals


class ImageLocality:
    name: ClassVar[str] = names.IMAGE_LOCALITY

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        """The distinct images of containers and init containers, as the plugin names them."""
        images = {normalized_image_name(c.image) for c in (*pod.containers, *pod.init_containers)}
        return [(signers.IMAGE_NAMES, tuple(sorted(images)))]

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        total_nodes = len(self._handle.snapshot.node_infos)
        image_scores = sum_image_scores(node_info, pod, total_nodes)
        return calculate_priority(image_scores, len(pod.init_containers) + len(pod.containers)), None

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        total_nodes = len(self._handle.snapshot.node_infos)
        num_containers = len(pod.init_containers) + len(pod.containers)
        index = image_index(table)
        if not any(normalized_image_name(c.image) in index for c in (*pod.init_containers, *pod.containers)):
            return np.full(len(positions), calculate_priority(0, num_containers), dtype=np.int64)
        image_scores = sum_image_scores_batch(table, pod, total_nodes)[positions]
        return calculate_priority_batch(image_scores, num_containers)


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> ImageLocality:
    return ImageLocality(handle)
