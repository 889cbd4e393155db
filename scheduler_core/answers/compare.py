"""Two runs of the scheduler side by side (`python -m scheduler_core compare A B`).

Each side is a whole run to the end (the timeline's stream); the comparison reads the two streams
only, so it works as well on stored events as on live ones: where each pod ended in each run, the
counts a user asks first ("3 pods land elsewhere, 1 more stays Pending, 1 preemption fewer"), the
first attempt where the two runs part, and, for one pod, the weighted score of every plugin on every
node in its first scored attempt of each run, with the difference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from scheduler_core.encoding.events import CycleStart, Event, ExtensionPoint, NormalizeResult, TotalResult, read_events
from scheduler_core.answers.explain import skipped_scoring_sentence
from scheduler_core.encoding.timeline import STORY_POINTS, StoryAttempt, StoryBuilder

DELETED = "deleted"


@dataclass
class RunSide:
    """What one run says, read from its event stream."""

    story: StoryBuilder = field(default_factory=StoryBuilder)
    weighted: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # pod -> plugin -> node -> score
    totals: dict[str, dict[str, int]] = field(default_factory=dict)  # pod -> node -> total
    _pod: str = ""

    def add(self, event: Event) -> None:
        self.story.add(event)
        payload = event.payload
        if isinstance(payload, CycleStart):
            self._pod = payload.pod
        elif isinstance(payload, NormalizeResult) and self._pod not in self.totals and event.plugin is not None:
            self.weighted.setdefault(self._pod, {})[event.plugin] = payload.weighted_by_node()
        elif isinstance(payload, TotalResult) and self._pod not in self.totals:
            self.totals[self._pod] = payload.totals_by_node()

    @property
    def final(self) -> dict[str, Optional[str]]:
        return self.story.end.final if self.story.end is not None else {}

    @property
    def preemptions(self) -> int:
        return sum(1 for attempt in self.story.attempts if attempt.victims)

    def last_attempt(self, pod: str) -> Optional[StoryAttempt]:
        return next((a for a in reversed(self.story.attempts) if a.pod == pod), None)


def compare_reads(pod: Optional[str]) -> Callable[[str, str], bool]:
    """An event filter (columnar.EventFilter) for a comparison: the story's events, and the scores
    of the one pod asked about (nobody else's are read)."""
    scores = {ExtensionPoint.NORMALIZE_SCORE.value, ExtensionPoint.TOTAL.value}
    return lambda event_pod, point: point in STORY_POINTS or (point in scores and pod is not None and event_pod == pod)


def read_side(events: Iterable[Event]) -> RunSide:
    """What one run says: each pod's end, its attempts, its first scored attempt's scores."""
    return _read(events)


def _read(events: Iterable[Event]) -> RunSide:
    side = RunSide()
    for event in events:
        side.add(event)
    return side


def _outcome(attempt: Optional[StoryAttempt]) -> tuple[Optional[str], str]:
    if attempt is None:
        return None, ""
    return attempt.node_name, attempt.failed_scheduling_message or ""


def compare(
    events_a: Iterable[dict[str, Any]], events_b: Iterable[dict[str, Any]], pod: Optional[str] = None
) -> dict[str, Any]:
    """The comparison of two stored runs' event streams (each event as ``Event.to_json()``)."""
    return compare_events(read_events(events_a), read_events(events_b), pod)


def compare_events(events_a: Iterable[Event], events_b: Iterable[Event], pod: Optional[str] = None) -> dict[str, Any]:
    """The comparison of two runs' event streams, live or read back."""
    return compare_sides(_read(events_a), _read(events_b), pod)


def compare_sides(a: "RunSide", b: "RunSide", pod: Optional[str] = None) -> dict[str, Any]:
    """The comparison of two runs already read."""
    pods = sorted(set(a.final) | set(b.final))
    rows = [_pod_row(name, a, b) for name in pods]
    changed = [row for row in rows if row["a"] != row["b"]]
    counts = {
        "elsewhere": sum(1 for r in changed if r["a"] not in (None, DELETED) and r["b"] not in (None, DELETED)),
        "morePending": sum(1 for r in rows if r["b"] is None) - sum(1 for r in rows if r["a"] is None),
        "moreEvicted": sum(1 for r in rows if r["b"] == DELETED) - sum(1 for r in rows if r["a"] == DELETED),
        "morePreemptions": b.preemptions - a.preemptions,
        "attempts": [len(a.story.attempts), len(b.story.attempts)],
    }
    out: dict[str, Any] = {
        "summary": _summary_text(counts, len(changed)),
        "counts": counts,
        "changed": len(changed),
        "pods": rows,
        "firstDivergence": _first_divergence(a, b),
    }
    if pod is not None:
        out["scores"] = _score_difference(pod, a, b)
    return out


def _pod_row(name: str, a: RunSide, b: RunSide) -> dict[str, Any]:
    row: dict[str, Any] = {"pod": name, "a": a.final.get(name), "b": b.final.get(name)}
    for key, side in (("a", a), ("b", b)):
        node, why = _outcome(side.last_attempt(name))
        if row[key] is None and why:
            row[f"{key}Why"] = why
    return row


def _first_divergence(a: RunSide, b: RunSide) -> Optional[dict[str, Any]]:
    """The first attempt (by position) that differs in pod or outcome; None when they never part."""
    for index, (x, y) in enumerate(zip(a.story.attempts, b.story.attempts)):
        if (x.pod, x.node_name, x.victims) != (y.pod, y.node_name, y.victims):
            return {"index": index, "a": _attempt_brief(x), "b": _attempt_brief(y)}
    if len(a.story.attempts) != len(b.story.attempts):
        index = min(len(a.story.attempts), len(b.story.attempts))
        longer = a.story.attempts if len(a.story.attempts) > index else b.story.attempts
        brief = _attempt_brief(longer[index])
        return {
            "index": index,
            "a": brief if longer is a.story.attempts else None,
            "b": brief if longer is b.story.attempts else None,
        }
    return None


def _attempt_brief(attempt: StoryAttempt) -> dict[str, Any]:
    return {"cycle": attempt.cycle, "pod": attempt.pod, "nodeName": attempt.node_name, "text": attempt.text or ""}


def _skipped(side: RunSide, pod: str) -> Optional[str]:
    """Why that run's scores of the pod decided nothing (one feasible node: the release scores
    nothing), or None when they were the release's."""
    totals = side.totals.get(pod, {})
    return skipped_scoring_sentence(next(iter(totals))) if len(totals) == 1 else None


def _score_difference(pod: str, a: RunSide, b: RunSide) -> dict[str, Any]:
    """Per node and plugin, the weighted score in each run's first scored attempt of the pod; with
    ``skipped`` saying for each run whether the release scored that attempt at all."""
    plugins = sorted(set(a.weighted.get(pod, {})) | set(b.weighted.get(pod, {})))
    nodes = sorted(set(a.totals.get(pod, {})) | set(b.totals.get(pod, {})))
    rows = []
    for node in nodes:
        per_plugin = {}
        for plugin in plugins:
            x = a.weighted.get(pod, {}).get(plugin, {}).get(node)
            y = b.weighted.get(pod, {}).get(plugin, {}).get(node)
            per_plugin[plugin] = {"a": x, "b": y, "difference": None if x is None or y is None else y - x}
        x, y = a.totals.get(pod, {}).get(node), b.totals.get(pod, {}).get(node)
        rows.append(
            {
                "node": node,
                "plugins": per_plugin,
                "total": {"a": x, "b": y, "difference": None if x is None or y is None else y - x},
            }
        )
    return {"pod": pod, "plugins": plugins, "nodes": rows, "skipped": {"a": _skipped(a, pod), "b": _skipped(b, pod)}}


def _summary_text(counts: dict[str, Any], changed: int) -> str:
    if not changed and not counts["morePreemptions"]:
        return "Both runs end the same: every pod in the same place."
    parts = []
    if counts["elsewhere"]:
        parts.append(f"{counts['elsewhere']} pod(s) land elsewhere")
    parts += _signed(counts["morePending"], "more stay Pending", "fewer stay Pending")
    parts += _signed(counts["moreEvicted"], "more evicted", "fewer evicted")
    parts += _signed(counts["morePreemptions"], "more preemption(s)", "preemption(s) fewer")
    return (", ".join(parts) or f"{changed} pod(s) end differently") + " in B than in A."


def _signed(value: int, more: str, fewer: str) -> list[str]:
    if value > 0:
        return [f"{value} {more}"]
    if value < 0:
        return [f"{-value} {fewer}"]
    return []
