"""The timeline of ../shared/spec/TIMELINE.md, as a projection of the run's event stream.

Like ``trace``, it reads typed events: live ones, or stored ones read back from their wire form
(``events.read_events``), so the web app rebuilds a timeline exactly as the CLI builds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Iterable, Optional, Union

import msgspec

from scheduler_core.util.wire import Wire
from scheduler_core.encoding.events import (
    AttemptEnd,
    ClusterChanged,
    ClusterChangeKind,
    CycleEnd,
    CycleStart,
    EVENT_KINDS,
    Event,
    ExtensionPoint,
    QueueMoved,
    RolloutCounts,
    RolloutStatus,
    RunEnd,
    RunStart,
    StepEnded,
    StepStarted,
    event_from_json,
    read_events,
)


class TimelineAttempt(Wire, kw_only=True):
    """An attempt of ``timeline --json`` (../shared/spec/TIMELINE.md): its pod, the node it bound to (null:
    not scheduled), the step it ran in (a run with steps), its FailedScheduling message, the
    nomination it wrote, the victims its preemption chose, its binding's error."""

    pod: str
    node_name: Optional[str]
    step: Optional[int] = None
    failed_scheduling_message: Optional[str] = None
    nominated_node_name: Optional[str] = None
    victims: list[str] = []
    binding_error: Optional[str] = None


class PendingPod(Wire):
    """A new pod of a rollout still pending when its step went quiet, with its last FailedScheduling
    message (null: not attempted yet)."""

    pod: str
    failed_scheduling_message: Optional[str]


class DeadlineEntry(Wire):
    """A Deployment rollout's progress deadline as ``timeline --json`` writes it: when it passes (or
    passed) on the run's clock, as the other times are written."""

    seconds: int
    passes_at: str
    exceeded: bool


class RolloutEntry(RolloutCounts, kw_only=True):
    """A rollout of ``timeline --json`` and of the run view's steps: the step, the counts of its
    ``RolloutStatus`` (declared once, in ``RolloutCounts``), the new pods still pending with their
    messages, and kubectl rollout status's sentence."""

    step: int
    pending: list[PendingPod]
    partition: Optional[int] = None
    paused: Optional[bool] = None
    progress_deadline: Optional[DeadlineEntry] = None
    status: str


AnyAttempt = Union[TimelineAttempt, "StoryAttempt"]


class TimelineBuilder:
    def __init__(self) -> None:
        self.release = ""
        self.attempts: list[TimelineAttempt] = []
        self.final: dict[str, Any] = {}
        self.nominated: dict[str, str] = {}
        self.steps: list[dict[str, Any]] = []  # a run with steps (../shared/spec/CHANGES.md) only
        self._step: Optional[int] = None  # the step under way; None: a run without steps
        self.stopped_retrying: list[str] = []
        self.rollouts: list[RolloutEntry] = []  # a run with a rollout only

    def add(self, event: Event) -> None:
        # Most of a run's events (every extension point's) say nothing to the timeline: the
        # handler, or None, is found once per payload type (as the isinstance checks below decide).
        payload = event.payload
        kind = type(payload)
        handler = _HANDLERS.get(kind, _UNKNOWN)
        if handler is _UNKNOWN:
            handler = _HANDLERS[kind] = _handler_of(kind)
        if handler is not None:
            handler(self, payload)

    def _run_start(self, payload: RunStart) -> None:
        self.release = payload.release

    def _cycle_start(self, payload: CycleStart) -> None:
        self.attempts.append(TimelineAttempt(pod=payload.pod, node_name=None, step=self._step))

    def _step_started(self, payload: StepStarted) -> None:
        self._step = payload.step

    def _step_ended(self, payload: StepEnded) -> None:
        self.steps.append(step_entry(payload))
        messages = last_messages(self.attempts)
        self.rollouts.extend(rollout_entry(payload.step, r, messages) for r in payload.rollouts)

    def _cycle_end(self, payload: CycleEnd) -> None:
        cycle_ended(self.attempts[-1], payload)

    def _attempt_end(self, payload: AttemptEnd) -> None:
        corrected = payload.corrects_cycle
        if corrected is None:
            attempt_ended(self.attempts[-1], payload)
        elif 0 <= corrected < len(self.attempts):  # a run's cycles are its attempts, in order
            attempt_ended(self.attempts[corrected], payload)

    def _run_end(self, payload: RunEnd) -> None:
        self.final = dict(payload.final)
        self.nominated = dict(payload.nominated)
        self.stopped_retrying = list(payload.stopped_retrying)

    def add_json(self, event: dict[str, Any]) -> None:
        """A stored event (``Event.to_json()``), read back typed."""
        self.add(event_from_json(event))

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"release": self.release, "attempts": [attempt.to_json() for attempt in self.attempts]}
        if self._step is not None:
            out["steps"] = self.steps
        if self.rollouts:  # only a run with a rollout has the key (docs/CHANGES.md "Rollouts")
            out["rollouts"] = [rollout.to_json() for rollout in self.rollouts]
        out["final"] = dict(sorted(self.final.items()))
        if self.nominated:
            out["nominated"] = dict(sorted(self.nominated.items()))
        if self.stopped_retrying:  # not in the spec's output: only when the release would never end
            out["stoppedRetrying"] = self.stopped_retrying
        return out


