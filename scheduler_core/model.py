"""Typed Kubernetes objects: only the fields kube-scheduler reads.

The scenario loader (``scenario/``) builds these from YAML after the API server's defaulting; the
plugins read them. Resource amounts are integers in the units kube-scheduler compares: millicores
for ``cpu``, whole units (bytes, counts) for everything else (see ``quantity.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import Enum
from fractions import Fraction
from typing import Callable, Optional, Union

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"

# Resource requests keyed by resource name (cpu in millicores, the rest in base units).
ResourceList = dict[str, int]



def _shallow_copier(cls: type) -> "Callable[[object], object]":
    """A ``__copy__`` for a slots dataclass written out field by field: ``copy.copy`` goes through
    ``__reduce_ex__`` and sets each slot in a loop (~6 µs a pod); every write of the run's cluster
    and every attempt copies a pod, and a run's set-up copies all of them (0.5 µs). Generated as
    dataclasses generates its methods."""
    assignments = "".join(f"    new.{name} = self.{name}\n" for name in cls.__slots__)
    namespace: dict = {"_new": object.__new__, "_cls": cls}
    exec(f"def __copy__(self):\n    new = _new(_cls)\n{assignments}    return new\n", namespace)  # noqa: S102
    return namespace["__copy__"]

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


Pod.__copy__ = _shallow_copier(Pod)  # type: ignore[method-assign]


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

    def __repr__(self) -> str:
        return f"Node({self.name})"


Node.__copy__ = _shallow_copier(Node)  # type: ignore[method-assign]


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


@dataclass(frozen=True, slots=True)
class Workload:
    """A ReplicaSet, StatefulSet or ReplicationController: only its selector matters here."""

    kind: str
    namespace: str
    name: str
    selector: Optional[LabelSelector]


@dataclass(frozen=True, slots=True)
class PluginRef:
    name: str
    weight: Optional[int] = None


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget: what preemption reads (filterPodsWithPDBViolation)."""

    namespace: str
    name: str
    selector: Optional[LabelSelector]  # None selects nothing
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()  # status.disruptedPods: names already being evicted
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: what the Priority admission plugin resolves a pod's
    ``priorityClassName`` to (``preemption_policy`` defaults to PreemptLowerPriority)."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """One profile of a KubeSchedulerConfiguration, as written (defaults are applied in profile.py).

    ``percentage_of_nodes_to_score`` is the profile's own value, else the configuration's (None when
    neither sets it). ``plugins`` maps an extension point's config name (``multiPoint``, ``preFilter``, ``filter``,
    ``postFilter``, ``preScore``, ``score``, ``reserve``, ``permit``, ``preBind``, ``bind``,
    ``postBind``, ``queueSort``) to its enabled/disabled sets; ``plugin_args`` maps a plugin name
    to its raw args mapping (validated and typed by the plugin's args dataclass).
    """

    percentage_of_nodes_to_score: Optional[int] = None
    scheduler_name: str = "default-scheduler"
    plugins: dict[str, PluginSet] = field(default_factory=dict)
    plugin_args: dict[str, dict] = field(default_factory=dict)
    line: Optional[int] = None


DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10


@dataclass(frozen=True, slots=True)
class SchedulerConfiguration:
    """A KubeSchedulerConfiguration: its profiles (one per schedulerName) and the queue's back-off."""

    profiles: tuple[SchedulerConfig, ...]
    pod_initial_backoff_seconds: int = DEFAULT_POD_INITIAL_BACKOFF_SECONDS
    pod_max_backoff_seconds: int = DEFAULT_POD_MAX_BACKOFF_SECONDS
    line: Optional[int] = None


class NoticeCode(str, Enum):
    """What the loader or the scheduler left out, and why: shown beside the result, never silent."""

    IGNORED_KINDS = "ignored-kinds"  # objects of kinds the scheduler does not read
    FINISHED_PODS = "finished-pods"  # phase Succeeded/Failed: not in the scheduler's cache
    MISSING_NODE = "missing-node"  # bound to a node the scenario does not hold
    OTHER_SCHEDULER = "other-scheduler"  # spec.schedulerName names no profile
    SCHEDULING_GATED = "scheduling-gated"  # spec.schedulingGates: never attempted
    PENDING_VOLUMES = "pending-volumes"  # PersistentVolumes without status.phase: stored as Pending
    RESOURCE_CLAIMS = "resource-claims"  # pending pods whose claims are missing: PreEnqueue holds them
    DRA_FEATURE_OFF = "dra-feature-off"  # resource.k8s.io fields of features off in v1.35.4: dropped
    NO_NODES = "no-nodes"  # no Node objects: nothing to schedule against (the CLI exits 3)
    NO_PENDING_PODS = "no-pending-pods"  # no pod waits for a node: nothing to schedule
    UNREAD_FILES = "unread-files"  # files of a directory or archive that are not YAML/JSON (logs, ...)
    NOT_OBJECTS = "not-objects"  # YAML/JSON files of a dump that hold no Kubernetes object (tool metadata)
    LINKS = "links"  # symbolic/hard links and special files of a directory or archive: not followed
    CONTAINER_LOGS = "container-logs"  # container logs between the lists of `kubectl cluster-info dump`
    DUPLICATE_OBJECTS = "duplicate-objects"  # the same object (same uid) written twice by a dump tool: read once
    # Invalid values the API server lets an existing pod keep (a required node affinity term's label
    # values): loaded as they are, never matching.
    KEPT_INVALID = "kept-invalid"


@dataclass(frozen=True, slots=True)
class Notice:
    code: NoticeCode
    message: str  # one sentence a user reads ("ignored: 3 Deployment, 12 ConfigMap")
    objects: tuple[str, ...] = ()  # the objects concerned ("Pod ns/name"), in document order

    def to_json(self) -> dict:
        return {"code": self.code.value, "message": self.message, "objects": list(self.objects)}


@dataclass(slots=True)
class Scenario:
    nodes: list[Node]
    pods: list[Pod]  # every pod in document order, running, pending and finished
    namespaces: dict[str, Namespace]
    services: list[Service] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    config: Optional[SchedulerConfiguration] = None
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # the loader's; see scheduling_notices()
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    storage: "StorageObjects" = field(default_factory=lambda: StorageObjects())  # PVs, claims, classes...
    # A run with steps (../shared/spec/CHANGES.md): the Changes document and what the stand-in controllers
    # read. None: no Changes document, the run is exactly ../shared/spec/TIMELINE.md's.
    changes: Optional["Changes"] = None
    dra: "DraObjects" = field(default_factory=lambda: DraObjects())  # resource.k8s.io objects

    @property
    def profile_configs(self) -> list[Optional[SchedulerConfig]]:
        """One entry per profile; ``[None]`` (the release's default profile) without a configuration."""
        return list(self.config.profiles) if self.config is not None else [None]

    @property
    def scheduler_names(self) -> set[str]:
        return {c.scheduler_name if c else DEFAULT_SCHEDULER_NAME for c in self.profile_configs}

    @property
    def running_pods(self) -> list[Pod]:
        """Pods bound to a node that exists and not finished (others are ignored, with a notice)."""
        names = {n.name for n in self.nodes}
        return [p for p in self.pods if p.node_name and p.node_name in names and not p.is_finished]

    @property
    def pending_pods(self) -> list[Pod]:
        """Pods without a node that this scheduler would try, in queue order (higher priority
        first, then document order): not finished, for one of its profiles, not gated."""
        names = self.scheduler_names
        pending = [p for p in self.pods if not p.node_name and not p.is_finished
                   and p.scheduler_name in names and not p.scheduling_gates]
        return sorted(pending, key=lambda p: (-p.priority, p.doc_index))

    def scheduling_notices(self) -> list[Notice]:
        """The loader's notices plus the pods this scheduler leaves alone (other scheduler, gated)."""
        names = self.scheduler_names
        waiting = [p for p in self.pods if not p.node_name and not p.is_finished]
        other = [p for p in waiting if p.scheduler_name not in names]
        gated = [p for p in waiting if p.scheduler_name in names and p.scheduling_gates]
        notices = list(self.notices)
        if other:
            schedulers = ", ".join(sorted({p.scheduler_name for p in other}))
            notices.append(Notice(NoticeCode.OTHER_SCHEDULER,
                                  f"{len(other)} pending pod(s) not for this scheduler (schedulerName {schedulers}): "
                                  "never attempted", tuple(f"Pod {p.key}" for p in other)))
        if gated:
            notices.append(Notice(NoticeCode.SCHEDULING_GATED,
                                  f"{len(gated)} pending pod(s) with scheduling gates (SchedulingGated): "
                                  "never attempted until the gates are removed", tuple(f"Pod {p.key}" for p in gated)))
        return notices


# ============================================================================ storage
# PersistentVolumeClaims, PersistentVolumes, StorageClasses, the CSI objects and pod volumes: what
# the four volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone) read.
# Storage sizes stay exact quantities (Fraction) because the release compares them with
# Quantity.Cmp; ``quantity.value`` gives Quantity.Value() where the release uses it.

LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region"

READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)

