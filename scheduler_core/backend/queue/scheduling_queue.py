"""The scheduling queue (backend/queue/scheduling_queue.go, the PriorityQueue).

Three places a pending pod can be: activeQ (ready, in QueueSort order), backoffQ (waiting out its
back-off) and unschedulablePods (waiting for a cluster event that could help). A pod that fails
goes to unschedulablePods; a cluster event moves it back only when one of the plugins that
rejected it says, through its queueing hint, that the event may help (QueueingHints, GA). Every
move is recorded (``moves``) so the run can show why a pod was tried again.

The queue follows the release it is given (``rules``): SchedulerPopFromBackoffQ (v1.33 on) pops
from backoffQ when activeQ is empty and runs PreEnqueue when a pod enters backoffQ rather than
when it leaves; v1.34 on remember the gating PreEnqueue plugin and let only its events move a
gated pod; v1.36 signs pods as they are queued (release/code.py names each change).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, Callable, Optional

from scheduler_core.backend.queue.active_queue import ActiveQueue
from scheduler_core.backend.queue.backoff_queue import BackoffQueue
from scheduler_core.backend.queue.clock import LogicalClock, truncate_to_second
from scheduler_core.backend.queue.nominator import NominatingInfo, Nominator
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.backend.queue.unschedulable_pods import UnschedulablePods
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.signers import Signature
from scheduler_core.framework.status import Code, MaybeStatus
from scheduler_core.model import Pod
from scheduler_core.model.names import SCHEDULING_GATES
from scheduler_core.release.rules import DEFAULT_RULES, Rules

# The event labels the release logs for moves that are not cluster events (framework/events.go).
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
UNSCHEDULED_POD_ADD = "UnschedulablePodAdd"
UNSCHEDULED_POD_UPDATE = "UnschedulablePodUpdate"
FORCE_ACTIVATE = "ForceActivate"
# EventForceActivate: a wildcard event that names its pod (Activate of a pod being scheduled).
FORCE_ACTIVATE_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)


class QueueName(str, Enum):
    ACTIVE = "activeQ"
    BACKOFF = "backoffQ"
    UNSCHEDULABLE = "unschedulablePods"


class Strategy(IntEnum):
    """queueingStrategy: what an event means for a rejected pod."""

    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


@dataclass(frozen=True, slots=True)
class HintFunction:
    plugin: str
    fn: Optional[QueueingHintFn]  # None: always QUEUE (defaultQueueingHintFn)


# Per profile (schedulerName): each registered event with the plugins' hints for it.
QueueingHintMap = dict[ClusterEvent, list[HintFunction]]


@dataclass(frozen=True, slots=True)
class QueueMove:
    """A pod moved into a queue: why (the event's label) and, for a cluster event, the plugins
    whose hints said it may help."""

    pod: str
    to: QueueName
    event: str
    plugins: tuple[str, ...] = ()


PreEnqueueFn = Callable[[Pod], MaybeStatus]
# PodSigner: a profile's SignPod, None for a pod it cannot sign.
PodSigner = Callable[[Pod], Optional[Signature]]


@dataclass(frozen=True, slots=True)
class PreEnqueuePlugin:
    name: str
    pre_enqueue: PreEnqueueFn


class SchedulingQueue:
    def __init__(
        self,
        clock: LogicalClock,
        sort_key: Callable[[QueuedPodInfo], tuple[object, ...]],
        hint_maps: dict[str, QueueingHintMap],
        pre_enqueue: dict[str, list[PreEnqueuePlugin]],
        initial_backoff_ms: int,
        max_backoff_ms: int,
        is_assigned: Callable[[Pod], bool],
        nominator: Optional[Nominator] = None,
        *,
        rules: Rules = DEFAULT_RULES,
        signers: Optional[dict[str, PodSigner]] = None,
    ) -> None:
        self.clock = clock
        self.hint_maps = hint_maps
        self.pre_enqueue = pre_enqueue
        features = rules.features
        # SchedulerPopFromBackoffQ (absent in v1.32): pop from backoffQ, PreEnqueue on the way in.
        self.pops_from_backoff = rules.gates.enabled("SchedulerPopFromBackoffQ")
        self._remembers_gating_plugin = features.pre_enqueue_remembers_gating_plugin
        self._skips_pre_enqueue_from_backoff = features.pre_enqueue_skipped_leaving_backoff
        self.signers = signers  # v1.36 with OpportunisticBatching: the queue signs the pods
        self.plugin_events = _events_by_plugin(hint_maps)
        # Per profile and event: the hints registered for events it matches, in the map's order,
        # and their plugins (the hint maps are fixed for the queue's life).
        self._hints_for: dict[tuple[str, ClusterEvent], tuple[list[HintFunction], frozenset[str]]] = {}
        self._of_interest: dict[ClusterEvent, bool] = {}
        self.backoff = BackoffQueue(
            clock,
            initial_backoff_ms,
            max_backoff_ms,
            sort_key,
            aligned=self.pops_from_backoff,
            counts_rejections=features.backoff_counts_rejections,
            errors_apart=features.backoff_keeps_errors_apart,
        )
        self.active = ActiveQueue(sort_key, self.backoff if self.pops_from_backoff else None)
        self.unschedulable = UnschedulablePods(hint_maps)
        # The frameworks are built with the queue's nominator (the run makes it first and hands it to both).
        self.nominator = nominator if nominator is not None else Nominator(is_assigned)
        self.moves: list[QueueMove] = []  # drained by the run loop into the event stream

    # ------------------------------------------------------------------ adding and popping

    def new_queued_pod_info(self, pod: Pod) -> QueuedPodInfo:
        info = QueuedPodInfo(PodInfo(pod), self.clock.now())
        if self.signers is not None:
            info.signature = self._sign(pod)
        return info

    def _sign(self, pod: Pod) -> Optional[Signature]:
        """signPod: the pod's profile signs it (a profile the queue has no signer for: none)."""
        assert self.signers is not None  # only asked when the queue signs
        signer = self.signers.get(pod.scheduler_name)
        return signer(pod) if signer is not None else None

    def add(self, pod: Pod) -> None:
        """A new pending pod (the unscheduled-pod informer's Add)."""
        self._move_to_active(self.new_queued_pod_info(pod), UNSCHEDULED_POD_ADD, ())

    def pop(self) -> Optional[QueuedPodInfo]:
        info, from_backoff = self.active.pop()
        if info is not None and from_backoff:
            self.moves.append(QueueMove(info.key, QueueName.ACTIVE, POP_FROM_BACKOFF_Q))
        return info

    def has_work(self) -> bool:
        return self.active.can_pop()

    def done(self, pod: Pod) -> None:
        self.active.done(pod.key)

    # ------------------------------------------------------------------ PreEnqueue and the moves

    def _run_pre_enqueue(self, info: QueuedPodInfo) -> None:
        """runPreEnqueuePlugins: the gating plugin first (v1.34 on; before, the profile's order);
        the first failure gates the pod and joins its unschedulable plugins."""
        plugins = self.pre_enqueue.get(info.pod.scheduler_name, [])
        ordered = (
            sorted(plugins, key=lambda p: p.name != info.gating_plugin)
            if info.gating_plugin and self._remembers_gating_plugin
            else plugins
        )
        for plugin in ordered:
            status = plugin.pre_enqueue(info.pod)
            if status is not None and status.code != Code.SUCCESS:
                info.unschedulable_plugins.add(plugin.name)
                info.gating_plugin = plugin.name
                info.gating_plugin_events = self.plugin_events.get(plugin.name, [])
                return
        info.gating_plugin = ""

    def _move_to_active(
        self, info: QueuedPodInfo, event: str, plugins: tuple[str, ...], from_backoff: bool = False
    ) -> bool:
        """moveToActiveQ: PreEnqueue (unless it ran when the pod entered backoffQ), then activeQ,
        or unschedulablePods when a PreEnqueue plugin gates the pod."""
        if not self._pre_enqueue_ran_entering_backoff(event, from_backoff):
            self._run_pre_enqueue(info)
        if info.gated:
            if not (self.active.has(info) or self.backoff.has(info) or self.unschedulable.get(info.key)):
                self.unschedulable.add_or_update(info)
                self.moves.append(QueueMove(info.key, QueueName.UNSCHEDULABLE, event, plugins))
            return False
        if info.initial_attempt_timestamp is None:
            info.initial_attempt_timestamp = self.clock.now()
        self.unschedulable.delete(info.key)
        self.backoff.delete(info)
        self.active.add(info)
        self.moves.append(QueueMove(info.key, QueueName.ACTIVE, event, plugins))
        if event == UNSCHEDULED_POD_ADD:
            self.nominator.add_nominated_pod(info.pod, None)
        return True

    def _pre_enqueue_ran_entering_backoff(self, event: str, from_backoff: bool) -> bool:
        """Whether moveToActiveQ skips PreEnqueue: with SchedulerPopFromBackoffQ it ran when the pod
        entered backoffQ; v1.35 skips it for any move straight from there, v1.33 and v1.34 only
        when the back-off completed (an Activate from backoffQ runs it again)."""
        if not self.pops_from_backoff:
            return False
        return from_backoff if self._skips_pre_enqueue_from_backoff else event == BACKOFF_COMPLETE

    def _move_to_backoff(self, info: QueuedPodInfo, event: str, plugins: tuple[str, ...]) -> bool:
        """moveToBackoffQ: PreEnqueue runs on the way in (SchedulerPopFromBackoffQ; without it,
        when the pod leaves)."""
        if self.pops_from_backoff:
            self._run_pre_enqueue(info)
            if info.gated:
                if self.unschedulable.get(info.key) is None:
                    self.unschedulable.add_or_update(info)
                    self.moves.append(QueueMove(info.key, QueueName.UNSCHEDULABLE, event, plugins))
                return False
        self.unschedulable.delete(info.key)
        self.backoff.add(info)
        self.moves.append(QueueMove(info.key, QueueName.BACKOFF, event, plugins))
        return True

    def _requeue(self, info: QueuedPodInfo, strategy: Strategy, event: str, plugins: tuple[str, ...]) -> QueueName:
        """requeuePodWithQueueingStrategy."""
        if strategy == Strategy.SKIP:
            self.unschedulable.add_or_update(info)
            self.moves.append(QueueMove(info.key, QueueName.UNSCHEDULABLE, event, plugins))
            return QueueName.UNSCHEDULABLE
        if strategy == Strategy.AFTER_BACKOFF and self.backoff.is_backing_off(info):
            return QueueName.BACKOFF if self._move_to_backoff(info, event, plugins) else QueueName.UNSCHEDULABLE
        return QueueName.ACTIVE if self._move_to_active(info, event, plugins) else QueueName.UNSCHEDULABLE

    # ------------------------------------------------------------------ failures

    def add_unschedulable_if_not_present(self, info: QueuedPodInfo) -> None:
        """AddUnschedulableIfNotPresent: back from a failed attempt; events seen in flight may
        send it straight back to backoffQ or activeQ."""
        try:
            if self.unschedulable.get(info.key) or self.active.has(info) or self.backoff.has(info):
                return
            if not info.unschedulable_plugins and not info.pending_plugins:
                info.consecutive_errors_count += 1
            else:
                info.unschedulable_count += 1
                info.consecutive_errors_count = 0
            info.timestamp = self.clock.now()
            info.backoff_expiration_ms = None
            strategy, plugins = self._strategy_for_in_flight_pod(info)
            self._requeue(info, strategy, SCHEDULE_ATTEMPT_FAILURE, plugins)
        finally:
            self.done(info.pod)

    def _strategy_for_in_flight_pod(self, info: QueuedPodInfo) -> tuple[Strategy, tuple[str, ...]]:
        """determineSchedulingHintForInFlightPod."""
        if not info.unschedulable_plugins and not info.pending_plugins:
            return Strategy.AFTER_BACKOFF, ()
        best: tuple[Strategy, tuple[str, ...]] = (Strategy.SKIP, ())
        for seen in self.active.cluster_events_for_pod(info.key):
            strategy, plugins = self._worth_requeuing(info, seen.event, seen.old, seen.new)
            if strategy == Strategy.IMMEDIATELY:
                return strategy, plugins
            if strategy == Strategy.AFTER_BACKOFF:
                best = (strategy, plugins)
                if not info.pending_plugins:
                    return best
        return best

    # ------------------------------------------------------------------ queueing hints

    def _is_event_of_interest(self, event: ClusterEvent) -> bool:
        known = self._of_interest.get(event)
        if known is None:
            known = self._of_interest[event] = event.is_wildcard or any(
                event.matches(registered) for hint_map in self.hint_maps.values() for registered in hint_map
            )
        return known

    def _matching_hints(
        self, profile: str, hint_map: QueueingHintMap, event: ClusterEvent
    ) -> tuple[list[HintFunction], frozenset[str]]:
        found = self._hints_for.get((profile, event))
        if found is None:
            hints = [
                hint
                for registered, registered_hints in hint_map.items()
                if event.matches(registered)
                for hint in registered_hints
            ]
            found = self._hints_for[(profile, event)] = (hints, frozenset(hint.plugin for hint in hints))
        return found

    def _registered_for(self, event: ClusterEvent) -> dict[str, frozenset[str]]:
        """Per profile, the plugins registered for a (non-wildcard) event: a pod none of whose
        rejectors is among them stays where it is (``_worth_requeuing`` would say SKIP)."""
        if event.is_wildcard:
            return {}
        return {
            profile: self._matching_hints(profile, hint_map, event)[1] for profile, hint_map in self.hint_maps.items()
        }

    def _worth_requeuing(
        self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any
    ) -> tuple[Strategy, tuple[str, ...]]:
        """isPodWorthRequeuing: ask the hints of the plugins that rejected the pod."""
        rejectors = info.rejector_plugins
        if not rejectors:
            return Strategy.AFTER_BACKOFF, ()
        if event.is_wildcard:
            # A wildcard event carrying an object is meant for that one pod (e.g. ForceActivate).
            if new is not None and (not isinstance(new, Pod) or new.key != info.key):
                return Strategy.SKIP, ()
            return Strategy.AFTER_BACKOFF, ()
        hint_map = self.hint_maps.get(info.pod.scheduler_name)
        if hint_map is None:  # no profile registered hints for it ("shouldn't reach here")
            return Strategy.AFTER_BACKOFF, ()
        # Only the hints of plugins registered for this event are asked, and only a rejector's.
        hints, plugins = self._matching_hints(info.pod.scheduler_name, hint_map, event)
        if plugins.isdisjoint(rejectors):
            return Strategy.SKIP, ()
        strategy = Strategy.SKIP
        queued_by: list[str] = []
        for hint in hints:
            if hint.plugin not in rejectors or _hint(hint, info.pod, old, new) == QueueingHint.QUEUE_SKIP:
                continue
            queued_by.append(hint.plugin)
            if hint.plugin in info.pending_plugins:
                return Strategy.IMMEDIATELY, (hint.plugin,)
            if not info.pending_plugins:
                return Strategy.AFTER_BACKOFF, (hint.plugin,)
            strategy = Strategy.AFTER_BACKOFF
        return strategy, tuple(queued_by)

    # ------------------------------------------------------------------ cluster events

    def move_all_to_active_or_backoff(
        self, event: ClusterEvent, old: Any, new: Any, pre_check: Optional[Callable[[Pod], bool]] = None
    ) -> None:
        """MoveAllToActiveOrBackoffQueue: every unschedulable pod whose rejectors' hints agree."""
        if not self._is_event_of_interest(event):
            return
        if not self.unschedulable.pod_infos:  # nothing to move (every binding of a run asks)
            self.active.add_event_if_any_in_flight(event, old, new)
            return
        registered = self._registered_for(event)
        # Only the pods one of whose rejectors registered the event can move (``_move_pods`` skips
        # the others without asking); a wildcard event concerns every pod.
        waiting = (
            self.unschedulable.concerned_by(frozenset().union(*registered.values()))
            if registered
            else list(self.unschedulable.pod_infos.values())
        )
        candidates = [info for info in waiting if pre_check is None or pre_check(info.pod)]
        self._move_pods(candidates, event, old, new, registered)

    def _move_pods(
        self, infos: list[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any, registered: dict[str, frozenset[str]]
    ) -> None:
        """movePodsToActiveOrBackoffQueue (an event of interest; ``registered``: _registered_for it)."""
        for info in infos:
            if info.gated and self._gate_ignores(info, event):
                continue
            listening = registered.get(info.pod.scheduler_name)
            if (
                listening is not None
                and (info.unschedulable_plugins or info.pending_plugins)
                and listening.isdisjoint(info.unschedulable_plugins)
                and listening.isdisjoint(info.pending_plugins)
            ):
                continue  # no rejector registered this event: isPodWorthRequeuing's queueSkip, without asking
            strategy, plugins = self._worth_requeuing(info, event, old, new)
            if strategy == Strategy.SKIP:
                continue
            self.unschedulable.delete(info.key)
            self._requeue(info, strategy, event.label, plugins)
        self.active.add_event_if_any_in_flight(event, old, new)

    def _gate_ignores(self, info: QueuedPodInfo, event: ClusterEvent) -> bool:
        """A gated pod the event cannot move: v1.34 on, an event its gating plugin did not
        register; before, any event for a pod SchedulingGates gates (only its own update ungates
        it), while a pod gated by another PreEnqueue plugin is asked like any other."""
        if self._remembers_gating_plugin:
            return not any(event.matches(e) for e in info.gating_plugin_events)
        return SCHEDULING_GATES in info.unschedulable_plugins

    def update(self, old: Pod, pod: Pod, events: list[ClusterEvent]) -> None:
        """Update (PriorityQueue.Update) for a pending pod whose object changed (``events``:
        PodSchedulingPropertiesChange). A pod being scheduled only has the events noted for its
        return; in activeQ or backoffQ it takes the new object; in unschedulablePods it takes it
        and the rejecting plugins' hints are asked for each event until one moves it; a pod in no
        queue is added to activeQ. The nominator follows the new object every time."""
        if self.active.is_in_flight(pod.key):
            for event in events:  # addEventsIfPodInFlight
                self.active.add_event_if_any_in_flight(event, old, pod)
            return
        for queued in (self.active.get(pod.key), self.backoff.get(pod.key)):
            if queued is not None:
                self._take_new_object(queued, old, pod)
                return
        info = self.unschedulable.get(pod.key)
        if info is None:
            self._move_to_active(self.new_queued_pod_info(pod), UNSCHEDULED_POD_UPDATE, ())
            return
        self._take_new_object(info, old, pod)
        moved = False
        for event in events:
            strategy, plugins = self._worth_requeuing(info, event, old, pod)
            if strategy == Strategy.SKIP:
                if moved:  # requeuePodWithQueueingStrategy's addOrUpdate puts it back there too
                    self.unschedulable.add_or_update(info)
                continue  # addOrUpdate of a pod already there: nothing moves
            self.unschedulable.delete(info.key)
            queue = self._requeue(info, strategy, event.label, plugins)
            # The loop stops once the pod can be popped: in activeQ, or in backoffQ with
            # SchedulerPopFromBackoffQ; without it a move to backoffQ lets the next event try again.
            if queue == QueueName.ACTIVE or (queue == QueueName.BACKOFF and self.pops_from_backoff):
                break
            moved = queue == QueueName.BACKOFF

    def _take_new_object(self, info: QueuedPodInfo, old: Pod, pod: Pod) -> None:
        """QueuedPodInfo.Update (signed again when the queue signs), then UpdateNominatedPod."""
        if info.pod is not pod:
            info.pod_info = PodInfo(pod)
        if self.signers is not None:
            info.signature = self._sign(pod)
        self.nominator.update_nominated_pod(old, pod)

    def delete(self, pod: Pod) -> None:
        """Delete: the pod left the pending pods (bound, or deleted)."""
        self.nominator.delete(pod)
        info = self.active.get(pod.key)
        if info is not None:
            self.active.delete(info)
            return
        info = self.backoff.get(pod.key)
        if info is not None:
            self.backoff.delete(info)
            return
        self.unschedulable.delete(pod.key)

    def activate(self, pods: list[Pod]) -> None:
        """Activate: each pod waiting in unschedulablePods or backoffQ goes to activeQ at once
        (PreEnqueue as moveToActiveQ decides); a pod being scheduled gets a ForceActivate event of
        its own, so its failure requeues it; any other pod is ignored."""
        for pod in pods:
            info = self.unschedulable.get(pod.key)
            from_backoff = False
            if info is None:
                info = self.backoff.get(pod.key)
                if info is None:
                    if self.active.is_in_flight(pod.key):
                        self.active.add_event_if_any_in_flight(FORCE_ACTIVATE_EVENT, None, pod)
                    continue
                self.backoff.delete(info)
                from_backoff = True
            self._move_to_active(info, FORCE_ACTIVATE, (), from_backoff=from_backoff)

    def flush_backoff_completed(self) -> None:
        """flushBackoffQCompleted: the pump at each window boundary (without
        SchedulerPopFromBackoffQ, the flush of the current second: see backoff_queue)."""
        tick = None if self.pops_from_backoff else truncate_to_second(self.clock.ms)
        for info in self.backoff.pop_all_backoff_completed(tick):
            self._move_to_active(info, BACKOFF_COMPLETE, (), from_backoff=True)

    # ------------------------------------------------------------------ nominations and pictures

    def add_nominated_pod(self, pod: Pod, nominating: Optional[NominatingInfo]) -> None:
        self.nominator.add_nominated_pod(pod, nominating)

    def nominated_pods_for_node(self, node: str) -> list[Pod]:
        return self.nominator.nominated_pods_for_node(node)

    def queued_info(self, key: str) -> Optional[QueuedPodInfo]:
        """The pod in activeQ, unschedulablePods or backoffQ (nominatedPodToInfo's lookup);
        None while it is being scheduled."""
        return self.active.get(key) or self.unschedulable.get(key) or self.backoff.get(key)

    def where(self) -> dict[QueueName, list[str]]:
        """The pods in each queue now (activeQ and backoffQ in pop order)."""
        return {
            QueueName.ACTIVE: self.active.keys(),
            QueueName.BACKOFF: self.backoff.keys(),
            QueueName.UNSCHEDULABLE: list(self.unschedulable.pod_infos),
        }


def _hint(hint: HintFunction, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """A hint that fails counts as QUEUE, so a pod is never stuck by a hint's error."""
    if hint.fn is None:
        return QueueingHint.QUEUE
    try:
        return hint.fn(pod, old, new)
    except Exception:  # noqa: BLE001 - the release treats any hint error as Queue
        return QueueingHint.QUEUE


def _events_by_plugin(hint_maps: dict[str, QueueingHintMap]) -> dict[str, list[ClusterEvent]]:
    """buildEventMap: the events each plugin registered (a gated pod moves only on its gate's)."""
    events: dict[str, list[ClusterEvent]] = {}
    for hint_map in hint_maps.values():
        for event, hints in hint_map.items():
            for hint in hints:
                events.setdefault(hint.plugin, []).append(event)
    return events
