"""DynamicResources (dynamicresources), as it behaves for pods without resource claims.

PreFilter skips a pod that references no ResourceClaim, so its Filter never runs. Score has no
PreScore in front of it in v1.35, so it runs every cycle and returns 0 for such a pod (it ranks
nodes only by the claims' prioritized device lists). Reserve and PreBind have nothing to do.
"""

from __future__ import annotations

from typing import ClassVar, Mapping, Optional

import numpy as np

from scheduler_core import names
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, MaybeStatus
from scheduler_core.model import Pod


def _pod_has_claims(pod: Pod) -> bool:
    """Our Pod model carries no ``resourceClaims`` unless a loader adds them."""
    return bool(getattr(pod, "resource_claims", ()))


class DynamicResources:
    name: ClassVar[str] = names.DYNAMIC_RESOURCES

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        return None, (None if _pod_has_claims(pod) else SKIP)

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        return 0, None

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable, positions: np.ndarray) -> np.ndarray:
        return np.zeros(len(positions), dtype=np.int64)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None


def new(args: Optional[Mapping], handle) -> DynamicResources:
    return DynamicResources()
