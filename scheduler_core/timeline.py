"""The timeline of spec/TIMELINE.md, as a projection of the run's event stream.

Like ``trace``, it reads the wire form of events (``Event.to_json()``), so the web app can rebuild
a timeline from stored events exactly as the CLI builds it from live ones.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from scheduler_core.events import Event, ExtensionPoint


# The extension points add_json reads; every other event leaves the timeline as it is.
_READ = frozenset({ExtensionPoint.RUN_START, ExtensionPoint.CYCLE_START, ExtensionPoint.STEP_START,
                   ExtensionPoint.STEP_END, ExtensionPoint.CYCLE_END, ExtensionPoint.ATTEMPT_END,
                   ExtensionPoint.RUN_END})


class TimelineBuilder:
    def __init__(self) -> None:
        self.release = ""
        self.attempts: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}
        self.nominated: dict[str, str] = {}
        self.steps: list[dict[str, Any]] = []  # a run with steps (spec/CHANGES.md) only
        self._step: Optional[int] = None  # the step under way; None: a run without steps
        self.stopped_retrying: list[str] = []

    def add(self, event: Event) -> None:
        # Only the run's, steps' and attempts' bounds make the timeline: the cycle's own events
        # (Filter's verdicts on every node, Score's per-node tables) are not rendered to be dropped.
        if event.extension_point in _READ:
            self.add_json(event.to_json())

    def add_json(self, event: dict) -> None:
        point = ExtensionPoint(event["extensionPoint"])
        payload = event["payload"]
        if point is ExtensionPoint.RUN_START:
            self.release = payload["release"]
        elif point is ExtensionPoint.CYCLE_START:
            attempt = {"pod": payload["pod"], "nodeName": None}
            if self._step is not None:
                attempt["step"] = self._step
            self.attempts.append(attempt)
        elif point is ExtensionPoint.STEP_START:
            self._step = payload["step"]
        elif point is ExtensionPoint.STEP_END:
            self.steps.append(step_entry(payload))
        elif point is ExtensionPoint.CYCLE_END:
            self._cycle_end(self.attempts[-1], payload)
        elif point is ExtensionPoint.ATTEMPT_END:
            self._attempt_end(self.attempts[-1], payload)
        elif point is ExtensionPoint.RUN_END:
            self.final = dict(payload["final"])
            self.nominated = dict(payload["nominated"])
            self.stopped_retrying = list(payload.get("stoppedRetrying", []))

    @staticmethod
    def _cycle_end(attempt: dict, payload: dict) -> None:
        attempt["nodeName"] = payload["nodeName"]
        if payload["nodeName"] is None:
            message = payload.get("failedSchedulingMessage") or payload.get("error")
            if message is not None:
                attempt["failedSchedulingMessage"] = message

    @staticmethod
    def _attempt_end(attempt: dict, payload: dict) -> None:
        for key in ("nominatedNodeName", "victims", "bindingError"):
            if key in payload:
                attempt[key] = payload[key]
        if "bindingError" in payload:  # a node was chosen; its binding failed (no FailedScheduling text)
            attempt["nodeName"] = payload["bindingNode"]
            attempt.pop("failedSchedulingMessage", None)

    def summary(self) -> dict:
        out: dict[str, Any] = {"release": self.release, "attempts": self.attempts}
        if self._step is not None:
            out["steps"] = self.steps
        out["final"] = dict(sorted(self.final.items()))
        if self.nominated:
            out["nominated"] = dict(sorted(self.nominated.items()))
        if self.stopped_retrying:  # not in the spec's output: only when the release would never end
            out["stoppedRetrying"] = self.stopped_retrying
        return out


def step_entry(payload: dict) -> dict[str, Any]:
    """A step of ``timeline --json`` (spec/CHANGES.md "Output") from its StepEnd payload."""
    return {"step": payload["step"], "name": payload["name"], "at": clock_text(payload["startedMs"]),
            "created": payload["created"], "deleted": payload["deleted"], "evicted": payload["evicted"],
            "blocked": payload["blocked"], "pending": payload["pending"]}


def step_heading(payload: dict) -> str:
    """The readable account's heading of a step: "step 2 — drain node-7: 6 pods evicted, 5
    placed, 1 pending: default/x"."""
    counts = [f"{len(payload[key])} {label}" for key, label in (
        ("created", "created"), ("deleted", "deleted"), ("evicted", "evicted"), ("placed", "placed"))
        if payload[key]]
    pending = payload["pending"]
    counts.append(f"{len(pending)} pending" + (f": {', '.join(pending[:10])}" + (", …" if len(pending) > 10 else "")
                                               if pending else ""))
    text = f"step {payload['step']} — {payload['name']}: {', '.join(counts)}"
    for blocked in payload["blocked"]:
        text += f"; drain blocked: {blocked['pod']} (budget {blocked['budget']})"
    return text