VOLUME_MODE_FILESYSTEM = "Filesystem"
VOLUME_MODE_BLOCK = "Block"

# PersistentVolume phases (status.phase); the API server stores a new volume as Pending.
VOLUME_PENDING = "Pending"
VOLUME_AVAILABLE = "Available"
VOLUME_BOUND = "Bound"
VOLUME_PHASES = (VOLUME_PENDING, VOLUME_AVAILABLE, VOLUME_BOUND, "Released", "Failed")
# PersistentVolumeClaim phases.
CLAIM_PENDING = "Pending"
CLAIM_BOUND = "Bound"
CLAIM_LOST = "Lost"
CLAIM_PHASES = (CLAIM_PENDING, CLAIM_BOUND, CLAIM_LOST)

BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

# Annotations of component-helpers/storage/volume and k8s.io/api.
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

# Pod volume kinds the plugins look at (the VolumeSource field that is set).
VOLUME_KIND_CLAIM = "persistentVolumeClaim"
VOLUME_KIND_EPHEMERAL = "ephemeral"
VOLUME_KIND_CSI = "csi"


@dataclass(frozen=True, slots=True)
class GCEPersistentDisk:
    pd_name: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AWSElasticBlockStore:
    volume_id: str
    fs_type: str = ""
    partition: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class RBDVolume:
    monitors: tuple[str, ...]
    image: str
    pool: str = "rbd"  # the API server's default
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class ISCSIVolume:
    target_portal: str
    iqn: str
    lun: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class CinderVolume:
    volume_id: str
    fs_type: str = ""
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AzureDiskVolume:
    disk_name: str
    disk_uri: str
    kind: str = "Shared"  # the API server's defaults: Shared, ReadWrite, ext4
    caching_mode: str = "ReadWrite"
    fs_type: str = "ext4"
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AzureFileVolume:
    secret_name: str
    share_name: str
    read_only: bool = False
    secret_namespace: Optional[str] = None  # PersistentVolumes only


