"""The kube-scheduler process of a run (pkg/scheduler/scheduler.go): the Scheduler, New and Run.

What the release's binary does and nothing else: its informers (the run's cluster delivers every
pod, node, workload and budget write to ``EventHandlers``; its storage and device writes reach the
caches at once through scheduler_core.cluster.informers, and the handlers at the run's points,
``storage_changes``), its scheduling queue, and Run's loop calling ScheduleOne — whose attempt
(pop a pod, run its scheduling cycle, then the binding cycle or handleSchedulingFailure) is
scheduler_core.run.schedule_one's, as upstream's methods of one ``*Scheduler`` are spread over
scheduler.go and schedule_one.go. The scheduler writes only through the cluster (bindings, status
patches, nominations, a preemption's victims).

Work the release hands to goroutines — a binding cycle's API calls, a preemption's — is kept as
``AsyncWork`` and lands once the next pod's attempt is over (scheduler_core.run.loop decides when).
The other components of the cluster (the kubelet, the controllers) are not here: they watch the
same cluster (scheduler_core.run.standins); ``others_react`` gives them their turn once this
scheduler's own writes have been delivered, as they would act while it goes on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Generator, Iterator, Optional, TypeVar

from scheduler_core.backend.queue import (
    HintFunction,
    LogicalClock,
    Nominator,
    PodSigner,
    PreEnqueuePlugin,
    QueueingHintMap,
    SchedulingQueue,
)
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_BUDGET, KIND_NODE, KIND_POD, KIND_WORKLOAD, Cluster, WatchEvent
from scheduler_core.encoding.events import ClusterChangeKind, Event
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterChange,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
)
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.signers import Signature
from scheduler_core.model import Pod, Scenario, names
from scheduler_core.plugins.queue_sort import PrioritySort
from scheduler_core.run.eventhandlers import EventHandlers
from scheduler_core.run.recorder import RunRecorder
from scheduler_core.run.schedule_one import ScheduleOne, Scheduler, WaitingBinding

MS_PER_SECOND = 1000
# defaultEnqueueExtension: a plugin that says nothing is moved by every kind of event.
# UnrollWildCardResource: what a plugin without EventsToRegister is moved by (GenericWorkload is off).
_EVERY_EVENT = tuple(
    ClusterEventWithHint(ClusterEvent(resource, ActionType.ALL))
    for resource in (
        EventResource.POD,
        EventResource.NODE,
        EventResource.PERSISTENT_VOLUME,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.CSI_NODE,
        EventResource.CSI_DRIVER,
        EventResource.CSI_STORAGE_CAPACITY,
        EventResource.STORAGE_CLASS,
        EventResource.RESOURCE_CLAIM,
        EventResource.DEVICE_CLASS,
    )
)
NODE_TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
# A pod failing with an error goes back to backoffQ and is retried forever (a CEL runtime error in a
# device selector, a pool being updated): after this long with nothing but such retries the run stops.
ERROR_RETRY_HORIZON_MS = 60 * MS_PER_SECOND


Result = TypeVar("Result")


def _nothing() -> Iterator[Event]:
    return iter(())


class AsyncWork:
    """What a goroutine of the scheduler does: it reads the scheduler's state when it starts
    (``begin``, once the next pod has been popped) and its API writes come back as informer
    events later (``land``, once that pod's attempt is over)."""

    def __init__(self, begin: Callable[[], None], land: Callable[[], Iterator[Event]]) -> None:
        self.begin = begin
        self.land = land


class KubeScheduler(ScheduleOne):
    """scheduler.New and what Run does with it, on the run's cluster and logical clock; ScheduleOne
    (scheduler_core.run.schedule_one) runs each popped pod's attempt."""

    def __init__(
        self,
        scenario: Scenario,
        api: Cluster,
        clock: LogicalClock,
        recorder: RunRecorder,
        *,
        tie_break: str,
        seed: Optional[int],
        vectorized: bool,
        hand_over_only: bool,
        others_react: Callable[[], Iterator[Event]] = _nothing,
    ) -> None:
        self.scenario = scenario
        self.cluster = api
        self.clock = clock
        self.recorder = recorder
        self.others_react = others_react
        nominator = Nominator(self._not_pending)
        rules = scenario.rules
        self.rules = rules
        features = rules.features
        # Everything the frameworks need is handed in as they are built: the queue's nominator, the
        # logical clock, OpportunisticBatching (its gate: on from v1.35), the tie-break of
        # preemption candidates (the spec's rule for the random pick) and the API the preemption
        # evaluator's goroutines write through (this scheduler, which writes through the cluster).
        batching = rules.gates.enabled("OpportunisticBatching")
        options = FrameworkOptions(
            nominator=nominator,
            clock_ms=lambda: clock.ms,
            opportunistic_batching=batching,
            preemption_ties_in_node_order=True,
            preemption_api=self,
        )
        # The scheduler's storage and device caches are informers of the cluster (listed now).
        self.scheduler = Scheduler(
            scenario, tie_break, seed, vectorized, options=options, hand_over_only=hand_over_only, api=api
        )
        self.snapshot = self.scheduler.snapshot
        # The typed API calls the frameworks' plugins write storage and device objects with (on the
        # cluster); the stand-ins write through it too, and the writes reach this scheduler through
        # its informers, their handlers' notifications at the run's points (storage_changes).
        object_writes = self.scheduler.options.object_writes
        assert isinstance(object_writes, ObjectWrites)  # the Scheduler made it: none was handed in
        self.object_writes = object_writes
        config = scenario.config
        sorter = self.scheduler.framework.profile.queue_sort[0]
        assert isinstance(sorter, PrioritySort)  # the one QueueSort plugin: the queue keys pods by it
        self.queue = SchedulingQueue(
            clock,
            sorter.queue_key,
            {name: _hint_map(fw) for name, fw in self.scheduler.frameworks.items()},
            {name: _pre_enqueue(fw) for name, fw in self.scheduler.frameworks.items()},
            (config.pod_initial_backoff_seconds if config else 1) * MS_PER_SECOND,
            (config.pod_max_backoff_seconds if config else 10) * MS_PER_SECOND,
            self._not_pending,
            nominator,
            rules=rules,
            signers=_signers(self.scheduler.frameworks) if batching and features.queue_signs_pods else None,
        )
        names_ = scenario.scheduler_names
        self.handlers = EventHandlers(self.queue, self.snapshot, lambda pod: pod.scheduler_name in names_, rules)
        # What scheduleOne does differently by release (release/code.py), read once.
        self._clears_nomination_when_bound = rules.gates.enabled("ClearingNominatedNodeNameAfterBinding")
        self._skips_recreated_pods = features.recreated_pod_not_requeued
        self._patches_informer_pod = features.failure_patch_against_informer_pod
        self._forgets_absent_pods = features.forget_absent_pod_succeeds
        self._told: list[Event] = []  # events of writes delivered since the last flush
        # The informers: every write of the cluster reaches the scheduler's cache and queue.
        for kind, handler in (
            (KIND_POD, self.handlers.on_pod),
            (KIND_NODE, self.handlers.on_node),
            (KIND_WORKLOAD, self.handlers.on_workload),
            (KIND_BUDGET, self.handlers.on_budget),
        ):
            api.watch(kind, self._told_first(handler))
        self.attempts = 0
        self._last_progress_ms = 0  # when something other than an error retry last happened
        self._erroring: dict[str, None] = {}  # pods whose last attempt ended in an error
        self._waited_out: set[str] = set()
        self._last_failure: dict[str, object] = {}
        # Binding cycles blocked in PreBind (DynamicResources' wait for binding conditions), by pod:
        # each fails when its wait ends, or when a preemption cancels it (v1.36).
        self._waiting: dict[str, WaitingBinding] = {}
        # Work handed to goroutines — a binding cycle's API calls, a preemption's — comes back as
        # informer events while the scheduler is already busy with the next pod: it lands once
        # that pod's attempt is over (at once when nothing else is queued).
        self._async_work: list[AsyncWork] = []
        # The events of API calls a scheduling cycle makes itself (PreemptionAPI.now), told after it,
        # and whether the other components get their turn then (the calls preempted).
        self._held: list[Event] = []
        self._in_cycle_calls = False
        self._others_after_cycle = False

    # ------------------------------------------------------------------ the informers

    def _told_first(self, handler: Callable[[WatchEvent], None]) -> Callable[[WatchEvent], None]:
        """The informer callback for a kind, with the write told before the queue moves it causes."""

        def watch(event: WatchEvent) -> None:
            self._told.append(self.recorder.write(event))
            handler(event)
            self._told.extend(self.moves())

        return watch

    def _not_pending(self, pod: Pod) -> bool:
        """The pod lister's answer for the nominator: gone, or bound (never nominated then)."""
        current = self.cluster.pod(pod.key)
        return current is None or bool(current.node_name)

    def listed(self, pod: Pod) -> None:
        """The informer's first list: an Add for a pending pod that existed before the start."""
        self.handlers.add_pod(pod)

    def flush(self) -> Iterator[Event]:
        """The events of the writes delivered since the last flush (and any queue moves)."""
        told, self._told = self._told, []
        yield from told
        yield from self.moves()

    def storage_changes(self, changes: Optional[list[ClusterChange]] = None) -> Iterator[Event]:
        """The informers' notifications of the storage and device writes delivered since the last
        call (by the stand-ins, the steps), or the given ones (a binding goroutine's own), each
        told, then handed to the handlers, then the moves it caused."""
        if changes is None:
            changes = self.snapshot.cluster_changes
        while changes:
            change = changes.pop(0)
            changed = change.new if change.new is not None else change.old
            name = getattr(changed, "key", "") or getattr(changed, "name", "") or ""  # a PV has no namespace
            yield self.recorder.cluster(name, ClusterChangeKind.STORAGE, detail=change.event.label)
            self.handlers.cluster_changed(change)
            yield from self.moves()

    def moves(self) -> Iterator[Event]:
        return self.recorder.moves(self.queue.moves)

    # ------------------------------------------------------------------ what Run's loop asks

    def has_work(self) -> bool:
        return self.queue.has_work()

    def has_goroutines(self) -> bool:
        return bool(self._async_work)

    def schedule_next(self) -> Iterator[Event]:
        """Pops the next pod and schedules it; the goroutines started before land after it."""
        info = self.queue.pop()
        assert info is not None  # the loop asks only when has_work() says a pod can be popped
        yield from self.moves()
        started, self._async_work = self._async_work, []
        for work in started:
            work.begin()
        yield from self._schedule_one(info)
        for work in started:
            yield from work.land()
        yield from self.land_due_bindings()  # cancelled by a preemption's calls

    def land_goroutines(self) -> Iterator[Event]:
        """Nothing is queued: the goroutines started so far run and land now."""
        started, self._async_work = self._async_work, []
        for work in started:
            work.begin()
            yield from work.land()
        yield from self.land_due_bindings()

    def _wait_binding(self, waiting: WaitingBinding) -> None:
        self._waiting[waiting.info.pod.key] = waiting

    def next_binding_ms(self) -> Optional[int]:
        """When the next binding blocked in PreBind fails."""
        return min((waiting.due_ms for waiting in self._waiting.values()), default=None)

    def land_due_bindings(self) -> Iterator[Event]:
        """The bindings whose wait is over fail (in the order they are due, then began)."""
        due = sorted(
            (waiting for waiting in self._waiting.values() if waiting.due_ms <= self.clock.ms),
            key=lambda waiting: waiting.due_ms,
        )
        for waiting in due:
            del self._waiting[waiting.info.pod.key]
            yield from self._waited_binding_fails(waiting)

    def next_backoff_ms(self) -> Optional[int]:
        """When the next pod leaves backoffQ. No node at all (a dump without nodes, or every node
        gone in a step): the release retries its pods every 10 s for ever (ErrNoNodesAvailable
        rejects by no plugin), so only those retries are left (docs/CHANGES.md, docs/INPUT_FORMS.md)."""
        if not self.snapshot.node_infos:
            return None
        return self.queue.backoff.next_window_after()

    def only_error_retries_until(self, wake: int) -> bool:
        """Nothing but pods failing with errors (or binding in vain again) for a while, and no
        binding waiting for the first time: the release would retry them forever."""
        return (
            bool(self._erroring)
            and wake - self._last_progress_ms >= ERROR_RETRY_HORIZON_MS
            and all(key in self._waited_out for key in self._waiting)
        )

    def flush_backoff_completed(self) -> None:
        self.queue.flush_backoff_completed()

    def still_retrying_errors(self) -> list[str]:
        return [
            key
            for key in self._erroring
            if self.queue.queued_info(key) is not None or (key in self._waiting and self.cluster.pod(key) is not None)
        ]

    # ------------------------------------------------------------------ preemption carried out
    # The API preemption's calls go through (framework.options.PreemptionAPI): a goroutine's
    # (prepareCandidateAsync) or the scheduling cycle's own (prepareCandidate without
    # SchedulerAsyncPreemption, findCandidates' nomination clear before v1.34).

    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[Event]]) -> None:
        self._async_work.append(AsyncWork(begin, land))

    def now(self, calls: Callable[[], Generator[Event, None, Result]]) -> Result:
        """The cycle's own calls, made at once: their writes reach the informers as they are made
        (the cache and the queue hear them while the pod is still in flight); their events are
        told once the cycle's are, and the other components act after that (``_cycle_writes``)."""
        made = calls()
        self._in_cycle_calls = True
        try:
            while True:
                try:
                    self._held.append(next(made))
                except StopIteration as done:
                    result: Result = done.value
                    return result
        finally:
            self._in_cycle_calls = False

    def _cycle_writes(self) -> Iterator[Event]:
        """The events of the API calls the cycle just made itself, after the cycle's own; then, if
        they preempted, the other components' turn."""
        held, self._held = self._held, []
        yield from held
        if self._others_after_cycle:
            self._others_after_cycle = False
            yield from self.others_react()

    def lower_priority_nominated_pods(self, preemptor: Pod, node: str) -> list[Pod]:
        """getLowerPriorityNominatedPods, as the queue answers it: a pod being scheduled right
        now is not in any queue, so the nominator hands out an empty pod for it, and an empty pod
        has no nomination to clear (clearNominatedNodeName skips it)."""
        nominees = []
        for nominee in self.queue.nominated_pods_for_node(node):
            queued = self.queue.queued_info(nominee.key)
            if nominee.priority < preemptor.priority and queued is not None and queued.pod.nominated_node_name:
                nominees.append(nominee)
        return nominees

    def clear_nominated_node_name(self, pod: Pod) -> Iterator[Event]:
        """clearNominatedNodeName: the pod's status patch."""
        self.cluster.patch_pod_status(pod.key, ClusterChangeKind.POD_STATUS, nominated_node_name="")
        yield from self.flush()

    def preempt_in_memory(self, victim: Pod, cancel_pre_bind: bool) -> bool:
        """A victim blocked in PreBind has its binding cancelled (``cancel_pre_bind``: v1.36's
        CancelPod): PreBind returns the cancellation's cause, and the binding cycle fails once
        the calls that cancelled it are made. No plugin of a run waits at Permit, and any other
        PreBind runs within its attempt."""
        waiting = self._waiting.get(victim.key)
        if not cancel_pre_bind or waiting is None or waiting.info.pod.uid != victim.uid:
            return False
        cause = f"preempted by {names.DEFAULT_PREEMPTION}"  # CancelPod's message: the cause PreBind returns
        message = f'running PreBind plugin "{waiting.ending.plugin}": {cause}'
        waiting.ending = replace(waiting.ending, message=message, after_ms=0)
        waiting.due_ms = self.clock.ms
        waiting.cancelled = True
        return True

    def mark_disruption_target(self, preemptor: Pod, victim: Pod) -> Generator[Event, None, bool]:
        """PreemptPod's DisruptionTarget condition (a pod that has it already is not written)."""
        if self.cluster.pod(victim.key) is None:
            return False
        by = f"preempted by {preemptor.key}"
        self.cluster.patch_pod_status(
            victim.key, ClusterChangeKind.POD_STATUS, f"DisruptionTarget: {by}", preempted_by_scheduler=True
        )
        yield from self.flush()
        return True

    def delete_victim(self, preemptor: Pod, victim: Pod) -> Generator[Event, None, bool]:
        """PreemptPod's delete. A victim with a zero grace period and no finalizers is deleted by the
        API server at once (../shared/spec/TIMELINE.md); any other stays, terminating, for the
        kubelet; one already terminating is left as it is."""
        by = f"preempted by {preemptor.key}"
        deleted = self.cluster.delete_pod(
            victim.key,
            ClusterChangeKind.POD_TERMINATING,
            by,
            gone=ClusterChangeKind.POD_REMOVED,
            gone_detail=f"{by}, grace period 0",
        )
        yield from self.flush()
        return deleted is not None

    def activate(self, preemptor: Pod) -> Iterator[Event]:
        """Activate: the preemptor back to activeQ (through PreEnqueue)."""
        self.queue.activate([preemptor])
        yield from self.moves()

    def preemption_done(self, preemptor: Pod) -> Iterator[Event]:
        """The preemption's calls are over: the other components act on its deletions (the
        victims' controllers replace them) — once the cycle is, when the cycle made the calls."""
        if self._in_cycle_calls:
            self._others_after_cycle = True
            return
        yield from self.others_react()


