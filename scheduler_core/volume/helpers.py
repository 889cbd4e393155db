"""k8s.io/component-helpers/storage/volume (pv_helpers.go, helpers.go) and the topology selector
match of pkg/apis/core/v1/helper: how a claim and a volume fit together, and where a volume or a
class lets a pod run."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Mapping, Optional

from scheduler_core.model.labels import compile_selector, node_selector_matches_labels
from scheduler_core.model import (
    ANN_BOUND_BY_CONTROLLER,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    VOLUME_AVAILABLE,
    ClaimRef,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
    TopologySelectorRequirement,
)

Labels = Mapping[str, str]


class ClassError(LookupError):
    """A StorageClass the binder needs is unusable; the message is the release's error text."""


def check_node_affinity(pv: PersistentVolume, node_labels: Labels) -> bool:
    """volume.CheckNodeAffinity: no required node affinity, or a term the node's labels match."""
    return pv.node_affinity is None or node_selector_matches_labels(pv.node_affinity, node_labels)


def is_volume_bound_to_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """IsVolumeBoundToClaim: the claimRef names the claim (and its uid, when the ref has one)."""
    ref = pv.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
        return False
    return not ref.uid or ref.uid == claim.uid


def check_access_modes(claim: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """CheckAccessModes: the volume offers every mode the claim asks for."""
    return set(claim.access_modes) <= set(pv.access_modes)


def is_delay_binding_mode(claim: PersistentVolumeClaim, classes: Mapping[str, StorageClass]) -> bool:
    """IsDelayBindingMode: the claim's class exists and binds WaitForFirstConsumer. A claim without a
    class, or whose class does not exist, binds immediately."""
    name = claim.class_name
    if not name or name not in classes:
        return False
    mode = classes[name].volume_binding_mode
    if mode is None:
        raise ClassError(f'VolumeBindingMode not set for StorageClass "{name}"')
    return mode == BINDING_WAIT_FOR_FIRST_CONSUMER


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: list[PersistentVolume],
    node_labels: Labels,
    excluded: Mapping[str, PersistentVolume],
) -> Optional[PersistentVolume]:
    """FindMatchingVolume on the scheduler's path (a node, delayBinding, VolumeAttributesClass on):
    a volume pre-bound to the claim if it fits the node, else the smallest available volume of the
    claim's class, mode and attributes class that is big enough, matches the selector, offers the
    access modes and fits the node. The first of equally small ones wins (list order)."""
    requested = claim.storage_request or 0
    selector = compile_selector(claim.selector) if claim.selector is not None else None
    smallest: Optional[PersistentVolume] = None
    smallest_capacity = Fraction(0)
    for volume in volumes:
        if volume.name in excluded:
            continue
        if volume.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        capacity = volume.capacity or Fraction(0)
        if capacity < requested or volume.volume_mode != claim.volume_mode:
            continue
        if (claim.volume_attributes_class_name or "") != (volume.volume_attributes_class_name or ""):
            continue
        if volume.terminating:
            continue
        fits_node = check_node_affinity(volume, node_labels)
        if is_volume_bound_to_claim(volume, claim):
            return volume if fits_node else None  # a pre-bound volume that misses the node: no match
        if volume.phase != VOLUME_AVAILABLE or (selector is not None and not selector.matches(volume.labels)):
            continue
        if volume.class_name != claim.class_name or not fits_node or not check_access_modes(claim, volume):
            continue
        if smallest is None or smallest_capacity > capacity:
            smallest, smallest_capacity = volume, capacity
    return smallest


def bind_volume_to_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> tuple[PersistentVolume, bool]:
    """GetBindVolumeToClaim: the volume with its claimRef set to the claim and the bound-by-controller
    annotation (when it was not already bound to it), and whether anything changed."""
    volume, dirty = pv, False
    ref = pv.claim_ref
    if ref is None or (ref.name, ref.namespace, ref.uid) != (claim.name, claim.namespace, claim.uid):
        volume, dirty = replace(volume, claim_ref=ClaimRef(claim.namespace, claim.name, claim.uid)), True
    if not is_volume_bound_to_claim(pv, claim) and ANN_BOUND_BY_CONTROLLER not in volume.annotations:
        volume = replace(volume, annotations={**volume.annotations, ANN_BOUND_BY_CONTROLLER: "yes"})
        dirty = True
    return volume, dirty


def match_topology_selector_terms(terms: tuple[tuple[TopologySelectorRequirement, ...], ...], labels: Labels) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms are ORed, an empty term
    matches nothing, and every ``key In values`` of a term must hold."""
    if not terms:
        return True
    return any(
        term and all(labels.get(r.key) in r.values if r.key in labels else False for r in term) for term in terms
    )


def ephemeral_claim_error(pod: Pod, claim: PersistentVolumeClaim) -> Optional[str]:
    """ephemeral.VolumeIsForPod: a generic ephemeral volume's claim must be controlled by the pod
    (metav1.IsControlledBy compares the controller reference's uid); the error text, or None."""
    controller = next((ref for ref in claim.owner_references if ref.controller), None)
    if claim.namespace != pod.namespace or controller is None or controller.uid != pod.uid:
        return (
            f"PVC {claim.namespace}/{claim.name} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"
        )
    return None
