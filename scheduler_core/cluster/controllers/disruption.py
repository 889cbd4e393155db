"""The disruption controller stand-in (pkg/controller/disruption: sync, trySync,
getExpectedPodCount, updatePdbStatus): a budget's status.disruptionsAllowed after every change."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterator, Optional, Protocol, Union

from scheduler_core.cluster.controllers.deployment import owned_replica_sets
from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import (
    KIND_DEPLOYMENT,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    BudgetSpec,
    ControlledWorkload,
    Pod,
    PodDisruptionBudget,
)

# The controllers whose scale the release finds for a pod (finders: ReplicaSet, Deployment via its
# ReplicaSet, StatefulSet; ReplicationController has no stand-in here).
_SCALED_KINDS = (KIND_REPLICA_SET, KIND_STATEFUL_SET)


class BudgetApi(Protocol):
    """What the controller uses of the API server: the budgets, and its status writes."""

    def budgets(self) -> list[PodDisruptionBudget]: ...

    def put_budget(self, budget: PodDisruptionBudget, detail: str = "") -> Optional[PodDisruptionBudget]: ...


def sync(state: ClusterState, api: BudgetApi, changed: Optional[Pod] = None) -> Iterator[PodDisruptionBudget]:
    """sync over every budget (with ``changed``, only the budgets that select that pod, as the
    pod handlers enqueue getPdbForPod's): each status that moved is written, and yielded once
    written so that the caller delivers it before the next."""
    for budget in api.budgets():
        if changed is not None and not selects(budget, changed):
            continue
        updated = recompute(state, budget, budget.spec)
        if updated.disruptions_allowed != budget.disruptions_allowed:
            api.put_budget(updated, f"disruptionsAllowed {budget.disruptions_allowed} → {updated.disruptions_allowed}")
            yield updated


def selects(budget: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether the budget's selector selects the pod (in its namespace)."""
    return (
        budget.namespace == pod.namespace
        and budget.selector is not None
        and compile_selector(budget.selector).matches(pod.labels)
    )


def recompute(state: ClusterState, budget: PodDisruptionBudget, spec: Optional[BudgetSpec]) -> PodDisruptionBudget:
    """disruptionsAllowed = running (bound, not terminating) matching pods minus the desired
    healthy count, never below 0; 0 as well when the expected count is 0 or unknown."""
    if spec is None or budget.selector is None or budget.selector.is_empty:
        return budget  # a selector that selects nothing: the controller leaves no disruptions
    matcher = compile_selector(budget.selector)
    pods = [pod for pod in state.pods_in(budget.namespace) if state.live(pod) and matcher.matches(pod.labels)]
    healthy = sum(1 for pod in pods if is_running(pod))
    expected, desired = _expected_and_desired(state, spec, pods)
    allowed = healthy - desired
    if expected is None or expected <= 0 or allowed <= 0:
        allowed = 0
    return replace(budget, disruptions_allowed=allowed, disrupted_pods=frozenset())


def _expected_and_desired(state: ClusterState, spec: BudgetSpec, pods: list[Pod]) -> tuple[Optional[int], int]:
    """getExpectedPodCount: an integer minAvailable counts the pods; a percentage, or any
    maxUnavailable, uses the controllers' scale (percentages rounded up)."""
    if spec.max_unavailable is not None:
        expected = _expected_scale(state, pods)
        if expected is None:
            return None, 0
        return expected, max(expected - _scaled(spec.max_unavailable, expected), 0)
    if spec.min_available is not None:
        if isinstance(spec.min_available, int):
            return len(pods), spec.min_available
        expected = _expected_scale(state, pods)
        if expected is None:
            return None, 0
        return expected, _scaled(spec.min_available, expected)
    return 0, 0


def _scaled(value: Union[int, str], total: int) -> int:
    """GetScaledValueFromIntOrPercent(value, total, roundUp=true)."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value[:-1]) * total / 100)


def _expected_scale(state: ClusterState, pods: list[Pod]) -> Optional[int]:
    """getExpectedScale: the sum of the scale of each pod's controller, counted once; a pod
    without a controller the release can scale makes the budget unusable (None)."""
    scales: dict[str, int] = {}
    controllers: dict[tuple[str, str], Optional[ControlledWorkload]] = {}  # (kind, name) -> found
    for pod in pods:
        ref = next((ref for ref in pod.owner_references if ref.controller), None)
        if ref is None:
            return None
        key = (ref.kind, ref.name)
        if key not in controllers:
            controllers[key] = _scaled_controller(state, pod)
        controller = controllers[key]
        if controller is None:
            return None
        scales[f"{controller.kind}/{controller.key}"] = controller.replicas
    return sum(scales.values())


def _scaled_controller(state: ClusterState, pod: Pod) -> Optional[ControlledWorkload]:
    ref = next((ref for ref in pod.owner_references if ref.controller), None)
    if ref is None or ref.kind not in _SCALED_KINDS:
        return None
    owner = next(
        (w for w in state.workloads if w.kind == ref.kind and w.name == ref.name and w.namespace == pod.namespace), None
    )
    if (
        owner is not None
        and owner.kind == KIND_REPLICA_SET
        and owner.owner is not None
        and owner.owner.kind == KIND_DEPLOYMENT
    ):
        deployment = next(
            (
                w
                for w in state.workloads
                if w.kind == KIND_DEPLOYMENT and w.name == owner.owner.name and w.namespace == pod.namespace
            ),
            None,
        )
        return deployment if deployment is not None and owner in owned_replica_sets(state, deployment) else owner
    return owner
