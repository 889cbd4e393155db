"""What the stand-in controllers read, and the writes they answer with."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Callable, Optional, Protocol, Union

from scheduler_core.cluster.store import KIND_NODE, KIND_WORKLOAD, Action, WatchEvent, follow, workload_key
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model.labels import compile_selector
from scheduler_core.release.gates import FeatureGates
from scheduler_core.model import (
    ControlledWorkload,
    Node,
    ObjectRef,
    PersistentVolumeClaim,
    Pod,
    PriorityClass,
)


@dataclass(frozen=True, slots=True)
class CreatePod:
    pod: Pod
    by: str  # "ReplicaSet default/web-5d8f7c9b6f"


@dataclass(frozen=True, slots=True)
class DeletePod:
    pod: Pod
    by: str
    graceful: bool = True  # False: gone at once (its node was lost)


@dataclass(frozen=True, slots=True)
class CreateClaim:
    claim: PersistentVolumeClaim
    by: str


Write = Union[CreatePod, DeletePod, CreateClaim]


class WorkloadApi(Protocol):
    """The workload verbs of the run's cluster (store.Cluster) the controllers write with."""

    def create_workload(self, workload: ControlledWorkload, detail: str = "") -> ControlledWorkload: ...

    def update_workload(self, workload: ControlledWorkload, detail: str = "") -> Optional[ControlledWorkload]: ...

    def delete_workload(
        self, kind: str, namespace: str, name: str, detail: str = ""
    ) -> Optional[ControlledWorkload]: ...


class _Slot:
    """One pod of the controllers' cache: its latest version (pods are never changed in place)."""

    __slots__ = ("pod", "announced")

    def __init__(self, pod: Pod, announced: bool) -> None:
        self.pod = pod
        self.announced = announced  # made by a controller, its Add not yet heard


