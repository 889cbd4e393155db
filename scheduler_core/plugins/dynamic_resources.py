"""DynamicResources (dynamicresources), as it behaves for pods without resource claims.

PreFilter first stores an empty state, then skips a pod that references no ResourceClaim, so its
Filter never runs. PostFilter reads that state: without claims there is nothing to deallocate
("no new claims to deallocate", Unschedulable, so DefaultPreemption runs next); when PreFilter
never ran (an earlier PreFilter plugin stopped the cycle) reading the state fails and PostFilter
ends with the error "not found". Score has no PreScore in front of it in v1.35, so it runs every
cycle and returns 0 for such a pod. Reserve and PreBind have nothing to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping, Optional

import numpy as np

from scheduler_core import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from scheduler_core.framework.cycle_state import CycleState, StateKey, StateNotFound
from scheduler_core.framework.interfaces import NodeToStatus, PostFilterResult, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import Pod

REASON_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
# cycleState.Read's ErrNotFound text: PostFilter's answer when PreFilter stored no state.
ERROR_STATE_NOT_FOUND = "not found"


def _pod_has_claims(pod: Pod) -> bool:
    """spec.resourceClaims; pending pods with claims never reach a cycle (model.Scenario.pending_pods)."""
    return bool(pod.resource_claims)


@dataclass(frozen=True, slots=True)
class _ClaimsState:
    """stateData: the pod's claims as PreFilter found them (none, for the pods modelled here)."""

    claims: tuple = ()

    def clone(self) -> "_ClaimsState":
        return self


_STATE = StateKey[_ClaimsState]("DynamicResources")


class DynamicResources:
    name: ClassVar[str] = names.DYNAMIC_RESOURCES

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        if pod.resource_claims:
            return signers.Unsignable(self.name, "pods with dra resource claims are not signable")
        return []


    def events_to_register(self) -> list[ClusterEventWithHint]:
        """The release registers claim, slice, device-class and pod-claim events; a pod without
        claims is never rejected by this plugin, so none of them can ever move it, and SchedLab's
        runs change no DRA object. The plugin declares the pod event it would react to."""
        event = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
        return [ClusterEventWithHint(event)]

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        state.write(_STATE, _ClaimsState())  # written before anything else, as upstream does
        return None, (None if _pod_has_claims(pod) else SKIP)

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        return None

    def post_filter(self, state: CycleState, pod: Pod,
                    statuses: NodeToStatus) -> tuple[Optional[PostFilterResult], MaybeStatus]:
        try:
            claims_state = state.read(_STATE)
        except StateNotFound:
            return None, Status.error(ERROR_STATE_NOT_FOUND)
        if not claims_state.claims:
            return None, Status.unschedulable(REASON_NO_CLAIMS_TO_DEALLOCATE)
        return None, Status.unschedulable("still not schedulable")

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