@dataclass(frozen=True, slots=True)
class VsphereVolume:
    volume_path: str
    fs_type: str = ""
    storage_policy_name: str = ""


@dataclass(frozen=True, slots=True)
class PortworxVolume:
    volume_id: str
    fs_type: str = ""
    read_only: bool = False


# The in-tree volume sources VolumeRestrictions compares and CSI migration translates.
InTreeSource = Union[GCEPersistentDisk, AWSElasticBlockStore, RBDVolume, ISCSIVolume, CinderVolume,
                     AzureDiskVolume, AzureFileVolume, VsphereVolume, PortworxVolume]


@dataclass(frozen=True, slots=True)
class CSIPersistentSource:
    """A PersistentVolume's ``spec.csi``."""

    driver: str
    volume_handle: str
    read_only: bool = False
    fs_type: str = ""


@dataclass(frozen=True, slots=True)
class Volume:
    """One entry of a pod's ``spec.volumes``: its name, which source it uses, and what the volume
    plugins read of that source."""

    name: str
    kind: str  # the VolumeSource field set: "persistentVolumeClaim", "ephemeral", "emptyDir", ...
    claim_name: str = ""  # persistentVolumeClaim.claimName
    read_only: bool = False  # persistentVolumeClaim.readOnly
    in_tree: Optional[InTreeSource] = None
    csi_driver: str = ""  # an inline CSI volume's driver
    # The source as canonical JSON (the volume's name left out): what the pod's signature compares.
    source_key: str = ""

    @property
    def is_claim(self) -> bool:
        return self.kind == VOLUME_KIND_CLAIM

    @property
    def is_ephemeral(self) -> bool:
        return self.kind == VOLUME_KIND_EPHEMERAL

    def claim_for(self, pod_name: str) -> Optional[str]:
        """The claim this volume uses: its claimName, or ``<pod>-<volume>`` for a generic ephemeral
        volume (ephemeral.VolumeClaimName); None for any other source."""
        if self.is_claim:
            return self.claim_name
        if self.is_ephemeral:
            return f"{pod_name}-{self.name}"
        return None