@dataclass
class ClusterState:
    """What the controllers read: their informers' caches of the run's cluster, kept current by
    ``track`` (every write reaches it), plus what they remember of their own doings."""

    nodes: list[Node]  # document order, added nodes last
    initial_pods: InitVar[list[Pod]]  # the scenario's pods
    workloads: list[ControlledWorkload]  # document order, created ones last
    priority_classes: dict[str, PriorityClass]
    epoch: datetime  # the logical clock's zero
    gone: set[str] = field(default_factory=set)  # pods deleted from the API (removed, evicted and gone)
    created_ms: dict[str, int] = field(default_factory=dict)  # pods made during the run
    created_at: dict[str, datetime] = field(default_factory=dict)  # the scenario's pods (creationTimestamp)
    name_counters: dict[str, int] = field(default_factory=dict)  # workload key -> last k used
    claims: set[str] = field(default_factory=set)  # "namespace/name" of every claim that exists
    completed_jobs: set[str] = field(default_factory=set)
    now_ms: int = 0
    # DaemonSet key -> (its template, the template as a pod, node name -> (node, verdict)):
    # daemonset.DaemonVerdicts (Any here, as set_revisions below: that module imports this one).
    daemon_verdicts: dict[str, Any] = field(default_factory=dict)
    # metadata.annotations controller.kubernetes.io/pod-deletion-cost of the pods that carry it.
    deletion_costs: dict[str, int] = field(default_factory=dict)
    # When a pod of the run was bound: the kubelet stand-in makes it ready then (the Ready
    # condition's lastTransitionTime, which the ReplicaSet's scale-down ranking reads).
    bound_ms: dict[str, int] = field(default_factory=dict)
    # Deployments whose pod template a step changed: synced as the release syncs them (rollouts).
    rolling: set[str] = field(default_factory=set)
    # Deployment key -> its status as the Deployment controller last wrote it (counts and the
    # Progressing and Available conditions: deployment_util.DeploymentStatus); the subresource
    # nobody else in the run reads, kept as revisions.py keeps ControllerRevisions.
    deployment_statuses: dict[str, Any] = field(default_factory=dict)
    # ReplicaSets whose spec the Deployment controller changed since the ReplicaSet controller
    # last synced them (metadata.generation above status.observedGeneration).
    unobserved: set[str] = field(default_factory=set)
    # StatefulSet key -> its revisions (statefulset.Revisions); pod key -> the revision hash it
    # was made with; the scenario's pods -> the revision current when the set was first seen.
    set_revisions: dict[str, Any] = field(default_factory=dict)
    pod_revisions: dict[str, str] = field(default_factory=dict)
    initial_revisions: dict[str, str] = field(default_factory=dict)
    clock_ms: Optional[Callable[[], int]] = None  # the run's clock, for what ``track`` records
    # Where workload writes go: the run's cluster, whose events come back through
    # ``track_workload``; None: the state is its own API (a controller tested alone).
    api: Optional[WorkloadApi] = None
    # The release's: what its API server drops from the pods the controllers create.
    gates: Optional[FeatureGates] = None

    def __post_init__(self, initial_pods: list[Pod]) -> None:
        # Every pod ever, in creation order (finished and deleted ones included), and indexes over
        # them: the controllers run after every binding, so they must not scan every pod of a
        # large cluster each time. A slot holds a pod's latest version.
        self._slots: list[_Slot] = []
        self._latest: dict[str, _Slot] = {}  # pod key -> the slot of the latest pod with that name
        self._by_owner: dict[tuple[str, str, str], list[_Slot]] = {}
        self._by_namespace: dict[str, list[_Slot]] = {}
        self._by_name: dict[str, list[_Slot]] = {}
        # Pods whose name a newer pod took (a StatefulSet or DaemonSet pod made again): their last
        # version is not live, whatever ``gone`` says of the name now. (ids of objects the old
        # slots keep referenced, so they are never reused.)
        self._superseded: set[int] = set()
        # Node name -> its position in ``nodes``, checked at each use and rebuilt when stale: a
        # step that cordons thousands of nodes must not scan them all for each one.
        self._node_at: dict[str, int] = {}
        # owned_pods' candidates while no pod is written (the Deployment, ReplicaSet and ranking read
        # the same ReplicaSets' pods several times between two pod writes): workload -> (its
        # selector, the slots of the pods it controls that match it); whether each is live is asked
        # at every call.
        self._owned: dict[tuple[str, str, str, str], tuple[Any, list[_Slot]]] = {}
        self._owned_as_of = 0
        self._pod_writes = 0
        for pod in initial_pods:
            self._add(pod, announced=False)

    @property
    def pods(self) -> list[Pod]:
        """Every pod ever, in creation order, each as it is now."""
        return [slot.pod for slot in self._slots]

    @property
    def pod_count(self) -> int:
        return len(self._slots)

    def add_pod(self, pod: Pod) -> None:
        """A pod a controller is about to create (its expectation, before the Add arrives)."""
        self._add(pod, announced=True)

    def _add(self, pod: Pod, announced: bool) -> None:
        self._pod_writes += 1
        older = self._latest.get(pod.key)
        if older is not None:
            self._superseded.add(id(older.pod))
        slot = _Slot(pod, announced)
        self._slots.append(slot)
        self._latest[pod.key] = slot
        for ref in pod.owner_references:
            if ref.controller:
                self._by_owner.setdefault((ref.kind, pod.namespace, ref.name), []).append(slot)
        self._by_namespace.setdefault(pod.namespace, []).append(slot)
        self._by_name.setdefault(pod.key, []).append(slot)

    def track(self, event: WatchEvent) -> None:
        """The controllers' pod and node informers: every write, as the cluster delivers it."""
        if event.kind == KIND_NODE:
            self._track_node(event)
            return
        self._pod_writes += 1
        pod = event.current
        slot = self._latest.get(pod.key)
        if event.action is Action.ADDED:
            self.gone.discard(pod.key)
            if slot is None or not slot.announced:
                self._add(pod, announced=False)
                return
            slot.announced = False
        elif event.action is Action.DELETED:
            self.gone.add(pod.key)
        elif pod.node_name and not (slot is not None and slot.pod.node_name) and self.clock_ms is not None:
            self.bound_ms[pod.key] = self.clock_ms()
        if slot is not None:
            slot.pod = pod

    # ------------------------------------------------------------------ workloads

    def create_workload(self, workload: ControlledWorkload, detail: str = "") -> ControlledWorkload:
        """A controller creates a workload (a Deployment its ReplicaSet)."""
        if self.api is None:
            self.track_workload(
                WatchEvent(KIND_WORKLOAD, Action.ADDED, None, workload, ClusterChangeKind.WORKLOAD_CHANGED, detail)
            )
            return workload
        return self.api.create_workload(workload, detail)

    def scale(self, workload: ControlledWorkload, replicas: int, detail: str = "") -> ControlledWorkload:
        """spec.replicas written; the workload's version as it is now (the same one when nothing changes)."""
        return self.update_workload(replace(workload, replicas=replicas), detail)

    def update_workload(self, workload: ControlledWorkload, detail: str = "") -> ControlledWorkload:
        if self.api is None:  # its own API: the write is heard at once
            self.track_workload(
                WatchEvent(
                    KIND_WORKLOAD, Action.MODIFIED, workload, workload, ClusterChangeKind.WORKLOAD_CHANGED, detail
                )
            )
            return workload
        return self.api.update_workload(workload, detail) or self.current(workload)

    def delete_workload(self, workload: ControlledWorkload, detail: str = "") -> None:
        """A controller deletes a workload (the Deployment an old ReplicaSet beyond its history)."""
        if self.api is None:
            self.track_workload(
                WatchEvent(KIND_WORKLOAD, Action.DELETED, workload, None, ClusterChangeKind.WORKLOAD_CHANGED, detail)
            )
            return
        self.api.delete_workload(workload.kind, workload.namespace, workload.name, detail)

    def workload(self, ref: ObjectRef) -> Optional[ControlledWorkload]:
        """The workload ``ref`` names, as the cache holds it (the lister's Get); None if there is none."""
        return next(
            (w for w in self.workloads if w.kind == ref.kind and w.namespace == ref.namespace and w.name == ref.name),
            None,
        )

    def current(self, workload: ControlledWorkload) -> ControlledWorkload:
        """The cache's version of a workload (the same name and kind)."""
        wanted = workload_key(workload)
        return next((w for w in self.workloads if workload_key(w) == wanted), workload)

    def track_workload(self, event: WatchEvent) -> None:
        """The controllers' workload informers: every write, as the cluster delivers it."""
        follow(self.workloads, event, workload_key)

    def _track_node(self, event: WatchEvent) -> None:
        if event.action is Action.ADDED:
            at = self._node_position(event.new.name)
            if at is not None:
                self.nodes[at] = event.new
            else:
                self.nodes.append(event.new)
        elif event.action is Action.MODIFIED:
            at = self._node_position(event.new.name)
            if at is not None:
                self.nodes[at] = event.new
        elif event.action is Action.DELETED:
            at = self._node_position(event.old.name)
            if at is not None:
                del self.nodes[at]

    def _node_position(self, name: str) -> Optional[int]:
        """Where the first node named ``name`` is in ``nodes`` (None: nowhere)."""
        at = self._node_at.get(name)
        nodes = self.nodes
        if at is not None and at < len(nodes) and nodes[at].name == name:
            return at
        index: dict[str, int] = {}
        for i, node in enumerate(nodes):
            index.setdefault(node.name, i)
        self._node_at = index
        return index.get(name)

    def knows(self, pod: Pod) -> bool:
        return any(known.pod is pod for known in self._by_name.get(pod.key, []))

    def pods_in(self, namespace: str) -> list[Pod]:
        return [slot.pod for slot in self._by_namespace.get(namespace, [])]

    def live(self, pod: Pod) -> bool:
        """In the API and not finished (terminating pods are live until removed)."""
        return not pod.is_finished and not (self.gone and pod.key in self.gone) and id(pod) not in self._superseded

    def owned_pods(self, workload: ControlledWorkload) -> list[Pod]:
        """Live pods controlled by the workload (controller reference) and matching its selector."""
        if self._pod_writes != self._owned_as_of:
            self._owned, self._owned_as_of = {}, self._pod_writes
        key = (workload.kind, workload.namespace, workload.name, workload.uid)
        known = self._owned.get(key)
        if known is None or known[0] is not workload.selector:
            known = self._owned[key] = (workload.selector, self._matching_slots(workload))
        return [slot.pod for slot in known[1] if self.live(slot.pod)]

    def _matching_slots(self, workload: ControlledWorkload) -> list[_Slot]:
        matcher = compile_selector(workload.selector) if workload.selector is not None else None
        candidates = self._by_owner.get((workload.kind, workload.namespace, workload.name), [])
        return [
            slot
            for slot in candidates
            if _controlled_by(slot.pod, workload) and (matcher is None or matcher.matches(slot.pod.labels))
        ]

    def created(self, pod: Pod) -> datetime:
        """metadata.creationTimestamp: the run's clock for pods it made, the dump's otherwise."""
        if pod.key in self.created_ms:
            return self.epoch + timedelta(milliseconds=self.created_ms[pod.key])
        return self.created_at.get(pod.key) or (self.epoch - timedelta(days=1))

    def ready_since(self, pod: Pod) -> Optional[datetime]:
        """The Ready condition's lastTransitionTime as the kubelet stand-in writes it: the binding
        of a pod bound during the run; for a pod bound in the dump, its creation (the earliest
        it can have become ready); None while it is not running."""
        if not is_running(pod):
            return None
        if pod.key in self.bound_ms:
            return self.epoch + timedelta(milliseconds=self.bound_ms[pod.key])
        return self.created(pod)

    def name_in_use(self, namespace: str, name: str) -> bool:
        return any(self.live(slot.pod) for slot in self._by_name.get(f"{namespace}/{name}", []))

    def node(self, name: str) -> Optional[Node]:
        at = self._node_position(name)
        return self.nodes[at] if at is not None else None


def _controlled_by(pod: Pod, workload: ControlledWorkload) -> bool:
    for ref in pod.owner_references:
        if (
            ref.controller
            and ref.kind == workload.kind
            and ref.name == workload.name
            and pod.namespace == workload.namespace
            and (not ref.uid or not workload.uid or ref.uid == workload.uid)
        ):
            return True
    return False


def is_running(pod: Pod) -> bool:
    """The kubelet stand-in: a bound pod runs (and is ready) from its binding until it terminates."""
    return bool(pod.node_name) and not pod.is_terminating and not pod.is_finished
