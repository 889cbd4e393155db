"""The scheduler's volume binder (volumebinding/binder.go): a pod's claims sorted by state,
per-node feasibility (bound volumes' node affinity, matching available volumes, provisioning),
and the assume / bind steps of Reserve and PreBind.

It reads claims and volumes through the assume caches of the snapshot's StorageState, so a later
pod sees what an earlier pod's Reserve assumed; PreBind writes the API objects and lets the
stand-in volume controller finish the binding while it waits (``ObjectWriter.await_volume_bindings``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from scheduler_core.model import quantity
from scheduler_core.framework.filter_facts import VolumeFact
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.options import ObjectWriter
from scheduler_core.framework.storage import StorageState
from scheduler_core.util.gosort import sorted_slice
from scheduler_core.model.labels import compile_selector, node_selector_matches_labels
from scheduler_core.model import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    CSINode,
    CSIStorageCapacity,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
    Volume,
)
from scheduler_core.plugins.helper import table_cache
from scheduler_core.volume import helpers, translation

if TYPE_CHECKING:
    from scheduler_core.framework.node_info import NodeInfo
    from scheduler_core.framework.node_table import NodeTable
    from scheduler_core.model import NodeSelector

# ConflictReasons, in the order FindPodVolumes appends them.
REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
# v1.32's words for it (release/code.py: volume_node_conflict_reason_reworded).
REASON_NODE_CONFLICT_BEFORE_V1_33 = "node(s) had volume node affinity conflict"
REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

BIND_TIMEOUT_ERROR = "context deadline exceeded"  # PollUntilContextTimeout's ctx.Err()

# What checkBoundClaims answers on a node (bound_claim_codes): the bound volumes fit, one's node
# affinity does not admit the node, or a claim is bound to a volume that does not exist.
BOUND_FIT, BOUND_CONFLICT, BOUND_MISSING = 0, 1, 2


class BinderError(Exception):
    """An error the release's binder returns (the plugin turns it into an Error status)."""


@dataclass(slots=True)
class BindingInfo:
    """A claim and the available volume chosen for it on one node."""

    claim: PersistentVolumeClaim
    volume: PersistentVolume


@dataclass(slots=True)
class DynamicProvision:
    claim: PersistentVolumeClaim
    node_capacity: Optional[CSIStorageCapacity] = None


@dataclass(slots=True)
class PodVolumes:
    """What binding the pod's volumes on one node takes."""

    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[DynamicProvision] = field(default_factory=list)


@dataclass(slots=True)
class PodVolumeClaims:
    """GetPodVolumeClaims: the pod's claims by state, and the volumes of the delayed claims' classes."""

    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes_by_class: dict[str, list[PersistentVolume]] = field(default_factory=dict)


@dataclass(slots=True)
class _Verdict:
    """FindPodVolumes' four booleans, turned into reasons at the end."""

    bound_satisfied: bool = True
    unbound_satisfied: bool = True
    sufficient_storage: bool = True
    bound_volumes_found: bool = True

    def reasons(self, node_conflict: str) -> list[str]:
        """The reasons, the node-affinity conflict in the release's words."""
        checks = (
            (self.bound_satisfied, node_conflict),
            (self.unbound_satisfied, REASON_BIND_CONFLICT),
            (self.sufficient_storage, REASON_NOT_ENOUGH_SPACE),
            (self.bound_volumes_found, REASON_PV_NOT_EXIST),
        )
        return [reason for ok, reason in checks if not ok]