@dataclass(frozen=True, slots=True)
class ClaimRef:
    namespace: str
    name: str
    uid: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    access_modes: tuple[str, ...] = ()
    storage_request: Optional[Fraction] = None  # spec.resources.requests.storage
    storage_class_name: Optional[str] = None  # None: not set ("" is an explicit "no class")
    volume_name: str = ""
    selector: Optional[LabelSelector] = None
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    volume_attributes_class_name: Optional[str] = None
    phase: str = CLAIM_PENDING
    terminating: bool = False  # metadata.deletionTimestamp is set
    owner_references: tuple[OwnerReference, ...] = ()
    capacity: Optional[Fraction] = None  # status.capacity.storage (for pictures)
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def class_name(self) -> str:
        """GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName."""
        if ANN_BETA_STORAGE_CLASS in self.annotations:
            return self.annotations[ANN_BETA_STORAGE_CLASS]
        return self.storage_class_name or ""

    @property
    def is_fully_bound(self) -> bool:
        """volumeBinder.isPVCFullyBound: a volume name and the bind-completed annotation."""
        return bool(self.volume_name) and ANN_BIND_COMPLETED in self.annotations


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    capacity: Optional[Fraction] = None  # spec.capacity.storage
    access_modes: tuple[str, ...] = ()
    storage_class_name: str = ""
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    volume_attributes_class_name: Optional[str] = None
    claim_ref: Optional[ClaimRef] = None
    node_affinity: Optional[NodeSelector] = None  # spec.nodeAffinity.required
    source_kind: str = ""  # the PersistentVolumeSource field set: "csi", "local", "gcePersistentDisk", ...
    csi: Optional[CSIPersistentSource] = None
    in_tree: Optional[InTreeSource] = None
    reclaim_policy: str = "Retain"
    phase: str = VOLUME_PENDING
    terminating: bool = False
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def class_name(self) -> str:
        """GetPersistentVolumeClass: the beta annotation first."""
        return self.annotations.get(ANN_BETA_STORAGE_CLASS, self.storage_class_name)


@dataclass(frozen=True, slots=True)
class TopologySelectorRequirement:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    provisioner: str
    volume_binding_mode: Optional[str] = BINDING_IMMEDIATE  # the API server defaults it
    allowed_topologies: tuple[tuple[TopologySelectorRequirement, ...], ...] = ()  # terms, ORed
    reclaim_policy: str = "Delete"
    annotations: dict[str, str] = field(default_factory=dict)
    created: Optional[datetime] = None  # metadata.creationTimestamp (the default class's tie-break)
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    node_id: str = ""
    allocatable_count: Optional[int] = None  # allocatable.count: the attach limit, None for no limit
    topology_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CSINode:
    name: str  # the node's name
    drivers: tuple[CSINodeDriver, ...] = ()
    annotations: dict[str, str] = field(default_factory=dict)
    line: Optional[int] = None

    @property
    def migrated_plugins_annotation(self) -> str:
        return self.annotations.get(ANN_MIGRATED_PLUGINS, "")

    @property
    def migrated_plugins(self) -> frozenset[str]:
        """The in-tree plugins this node migrated to CSI (the migrated-plugins annotation)."""
        value = self.annotations.get(ANN_MIGRATED_PLUGINS, "")
        return frozenset(value.split(",")) if value else frozenset()


