"""The eviction subresource's rule (pkg/registry/core/pod/storage/eviction.go: EvictionREST.Create,
canIgnorePDB, checkAndDecrement), as the run's cluster applies it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from scheduler_core.model.labels import compile_selector
from scheduler_core.model import Pod, PodDisruptionBudget


@dataclass(frozen=True, slots=True)
class EvictionAnswer:
    allowed: bool
    budget: str = ""  # the budget that refused (or "a, b" when several select the pod)
    used: Optional[PodDisruptionBudget] = None  # the budget the eviction used a disruption of, as it leaves it


def evict(pod: Pod, budgets: list[PodDisruptionBudget]) -> EvictionAnswer:
    """EvictionREST.Create: a pending, finished or terminating pod is deleted without looking
    at budgets (canIgnorePDB); otherwise the one budget selecting it must allow a disruption,
    which it then uses up (checkAndDecrement). Several budgets: refused (the API answers 500)."""
    if not pod.node_name or pod.is_finished or pod.is_terminating:
        return EvictionAnswer(True)
    matching = [
        b
        for b in budgets
        if b.namespace == pod.namespace
        and b.selector is not None
        and not b.selector.is_empty
        and compile_selector(b.selector).matches(pod.labels)
    ]
    if len(matching) > 1:
        return EvictionAnswer(False, ", ".join(f"{b.namespace}/{b.name}" for b in matching))
    if not matching:
        return EvictionAnswer(True)
    budget = matching[0]
    if budget.disruptions_allowed <= 0:
        return EvictionAnswer(False, f"{budget.namespace}/{budget.name}")
    used = replace(
        budget, disruptions_allowed=budget.disruptions_allowed - 1, disrupted_pods=budget.disrupted_pods | {pod.name}
    )
    return EvictionAnswer(True, used=used)
