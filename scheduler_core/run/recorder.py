"""The recorder: what the scheduler does, as the one event stream (scheduler_core.encoding.events).

A cycle (schedule_one.Cycle.steps) yields typed step records and returns a typed ending
(scheduler_core.run.outcomes); ``record_cycle`` turns each into its events — and draws the plugins'
pictures for the browser — while the cycle waits at that step, so a picture sees the cycle state
and the cluster exactly as the plugins judged them. ``RunRecorder`` does the same for what the run
to the end does around the cycles (loop.py): an attempt's end, the informer events, the queue's
moves. The CLI, the web task and the tests all read this one stream.
"""

from __future__ import annotations

from typing import Any, Callable, Generator, Iterator, Optional, Protocol

import numpy as np

from scheduler_core.backend.queue.scheduling_queue import QueueMove
from scheduler_core.cluster.store import KIND_NODE, KIND_POD, WatchEvent
from scheduler_core.encoding.events import (
    AttemptEnd,
    BindingStep,
    ClusterChanged,
    ClusterChangeKind,
    CycleEnd,
    CycleStart,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    Payload,
    PostFilterOutcome,
    PostFilterSummary,
    PreFilterPluginResult,
    PreFilterSummary,
    PreScorePluginResult,
    QueueMoved,
    QueueSortResult,
    RunEnd,
    RunStart,
    ScoreResult,
    TotalResult,
)
from scheduler_core.framework.capabilities import Capabilities
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PostFilterResult
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.runtime import Framework, PostFilterRun, PreFilterOutcome
from scheduler_core.framework.status import MaybeStatus, is_failure, is_success, status_json
from scheduler_core.run.outcomes import (
    BindingFailed,
    BindingStepDone,
    Bound,
    CycleEnding,
    CycleStarted,
    CycleStep,
    FilterDone,
    FitError,
    HostSelected,
    PostFilterDone,
    PreFilterDone,
    PreScoreDone,
    SchedulingError,
    ScoreDone,
    ScoringFailed,
)
from scheduler_core.model import Pod
from scheduler_core.volume.pictures import pod_volumes


class RecordedCycle(Protocol):
    """What the recorder reads of a cycle (schedule_one.Cycle): who it schedules, where it stands."""

    index: int
    pod: Pod
    fw: Framework
    state: CycleState
    snapshot: Snapshot
    outcome: Optional[CycleEnding]  # how it ended, once steps() has returned

    def steps(self) -> Generator[CycleStep, None, CycleEnding]: ...


Reads = Optional[frozenset[ExtensionPoint]]  # the points a stream's reader reads (None: every one)


def reads_queues(reads: Reads) -> bool:
    """Whether the reader reads the queues as a cycle starts (QueueSort's order, CycleStart's queue
    and queues). A reader that leaves QueueSort out, as the timeline does, gets CycleStarts naming
    the pod alone: the run copies no queue per attempt (at 100,000 pending pods, most of its time)."""
    return reads is None or ExtensionPoint.QUEUE_SORT in reads


def record_cycle(cycle: RecordedCycle, reads: Reads = None) -> Iterator[Event]:
    """The cycle's events, step by step; the cycle's ending is left in ``cycle.outcome``. A step
    whose events are all at points ``reads`` leaves out is not written (nor its pictures drawn):
    the cycle itself runs the same."""
    recorder = CycleRecorder(cycle)
    step_events = recorder.step
    if reads is None:
        for step in cycle.steps():
            yield from step_events(step)
    else:
        for step in cycle.steps():
            if _read_by(step, reads):
                yield from step_events(step)
    assert cycle.outcome is not None  # steps() leaves its ending there
    yield recorder.ended(cycle.outcome)


def _read_by(step: CycleStep, reads: frozenset[ExtensionPoint]) -> bool:
    if type(step) is BindingStepDone:
        return step.point in reads
    return not reads.isdisjoint(_STEP_POINTS[type(step)])


