"""The Deployment controller's helpers (pkg/controller/deployment/util/deployment_util.go of
v1.35, and the ReplicaSet orderings of pkg/controller/controller_utils.go), as pure functions.

A ReplicaSet is a ``ControlledWorkload``; what the release reads from its status is passed in
(``available``: its status.availableReplicas). A Deployment's status is ``DeploymentStatus``,
its conditions ``Condition``; times are the run's logical clock in milliseconds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from scheduler_core.model import ControlledWorkload
from scheduler_core.scenario.manifests import creation_time

POD_TEMPLATE_HASH = "pod-template-hash"
ANN_REVISION = "deployment.kubernetes.io/revision"
ANN_DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
ANN_MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
STRATEGY_ROLLING_UPDATE = "RollingUpdate"
STRATEGY_RECREATE = "Recreate"
DEFAULT_MAX_SURGE = "25%"  # apps/v1 defaulting (SetDefaults_Deployment)
DEFAULT_MAX_UNAVAILABLE = "25%"
DEFAULT_PROGRESS_DEADLINE_SECONDS = 600
DEFAULT_REVISION_HISTORY_LIMIT = 10
INT32_MAX = 2**31 - 1  # math.MaxInt32: a deadline or history limit that means "none"
_PERCENT = re.compile(r"([0-9]+)%")
_UNSIGNED = re.compile(r"[0-9]+")  # what strconv.ParseUint(value, 10, 32) accepts

# Condition types, statuses and reasons (deploymentutil's constants).
PROGRESSING = "Progressing"
AVAILABLE = "Available"
TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"
REASON_RS_UPDATED = "ReplicaSetUpdated"
REASON_NEW_RS = "NewReplicaSetCreated"
REASON_FOUND_NEW_RS = "FoundNewReplicaSet"
REASON_NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
REASON_TIMED_OUT = "ProgressDeadlineExceeded"
REASON_PAUSED = "DeploymentPaused"
REASON_RESUMED = "DeploymentResumed"
REASON_MIN_AVAILABLE = "MinimumReplicasAvailable"
REASON_MIN_UNAVAILABLE = "MinimumReplicasUnavailable"

IntOrPercent = Union[int, str]


@dataclass(frozen=True, slots=True)
class Strategy:
    """spec.strategy after defaulting."""

    type: str = STRATEGY_ROLLING_UPDATE
    max_surge: IntOrPercent = DEFAULT_MAX_SURGE
    max_unavailable: IntOrPercent = DEFAULT_MAX_UNAVAILABLE


@dataclass(frozen=True, slots=True)
class Condition:
    """A DeploymentCondition (times on the run's clock, in ms)."""

    type: str
    status: str
    reason: str
    message: str = ""
    last_update_ms: int = 0
    last_transition_ms: int = 0


@dataclass(frozen=True, slots=True)
class DeploymentStatus:
    """The DeploymentStatus fields the controller compares and kubectl reads."""

    replicas: int = 0
    updated: int = 0
    ready: int = 0
    available: int = 0
    unavailable: int = 0
    conditions: tuple[Condition, ...] = ()


# ------------------------------------------------------------------ spec


def strategy_of(deployment: ControlledWorkload) -> Strategy:
    """spec.strategy as the API server defaults it (the loader checked its values)."""
    written = _spec(deployment).get("strategy") or {}
    if (written.get("type") or STRATEGY_ROLLING_UPDATE) == STRATEGY_RECREATE:
        return Strategy(STRATEGY_RECREATE, 0, 0)
    rolling = written.get("rollingUpdate") or {}
    surge, unavailable = rolling.get("maxSurge"), rolling.get("maxUnavailable")
    return Strategy(
        STRATEGY_ROLLING_UPDATE,
        DEFAULT_MAX_SURGE if surge is None else surge,
        DEFAULT_MAX_UNAVAILABLE if unavailable is None else unavailable,
    )


def is_paused(deployment: ControlledWorkload) -> bool:
    """spec.paused."""
    return _spec(deployment).get("paused") is True


def progress_deadline_seconds(deployment: ControlledWorkload) -> Optional[int]:
    """spec.progressDeadlineSeconds after defaulting (600); None when it means no deadline
    (HasProgressDeadline: math.MaxInt32)."""
    value = _spec(deployment).get("progressDeadlineSeconds")
    value = DEFAULT_PROGRESS_DEADLINE_SECONDS if value is None else int(value)
    return None if value == INT32_MAX else value


def revision_history_limit(deployment: ControlledWorkload) -> Optional[int]:
    """spec.revisionHistoryLimit after defaulting (10); None when it means no limit
    (HasRevisionHistoryLimit: math.MaxInt32)."""
    value = _spec(deployment).get("revisionHistoryLimit")
    value = DEFAULT_REVISION_HISTORY_LIMIT if value is None else int(value)
    return None if value == INT32_MAX else value


def _spec(deployment: ControlledWorkload) -> dict[str, Any]:
    return (deployment.manifest or {}).get("spec") or {}


# ------------------------------------------------------------------ surge and unavailability


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


def resolve_fenceposts(
    max_surge: Optional[IntOrPercent], max_unavailable: Optional[IntOrPercent], desired: int
) -> tuple[int, int]:
    """ResolveFenceposts: surge rounded up, unavailable rounded down (an absent bound is 0); both
    0 makes unavailable 1."""
    surge = scaled_value(0 if max_surge is None else max_surge, desired, True)
    unavailable = scaled_value(0 if max_unavailable is None else max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(replicas: int, strategy: Strategy) -> int:
    """MaxUnavailable: 0 for Recreate or no replicas; never above the replicas."""
    if strategy.type != STRATEGY_ROLLING_UPDATE or replicas == 0:
        return 0
    return min(resolve_fenceposts(strategy.max_surge, strategy.max_unavailable, replicas)[1], replicas)


def min_available(replicas: int, strategy: Strategy) -> int:
    """MinAvailable: the replicas less MaxUnavailable (0 for Recreate)."""
    if strategy.type != STRATEGY_ROLLING_UPDATE:
        return 0
    return replicas - max_unavailable(replicas, strategy)


def max_surge(replicas: int, strategy: Strategy) -> int:
    """MaxSurge: 0 for Recreate."""
    if strategy.type != STRATEGY_ROLLING_UPDATE:
        return 0
    return resolve_fenceposts(strategy.max_surge, strategy.max_unavailable, replicas)[0]


def new_rs_replicas(
    replicas: int, strategy: Strategy, all_sets: Iterable[ControlledWorkload], new_replicas: int
) -> int:
    """NewRSNewReplicas: Recreate wants every replica at once; RollingUpdate grows the new
    ReplicaSet until all ReplicaSets together reach replicas + maxSurge."""
    if strategy.type == STRATEGY_RECREATE:
        return replicas
    surge = scaled_value(strategy.max_surge, replicas, True)
    current = sum(rs.replicas for rs in all_sets)
    most = replicas + surge
    if current >= most:
        return new_replicas
    return new_replicas + min(most - current, replicas - new_replicas)


# ------------------------------------------------------------------ which ReplicaSet is which


def creation_order(rs: ControlledWorkload) -> tuple[int, float, str]:
    """ReplicaSetsByCreationTimestamp: the older first, then by name. The scenario's come before the
    run's (the run starts after every time the scenario records), among themselves by their
    metadata.creationTimestamp (one without counts as the oldest)."""
    if rs.created_ms >= 0:
        return 1, rs.created_ms, rs.name
    created = creation_time(rs.manifest)
    return 0, created.timestamp() if created is not None else -math.inf, rs.name


def by_size_older(sets: Iterable[ControlledWorkload]) -> list[ControlledWorkload]:
    """ReplicaSetsBySizeOlder: the larger first; of equal size, the older first."""
    return sorted(sets, key=lambda rs: (-rs.replicas, *creation_order(rs)))


def by_size_newer(sets: Iterable[ControlledWorkload]) -> list[ControlledWorkload]:
    """ReplicaSetsBySizeNewer: the larger first; of equal size, the newer first."""
    ordered = sorted(sets, key=creation_order, reverse=True)
    return sorted(ordered, key=lambda rs: -rs.replicas)


def by_revision(sets: Iterable[ControlledWorkload]) -> list[ControlledWorkload]:
    """ReplicaSetsByRevision: the lower revision first; equal revisions by creation."""
    return sorted(sets, key=lambda rs: (rs.revision, *creation_order(rs)))


def find_new_replica_set(
    owned: Iterable[ControlledWorkload], template_without_hash: object, without_hash: Callable[[object], object]
) -> Optional[ControlledWorkload]:
    """FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's but for
    the pod-template-hash label (EqualIgnoreHash)."""
    for rs in sorted(owned, key=creation_order):
        if without_hash(rs.template) == template_without_hash:
            return rs
    return None


def find_active_or_latest(
    new: Optional[ControlledWorkload], old: Sequence[ControlledWorkload]
) -> Optional[ControlledWorkload]:
    """FindActiveOrLatest: the only ReplicaSet with replicas; with none, the new one or else the
    newest old one; None when several have replicas (they are scaled proportionally)."""
    if new is None and not old:
        return None
    newest_first = sorted(old, key=creation_order, reverse=True)
    active = [rs for rs in [*newest_first, new] if rs is not None and rs.replicas > 0]
    if not active:
        return new if new is not None else newest_first[0]
    return active[0] if len(active) == 1 else None


def filter_active(sets: Iterable[Optional[ControlledWorkload]]) -> list[ControlledWorkload]:
    """FilterActiveReplicaSets: those with replicas."""
    return [rs for rs in sets if rs is not None and rs.replicas > 0]


# ------------------------------------------------------------------ replica annotations and proportions


def non_negative_int32_annotation(annotations: dict[str, str], key: str) -> tuple[int, bool, Optional[str]]:
    """getNonNegativeInt32FromAnnotation: (value, valid, error): absent is (0, False, None); what
    strconv.ParseUint rejects is "invalid syntax"; above math.MaxInt32 is "out of range"."""
    value = annotations.get(key)
    if value is None:
        return 0, False, None
    if not _UNSIGNED.fullmatch(value):
        return 0, False, f'strconv.ParseUint: parsing "{value}": invalid syntax'
    number = int(value)
    if number > 2**32 - 1:
        return 0, False, f'strconv.ParseUint: parsing "{value}": value out of range'
    if number > INT32_MAX:
        return 0, False, f"value {number} is out of range (higher than {INT32_MAX})"
    return number, True, None


def replicas_annotations(desired: int, most: int) -> dict[str, str]:
    """SetReplicasAnnotations' two annotations."""
    return {ANN_DESIRED_REPLICAS: str(desired), ANN_MAX_REPLICAS: str(most)}


def replicas_annotations_need_update(rs: ControlledWorkload, desired: int, most: int) -> bool:
    """ReplicasAnnotationsNeedUpdate."""
    wanted = replicas_annotations(desired, most)
    return any(rs.annotations.get(key) != value for key, value in wanted.items())


def with_replicas_annotations(rs: ControlledWorkload, desired: int, most: int) -> dict[str, str]:
    """The ReplicaSet's annotations after SetReplicasAnnotations."""
    return {**rs.annotations, **replicas_annotations(desired, most)}


def is_saturated(replicas: int, rs: Optional[ControlledWorkload], available: int) -> bool:
    """IsSaturated: the ReplicaSet has, wants (desired-replicas) and has available every replica."""
    if rs is None:
        return False
    desired, valid, _ = non_negative_int32_annotation(rs.annotations, ANN_DESIRED_REPLICAS)
    return valid and rs.replicas == replicas and desired == replicas and available == replicas


def replica_set_fraction(rs: ControlledWorkload, replicas: int, strategy: Strategy, status_replicas: int) -> int:
    """getReplicaSetFraction: how much a ReplicaSet grows (or shrinks) when the Deployment is
    scaled: its size scaled by replicas + maxSurge over the max-replicas it was sized for (without
    that annotation, or with 0, the Deployment's status.replicas), rounded half away from zero."""
    if replicas == 0:
        return -rs.replicas
    most = replicas + max_surge(replicas, strategy)
    before, valid, _ = non_negative_int32_annotation(rs.annotations, ANN_MAX_REPLICAS)
    if not valid or before == 0:
        before = status_replicas
        if before == 0:
            return 0
    return _round_half_away(float(rs.replicas * most) / float(before)) - rs.replicas


def get_proportion(
    rs: Optional[ControlledWorkload], replicas: int, strategy: Strategy, status_replicas: int, to_add: int, added: int
) -> int:
    """GetProportion: the ReplicaSet's fraction, never more than what is left to add (or remove)."""
    if rs is None or rs.replicas == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = replica_set_fraction(rs, replicas, strategy, status_replicas)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _round_half_away(value: float) -> int:
    """integer.RoundToInt32 (math.Round: halves away from zero)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


# ------------------------------------------------------------------ conditions and progress


def get_condition(status: DeploymentStatus, kind: str) -> Optional[Condition]:
    return next((c for c in status.conditions if c.type == kind), None)


def set_condition(status: DeploymentStatus, condition: Condition) -> DeploymentStatus:
    """SetDeploymentCondition: nothing when a condition of that type has the same status and
    reason; its lastTransitionTime kept when only the reason changes; it goes last."""
    current = get_condition(status, condition.type)
    if current is not None and current.status == condition.status and current.reason == condition.reason:
        return status
    if current is not None and current.status == condition.status:
        condition = replace(condition, last_transition_ms=current.last_transition_ms)
    kept = tuple(c for c in status.conditions if c.type != condition.type)
    return replace(status, conditions=(*kept, condition))


def remove_condition(status: DeploymentStatus, kind: str) -> DeploymentStatus:
    return replace(status, conditions=tuple(c for c in status.conditions if c.type != kind))


def new_condition(kind: str, status: str, reason: str, message: str, now_ms: int) -> Condition:
    return Condition(kind, status, reason, message, now_ms, now_ms)


def deployment_complete(replicas: int, status: DeploymentStatus) -> bool:
    """DeploymentComplete: every replica updated, no other, every one available."""
    return status.updated == replicas and status.replicas == replicas and status.available == replicas


def deployment_progressing(old: DeploymentStatus, new: DeploymentStatus) -> bool:
    """DeploymentProgressing: more updated, fewer old, more ready or more available replicas."""
    return (
        new.updated > old.updated
        or new.replicas - new.updated < old.replicas - old.updated
        or new.ready > old.ready
        or new.available > old.available
    )


def deadline_passes_ms(condition: Condition, deadline_seconds: int) -> int:
    """When a Progressing condition's deadline passes: its lastUpdateTime (whole seconds, as the
    API serves it) plus progressDeadlineSeconds."""
    return condition.last_update_ms // 1000 * 1000 + deadline_seconds * 1000


def deployment_timed_out(deadline_seconds: Optional[int], status: DeploymentStatus, now_ms: int) -> bool:
    """DeploymentTimedOut: no deadline or no Progressing condition, no; a complete rollout, no;
    timed out already, yes; otherwise whether the deadline passed before now."""
    condition = get_condition(status, PROGRESSING)
    if deadline_seconds is None or condition is None or condition.reason == REASON_NEW_RS_AVAILABLE:
        return False
    if condition.reason == REASON_TIMED_OUT:
        return True
    return deadline_passes_ms(condition, deadline_seconds) < now_ms


def requeue_stuck_after_ms(
    deadline_seconds: Optional[int], replicas: int, current: DeploymentStatus, new: DeploymentStatus, now_ms: int
) -> int:
    """requeueStuckDeployment: how long until the Deployment is synced again to check its
    deadline (-1: never; 0: at once, the deadline is less than a second away). The run does not
    wait for that sync (the condition changes no pod): the rollout report says when the deadline
    passes (``deadline_passes_ms``), and this port is checked against the release's table."""
    condition = get_condition(current, PROGRESSING)
    if deadline_seconds is None or condition is None:
        return -1
    if deployment_complete(replicas, new) or condition.reason == REASON_TIMED_OUT:
        return -1
    after = deadline_passes_ms(condition, deadline_seconds) - now_ms
    return 0 if after < 1000 else after