# TimelineBuilder.add: what each payload type tells the timeline, in the order its checks run.
_BY_PAYLOAD: tuple[tuple[type, Callable[[TimelineBuilder, Any], None]], ...] = (
    (RunStart, TimelineBuilder._run_start),
    (CycleStart, TimelineBuilder._cycle_start),
    (StepStarted, TimelineBuilder._step_started),
    (StepEnded, TimelineBuilder._step_ended),
    (CycleEnd, TimelineBuilder._cycle_end),
    (AttemptEnd, TimelineBuilder._attempt_end),
    (RunEnd, TimelineBuilder._run_end),
)


def _points_read() -> frozenset[ExtensionPoint]:
    bases = tuple(base for base, _ in _BY_PAYLOAD)
    return frozenset(
        kind.point
        for kind in EVENT_KINDS.values()
        if any(declared is not None and issubclass(declared, bases) for declared in (kind.by_plugin, kind.summary))
    )


# The points whose events the builder reads, those of its payloads' declarations: a run made for it
# alone (``run_to_the_end(reads=...)``, `timeline --json`) leaves the cycles' other events unwritten.
TIMELINE_READS = _points_read()
_UNKNOWN = object()
_HANDLERS: dict[type, Any] = {}  # payload type -> its handler, or None (found by _handler_of)


def _handler_of(kind: type) -> Optional[Callable[[TimelineBuilder, Any], None]]:
    return next((handler for base, handler in _BY_PAYLOAD if issubclass(kind, base)), None)


def cycle_ended(attempt: AnyAttempt, payload: CycleEnd) -> None:
    """An attempt's outcome from its CycleEnd: the node, or why not."""
    attempt.node_name = payload.node_name
    if payload.node_name is None:
        message = payload.failed_scheduling_message or payload.error
        if message is not None:
            attempt.failed_scheduling_message = message


def attempt_ended(attempt: AnyAttempt, payload: AttemptEnd) -> None:
    """What the run to the end adds to an attempt: the nomination, the victims, a failed binding
    (a correction of an earlier attempt's end changes only its binding error)."""
    if payload.corrects_cycle is None:
        attempt.nominated_node_name = payload.nominated_node_name
        attempt.victims = payload.victims
    if payload.binding_error is not None:  # a node was chosen; its binding failed (no FailedScheduling text)
        attempt.binding_error = payload.binding_error
        attempt.node_name = payload.binding_node
        attempt.failed_scheduling_message = None


def step_entry(payload: StepEnded) -> dict[str, Any]:
    """A step of ``timeline --json`` (../shared/spec/CHANGES.md "Output") from its StepEnd payload."""
    return {
        "step": payload.step,
        "name": payload.name,
        "at": clock_text(payload.started_ms),
        "created": payload.created,
        "deleted": payload.deleted,
        "evicted": payload.evicted,
        "succeeded": payload.succeeded,
        "blocked": [b.to_json() for b in payload.blocked],
        "pending": payload.pending,
    }


def last_messages(attempts: Sequence[AnyAttempt]) -> dict[str, str]:
    """Each pod's FailedScheduling message of its last attempt, when that attempt failed."""
    messages: dict[str, str] = {}
    for attempt in attempts:
        if attempt.node_name is None and attempt.failed_scheduling_message is not None:
            messages[attempt.pod] = attempt.failed_scheduling_message
        else:
            messages.pop(attempt.pod, None)
    return messages