class CycleRecorder:
    """One cycle's steps as events (with the pictures the browser shows)."""

    def __init__(self, cycle: RecordedCycle) -> None:
        self.cycle = cycle
        self.capabilities: Capabilities = cycle.fw.profile.capabilities

    def event(self, point: ExtensionPoint, plugin: Optional[str], payload: Payload) -> Event:
        return Event(self.cycle.index, self.cycle.pod.key, point, plugin, payload)

    def step(self, step: CycleStep) -> Iterator[Event]:
        """The events of one step (dispatched on its type)."""
        return _STEP_EVENTS[type(step)](self, step)

    def ended(self, ending: CycleEnding) -> Event:
        """CycleEnd: the node, or the FailedScheduling text — a failure found once a host was
        chosen (Score, Reserve, Permit, the binding cycle) is written as the cycle's error."""
        if isinstance(ending, Bound):
            return self.event(ExtensionPoint.CYCLE_END, None, CycleEnd(ending.node_name))
        if isinstance(ending, BindingFailed) or (
            isinstance(ending, (FitError, SchedulingError)) and ending.after_host_selection
        ):
            return self.event(ExtensionPoint.CYCLE_END, None, CycleEnd(None, error=ending.message))
        return self.event(ExtensionPoint.CYCLE_END, None, CycleEnd(None, ending.message))

    # ------------------------------------------------------------------ the steps

    def _started(self, step: CycleStarted) -> Iterator[Event]:
        cycle, pod = self.cycle, self.cycle.pod
        snapshot = cycle.snapshot
        yield self.event(
            ExtensionPoint.CYCLE_START,
            None,
            CycleStart(
                pod.key,
                pod.namespace,
                pod.name,
                pod.priority,
                dict(pod.labels),
                step.queue_view,
                len(snapshot.node_infos),
                step.pending,
                pod_volumes(pod, snapshot.storage) if pod.volumes else [],
                step.queues,
            ),
        )
        sorter = cycle.fw.profile.queue_sort[0]
        yield self.event(ExtensionPoint.QUEUE_SORT, sorter.name, QueueSortResult(step.queue_view))

    def _pre_filter(self, step: PreFilterDone) -> Iterator[Event]:
        pre: PreFilterOutcome = step.outcome
        state, pod = self.cycle.state, self.cycle.pod
        for item in pre.per_plugin:
            allowed = item.result.node_names if item.result else None
            names = sorted(allowed) if allowed is not None else None
            plugin_state = picture = None
            if is_success(item.status):
                plugin_state = _pre_filter_state_json(self.capabilities, item.plugin, state)
                describe = self.capabilities.pre_filter_picture.get(item.plugin)
                picture = describe.pre_filter_picture(state, pod) if describe is not None else None
            yield self.event(
                ExtensionPoint.PRE_FILTER,
                item.plugin,
                PreFilterPluginResult(status_json(item.status), names, plugin_state, picture),
            )
        merged = None if pre.result.node_names is None else sorted(pre.result.node_names)
        yield self.event(
            ExtensionPoint.PRE_FILTER,
            None,
            PreFilterSummary(status_json(pre.status), merged, list(pre.skipped), list(pre.narrowing_plugins)),
        )

    def _filter(self, step: FilterDone) -> Iterator[Event]:
        passed = step.passed
        table = self.cycle.snapshot.table
        evaluated = table.node_list(passed.evaluated)
        for plugin, verdict in passed.verdicts:
            yield self.event(
                ExtensionPoint.FILTER,
                plugin,
                FilterPluginResult(
                    evaluated,
                    verdict.palette,
                    verdict.choice,
                    self._node_pictures(plugin, passed.evaluated, verdict.choice),
                ),
            )
        yield self.event(
            ExtensionPoint.FILTER,
            None,
            FilterSummary(
                evaluated, step.feasible, passed.num_to_find, passed.start_index, step.nominated_only, step.batch_hint
            ),
        )

    def _node_pictures(self, plugin: str, evaluated: np.ndarray, choice: np.ndarray) -> dict[str, Any]:
        """The plugin's node pictures of the nodes it rejected (explanations: why not there; a node
        it let through would cost a picture per feasible node for every pod, 2.5x the run's time on
        200 GPU nodes). A plugin without a picture for this pod answers none."""
        offering = self.capabilities.node_picture.get(plugin)
        if offering is None:
            return {}
        snapshot = self.cycle.snapshot
        names = snapshot.table.names
        infos = [info for info in map(snapshot.get, [names[p] for p in evaluated[choice >= 0].tolist()]) if info]
        return dict(offering.node_pictures(self.cycle.state, self.cycle.pod, infos))

    def _post_filter(self, step: PostFilterDone) -> Iterator[Event]:
        run: PostFilterRun = step.run
        for item in run.per_plugin:
            yield self.event(ExtensionPoint.POST_FILTER, item.plugin, _post_filter_payload(item.result, item.status))
        code = run.status.code.label if is_failure(run.status) else "Success"
        yield self.event(
            ExtensionPoint.POST_FILTER,
            None,
            PostFilterSummary(code, run.message, run.status.plugin if is_failure(run.status) else None),
        )

    def _pre_score(self, step: PreScoreDone) -> Iterator[Event]:
        plugin, status = step.plugin, step.status
        state = _pre_score_state(self.capabilities, plugin, self.cycle.state) if is_success(status) else None
        yield self.event(ExtensionPoint.PRE_SCORE, plugin, PreScorePluginResult(status_json(status), state))

    def _score(self, step: ScoreDone) -> Iterator[Event]:
        outcome = step.outcome
        yield self.event(ExtensionPoint.SCORE, outcome.plugin, ScoreResult(step.names, outcome.raw))
        yield self.event(
            ExtensionPoint.NORMALIZE_SCORE,
            outcome.plugin,
            NormalizeResult(step.names, outcome.normalized, outcome.weight, outcome.weighted),
        )

    def _binding_step(self, step: BindingStepDone) -> Iterator[Event]:
        state = _binding_state_json(self.capabilities, step.plugin, self.cycle.state, step.node)
        yield self.event(step.point, step.plugin, BindingStep(status_json(step.status), step.node, state))

    def _total(self, step: HostSelected) -> Iterator[Event]:
        yield self.event(
            ExtensionPoint.TOTAL,
            None,
            TotalResult(step.names, step.totals, step.chosen, step.ties, tie_positions=step.tie_positions),
        )

    def _scoring_failed(self, step: ScoringFailed) -> Iterator[Event]:
        yield self.event(ExtensionPoint.TOTAL, None, TotalResult([], [], None, [], error=step.message))


