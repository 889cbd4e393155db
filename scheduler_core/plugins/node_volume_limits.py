"""NodeVolumeLimits (nodevolumelimits/csi.go, the CSILimits plugin).

A node's CSINode gives, per CSI driver, how many volumes it can attach (``allocatable.count``).
Filter counts the unique volumes (driver/handle) the node's pods and VolumeAttachments already use
per driver, adds the pod's new ones, and rejects the node when a driver would go over its limit.
Volumes are counted under their CSI driver: CSI volumes directly, in-tree cloud disks (inline or
through a PersistentVolume) under the driver they migrate to where migration is on for the node,
and a claim not yet bound under its StorageClass's provisioner (with a handle unique to the claim).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Mapping, Optional, Union

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.batch import PASS, FilterVerdicts, Palette
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import VolumeFact
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, Code, MaybeStatus, Status
from scheduler_core.framework.storage import StorageState
from scheduler_core.model import CSINode, PersistentVolume, PersistentVolumeClaim, Pod, Volume, VolumeAttachment
from scheduler_core.volume import helpers, translation

REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


class _ClaimMissing(Exception):
    """A new pod's claim does not exist: the pod cannot run until it does."""


class _CountError(Exception):
    """An error the release returns while counting (an Error status)."""


# filterAttachableVolumes of the new pod: its volumes (unique name -> driver), or the status it fails with.
NewVolumes = Union[dict[str, str], Status]


class _NewVolumesByCSINode:
    """The new pod's volumes as each CSINode counts them, for one cycle (written at PreFilter).
    Within a cycle they depend only on the node's CSINode (its migrated plugins), not on the node:
    most nodes share one, or have none, and the walk asks on every node it reaches. Keyed by the
    CSINode's identity (None: no CSINode), which the entry keeps alive."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: dict[int, tuple[Optional[CSINode], NewVolumes]] = {}

    def clone(self) -> "_NewVolumesByCSINode":
        return self  # nothing the preemption dry run changes: the pod and the storage stay the same


_NEW_VOLUMES = StateKey[_NewVolumesByCSINode]("NodeVolumeLimits/newVolumes")


def volume_unique_name(driver: str, handle: str) -> str:
    return f"{driver}/{handle}"


def volume_limits(csi_node: Optional[CSINode]) -> dict[str, int]:
    """getVolumeLimits: the drivers that declare allocatable.count (others have no limit)."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable_count for d in csi_node.drivers if d.allocatable_count is not None}


