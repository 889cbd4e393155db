"""What happened during one step of a run with steps, for its StepEnd event."""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler_core.encoding.events import BlockedEviction, RolloutStatus, StepEnded


@dataclass
class StepRecord:
    """The step's account: the pods created, deleted, evicted, succeeded and placed while it ran
    (whoever wrote), and the evictions a drain gave up on."""

    number: int
    name: str
    started_ms: int
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    succeeded: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)
    blocked: list[BlockedEviction] = field(default_factory=list)

    def ended(self, ended_ms: int, pending: list[str], rollouts: list[RolloutStatus]) -> StepEnded:
        """The StepEnd payload once the step went quiet at ``ended_ms``, with the pods still
        pending and the rollouts' status then."""
        return StepEnded(
            self.number,
            self.name,
            self.started_ms,
            ended_ms,
            self.created,
            self.deleted,
            self.evicted,
            self.placed,
            self.blocked,
            pending,
            self.succeeded,
            rollouts,
        )
