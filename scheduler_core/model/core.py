"""core/v1 as kube-scheduler reads it: pods, nodes, taints and tolerations, affinity, topology
spread constraints, namespaces, services; the resource names and well-known labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Callable, Optional, TYPE_CHECKING, cast

import msgspec

from scheduler_core.util.wire import Wire

if TYPE_CHECKING:
    from scheduler_core.model.volumes import Volume


CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"

# Resource requests keyed by resource name (cpu in millicores, the rest in base units).
ResourceList = dict[str, int]


def _shallow_copier(cls: type[object]) -> "Callable[[object], object]":
    """A ``__copy__`` for a slots dataclass written out field by field: ``copy.copy`` goes through
    ``__reduce_ex__`` and sets each slot in a loop (~6 µs a pod); every write of the run's cluster
    and every attempt copies a pod, and a run's set-up copies all of them (0.5 µs). Generated as
    dataclasses generates its methods."""
    # The slots dataclasses (Pod, Node) define __slots__; `type` does not declare it.
    assignments = "".join(f"    new.{name} = self.{name}\n" for name in cls.__slots__)  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    exec(f"def __copy__(self):\n    new = _new(_cls)\n{assignments}    return new\n", namespace)  # noqa: S102
    return cast("Callable[[object], object]", namespace["__copy__"])


class TaintEffect(str, Enum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str  # one of TaintEffect's values


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"  # "Equal" or "Exists"
    value: str = ""
    effect: str = ""  # "" tolerates every effect
    # tolerationSeconds (NoExecute only): the scheduler never reads it, but it is part of the
    # pod's signature (two pods that differ in it are not batched together).
    seconds: Optional[int] = None

    def tolerates(self, taint: Taint) -> bool:
        """k8s.io/api/core/v1 Toleration.ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        # "Equal" (also the default for an empty operator)
        return self.value == taint.value


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector. ``None`` where a selector is optional means "nil" (matches nothing)."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()  # only metadata.name is supported


@dataclass(frozen=True, slots=True)
class NodeSelector:
    terms: tuple[NodeSelectorTerm, ...]


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: Optional[NodeSelector] = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: Optional[LabelSelector]
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: Optional[LabelSelector] = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: Optional[NodeAffinity] = None
    pod_affinity: Optional[PodAffinity] = None
    pod_anti_affinity: Optional[PodAffinity] = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule or ScheduleAnyway
    label_selector: Optional[LabelSelector] = None
    min_domains: Optional[int] = None
    node_affinity_policy: Optional[str] = None  # Honor (default) or Ignore
    node_taints_policy: Optional[str] = None  # Ignore (default) or Honor
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    requests: ResourceList = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str = ""  # "Always" marks a sidecar init container
    limits: ResourceList = field(default_factory=dict)  # read only to default pod-level resources
    # spec's restartPolicyRules[].action, in order (NodeDeclaredFeatures infers a required feature
    # from a RestartAllContainers action).
    restart_rule_actions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerResourceStatus:
    """status.containerStatuses[] as an in-place resize leaves it: what the kubelet allocated
    (``allocatedResources``) and what the runtime actuated (``resources.requests``)."""

    allocated: ResourceList = field(default_factory=dict)
    actuated: Optional[ResourceList] = None  # None: status.resources absent (no resize information)


@dataclass(frozen=True, slots=True)
class OwnerReference:
    kind: str
    name: str
    api_version: str = ""
    controller: bool = False
    uid: str = ""  # the owner's metadata.uid (metav1.IsControlledBy compares it)


# status.phase values; the scheduler never sees a finished pod (its cache drops them).
PHASE_SUCCEEDED = "Succeeded"
PHASE_FAILED = "Failed"
FINISHED_PHASES = (PHASE_SUCCEEDED, PHASE_FAILED)

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass(frozen=True, slots=True)
class RecordedScheduling:
    """A dumped pod's ``status.conditions[type=PodScheduled]``: the real scheduler's last word on it
    (status "False" with reason Unschedulable or SchedulingGated and the FailedScheduling text, or
    "True" once bound). The scheduler never reads it; SchedLab shows it beside the replay."""

    status: str  # "True", "False" or "Unknown"
    reason: str = ""
    message: str = ""
    time: Optional[datetime] = None  # lastTransitionTime
    time_text: str = ""  # lastTransitionTime as written, for output


@dataclass(frozen=True, slots=True)
class PodScheduledCondition:
    """``status.conditions[type=PodScheduled]`` as the scheduler writes it after a failed attempt
    (status "False", reason Unschedulable or SchedulerError, the error's text): a patch is sent
    only when one of them changes (podutil.UpdatePodCondition)."""

    status: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class ContainerExtendedResourceRequest:
    """One of ``status.extendedResourceClaimStatus.requestMappings``: which request of the claim the
    scheduler made for a pod's extended resources (DRAExtendedResource) serves a container's request."""

    container_name: str
    resource_name: str
    request_name: str


@dataclass(frozen=True, slots=True)
class ExtendedResourceClaimStatus:
    """``status.extendedResourceClaimStatus``: the claim the scheduler made for the pod's extended
    resources backed by devices, and what serves each container (kube-controller-manager's
    resourceclaim controller releases that claim with the pod)."""

    claim_name: str
    mappings: tuple[ContainerExtendedResourceRequest, ...]