def rollout_entry(step: int, rollout: RolloutStatus, messages: dict[str, str]) -> RolloutEntry:
    """A rollout of ``timeline --json``: its counts when the step went quiet, kubectl rollout
    status's sentence, and each new pod still pending with its FailedScheduling message."""
    counts = msgspec.structs.asdict(rollout)
    counts["pending"] = [PendingPod(pod, messages.get(pod)) for pod in rollout.pending]
    deadline = rollout.progress_deadline
    counts["progress_deadline"] = (
        None
        if deadline is None
        else DeadlineEntry(deadline.seconds, clock_text(max(deadline.passes_ms, 0)), deadline.exceeded)
    )
    return RolloutEntry(step=step, **counts, status=rollout_status_text(rollout))


def rollout_status_text(rollout: RolloutStatus) -> str:
    """What ``kubectl rollout status`` prints for these counts (DeploymentStatusViewer.Status,
    StatefulSetStatusViewer.Status)."""
    if rollout.kind == "StatefulSet":
        return _stateful_set_status_text(rollout)
    if rollout.kind == "DaemonSet":
        return _daemon_set_status_text(rollout)
    name = rollout.workload.split("/", 1)[-1]
    if rollout.progress_deadline is not None and rollout.progress_deadline.exceeded:
        return f'deployment "{name}" exceeded its progress deadline'  # kubectl's error for ProgressDeadlineExceeded
    waiting = f'Waiting for deployment "{name}" rollout to finish: '
    if rollout.updated < rollout.desired:
        return f"{waiting}{rollout.updated} out of {rollout.desired} new replicas have been updated..."
    if rollout.replicas > rollout.updated:
        return f"{waiting}{rollout.replicas - rollout.updated} old replicas are pending termination..."
    if rollout.available < rollout.updated:
        return f"{waiting}{rollout.available} of {rollout.updated} updated replicas are available..."
    return f'deployment "{name}" successfully rolled out'


def _stateful_set_status_text(rollout: RolloutStatus) -> str:
    """StatefulSetStatusViewer: OnDelete has no rollout status; RollingUpdate (the API server
    always defaults a partition) waits for every pod to be ready, then for the pods at or above
    the partition to be updated. ``available`` stands for readyReplicas (ready is available here)."""
    if rollout.strategy != "RollingUpdate":
        return (
            f"rollout status is only available for RollingUpdate strategy type ({rollout.updated} of "
            f"{rollout.desired} pods at the new revision; OnDelete replaces a pod only when it is deleted)"
        )
    if rollout.available < rollout.desired:
        return f"Waiting for {rollout.desired - rollout.available} pods to be ready..."
    wanted = rollout.desired - (rollout.partition or 0)
    if rollout.updated < wanted:
        return f"Waiting for partitioned roll out to finish: {rollout.updated} out of {wanted} new pods have been updated..."
    return f"partitioned roll out complete: {rollout.updated} new pods have been updated..."


def _daemon_set_status_text(rollout: RolloutStatus) -> str:
    """DaemonSetStatusViewer: updated, then available, out of the nodes that should run a pod."""
    name = rollout.workload.split("/", 1)[-1]
    if rollout.strategy != "RollingUpdate":
        return (
            f"rollout status is only available for RollingUpdate strategy type ({rollout.updated} of "
            f"{rollout.desired} pods at the new revision; OnDelete replaces a pod only when it is deleted)"
        )
    waiting = f'Waiting for daemon set "{name}" rollout to finish: '
    if rollout.updated < rollout.desired:
        return f"{waiting}{rollout.updated} out of {rollout.desired} new pods have been updated..."
    if rollout.available < rollout.desired:
        return f"{waiting}{rollout.available} of {rollout.desired} updated pods are available..."
    return f'daemon set "{name}" successfully rolled out'


def rollout_lines(rollout: RolloutStatus, messages: dict[str, str]) -> list[str]:
    """The readable account of a rollout under a step's heading: kubectl's sentence, and for a
    rollout that went quiet unfinished, that it is stuck and why each new pod is pending."""
    lines = [
        f"   rollout of {rollout.kind} {rollout.workload} to revision {rollout.revision} "
        f"({rollout.update_revision}): {rollout_status_text(rollout)}"
    ]
    if rollout.strategy == "OnDelete":
        return lines
    if not rollout.complete:
        lines.append(
            f"   stuck: the run went quiet with {rollout.updated} of {rollout.desired} new replicas "
            f"created, {rollout.available} available, {len(rollout.old_pods)} old pod(s) left "
            f"({_stuck_outlook(rollout)})"
        )
        lines.extend(f"     {pod} pending: {messages.get(pod) or 'not attempted yet'}" for pod in rollout.pending)
    return lines


