"""What the stand-in controllers read, and the writes they answer with."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Optional, Union

from scheduler_core.labels import compile_selector
from scheduler_core.model import (
    ControlledWorkload,
    Node,
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


@dataclass
class ClusterState:
    """The objects the controllers read (the run's own live objects, never copies)."""

    nodes: list[Node]  # document order, added nodes last
    pods: list[Pod]  # every pod ever, in creation order (finished and deleted ones included)
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
    # DaemonSet key -> (its template, the template as a pod, node name -> (node, verdict)).
    daemon_verdicts: dict[str, tuple] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Indexes over ``pods`` (kept by ``add_pod``): the controllers run after every binding, so
        # they must not scan every pod of a large cluster each time.
        self._by_owner: dict[tuple[str, str, str], list[Pod]] = {}
        self._by_namespace: dict[str, list[Pod]] = {}
        self._by_name: dict[str, list[Pod]] = {}
        for pod in self.pods:
            self._index(pod)

    def add_pod(self, pod: Pod) -> None:
        self.pods.append(pod)
        self._index(pod)

    def _index(self, pod: Pod) -> None:
        for ref in pod.owner_references:
            if ref.controller:
                self._by_owner.setdefault((ref.kind, pod.namespace, ref.name), []).append(pod)
        self._by_namespace.setdefault(pod.namespace, []).append(pod)
        self._by_name.setdefault(pod.key, []).append(pod)

    def knows(self, pod: Pod) -> bool:
        return any(known is pod for known in self._by_name.get(pod.key, []))

    def pods_in(self, namespace: str) -> list[Pod]:
        return self._by_namespace.get(namespace, [])

    def live(self, pod: Pod) -> bool:
        """In the API and not finished (terminating pods are live until removed)."""
        return not pod.is_finished and not (self.gone and pod.key in self.gone)

    def owned_pods(self, workload: ControlledWorkload) -> list[Pod]:
        """Live pods controlled by the workload (controller reference) and matching its selector."""
        matcher = compile_selector(workload.selector) if workload.selector is not None else None
        candidates = self._by_owner.get((workload.kind, workload.namespace, workload.name), [])
        return [pod for pod in candidates if self.live(pod) and _controlled_by(pod, workload)
                and (matcher is None or matcher.matches(pod.labels))]

    def created(self, pod: Pod) -> datetime:
        """metadata.creationTimestamp: the run's clock for pods it made, the dump's otherwise."""
        if pod.key in self.created_ms:
            return self.epoch + timedelta(milliseconds=self.created_ms[pod.key])
        return self.created_at.get(pod.key) or (self.epoch - timedelta(days=1))

    def name_in_use(self, namespace: str, name: str) -> bool:
        return any(self.live(pod) for pod in self._by_name.get(f"{namespace}/{name}", []))

    def node(self, name: str) -> Optional[Node]:
        return next((node for node in self.nodes if node.name == name), None)


def _controlled_by(pod: Pod, workload: ControlledWorkload) -> bool:
    for ref in pod.owner_references:
        if ref.controller and ref.kind == workload.kind and ref.name == workload.name \
                and pod.namespace == workload.namespace and (not ref.uid or not workload.uid or ref.uid == workload.uid):
            return True
    return False


def is_running(pod: Pod) -> bool:
    """The kubelet stand-in: a bound pod runs (and is ready) from its binding until it terminates."""
    return bool(pod.node_name) and not pod.is_terminating and not pod.is_finished
