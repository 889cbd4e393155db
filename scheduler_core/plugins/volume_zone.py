"""VolumeZone (volumezone/volume_zone.go).

PreFilter reads the zone and region labels (GA and beta keys) of the volumes bound to the pod's
claims; a node that carries any topology label must then have, for each such volume label, the
same key (a beta key may be matched by the node's GA key) with one of the volume's values
(``a__b`` lists several zones). A node with no topology label at all passes: a one-zone cluster.
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
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import VolumeFact
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import (
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    LABEL_REGION,
    LABEL_REGION_BETA,
    LABEL_ZONE,
    LABEL_ZONE_BETA,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
)
from scheduler_core.volume.translation import MULTI_ZONE_DELIMITER

REASON_CONFLICT = "node(s) had no available volume zone"
ERROR_CLAIM_WITHOUT_NAME = "PersistentVolumeClaim had no name"
ERROR_NO_VOLUME_NOR_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
ERROR_NO_VOLUME_NAME = "PersistentVolume had no name"

# The labels a volume's zone is read from, in the release's order.
TOPOLOGY_LABELS = (LABEL_ZONE_BETA, LABEL_REGION_BETA, LABEL_ZONE, LABEL_REGION)
_GA_LABEL = {LABEL_REGION_BETA: LABEL_REGION, LABEL_ZONE_BETA: LABEL_ZONE}


@dataclass(frozen=True, slots=True)
class VolumeTopology:
    """pvTopology: one topology label of a bound volume."""

    volume: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class _State:
    topologies: tuple[VolumeTopology, ...]

    def clone(self) -> "_State":
        return self


_STATE = StateKey[_State]("PreFilterVolumeZone")


def label_zones(value: str) -> Optional[frozenset[str]]:
    """LabelZonesToSet: ``__``-separated, trimmed; an empty entry makes the label unreadable."""
    zones = [zone.strip() for zone in value.split(MULTI_ZONE_DELIMITER)]
    return None if any(not zone for zone in zones) else frozenset(zones)


def volume_topologies(volume: PersistentVolume) -> tuple[VolumeTopology, ...]:
    """getPVTopologies: the volume's topology labels (unreadable ones are ignored)."""
    topologies = []
    for key in TOPOLOGY_LABELS:
        if key in volume.labels:
            zones = label_zones(volume.labels[key])
            if zones is not None:
                topologies.append(VolumeTopology(volume.name, key, zones))
    return tuple(topologies)


