"""The volume plugins, as they behave for pods without volumes (the only pods our model has).

VolumeRestrictions, NodeVolumeLimits (CSILimits), VolumeBinding and VolumeZone all skip at
PreFilter when the pod mounts no volume, so their Filters never run; VolumeBinding is also a
score plugin (weight 1 by default) that skips at PreScore, so it never appears in ``scores``.
Their Reserve/PreBind succeed with nothing to do. The extension points are all declared so a
profile enabling one of them at a point validates as it does in kube-scheduler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping, Optional

from scheduler_core import names
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import PreFilterResult
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.status import SKIP, MaybeStatus
from scheduler_core.model import Pod

PreFilterOutcome = tuple[Optional[PreFilterResult], MaybeStatus]


def _pod_has_volumes(pod: Pod) -> bool:
    """Our Pod model carries no volumes; a loader that adds ``volumes`` would make this true."""
    return bool(getattr(pod, "volumes", ()))


class _SkipsWithoutVolumes:
    """PreFilter skips a pod without volumes, so Filter never runs for it; both points are declared."""

    name: ClassVar[str]

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterOutcome:
        return None, (None if _pod_has_volumes(pod) else SKIP)

    def pre_filter_extensions(self) -> object:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        return None


class VolumeRestrictions(_SkipsWithoutVolumes):
    name: ClassVar[str] = names.VOLUME_RESTRICTIONS

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return None

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return None


class NodeVolumeLimits(_SkipsWithoutVolumes):
    name: ClassVar[str] = names.NODE_VOLUME_LIMITS


@dataclass(frozen=True, slots=True)
class _BindingState:
    """VolumeBinding's stateData for a pod without claims: everything is (trivially) bound."""

    all_bound: bool = True

    def clone(self) -> "_BindingState":
        return self


_BINDING_STATE = StateKey[_BindingState]("VolumeBinding")


class VolumeBinding(_SkipsWithoutVolumes):
    name: ClassVar[str] = names.VOLUME_BINDING

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterOutcome:
        state.write(_BINDING_STATE, _BindingState())
        return super().pre_filter(state, pod, nodes)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> MaybeStatus:
        return SKIP  # no static bindings and capacity scoring is off

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        return 0, None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        return None


class VolumeZone(_SkipsWithoutVolumes):
    name: ClassVar[str] = names.VOLUME_ZONE


def new_volume_restrictions(args: Optional[Mapping], handle) -> VolumeRestrictions:
    return VolumeRestrictions()


def new_node_volume_limits(args: Optional[Mapping], handle) -> NodeVolumeLimits:
    return NodeVolumeLimits()


def new_volume_binding(args: Optional[Mapping], handle) -> VolumeBinding:
    return VolumeBinding()


def new_volume_zone(args: Optional[Mapping], handle) -> VolumeZone:
    return VolumeZone()
