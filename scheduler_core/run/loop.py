"""The run to the end (../shared/spec/TIMELINE.md): the scheduler and the rest of the cluster on one logical clock.

A run is three things, as in a real cluster: the API server (scheduler_core.cluster.store, the one
door every write goes through), the scheduler (scheduler_core.run.kube_scheduler: informers, queue,
ScheduleOne) and the other components (scheduler_core.run.standins: the kubelet, the claim
controller, the step driver and its controllers). This loop only decides what happens next: the
scheduler's next attempt while anything is queued, its goroutines landing, else time jumps to the
next thing that happens on its own (the kubelet removing a victim, a claim released, a back-off
ending, a binding's wait in PreBind over, a refused eviction retried, the next step); the run ends when nothing is left to happen.
Everything goes out as one typed event stream, through one recorder (scheduler_core.run.recorder).
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Generator, Iterator, Optional

from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.store import Cluster
from scheduler_core.encoding.events import Event
from scheduler_core.model import Pod, PodScheduledCondition, Scenario
from scheduler_core.run.kube_scheduler import KubeScheduler
from scheduler_core.run.recorder import Reads, RunRecorder
from scheduler_core.run.schedule_one import TIE_BREAK_FIRST, fresh_copy
from scheduler_core.run.standins import StandIns
from scheduler_core.run.epoch import run_epoch
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.gcfreeze import frozen_after_first


class ClusterRun:
    """One run: the cluster, the scheduler and the stand-ins, built in the order a cluster
    starts (the API server with every object of the scenario, then the scheduler's informers,
    then the other components' watches)."""

    def __init__(
        self,
        scenario: Scenario,
        *,
        tie_break: str = TIE_BREAK_FIRST,
        seed: Optional[int] = None,
        vectorized: bool = True,
        audit_writes: bool = False,
        hand_over_only: bool = False,
        reads: Reads = None,
    ) -> None:
        self.scenario = fresh_copy(scenario)
        self.epoch = run_epoch(self.scenario)
        _start_running_pods(self.scenario, self.epoch)
        _take_dumped_conditions(self.scenario)
        self.clock = LogicalClock()
        versions = itertools.count(1)  # the run's resourceVersions, every kind of object alike
        changes = self.scenario.changes
        self.cluster = Cluster(
            self.scenario.pods,
            self.scenario.nodes,
            self.epoch,
            lambda: self.clock.ms,
            lambda: next(versions),
            audit_writes,
            workloads=changes.workloads if changes is not None else (),
            budgets=self.scenario.pdbs,
            storage=self.scenario.storage,
            dra=self.scenario.dra,
        )
        # The recorder tells every event with the attempt it happens in (the scheduler's count).
        self.recorder = RunRecorder(lambda: self.clock.ms, lambda: self.kube_scheduler.attempts, reads)
        self.kube_scheduler = KubeScheduler(
            self.scenario,
            self.cluster,
            self.clock,
            self.recorder,
            tie_break=tie_break,
            seed=seed,
            vectorized=vectorized,
            hand_over_only=hand_over_only,
            others_react=self._others_react,
        )
        scheduler = self.kube_scheduler
        self.stand_ins = StandIns(
            self.scenario,
            self.cluster,
            self.clock,
            self.recorder,
            scheduler.object_writes,
            scheduler.snapshot,
            self.epoch,
            deliver=scheduler.flush,
            deliver_storage=scheduler.storage_changes,
        )
        # The claims of running pods existed before the run: in the informers' first list, no events.
        scheduler.snapshot.cluster_changes.clear()

    def _listing(self) -> Iterator[Event]:
        scheduler, others = self.kube_scheduler, self.stand_ins
        yield from others.begin()
        for pod in self._pending_pods():  # created one at a time, in document order
            scheduler.listed(pod)
            yield from others.pod_created(pod)
        yield from others.all_created()
        yield from scheduler.moves()

    def _others_react(self) -> Iterator[Event]:
        return self.stand_ins.settle()

    def run(self) -> Iterator[Event]:
        scheduler, others = self.kube_scheduler, self.stand_ins
        release = self.scenario.rules.name  # the release replayed (release/rules.py), as the spec's "release"
        # The informers' first listing (every pending pod into the queue) is the run's set-up, as the
        # single pass's snapshot is: done before the first event is handed on (the collector paused,
        # as for the rest of the set-up), its events then follow RunStart as they were made. A reader
        # timing from the first event (measure_run) times attempts, not the listing (~20 ms for
        # 1,000 pods: a fifth of the first 100 attempts of spread_5000).
        with collector_paused():
            start = self.recorder.run_start({pod.key: pod.node_name or None for pod in self._scenario_pods()}, release)
            listed = list(self._listing())
        yield start
        yield from listed
        del listed
        while True:
            if scheduler.has_work():
                before = scheduler.attempts
                yield from scheduler.schedule_next()
                if scheduler.attempts != before:
                    others.scheduler_attempted()
                continue
            if scheduler.has_goroutines():
                yield from scheduler.land_goroutines()
                continue
            wake = self._next_wake()
            if wake is None:
                wake = yield from self._step_over()
                if wake is None:
                    break
            self.clock.advance_to(wake)
            yield from scheduler.land_due_bindings()
            yield from others.removals_and_releases_due()
            scheduler.flush_backoff_completed()
            yield from others.wake()
            yield from scheduler.moves()
        final = others.final(self._scenario_pods())
        yield self.recorder.run_end(scheduler.attempts, final, self._nominated(), scheduler.still_retrying_errors())

    def _next_wake(self) -> Optional[int]:
        """The next time something happens on its own. Where only pods failing with errors (or
        binding in vain again) are left, the run, or with steps the step, is over: the release
        would retry them for ever."""
        others = self.stand_ins
        scheduler = self.kube_scheduler
        due = (scheduler.next_backoff_ms(), scheduler.next_binding_ms(), others.next_wake_ms())
        times = [t for t in due if t is not None]
        wake = min(times) if times else None
        if (
            wake is not None
            and scheduler.only_error_retries_until(wake)
            and others.idle()
            and (others.steps is None or others.steps.next_wake() is None)
        ):
            return None
        return wake

    def _step_over(self) -> Generator[Event, None, Optional[int]]:
        """Nothing more happens on its own: a run with steps closes the step and names the time
        the next one starts (None: the run ends)."""
        yield from self.stand_ins.step_over()
        return self.stand_ins.next_step_ms()

    def _scenario_pods(self) -> list[Pod]:
        return [pod for pod in self.scenario.pods if not pod.is_finished]

    def _pending_pods(self) -> list[Pod]:
        """Pending pods for this scheduler's profiles, gated ones included (they wait in the queue)."""
        names_ = self.scenario.scheduler_names
        return [pod for pod in self._scenario_pods() if not pod.node_name and pod.scheduler_name in names_]

    def _nominated(self) -> dict[str, str]:
        pods = (self.cluster.pod(pod.key) for pod in sorted(self._scenario_pods(), key=lambda p: p.key))
        return {
            pod.key: pod.nominated_node_name
            for pod in pods
            if pod is not None and not pod.node_name and pod.nominated_node_name
        }


def _take_dumped_conditions(scenario: Scenario) -> None:
    """A dumped pod's PodScheduled condition is where the run's status patches start from."""
    for pod in scenario.pods:
        if pod.recorded is not None:
            pod.scheduled_condition = PodScheduledCondition(
                pod.recorded.status, pod.recorded.reason, pod.recorded.message
            )


def _start_running_pods(scenario: Scenario, epoch: datetime) -> None:
    """Running pods without status.startTime started as the run began, in the order they were
    created (document order): their kubelet wrote the time."""
    running = [pod for pod in scenario.pods if pod.node_name and pod.start_time is None and not pod.is_finished]
    for offset, pod in enumerate(reversed(running), start=1):
        pod.start_time = epoch - timedelta(seconds=offset)


def run_to_the_end(
    scenario: Scenario,
    *,
    tie_break: str = TIE_BREAK_FIRST,
    seed: Optional[int] = None,
    vectorized: bool = True,
    hand_over_only: bool = False,
    reads: Reads = None,
) -> Iterator[Event]:
    """The scheduler as it really runs, to the end: the timeline's event stream (``hand_over_only``:
    for event_pipe's hand-over alone, its node lists kept as positions; ``reads``: for a reader of
    those points only, as ``TimelineBuilder.READS``, the cycles' other events left unwritten)."""
    with collector_paused():  # the set-up builds the snapshot: nothing there for the collector
        run = ClusterRun(
            scenario, tie_break=tie_break, seed=seed, vectorized=vectorized, hand_over_only=hand_over_only, reads=reads
        )
    return frozen_after_first(run.run())