def _stuck_outlook(rollout: RolloutStatus) -> str:
    """What a stuck rollout leads to: a Deployment's progress deadline (when it passes, or that it
    passed), a paused Deployment's wait for a resume; otherwise kubectl's wait."""
    deadline = rollout.progress_deadline
    if rollout.paused:
        return "the Deployment is paused: it rolls on once a step sets spec.paused to false"
    if deadline is None:
        return "kubectl rollout status would wait, then report that the deployment exceeded its progress deadline"
    if deadline.exceeded:
        return (
            f"its progress deadline of {deadline.seconds} s passed at {clock_text(max(deadline.passes_ms, 0))}: "
            "Progressing is False, ProgressDeadlineExceeded"
        )
    return (
        f"its progress deadline of {deadline.seconds} s passes at {clock_text(deadline.passes_ms)} unless it "
        "progresses: then kubectl rollout status reports that it exceeded its progress deadline"
    )


def step_heading(payload: StepEnded, messages: Optional[dict[str, str]] = None) -> str:
    """The readable account's heading of a step: "step 2 — drain node-7: 6 pods evicted, 5
    placed, 1 pending: default/x", then a few lines per rollout under way."""
    counts = [
        f"{len(pods)} {label}"
        for pods, label in (
            (payload.created, "created"),
            (payload.deleted, "deleted"),
            (payload.evicted, "evicted"),
            (payload.succeeded, "succeeded"),
            (payload.placed, "placed"),
        )
        if pods
    ]
    pending = payload.pending
    counts.append(
        f"{len(pending)} pending"
        + (f": {', '.join(pending[:10])}" + (", …" if len(pending) > 10 else "") if pending else "")
    )
    text = f"step {payload.step} — {payload.name}: {', '.join(counts)}"
    for blocked in payload.blocked:
        text += f"; drain blocked: {blocked.pod} (budget {blocked.budget})"
    for rollout in payload.rollouts:
        text += "\n" + "\n".join(rollout_lines(rollout, messages or {}))
    return text


def timeline_summary(events: Iterable[Event]) -> dict[str, Any]:
    builder = TimelineBuilder()
    for event in events:
        builder.add(event)
    return builder.summary()


# How a queue move's cause reads ({other}: the object of the last cluster change).
_EVENT_WORDS = {
    "UnschedulablePodAdd": "created",
    "AssignedPodAdd": "pod {other} bound",
    "AssignedPodDelete": "pod {other} deleted",
    "AssignedPodUpdate": "pod {other} updated",
}


def clock_text(ms: int) -> str:
    """Minutes:seconds.milliseconds of the run's logical clock (12:00.000 is twelve minutes in)."""
    return f"{ms // 60000}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


class StoryAttempt(Wire, kw_only=True):
    """An attempt as the run view's timeline lists it: its cycle, pod and priority, the node it bound
    to or its FailedScheduling message; a run to the end adds when it ended (``timeMs``, ``time``),
    the pod's attempt number, the nomination, the victims and a failed binding; a run with steps the
    step it ran in, as ``timeline --json`` has it. ``text``: the sentence ``timeline`` prints for it
    (absent while the attempt is under way)."""

    cycle: int
    pod: str
    priority: int
    node_name: Optional[str]
    step: Optional[int] = None
    failed_scheduling_message: Optional[str] = None
    time_ms: Optional[int] = None
    attempt: Optional[int] = None
    time: Optional[str] = None
    nominated_node_name: Optional[str] = None
    victims: list[str] = []
    binding_error: Optional[str] = None
    binding_wait: Optional[str] = None  # how long its binding waited in PreBind before it failed
    text: Optional[str] = None


class StoryMove(QueueMoved, kw_only=True):
    """A queue move as the timeline lists it: the QueueMove payload's fields, the attempt it followed
    (``cycle``: -1 before the first), the moved pod, the time and the sentence."""

    cycle: int
    pod: str
    time: str
    text: str