# Each step type's events (a table: one lookup per step, in the hot loop of every cycle).
_STEP_EVENTS: dict[type, Callable[[CycleRecorder, Any], Iterator[Event]]] = {
    CycleStarted: CycleRecorder._started,
    PreFilterDone: CycleRecorder._pre_filter,
    FilterDone: CycleRecorder._filter,
    PostFilterDone: CycleRecorder._post_filter,
    PreScoreDone: CycleRecorder._pre_score,
    ScoreDone: CycleRecorder._score,
    HostSelected: CycleRecorder._total,
    ScoringFailed: CycleRecorder._scoring_failed,
    BindingStepDone: CycleRecorder._binding_step,
}


def _post_filter_payload(result: Optional[PostFilterResult], status: MaybeStatus) -> PostFilterOutcome:
    code = status.code.label if is_failure(status) else "Success"
    reasons = list(status.reasons) if is_failure(status) else []
    if result is None:
        return PostFilterOutcome(code, reasons, nominated_node_name=None, victims=[], candidates={})
    return PostFilterOutcome(
        code,
        reasons,
        nominated_node_name=result.nominated_node_name,
        victims=list(result.victims),
        candidates=dict(result.candidates),
        nomination_tie=result.nomination_tie,
        summary=result.summary,
    )


def _binding_state_json(capabilities: Capabilities, plugin: str, state: CycleState, node: str) -> Any:
    describe = capabilities.binding_state_json.get(plugin)
    return describe.binding_state_json(state, node) if describe is not None else None


def _pre_score_state(capabilities: Capabilities, plugin: str, state: CycleState) -> Any:
    """The plugin's typed PreScore state when it offers one (its JSON is made when the event is
    written), else its state JSON."""
    typed = capabilities.pre_score_state.get(plugin)
    if typed is not None:
        return typed.pre_score_state(state)
    describe = capabilities.pre_score_state_json.get(plugin)
    return describe.pre_score_state_json(state) if describe is not None else None


def _pre_filter_state_json(capabilities: Capabilities, plugin: str, state: CycleState) -> Any:
    describe = capabilities.pre_filter_state_json.get(plugin)
    return describe.pre_filter_state_json(state) if describe is not None else None


# The points each step's events are written at (a binding step's: the one it names).
_STEP_POINTS: dict[type, frozenset[ExtensionPoint]] = {
    CycleStarted: frozenset({ExtensionPoint.CYCLE_START, ExtensionPoint.QUEUE_SORT}),
    PreFilterDone: frozenset({ExtensionPoint.PRE_FILTER}),
    FilterDone: frozenset({ExtensionPoint.FILTER}),
    PostFilterDone: frozenset({ExtensionPoint.POST_FILTER}),
    PreScoreDone: frozenset({ExtensionPoint.PRE_SCORE}),
    ScoreDone: frozenset({ExtensionPoint.SCORE, ExtensionPoint.NORMALIZE_SCORE}),
    HostSelected: frozenset({ExtensionPoint.TOTAL}),
    ScoringFailed: frozenset({ExtensionPoint.TOTAL}),
}


