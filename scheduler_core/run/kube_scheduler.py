"""The kube-scheduler process of a run (scheduler.go's Scheduler and Run, schedule_one.go's ScheduleOne).

What the release's binary does and nothing else: its informers (the run's cluster delivers every
pod, node, workload and budget write to ``EventHandlers``; its storage and device writes reach the
caches at once through scheduler_core.cluster.informers, and the handlers at the run's points,
``storage_changes``), its scheduling queue, and ScheduleOne — pop a pod, run its
scheduling cycle (the same ``Cycle`` the single pass runs, which returns a typed ending,
scheduler_core.run.outcomes), then the binding cycle or handleSchedulingFailure. The scheduler
writes only through the cluster (bindings, status patches, nominations, a preemption's victims).

Work the release hands to goroutines — a binding cycle's API calls, a preemption's — is kept as
``AsyncWork`` and lands once the next pod's attempt is over (scheduler_core.run.loop decides when).
The other components of the cluster (the kubelet, the controllers) are not here: they watch the
same cluster (scheduler_core.run.standins); ``others_react`` gives them their turn once this
scheduler's own writes have been delivered, as they would act while it goes on.
"""

from __future__ import annotations

import copy
from typing import Callable, Generator, Iterator, Optional, TypeVar

from scheduler_core.backend.queue import (
    MODE_OVERRIDE,
    HintFunction,
    LogicalClock,
    Nominator,
    PodSigner,
    PreEnqueuePlugin,
    QueuedPodInfo,
    QueueingHintMap,
    QueueName,
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
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.signers import Signature
from scheduler_core.model import Pod, PodScheduledCondition, Scenario
from scheduler_core.plugins.queue_sort import PrioritySort
from scheduler_core.run.eventhandlers import EventHandlers, snapshot_of
from scheduler_core.run.outcomes import BindingFailed, Bound, CycleEnding, FitError, SchedulingError
from scheduler_core.run.recorder import RunRecorder, record_cycle
from scheduler_core.run.scheduler import Cycle, Scheduler

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


class KubeScheduler:
    """scheduler.New and what Run does with it, on the run's cluster and logical clock."""

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

    def land_goroutines(self) -> Iterator[Event]:
        """Nothing is queued: the goroutines started so far run and land now."""
        started, self._async_work = self._async_work, []
        for work in started:
            work.begin()
            yield from work.land()

    def next_backoff_ms(self) -> Optional[int]:
        """When the next pod leaves backoffQ. No node at all (a dump without nodes, or every node
        gone in a step): the release retries its pods every 10 s for ever (ErrNoNodesAvailable
        rejects by no plugin), so only those retries are left (docs/CHANGES.md, docs/INPUT_FORMS.md)."""
        if not self.snapshot.node_infos:
            return None
        return self.queue.backoff.next_window_after()

    def only_error_retries_until(self, wake: int) -> bool:
        """Nothing but pods failing with errors for a while: the release would retry them forever."""
        return bool(self._erroring) and wake - self._last_progress_ms >= ERROR_RETRY_HORIZON_MS

    def flush_backoff_completed(self) -> None:
        self.queue.flush_backoff_completed()

    def still_retrying_errors(self) -> list[str]:
        return [key for key in self._erroring if self.queue.queued_info(key) is not None]

    # ------------------------------------------------------------------ ScheduleOne

    def _schedule_one(self, info: QueuedPodInfo) -> Iterator[Event]:
        """ScheduleOne: a pod being deleted is skipped; otherwise its scheduling cycle, then the
        binding cycle's writes or the failure handler. The cycle's events come from the recorder."""
        pod = info.pod
        if pod.is_terminating:  # skipPodSchedule: a pod being deleted is not scheduled
            self.queue.done(pod)
            return
        pending_writes = self.snapshot.cluster_changes
        mark = len(pending_writes)
        cycle = self._scheduling_cycle(info)
        yield from record_cycle(cycle, self.recorder.reads)
        yield from self._cycle_writes()
        ending = cycle.outcome
        assert ending is not None  # the recorder ran the cycle to its end
        # The cycle's PreBind writes (claims, volumes) are its binding goroutine's: they reach the
        # informers when that goroutine lands, not with whichever write is delivered next.
        own_writes = pending_writes[mark:]
        del pending_writes[mark:]
        self._note_progress(pod, ending)
        if isinstance(ending, Bound):
            yield from self._binding_cycle(info, ending, own_writes, cycle)
        else:
            yield from self._handle_scheduling_failure(info, ending, own_writes)

    def _scheduling_cycle(self, info: QueuedPodInfo) -> Cycle:
        """The cycle of the popped pod: the queues as they stand, the nomination its queue copy carries."""
        pod = info.pod
        index = self.attempts
        self.attempts += 1
        queues = {name.value: keys for name, keys in self.queue.where().items()}
        view = [pod.key, *queues[QueueName.ACTIVE.value]]
        # The cycle assumes its own copy of the pod (AssumePod's DeepCopy): the queue's and the
        # cluster's versions stay as they are until the binding comes back.
        return Cycle(
            self.scheduler,
            index,
            copy.copy(pod),
            queue_view=view,
            nominated_node=pod.nominated_node_name,
            queues=queues,
            cycle_count=self.queue.active.scheduling_cycle,
            queued_signature=(info.signature,) if self.queue.signers is not None else None,
        )

    def _note_progress(self, pod: Pod, ending: CycleEnding) -> None:
        if isinstance(ending, (SchedulingError, BindingFailed)):
            self._erroring[pod.key] = None
            return
        self._erroring.pop(pod.key, None)
        self._last_progress_ms = self.clock.ms

    def _binding_cycle(
        self, info: QueuedPodInfo, bound: Bound, prebind_writes: list[ClusterChange], cycle: Cycle
    ) -> Iterator[Event]:
        """The binding cycle calls Done before PreBind; its writes come back later."""
        pod = info.pod
        self.queue.done(pod)
        yield self.recorder.bound(pod.key, info.attempts)
        self.go(lambda: None, lambda: self._binding_done(cycle, bound.node_name, prebind_writes))

    def _binding_done(self, cycle: Cycle, node: str, prebind_writes: list[ClusterChange]) -> Iterator[Event]:
        """The informer events of a finished binding: its PreBind's storage writes, then the pod
        bound (the nomination cleared with ClearingNominatedNodeNameAfterBinding, on from v1.35);
        then the other components act on it. A pod deleted meanwhile cannot be bound."""
        yield from self.storage_changes(prebind_writes)
        if self.cluster.bind(cycle.pod.key, node, clear_nomination=self._clears_nomination_when_bound) is None:
            yield from self._bound_pod_gone(cycle, node)
        yield from self.flush()
        yield from self.others_react()

    def _bound_pod_gone(self, cycle: Cycle, node: str) -> Iterator[Event]:
        """The pod was deleted while its binding was under way: Bind fails (not found) and
        handleBindingCycleError unreserves and forgets it, which is an AssignedPodDelete for the
        pods waiting. v1.35 on forgot it when it was deleted (the handlers' assumed_pod_deleted)
        and ForgetPod of a pod no longer there succeeds, so the pods are moved a second time;
        before, ForgetPod fails then and moves nothing. The failure handler finds no pod to
        requeue or patch."""
        pod = cycle.pod  # the assumed copy, on the node
        cycle.fw.run_unreserve(cycle.state, pod, node)
        forgotten = snapshot_of(pod)
        forgotten.node_name = node
        was_assumed = self.snapshot.is_assumed(pod)
        if was_assumed:
            self.snapshot.unbind(self.snapshot.assumed_pod(pod.key) or pod)
        yield self.recorder.cluster(pod.key, ClusterChangeKind.BINDING_FAILED, node=node)
        if was_assumed or self._forgets_absent_pods:
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=False)
        yield from self.storage_changes()
        yield from self.moves()

    def _handle_scheduling_failure(
        self,
        info: QueuedPodInfo,
        ending: FitError | SchedulingError | BindingFailed,
        prebind_writes: list[ClusterChange],
    ) -> Iterator[Event]:
        """handleSchedulingFailure (after handleBindingCycleError for a failed binding cycle): back
        to the queue, the nomination, the status patch. A preemption that chose victims already
        marked its pod as preempting and started its goroutine (the evaluator's
        prepareCandidateAsync, before PostFilter returned); its API calls land after this handler."""
        pod = info.pod  # the popped copy: the status patch is made against it
        binding = ending if isinstance(ending, BindingFailed) else None
        fit_error = ending if isinstance(ending, FitError) else None
        forgotten = self._forgotten(pod, binding)
        if forgotten is not None and binding is not None and not binding.rejected:
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=False)
        info.unschedulable_plugins = set(
            fit_error.unschedulable_plugins
            if fit_error is not None
            else binding.unschedulable_plugins
            if binding
            else ()
        )
        nominating = fit_error.nominating if fit_error is not None else self.scheduler.failure_nominating
        cached = self.cluster.pod(pod.key)  # the pod lister's version goes back to the queue
        pending = cached is not None and not cached.node_name
        # kubernetes#138324 (v1.34.9, v1.35.6, v1.36): a pod made again under its name while this
        # attempt ran is the new pod's business (its own Add queued it): no requeue, no nomination,
        # no status patch for the old one.
        recreated = pending and self._skips_recreated_pods and cached is not None and cached.uid != pod.uid
        if pending and not recreated:
            assert cached is not None
            if cached is not pod:
                info.pod_info = PodInfo(cached)
            self.queue.add_unschedulable_if_not_present(info)
        else:
            self.queue.done(pod)
        if not recreated:
            self.queue.add_nominated_pod(info.pod, nominating)
        if forgotten is not None and binding is not None and binding.rejected:  # deferred past the failure handler
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=True)
        written = nominating.nominated_node_name if nominating and nominating.mode == MODE_OVERRIDE else None
        if recreated:
            written = None
        preemption = fit_error.preemption if fit_error is not None else None
        victims = sorted(victim.key for victim in preemption.victims) if preemption is not None else []
        yield self.recorder.failed(pod.key, info.attempts, written, victims, binding)
        if forgotten is not None:  # told before the moves it caused
            yield self.recorder.cluster(pod.key, ClusterChangeKind.BINDING_FAILED, node=forgotten.node_name)
            yield from self.moves()
        # A PreBind that failed after writing (VolumeBinding's claim annotation, a provisioned volume)
        # leaves those writes: the API has no rollback, so their events still reach the queue.
        yield from self.storage_changes(prebind_writes)
        yield from self.moves()
        if recreated:
            return
        # The patch is sent now; its Update reaches the scheduler with the writes of goroutines
        # started in this attempt (after them, as the reference runs saw it: a preemptor's own
        # Update finds its victim already terminating). v1.36 patches against the informer's pod
        # the queue took back, earlier releases against the popped copy.
        condition = _failure_condition(ending)
        against = info.pod if self._patches_informer_pod and pending else pod
        self.go(lambda: None, lambda: self._patch_status(against, written, condition))

    def _patch_status(self, popped: Pod, written: Optional[str], condition: PodScheduledCondition) -> Iterator[Event]:
        """updatePod: one status patch with the PodScheduled condition and, when the nomination
        changes against ``popped`` (the popped copy; v1.36: the informer's pod), the nomination;
        none when neither changes against it. The write comes back to the scheduler as an Update
        of the pending pod."""
        nominating = written is not None and written != popped.nominated_node_name
        if not nominating and popped.scheduled_condition == condition:
            return
        fields = {"nominated_node_name": written} if nominating else {}
        self.cluster.patch_pod_status(
            popped.key, ClusterChangeKind.POD_STATUS, condition.reason, condition=condition, **fields
        )
        yield from self.flush()

    def _forgotten(self, pod: Pod, binding: Optional[BindingFailed]) -> Optional[Pod]:
        """The assumed pod a failed binding cycle forgets (on the node it was binding to), after
        the queue's Done that the binding cycle calls before PreBind; None when binding never began."""
        if binding is None:
            return None
        self.queue.done(pod)
        forgotten = snapshot_of(pod)
        forgotten.node_name = binding.node
        return forgotten

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
        """No victim can be preempted without an API call here: no plugin of a run waits at Permit,
        and a binding cycle's PreBind runs within its attempt, before any preemption's calls are
        made (a cycle's calls come after its own PreBind; a goroutine's after the next attempt's)."""
        return False

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


def _failure_condition(ending: FitError | SchedulingError | BindingFailed) -> PodScheduledCondition:
    """The PodScheduled condition handleSchedulingFailure writes: Unschedulable when a plugin
    rejected the pod (no nodes at all included), SchedulerError otherwise; the error's text."""
    rejected = isinstance(ending, FitError) or (isinstance(ending, BindingFailed) and ending.rejected)
    return PodScheduledCondition("False", "Unschedulable" if rejected else "SchedulerError", ending.message)


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