class StoryChange(ClusterChanged, kw_only=True):
    """A cluster change as the timeline lists it: the Cluster payload's fields, the attempt it
    followed, the pod (or "" for other objects), the time and the sentence."""

    cycle: int
    pod: str
    time: str
    text: str


class StepSummary(StepEnded):
    """A step's StepEnd payload as the run view shows it: each rollout as ``timeline --json`` has it, and
    every pod still pending with its last FailedScheduling message."""

    rollouts: list[RolloutEntry] = []  # type: ignore[assignment]
    pending_why: list[PendingPod] = []  # every pod still pending, a rollout's or not, with its last message


class StoryStep(Wire, kw_only=True):
    """A step of a run with steps: its heading (number, name, operations, start, sentence) and, once
    it went quiet, its summary."""

    step: int
    name: str
    time_ms: int
    time: str
    operations: list[str]
    text: str
    summary: Optional[StepSummary] = None


class StoryEntry(Wire):
    """One line of the timeline, in stream order: which list (attempt, move, change, step) and where."""

    kind: str
    index: int


class RunStory(Wire, kw_only=True):
    """What the run view's timeline draws (GET /api/runs/N/timeline): every attempt, queue move and
    cluster change with its time and sentence, the entries in stream order, where every pod ended,
    the nominations left, the run's end in one sentence; a run with steps adds its steps."""

    attempts: list[StoryAttempt]
    moves: list[StoryMove]
    changes: list[StoryChange]
    entries: list[StoryEntry]
    final: dict[str, Optional[str]]
    nominated: dict[str, str]
    time_ms: Optional[int]  # the run's end (null while under way)
    finished: bool
    outcome: str
    steps: list[StoryStep] = []  # a run with steps only: the story of a run without keeps its shape


