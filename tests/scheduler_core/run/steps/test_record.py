"""The step's account (run/steps/record.py) and the StepEnd payload it gives."""

from __future__ import annotations

from scheduler_core.encoding.events import BlockedEviction
from scheduler_core.run.steps.record import StepRecord


def test_a_step_that_ended_tells_its_account_with_the_pending_pods_and_the_rollouts():
    record = StepRecord(2, "drain n1", 3000, created=["default/a"], evicted=["default/b"], placed=["default/a"])
    record.blocked.append(BlockedEviction("default/c", "default/pdb"))
    ended = record.ended(9000, ["default/d"], [])
    assert (ended.step, ended.name, ended.started_ms, ended.time_ms) == (2, "drain n1", 3000, 9000)
    assert (ended.created, ended.evicted, ended.placed, ended.pending) == (
        ["default/a"],
        ["default/b"],
        ["default/a"],
        ["default/d"],
    )
    assert ended.blocked == [BlockedEviction("default/c", "default/pdb")] and ended.rollouts == []
