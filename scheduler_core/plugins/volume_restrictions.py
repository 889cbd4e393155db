"""VolumeRestrictions (volumerestrictions/volume_restrictions.go).

Two rules. In-tree disks: a GCE PD, AWS EBS, iSCSI or RBD volume conflicts with the same disk
already mounted by a pod on the node (unless both mounts of a GCE PD, iSCSI or RBD volume are
read-only). ReadWriteOncePod: PreFilter counts how many of the pod's ReadWriteOncePod claims a
scheduled pod already uses; any such use rejects every node (Unschedulable, so preemption may
evict the user — AddPod/RemovePod keep the count right during its dry run).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey, StateNotFound
from scheduler_core.framework.filter_facts import VolumeFact
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.storage import claim_key
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.model import (
    READ_WRITE_ONCE_POD,
    AWSElasticBlockStore,
    GCEPersistentDisk,
    ISCSIVolume,
    PersistentVolumeClaim,
    Pod,
    RBDVolume,
    Volume,
)

REASON_DISK_CONFLICT = "node(s) had no available disk"
REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)
# v1.32 and v1.33's words for it (release/code.py: read_write_once_pod_reason_reworded).
REASON_READ_WRITE_ONCE_POD_CONFLICT_BEFORE_V1_34 = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)
_STATE_NAME = "PreFilterVolumeRestrictions"
_RESTRICTED_SOURCES = (GCEPersistentDisk, AWSElasticBlockStore, RBDVolume, ISCSIVolume)


@dataclass(slots=True)
class _State:
    """preFilterState: the pod's ReadWriteOncePod claim names, and how many scheduled pods use them."""

    read_write_once_pod_claims: frozenset[str]
    conflicting_claim_refs: int

    def clone(self) -> "_State":
        return _State(self.read_write_once_pod_claims, self.conflicting_claim_refs)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        uses = sum(1 for v in pod.volumes if v.is_claim and v.claim_name in self.read_write_once_pod_claims)
        self.conflicting_claim_refs += multiplier * uses


_STATE = StateKey[_State](_STATE_NAME)


# ---------------------------------------------------------------------- disk conflicts