class StoryBuilder:
    """What the run view draws for a run to the end, from the same stream: every attempt with its
    time, the pod's attempt number and outcome; every queue move (which event, which plugins'
    hints); every change to the cluster (bindings, victims terminating and removed, nominations).
    ``cycle`` on a move or a change is the attempt it followed (-1: before the first). Each item
    carries ``text``, the sentence `timeline` prints for it (the browser shows it as it is), and
    ``entries`` lists every item in stream order as (kind, index)."""

    def __init__(self) -> None:
        self.attempts: list[StoryAttempt] = []
        self.moves: list[StoryMove] = []
        self.changes: list[StoryChange] = []
        self.entries: list[tuple[str, int]] = []
        self.end: Optional[RunEnd] = None
        self.steps: list[StoryStep] = []  # a run with steps: one heading each
        self._cause = ""  # the object of the last cluster change, named in the moves it causes

    def add(self, event: Event) -> None:
        payload = event.payload
        if isinstance(payload, CycleStart):
            step = self.steps[-1].step if self.steps else None
            self.attempts.append(
                StoryAttempt(cycle=event.cycle, pod=payload.pod, priority=payload.priority, node_name=None, step=step)
            )
        elif isinstance(payload, CycleEnd) and self.attempts:
            cycle_ended(self.attempts[-1], payload)
            if self.attempts[-1].time_ms is None:  # a single pass has no AttemptEnd
                self.attempts[-1].text = _attempt_text(self.attempts[-1], None)
        elif isinstance(payload, AttemptEnd) and payload.corrects_cycle is not None:
            self._corrected(payload)
        elif isinstance(payload, AttemptEnd) and self.attempts:
            attempt = self.attempts[-1]
            attempt.time_ms, attempt.attempt = payload.time_ms, payload.attempt
            attempt.time = clock_text(payload.time_ms)
            if payload.binding_wait_ms is not None:
                attempt.binding_wait = wait_text(payload.binding_wait_ms)
            attempt_ended(attempt, payload)
            attempt.text = _attempt_text(attempt, payload.attempt)
            self.entries.append(("attempt", len(self.attempts) - 1))
        elif isinstance(payload, QueueMoved):
            self._move(event.pod, payload)
        elif isinstance(payload, ClusterChanged):
            self._change(event.pod, payload)
        elif isinstance(payload, StepStarted):
            self.steps.append(
                StoryStep(
                    step=payload.step,
                    name=payload.name,
                    time_ms=payload.time_ms,
                    time=clock_text(payload.time_ms),
                    operations=payload.operations,
                    text=f"step {payload.step} — {payload.name}",
                )
            )
            self.entries.append(("step", len(self.steps) - 1))
        elif isinstance(payload, StepEnded) and self.steps:
            self._step_ended(payload)
        elif isinstance(payload, RunEnd):
            self.end = payload

    def add_json(self, event: dict[str, Any]) -> None:
        """A stored event (``Event.to_json()``), read back typed."""
        self.add(event_from_json(event))

    def _corrected(self, payload: AttemptEnd) -> None:
        """A late end of an earlier attempt (its binding cancelled while it waited in PreBind)."""
        attempt = next((a for a in self.attempts if a.cycle == payload.corrects_cycle), None)
        if attempt is None:
            return
        attempt.binding_wait = wait_text(payload.binding_wait_ms) if payload.binding_wait_ms is not None else None
        attempt_ended(attempt, payload)
        attempt.text = _attempt_text(attempt, payload.attempt)

    def _move(self, pod: str, payload: QueueMoved) -> None:
        reason = _EVENT_WORDS.get(payload.event, payload.event).format(other=self._cause or "?")
        plugins = f" ({', '.join(payload.plugins)})" if payload.plugins else ""
        self.moves.append(
            StoryMove(
                **msgspec.structs.asdict(payload),
                cycle=self._after(),
                pod=pod,
                time=clock_text(payload.time_ms),
                text=f"{pod} moved to {payload.queue}: {reason}{plugins}",
            )
        )
        if payload.event != "ScheduleAttemptFailure":  # said by the attempt's own sentence
            self.entries.append(("move", len(self.moves) - 1))

    def _change(self, pod: str, payload: ClusterChanged) -> None:
        self._cause = payload.object
        self.changes.append(
            StoryChange(
                **msgspec.structs.asdict(payload),
                cycle=self._after(),
                pod=pod,
                time=clock_text(payload.time_ms),
                text=_change_text(pod, payload),
            )
        )
        if payload.kind is not ClusterChangeKind.POD_STATUS:  # said by the attempt's or the victim's sentence
            self.entries.append(("change", len(self.changes) - 1))

    def _step_ended(self, payload: StepEnded) -> None:
        """The step's summary: its StepEnd payload, each rollout with kubectl's sentence and each
        pending pod's message, as timeline --json has them."""
        messages = last_messages(self.attempts)
        rollouts = [rollout_entry(payload.step, r, messages) for r in payload.rollouts]
        # Every pod still pending, a rollout's or not, with why: its last FailedScheduling message.
        pending_why = [PendingPod(pod, messages.get(pod)) for pod in payload.pending]
        summary = StepSummary(**{**msgspec.structs.asdict(payload), "rollouts": rollouts}, pending_why=pending_why)
        self.steps[-1].summary = summary
        self.steps[-1].text = step_heading(payload, messages)

    def _after(self) -> int:
        return self.attempts[-1].cycle if self.attempts else -1

    def lines(self) -> list[str]:
        """The readable account: one timed sentence per entry, then the end."""
        items: dict[str, Sequence[StoryAttempt | StoryMove | StoryChange | StoryStep]] = {
            "attempt": self.attempts,
            "move": self.moves,
            "change": self.changes,
            "step": self.steps,
        }
        out = [
            f"{items[kind][i].time} {items[kind][i].text}"
            if kind != "step"
            else f"\n== {items[kind][i].time} {items[kind][i].text}"
            for kind, i in self.entries
        ]
        if self.end is not None:
            out.append(f"{clock_text(self.end.time_ms)} {self._end_text(self.end)}")
        return out

    @staticmethod
    def _end_text(end: RunEnd) -> str:
        stopped = end.stopped_retrying
        if stopped:
            return (
                f"run stopped after {end.attempts} attempt(s): {', '.join(stopped)} kept failing with "
                "an error and nothing else happened (the real scheduler retries them forever)"
            )
        return f"run ended after {end.attempts} attempt(s)"

    def _outcome_text(self) -> str:
        """The end in one sentence: who is still pending, who is nominated where."""
        if self.end is None:
            return "The run has not ended yet."
        pending = [pod for pod, node in sorted(self.end.final.items()) if node is None]
        nominated = [f"{pod} → {node}" for pod, node in sorted(self.end.nominated.items())]
        parts = [
            f"At {clock_text(self.end.time_ms)} the {self._end_text(self.end)}.",
            f"Still pending: {', '.join(pending)}." if pending else "Every pod is placed.",
        ]
        if nominated:
            parts.append(f"Nominated: {', '.join(nominated)}.")
        return " ".join(parts)

    def story(self) -> RunStory:
        end = self.end
        return RunStory(
            attempts=self.attempts,
            moves=self.moves,
            changes=self.changes,
            entries=[StoryEntry(kind, i) for kind, i in self.entries],
            final=dict(sorted((end.final if end else {}).items())),
            nominated=dict(sorted((end.nominated if end else {}).items())),
            time_ms=end.time_ms if end else None,
            finished=end is not None,
            outcome=self._outcome_text(),
            steps=self.steps,
        )

    def summary(self) -> dict[str, Any]:
        return self.story().to_json()


