"""The recorded answer beside the replay, for a finished run: each pending pod's PodScheduled
condition as the dump carries it (the real scheduler's last word) against what the run says of the
same pod — the engine's comparison (scheduler_core.answers.recorded), once per run and server process."""

from __future__ import annotations

from typing import Any

from webui.models import Run, RunMode, RunStatus
from webui.services import engine, events, releases

CONDITION_TYPE = "PodScheduled"  # no such word in the text: no condition to compare, nothing is loaded

_COMPARISONS: engine.Memo[tuple[engine.RecordedComparison | None]] = engine.Memo(
    32
)  # run id -> its comparison (None: no pending pod carries a condition)


def of_run(run: Run, story: dict[str, Any]) -> engine.RecordedComparison | None:
    """The comparison of a succeeded run whose pending pods carry PodScheduled conditions, else None.
    `story` is the run's timeline story (a run to the end); a single pass is read from its trace."""
    if run.status != RunStatus.SUCCEEDED or CONDITION_TYPE not in run.version.text:
        return None
    return _COMPARISONS.get_or_make(run.pk, lambda: (_compare(run, story),))[0]  # kept even when None


def _compare(run: Run, story: dict[str, Any]) -> engine.RecordedComparison | None:
    scenario = engine.load_valid(run.version.text, releases.request_of(run))
    summary = events.trace(run) if run.mode == RunMode.SINGLE else story
    comparison = engine.recorded(
        scenario, engine.MODE_SINGLE if run.mode == RunMode.SINGLE else engine.MODE_TIMELINE, summary
    )
    return comparison if comparison.outcomes else None