def _overlap(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    return bool(set(first) & set(second))


def is_volume_conflict(volume: Volume, existing: Pod) -> bool:
    """isVolumeConflict: the same disk mounted by the existing pod, not read-only on both sides."""
    mine = volume.in_tree
    for other_volume in existing.volumes:
        other = other_volume.in_tree
        if isinstance(mine, GCEPersistentDisk) and isinstance(other, GCEPersistentDisk):
            if mine.pd_name == other.pd_name and not (mine.read_only and other.read_only):
                return True
        if isinstance(mine, AWSElasticBlockStore) and isinstance(other, AWSElasticBlockStore):
            if mine.volume_id == other.volume_id:
                return True
        if isinstance(mine, ISCSIVolume) and isinstance(other, ISCSIVolume):
            if mine.iqn == other.iqn and not (mine.read_only and other.read_only):
                return True
        if isinstance(mine, RBDVolume) and isinstance(other, RBDVolume):
            same_image = _overlap(mine.monitors, other.monitors) and (mine.pool, mine.image) == (
                other.pool,
                other.image,
            )
            if same_image and not (mine.read_only and other.read_only):
                return True
    return False


def needs_restrictions_check(volume: Volume) -> bool:
    return isinstance(volume.in_tree, _RESTRICTED_SOURCES)


def satisfies_volume_conflicts(pod: Pod, pods: list[Pod]) -> bool:
    """satisfyVolumeConflicts against the pods on a node."""
    return first_volume_conflict(pod, pods) is None


def first_volume_conflict(pod: Pod, pods: list[Pod]) -> Optional[tuple[Volume, Pod]]:
    """The pod's first restricted volume that one of ``pods`` also mounts (not read-only on both), and that pod."""
    for volume in pod.volumes:
        if needs_restrictions_check(volume):
            for other in pods:
                if is_volume_conflict(volume, other):
                    return volume, other
    return None


# ---------------------------------------------------------------------- the plugin


class VolumeRestrictions:
    name: ClassVar[str] = names.VOLUME_RESTRICTIONS

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, handle: Handle, features: Features = DEFAULT_RULES.features) -> None:
        self.handle = handle
        self._read_write_once_pod_conflict = (
            REASON_READ_WRITE_ONCE_POD_CONFLICT
            if features.read_write_once_pod_reason_reworded
            else REASON_READ_WRITE_ONCE_POD_CONFLICT_BEFORE_V1_34
        )

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        claims, missing = self._read_write_once_pod_claims(pod)
        if missing is not None:
            return None, Status.unresolvable(f'persistentvolumeclaim "{missing}" not found')
        snapshot = self.handle.snapshot
        used = sum(1 for name in claims if snapshot.is_pvc_used_by_pods(claim_key(pod.namespace, name)))
        if not needs_check and used == 0:
            return None, SKIP
        state.write(_STATE, _State(claims, used))
        return None, None

    def _read_write_once_pod_claims(self, pod: Pod) -> tuple[frozenset[str], Optional[str]]:
        """The names of the pod's claims (persistentVolumeClaim volumes) that are ReadWriteOncePod,
        or the first claim the informer does not have."""
        storage = self.handle.snapshot.storage
        names_found: set[str] = set()
        for volume in pod.volumes:
            if not volume.is_claim:
                continue
            claim: Optional[PersistentVolumeClaim] = storage.claim(pod.namespace, volume.claim_name)
            if claim is None:
                return frozenset(), volume.claim_name
            if READ_WRITE_ONCE_POD in claim.access_modes:
                names_found.add(claim.name)
        return frozenset(names_found), None

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod_to_add, +1)

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod_to_remove, -1)

    @staticmethod
    def _update(state: CycleState, other: PodInfo, multiplier: int) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None:
            return Status.error(f'cannot read "{_STATE_NAME}" from cycleState')
        data.update_with_pod(other.pod, multiplier)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if not satisfies_volume_conflicts(pod, [info.pod for info in node_info.pods]):
            return Status.unschedulable(REASON_DISK_CONFLICT)
        try:
            data = state.read(_STATE)
        except StateNotFound:
            return Status.error(f'cannot read "{_STATE_NAME}" from cycleState')
        if data.conflicting_claim_refs > 0:
            return Status.unschedulable(self._read_write_once_pod_conflict)
        return None

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[VolumeFact, ...]:
        """The disk another pod on the node mounts, or the ReadWriteOncePod claims and the pods
        already using them (explanations only)."""
        conflict = first_volume_conflict(pod, [info.pod for info in node_info.pods])
        if conflict is not None:
            volume, other = conflict
            return (
                VolumeFact(REASON_DISK_CONFLICT, f"volume {volume.name}", f"the same disk is mounted by {other.key}"),
            )
        data = state.read_optional(_STATE)
        if data is None or data.conflicting_claim_refs <= 0:
            return ()
        claims = sorted(data.read_write_once_pod_claims)
        users = sorted(
            {
                info.pod.key
                for other in self.handle.snapshot.node_infos
                for info in other.pods
                if info.pod.namespace == pod.namespace
                and any(v.is_claim and v.claim_name in data.read_write_once_pod_claims for v in info.pod.volumes)
            }
        )
        holders = ", ".join(users) if users else "a pod counted by the scheduler"
        return (
            VolumeFact(
                self._read_write_once_pod_conflict,
                f"PersistentVolumeClaim {', '.join(claims)}",
                f"ReadWriteOncePod, already in use by {holders}",
                data.conflicting_claim_refs,
            ),
        )

    def pre_filter_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        data = state.read_optional(_STATE)
        if data is None:
            return None
        return {
            "readWriteOncePodClaims": sorted(data.read_write_once_pod_claims),
            "conflictingClaimRefs": data.conflicting_claim_refs,
        }

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with queueing hints (SchedulerQueueingHints is GA: Node/Add only)."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), pod_deleted_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), claim_added_hint),
        ]


def claim_added_hint(pod: Pod, old: Optional[PersistentVolumeClaim], new: PersistentVolumeClaim) -> QueueingHint:
    """isSchedulableAfterPersistentVolumeClaimAdded: a claim the pod names (not ephemeral) appeared."""
    if new.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    wanted = any(v.is_claim and v.claim_name == new.name for v in pod.volumes)
    return QueueingHint.QUEUE if wanted else QueueingHint.QUEUE_SKIP


def pod_deleted_hint(pod: Pod, old: Pod, new: Optional[Pod]) -> QueueingHint:
    """isSchedulableAfterPodDeleted: the deleted pod held a conflicting disk, or used one of the
    pod's claims (it may have been the ReadWriteOncePod user; access modes are not looked up)."""
    if old.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    if not satisfies_volume_conflicts(pod, [old]):
        return QueueingHint.QUEUE
    claims = {v.claim_name for v in pod.volumes if v.is_claim}
    if any(v.is_claim and v.claim_name in claims for v in old.volumes):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> VolumeRestrictions:
    return VolumeRestrictions(handle, features)
