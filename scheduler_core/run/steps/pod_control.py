"""The API writes of pods and claims in a run with steps (pkg/controller controller_utils.go
RealPodControl: CreatePods, DeletePod; the StatefulSet's claims from its templates), whoever
asks for them — a controller's ``state.Write`` or a step's create or delete — each delivered to
the scheduler's informers before the next is made.
"""

from __future__ import annotations

from typing import Iterator, Optional, Protocol

from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.controllers.state import ClusterState, CreateClaim, CreatePod, DeletePod, Write
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_STORAGE_CLASS, Cluster
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint, Payload
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.model import PersistentVolumeClaim, Pod, Scenario, StorageClass


class RunLoop(Protocol):
    """What the steps use of the run's other components (``standins.StandIns``; named here, not
    imported, so they can import the step driver without a cycle): the clock, the cluster (its
    listers too), the typed storage API calls on it, the informer cache of node infos they read,
    and the deliveries of their writes."""

    clock: LogicalClock
    scenario: Scenario
    snapshot: Snapshot
    cluster: Cluster
    writes: ObjectWrites

    def drain_moves(self) -> Iterator[Event]: ...

    def storage_changes(self, detail: str = "") -> Iterator[Event]: ...

    def claims_for_new_pod(self, pod: Pod) -> Iterator[Event]: ...

    def event(self, pod: Optional[str], point: ExtensionPoint, payload: Payload) -> Event: ...

    def change_event(
        self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = ""
    ) -> Event: ...


class PodControl:
    """Creates and deletes pods and creates claims through the run's cluster and storage door;
    the controllers' cache (``state``) learns of a step's own pods as they are made."""

    def __init__(self, loop: RunLoop, state: ClusterState) -> None:
        self.loop = loop
        self.state = state

    def apply(self, write: Write) -> Iterator[Event]:
        """A controller's write."""
        if isinstance(write, CreatePod):
            yield from self.create_pod(write.pod, write.by)
        elif isinstance(write, DeletePod):
            yield from self.delete_pod(write.pod, write.by, write.graceful)
        elif isinstance(write, CreateClaim):
            yield from self.create_claim(write.claim, write.by)

    def create_pod(self, pod: Pod, by: str) -> Iterator[Event]:
        """The pod informer's Add: a pending pod enters the queue (UnschedulablePodAdd); one
        written with a node is an assigned pod (AssignedPodAdd)."""
        if not self.state.knows(pod):  # a step's own pod (the controllers' are known already)
            self.state.created_ms[pod.key] = self.loop.clock.ms
            self.state.add_pod(pod)
        created = self.loop.cluster.create_pod(pod, ClusterChangeKind.POD_CREATED, by)
        yield from self.loop.drain_moves()
        if not created.node_name and created.scheduler_name in self.loop.scenario.scheduler_names:
            # As for the scenario's pending pods: the resourceclaim controller makes the claims of
            # the pod's templates, then names them in the pod's status (PreEnqueue held it till then).
            yield from self.loop.claims_for_new_pod(created)
            yield from self.loop.drain_moves()

    def delete_pod(self, pod: Pod, by: str, graceful: bool) -> Iterator[Event]:
        """A delete: a pending pod goes at once (no kubelet to wait for); a bound one is marked
        terminating (AssignedPodUpdate) and the stand-in kubelet removes it later — unless the
        delete has no grace (its node is lost), then it goes at once (AssignedPodDelete)."""
        self.loop.cluster.delete_pod(pod.key, ClusterChangeKind.POD_TERMINATING, by, graceful=graceful)
        yield from self.loop.drain_moves()

    def create_claim(self, claim: PersistentVolumeClaim, by: str) -> Iterator[Event]:
        self.loop.writes.write_claim(claim)
        self.state.claims.add(claim.key)
        yield from self.loop.storage_changes(f"created {by}")


def storage_classes(cluster: Cluster) -> list[StorageClass]:
    """The cluster's storage classes (its lister), in the order they were created."""
    return list(cluster.listed(KIND_STORAGE_CLASS).values())