@dataclass(frozen=True, slots=True)
class CSIDriver:
    name: str
    attach_required: bool = True
    storage_capacity: Optional[bool] = None  # spec.storageCapacity (the API server defaults false)
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity:
    namespace: str
    name: str
    storage_class_name: str
    node_topology: Optional[LabelSelector] = None  # None: available to no node
    capacity: Optional[Fraction] = None
    maximum_volume_size: Optional[Fraction] = None
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class VolumeAttachment:
    name: str
    attacher: str
    node_name: str
    persistent_volume_name: Optional[str] = None  # spec.source.persistentVolumeName
    line: Optional[int] = None


@dataclass(slots=True)
class StorageObjects:
    """The scenario's storage objects, each kind in document order."""

    claims: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes: list[PersistentVolume] = field(default_factory=list)
    classes: list[StorageClass] = field(default_factory=list)
    csi_nodes: list[CSINode] = field(default_factory=list)
    csi_drivers: list[CSIDriver] = field(default_factory=list)
    capacities: list[CSIStorageCapacity] = field(default_factory=list)
    attachments: list[VolumeAttachment] = field(default_factory=list)


# ============================================================================ workloads and changes
# ../shared/spec/CHANGES.md: the objects the stand-in controllers read, and the steps of a run. Manifests are
# kept as the YAML gave them (plain mappings): pods are made from templates, and a JSON merge
# patch applies to the object as written, then the object is decoded again.

Manifest = dict  # a Kubernetes object as a mapping (the loader's located YAML values)

KIND_DEPLOYMENT = "Deployment"
KIND_REPLICA_SET = "ReplicaSet"
KIND_STATEFUL_SET = "StatefulSet"
KIND_DAEMON_SET = "DaemonSet"
KIND_JOB = "Job"
CONTROLLED_KINDS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB)
POLICY_PARALLEL = "Parallel"
POLICY_ORDERED_READY = "OrderedReady"


@dataclass(slots=True, eq=False)
class ControlledWorkload:
    """A Deployment, ReplicaSet, StatefulSet, DaemonSet or Job as its stand-in controller reads it.
    ``replicas`` is a Job's ``parallelism``; a DaemonSet has none."""

    kind: str
    namespace: str
    name: str
    uid: str
    selector: Optional[LabelSelector]
    template: Manifest  # spec.template (metadata and spec)
    replicas: int = 1
    labels: dict[str, str] = field(default_factory=dict)
    owner: Optional[OwnerReference] = None  # a ReplicaSet's Deployment
    revision: int = 0  # deployment.kubernetes.io/revision
    pod_management_policy: str = POLICY_ORDERED_READY
    claim_templates: tuple[Manifest, ...] = ()  # a StatefulSet's volumeClaimTemplates
    created_ms: int = -1  # when a step created it (-1: in the scenario)
    manifest: Manifest = field(default_factory=dict)  # the object as written (a patch applies to it)
    line: Optional[int] = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


# ============================================================================ dynamic resource allocation
# resource.k8s.io/v1 DeviceClass, ResourceSlice, ResourceClaimTemplate and ResourceClaim as the
# scheduler reads them (k8s.io/api/resource/v1), after the API server's defaulting (an ``exactly``
# request without ``allocationMode`` is ExactCount with count 1). Fields of features that are off
# in v1.35.4 (DRAPartitionableDevices, DRADeviceTaints, DRAConsumableCapacity, DRAExtendedResource)
# are dropped by the loader with a notice (scenario/dra.py), as the API server drops them.

# resource.k8s.io/v1 constants.
FINALIZER = "resource.kubernetes.io/delete-protection"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
ALLOCATION_MODES = (ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_MODE_ALL)
ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize
FIRST_AVAILABLE_MAX_SIZE = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
CEL_SELECTOR_MAX_COST = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost


