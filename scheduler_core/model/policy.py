"""policy/v1 PodDisruptionBudget: its status as preemption and the eviction API read it, and its
spec as the disruption controller computes the status from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, TYPE_CHECKING, Union

if TYPE_CHECKING:
    from scheduler_core.model.core import LabelSelector


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget: what preemption reads (filterPodsWithPDBViolation)."""

    namespace: str
    name: str
    selector: Optional[LabelSelector]  # None selects nothing
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()  # status.disruptedPods: names already being evicted
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # given by the run's cluster per write
    # spec.minAvailable / maxUnavailable, read by the disruption controller of a run with steps
    # (None where no controller runs: preemption and eviction read only the status).
    spec: Optional[BudgetSpec] = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class BudgetSpec:
    """A PodDisruptionBudget's spec as the disruption controller reads it: an int or "N%"."""

    namespace: str
    name: str
    min_available: Optional[Union[int, str]] = None
    max_unavailable: Optional[Union[int, str]] = None
