"""VolumeBinding (volumebinding/volume_binding.go).

PreFilter: every claim the pod names must exist (not lost, not being deleted, an ephemeral one
owned by the pod), and no claim may be unbound with Immediate binding. Filter: the binder checks,
per node, that bound volumes' node affinity fits and that each WaitForFirstConsumer claim finds an
available volume or can be provisioned there. Reserve assumes the node's bindings, Unreserve
reverts them, PreBind writes them and waits for the volume controller. PreScore skips: capacity
scoring needs the StorageCapacityScoring gate, off (alpha) in the release.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional, Sequence

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
from scheduler_core.framework.batch import PASS, FilterVerdicts
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import (
    CLAIM_LOST,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
)
from scheduler_core.plugins.volume_binding import binder as binder_module
from scheduler_core.plugins.volume_binding.args import VolumeBindingArgs
from scheduler_core.plugins.volume_binding.binder import BinderError, PodVolumeClaims, PodVolumes, VolumeBinder
from scheduler_core.plugins.volume_binding.pictures import claims_picture, node_bindings_picture
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.volume import helpers

REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
ERROR_STATE_NOT_FOUND = "not found"  # CycleState.Read's ErrNotFound
ERROR_NO_POD_VOLUME_FOR_NODE = "no pod volume found for node"


@dataclass(slots=True)
class _State:
    """stateData: written at PreFilter, filled in by Filter (per node), read by Reserve/PreBind.
    Shared, not copied, by clone(): the release's Clone returns the same pointer."""

    claims: Optional[PodVolumeClaims] = None
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False
    all_bound: bool = False
    # Filter's answers for every node at once when every claim is bound (bound_claim_codes), and
    # the table they were worked out for (None: not yet; the codes None: ask node by node).
    bound_codes: Optional[np.ndarray] = None
    bound_codes_table: Optional[NodeTable[NodeInfo]] = None
    # The nodes filter_batch found to fit, by position in ``bound_codes_table``: each stands for an
    # empty pod_volumes_by_node entry (nothing to bind), made when first asked for.
    batch_fits: Optional[np.ndarray] = None

    def clone(self) -> "_State":
        return self

    def memo_content(self) -> Optional[tuple[()]]:
        """A pod without claims holds nothing here (the plugin is skipped); one with claims: no
        content to compare (Filter fills this state in, node by node)."""
        return () if self.claims is None else None


_STATE = StateKey[_State]("VolumeBinding")