# ---------------------------------------------------------------------------- the run to the end


class RunRecorder:
    """What the run to the end does around the cycles, as events: they carry the attempt they
    happen in (the last one started) and the logical clock."""

    def __init__(self, clock_ms: Callable[[], int], attempts: Callable[[], int], reads: Reads = None) -> None:
        self._clock_ms = clock_ms
        self._attempts = attempts
        self.reads = reads  # the cycles' events are written for a reader of these points only

    def event(self, pod: Optional[str], point: ExtensionPoint, payload: Payload) -> Event:
        return Event(max(self._attempts() - 1, 0), pod or "", point, None, payload)

    def cluster(self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = "") -> Event:
        return self.event(key, ExtensionPoint.CLUSTER, ClusterChanged(self._clock_ms(), kind, key, node, detail))

    def write(self, event: WatchEvent) -> Event:
        """A write of the run's cluster as the story tells it: the change its writer named, on the
        pod's node; a status patch that moves the nomination is told as that nomination."""
        obj = event.current
        if event.kind == KIND_NODE:
            return self.cluster(obj.name, event.change, obj.name, event.detail)
        if event.kind != KIND_POD:  # a workload or a budget
            return self.cluster(obj.key, event.change, None, event.detail)
        old, new = event.old, event.new
        if event.change is ClusterChangeKind.POD_STATUS and old.nominated_node_name != new.nominated_node_name:
            kind = ClusterChangeKind.NOMINATION_SET if new.nominated_node_name else ClusterChangeKind.NOMINATION_CLEARED
            return self.cluster(obj.key, kind, new.nominated_node_name or old.nominated_node_name)
        if event.change is ClusterChangeKind.POD_CREATED:  # as made: its labels and claims (docs/CHANGES.md "Output")
            return self.event(
                obj.key,
                ExtensionPoint.CLUSTER,
                ClusterChanged(
                    self._clock_ms(),
                    event.change,
                    obj.key,
                    obj.node_name or None,
                    event.detail,
                    dict(obj.labels),
                    [c.to_json() for c in obj.claim_sources] or None,
                ),
            )
        return self.cluster(obj.key, event.change, obj.node_name or None, event.detail)

    def run_start(self, pods: dict[str, Optional[str]], release: str) -> Event:
        """Every pod of the scenario and where it is (None: pending) as the run starts."""
        return self.event(None, ExtensionPoint.RUN_START, RunStart(pods, release))

    def run_end(
        self, attempts: int, final: dict[str, Optional[str]], nominated: dict[str, str], stopped: list[str]
    ) -> Event:
        """Where every pod ended, the nominations left, the pods left retrying errors."""
        return self.event(None, ExtensionPoint.RUN_END, RunEnd(self._clock_ms(), attempts, final, nominated, stopped))

    def bound(self, pod: str, attempt: int) -> Event:
        """The attempt that bound its pod ends (its binding's writes come later)."""
        return self.event(pod, ExtensionPoint.ATTEMPT_END, AttemptEnd(self._clock_ms(), attempt))

    def failed(
        self,
        pod: str,
        attempt: int,
        written: Optional[str],
        victims: list[str],
        binding: Optional[BindingFailed],
        cycle: Optional[int] = None,
    ) -> Event:
        """The failure handler's attempt end: the nomination it wrote, the victims its preemption
        chose, the binding cycle's error; ``cycle``: the end of an earlier attempt, told again (a
        binding blocked in PreBind that a preemption cancelled fails with another error)."""
        return self.event(
            pod,
            ExtensionPoint.ATTEMPT_END,
            AttemptEnd(
                self._clock_ms(),
                attempt,
                written,
                victims,
                binding.message if binding else None,
                binding.node if binding else None,
                binding.after_ms or None if binding else None,
                cycle,
            ),
        )

    def moves(self, moves: list[QueueMove]) -> Iterator[Event]:
        """The queue's moves since the last call, in order (the list is emptied)."""
        for move in moves:
            yield self.event(
                move.pod,
                ExtensionPoint.QUEUE_MOVE,
                QueueMoved(self._clock_ms(), move.to.value, move.event, list(move.plugins)),
            )
        moves.clear()
