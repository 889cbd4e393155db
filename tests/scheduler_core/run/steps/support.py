"""Helpers shared by the step modules' tests: a run with steps to its end, and the events of it
each test looks at."""

from __future__ import annotations

from scheduler_core.encoding.events import ClusterChangeKind, ExtensionPoint
from scheduler_core.encoding.timeline import timeline_summary
from scheduler_core.run.loop import ClusterRun
from scheduler_core.scenario import load_scenario


def run(text: str):
    """The scenario run to its end: the run, its events and its timeline summary."""
    run_ = ClusterRun(load_scenario(text))
    events = list(run_.run())
    return run_, events, timeline_summary(events)


def changes_of(events, kind: ClusterChangeKind) -> list:
    return [e for e in events if e.extension_point is ExtensionPoint.CLUSTER and e.payload.kind is kind]


def moves_of(events, pod: str) -> list:
    return [e.payload for e in events if e.extension_point is ExtensionPoint.QUEUE_MOVE and e.pod == pod]