def timeline_summary(events: Iterable[Event]) -> dict:
    builder = TimelineBuilder()
    for event in events:
        builder.add(event)
    return builder.summary()


# How a queue move's cause reads ({other}: the object of the last cluster change).
_EVENT_WORDS = {"UnschedulablePodAdd": "created", "AssignedPodAdd": "pod {other} bound",
                "AssignedPodDelete": "pod {other} deleted", "AssignedPodUpdate": "pod {other} updated"}


def clock_text(ms: int) -> str:
    """Minutes:seconds.milliseconds of the run's logical clock (12:00.000 is twelve minutes in)."""
    return f"{ms // 60000}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


class StoryBuilder:
    """What the run view draws for a run to the end, from the same stream: every attempt with its
    time, the pod's attempt number and outcome; every queue move (which event, which plugins'
    hints); every change to the cluster (bindings, victims terminating and removed, nominations).
    ``cycle`` on a move or a change is the attempt it followed (-1: before the first). Each item
    carries ``text``, the sentence `timeline` prints for it (the browser shows it as it is), and
    ``entries`` lists every item in stream order as (kind, index)."""

    def __init__(self) -> None:
        self.attempts: list[dict[str, Any]] = []
        self.moves: list[dict[str, Any]] = []
        self.changes: list[dict[str, Any]] = []
        self.entries: list[tuple[str, int]] = []
        self.end: dict[str, Any] = {}
        self.steps: list[dict[str, Any]] = []  # a run with steps: one heading each
        self._cause = ""  # the object of the last cluster change, named in the moves it causes

    def add_json(self, event: dict) -> None:
        point = ExtensionPoint(event["extensionPoint"])
        payload = event["payload"]
        if point is ExtensionPoint.CYCLE_START:
            self.attempts.append({"cycle": event["cycle"], "pod": payload["pod"], "priority": payload["priority"],
                                  "nodeName": None})
        elif point is ExtensionPoint.CYCLE_END and self.attempts:
            TimelineBuilder._cycle_end(self.attempts[-1], payload)
            if "timeMs" not in self.attempts[-1]:  # a single pass has no AttemptEnd
                self.attempts[-1]["text"] = _attempt_text(self.attempts[-1], None)
        elif point is ExtensionPoint.ATTEMPT_END and self.attempts:
            attempt = self.attempts[-1]
            attempt["timeMs"], attempt["attempt"] = payload["timeMs"], payload["attempt"]
            attempt["time"] = clock_text(payload["timeMs"])
            TimelineBuilder._attempt_end(attempt, payload)
            attempt["text"] = _attempt_text(attempt, payload["attempt"])
            self.entries.append(("attempt", len(self.attempts) - 1))
        elif point is ExtensionPoint.QUEUE_MOVE:
            self._move(event["pod"], payload)
        elif point is ExtensionPoint.CLUSTER:
            self._cause = payload["object"]
            self.changes.append({"cycle": self._after(), "pod": event["pod"], **payload,
                                 "time": clock_text(payload["timeMs"]), "text": _change_text(event["pod"], payload)})
            self.entries.append(("change", len(self.changes) - 1))
        elif point is ExtensionPoint.STEP_START:
            self.steps.append({"step": payload["step"], "name": payload["name"], "timeMs": payload["timeMs"],
                               "time": clock_text(payload["timeMs"]), "operations": payload["operations"],
                               "text": f"step {payload['step']} — {payload['name']}"})
            self.entries.append(("step", len(self.steps) - 1))
        elif point is ExtensionPoint.STEP_END and self.steps:
            self.steps[-1].update(summary=payload, text=step_heading(payload))
        elif point is ExtensionPoint.RUN_END:
            self.end = payload

    def _move(self, pod: str, payload: dict) -> None:
        reason = _EVENT_WORDS.get(payload["event"], payload["event"]).format(other=self._cause or "?")
        plugins = f" ({', '.join(payload['plugins'])})" if payload["plugins"] else ""
        self.moves.append({"cycle": self._after(), "pod": pod, **payload, "time": clock_text(payload["timeMs"]),
                           "text": f"{pod} moved to {payload['queue']}: {reason}{plugins}"})
        if payload["event"] != "ScheduleAttemptFailure":  # said by the attempt's own sentence
            self.entries.append(("move", len(self.moves) - 1))

    def _after(self) -> int:
        return self.attempts[-1]["cycle"] if self.attempts else -1

    def lines(self) -> list[str]:
        """The readable account: one timed sentence per entry, then the end."""
        items = {"attempt": self.attempts, "move": self.moves, "change": self.changes, "step": self.steps}
        out = [f"{items[kind][i]['time']} {items[kind][i]['text']}" if kind != "step"
               else f"\n== {items[kind][i]['time']} {items[kind][i]['text']}" for kind, i in self.entries]
        if self.end:
            out.append(f"{clock_text(self.end['timeMs'])} {self._end_text()}")
        return out

    def _end_text(self) -> str:
        stopped = self.end.get("stoppedRetrying") or []
        if stopped:
            return (f"run stopped after {self.end['attempts']} attempt(s): {', '.join(stopped)} kept failing with "
                    "an error and nothing else happened (the real scheduler retries them forever)")
        return f"run ended after {self.end['attempts']} attempt(s)"

    def _outcome_text(self) -> str:
        """The end in one sentence: who is still pending, who is nominated where."""
        if not self.end:
            return "The run has not ended yet."
        pending = [pod for pod, node in sorted(self.end["final"].items()) if node is None]
        nominated = [f"{pod} → {node}" for pod, node in sorted(self.end["nominated"].items())]
        parts = [f"At {clock_text(self.end['timeMs'])} the {self._end_text()}.",
                 f"Still pending: {', '.join(pending)}." if pending else "Every pod is placed."]
        if nominated:
            parts.append(f"Nominated: {', '.join(nominated)}.")
        return " ".join(parts)

    def summary(self) -> dict:
        out = {"attempts": self.attempts, "moves": self.moves, "changes": self.changes,
                "entries": [{"kind": kind, "index": i} for kind, i in self.entries],
                "final": dict(sorted((self.end.get("final") or {}).items())),
                "nominated": dict(sorted((self.end.get("nominated") or {}).items())),
                "timeMs": self.end.get("timeMs"), "finished": bool(self.end), "outcome": self._outcome_text()}
        if self.steps:  # a run with steps only: the story of a run without keeps its shape
            out["steps"] = self.steps
        return out


