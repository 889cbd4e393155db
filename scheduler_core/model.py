"""Typed Kubernetes objects: only the fields kube-scheduler reads.

The scenario loader (``scenario/``) builds these from YAML after the API server's defaulting; the
plugins read them. Resource amounts are integers in the units kube-scheduler compares: millicores
for ``cpu``, whole units (bytes, counts) for everything else (see ``quantity.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"

# Resource requests keyed by resource name (cpu in millicores, the rest in base units).
ResourceList = dict[str, int]


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


@dataclass(frozen=True, slots=True)
class OwnerReference:
    kind: str
    name: str
    api_version: str = ""
    controller: bool = False


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
    owner_references: tuple[OwnerReference, ...] = ()
    preemption_policy: str = "PreemptLowerPriority"
    uid: str = ""
    doc_index: int = 0  # position in the scenario file: the queue's FIFO order for equal priority
    line: Optional[int] = None  # YAML line of the object, for messages

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"Pod({self.key})"


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


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

    def __repr__(self) -> str:
        return f"Node({self.name})"


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: dict[str, str] = field(default_factory=dict)


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
class SchedulerConfig:
    """One profile of a KubeSchedulerConfiguration, as written (defaults are applied in profile.py).

    ``plugins`` maps an extension point's config name (``multiPoint``, ``preFilter``, ``filter``,
    ``postFilter``, ``preScore``, ``score``, ``reserve``, ``permit``, ``preBind``, ``bind``,
    ``postBind``, ``queueSort``) to its enabled/disabled sets; ``plugin_args`` maps a plugin name
    to its raw args mapping (validated and typed by the plugin's args dataclass).
    """

    percentage_of_nodes_to_score: Optional[int] = None
    scheduler_name: str = "default-scheduler"
    plugins: dict[str, PluginSet] = field(default_factory=dict)
    plugin_args: dict[str, dict] = field(default_factory=dict)
    line: Optional[int] = None


@dataclass(slots=True)
class Scenario:
    nodes: list[Node]
    pods: list[Pod]  # every pod in document order, running and pending
    namespaces: dict[str, Namespace]
    services: list[Service] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    config: Optional[SchedulerConfig] = None

    @property
    def running_pods(self) -> list[Pod]:
        """Pods bound to a node that exists (a pod bound to an unknown node is ignored)."""
        names = {n.name for n in self.nodes}
        return [p for p in self.pods if p.node_name and p.node_name in names]

    @property
    def pending_pods(self) -> list[Pod]:
        """Pods without a node, in queue order: higher priority first, then document order."""
        pending = [p for p in self.pods if not p.node_name]
        return sorted(pending, key=lambda p: (-p.priority, p.doc_index))