class NodeVolumeLimits:
    name: ClassVar[str] = names.NODE_VOLUME_LIMITS

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        # The release prefixes the handle of a claim counted through its class with a random string
        # (so it never equals a real handle); only its uniqueness matters.
        self.random_volume_id_prefix = os.urandom(16).hex()

    @property
    def storage(self) -> StorageState:
        return self.handle.snapshot.storage

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        if any(v.is_claim or v.is_ephemeral or translation.is_inline_migratable(v) for v in pod.volumes):
            state.write(_NEW_VOLUMES, _NewVolumesByCSINode())
            return None, None
        return None, SKIP

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        status, _ = self._judge(pod, node_info, state.read_optional(_NEW_VOLUMES))
        return status

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        """``filter`` on the nodes at ``positions``. A node without a CSINode has no attach limits:
        it answers what the pod's new volumes answer on such a node (a status when they cannot be
        counted, else a pass), worked out once; a node with one is judged on its own."""
        memo = state.read_optional(_NEW_VOLUMES)
        found = self._new_volumes(pod, None, memo)
        unlimited = found if isinstance(found, Status) else None
        csi_nodes = self.storage.csi_nodes
        if not csi_nodes:
            return (
                None if unlimited is None else FilterVerdicts.from_mask(np.ones(len(positions), dtype=bool), unlimited)
            )
        palette = Palette()
        choice = np.full(len(positions), PASS, dtype=np.int32)
        infos = table.node_infos
        for slot, position in enumerate(positions.tolist()):
            info = infos[position]
            status = self._judge(pod, info, memo)[0] if info.name in csi_nodes else unlimited
            if status is not None and status.code != Code.SUCCESS:
                choice[slot] = palette.add(status)
        return FilterVerdicts(palette.statuses, choice)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[VolumeFact, ...]:
        """The driver whose attach limit the pod's new volumes would pass, with the counts (explanations only)."""
        _, over = self._judge(pod, node_info)
        if over is None:
            return ()
        driver, attached, new, limit = over
        return (
            VolumeFact(
                REASON_MAX_VOLUME_COUNT_EXCEEDED,
                f"CSI driver {driver}",
                f"{attached} volume(s) attached + {new} new > limit {limit}",
                attached + new,
                limit,
            ),
        )

    def _judge(
        self, pod: Pod, node_info: NodeInfo, memo: Optional[_NewVolumesByCSINode] = None
    ) -> tuple[MaybeStatus, Optional[tuple[str, int, int, int]]]:
        """Filter's verdict, and when a limit is passed: (driver, attached, new, limit)."""
        if not pod.volumes:
            return None, None
        csi_node = self.storage.csi_node(node_info.name)
        found = self._new_volumes(pod, csi_node, memo)
        if isinstance(found, Status):
            return found, None
        new_volumes = dict(found)  # _over_limit takes out the ones already on the node
        if not new_volumes:
            return None, None
        limits = volume_limits(csi_node)
        if not limits:
            return None, None
        try:
            attached = self._attachable_volumes([info.pod for info in node_info.pods], csi_node, new_pod=False)
        except _CountError as err:
            return Status.error(str(err)), None
        over = self._over_limit(new_volumes, attached, self._attachments(node_info.name), limits)
        return (None if over is None else Status.unschedulable(REASON_MAX_VOLUME_COUNT_EXCEEDED)), over

    def _new_volumes(self, pod: Pod, csi_node: Optional[CSINode], memo: Optional[_NewVolumesByCSINode]) -> NewVolumes:
        """filterAttachableVolumes of the new pod on a node with this CSINode (kept in ``memo``)."""
        kept = memo.found.get(id(csi_node)) if memo is not None else None
        if kept is not None and kept[0] is csi_node:
            return kept[1]
        found: NewVolumes
        try:
            found = self._attachable_volumes([pod], csi_node, new_pod=True)
        except _ClaimMissing as missing:
            found = Status.unresolvable(str(missing))
        except _CountError as err:
            found = Status.error(str(err))
        if memo is not None:
            memo.found[id(csi_node)] = (csi_node, found)
        return found

    @staticmethod
    def _over_limit(
        new_volumes: dict[str, str], attached: dict[str, str], attachments: dict[str, str], limits: dict[str, int]
    ) -> Optional[tuple[str, int, int, int]]:
        attached_count: dict[str, int] = {}
        for unique_name, driver in attached.items():
            new_volumes.pop(unique_name, None)  # a volume already used on the node is not new
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for unique_name, driver in attachments.items():
            if unique_name not in attached:
                attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return driver, attached_count.get(driver, 0), count, limit
        return None

    # ------------------------------------------------------------------ counting

    def _attachable_volumes(self, pods: list[Pod], csi_node: Optional[CSINode], new_pod: bool) -> dict[str, str]:
        """filterAttachableVolumes over pods: unique volume name -> CSI driver."""
        result: dict[str, str] = {}
        for pod in pods:
            for volume in pod.volumes:
                self._add_volume(pod, volume, csi_node, new_pod, result)
        return result

    def _add_volume(
        self, pod: Pod, volume: Volume, csi_node: Optional[CSINode], new_pod: bool, result: dict[str, str]
    ) -> None:
        claim_name = volume.claim_for(pod.name)
        if claim_name is None:
            self._add_inline_volume(pod, volume, csi_node, result)
            return
        if not claim_name:
            raise _CountError("PersistentVolumeClaim had no name")
        claim = self.storage.claim(pod.namespace, claim_name)
        if claim is None:
            if new_pod:  # the pod cannot run without it
                raise _ClaimMissing(
                    f'looking up PVC {pod.namespace}/{claim_name}: persistentvolumeclaim "{claim_name}" not found'
                )
            return  # a running pod's missing claim is not counted
        if volume.is_ephemeral:
            problem = helpers.ephemeral_claim_error(pod, claim)
            if problem is not None:
                raise _CountError(problem)
        driver, handle = self._claim_driver(csi_node, claim)
        if driver and handle:
            result[volume_unique_name(driver, handle)] = driver

    def _add_inline_volume(self, pod: Pod, volume: Volume, csi_node: Optional[CSINode], result: dict[str, str]) -> None:
        """checkAttachableInlineVolume: an inline in-tree disk counts where its migration is on."""
        plugin = translation.plugin_for(volume.in_tree)
        if plugin is None or not translation.limits_migrates(plugin.plugin_name, csi_node):
            return
        try:
            source = translation.translate_inline(volume, pod.namespace)
        except translation.TranslationError as err:
            raise _CountError(f"converting volume({volume.name}) from inline to csi: {err}") from None
        result[volume_unique_name(plugin.driver_name, source.volume_handle)] = plugin.driver_name

    def _claim_driver(self, csi_node: Optional[CSINode], claim: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfo: the bound volume's driver and handle (translated when in-tree), or,
        for an unbound claim or a missing volume, its class's."""
        if not claim.volume_name:
            return self._class_driver(csi_node, claim)
        volume = self.storage.volume(claim.volume_name)
        if volume is None:
            return self._class_driver(csi_node, claim)
        if volume.csi is not None:
            return volume.csi.driver, volume.csi.volume_handle
        plugin = translation.plugin_for(volume.in_tree)
        if plugin is None or not translation.limits_migrates(plugin.plugin_name, csi_node):
            return "", ""
        try:
            csi = translation.translate_volume(volume).csi
        except translation.TranslationError:
            return "", ""
        assert csi is not None  # translate_volume gives the volume its CSI source
        return csi.driver, csi.volume_handle

    def _class_driver(self, csi_node: Optional[CSINode], claim: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfoFromSC: the class's provisioner (or the driver an in-tree provisioner
        migrates to), with a handle unique to the claim."""
        if not claim.class_name:
            return "", ""
        storage_class = self.storage.storage_class(claim.class_name)
        if storage_class is None:
            return "", ""
        handle = f"{self.random_volume_id_prefix}-{claim.namespace}/{claim.name}"
        plugin = translation.plugin_named(storage_class.provisioner)
        if plugin is None:
            return storage_class.provisioner, handle
        if not translation.limits_migrates(plugin.plugin_name, csi_node):
            return "", ""
        return plugin.driver_name, handle

    def _attachments(self, node_name: str) -> dict[str, str]:
        """getNodeVolumeAttachmentInfo: the node's VolumeAttachments of CSI volumes."""
        result: dict[str, str] = {}
        for attachment in self.storage.attachments:
            volume = self._attached_volume(attachment, node_name)
            if volume is not None and volume.csi is not None:  # _attached_volume: a CSI volume or None
                result[volume_unique_name(attachment.attacher, volume.csi.volume_handle)] = attachment.attacher
        return result

    def _attached_volume(self, attachment: VolumeAttachment, node_name: str) -> Optional[PersistentVolume]:
        if attachment.node_name != node_name or not attachment.attacher or attachment.persistent_volume_name is None:
            return None
        volume = self.storage.volume(attachment.persistent_volume_name)
        return volume if volume is not None and volume.csi is not None else None

    # ------------------------------------------------------------------ queueing hints

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE), csi_node_updated_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), pod_deleted_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), claim_added_hint),
            ClusterEventWithHint(
                ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE), attachment_deleted_hint
            ),
        ]