def _attempt_text(attempt: StoryAttempt, number: Optional[int]) -> str:
    which = f"{attempt.pod} (attempt {number})" if number is not None else attempt.pod
    if attempt.binding_error and attempt.binding_wait:
        return (
            f"{which}: chose {attempt.node_name}, binding waits for device binding conditions and fails "
            f"{attempt.binding_wait} later — {attempt.binding_error}"
        )
    if attempt.binding_error:
        return f"{which}: chose {attempt.node_name}, binding failed — {attempt.binding_error}"
    if attempt.node_name:
        return f"{which}: scheduled to {attempt.node_name}"
    text = f"{which}: unschedulable — {attempt.failed_scheduling_message or ''}"
    if attempt.victims:
        text += f" → preempts {', '.join(attempt.victims)} on {attempt.nominated_node_name}"
    return text


def wait_text(ms: int) -> str:
    """A wait as a person says it: "10 min", "90 s", "2.5 s"."""
    if ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms // 1000} s" if ms % 1000 == 0 else f"{ms / 1000:g} s"


def _change_text(pod: str, payload: ClusterChanged) -> str:
    node, detail, kind = payload.node, payload.detail, ClusterChangeKind
    return {
        kind.POD_BOUND: f"{pod} bound to {node}",
        kind.POD_TERMINATING: f"{pod} on {node} terminating ({detail})",
        kind.POD_REMOVED: f"{pod} removed from {node}" + (f" ({detail})" if detail else ""),
        kind.BINDING_FAILED: f"{pod} no longer counted on {node} (its binding failed)",
        kind.NOMINATION_SET: f"{pod} nominated to {node}",
        kind.NOMINATION_CLEARED: f"{pod} nomination to {node} cleared",
        kind.POD_STATUS: f"{pod} status written ({detail})",
        kind.POD_CREATED: f"{pod} created ({detail})" + (f" on {node}" if node else ""),
        kind.POD_DELETED: f"{pod} deleted ({detail})",
        kind.POD_EVICTED: f"{pod} on {node} evicted ({detail}), terminating",
        kind.POD_SUCCEEDED: f"{pod} succeeded ({detail})",
        kind.EVICTION_REFUSED: f"eviction of {pod} from {node} refused ({detail}); retried in 5 s",
        kind.DRAIN_BLOCKED: f"drain of {node} blocked on {pod} ({detail})",
        kind.NODE_ADDED: f"node {payload.object} added ({detail})",
        kind.NODE_UPDATED: f"node {payload.object} updated: {detail}",
        kind.NODE_DELETED: f"node {payload.object} deleted",
    }.get(payload.kind, f"{payload.object}: {detail or payload.kind.value}")


# The only events StoryBuilder reads: a stored run's story is rebuilt from these alone, without
# decoding any cycle's per-node verdicts and scores (seconds on a 5000-node run).
STORY_POINTS = frozenset(
    point.value
    for point in (
        ExtensionPoint.CYCLE_START,
        ExtensionPoint.CYCLE_END,
        ExtensionPoint.ATTEMPT_END,
        ExtensionPoint.QUEUE_MOVE,
        ExtensionPoint.CLUSTER,
        ExtensionPoint.RUN_END,
        ExtensionPoint.STEP_START,
        ExtensionPoint.STEP_END,
    )
)


def story_reads(pod: str, point: str) -> bool:
    """An event filter (columnar.EventFilter): does the story read this event?"""
    return point in STORY_POINTS


def run_story(events_json: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The story of a stored run: the events it reads (STORY_POINTS) read back typed, in order."""
    builder = StoryBuilder()
    for event in read_events(e for e in events_json if e["extensionPoint"] in STORY_POINTS):
        builder.add(event)
    return builder.summary()
