"""The StatefulSet stand-in (pkg/controller/statefulset: the set's control loop, with
volumeClaimTemplates). Pods ``<set>-<ordinal>``; each claim ``<template>-<set>-<ordinal>`` is
created before its pod unless it exists (../shared/spec/CHANGES.md).

Template changes (updateStatefulSet): the set has a current revision (status.currentRevision: the
template as loaded, until a RollingUpdate completes) and an update revision (the template now),
each named ``<set>-<hash>`` with deployment.py's hash. A missing pod is created at the current
revision below a RollingUpdate's partition and at the update revision otherwise
(newVersionedStatefulSetPod; OnDelete: always the update revision). Once every replica exists (and,
with OrderedReady, runs and is available), RollingUpdate walks the ordinals from the highest down
to the partition: the first pod of another revision not terminating is deleted, one per sync, and
an unhealthy pod on the way stops the walk (updateStatefulSet as v1.35 runs it: the
MaxUnavailableStatefulSet gate is beta and off by default, so spec.updateStrategy.rollingUpdate.
maxUnavailable is dropped by the API server and never read); OnDelete deletes nothing. With
OrderedReady, ordinal n+1 waits for n to be running, ready and available (minReadySeconds,
isRunningAndAvailable). The scenario's own pods of a set are taken as at its current revision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.cluster.controllers.availability import is_available
from scheduler_core.cluster.controllers.pods import make_pod, pod_manifest
from scheduler_core.cluster.controllers.revisions import (
    Revisions,
    complete,
    made_at,
    pod_revision,
    revisions,
)
from scheduler_core.cluster.controllers.state import (
    ClusterState,
    CreateClaim,
    CreatePod,
    DeletePod,
    Write,
    is_running,
)
from scheduler_core.encoding.events import RolloutStatus
from scheduler_core.model import (
    KIND_STATEFUL_SET,
    POLICY_PARALLEL,
    ControlledWorkload,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
)
from scheduler_core.scenario import manifests
from scheduler_core.scenario.storage import default_storage_class

LABEL_POD_NAME = "statefulset.kubernetes.io/pod-name"
LABEL_POD_INDEX = "apps.kubernetes.io/pod-index"
STRATEGY_ROLLING_UPDATE = "RollingUpdate"
STRATEGY_ON_DELETE = "OnDelete"


@dataclass(frozen=True, slots=True)
class UpdateStrategy:
    """spec.updateStrategy after defaulting (RollingUpdate, partition 0)."""

    type: str = STRATEGY_ROLLING_UPDATE
    partition: int = 0


def update_strategy(stateful_set: ControlledWorkload) -> UpdateStrategy:
    written = ((stateful_set.manifest or {}).get("spec") or {}).get("updateStrategy") or {}
    if (written.get("type") or STRATEGY_ROLLING_UPDATE) == STRATEGY_ON_DELETE:
        return UpdateStrategy(STRATEGY_ON_DELETE, 0)
    rolling = written.get("rollingUpdate") or {}
    return UpdateStrategy(STRATEGY_ROLLING_UPDATE, int(rolling.get("partition") or 0))


def reconcile(state: ClusterState, stateful_set: ControlledWorkload, classes: list[StorageClass]) -> list[Write]:
    """Missing ordinals below replicas are created in order (with OrderedReady, only once every
    lower ordinal runs, one at a time); ordinals at or above replicas are deleted, highest first
    (with OrderedReady one at a time, once nothing is terminating or unhealthy)."""
    pods = {pod.name: pod for pod in state.owned_pods(stateful_set)}
    revs = revisions(state, stateful_set)
    strategy = update_strategy(stateful_set)
    _complete_rolling_update(state, stateful_set, strategy, pods, revs)
    ordered = stateful_set.pod_management_policy != POLICY_PARALLEL
    by = f"StatefulSet {stateful_set.key}"
    writes: list[Write] = []
    for ordinal in range(stateful_set.replicas):
        pod = pods.get(f"{stateful_set.name}-{ordinal}")
        if pod is None:
            writes.extend(CreateClaim(claim, by) for claim in _missing_claims(state, stateful_set, ordinal, classes))
            writes.append(
                CreatePod(
                    _new_pod(state, stateful_set, ordinal, _revision_for(strategy, revs, ordinal, stateful_set)), by
                )
            )
            if ordered:
                return writes
        elif ordered and not is_available(state, pod, stateful_set.min_ready_seconds):
            return writes  # OrderedReady: wait until it runs and is available (or, terminating, is gone)
    condemned = sorted(
        (pod for pod in pods.values() if _ordinal(stateful_set, pod) >= stateful_set.replicas),
        key=lambda pod: _ordinal(stateful_set, pod),
        reverse=True,
    )
    if ordered:
        if any(not is_available(state, pod, stateful_set.min_ready_seconds) for pod in pods.values()):
            return writes
        condemned = condemned[:1]
    writes += [DeletePod(pod, by) for pod in condemned if not pod.is_terminating]
    if writes or condemned:
        return writes
    return _update(state, stateful_set, strategy, pods, revs, by)


def _revision_for(
    strategy: UpdateStrategy, revs: Revisions, ordinal: int, stateful_set: ControlledWorkload
) -> tuple[str, Any]:
    """newVersionedStatefulSetPod: the current revision below a RollingUpdate's partition, the
    update revision otherwise (OnDelete included)."""
    if strategy.type == STRATEGY_ROLLING_UPDATE and ordinal < strategy.partition:
        return revs.current_hash, revs.current_template
    return revs.latest_hash, stateful_set.template


def _complete_rolling_update(
    state: ClusterState,
    stateful_set: ControlledWorkload,
    strategy: UpdateStrategy,
    pods: dict[str, Pod],
    revs: Revisions,
) -> None:
    """completeRollingUpdate: every replica updated and ready makes the update revision current."""
    if strategy.type != STRATEGY_ROLLING_UPDATE or not revs.updating:
        return
    live = [pod for pod in pods.values() if not pod.is_terminating]
    if (
        len(pods) == stateful_set.replicas
        and len(live) == len(pods)
        and all(is_running(pod) and pod_revision(state, pod) == revs.latest_hash for pod in live)
    ):
        complete(revs, stateful_set)


def _update(
    state: ClusterState,
    stateful_set: ControlledWorkload,
    strategy: UpdateStrategy,
    pods: dict[str, Pod],
    revs: Revisions,
    by: str,
) -> list[Write]:
    """updateStatefulSet's destructive update (MaxUnavailableStatefulSet off): from the highest
    ordinal down to the partition, the first pod of another revision not terminating is deleted
    (the next sync makes it again at the update revision); an unhealthy pod met first (not
    running and ready, or terminating) is waited for."""
    if strategy.type != STRATEGY_ROLLING_UPDATE:
        return []
    replicas = [pods.get(f"{stateful_set.name}-{ordinal}") for ordinal in range(stateful_set.replicas)]
    for ordinal in range(stateful_set.replicas - 1, strategy.partition - 1, -1):
        pod = replicas[ordinal]
        if pod is None:
            return []
        if pod_revision(state, pod) != revs.latest_hash and not pod.is_terminating:
            return [DeletePod(pod, by)]
        if not is_running(pod):
            return []
    return []


def rollout_status(state: ClusterState, stateful_set: ControlledWorkload) -> RolloutStatus:
    """computeReplicaStatus's counts (readyReplicas as available) for the rollout report; complete
    as kubectl rollout status has it (every pod ready, the pods from the partition up updated)."""
    revs = revisions(state, stateful_set)
    strategy = update_strategy(stateful_set)
    pods = state.owned_pods(stateful_set)
    live = [pod for pod in pods if not pod.is_terminating]
    updated = [pod for pod in live if pod_revision(state, pod) == revs.latest_hash]
    ready = sum(1 for pod in pods if is_running(pod))
    wanted = stateful_set.replicas - strategy.partition
    complete = (
        ready >= stateful_set.replicas and len(updated) >= wanted
        if strategy.type == STRATEGY_ROLLING_UPDATE
        else len(updated) == stateful_set.replicas
    )
    return RolloutStatus(
        KIND_STATEFUL_SET,
        stateful_set.key,
        revs.number,
        f"{stateful_set.key}-{revs.latest_hash}",
        strategy.type,
        stateful_set.replicas,
        len(updated),
        len(pods),
        ready,
        sorted(pod.key for pod in pods if pod_revision(state, pod) != revs.latest_hash),
        complete,
        [pod.key for pod in updated if not pod.node_name],
        strategy.partition if strategy.type == STRATEGY_ROLLING_UPDATE else None,
    )


def _ordinal(stateful_set: ControlledWorkload, pod: Pod) -> int:
    suffix = pod.name[len(stateful_set.name) + 1 :]
    return int(suffix) if suffix.isdigit() else -1


def _new_pod(state: ClusterState, stateful_set: ControlledWorkload, ordinal: int, revision: tuple[str, Any]) -> Pod:
    """newVersionedStatefulSetPod: the revision's template, its identity labels, and a volume per
    claim template naming that ordinal's claim (updateStorage)."""
    name = f"{stateful_set.name}-{ordinal}"
    revision_hash, template = revision
    spec = dict(template.get("spec") or {})
    claim_volumes = [
        {"name": _template_name(t), "persistentVolumeClaim": {"claimName": _claim_name(t, stateful_set, ordinal)}}
        for t in stateful_set.claim_templates
    ]
    templated = {v["name"] for v in claim_volumes}
    spec["volumes"] = [v for v in (spec.get("volumes") or []) if v.get("name") not in templated] + claim_volumes
    labels = {LABEL_POD_NAME: name, LABEL_POD_INDEX: str(ordinal)}
    pod = make_pod(
        pod_manifest(stateful_set, name, labels, spec, template),
        state.pod_count,
        state.priority_classes,
        stateful_set.line,
        state.gates,
    )
    state.add_pod(pod)
    state.created_ms[pod.key] = state.now_ms
    made_at(state, pod, revision_hash)
    return pod


def _template_name(template: Any) -> str:
    name: str = (template.get("metadata") or {}).get("name", "")  # untyped: the manifest's YAML
    return name


def _claim_name(template: Any, stateful_set: ControlledWorkload, ordinal: int) -> str:
    return f"{_template_name(template)}-{stateful_set.name}-{ordinal}"


def _missing_claims(
    state: ClusterState, stateful_set: ControlledWorkload, ordinal: int, classes: list[StorageClass]
) -> list[PersistentVolumeClaim]:
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
        manifest = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": name,
                "namespace": stateful_set.namespace,
                "labels": {**(metadata.get("labels") or {}), **selector_labels},
            },
            "spec": template.get("spec") or {},
        }
        claim = manifests.decode_claim(manifest, len(state.claims), getattr(template, "line", stateful_set.line))
        claims.append(default_storage_class([claim], classes)[0])
        state.claims.add(key)
    return claims