def pod_deleted_hint(pod: Pod, old: Pod, new: Optional[Pod]) -> QueueingHint:
    """isSchedulableAfterPodDeleted: a deleted pod that was scheduled (or nominated) and used a
    claim or a migratable in-tree volume."""
    if not old.volumes or (not old.node_name and not old.nominated_node_name):
        return QueueingHint.QUEUE_SKIP
    if any(v.is_claim or v.is_ephemeral or translation.is_inline_migratable(v) for v in old.volumes):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def claim_added_hint(pod: Pod, old: Optional[PersistentVolumeClaim], new: PersistentVolumeClaim) -> QueueingHint:
    """isSchedulableAfterPVCAdded: a claim of the pod (ephemeral ones by generated name)."""
    if new.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    names_used = {v.claim_for(pod.name) for v in pod.volumes} - {None}
    return QueueingHint.QUEUE if new.name in names_used else QueueingHint.QUEUE_SKIP


def attachment_deleted_hint(pod: Pod, old: VolumeAttachment, new: Optional[VolumeAttachment]) -> QueueingHint:
    """isSchedulableAfterVolumeAttachmentDeleted: the pod uses a claim (in volume order, the first
    claim decides), or an inline in-tree volume whose CSI driver is the attachment's attacher.
    A translation failure is an error: the queue then queues the pod."""
    for volume in pod.volumes:
        if volume.is_claim:
            return QueueingHint.QUEUE
        plugin = translation.plugin_for(volume.in_tree)
        if plugin is None:
            continue
        translation.translate_inline(volume, pod.namespace)  # raises as the release errors
        if plugin.driver_name == old.attacher:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def csi_node_updated_hint(pod: Pod, old: CSINode, new: CSINode) -> QueueingHint:
    """isSchedulableAfterCSINodeUpdated: some driver's limit went up (no count reads as 0)."""
    old_limits = {d.name: d.allocatable_count or 0 for d in old.drivers}
    for driver in new.drivers:
        if (driver.allocatable_count or 0) > old_limits.get(driver.name, 0):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> NodeVolumeLimits:
    return NodeVolumeLimits(handle)