class VolumeBinding:
    name: ClassVar[str] = names.VOLUME_BINDING

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        return [(signers.VOLUMES, signers.volumes(pod))]

    def __init__(self, args: VolumeBindingArgs, handle: Handle, features: Features = DEFAULT_RULES.features) -> None:
        self.args = args
        self.handle = handle
        self._node_conflict = (
            binder_module.REASON_NODE_CONFLICT
            if features.volume_node_conflict_reason_reworded
            else binder_module.REASON_NODE_CONFLICT_BEFORE_V1_33
        )
        # Bound claims' two answers, one object each for thousands of nodes (statuses never change).
        self._conflict_status = Status.unresolvable(self._node_conflict)
        self._not_exist_status = Status.unresolvable(binder_module.REASON_PV_NOT_EXIST)

    @property
    def binder(self) -> VolumeBinder:
        return VolumeBinder(
            self.handle.snapshot, self.args.bind_timeout_seconds, self.handle.options.object_writes, self._node_conflict
        )

    # ------------------------------------------------------------------ PreFilter

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        has_claims, problem = self._pod_has_claims(pod)
        if problem is not None:
            return None, Status.unresolvable(problem)
        if not has_claims:
            state.write(_STATE, _State())
            return None, SKIP
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except BinderError as err:
            return None, Status.error(str(err))
        if claims.unbound_immediate:
            return None, Status.unresolvable(REASON_UNBOUND_IMMEDIATE)
        state.write(_STATE, _State(claims))
        return None, None

    def _pod_has_claims(self, pod: Pod) -> tuple[bool, Optional[str]]:
        """podHasPVCs: whether the pod uses claims, and the first problem with one of them (read
        from the claim informer, not the assume cache)."""
        storage = self.handle.snapshot.storage
        has_claims = False
        for volume in pod.volumes:
            name = volume.claim_for(pod.name)
            if name is None:
                continue
            has_claims = True
            claim = storage.claim(pod.namespace, name)
            if claim is None:
                if volume.is_ephemeral:
                    return True, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                return True, f'persistentvolumeclaim "{name}" not found'
            if claim.phase == CLAIM_LOST:
                return True, (
                    f'persistentvolumeclaim "{claim.name}" bound to non-existent persistentvolume "{claim.volume_name}"'
                )
            if claim.terminating:
                return True, f'persistentvolumeclaim "{claim.name}" is being deleted'
            if volume.is_ephemeral:
                problem = helpers.ephemeral_claim_error(pod, claim)
                if problem is not None:
                    return True, problem
        return has_claims, None

    def pre_filter_extensions(self) -> None:
        return None

    # ------------------------------------------------------------------ Filter

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None:  # getStateData's error: PreFilter never ran
            return Status.error(ERROR_STATE_NOT_FOUND)
        assert data.claims is not None  # a pod without claims is skipped at PreFilter: no Filter
        code = self._bound_code(data, node_info.name)
        if code is not None:
            return self._bound_verdict(data, node_info.name, code)
        try:
            pod_volumes, reasons = self.binder.find_pod_volumes(pod, data.claims, node_info.node)
        except BinderError as err:
            return Status.error(str(err))
        if reasons:
            return Status.unresolvable(*reasons)
        data.pod_volumes_by_node[node_info.name] = pod_volumes
        data.has_static_bindings = data.has_static_bindings or bool(pod_volumes.static_bindings)
        return None

    def judges_in_batch(self, state: CycleState, pod: Pod) -> bool:
        """Filter answers every node at once for a pod whose claims are all bound (the codes of
        bound_claim_codes); any other pod's nodes are asked of the binder one by one."""
        data = state.read_optional(_STATE)
        return data is not None and data.claims is not None and self._bound_codes(data) is not None

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        """``filter`` on the nodes at ``positions`` of a pod judges_in_batch said yes to: its two
        statuses in the order the nodes first answer them, the fitting nodes kept (batch_fits)."""
        data = state.read_optional(_STATE)
        assert data is not None and data.claims is not None  # judges_in_batch read them
        codes = self._bound_codes(data, table)
        assert codes is not None  # judges_in_batch: every claim bound, no in-tree volume
        answers = codes[positions]
        if data.batch_fits is None:
            data.batch_fits = np.zeros(table.size, dtype=bool)
        data.batch_fits[positions[answers == binder_module.BOUND_FIT]] = True
        refusals = sorted(
            (
                (int(hits[0]), code, status)
                for code, status in (
                    (binder_module.BOUND_CONFLICT, self._conflict_status),
                    (binder_module.BOUND_MISSING, self._not_exist_status),
                )
                if len(hits := np.flatnonzero(answers == code))
            ),
            key=lambda refusal: refusal[0],
        )
        if not refusals:
            return None
        choice = np.full(len(positions), PASS, dtype=np.int32)
        for slot, (_, code, _) in enumerate(refusals):
            choice[answers == code] = slot
        return FilterVerdicts([status for _, _, status in refusals], choice)

    def _bound_codes(self, data: _State, table: Optional[NodeTable[NodeInfo]] = None) -> Optional[np.ndarray]:
        """bound_claim_codes for ``table`` (the snapshot's unless given), worked out once per table
        (None: the binder is asked node by node)."""
        assert data.claims is not None  # Filter's caller checked it
        table = self.handle.snapshot.table if table is None else table
        if data.bound_codes_table is not table:
            data.bound_codes, data.bound_codes_table = self.binder.bound_claim_codes(data.claims, table), table
            data.batch_fits = None
        return data.bound_codes

    def _bound_code(self, data: _State, node_name: str) -> Optional[int]:
        """The node's answer from the codes of a pod whose claims are all bound (None: ask the binder)."""
        codes = self._bound_codes(data)
        if codes is None:
            return None
        position = self.handle.snapshot.table.index.get(node_name)
        return None if position is None else int(codes[position])

    def _bound_verdict(self, data: _State, node_name: str, code: int) -> MaybeStatus:
        """FindPodVolumes' answer for bound claims only: nothing to bind, or the one reason."""
        if code == binder_module.BOUND_FIT:
            data.pod_volumes_by_node[node_name] = PodVolumes()
            return None
        if code == binder_module.BOUND_CONFLICT:
            return self._conflict_status
        return self._not_exist_status

    @staticmethod
    def _pod_volumes(data: _State, node_name: str) -> Optional[PodVolumes]:
        """podVolumesByNode[node]: what Filter found to bind there (for a node filter_batch found
        to fit, nothing: made now, as filter would have made it)."""
        found = data.pod_volumes_by_node.get(node_name)
        if found is None and data.batch_fits is not None and data.bound_codes_table is not None:
            position = data.bound_codes_table.index.get(node_name)
            if position is not None and data.batch_fits[position]:
                found = data.pod_volumes_by_node[node_name] = PodVolumes()
        return found

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[Any, ...]:
        """The claims and volumes behind filter's reasons (explanations only; nothing is stored)."""
        data = state.read_optional(_STATE)
        if data is None or data.claims is None:
            return ()
        try:
            _, reasons = self.binder.find_pod_volumes(pod, data.claims, node_info.node)
        except BinderError:
            return ()
        return tuple(self.binder.explain_reasons(pod, data.claims, node_info.node, reasons))

    # ------------------------------------------------------------------ PreScore / Score

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        return SKIP  # no scorer: StorageCapacityScoring is off, so capacity scoring never runs

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        return 0, None

    # ------------------------------------------------------------------ Reserve / PreBind

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None:  # getStateData's error: PreFilter never ran
            return Status.error(ERROR_STATE_NOT_FOUND)
        pod_volumes = self._pod_volumes(data, node_name)
        data.all_bound = True if pod_volumes is None else self.binder.assume_pod_volumes(pod, node_name, pod_volumes)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data = state.read_optional(_STATE)
        pod_volumes = self._pod_volumes(data, node_name) if data is not None else None
        if pod_volumes is not None:
            self.binder.revert_assumed_pod_volumes(pod_volumes)

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        """PreBindPreFlight: Skip when every claim is bound (PreBind has nothing to do)."""
        data = state.read_optional(_STATE)
        if data is None:  # getStateData's error: PreFilter never ran
            return Status.error(ERROR_STATE_NOT_FOUND)
        if data.all_bound:
            return SKIP
        if self._pod_volumes(data, node_name) is None:
            return Status.error(f'{ERROR_NO_POD_VOLUME_FOR_NODE} "{node_name}"')
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        data = state.read_optional(_STATE)
        if data is None:  # getStateData's error: PreFilter never ran
            return Status.error(ERROR_STATE_NOT_FOUND)
        if data.all_bound:
            return None
        pod_volumes = self._pod_volumes(data, node_name)
        if pod_volumes is None:
            return Status.error(f'{ERROR_NO_POD_VOLUME_FOR_NODE} "{node_name}"')
        try:
            self.binder.bind_pod_volumes(pod, pod_volumes)
        except BinderError as err:
            return Status.error(str(err))
        return None

    # ------------------------------------------------------------------ pictures

    def pre_filter_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        data = state.read_optional(_STATE)
        if data is None or data.claims is None:
            return None
        return claims_picture(data.claims, self.handle.snapshot.storage)

    def binding_state_json(self, state: CycleState, node_name: str) -> Optional[dict[str, Any]]:
        data = state.read_optional(_STATE)
        pod_volumes = self._pod_volumes(data, node_name) if data is not None else None
        if data is None or pod_volumes is None:
            return None
        return node_bindings_picture(pod_volumes, data.all_bound)

    # ------------------------------------------------------------------ queueing hints

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with queueing hints (SchedulerQueueingHints is GA: no UpdateNodeTaint)."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD | ActionType.UPDATE), storage_class_hint
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE), claim_hint
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_NODE, ActionType.ADD | ActionType.UPDATE), csi_node_hint
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE), csi_driver_hint),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, ActionType.ADD | ActionType.UPDATE), capacity_hint
            ),
        ]


