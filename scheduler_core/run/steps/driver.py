"""The step driver of a run with steps (../shared/spec/CHANGES.md): when each step starts and
ends, and when the stand-in controllers get their turn.

Step 0 is the scenario itself; the stand-in controllers are active from the start. Each later step
begins 1 s after the previous one went quiet: its operations are applied in order (operations.py),
and every write reaches the scheduler as its informers deliver it. Then the controllers react
(cluster/controllers/manager.py, then the disruption controller), and again after every change the
run makes (a binding, a pod removed, an eviction), until the step goes quiet; its StepEnd tells
the step's account (record.py) and the rollouts under way (rollout_status.py).

The driver owns no scheduling and never calls the scheduler: it is one of the run's stand-ins
(``standins.StandIns``), whose ``begin``, ``react``, ``settle``, ``next_wake``, ``wake``, ``quiet``
and ``next_step_ms`` the run's loop reaches at the points where the run would otherwise stop or
the controllers get their turn.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Iterator, Optional

from scheduler_core.cluster.controllers import disruption, manager
from scheduler_core.cluster.controllers.availability import Resyncs
from scheduler_core.cluster.controllers.manager import ALL_CONTROLLERS
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.cluster.store import KIND_NODE, KIND_POD, KIND_WORKLOAD, Action, WatchEvent
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint, StepStarted
from scheduler_core.model import Changes, ObjectRef, Pod, Step
from scheduler_core.run.steps.operations import StepOperations, pod_deletion_costs
from scheduler_core.run.steps.pod_control import RunLoop, storage_classes
from scheduler_core.run.steps.record import StepRecord
from scheduler_core.run.steps.rollout_status import Rollouts
from scheduler_core.scenario import manifests

SUCCEEDED = "succeeded"  # final: a pod a `complete` made succeed
STEP_GAP_MS = 1000  # step k starts 1 s after step k-1 went quiet
MAX_CONTROLLER_PASSES = 10000  # every pass writes something or the controllers have settled


class StepDriver:
    def __init__(self, loop: RunLoop, changes: Changes, epoch: datetime) -> None:
        self.loop = loop
        self.changes = changes
        self.state = _controllers_cache(loop, changes, epoch)
        # The controllers' informers: every pod, node and workload write reaches their cache.
        loop.cluster.watch(KIND_POD, self.state.track)
        loop.cluster.watch(KIND_NODE, self.state.track)
        loop.cluster.watch(KIND_WORKLOAD, self.state.track_workload)
        loop.cluster.watch(KIND_POD, self._heard)
        self.resyncs = Resyncs(self.state)
        self.rollouts = Rollouts(self.state, self.resyncs, loop.clock)
        self.operations = StepOperations(loop, self.state, dict(changes.manifests), self.rollouts, self.react)
        self.next_step = 0  # index into changes.steps of the step to start next
        self.record = StepRecord(0, "scenario", 0)
        self.last_activity_ms = 0
        self._step_due: Optional[int] = None
        self._finished: set[str] = set()  # pods a `complete` made succeed
        # What the controllers have not reacted to yet: pods bound, pods deleted or removed.
        self._bound: list[Pod] = []
        self._deleted = False

    # ------------------------------------------------------------------ the controllers' turn

    def begin(self) -> Iterator[Event]:
        yield self.loop.event("", ExtensionPoint.STEP_START, StepStarted(0, "scenario", 0, []))

    def react(
        self, initial: bool = False, kinds: tuple[str, ...] = ALL_CONTROLLERS, changed: Optional[Pod] = None
    ) -> Iterator[Event]:
        """The controllers, in the spec's order, until none has more to write; then the budgets
        (at the very start only if the controllers wrote: until a change, the dump's status holds).
        ``kinds`` and ``changed`` narrow a reaction to a binding (see ``settle``)."""
        self.state.now_ms = self.loop.clock.ms
        wrote = False
        for _ in range(MAX_CONTROLLER_PASSES):
            writes = manager.sync_pass(self.state, kinds, storage_classes(self.loop.cluster))
            yield from self.loop.drain_moves()  # the workloads they wrote, told before the pods
            if not writes:
                break
            wrote = True
            for write in writes:
                yield from self.operations.pods.apply(write)
        else:  # the controllers never settled: a bug of the stand-ins, not an answer to give
            raise RuntimeError(f"the stand-in controllers did not settle after {MAX_CONTROLLER_PASSES} passes")
        if wrote or not initial:
            for _ in disruption.sync(self.state, self.loop.cluster, None if wrote else changed):
                yield from self.loop.drain_moves()
        if kinds == ALL_CONTROLLERS:  # every write heard so far has had its reaction
            self._bound, self._deleted = [], False

    def settle(self) -> Iterator[Event]:
        """The controllers' turn after writes of others (the scheduler's, the kubelet's) reached
        them. A pod deleted or removed: every controller. Only bindings: those a binding can move
        (``manager.bound_reactors``) and the budgets that select the pod."""
        if self._deleted:
            self.last_activity_ms = self.loop.clock.ms
            yield from self.react()
            return
        while self._bound:
            pod = self._bound.pop(0)
            self.last_activity_ms = self.loop.clock.ms
            kinds = manager.bound_reactors(self.state, self.rollouts.daemon_set_rolling())
            yield from self.react(kinds=kinds, changed=pod)

    def _heard(self, event: WatchEvent) -> None:
        """Every pod write, whoever made it: the step's account, and what ``settle`` reacts to."""
        record, key, change = self.record, event.current.key, event.change
        if event.action is Action.ADDED:
            record.created.append(key)
        elif change is ClusterChangeKind.POD_EVICTED:
            record.evicted.append(key)
            self._deleted = True
        elif change is ClusterChangeKind.POD_BOUND:
            record.placed.append(key)
            self._bound.append(event.new)
            self.resyncs.expect_available(event.new, self.loop.clock.ms, self.rollouts.under_way)
        elif change is ClusterChangeKind.POD_SUCCEEDED:
            record.succeeded.append(key)
            self._finished = self._finished | {key}
        elif event.action is Action.DELETED:
            self._deleted = True
            if change is ClusterChangeKind.POD_DELETED or not event.old.is_terminating:
                record.deleted.append(key)  # a delete, not the kubelet finishing one
        elif event.new.is_terminating and not event.old.is_terminating:
            record.deleted.append(key)
            self._deleted = True

    # ------------------------------------------------------------------ as time passes

    def attempted(self) -> None:
        self.last_activity_ms = self.loop.clock.ms

    def next_wake(self) -> Optional[int]:
        """The next refused eviction to try again, or the next pod to become available."""
        times = [t for t in (self.operations.nodes.next_retry_ms(), self.resyncs.next_ms()) if t is not None]
        return min(times) if times else None

    def wake(self) -> Iterator[Event]:
        now = self.loop.clock.ms
        self.state.now_ms = now
        yield from self.operations.nodes.retry_due(now, self.record, self.last_activity_ms)
        if self.resyncs.take_due(now):
            self.last_activity_ms = now
            yield from self.react()
        if self.next_step < len(self.changes.steps) and self._step_due == now:
            yield from self._start(self.changes.steps[self.next_step])

    def next_step_ms(self) -> Optional[int]:
        if self.next_step >= len(self.changes.steps):
            return None
        self._step_due = self.loop.clock.ms + STEP_GAP_MS
        return self._step_due

    def _start(self, step: Step) -> Iterator[Event]:
        self.next_step += 1
        now = self.loop.clock.ms
        self.record = StepRecord(step.number, step.name or step.title, now)
        self.last_activity_ms = now
        texts = [op.text for op in step.operations]
        yield self.loop.event("", ExtensionPoint.STEP_START, StepStarted(step.number, self.record.name, now, texts))
        yield from self.operations.run(step.operations, step.number)
        yield from self.react()

    def quiet(self) -> Iterator[Event]:
        """The current step went quiet: its summary (called once per step)."""
        self.state.now_ms = self.loop.clock.ms  # the rollouts' availability and deadlines as of now
        pending = [
            pod.key
            for pod in self.state.pods
            if self.state.live(pod) and not pod.node_name and pod.scheduler_name in self.loop.scenario.scheduler_names
        ]
        ended = self.record.ended(self.loop.clock.ms, pending, self.rollouts.statuses())
        yield self.loop.event("", ExtensionPoint.STEP_END, ended)

    def final(self) -> dict[str, Optional[str]]:
        """Every pod that existed at any time: its node, None (pending), "succeeded" (a ``complete``
        finished it) or "deleted"."""
        out: dict[str, Optional[str]] = {}
        for pod in self.state.pods:
            if pod.key in self._finished:
                out[pod.key] = SUCCEEDED
            elif pod.key in self.state.gone:
                out[pod.key] = "deleted"
            elif not pod.is_finished:
                out[pod.key] = pod.node_name or None
        return dict(sorted(out.items()))


def _controllers_cache(loop: RunLoop, changes: Changes, epoch: datetime) -> ClusterState:
    """What the controllers read, as the scenario starts; their writes go through the run's cluster."""
    scenario = loop.scenario
    state = ClusterState(
        list(scenario.nodes),
        scenario.pods,
        loop.cluster.workloads(),
        dict(scenario.priority_classes),
        epoch,
        created_at=_creation_times(changes, scenario.pods, epoch),
        gates=scenario.rules.gates,
    )
    state.claims = {claim.key for claim in scenario.storage.claims}
    state.clock_ms = lambda: loop.clock.ms
    state.deletion_costs = pod_deletion_costs(changes.manifests)
    state.api = loop.cluster
    return state


def recorded_creation_times(changes: Changes, pods: list[Pod]) -> dict[str, datetime]:
    """metadata.creationTimestamp of the scenario's pods that give one."""
    times: dict[str, datetime] = {}
    for pod in pods:
        manifest = changes.manifests.get(ObjectRef("Pod", pod.namespace, pod.name)) or {}
        parsed = manifests.creation_time(manifest)
        if parsed is not None:
            times[pod.key] = parsed
    return times


def _creation_times(changes: Changes, pods: list[Pod], epoch: datetime) -> dict[str, datetime]:
    """metadata.creationTimestamp of the scenario's pods; without one, a pod is older than the
    pods after it in the file (one second apart, just before the run)."""
    recorded = recorded_creation_times(changes, pods)
    return {pod.key: recorded.get(pod.key) or (epoch - timedelta(seconds=len(pods) - pod.doc_index)) for pod in pods}