class VolumeBinder:
    def __init__(
        self,
        snapshot: SharedLister,
        bind_timeout_seconds: int,
        writes: Optional[ObjectWriter] = None,
        node_conflict: str = REASON_NODE_CONFLICT,
    ) -> None:
        self.snapshot = snapshot
        self.node_conflict = node_conflict  # ErrReasonNodeConflict as the release words it
        self.bind_timeout_seconds = bind_timeout_seconds
        self.writes = writes  # the API: PreBind's writes (None: a binder that never binds)

    @property
    def storage(self) -> StorageState:
        return self.snapshot.storage

    # ------------------------------------------------------------------ PreFilter

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        claims = PodVolumeClaims()
        for volume in pod.volumes:
            bound, claim = self._is_volume_bound(pod, volume)
            if claim is None:
                continue
            if bound:
                claims.bound.append(claim)
            elif self._delays_binding(claim) and not claim.volume_name:
                claims.unbound_delay_binding.append(claim)
            else:  # Immediate binding, or pre-bound to a volume: the PV controller should have bound it
                claims.unbound_immediate.append(claim)
        for claim in claims.unbound_delay_binding:
            claims.volumes_by_class[claim.class_name] = self.storage.volumes_of_class(claim.class_name)
        return claims

    def _delays_binding(self, claim: PersistentVolumeClaim) -> bool:
        try:
            return helpers.is_delay_binding_mode(claim, self.storage.classes)
        except helpers.ClassError as err:
            raise BinderError(str(err)) from None

    def _is_volume_bound(self, pod: Pod, volume: Volume) -> tuple[bool, Optional[PersistentVolumeClaim]]:
        """isVolumeBound: (fully bound?, the claim) through the claim assume cache; a volume that
        uses no claim counts as bound."""
        name = volume.claim_for(pod.name)
        if name is None:
            return True, None
        key = f"{pod.namespace}/{name}"
        claim = self.storage.assumed_claim(key)
        if claim is None:
            raise BinderError(f'error getting PVC "{key}": persistentvolumeclaims "{key}" not found')
        if volume.is_ephemeral:
            problem = helpers.ephemeral_claim_error(pod, claim)
            if problem is not None:
                raise BinderError(problem)
        return claim.is_fully_bound, claim

    # ------------------------------------------------------------------ Filter

    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: what binding takes on this node, or the reasons it cannot be done."""
        verdict, result = _Verdict(), PodVolumes()
        if claims.bound:
            verdict.bound_satisfied, verdict.bound_volumes_found = self._check_bound_claims(claims.bound, node)
        if not claims.unbound_delay_binding:
            return result, verdict.reasons(self.node_conflict)
        to_match, to_provision = [], []
        for claim in claims.unbound_delay_binding:
            selected = claim.annotations.get(ANN_SELECTED_NODE)
            if selected is None:
                to_match.append(claim)
            elif selected != node.name:
                verdict.unbound_satisfied = False  # provisioning was started for another node
                return PodVolumes(), verdict.reasons(self.node_conflict)
            else:
                to_provision.append(claim)
        if to_match:
            verdict.unbound_satisfied, result.static_bindings, unmatched = self._find_matching_volumes(
                to_match, claims.volumes_by_class, node
            )
            to_provision += unmatched
        if to_provision:
            verdict.unbound_satisfied, verdict.sufficient_storage, result.dynamic_provisions = (
                self._check_volume_provisions(to_provision, node)
            )
        return result, verdict.reasons(self.node_conflict)

    def explain_reasons(self, pod: Pod, claims: PodVolumeClaims, node: Node, reasons: list[str]) -> list[VolumeFact]:
        """The claims and volumes behind find_pod_volumes' reasons on this node (explanations only)."""
        facts: list[VolumeFact] = []
        csi_node = self.storage.csi_node(node.name)
        for claim in claims.bound:
            volume = self.storage.assumed_volume(claim.volume_name)
            subject = f"claim {claim.namespace}/{claim.name}"
            if volume is None and REASON_PV_NOT_EXIST in reasons:
                facts.append(
                    VolumeFact(
                        REASON_PV_NOT_EXIST,
                        subject,
                        f"bound to PersistentVolume {claim.volume_name}, which does not exist",
                    )
                )
            elif (
                volume is not None
                and self.node_conflict in reasons
                and not helpers.check_node_affinity(self.translate(volume, csi_node), node.labels)
            ):
                facts.append(
                    VolumeFact(
                        self.node_conflict,
                        subject,
                        f"its PersistentVolume {volume.name}'s node affinity does not admit this node",
                    )
                )
        for claim in claims.unbound_delay_binding:
            subject = f"claim {claim.namespace}/{claim.name}"
            selected = claim.annotations.get(ANN_SELECTED_NODE)
            if REASON_BIND_CONFLICT in reasons:
                facts.append(
                    VolumeFact(
                        REASON_BIND_CONFLICT,
                        subject,
                        f"provisioning was started for node {selected}"
                        if selected and selected != node.name
                        else f"no available PersistentVolume of class "
                        f"{claim.class_name or '(none)'} can be bound to it on this node",
                    )
                )
            if REASON_NOT_ENOUGH_SPACE in reasons:
                facts.append(
                    VolumeFact(
                        REASON_NOT_ENOUGH_SPACE,
                        subject,
                        f"class {claim.class_name}'s storage capacity "
                        f"for this node is smaller than the claim's request",
                    )
                )
        return facts

    def _check_bound_claims(self, claims: list[PersistentVolumeClaim], node: Node) -> tuple[bool, bool]:
        """checkBoundClaims: (every bound volume's node affinity fits, every bound volume exists)."""
        csi_node = self.storage.csi_node(node.name)
        for claim in claims:
            volume = self.storage.assumed_volume(claim.volume_name)
            if volume is None:
                return True, False
            volume = self.translate(volume, csi_node)
            if not helpers.check_node_affinity(volume, node.labels):
                return False, True
        return True, True

    def bound_claim_codes(self, claims: PodVolumeClaims, table: NodeTable[NodeInfo]) -> Optional[np.ndarray]:
        """``_check_bound_claims`` on every node of ``table`` at once (a BOUND_* code per position)
        for a pod whose claims are all bound, or None where it must be asked node by node (a claim
        still to bind, or an in-tree volume, which a node's CSINode may translate). A bound volume's
        node affinity is matched against each node's labels once per table and kept: the labels
        change only with a node, which makes a new table, and a pod with zonal volumes is otherwise
        matched against every node of the walk on every attempt (a fifth of an attempt at 5,000
        nodes). Claims in order, as the loop: the first whose volume is missing answers for the nodes
        no earlier claim refused."""
        if claims.unbound_delay_binding:
            return None
        codes = np.full(table.size, BOUND_FIT, dtype=np.int8)
        undecided = np.ones(table.size, dtype=bool)
        for claim in claims.bound:
            volume = self.storage.assumed_volume(claim.volume_name)
            if volume is None:
                codes[undecided] = BOUND_MISSING
                return codes
            if translation.plugin_for(volume.in_tree) is not None:
                return None
            if volume.node_affinity is None:
                continue
            admitted = _admitted_by(volume.node_affinity, table)
            codes[undecided & ~admitted] = BOUND_CONFLICT
            undecided &= admitted
        return codes

    def translate(self, volume: PersistentVolume, csi_node: Optional[CSINode]) -> PersistentVolume:
        """tryTranslatePVToCSI: an in-tree volume whose plugin this node migrated, as CSI."""
        plugin = translation.plugin_for(volume.in_tree)
        if plugin is None or not translation.binder_migrates(plugin.plugin_name, csi_node):
            return volume
        try:
            return translation.translate_volume(volume)
        except translation.TranslationError as err:
            raise BinderError(f"could not translate pv: {err}") from None

    def _find_matching_volumes(
        self, claims: list[PersistentVolumeClaim], volumes_by_class: dict[str, Any], node: Node
    ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """findMatchingVolumes: the smallest claims first, each taking a volume no other took."""
        by_size = sorted_slice(claims, lambda a, b: (a.storage_request or 0) < (b.storage_request or 0))
        chosen: dict[str, PersistentVolume] = {}
        bindings: list[BindingInfo] = []
        unmatched: list[PersistentVolumeClaim] = []
        for claim in by_size:
            volume = helpers.find_matching_volume(
                claim, volumes_by_class.get(claim.class_name, []), node.labels, chosen
            )
            if volume is None:
                unmatched.append(claim)
                continue
            chosen[volume.name] = volume
            bindings.append(BindingInfo(claim, volume))
        return not unmatched, bindings, unmatched

    def _check_volume_provisions(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool, list[DynamicProvision]]:
        """checkVolumeProvisions: (provisioning possible, enough capacity, the provisions)."""
        provisions = []
        for claim in claims:
            storage_class = self._provisioning_class(claim)
            if storage_class.provisioner in ("", NOT_SUPPORTED_PROVISIONER):
                return False, True, []
            if not helpers.match_topology_selector_terms(storage_class.allowed_topologies, node.labels):
                return False, True, []
            sufficient, capacity = self._has_enough_capacity(claim, storage_class, node)
            if not sufficient:
                return True, False, []
            provisions.append(DynamicProvision(claim, capacity))
        return True, True, provisions

    def _provisioning_class(self, claim: PersistentVolumeClaim) -> StorageClass:
        if not claim.class_name:
            raise BinderError(f'no class for claim "{claim.key}"')
        storage_class = self.storage.storage_class(claim.class_name)
        if storage_class is None:
            raise BinderError(f'failed to find storage class "{claim.class_name}"')
        return storage_class

    def _has_enough_capacity(
        self, claim: PersistentVolumeClaim, storage_class: StorageClass, node: Node
    ) -> tuple[bool, Optional[CSIStorageCapacity]]:
        """hasEnoughCapacity: only for a CSI driver that opts into capacity tracking; then some
        CSIStorageCapacity of the class, large enough and reachable from the node, must exist."""
        if claim.storage_request is None:
            return True, None
        driver = self.storage.csi_driver(storage_class.provisioner)
        if driver is None or not driver.storage_capacity:
            return True, None
        size = quantity.value(claim.storage_request)
        for capacity in self.storage.capacities:
            if (
                capacity.storage_class_name == storage_class.name
                and _capacity_sufficient(capacity, size)
                and _node_has_access(node, capacity)
            ):
                return True, capacity
        return False, None

    # ------------------------------------------------------------------ Reserve / Unreserve

    def assume_pod_volumes(self, pod: Pod, node_name: str, pod_volumes: PodVolumes) -> bool:
        """AssumePodVolumes: pre-bind the chosen volumes and mark the claims to provision with the
        node, in the assume caches only. True when every claim is already bound."""
        if self._are_pod_volumes_bound(pod):
            return True
        bindings = []
        for binding in pod_volumes.static_bindings:
            volume, dirty = helpers.bind_volume_to_claim(binding.volume, binding.claim)
            if dirty:
                self.storage.assume_volume(volume)
            bindings.append(BindingInfo(binding.claim, volume))
        provisions = []
        for provision in pod_volumes.dynamic_provisions:
            claim = replace(provision.claim, annotations={**provision.claim.annotations, ANN_SELECTED_NODE: node_name})
            self.storage.assume_claim(claim)
            provisions.append(DynamicProvision(claim))
        pod_volumes.static_bindings, pod_volumes.dynamic_provisions = bindings, provisions
        return False

    def _are_pod_volumes_bound(self, pod: Pod) -> bool:
        for volume in pod.volumes:
            try:
                bound, _ = self._is_volume_bound(pod, volume)
            except BinderError:
                return False
            if not bound:
                return False
        return True

    def revert_assumed_pod_volumes(self, pod_volumes: PodVolumes) -> None:
        for binding in pod_volumes.static_bindings:
            self.storage.restore_volume(binding.volume.name)
        for provision in pod_volumes.dynamic_provisions:
            self.storage.restore_claim(provision.claim.key)

    # ------------------------------------------------------------------ PreBind

    def bind_pod_volumes(self, pod: Pod, pod_volumes: PodVolumes) -> None:
        """BindPodVolumes: write the pre-bound volumes and the annotated claims, let the volume
        controller act, then check every claim ended up bound where the pod goes."""
        writes = self.writes
        assert writes is not None, "a binder made without the API cannot bind"
        for binding in pod_volumes.static_bindings:
            writes.write_volume(binding.volume)
        for provision in pod_volumes.dynamic_provisions:
            writes.write_claim(provision.claim)
        claims = [b.claim.key for b in pod_volumes.static_bindings] + [
            p.claim.key for p in pod_volumes.dynamic_provisions
        ]
        writes.await_volume_bindings(claims)
        if self.bind_timeout_seconds == 0:  # the poll's first check comes after one second
            raise BinderError(f"binding volumes: {BIND_TIMEOUT_ERROR}")
        if not self._check_bindings(pod, pod_volumes):
            raise BinderError(f"binding volumes: {BIND_TIMEOUT_ERROR}")

    def _check_bindings(self, pod: Pod, pod_volumes: PodVolumes) -> bool:
        """checkBindings on the API objects: every claim fully bound, to a volume the node fits.
        False means "not yet" (the poll goes on until the bind timeout); errors end PreBind."""
        node_info = self.snapshot.get(pod.node_name)
        if node_info is None:
            raise BinderError(
                f'binding volumes: failed to get node "{pod.node_name}": nodes "{pod.node_name}" not found'
            )
        node, csi_node = node_info.node, self.storage.csi_node(pod.node_name)
        for binding in pod_volumes.static_bindings:
            volume = self.storage.volume(binding.volume.name)
            claim = self.storage.claims.get(binding.claim.key)
            if volume is None or claim is None:
                missing = (
                    f'persistentvolumes "{binding.volume.name}"'
                    if volume is None
                    else f'persistentvolumeclaims "{binding.claim.key}"'
                )
                raise BinderError(f"binding volumes: failed to check binding: {missing} not found")
            self._check_volume_fits(
                self._translate_for_check(volume, csi_node, "failed to translate pv to csi: "), node
            )
            if volume.claim_ref is None or (binding.claim.uid and not volume.claim_ref.uid):
                raise BinderError(f'binding volumes: ClaimRef got reset for pv "{volume.name}"')
            if not claim.is_fully_bound:
                return False
        for provision in pod_volumes.dynamic_provisions:
            claim = self.storage.claims.get(provision.claim.key)
            if claim is None:
                raise BinderError(
                    f"binding volumes: failed to check provisioning pvc: persistentvolumeclaims "
                    f'"{provision.claim.key}" not found'
                )
            if claim.annotations.get(ANN_SELECTED_NODE) != pod.node_name:
                raise BinderError(f'binding volumes: provisioning failed for PVC "{claim.name}"')
            if claim.volume_name:
                volume = self.storage.volume(claim.volume_name)
                if volume is None:
                    return False  # not seen yet: the poll goes on
                self._check_volume_fits(self._translate_for_check(volume, csi_node, ""), node)
            if not claim.is_fully_bound:
                return False
        return True

    def _translate_for_check(
        self, volume: PersistentVolume, csi_node: Optional[CSINode], prefix: str
    ) -> PersistentVolume:
        try:
            return self.translate(volume, csi_node)
        except BinderError as err:
            raise BinderError(f"binding volumes: {prefix}{err}") from None

    @staticmethod
    def _check_volume_fits(volume: PersistentVolume, node: Node) -> None:
        if not helpers.check_node_affinity(volume, node.labels):
            raise BinderError(
                f'binding volumes: pv "{volume.name}" node affinity doesn\'t match node "{node.name}": '
                "no matching NodeSelectorTerms"
            )


def volume_limit(capacity: CSIStorageCapacity) -> Optional[int]:
    """volumeLimit's Value(): maximumVolumeSize when given (more precise), else capacity."""
    limit = capacity.maximum_volume_size if capacity.maximum_volume_size is not None else capacity.capacity
    return quantity.value(limit) if limit is not None else None


def _capacity_sufficient(capacity: CSIStorageCapacity, size: int) -> bool:
    limit = volume_limit(capacity)
    return limit is not None and limit >= size


def _node_has_access(node: Node, capacity: CSIStorageCapacity) -> bool:
    """nodeHasAccess: the capacity's node topology selects the node (none: no node)."""
    return capacity.node_topology is not None and compile_selector(capacity.node_topology).matches(node.labels)


def _admitted_by(affinity: NodeSelector, table: NodeTable[NodeInfo]) -> np.ndarray:
    """Which of the table's nodes a volume's required node affinity admits (CheckNodeAffinity),
    kept per table and affinity (volumes of one zone share the answer). Not helper.node_selector_mask:
    a volume's affinity is matched on labels alone, its terms' matchFields skipped (the release
    builds a node of labels only), where a pod's node affinity also matches the node's name."""
    kept = table_cache(table, "volume-node-affinity")
    admitted: Optional[np.ndarray] = kept.get(affinity)
    if admitted is None:
        admitted = kept[affinity] = np.fromiter(
            (node_selector_matches_labels(affinity, info.node.labels) for info in table.node_infos),
            dtype=bool,
            count=table.size,
        )
    return admitted