# ---------------------------------------------------------------------- queueing hints


def csi_node_hint(pod: Pod, old: Optional[CSINode], new: CSINode) -> QueueingHint:
    """isSchedulableAfterCSINodeChange: a new CSINode, or a change of its migrated plugins."""
    if old is None:
        return QueueingHint.QUEUE
    if old.migrated_plugins_annotation != new.migrated_plugins_annotation:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def claim_hint(pod: Pod, old: Optional[PersistentVolumeClaim], new: PersistentVolumeClaim) -> QueueingHint:
    """isSchedulableAfterPersistentVolumeClaimChange: a claim of the pod (ephemeral ones by their
    generated name) was created or changed."""
    if pod.namespace != new.namespace:
        return QueueingHint.QUEUE_SKIP
    names = {volume.claim_for(pod.name) for volume in pod.volumes} - {None}
    return QueueingHint.QUEUE if new.name in names else QueueingHint.QUEUE_SKIP


def storage_class_hint(pod: Pod, old: Optional[StorageClass], new: StorageClass) -> QueueingHint:
    """isSchedulableAfterStorageClassChange: any new class, or a change of allowedTopologies."""
    if old is None or old.allowed_topologies != new.allowed_topologies:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def capacity_hint(pod: Pod, old: Optional[CSIStorageCapacity], new: CSIStorageCapacity) -> QueueingHint:
    """isSchedulableAfterCSIStorageCapacityChange: a new capacity, or a larger volume limit."""
    if old is None:
        return QueueingHint.QUEUE
    old_limit, new_limit = binder_module.volume_limit(old), binder_module.volume_limit(new)
    if new_limit is not None and (old_limit is None or new_limit > old_limit):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def csi_driver_hint(pod: Pod, old: CSIDriver, new: CSIDriver) -> QueueingHint:
    """isSchedulableAfterCSIDriverChange: an inline CSI volume's driver stopped tracking capacity."""
    for volume in pod.volumes:
        if volume.csi_driver != new.name or not volume.csi_driver:
            continue
        if old.storage_capacity and not new.storage_capacity:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> VolumeBinding:
    return VolumeBinding(VolumeBindingArgs.parse(args), handle, features)
