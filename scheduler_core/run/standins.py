"""Every component of a run's cluster besides the scheduler (../shared/spec/TIMELINE.md, CHANGES.md).

The stand-in kubelet (it removes pods deleted with grace, scheduler_core.cluster.kubelet), the
resourceclaim controller (claims from templates, released devices), and in a run with steps the
step driver with its controllers (scheduler_core.run.steps). Each watches the run's cluster, reads
it (its listers) and acts by writing through it — storage and device objects through its typed API
calls (scheduler_core.cluster.objects); none calls the scheduler. What they write reaches the scheduler's informers as the cluster delivers
it; ``deliver`` and ``deliver_storage`` hand those deliveries' events to the run's stream, in
the order the writes were made, before the scheduler's next attempt.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterator, Optional

from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.kubelet import StandInKubelet
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.resourceclaim_controller import ResourceClaimController
from scheduler_core.cluster.store import KIND_POD, Cluster
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint, Payload
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.model import Pod, Scenario
from scheduler_core.run.recorder import RunRecorder
from scheduler_core.run.steps.driver import StepDriver

DELETED = "deleted"


class StandIns:
    """The kubelet, the claim controller and the step driver of one run, on its logical clock."""

    def __init__(
        self,
        scenario: Scenario,
        api: Cluster,
        clock: LogicalClock,
        recorder: RunRecorder,
        writes: ObjectWrites,
        informer_cache: Snapshot,
        epoch: datetime,
        *,
        deliver: Callable[[], Iterator[Event]],
        deliver_storage: Callable[[], Iterator[Event]],
    ) -> None:
        self.scenario = scenario
        self.cluster = api
        self.clock = clock
        self.recorder = recorder
        self.writes = writes
        # The step driver reads node infos from the scheduler's informer cache (the same objects
        # the cluster delivered), rather than keeping caches of its own; storage objects it reads
        # from the cluster's listers.
        self.snapshot = informer_cache
        self._deliver = deliver
        self._deliver_storage = deliver_storage
        self.claim_controller = ResourceClaimController(api, lambda: clock.ms)
        for pod in scenario.running_pods:  # their claims exist before the run
            self.claim_controller.create_claims(pod)
        self.kubelet = StandInKubelet(api)
        api.watch(KIND_POD, self.kubelet.on_pod)
        api.watch(KIND_POD, self.claim_controller.on_pod)
        # A run with steps (../shared/spec/CHANGES.md): operations and stand-in controllers.
        self.steps: Optional[StepDriver] = (
            StepDriver(self, scenario.changes, epoch) if scenario.changes is not None else None
        )

    # ------------------------------------------------------------------ as the run starts

    def begin(self) -> Iterator[Event]:
        if self.steps is not None:
            yield from self.steps.begin()

    def pod_created(self, pod: Pod) -> Iterator[Event]:
        """A pending pod of the scenario was created: the claim controller makes its claims."""
        return self.claims_for_new_pod(pod)

    def all_created(self) -> Iterator[Event]:
        """The scenario's pods exist: workloads short of pods get them now."""
        if self.steps is not None:
            yield from self.steps.react(initial=True)

    # ------------------------------------------------------------------ as time passes

    def settle(self) -> Iterator[Event]:
        """The controllers' turn after writes of others reached them."""
        if self.steps is not None:
            yield from self.steps.settle()

    def scheduler_attempted(self) -> None:
        """The scheduler made an attempt: the cluster is not idle (a blocked drain waits on it)."""
        if self.steps is not None:
            self.steps.attempted()

    def next_wake_ms(self) -> Optional[int]:
        """When one of them next acts on its own (None: never, unless something changes)."""
        times = [
            t
            for t in (
                self.steps.next_wake() if self.steps is not None else None,
                self.kubelet.next_removal_ms(),
                self.claim_controller.next_release_ms(),
            )
            if t is not None
        ]
        return min(times) if times else None

    def idle(self) -> bool:
        """No victim to remove and no claim to release."""
        return self.kubelet.next_removal_ms() is None and self.claim_controller.next_release_ms() is None

    def removals_and_releases_due(self) -> Iterator[Event]:
        """The kubelet removes what is due (the controllers react to each removal), then the
        claim controller releases the devices due."""
        while self.kubelet.remove_due(self.clock.ms) is not None:
            yield from self._deliver()
            yield from self.settle()
        if self.claim_controller.release_due(self.clock.ms):
            yield from self._deliver_storage()

    def wake(self) -> Iterator[Event]:
        """Refused evictions due for a retry, and the next step if its time has come."""
        if self.steps is not None:
            yield from self.steps.wake()

    def step_over(self) -> Iterator[Event]:
        """Nothing more happens on its own: a run with steps closes the current step."""
        if self.steps is not None:
            yield from self.steps.quiet()

    def next_step_ms(self) -> Optional[int]:
        return self.steps.next_step_ms() if self.steps is not None else None

    def final(self, scenario_pods: list[Pod]) -> dict[str, Optional[str]]:
        """Where every pod ended: with steps, every pod that existed at any time."""
        if self.steps is not None:
            return self.steps.final()
        final: dict[str, Optional[str]] = {}
        for pod in sorted(scenario_pods, key=lambda p: p.key):
            current = self.cluster.pod(pod.key)
            final[pod.key] = DELETED if current is None else (current.node_name or None)
        return final

    # ------------------------------------------------------------------ what the step driver uses

    def drain_moves(self) -> Iterator[Event]:
        return self._deliver()

    def storage_changes(self, detail: str = "") -> Iterator[Event]:
        return self._deliver_storage()

    def claims_for_new_pod(self, pod: Pod) -> Iterator[Event]:
        """Right after a pending pod is created the claim controller makes its claims from
        templates, then writes the pod's resourceClaimStatuses (an update the queue hears)."""
        added = self.claim_controller.create_claim_objects(pod)
        if added:
            yield from self._deliver_storage()  # the claims' Add events see the pod without its status
            current = self.cluster.pod(pod.key) or pod
            self.cluster.patch_pod_status(
                pod.key,
                ClusterChangeKind.POD_STATUS,
                "resourceClaimStatuses",
                claim_statuses=(*current.claim_statuses, *added),
            )
            yield from self._deliver()

    def event(self, pod: Optional[str], point: ExtensionPoint, payload: Payload) -> Event:
        return self.recorder.event(pod, point, payload)

    def change_event(self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = "") -> Event:
        """An event for a change that is no write of the cluster (a drain blocked, an operation)."""
        return self.recorder.cluster(key, kind, node, detail)