@dataclass(slots=True, eq=False)
class Pod:
    name: str
    namespace: str = "default"
    labels: dict[str, str] = field(default_factory=dict)
    node_name: str = ""
    priority: int = 0
    scheduler_name: str = "default-scheduler"
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Optional[Affinity] = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: ResourceList = field(default_factory=dict)
    # spec.resources.requests (pod-level resources, after the API server's defaulting).
    pod_level_requests: ResourceList = field(default_factory=dict)
    # Resize state of running containers, by container name; a resize the kubelet marked
    # Infeasible (condition PodResizePending) keeps the allocated and actuated amounts only.
    container_statuses: dict[str, ContainerResourceStatus] = field(default_factory=dict)
    resize_infeasible: bool = False
    owner_references: tuple[OwnerReference, ...] = ()
    preemption_policy: str = "PreemptLowerPriority"
    uid: str = ""
    priority_class_name: str = ""
    scheduling_gates: tuple[str, ...] = ()
    # spec.resourceClaims names (DRA), and each entry's source and status.resourceClaimStatuses.
    resource_claims: tuple[str, ...] = ()
    claim_sources: tuple["PodResourceClaim", ...] = ()
    claim_statuses: tuple[tuple[str, str], ...] = ()  # (pod claim name, ResourceClaim name)
    extended_resource_claim: Optional[ExtendedResourceClaimStatus] = None  # written by the scheduler
    phase: str = ""  # status.phase ("" when the dump has no status)
    deletion_timestamp: Optional[datetime] = None  # set: the pod is terminating
    # spec.terminationGracePeriodSeconds (the API server defaults it to 30) and metadata.finalizers:
    # a delete of a pod with grace 0 and no finalizers removes it at once (no terminating phase).
    termination_grace_period_seconds: int = 30
    finalizers: tuple[str, ...] = ()
    start_time: Optional[datetime] = None  # status.startTime (preemption's last tie-break)
    nominated_node_name: str = ""  # status.nominatedNodeName (a preemption under way)
    # status.conditions DisruptionTarget=True with reason PreemptionByScheduler: this pod is a
    # victim the scheduler is deleting (podTerminatingByPreemption, with a deletionTimestamp).
    preempted_by_scheduler: bool = False
    doc_index: int = 0  # position in the scenario file: the queue's FIFO order for equal priority
    line: Optional[int] = None  # YAML line of the object, for messages
    volumes: tuple["Volume", ...] = ()  # spec.volumes (types in the storage section at the end)
    # spec.hostNetwork and spec.hostUsers (None: unset, the default true); NodeDeclaredFeatures reads
    # both (a hostNetwork pod in its own user namespace needs UserNamespacesHostNetworkSupport).
    host_network: bool = False
    host_users: Optional[bool] = None
    recorded: Optional[RecordedScheduling] = None  # status.conditions[type=PodScheduled], when dumped
    # The same condition as the run's writes leave it (the dump's to begin with).
    scheduled_condition: Optional[PodScheduledCondition] = None
    # metadata.resourceVersion as the run's cluster (scheduler_core.cluster) gave it: every write
    # makes a new version of the object with the next number (0: as loaded).
    resource_version: int = 0
    # "namespace/name", made once: the queue, the cache and the cluster look pods up by it millions of
    # times in a large run (a pod's name and namespace never change; replace() makes it again).
    _key: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._key = f"{self.namespace}/{self.name}"

    @property
    def is_finished(self) -> bool:
        return self.phase in FINISHED_PHASES

    @property
    def is_terminating(self) -> bool:
        return self.deletion_timestamp is not None

    @property
    def is_deleted_at_once(self) -> bool:
        """Whether the API server deletes this pod immediately when asked to (rest.BeforeDelete:
        grace period 0, so not graceful; store.Delete: no finalizers keep the object)."""
        return self.termination_grace_period_seconds == 0 and not self.finalizers

    @property
    def key(self) -> str:
        return self._key

    def __repr__(self) -> str:
        return f"Pod({self.key})"


Pod.__copy__ = _shallow_copier(Pod)  # type: ignore[attr-defined]  # set here, generated for the slots


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True)
class NodeCondition:
    """One of a node's ``status.conditions``: the scheduler does not read them, the node lifecycle
    controller turns them into taints (see node_taints.py)."""

    type: str  # Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable, ...
    status: str  # "True", "False" or "Unknown"


@dataclass(slots=True, eq=False)
class Node:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: ResourceList = field(default_factory=dict)
    images: tuple[ContainerImage, ...] = ()
    doc_index: int = 0
    line: Optional[int] = None
    conditions: tuple[NodeCondition, ...] = ()  # status.conditions, in the order written
    annotations: dict[str, str] = field(default_factory=dict)  # metadata.annotations
    resource_version: int = 0  # as the run's cluster gave it (see Pod.resource_version)
    # status.declaredFeatures (NodeDeclaredFeatures; the API server keeps it sorted, no duplicates);
    # read only with the release's gate on (the loader says so when it is off).
    declared_features: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Node({self.name})"


Node.__copy__ = _shallow_copier(Node)  # type: ignore[attr-defined]  # set here, generated for the slots


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    # False: no Namespace object in the scenario, only pods (or affinity terms) naming it; its
    # labels are unknown (see findings.py).
    declared: bool = True


@dataclass(frozen=True, slots=True)
class Service:
    namespace: str
    name: str
    selector: dict[str, str]


class PodResourceClaim(Wire, frozen=True):  # type: ignore[misc]
    """One entry of a pod's ``spec.resourceClaims``: exactly one of the two sources is set. Its
    declaration is the entry as the API writes it (the source not set left out)."""

    name: str
    claim_name: str = msgspec.field(default="", name="resourceClaimName")
    template_name: str = msgspec.field(default="", name="resourceClaimTemplateName")