def _attempt_text(attempt: dict, number: Optional[int]) -> str:
    which = f"{attempt['pod']} (attempt {number})" if number is not None else attempt["pod"]
    if attempt.get("bindingError"):
        return f"{which}: chose {attempt['nodeName']}, binding failed — {attempt['bindingError']}"
    if attempt.get("nodeName"):
        return f"{which}: scheduled to {attempt['nodeName']}"
    text = f"{which}: unschedulable — {attempt.get('failedSchedulingMessage', '')}"
    if attempt.get("victims"):
        text += f" → preempts {', '.join(attempt['victims'])} on {attempt.get('nominatedNodeName')}"
    return text


def _change_text(pod: str, payload: dict) -> str:
    node = payload.get("node")
    return {
        "PodBound": f"{pod} bound to {node}",
        "PodTerminating": f"{pod} on {node} terminating ({payload.get('detail', '')})",
        "PodRemoved": f"{pod} removed from {node}" + (f" ({payload['detail']})" if payload.get("detail") else ""),
        "BindingFailed": f"{pod} no longer counted on {node} (its binding failed)",
        "NominationSet": f"{pod} nominated to {node}",
        "NominationCleared": f"{pod} nomination to {node} cleared",
        "PodCreated": f"{pod} created ({payload.get('detail', '')})" + (f" on {node}" if node else ""),
        "PodDeleted": f"{pod} deleted ({payload.get('detail', '')})",
        "PodEvicted": f"{pod} on {node} evicted ({payload.get('detail', '')}), terminating",
        "PodSucceeded": f"{pod} succeeded ({payload.get('detail', '')})",
        "EvictionRefused": f"eviction of {pod} from {node} refused ({payload.get('detail', '')}); retried in 5 s",
        "DrainBlocked": f"drain of {node} blocked on {pod} ({payload.get('detail', '')})",
        "NodeAdded": f"node {payload['object']} added ({payload.get('detail', '')})",
        "NodeUpdated": f"node {payload['object']} updated: {payload.get('detail', '')}",
        "NodeDeleted": f"node {payload['object']} deleted",
    }.get(payload["kind"], f"{payload['object']}: {payload.get('detail', payload['kind'])}")


# The only events StoryBuilder reads: a stored run's story is rebuilt from these alone, without
# decoding any cycle's per-node verdicts and scores (seconds on a 5000-node run).
STORY_POINTS = frozenset(point.value for point in (
    ExtensionPoint.CYCLE_START, ExtensionPoint.CYCLE_END, ExtensionPoint.ATTEMPT_END,
    ExtensionPoint.QUEUE_MOVE, ExtensionPoint.CLUSTER, ExtensionPoint.RUN_END,
    ExtensionPoint.STEP_START, ExtensionPoint.STEP_END))


def story_reads(pod: str, point: str) -> bool:
    """An event filter (columnar.EventFilter): does the story read this event?"""
    return point in STORY_POINTS


def run_story(events_json: Iterable[dict]) -> dict:
    builder = StoryBuilder()
    for event in events_json:
        builder.add_json(event)
    return builder.summary()