@dataclass(frozen=True, slots=True)
class Version:
    """A semantic version attribute value (``version:``), kept as written (semver 2.0.0)."""

    text: str


AttributeValue = Union[bool, int, str, Version]


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    attributes: dict[str, AttributeValue] = field(default_factory=dict)  # qualified name -> value
    capacity: dict[str, Fraction] = field(default_factory=dict)  # qualified name -> quantity

    def attribute(self, driver: str, fully_qualified: str) -> Optional[AttributeValue]:
        """lookupAttribute: the fully qualified name, or the bare id when the domain is the driver."""
        if fully_qualified in self.attributes:
            return self.attributes[fully_qualified]
        domain, sep, ident = fully_qualified.partition("/")
        if not sep or domain != driver:
            return None
        return self.attributes.get(ident)


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int = 0
    slice_count: int = 1  # pool.resourceSliceCount
    node_name: str = ""
    node_selector: Optional[NodeSelector] = None
    all_nodes: bool = False
    devices: tuple[Device, ...] = ()
    # Set when the slice uses DRAPartitionableDevices' fields (perDeviceNodeSelection or
    # sharedCounters): GatherPools skips such a slice while the feature is off.
    partitionable: bool = False
    doc_index: int = 0
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...] = ()  # CEL expressions
    config_count: int = 0  # spec.config entries (opaque, copied into allocations)
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class ExactRequest:
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: Optional[bool] = None


@dataclass(frozen=True, slots=True)
class SubRequest:
    """One alternative of a ``firstAvailable`` list (DRAPrioritizedList, on in v1.35)."""

    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1

    @property
    def admin_access(self) -> Optional[bool]:
        return None


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    name: str
    exactly: Optional[ExactRequest] = None
    first_available: tuple[SubRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()
    match_attribute: Optional[str] = None


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config_count: int = 0


@dataclass(frozen=True, slots=True)
class DeviceResult:
    request: str  # request name, or "<request>/<subrequest>"
    driver: str
    pool: str
    device: str
    admin_access: Optional[bool] = None

    @property
    def device_id(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)

    def to_json(self) -> dict:
        data = {"request": self.request, "driver": self.driver, "pool": self.pool, "device": self.device}
        if self.admin_access is not None:
            data["adminAccess"] = self.admin_access
        return data


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceResult, ...] = ()
    node_selector: Optional[NodeSelector] = None

    def to_json(self) -> dict:
        data: dict = {"devices": [result.to_json() for result in self.results]}
        if self.node_selector is not None:
            data["nodeSelector"] = [
                {"matchFields": [f"{r.key} {r.operator} {','.join(r.values)}" for r in term.match_fields],
                 "matchExpressions": [f"{r.key} {r.operator} {','.join(r.values)}" for r in term.match_expressions]}
                for term in self.node_selector.terms]
        return data


@dataclass(frozen=True, slots=True)
class ConsumerRef:
    """status.reservedFor[]: who uses the claim (a pod, by uid)."""

    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    finalizers: tuple[str, ...] = ()
    terminating: bool = False  # metadata.deletionTimestamp set
    spec: ClaimSpec = field(default_factory=ClaimSpec)
    allocation: Optional[AllocationResult] = None
    reserved_for: tuple[ConsumerRef, ...] = ()
    doc_index: int = 0
    line: Optional[int] = None
    resource_version: int = field(default=0, compare=False)  # as the run's API server gave it

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def is_reserved_for(self, uid: str) -> bool:
        """resourceclaim.IsReservedForPod."""
        return any(ref.uid == uid for ref in self.reserved_for)

    def controlled_by(self, uid: str) -> bool:
        """metav1.IsControlledBy: the controller owner reference has this uid."""
        return any(ref.controller and ref.uid == uid for ref in self.owner_references)

    def deallocated(self) -> "ResourceClaim":
        return replace(self, allocation=None, reserved_for=())


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    spec: ClaimSpec = field(default_factory=ClaimSpec)
    line: Optional[int] = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class BudgetSpec:
    """A PodDisruptionBudget's spec as the disruption controller reads it: an int or "N%"."""

    namespace: str
    name: str
    min_available: Optional[Union[int, str]] = None
    max_unavailable: Optional[Union[int, str]] = None


