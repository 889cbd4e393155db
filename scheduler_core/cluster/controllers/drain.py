"""`kubectl drain` and the eviction API (kubectl/pkg/drain: GetPodsForDeletion's filters;
pkg/registry/core/pod/storage/eviction.go: EvictionREST.Create, canIgnorePDB, checkAndDecrement)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from scheduler_core.labels import compile_selector
from scheduler_core.model import Pod, PodDisruptionBudget

MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
RETRY_MS = 5000  # kubectl drain retries a refused eviction every 5 s
GIVE_UP_MS = 60000  # ... until nothing else has happened for 60 s (../shared/spec/CHANGES.md)


@dataclass(frozen=True, slots=True)
class EvictionAnswer:
    allowed: bool
    budget: str = ""  # the budget that refused (or "a, b" when several select the pod)
    budgets: tuple[PodDisruptionBudget, ...] = ()  # the budgets after the eviction (decremented)


@dataclass
class Drain:
    """One drain under way: the pods still to evict, in namespace/name order."""

    node: str
    step: int
    waiting: list[Pod] = field(default_factory=list)
    refused_by: dict[str, str] = field(default_factory=dict)  # pod key -> budget
    retry_at: Optional[int] = None


def pods_to_evict(pods_on_node: list[Pod], manifests: dict[str, dict]) -> list[Pod]:
    """GetPodsForDeletion with --ignore-daemonsets, --delete-emptydir-data and --force (as
    ../shared/spec/CHANGES.md says): every pod but DaemonSet pods and mirror pods, namespace/name order."""
    kept = []
    for pod in pods_on_node:
        if any(ref.controller and ref.kind == "DaemonSet" for ref in pod.owner_references):
            continue
        annotations = ((manifests.get(pod.key) or {}).get("metadata") or {}).get("annotations") or {}
        if MIRROR_POD_ANNOTATION in annotations:
            continue
        kept.append(pod)
    return sorted(kept, key=lambda pod: pod.key)


def evict(pod: Pod, budgets: list[PodDisruptionBudget]) -> EvictionAnswer:
    """EvictionREST.Create: a pending, finished or terminating pod is deleted without looking
    at budgets (canIgnorePDB); otherwise the one budget selecting it must allow a disruption,
    which it then uses up (checkAndDecrement). Several budgets: refused (the API answers 500)."""
    if not pod.node_name or pod.is_finished or pod.is_terminating:
        return EvictionAnswer(True, budgets=tuple(budgets))
    matching = [b for b in budgets if b.namespace == pod.namespace and b.selector is not None
                and not b.selector.is_empty and compile_selector(b.selector).matches(pod.labels)]
    if len(matching) > 1:
        return EvictionAnswer(False, ", ".join(f"{b.namespace}/{b.name}" for b in matching))
    if not matching:
        return EvictionAnswer(True, budgets=tuple(budgets))
    budget = matching[0]
    if budget.disruptions_allowed <= 0:
        return EvictionAnswer(False, f"{budget.namespace}/{budget.name}")
    used = replace(budget, disruptions_allowed=budget.disruptions_allowed - 1,
                   disrupted_pods=budget.disrupted_pods | {pod.name})
    return EvictionAnswer(True, budgets=tuple(used if b is budget else b for b in budgets))