def _hint_map(framework: Framework) -> QueueingHintMap:
    """buildQueueingHintMap: every plugin at PreEnqueue, PreFilter, Filter, Reserve or Permit
    registers its events (a plugin that declares none is moved by every event)."""
    hints: QueueingHintMap = {}
    for name, extensions in framework.profile.capabilities.enqueue_extensions:
        registrations = extensions.events_to_register() if extensions is not None else _EVERY_EVENT
        node_events = [r.event.action for r in registrations if r.event.resource is EventResource.NODE]
        for registration in registrations:
            hints.setdefault(registration.event, []).append(HintFunction(name, registration.hint))
        # kubernetes#109437: a plugin moved by Node/Add but not by taint updates also gets those,
        # always queueing (the preCheck could otherwise keep its pods stuck).
        if any(a & ActionType.ADD for a in node_events) and not any(
            a & ActionType.UPDATE_NODE_TAINT for a in node_events
        ):
            hints.setdefault(NODE_TAINT_UPDATE, []).append(HintFunction(name, None))
    return hints


def _signers(frameworks: dict[str, Framework]) -> dict[str, PodSigner]:
    """Each profile's SignPod for the queue (v1.36 signs pods as they are queued); a pod it cannot
    sign gets no signature."""

    def signer(framework: Framework) -> PodSigner:
        def sign(pod: Pod) -> Optional[Signature]:
            signed = framework.sign_pod(pod)
            return signed if isinstance(signed, tuple) else None

        return sign

    return {name: signer(framework) for name, framework in frameworks.items()}


def _pre_enqueue(framework: Framework) -> list[PreEnqueuePlugin]:
    return [PreEnqueuePlugin(plugin.name, plugin.pre_enqueue) for plugin in framework.profile.pre_enqueue]