@dataclass(frozen=True, slots=True)
class ObjectRef:
    kind: str
    namespace: str  # "" for a cluster-scoped kind
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True)
class ScaleOp:
    target: ObjectRef
    replicas: int


@dataclass(frozen=True, slots=True)
class DrainOp:
    node: str


@dataclass(frozen=True, slots=True)
class CordonOp:
    node: str
    unschedulable: bool  # cordon: True, uncordon: False


@dataclass(frozen=True, slots=True)
class AddNodesOp:
    like: str
    count: int
    prefix: str
    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[Taint, ...] = ()


@dataclass(frozen=True, slots=True)
class DeleteNodesOp:
    selector: tuple[tuple[str, str], ...] = ()  # label = value, all must hold
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PatchOp:
    target: ObjectRef
    patch: Manifest  # a JSON merge patch (RFC 7386)


@dataclass(frozen=True, slots=True)
class CreateOp:
    target: ObjectRef
    manifest: Manifest


@dataclass(frozen=True, slots=True)
class DeleteOp:
    target: ObjectRef


@dataclass(frozen=True, slots=True)
class CompleteOp:
    target: ObjectRef  # a Job


OperationSpec = Union[ScaleOp, DrainOp, CordonOp, AddNodesOp, DeleteNodesOp, PatchOp, CreateOp, DeleteOp, CompleteOp]


@dataclass(frozen=True, slots=True)
class Operation:
    verb: str  # the key written: "scale", "drain", "cordon", ...
    spec: OperationSpec
    index: int  # position in the step's operations
    line: Optional[int] = None

    @property
    def text(self) -> str:
        """How reports name it: "drain node-7", "scale Deployment default/web to 30"."""
        spec = self.spec
        if isinstance(spec, ScaleOp):
            return f"scale {spec.target} to {spec.replicas}"
        if isinstance(spec, (DrainOp, CordonOp)):
            return f"{self.verb} {spec.node}"
        if isinstance(spec, AddNodesOp):
            return f"add {spec.count} node(s) like {spec.like}"
        if isinstance(spec, DeleteNodesOp):
            chosen = [f"{k}={v}" for k, v in spec.selector] + list(spec.names)
            return f"delete nodes {', '.join(chosen)}"
        return f"{self.verb} {spec.target}"


@dataclass(frozen=True, slots=True)
class Step:
    number: int  # 1, 2, ... (step 0 is the scenario itself)
    name: str
    operations: tuple[Operation, ...]
    line: Optional[int] = None

    @property
    def title(self) -> str:
        return self.name or "; ".join(op.text for op in self.operations) or "no operations"


@dataclass(slots=True)
class Changes:
    """The Changes document and what the stand-ins need from the rest of the scenario."""

    steps: tuple[Step, ...]
    workloads: list[ControlledWorkload] = field(default_factory=list)  # document order
    budgets: dict[str, BudgetSpec] = field(default_factory=dict)  # "namespace/name" -> spec
    manifests: dict[ObjectRef, Manifest] = field(default_factory=dict)  # nodes and pods as written
    line: Optional[int] = None


@dataclass(slots=True)
class DraObjects:
    """The scenario's resource.k8s.io objects, each kind in document order."""

    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    templates: list[ResourceClaimTemplate] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PodResourceClaim:
    """One entry of a pod's ``spec.resourceClaims``: exactly one of the two sources is set."""

    name: str
    claim_name: str = ""  # resourceClaimName
    template_name: str = ""  # resourceClaimTemplateName

    def to_json(self) -> dict[str, str]:
        """The entry as the API writes it."""
        out = {"name": self.name}
        if self.claim_name:
            out["resourceClaimName"] = self.claim_name
        if self.template_name:
            out["resourceClaimTemplateName"] = self.template_name
        return out
