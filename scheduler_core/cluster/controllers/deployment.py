"""The Deployment stand-in (pkg/controller/deployment of v1.35): the ReplicaSets of a Deployment,
and its rollouts.

Until a step changes a Deployment's pod template, the stand-in is ../shared/spec/CHANGES.md's: the
current ReplicaSet is the owned one with the highest revision and carries the Deployment's replicas
(a Deployment without one gets ``<deployment>-<hash>``). Once a step changed the template, each
sync is the release's ``syncDeployment``: a paused Deployment, or one whose replicas changed (a
scaling event), only ``sync``s (proportional ``scale``, and for a paused one ``cleanupDeployment``);
otherwise ``rolloutRolling`` / ``rolloutRecreate``. ``getNewReplicaSet`` finds or creates the
ReplicaSet of the new template (revision = the highest old one + 1), ``reconcileNewReplicaSet``
scales it up within ``maxSurge``, ``reconcileOldReplicaSets`` (``cleanupUnhealthyReplicas``,
then ``scaleDownOldReplicaSetsForRollingUpdate``) scales the old ones down within
``maxUnavailable``; once the rollout is complete, ``cleanupDeployment`` deletes old ReplicaSets
beyond ``revisionHistoryLimit``; ``syncRolloutStatus`` keeps the Progressing condition and its
deadline. A pod is available ``minReadySeconds`` after it became ready (availability.py); the
ReplicaSet stand-in chooses which pods go (``ranking.py``).

The controller scales ReplicaSets by writing their ``replicas`` (with the desired-replicas and
max-replicas annotations, as ``scaleReplicaSet`` writes them); the ReplicaSet stand-in then
writes the pods. The driver runs it to a fixed point before the ReplicaSets (the release syncs the
Deployment again on each ReplicaSet update, before that ReplicaSet's own sync writes pods).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable, Iterable, Optional

from scheduler_core.cluster.controllers import deployment_util as util
from scheduler_core.cluster.controllers.availability import is_available
from scheduler_core.cluster.controllers.deployment_util import (
    POD_TEMPLATE_HASH,
    STRATEGY_RECREATE,
    Condition,
    DeploymentStatus,
    Strategy,
    scaled_value,
    strategy_of,
)
from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.encoding.events import ProgressDeadline, RolloutStatus
from scheduler_core.model import (
    KIND_DEPLOYMENT,
    KIND_REPLICA_SET,
    PHASE_FAILED,
    PHASE_SUCCEEDED,
    ControlledWorkload,
    LabelSelector,
    Pod,
)
from scheduler_core.scenario.changes import owner_reference
from scheduler_core.scenario.manifests import parse_time, plain

__all__ = [
    "POD_TEMPLATE_HASH",
    "Strategy",
    "scaled_value",
    "strategy_of",
    "reconcile",
    "rollout_status",
    "owned_replica_sets",
    "template_hash",
    "new_replica_set",
]

MAX_SYNCS = 1000  # each sync scales something or the Deployment is settled
Available = Callable[[ControlledWorkload], int]  # a ReplicaSet's status.availableReplicas


@dataclass(frozen=True, slots=True)
class ScaleWrite:
    """A ReplicaSet's replicas written with the Deployment's replica annotations.
    ``scaleReplicaSetAndRecordEvent`` writes only a new size; ``scaleReplicaSet`` (proportional
    scaling) also writes when only the annotations are stale (``always``)."""

    replica_set: ControlledWorkload
    replicas: int
    always: bool = False


# ------------------------------------------------------------------ the plans (pure, as the release computes them)


def plan_new_replica_set(
    replicas: int, strategy: Strategy, all_sets: list[ControlledWorkload], new: ControlledWorkload
) -> Optional[int]:
    """reconcileNewReplicaSet: down to the replicas if above them, else up as far as the surge
    allows; None when it keeps its size."""
    if new.replicas == replicas:
        return None
    wanted = replicas if new.replicas > replicas else util.new_rs_replicas(replicas, strategy, all_sets, new.replicas)
    return None if wanted == new.replicas else wanted


def plan_cleanup_unhealthy(
    old: list[ControlledWorkload], available: Available, most: int
) -> tuple[list[tuple[int, int]], bool]:
    """cleanupUnhealthyReplicas: oldest first, each old ReplicaSet loses up to its unavailable
    replicas, ``most`` in all: (position in ``old``, new size) for each one scaled, and whether it
    ended in the release's error — a ReplicaSet with more available pods than its size (its status
    not caught up with a scale-down) would be scaled *up*: the writes before it stand, nothing after."""
    scaled: list[tuple[int, int]] = []
    total = 0
    for index in sorted(range(len(old)), key=lambda i: util.creation_order(old[i])):
        if total >= most:
            break
        rs = old[index]
        if rs.replicas == 0 or rs.replicas == available(rs):
            continue
        count = min(most - total, rs.replicas - available(rs))
        if count < 0:  # "got invalid request to scale down"
            return scaled, True
        scaled.append((index, rs.replicas - count))
        total += count
    return scaled, False


def plan_scale_down_old(
    replicas: int,
    strategy: Strategy,
    all_sets: list[ControlledWorkload],
    old: list[ControlledWorkload],
    available: Available,
) -> list[ScaleWrite]:
    """scaleDownOldReplicaSetsForRollingUpdate: the available pods above replicas -
    maxUnavailable come off the old ReplicaSets, oldest first."""
    least = util.min_available(replicas, strategy)
    wanted = sum(available(rs) for rs in all_sets) - least
    writes: list[ScaleWrite] = []
    total = 0
    for rs in sorted(old, key=util.creation_order):
        if total >= wanted:
            break
        if rs.replicas == 0:
            continue
        count = min(rs.replicas, wanted - total)
        writes.append(ScaleWrite(rs, rs.replicas - count))
        total += count
    return writes


def plan_old_replica_sets(
    replicas: int,
    strategy: Strategy,
    all_sets: list[ControlledWorkload],
    old: list[ControlledWorkload],
    new: ControlledWorkload,
    available: Available,
) -> list[ScaleWrite]:
    """reconcileOldReplicaSets: how far the old ReplicaSets may shrink without going below
    replicas - maxUnavailable available pods, counting the new ReplicaSet's unavailable pods
    against it; unhealthy old replicas go first, then available ones."""
    if sum(rs.replicas for rs in old) == 0:
        return []
    least = util.min_available(replicas, strategy)
    room = sum(rs.replicas for rs in all_sets) - least - (new.replicas - available(new))
    if room <= 0:
        return []
    cleaned, failed = plan_cleanup_unhealthy(old, available, room)
    writes = [ScaleWrite(old[index], size) for index, size in cleaned]
    if failed:  # reconcileOldReplicaSets returns (false, nil): no scale-down this sync
        return writes
    after = list(old)
    for index, size in cleaned:  # the release goes on with the objects its updates returned
        after[index] = replace(old[index], replicas=size)
    scaled_down = plan_scale_down_old(replicas, strategy, [*after, new], after, available)
    return writes + [
        ScaleWrite(next(rs for rs in old if rs.name == w.replica_set.name), w.replicas) for w in scaled_down
    ]


def plan_scale(
    replicas: int,
    strategy: Strategy,
    status_replicas: int,
    new: Optional[ControlledWorkload],
    old: list[ControlledWorkload],
    available: Available,
) -> list[ScaleWrite]:
    """scale (sync.go): a single active ReplicaSet (or, with none, the new one or the newest old
    one) takes every replica; a saturated new one leaves the old ones none; otherwise, with
    RollingUpdate, the replicas added or removed (up to replicas + maxSurge) are shared in
    proportion to each active ReplicaSet's size (GetProportion), the largest first (newer first
    when scaling up, older first when scaling down), the leftover to the first."""
    active_or_latest = util.find_active_or_latest(new, old)
    if active_or_latest is not None:
        return [] if active_or_latest.replicas == replicas else [ScaleWrite(active_or_latest, replicas)]
    # FindActiveOrLatest sorted the caller's old ReplicaSets in place, newest first: the writes
    # below walk them in that order (the saturated case, and the proportional one with nothing
    # to add or remove, which sorts nothing itself).
    old = sorted(old, key=util.creation_order, reverse=True)
    if new is not None and util.is_saturated(replicas, new, available(new)):
        return [ScaleWrite(rs, 0) for rs in util.filter_active(old)]
    if strategy.type != util.STRATEGY_ROLLING_UPDATE:
        return []
    active = util.filter_active([*old, new])
    allowed = replicas + util.max_surge(replicas, strategy) if replicas > 0 else 0
    to_add = allowed - sum(rs.replicas for rs in active)
    ordered = util.by_size_newer(active) if to_add > 0 else util.by_size_older(active) if to_add < 0 else active
    sizes, added = [], 0
    for rs in ordered:
        proportion = util.get_proportion(rs, replicas, strategy, status_replicas, to_add, added)
        sizes.append(rs.replicas + proportion)
        added += proportion
    if ordered and to_add != 0:
        sizes[0] = max(sizes[0] + to_add - added, 0)
    return [ScaleWrite(rs, size, always=True) for rs, size in zip(ordered, sizes)]


def plan_recreate_scale_down(old: list[ControlledWorkload]) -> list[ScaleWrite]:
    """scaleDownOldReplicaSetsForRecreate: every active old ReplicaSet to 0."""
    return [ScaleWrite(rs, 0) for rs in util.filter_active(old)]


def old_pods_running(status_replicas: Iterable[int], phases: Iterable[str]) -> bool:
    """oldPodsRunning: an old ReplicaSet that counts pods (status.replicas), or any pod of an old
    one not Failed or Succeeded (terminating ones included: their phase is still Running)."""
    return sum(status_replicas) > 0 or any(phase not in (PHASE_FAILED, PHASE_SUCCEEDED) for phase in phases)


def plan_cleanup(
    limit: Optional[int],
    old: list[ControlledWorkload],
    status_replicas: Callable[[ControlledWorkload], int],
    observed: Callable[[ControlledWorkload], bool],
) -> list[ControlledWorkload]:
    """cleanupDeployment: beyond revisionHistoryLimit, the old ReplicaSets with the lowest
    revisions go, each only once it wants and has no pod and its controller saw its last spec."""
    if limit is None:
        return []
    surplus = len(old) - limit
    if surplus <= 0:
        return []
    return [
        rs for rs in util.by_revision(old)[:surplus] if status_replicas(rs) == 0 and rs.replicas == 0 and observed(rs)
    ]


@dataclass(frozen=True, slots=True)
class SetCounts:
    """What calculateStatus reads of a ReplicaSet: spec.replicas and status.replicas,
    readyReplicas, availableReplicas."""

    spec: int
    replicas: int
    ready: int
    available: int


def calculate_status(
    replicas: int,
    strategy: Strategy,
    before: DeploymentStatus,
    sets: list[SetCounts],
    new: Optional[SetCounts],
    now_ms: int,
) -> DeploymentStatus:
    """calculateStatus: the counts over every ReplicaSet (updated: the new one's), the conditions
    carried over, and Available by whether at least replicas - maxUnavailable are."""
    available = sum(c.available for c in sets)
    status = replace(
        before,
        replicas=sum(c.replicas for c in sets),
        updated=new.replicas if new else 0,
        ready=sum(c.ready for c in sets),
        available=available,
        unavailable=max(sum(c.spec for c in sets) - available, 0),
    )
    if available >= replicas - util.max_unavailable(replicas, strategy):
        condition = util.new_condition(
            util.AVAILABLE, util.TRUE, util.REASON_MIN_AVAILABLE, "Deployment has minimum availability.", now_ms
        )
    else:
        condition = util.new_condition(
            util.AVAILABLE,
            util.FALSE,
            util.REASON_MIN_UNAVAILABLE,
            "Deployment does not have minimum availability.",
            now_ms,
        )
    return util.set_condition(status, condition)


def rollout_conditions(
    replicas: int,
    deadline: Optional[int],
    before: DeploymentStatus,
    status: DeploymentStatus,
    new_name: Optional[str],
    now_ms: int,
) -> DeploymentStatus:
    """syncRolloutStatus: without a deadline no Progressing condition; with one, unless the
    rollout finished already (NewReplicaSetAvailable with every replica updated), complete
    (NewReplicaSetAvailable), progressing (ReplicaSetUpdated, its lastUpdateTime now, its
    lastTransitionTime kept while it was True) or timed out (ProgressDeadlineExceeded)."""
    if deadline is None:
        return util.remove_condition(status, util.PROGRESSING)
    current = util.get_condition(before, util.PROGRESSING)
    if status.replicas == status.updated and current is not None and current.reason == util.REASON_NEW_RS_AVAILABLE:
        return status
    what = f'ReplicaSet "{new_name}"' if new_name is not None else "Deployment"
    if util.deployment_complete(replicas, status):
        return util.set_condition(
            status,
            util.new_condition(
                util.PROGRESSING,
                util.TRUE,
                util.REASON_NEW_RS_AVAILABLE,
                f"{what} has successfully progressed.",
                now_ms,
            ),
        )
    if util.deployment_progressing(before, status):
        condition = util.new_condition(
            util.PROGRESSING, util.TRUE, util.REASON_RS_UPDATED, f"{what} is progressing.", now_ms
        )
        if current is not None:
            if current.status == util.TRUE:
                condition = replace(condition, last_transition_ms=current.last_transition_ms)
            status = util.remove_condition(status, util.PROGRESSING)
        return util.set_condition(status, condition)
    if util.deployment_timed_out(deadline, status, now_ms):
        # The release marks it at its requeue after the deadline (requeueStuckDeployment): the
        # condition records when the deadline passed.
        passed = util.deadline_passes_ms(current, deadline) if current is not None else now_ms
        return util.set_condition(
            status,
            util.new_condition(
                util.PROGRESSING, util.FALSE, util.REASON_TIMED_OUT, f"{what} has timed out progressing.", passed
            ),
        )
    return status


# ------------------------------------------------------------------ the controller


def owned_replica_sets(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    return [
        rs
        for rs in state.workloads
        if rs.kind == KIND_REPLICA_SET
        and rs.namespace == deployment.namespace
        and rs.owner is not None
        and rs.owner.kind == KIND_DEPLOYMENT
        and rs.owner.name == deployment.name
        and (not rs.owner.uid or rs.owner.uid == deployment.uid)
    ]


def reconcile(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    """Sync the Deployment, writing its ReplicaSets through ``state``; returns those it created."""
    owned = owned_replica_sets(state, deployment)
    if not owned:
        return [state.create_workload(new_replica_set(deployment, state.now_ms), f"by Deployment {deployment.key}")]
    if deployment.key not in state.rolling:
        current = max(owned, key=lambda rs: rs.revision)  # max keeps the first of equal revisions
        _scale(state, deployment, ScaleWrite(current, deployment.replicas))
        return []
    created: list[ControlledWorkload] = []
    # What each ReplicaSet's status counts (its pods), taken once: the syncs to a fixed point write
    # ReplicaSets, never pods, and a ReplicaSet's selector does not change when it is scaled.
    pod_counts: dict[str, PodCounts] = {}
    for _ in range(MAX_SYNCS):
        sync = _Sync(state, deployment, pod_counts)
        made, changed = sync.run()
        created.extend(made)
        if not changed and not sync.status_written:
            return created
    raise RuntimeError(f"the Deployment stand-in did not settle for {deployment.key}")


class _Sync:
    """One syncDeployment of a Deployment under rollout."""

    def __init__(
        self, state: ClusterState, deployment: ControlledWorkload, pod_counts: Optional[dict[str, PodCounts]] = None
    ) -> None:
        self.state = state
        self.pod_counts = {} if pod_counts is None else pod_counts
        self.deployment = deployment
        self.strategy = strategy_of(deployment)
        self.owned = owned_replica_sets(state, deployment)
        self.new = find_new_replica_set(self.owned, deployment)
        self.old = [rs for rs in self.owned if rs is not self.new]
        self.created: list[ControlledWorkload] = []
        self.status_written = False  # an UpdateStatus: the Deployment's own update event syncs it again

    def pods_of(self, rs: ControlledWorkload) -> PodCounts:
        counts = self.pod_counts.get(rs.key)
        if counts is None:
            counts = self.pod_counts[rs.key] = pod_counts(self.state, rs)
        return counts

    def available(self, rs: ControlledWorkload) -> int:
        return self.pods_of(rs).available

    def run(self) -> tuple[list[ControlledWorkload], bool]:
        """(ReplicaSets created, whether anything was written)."""
        self._check_paused_conditions()
        if util.is_paused(self.deployment) or self._is_scaling_event():
            return [], self._sync_scale()
        if self.strategy.type == STRATEGY_RECREATE:
            return self.created, self._rollout_recreate()
        return self.created, self._rollout_rolling()

    # ---------------------------------------------------------------- sync (paused, or scaled)

    def _is_scaling_event(self) -> bool:
        """isScalingEvent: an active ReplicaSet's desired-replicas is not the Deployment's replicas."""
        for rs in util.filter_active([*self.old, self.new]):
            desired, valid, _ = util.non_negative_int32_annotation(rs.annotations, util.ANN_DESIRED_REPLICAS)
            if valid and desired != self.deployment.replicas:
                return True
        return False

    def _sync_scale(self) -> bool:
        """sync: the existing new ReplicaSet's revision, proportional scaling, and for a paused
        Deployment cleanupDeployment; the status without progress estimation."""
        if self.new is not None and self._sync_new_replica_set():
            return True
        status = deployment_status(self.state, self.deployment)
        writes = plan_scale(
            self.deployment.replicas, self.strategy, status.replicas, self.new, self.old, self.available
        )
        wrote = sum(1 for write in writes if _scale(self.state, self.deployment, write) is not None) > 0
        if not wrote and util.is_paused(self.deployment):
            wrote = self._cleanup()
        self._store(self._calculate_status())
        return wrote

    def _check_paused_conditions(self) -> None:
        """checkPausedConditions: Progressing Unknown while paused (DeploymentPaused) and once
        resumed (DeploymentResumed: the deadline counts from then); a timed-out rollout keeps its
        condition."""
        if util.progress_deadline_seconds(self.deployment) is None:
            return
        status = deployment_status(self.state, self.deployment)
        condition = util.get_condition(status, util.PROGRESSING)
        if condition is not None and condition.reason == util.REASON_TIMED_OUT:
            return
        paused_before = condition is not None and condition.reason == util.REASON_PAUSED
        paused = util.is_paused(self.deployment)
        if paused and not paused_before:
            self._set_progressing(util.UNKNOWN, util.REASON_PAUSED, "Deployment is paused")
        elif not paused and paused_before:
            self._set_progressing(util.UNKNOWN, util.REASON_RESUMED, "Deployment is resumed")

    # ---------------------------------------------------------------- rollouts

    def _rollout_rolling(self) -> bool:
        """rolloutRolling."""
        if self._get_new_replica_set(create=True):
            return True
        new = self.new
        assert new is not None
        all_sets = [*self.old, new]
        wanted = plan_new_replica_set(self.deployment.replicas, self.strategy, all_sets, new)
        if wanted is not None:
            _scale(self.state, self.deployment, ScaleWrite(new, wanted))
            return self._sync_rollout_status(changed=True)
        writes = plan_old_replica_sets(
            self.deployment.replicas, self.strategy, all_sets, util.filter_active(self.old), new, self.available
        )
        if writes:
            for write in writes:
                _scale(self.state, self.deployment, write)
            return self._sync_rollout_status(changed=True)
        cleaned = self._complete() and self._cleanup()
        return self._sync_rollout_status(changed=cleaned)

    def _rollout_recreate(self) -> bool:
        """rolloutRecreate: every old ReplicaSet to 0; once no old pod is left (terminating ones
        included: oldPodsRunning), the new ReplicaSet with every replica."""
        if self.new is not None and self._sync_new_replica_set():
            return True
        scale_downs = plan_recreate_scale_down(self.old)
        if scale_downs:
            for write in scale_downs:
                _scale(self.state, self.deployment, write)
            return self._sync_rollout_status(changed=True)
        pods = [pod for rs in self.old for pod in self.state.owned_pods(rs)]
        if old_pods_running([self.pods_of(rs).active for rs in self.old], [_phase(pod) for pod in pods]):
            return self._sync_rollout_status(changed=False)
        if self.new is None:
            self._get_new_replica_set(create=True)
            return True
        wrote = _scale(self.state, self.deployment, ScaleWrite(self.new, self.deployment.replicas)) is not None
        if not wrote and self._complete():
            wrote = self._cleanup()
        return self._sync_rollout_status(changed=wrote)

    def _get_new_replica_set(self, create: bool) -> bool:
        """getNewReplicaSet: the existing new ReplicaSet's revision and minReadySeconds brought
        up to date, or (``create``) a new one; whether it wrote."""
        if self.new is not None:
            return self._sync_new_replica_set()
        if not create:
            return False
        replicas = util.new_rs_replicas(self.deployment.replicas, self.strategy, self.old, 0)
        made = _create_new(self.state, self.deployment, self.old, replicas)
        self.created.append(made)
        if util.progress_deadline_seconds(self.deployment) is not None:
            self._set_progressing(util.TRUE, util.REASON_NEW_RS, f'Created new replica set "{made.name}"')
        return True

    def _sync_new_replica_set(self) -> bool:
        """The existing new ReplicaSet: its revision becomes the highest (a rollback to an old
        template makes that ReplicaSet current again) and its minReadySeconds the Deployment's;
        with a deadline and no Progressing condition yet, FoundNewReplicaSet."""
        new = self.new
        assert new is not None
        highest = max((rs.revision for rs in self.old), default=0)
        revision = max(new.revision, highest + 1)
        min_ready = self.deployment.min_ready_seconds
        if revision != new.revision or min_ready != new.min_ready_seconds:
            detail = (
                f"ReplicaSet revision {new.revision} → {revision} (Deployment {self.deployment.key})"
                if revision != new.revision
                else f"ReplicaSet minReadySeconds → {min_ready} (Deployment {self.deployment.key})"
            )
            self.state.update_workload(replace(new, revision=revision, min_ready_seconds=min_ready), detail)
            return True
        status = deployment_status(self.state, self.deployment)
        if (
            util.progress_deadline_seconds(self.deployment) is not None
            and util.get_condition(status, util.PROGRESSING) is None
        ):
            self._set_progressing(util.TRUE, util.REASON_FOUND_NEW_RS, f'Found new replica set "{new.name}"')
        return False

    def _complete(self) -> bool:
        """DeploymentComplete on the status the Deployment carries (the previous sync's)."""
        return util.deployment_complete(self.deployment.replicas, deployment_status(self.state, self.deployment))

    def _cleanup(self) -> bool:
        """cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit deleted, oldest revision
        first; whether any was."""
        doomed = plan_cleanup(
            util.revision_history_limit(self.deployment),
            self.old,
            lambda rs: self.pods_of(rs).active,
            lambda rs: rs.key not in self.state.unobserved,
        )
        for rs in doomed:
            self.state.delete_workload(
                rs, f"ReplicaSet deleted (revisionHistoryLimit of Deployment {self.deployment.key})"
            )
        return bool(doomed)

    # ---------------------------------------------------------------- status

    def _calculate_status(self) -> DeploymentStatus:
        sets = owned_replica_sets(self.state, self.deployment)
        new = find_new_replica_set(sets, self.deployment)
        return calculate_status(
            self.deployment.replicas,
            self.strategy,
            deployment_status(self.state, self.deployment),
            [self._counts(rs) for rs in sets],
            self._counts(new) if new else None,
            self.state.now_ms,
        )

    def _counts(self, rs: ControlledWorkload) -> SetCounts:
        counts = self.pods_of(rs)
        return SetCounts(rs.replicas, counts.active, counts.ready, counts.available)

    def _sync_rollout_status(self, changed: bool) -> bool:
        """syncRolloutStatus (see rollout_conditions)."""
        before = deployment_status(self.state, self.deployment)
        status = rollout_conditions(
            self.deployment.replicas,
            util.progress_deadline_seconds(self.deployment),
            before,
            self._calculate_status(),
            self.new.name if self.new else None,
            self.state.now_ms,
        )
        self._store(status)
        return changed

    def _set_progressing(self, status: str, reason: str, message: str) -> None:
        condition = util.new_condition(util.PROGRESSING, status, reason, message, self.state.now_ms)
        self._store(util.set_condition(deployment_status(self.state, self.deployment), condition))

    def _store(self, status: DeploymentStatus) -> None:
        if status != deployment_status(self.state, self.deployment):
            self.status_written = True
            self.state.deployment_statuses[self.deployment.key] = status


# ------------------------------------------------------------------ reads


def find_new_replica_set(
    owned: Iterable[ControlledWorkload], deployment: ControlledWorkload
) -> Optional[ControlledWorkload]:
    """FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's but for
    the pod-template-hash label (EqualIgnoreHash)."""
    return util.find_new_replica_set(owned, _without_hash(deployment.template), _without_hash)


# Templates as EqualIgnoreHash compares them, by the template object (a workload's template is
# replaced, never changed in place): the Deployment syncs after every binding of a rollout.
_COMPARED: dict[int, tuple[Any, Any]] = {}
_COMPARED_MAX = 4096


@dataclass(frozen=True, slots=True)
class PodCounts:
    """A ReplicaSet's status from its pods: replicas (not terminating), readyReplicas,
    availableReplicas."""

    active: int
    ready: int
    available: int


def pod_counts(state: ClusterState, rs: ControlledWorkload) -> PodCounts:
    """calculateStatus of the ReplicaSet controller, in one pass over its pods."""
    active = ready = available = 0
    for pod in state.owned_pods(rs):
        active += 0 if pod.is_terminating else 1
        ready += 1 if is_running(pod) else 0
        available += 1 if is_available(state, pod, rs.min_ready_seconds) else 0
    return PodCounts(active, ready, available)


def available_replicas(state: ClusterState, rs: ControlledWorkload) -> int:
    """status.availableReplicas: the ReplicaSet's pods ready for its minReadySeconds (a
    terminating pod is not)."""
    return sum(1 for pod in state.owned_pods(rs) if is_available(state, pod, rs.min_ready_seconds))


def _active_pods(state: ClusterState, rs: ControlledWorkload) -> int:
    """status.replicas: the ReplicaSet's pods not terminating."""
    return sum(1 for pod in state.owned_pods(rs) if not pod.is_terminating)


def _phase(pod: Pod) -> str:
    """status.phase as the kubelet stand-in keeps it: Running from the binding."""
    return pod.phase if pod.is_finished else "Running" if pod.node_name else "Pending"


def deployment_status(state: ClusterState, deployment: ControlledWorkload) -> DeploymentStatus:
    """The Deployment's status as its controller last wrote it; before that, the scenario's."""
    known = state.deployment_statuses.get(deployment.key)
    if known is None:
        known = state.deployment_statuses[deployment.key] = _written_status(deployment, state.epoch)
    return known


def _written_status(deployment: ControlledWorkload, epoch: datetime) -> DeploymentStatus:
    """status as the scenario has it (its counts and conditions; times on the run's clock)."""
    written = (deployment.manifest or {}).get("status") or {}
    conditions = tuple(
        Condition(
            str(c.get("type", "")),
            str(c.get("status", "")),
            str(c.get("reason", "")),
            str(c.get("message", "")),
            _clock_ms(c.get("lastUpdateTime"), epoch),
            _clock_ms(c.get("lastTransitionTime"), epoch),
        )
        for c in written.get("conditions") or []
        if isinstance(c, dict)
    )
    return DeploymentStatus(
        _count(written, "replicas"),
        _count(written, "updatedReplicas"),
        _count(written, "readyReplicas"),
        _count(written, "availableReplicas"),
        _count(written, "unavailableReplicas"),
        conditions,
    )


def _count(written: dict[str, Any], key: str) -> int:
    value = written.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _clock_ms(value: Any, epoch: datetime) -> int:
    """A timestamp of the scenario on the run's clock (ms from its start; before it, negative)."""
    parsed = parse_time(value)
    return 0 if parsed is None else int((parsed - epoch).total_seconds() * 1000)


# ------------------------------------------------------------------ writes


def _scale(state: ClusterState, deployment: ControlledWorkload, write: ScaleWrite) -> Optional[ControlledWorkload]:
    """scaleReplicaSet: the ReplicaSet's replicas and its desired-replicas and max-replicas
    annotations (replicas, replicas + maxSurge) written; its new version, or None when nothing
    was written (the same size and, unless ``always``, whatever the annotations)."""
    rs = state.current(write.replica_set)
    desired = deployment.replicas
    most = desired + util.max_surge(desired, strategy_of(deployment))
    stale = util.replicas_annotations_need_update(rs, desired, most)
    if rs.replicas == write.replicas and not (write.always and stale):
        return None
    updated = replace(rs, replicas=write.replicas, annotations=util.with_replicas_annotations(rs, desired, most))
    detail = (
        f"ReplicaSet replicas {rs.replicas} → {write.replicas} (Deployment {deployment.key})"
        if rs.replicas != write.replicas
        else f"ReplicaSet annotations desired-replicas {desired}, max-replicas {most} (Deployment {deployment.key})"
    )
    state.unobserved.add(rs.key)
    return state.update_workload(updated, detail)


def _create_new(
    state: ClusterState, deployment: ControlledWorkload, old: list[ControlledWorkload], replicas: int
) -> ControlledWorkload:
    revision = max((rs.revision for rs in old), default=0) + 1
    made = new_replica_set(deployment, state.now_ms, revision=revision, replicas=replicas)
    state.unobserved.add(made.key)
    return state.create_workload(made, f"by Deployment {deployment.key}")


def _without_hash(template: Any) -> Any:
    """The template as plain data without the pod-template-hash label, empty values dropped
    (the API's semantic equality treats a nil and an empty map or list alike)."""
    known = _COMPARED.get(id(template))
    if known is not None and known[0] is template:
        return known[1]
    if len(_COMPARED) >= _COMPARED_MAX:
        _COMPARED.clear()
    compared = _COMPARED[id(template)] = (template, _normalized(template))
    return compared[1]


def _normalized(template: Any) -> Any:
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


def new_replica_set(
    deployment: ControlledWorkload, now_ms: int, revision: int = 1, replicas: Optional[int] = None
) -> ControlledWorkload:
    """``<deployment>-<hash>`` with the pod-template-hash label on itself, its selector and its
    pods' template, owned by the Deployment, with its minReadySeconds and (SetNewReplicaSetAnnotations)
    the desired-replicas and max-replicas annotations."""
    hash_ = template_hash(deployment.template)
    template = plain(deployment.template)
    metadata = template.setdefault("metadata", {})
    metadata["labels"] = {**(metadata.get("labels") or {}), POD_TEMPLATE_HASH: hash_}
    selector = deployment.selector or LabelSelector()
    selector = LabelSelector(
        tuple(sorted({**dict(selector.match_labels), POD_TEMPLATE_HASH: hash_}.items())), selector.match_expressions
    )
    name = f"{deployment.name}-{hash_}"
    desired = deployment.replicas
    most = desired + util.max_surge(desired, strategy_of(deployment))
    return ControlledWorkload(
        KIND_REPLICA_SET,
        deployment.namespace,
        name,
        f"uid-{deployment.namespace}-{name}",
        selector,
        template,
        desired if replicas is None else replicas,
        labels={**metadata["labels"]},
        owner=owner_reference(deployment),
        revision=revision,
        created_ms=now_ms,
        line=deployment.line,
        min_ready_seconds=deployment.min_ready_seconds,
        annotations=util.replicas_annotations(desired, most),
    )


# ------------------------------------------------------------------ the rollout report


def rollout_status(state: ClusterState, deployment: ControlledWorkload) -> RolloutStatus:
    """The Deployment's status as syncRolloutStatus computes it (updatedReplicas, replicas,
    availableReplicas over its ReplicaSets; DeploymentComplete), with the pods behind it and,
    for a rollout not complete, its progress deadline."""
    owned = owned_replica_sets(state, deployment)
    new = find_new_replica_set(owned, deployment)
    old = [rs for rs in owned if rs is not new]
    new_pods = [pod for pod in state.owned_pods(new) if not pod.is_terminating] if new is not None else []
    active = sum(_active_pods(state, rs) for rs in owned)
    available = sum(available_replicas(state, rs) for rs in owned)
    old_pods = sorted(pod.key for rs in old for pod in state.owned_pods(rs))
    desired = deployment.replicas
    complete = len(new_pods) == desired and active == desired and available == desired
    return RolloutStatus(
        KIND_DEPLOYMENT,
        deployment.key,
        new.revision if new is not None else 0,
        new.key if new is not None else "",
        strategy_of(deployment).type,
        desired,
        len(new_pods),
        active,
        available,
        old_pods,
        complete,
        [pod.key for pod in new_pods if not pod.node_name],
        paused=util.is_paused(deployment) or None,
        progress_deadline=None if complete else _progress_deadline(state, deployment),
    )


def _progress_deadline(state: ClusterState, deployment: ControlledWorkload) -> Optional[ProgressDeadline]:
    """When the rollout's progress deadline passes (or passed) if nothing else moves it: the
    Progressing condition's lastUpdateTime (the last progress, or the resume) plus
    progressDeadlineSeconds; none for a paused Deployment or one without a deadline."""
    deadline = util.progress_deadline_seconds(deployment)
    if deadline is None or util.is_paused(deployment):
        return None
    condition = util.get_condition(deployment_status(state, deployment), util.PROGRESSING)
    if condition is None or condition.reason == util.REASON_NEW_RS_AVAILABLE:
        return None
    if condition.reason == util.REASON_TIMED_OUT:
        return ProgressDeadline(deadline, condition.last_update_ms, True)
    passes = util.deadline_passes_ms(condition, deadline)
    return ProgressDeadline(deadline, passes, passes < state.now_ms)
