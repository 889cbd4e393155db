"""The Deployment stand-in (pkg/controller/deployment): the ReplicaSets of a Deployment, and its
rollouts.

Until a step changes a Deployment's pod template, the stand-in is ../shared/spec/CHANGES.md's: the current
ReplicaSet is the owned one with the highest revision and carries the Deployment's replicas (a
Deployment without one gets ``<deployment>-<hash>``). Once a step changed the template, the
Deployment is synced as the release syncs it (``rolloutRolling`` / ``rolloutRecreate``):
``getNewReplicaSet`` finds or creates the ReplicaSet of the new template (revision = the highest
old one + 1), then ``reconcileNewReplicaSet`` scales it up within ``maxSurge`` and
``reconcileOldReplicaSets`` (``cleanupUnhealthyReplicas``, then
``scaleDownOldReplicaSetsForRollingUpdate``) scales the old ones down within ``maxUnavailable``.
The kubelet stand-in makes a bound pod available at once (no readiness delay, no
``minReadySeconds``); the ReplicaSet stand-in chooses which pods go (``ranking.py``).

The controller scales ReplicaSets by setting their ``replicas``; the ReplicaSet stand-in then
writes the pods. The driver runs it to a fixed point before the ReplicaSets (the release syncs the
Deployment again on each ReplicaSet update, before that ReplicaSet's own sync writes pods).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Optional, Union

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.encoding.events import RolloutStatus
from scheduler_core.model import (
    KIND_DEPLOYMENT,
    KIND_REPLICA_SET,
    ControlledWorkload,
    LabelSelector,
)
from scheduler_core.scenario.changes import owner_reference
from scheduler_core.scenario.manifests import plain

POD_TEMPLATE_HASH = "pod-template-hash"
ANN_REVISION = "deployment.kubernetes.io/revision"
STRATEGY_ROLLING_UPDATE = "RollingUpdate"
STRATEGY_RECREATE = "Recreate"
DEFAULT_MAX_SURGE = "25%"  # apps/v1 defaulting (SetDefaults_Deployment)
DEFAULT_MAX_UNAVAILABLE = "25%"
MAX_SYNCS = 1000  # each sync scales something or the Deployment is settled
_PERCENT = re.compile(r"([0-9]+)%")

IntOrPercent = Union[int, str]


@dataclass(frozen=True, slots=True)
class Strategy:
    """spec.strategy after defaulting."""

    type: str = STRATEGY_ROLLING_UPDATE
    max_surge: IntOrPercent = DEFAULT_MAX_SURGE
    max_unavailable: IntOrPercent = DEFAULT_MAX_UNAVAILABLE


def strategy_of(deployment: ControlledWorkload) -> Strategy:
    """spec.strategy as the API server defaults it (the loader checked its values)."""
    spec = (deployment.manifest or {}).get("spec") or {}
    written = spec.get("strategy") or {}
    kind = written.get("type") or STRATEGY_ROLLING_UPDATE
    if kind == STRATEGY_RECREATE:
        return Strategy(STRATEGY_RECREATE, 0, 0)
    rolling = written.get("rollingUpdate") or {}
    surge = rolling.get("maxSurge")
    unavailable = rolling.get("maxUnavailable")
    return Strategy(STRATEGY_ROLLING_UPDATE, DEFAULT_MAX_SURGE if surge is None else surge,
                    DEFAULT_MAX_UNAVAILABLE if unavailable is None else unavailable)


def scaled_value(value: IntOrPercent, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an integer as it is; "N%" of ``total``, rounded up
    or down (ValueError for a string that is not a percentage)."""
    if isinstance(value, int):
        return value
    match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"invalid value for IntOrString: {value!r} is not a percentage")
    product = int(match.group(1)) * total
    return -(-product // 100) if round_up else product // 100


def resolve_fenceposts(strategy: Strategy, desired: int) -> tuple[int, int]:
    """deploymentutil.ResolveFenceposts: surge rounded up, unavailable rounded down; both 0
    makes unavailable 1."""
    surge = scaled_value(strategy.max_surge, desired, True)
    unavailable = scaled_value(strategy.max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(deployment: ControlledWorkload, strategy: Strategy) -> int:
    """deploymentutil.MaxUnavailable: 0 for Recreate or no replicas; never above the replicas."""
    if strategy.type != STRATEGY_ROLLING_UPDATE or deployment.replicas == 0:
        return 0
    return min(resolve_fenceposts(strategy, deployment.replicas)[1], deployment.replicas)


def owned_replica_sets(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    return [rs for rs in state.workloads if rs.kind == KIND_REPLICA_SET and rs.namespace == deployment.namespace
            and rs.owner is not None and rs.owner.kind == KIND_DEPLOYMENT and rs.owner.name == deployment.name
            and (not rs.owner.uid or rs.owner.uid == deployment.uid)]


def reconcile(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    """Sync the Deployment, writing its ReplicaSets through ``state``; returns those it created."""
    owned = owned_replica_sets(state, deployment)
    if not owned:
        return [state.create_workload(new_replica_set(deployment, state.now_ms), f"by Deployment {deployment.key}")]
    if deployment.key not in state.rolling:
        current = max(owned, key=lambda rs: rs.revision)  # max keeps the first of equal revisions
        _scale(state, deployment, current, deployment.replicas)
        return []
    created: list[ControlledWorkload] = []
    for _ in range(MAX_SYNCS):
        made, changed = _sync(state, deployment)
        created.extend(made)
        if not changed:
            return created
    raise RuntimeError(f"the Deployment stand-in did not settle for {deployment.key}")


def _sync(state: ClusterState, deployment: ControlledWorkload) -> tuple[list[ControlledWorkload], bool]:
    """One syncDeployment: (ReplicaSets created, whether anything was written)."""
    strategy = strategy_of(deployment)
    owned = owned_replica_sets(state, deployment)
    new = find_new_replica_set(owned, deployment)
    old = [rs for rs in owned if rs is not new]
    if strategy.type == STRATEGY_RECREATE:
        return _rollout_recreate(state, deployment, new, old)
    created: list[ControlledWorkload] = []
    if new is None:
        new = _create_new(state, deployment, old, new_rs_replicas(deployment, strategy, old, 0))
        created.append(new)
    elif _sync_revision(state, deployment, new, old):
        return created, True
    all_sets = [*old, new]
    if reconcile_new_replica_set(state, deployment, strategy, all_sets, new):
        return created, True
    active_old = [rs for rs in old if rs.replicas > 0]
    scaled_down = reconcile_old_replica_sets(state, deployment, strategy, all_sets, active_old, new)
    return created, bool(created) or scaled_down


def find_new_replica_set(owned: list[ControlledWorkload], deployment: ControlledWorkload) -> Optional[ControlledWorkload]:
    """FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's but for
    the pod-template-hash label (EqualIgnoreHash)."""
    wanted = _without_hash(deployment.template)
    for rs in sorted(owned, key=_creation_order):
        if _without_hash(rs.template) == wanted:
            return rs
    return None


def new_rs_replicas(deployment: ControlledWorkload, strategy: Strategy, all_sets: list[ControlledWorkload],
                    new_replicas: int) -> int:
    """deploymentutil.NewRSNewReplicas: Recreate wants every replica at once; RollingUpdate
    grows the new ReplicaSet until all ReplicaSets together reach replicas + maxSurge."""
    if strategy.type == STRATEGY_RECREATE:
        return deployment.replicas
    surge = scaled_value(strategy.max_surge, deployment.replicas, True)
    current = sum(rs.replicas for rs in all_sets)
    most = deployment.replicas + surge
    if current >= most:
        return new_replicas
    return new_replicas + min(most - current, deployment.replicas - new_replicas)


def reconcile_new_replica_set(state: ClusterState, deployment: ControlledWorkload, strategy: Strategy,
                              all_sets: list[ControlledWorkload], new: ControlledWorkload) -> bool:
    """reconcileNewReplicaSet: down to the replicas if above them, else up as far as the surge allows."""
    if new.replicas == deployment.replicas:
        return False
    wanted = deployment.replicas if new.replicas > deployment.replicas else \
        new_rs_replicas(deployment, strategy, all_sets, new.replicas)
    return _scale(state, deployment, new, wanted) is not None


def reconcile_old_replica_sets(state: ClusterState, deployment: ControlledWorkload, strategy: Strategy,
                               all_sets: list[ControlledWorkload], old: list[ControlledWorkload],
                               new: ControlledWorkload) -> bool:
    """reconcileOldReplicaSets: how far the old ReplicaSets may shrink without going below
    replicas - maxUnavailable available pods, counting the new ReplicaSet's unavailable pods
    against it; unhealthy old replicas go first."""
    if sum(rs.replicas for rs in old) == 0:
        return False
    least = deployment.replicas - max_unavailable(deployment, strategy)
    new_unavailable = new.replicas - available_replicas(state, new)
    room = sum(rs.replicas for rs in all_sets) - least - new_unavailable
    if room <= 0:
        return False
    cleaned, old = _cleanup_unhealthy_replicas(state, deployment, old, room)
    return cleaned + _scale_down_old_for_rolling_update(state, deployment, strategy, [*old, new], old) > 0


def _cleanup_unhealthy_replicas(state: ClusterState, deployment: ControlledWorkload, old: list[ControlledWorkload],
                                most: int) -> tuple[int, list[ControlledWorkload]]:
    """cleanupUnhealthyReplicas: oldest first, each old ReplicaSet loses up to its unavailable
    replicas, ``most`` in all. Returns the count and the old ReplicaSets as written (the release
    goes on with the objects its updates returned)."""
    total = 0
    written = list(old)
    for index in sorted(range(len(old)), key=lambda i: _creation_order(old[i])):
        if total >= most:
            break
        rs = old[index]
        unavailable = rs.replicas - available_replicas(state, rs)
        if rs.replicas == 0 or unavailable <= 0:
            continue
        count = min(most - total, unavailable)
        written[index] = _scale(state, deployment, rs, rs.replicas - count) or rs
        total += count
    return total, written


def _scale_down_old_for_rolling_update(state: ClusterState, deployment: ControlledWorkload, strategy: Strategy,
                                       all_sets: list[ControlledWorkload], old: list[ControlledWorkload]) -> int:
    """scaleDownOldReplicaSetsForRollingUpdate: the available pods above replicas -
    maxUnavailable come off the old ReplicaSets, oldest first."""
    least = deployment.replicas - max_unavailable(deployment, strategy)
    available = sum(available_replicas(state, rs) for rs in all_sets)
    if available <= least:
        return 0
    wanted = available - least
    total = 0
    for rs in sorted(old, key=_creation_order):
        if total >= wanted:
            break
        if rs.replicas == 0:
            continue
        count = min(rs.replicas, wanted - total)
        _scale(state, deployment, rs, rs.replicas - count)
        total += count
    return total


def _rollout_recreate(state: ClusterState, deployment: ControlledWorkload, new: Optional[ControlledWorkload],
                      old: list[ControlledWorkload]) -> tuple[list[ControlledWorkload], bool]:
    """rolloutRecreate: every old ReplicaSet to 0; once no old pod is left (terminating ones
    included: oldPodsRunning), the new ReplicaSet with every replica."""
    active_old = [rs for rs in old if rs.replicas > 0]
    if active_old:
        for rs in active_old:
            _scale(state, deployment, rs, 0)
        return [], True
    if any(not pod.is_finished for rs in old for pod in state.owned_pods(rs)):
        return [], False
    if new is None:
        return [_create_new(state, deployment, old, deployment.replicas)], True
    if _sync_revision(state, deployment, new, old):
        return [], True
    return [], _scale(state, deployment, new, deployment.replicas) is not None


def available_replicas(state: ClusterState, rs: ControlledWorkload) -> int:
    """status.availableReplicas: the ReplicaSet's active pods that are available (bound and not
    terminating: the kubelet stand-in makes them ready at once; minReadySeconds is 0)."""
    return sum(1 for pod in state.owned_pods(rs) if is_running(pod))


def _scale(state: ClusterState, deployment: ControlledWorkload, rs: ControlledWorkload,
           replicas: int) -> Optional[ControlledWorkload]:
    """The ReplicaSet's spec.replicas written; its new version, or None when it had them already."""
    if rs.replicas == replicas:
        return None
    return state.scale(rs, replicas, f"ReplicaSet replicas {rs.replicas} → {replicas} (Deployment {deployment.key})")


def _sync_revision(state: ClusterState, deployment: ControlledWorkload, new: ControlledWorkload,
                   old: list[ControlledWorkload]) -> bool:
    """getNewReplicaSet on an existing ReplicaSet: its revision becomes the highest (a rollback
    to an old template makes that ReplicaSet current again)."""
    highest = max((rs.revision for rs in old), default=0)
    if new.revision > highest:
        return False
    state.update_workload(replace(new, revision=highest + 1),
                          f"ReplicaSet revision {new.revision} → {highest + 1} (Deployment {deployment.key})")
    return True


def _create_new(state: ClusterState, deployment: ControlledWorkload, old: list[ControlledWorkload],
                replicas: int) -> ControlledWorkload:
    revision = max((rs.revision for rs in old), default=0) + 1
    made = new_replica_set(deployment, state.now_ms, revision=revision, replicas=replicas)
    return state.create_workload(made, f"by Deployment {deployment.key}")


def _creation_order(rs: ControlledWorkload) -> tuple[int, str]:
    """ReplicaSetsByCreationTimestamp: the scenario's first (older than the run), then by name."""
    return rs.created_ms, rs.name


def _without_hash(template: Any) -> Any:
    """The template as plain data without the pod-template-hash label, empty values dropped
    (the API's semantic equality treats a nil and an empty map or list alike)."""
    data = plain(template)
    labels = (data.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH, None)
    return _drop_empty(data)


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {key: _drop_empty(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in ({}, [], None)}
    if isinstance(value, list):
        return [_drop_empty(item) for item in value]
    return value


def template_hash(template: Any) -> str:
    """The first 10 characters of the lower-case hex SHA-256 of the pod template as canonical
    JSON (sorted keys, no spaces): ../shared/spec/CHANGES.md's fixed stand-in for ComputeHash."""
    canonical = json.dumps(plain(template), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]


def new_replica_set(deployment: ControlledWorkload, now_ms: int, revision: int = 1,
                    replicas: Optional[int] = None) -> ControlledWorkload:
    """``<deployment>-<hash>`` with the pod-template-hash label on itself, its selector and its
    pods' template, owned by the Deployment."""
    hash_ = template_hash(deployment.template)
    template = plain(deployment.template)
    metadata = template.setdefault("metadata", {})
    metadata["labels"] = {**(metadata.get("labels") or {}), POD_TEMPLATE_HASH: hash_}
    selector = deployment.selector or LabelSelector()
    selector = LabelSelector(tuple(sorted({**dict(selector.match_labels), POD_TEMPLATE_HASH: hash_}.items())),
                             selector.match_expressions)
    name = f"{deployment.name}-{hash_}"
    return ControlledWorkload(KIND_REPLICA_SET, deployment.namespace, name, f"uid-{deployment.namespace}-{name}",
                              selector, template, deployment.replicas if replicas is None else replicas,
                              labels={**metadata["labels"]}, owner=owner_reference(deployment), revision=revision,
                              created_ms=now_ms, line=deployment.line)


def rollout_status(state: ClusterState, deployment: ControlledWorkload) -> RolloutStatus:
    """The Deployment's status as syncRolloutStatus computes it (updatedReplicas, replicas,
    availableReplicas over its ReplicaSets; DeploymentComplete), with the pods behind it."""
    owned = owned_replica_sets(state, deployment)
    new = find_new_replica_set(owned, deployment)
    old = [rs for rs in owned if rs is not new]
    new_pods = [pod for pod in state.owned_pods(new) if not pod.is_terminating] if new is not None else []
    active = sum(1 for rs in owned for pod in state.owned_pods(rs) if not pod.is_terminating)
    available = sum(available_replicas(state, rs) for rs in owned)
    old_pods = sorted(pod.key for rs in old for pod in state.owned_pods(rs))
    desired = deployment.replicas
    complete = len(new_pods) == desired and active == desired and available == desired
    return RolloutStatus(KIND_DEPLOYMENT, deployment.key, new.revision if new is not None else 0,
                         new.key if new is not None else "",
                         strategy_of(deployment).type, desired, len(new_pods), active, available, old_pods, complete,
                         [pod.key for pod in new_pods if not pod.node_name])