class VolumeZone:
    name: ClassVar[str] = names.VOLUME_ZONE

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        topologies, status = self._pod_volume_topologies(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, SKIP
        state.write(_STATE, _State(topologies))
        return None, None

    def _pod_volume_topologies(self, pod: Pod) -> tuple[tuple[VolumeTopology, ...], MaybeStatus]:
        """getPVbyPod: the topology of each bound volume of the pod's claims (persistentVolumeClaim
        volumes only); unbound WaitForFirstConsumer claims are skipped."""
        storage = self.handle.snapshot.storage
        topologies: list[VolumeTopology] = []
        for volume in pod.volumes:
            if not volume.is_claim:
                continue
            if not volume.claim_name:
                return (), Status.unresolvable(ERROR_CLAIM_WITHOUT_NAME)
            claim: Optional[PersistentVolumeClaim] = storage.claim(pod.namespace, volume.claim_name)
            if claim is None:
                return (), Status.unresolvable(f'persistentvolumeclaim "{volume.claim_name}" not found')
            if not claim.volume_name:
                status = self._unbound_claim_status(claim, storage.storage_class(claim.class_name))
                if status is None:
                    continue
                return (), status
            bound = storage.volume(claim.volume_name)
            if bound is None:
                return (), Status.unresolvable(f'persistentvolume "{claim.volume_name}" not found')
            topologies.extend(volume_topologies(bound))
        return tuple(topologies), None

    @staticmethod
    def _unbound_claim_status(claim: PersistentVolumeClaim, storage_class: Optional[StorageClass]) -> MaybeStatus:
        """None for a WaitForFirstConsumer claim (skipped), otherwise why the pod cannot go on."""
        if not claim.class_name:
            return Status.unresolvable(ERROR_NO_VOLUME_NOR_CLASS)
        if storage_class is None:
            return Status.unresolvable(f'storageclass.storage.k8s.io "{claim.class_name}" not found')
        if storage_class.volume_binding_mode is None:
            return Status.unresolvable(f'VolumeBindingMode not set for StorageClass "{claim.class_name}"')
        if storage_class.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER:
            return None
        return Status.unresolvable(ERROR_NO_VOLUME_NAME)

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if not pod.volumes:
            return None
        data = state.read_optional(_STATE)
        if data is not None:
            topologies = data.topologies
        else:  # PreFilter did not run: compute the topologies here, as the release falls back to
            topologies, status = self._pod_volume_topologies(pod)
            if status is not None:
                return status
        return None if _mismatch(topologies, node_info) is None else Status.unresolvable(REASON_CONFLICT)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[VolumeFact, ...]:
        """The volume whose topology label the node does not match, and the node's value (explanations only)."""
        data = state.read_optional(_STATE)
        found = _mismatch(data.topologies, node_info) if data is not None else None
        if found is None:
            return ()
        topology, value = found
        has = f"the node has {topology.key}={value}" if value is not None else f"the node has no {topology.key} label"
        return (
            VolumeFact(
                REASON_CONFLICT,
                f"PersistentVolume {topology.volume}",
                f"can be used only where {topology.key} is one of ({', '.join(sorted(topology.values))}); {has}",
            ),
        )

    def pre_filter_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        data = state.read_optional(_STATE)
        if data is None:
            return None
        return {
            "volumeTopologies": [
                {"volume": t.volume, "key": t.key, "values": sorted(t.values)} for t in data.topologies
            ]
        }

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with queueing hints (SchedulerQueueingHints is GA: no UpdateNodeTaint)."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD), storage_class_added_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE), claim_hint
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE), volume_hint
            ),
        ]


def _mismatch(
    topologies: tuple[VolumeTopology, ...], node_info: NodeInfo
) -> Optional[tuple[VolumeTopology, Optional[str]]]:
    """The first volume topology the node's labels do not satisfy, with the node's value; None when
    all match or the node has no topology label at all (a one-zone cluster)."""
    labels = node_info.node.labels
    if not any(key in labels for key in TOPOLOGY_LABELS):
        return None
    for topology in topologies:
        value = labels.get(topology.key, labels.get(_GA_LABEL.get(topology.key, topology.key)))
        if value is None or value not in topology.values:
            return topology, value
    return None


def claim_hint(pod: Pod, old: Optional[PersistentVolumeClaim], new: PersistentVolumeClaim) -> QueueingHint:
    """isSchedulableAfterPersistentVolumeClaimChange: a claim the pod names (not ephemeral)."""
    if new is None or new.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    wanted = any(v.is_claim and v.claim_name == new.name for v in pod.volumes)
    return QueueingHint.QUEUE if wanted else QueueingHint.QUEUE_SKIP


def storage_class_added_hint(pod: Pod, old: None, new: StorageClass) -> QueueingHint:
    """isSchedulableAfterStorageClassAdded: only a WaitForFirstConsumer class can help."""
    if new.volume_binding_mode != BINDING_WAIT_FOR_FIRST_CONSUMER:
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def volume_hint(pod: Pod, old: Optional[PersistentVolume], new: PersistentVolume) -> QueueingHint:
    """isSchedulableAfterPersistentVolumeChange: a new volume, or changed topology labels."""
    if old is None or volume_topologies(old) != volume_topologies(new):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> VolumeZone:
    return VolumeZone(handle)
