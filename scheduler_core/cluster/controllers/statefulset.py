"""The StatefulSet stand-in (pkg/controller/statefulset: the set's control loop, with
volumeClaimTemplates). Pods ``<set>-<ordinal>``; each claim ``<template>-<set>-<ordinal>`` is
created before its pod unless it exists (spec/CHANGES.md)."""

from __future__ import annotations

from typing import Any

from scheduler_core.cluster.controllers.pods import make_pod, pod_manifest
from scheduler_core.cluster.controllers.state import ClusterState, CreateClaim, CreatePod, DeletePod, Write, is_running
from scheduler_core.model import POLICY_PARALLEL, ControlledWorkload, PersistentVolumeClaim, Pod, StorageClass
from scheduler_core.scenario import manifests
from scheduler_core.scenario.storage import default_storage_class

LABEL_POD_NAME = "statefulset.kubernetes.io/pod-name"
LABEL_POD_INDEX = "apps.kubernetes.io/pod-index"


def reconcile(state: ClusterState, stateful_set: ControlledWorkload, classes: list[StorageClass]) -> list[Write]:
    """Missing ordinals below replicas are created in order (with OrderedReady, only once every
    lower ordinal runs, one at a time); ordinals at or above replicas are deleted, highest first
    (with OrderedReady one at a time, once nothing is terminating or unhealthy)."""
    pods = {pod.name: pod for pod in state.owned_pods(stateful_set)}
    ordered = stateful_set.pod_management_policy != POLICY_PARALLEL
    by = f"StatefulSet {stateful_set.key}"
    writes: list[Write] = []
    for ordinal in range(stateful_set.replicas):
        pod = pods.get(f"{stateful_set.name}-{ordinal}")
        if pod is None:
            writes.extend(CreateClaim(claim, by) for claim in _missing_claims(state, stateful_set, ordinal, classes))
            writes.append(CreatePod(_new_pod(state, stateful_set, ordinal), by))
            if ordered:
                return writes
        elif ordered and not is_running(pod):
            return writes  # OrderedReady: wait until it runs (or, terminating, is gone)
    condemned = sorted((pod for pod in pods.values() if _ordinal(stateful_set, pod) >= stateful_set.replicas),
                       key=lambda pod: _ordinal(stateful_set, pod), reverse=True)
    if ordered:
        if any(not is_running(pod) for pod in pods.values()):
            return writes
        condemned = condemned[:1]
    return writes + [DeletePod(pod, by) for pod in condemned if not pod.is_terminating]


def _ordinal(stateful_set: ControlledWorkload, pod: Pod) -> int:
    suffix = pod.name[len(stateful_set.name) + 1:]
    return int(suffix) if suffix.isdigit() else -1


def _new_pod(state: ClusterState, stateful_set: ControlledWorkload, ordinal: int) -> Pod:
    """newVersionedStatefulSetPod: the template, its identity labels, and a volume per claim
    template naming that ordinal's claim (updateStorage)."""
    name = f"{stateful_set.name}-{ordinal}"
    spec = dict(stateful_set.template.get("spec") or {})
    claim_volumes = [{"name": _template_name(t), "persistentVolumeClaim": {"claimName": _claim_name(t, stateful_set, ordinal)}}
                     for t in stateful_set.claim_templates]
    templated = {v["name"] for v in claim_volumes}
    spec["volumes"] = [v for v in (spec.get("volumes") or []) if v.get("name") not in templated] + claim_volumes
    labels = {LABEL_POD_NAME: name, LABEL_POD_INDEX: str(ordinal)}
    pod = make_pod(pod_manifest(stateful_set, name, labels, spec), state.pod_count, state.priority_classes,
                   stateful_set.line)
    state.add_pod(pod)
    state.created_ms[pod.key] = state.now_ms
    return pod


def _template_name(template: Any) -> str:
    return (template.get("metadata") or {}).get("name", "")


def _claim_name(template: Any, stateful_set: ControlledWorkload, ordinal: int) -> str:
    return f"{_template_name(template)}-{stateful_set.name}-{ordinal}"


def _missing_claims(state: ClusterState, stateful_set: ControlledWorkload, ordinal: int,
                    classes: list[StorageClass]) -> list[PersistentVolumeClaim]:
    """getPersistentVolumeClaims: the template's spec (its class, or the default class by the
    DefaultStorageClass admission), labels from the template and the set's selector."""
    claims = []
    selector_labels = dict(stateful_set.selector.match_labels) if stateful_set.selector else {}
    for template in stateful_set.claim_templates:
        name = _claim_name(template, stateful_set, ordinal)
        key = f"{stateful_set.namespace}/{name}"
        if key in state.claims:
            continue
        metadata = template.get("metadata") or {}
        manifest = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": name, "namespace": stateful_set.namespace,
                                 "labels": {**(metadata.get("labels") or {}), **selector_labels}},
                    "spec": template.get("spec") or {}}
        claim = manifests.decode_claim(manifest, len(state.claims), getattr(template, "line", stateful_set.line))
        claims.append(default_storage_class([claim], classes)[0])
        state.claims.add(key)
    return claims
