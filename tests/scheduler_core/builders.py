"""Small builders for nodes, pods and snapshots in unit tests (like the framework's st.MakePod()),
and the builders several test modules share: random clusters for the batch-vs-per-node tests,
InterPodAffinity's terms, and DefaultPreemption's dry run (no test module imports another)."""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from typing import Iterable, Optional

import numpy as np
from hypothesis import strategies as st

from scheduler_core.cluster import informers
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import Cluster
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.batch import FilterVerdicts, filter_per_node, normalize_per_node, score_per_node
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus, PostFilterResult
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import (
    ANN_BIND_COMPLETED,
    AllocationResult,
    ClaimSpec,
    ConsumerRef,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceResult,
    DraObjects,
    ExactRequest,
    OwnerReference,
    PodResourceClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CPU,
    EPHEMERAL_STORAGE,
    LABEL_HOSTNAME,
    LABEL_ZONE,
    MEMORY,
    PODS,
    Affinity,
    ContainerImage,
    ContainerPort,
    LabelSelectorRequirement,
    NodeAffinity,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Toleration,
    WeightedPodAffinityTerm,
    VOLUME_KIND_CLAIM,
    ClaimRef,
    Container,
    ControlledWorkload,
    CSIPersistentSource,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PersistentVolumeClaim,
    LabelSelector,
    Pod,
    StorageClass,
    StorageObjects,
    Taint,
    Volume,
)
from scheduler_core.plugins import node_unschedulable, taint_toleration
from scheduler_core.plugins.default_preemption import new as new_default_preemption
from scheduler_core.plugins.inter_pod_affinity import new as new_inter_pod_affinity
from scheduler_core.plugins.node_resources import new_fit


def make_node(
    name: str,
    labels: Optional[dict] = None,
    cpu: int = 4000,
    memory: int = 8 << 30,
    pods: int = 110,
    taints: Iterable[Taint] = (),
    **fields,
) -> Node:
    allocatable = {CPU: cpu, MEMORY: memory, PODS: pods}
    allocatable.update(fields.pop("allocatable", {}))
    return Node(name=name, labels=dict(labels or {}), taints=tuple(taints), allocatable=allocatable, **fields)


def make_pod(
    name: str,
    namespace: str = "default",
    labels: Optional[dict] = None,
    node: str = "",
    requests: Optional[dict] = None,
    **fields,
) -> Pod:
    containers = fields.pop("containers", (Container(name="c", requests=dict(requests or {})),))
    return Pod(
        name=name,
        namespace=namespace,
        labels=dict(labels or {}),
        node_name=node,
        containers=tuple(containers),
        **fields,
    )


def make_snapshot(
    nodes: Iterable[Node],
    pods: Iterable[Pod] = (),
    namespaces: Optional[dict] = None,
    *,
    storage: Optional[StorageObjects] = None,
    dra: Optional[DraObjects] = None,
    **fields,
) -> Snapshot:
    """A snapshot whose storage and device caches are informers of its own API server (``api``,
    holding the nodes and the ``storage`` and ``dra`` objects), as the scheduler's are."""
    nodes = list(nodes)
    snapshot = Snapshot([NodeInfo(n) for n in nodes], dict(namespaces or {}), **fields)
    for pod in pods:
        snapshot.by_name[pod.node_name].add_pod(PodInfo(pod))
    snapshot.api = Cluster([], nodes, storage=storage, dra=dra)
    informers.start(snapshot.api, snapshot)
    return snapshot


def api_of(snapshot: Snapshot) -> Cluster:
    """The API server a test snapshot's caches are informers of (one made now for a snapshot
    built without ``make_snapshot``)."""
    if getattr(snapshot, "api", None) is None:
        snapshot.api = Cluster([], [info.node for info in snapshot.node_infos])
        informers.start(snapshot.api, snapshot)
    return snapshot.api


class FakeHandle:
    """The framework handle a plugin sees, for tests that call a plugin directly."""

    def __init__(self, snapshot: Snapshot, framework=None, options: FrameworkOptions = FrameworkOptions()) -> None:
        self.snapshot = snapshot
        self.framework = framework
        # As the scheduler does: the plugins' API writes land in this snapshot's caches.
        self.options = (
            options
            if options.object_writes is not None
            else dataclasses.replace(options, object_writes=ObjectWrites(api_of(snapshot)))
        )


# YAML text for scenarios loaded as a user writes them (engine explanations, browser tests).


def node_text(name: str, cpu: str = "4", labels: str = "", taints: str = "", pods: str = "110") -> str:
    """A Node document; ``labels`` continues the label map (", zone: a"), ``taints`` fills the list."""
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}}}}}
spec: {{taints: [{taints}]}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "{pods}"}}}}
"""


def pod_text(name: str, spec: str = "", cpu: str = "1", node_name: str = "", labels: str = "{}") -> str:
    """A Pod document, pending unless ``node_name``; ``spec`` adds indented spec fields."""
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {labels}}}
spec:{bound}
  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
{spec}"""


def pinned_spec(*terms: str) -> str:
    """Pod spec text: required node affinity with one matchFields term ANDing ``metadata.name In [name]``
    per name given (two different names conflict: PreFilter rejects the pod)."""
    fields = "".join(f"\n          - {{key: metadata.name, operator: In, values: [{name}]}}" for name in terms)
    return f"""  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields:{fields}
"""


def numbers_scenario() -> str:
    """Four nodes, each rejected by one plugin with numbers to give: "full" lacks cpu (the pod asks
    2500m; 9 pods request 2200m of its 4000m), "tainted" has dedicated=gpu:NoSchedule, "hdd" has
    disktype=hdd where the pod's nodeSelector wants ssd, and on "ports" default/web-0 holds hostPort
    8080 the pod wants."""
    nodes = [
        node_text("full", labels=", disktype: ssd"),
        node_text("tainted", labels=", disktype: ssd", taints="{key: dedicated, value: gpu, effect: NoSchedule}"),
        node_text("hdd", labels=", disktype: hdd"),
        node_text("ports", labels=", disktype: ssd"),
    ]
    running = [pod_text(f"filler-{i}", cpu="250m" if i < 8 else "200m", node_name="full") for i in range(9)]
    holder = pod_text("web-0", node_name="ports").replace(
        "containers: [{name: c, ", "containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}], "
    )
    pending = pod_text("big", cpu="2500m", spec="  nodeSelector: {disktype: ssd}\n").replace(
        "containers: [{name: c, ", "containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}], "
    )
    return "---\n".join([*nodes, *running, holder, pending])


def preemption_scenario() -> str:
    """Two full one-cpu nodes; "high" (priority 100) must preempt: a's victim has priority 1, b's
    priority 5, so DefaultPreemption picks a on its second criterion (lowest highest victim priority)."""
    return "---\n".join(
        [
            node_text("a", cpu="1"),
            node_text("b", cpu="1"),
            pod_text("low-a", node_name="a", spec="  priority: 1\n"),
            pod_text("low-b", node_name="b", spec="  priority: 5\n"),
            pod_text("high", spec="  priority: 100\n"),
        ]
    )


# ---------------------------------------------------------------------------- storage

GI = 1 << 30


def claim_volume(claim: str, name: str = "v") -> Volume:
    """A pod volume using the claim ``claim``."""
    return Volume(name, VOLUME_KIND_CLAIM, claim_name=claim)


def make_claim(
    name: str,
    namespace: str = "default",
    *,
    size_gi: int = 1,
    storage_class: Optional[str] = None,
    volume: str = "",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    bound: Optional[bool] = None,
    **fields,
) -> PersistentVolumeClaim:
    """A claim; ``volume`` set makes it bound (with the bind-completed annotation) unless bound=False."""
    annotations = dict(fields.pop("annotations", {}))
    if volume and bound is not False:
        annotations[ANN_BIND_COMPLETED] = "yes"
    phase = fields.pop("phase", "Bound" if volume and bound is not False else "Pending")
    return PersistentVolumeClaim(
        namespace,
        name,
        fields.pop("uid", f"uid-{name}"),
        annotations=annotations,
        access_modes=modes,
        storage_request=Fraction(size_gi * GI),
        storage_class_name=storage_class,
        volume_name=volume,
        phase=phase,
        **fields,
    )


def make_volume(
    name: str,
    *,
    size_gi: int = 10,
    storage_class: str = "",
    claim: Optional[PersistentVolumeClaim] = None,
    node: Optional[str] = None,
    labels: Optional[dict] = None,
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    phase: Optional[str] = None,
    driver: str = "csi.example.com",
    **fields,
) -> PersistentVolume:
    """A CSI volume; ``node`` pins it by hostname, ``claim`` binds it (phase Bound, else Available)."""
    affinity = fields.pop("node_affinity", None)
    if node is not None:
        affinity = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(LABEL_HOSTNAME, "In", (node,)),)),))
    ref = ClaimRef(claim.namespace, claim.name, claim.uid) if claim is not None else None
    csi = fields.pop("csi", CSIPersistentSource(driver, f"handle-{name}"))
    return PersistentVolume(
        name,
        dict(labels or {}),
        capacity=Fraction(size_gi * GI),
        access_modes=modes,
        storage_class_name=storage_class,
        claim_ref=ref,
        node_affinity=affinity,
        source_kind=fields.pop("source_kind", "csi" if csi else ""),
        csi=csi,
        phase=phase or ("Bound" if claim is not None else "Available"),
        **fields,
    )


def make_class(name: str, *, wait: bool = True, provisioner: str = "csi.example.com", **fields) -> StorageClass:
    mode = BINDING_WAIT_FOR_FIRST_CONSUMER if wait else BINDING_IMMEDIATE
    return StorageClass(name, provisioner, mode, **fields)


def storage_snapshot(nodes: Iterable[Node], pods: Iterable[Pod] = (), **objects) -> Snapshot:
    """A snapshot with storage objects: claims=, volumes=, classes=, csi_nodes=, csi_drivers=, ..."""
    return make_snapshot(nodes, pods, storage=StorageObjects(**{k: list(v) for k, v in objects.items()}))


# ---------------------------------------------------------------------------- OpportunisticBatching


def no_default_spreading(*plugin_config: str) -> str:
    """A KubeSchedulerConfiguration document without PodTopologySpread's system default constraints
    (the default profile never batches while they exist), with further ``pluginConfig`` entries."""
    extra = "".join(f"  - {entry}\n" for entry in plugin_config)
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  pluginConfig:\n"
        "  - name: PodTopologySpread\n    args: {defaultingType: List}\n" + extra + "---\n"
    )


def fill_one_node_each(nodes: int = 150, pods: int = 3) -> str:
    """150 nodes of 4 CPUs (more than Filter looks at: it stops after 100 feasible ones); n010 and
    n120 are the preferred size, n020 the second choice; each pod needs 3 CPUs, so a node takes one."""
    sizes = {10: "xl", 20: "l", 120: "xl"}
    docs = []
    for i in range(nodes):
        size = f", size: {sizes[i]}" if i in sizes else ""
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:03d}, labels: {{kubernetes.io/hostname: n{i:03d}{size}}}}}\n"
            "status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}\n"
        )
    for j in range(pods):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: p{j}, namespace: default, labels: {{app: web}}}}
spec:
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: '3', memory: 1Gi}}}}}}]
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {{weight: 100, preference: {{matchExpressions: [{{key: size, operator: In, values: [xl]}}]}}}}
      - {{weight: 50, preference: {{matchExpressions: [{{key: size, operator: In, values: [l]}}]}}}}
""")
    return "---\n".join(docs)


# ---------------------------------------------------------------------------- runs with steps (../shared/spec/CHANGES.md)


def workload_text(
    kind: str,
    name: str,
    replicas: int = 1,
    cpu: str = "1",
    labels: str = "",
    extra_spec: str = "",
    pod_spec: str = "",
    metadata: str = "",
) -> str:
    """A Deployment / ReplicaSet / StatefulSet / DaemonSet / Job document selecting ``app: <name>``.
    ``extra_spec`` adds indented spec fields, ``pod_spec`` indented template spec fields
    (6 spaces), ``metadata`` indented metadata fields."""
    api_version = "batch/v1" if kind == "Job" else "apps/v1"
    count = (
        ""
        if kind == "DaemonSet"
        else (f"  parallelism: {replicas}\n" if kind == "Job" else f"  replicas: {replicas}\n")
    )
    return f"""apiVersion: {api_version}
kind: {kind}
metadata:
  name: {name}
  namespace: default
  uid: uid-{name}
{metadata}spec:
{count}  selector: {{matchLabels: {{app: {name}}}}}
{extra_spec}  template:
    metadata: {{labels: {{app: {name}{labels}}}}}
    spec:
      containers: [{{name: c, image: pause, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
{pod_spec}"""


def budget_text(name: str, app: str, min_available: str = "", max_unavailable: str = "", allowed: int = 0) -> str:
    field = f"minAvailable: {min_available}" if min_available else f"maxUnavailable: {max_unavailable}"
    return f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: default}}
spec:
  {field}
  selector: {{matchLabels: {{app: {app}}}}}
status: {{disruptionsAllowed: {allowed}}}
"""


def changes_text(*steps: list[str]) -> str:
    """A Changes document: each step a list of operations written in flow style."""
    lines = ["apiVersion: schedlab.io/v1alpha1", "kind: Changes", "steps:"]
    for operations in steps:
        lines.append("- operations:")
        lines.extend(f"  - {operation}" for operation in operations)
    return "\n".join(lines) + "\n"


def scenario_text(*documents: str) -> str:
    return "---\n".join(documents)


def gpu_devices_text(node: str = "n1", devices: int = 2, template: str = "one-gpu") -> str:
    """DRA documents for one node's GPUs: DeviceClass ``gpu`` (driver gpu.example.com), the node's
    ResourceSlice with ``devices`` devices gpu-0.. in one pool, and a ResourceClaimTemplate
    ``template`` asking one device of that class."""
    names = ", ".join(f"{{name: gpu-{index}}}" for index in range(devices))
    return f"""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu}}
spec: {{selectors: [{{cel: {{expression: 'device.driver == "gpu.example.com"'}}}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node}-gpu}}
spec:
  driver: gpu.example.com
  nodeName: {node}
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  devices: [{names}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {template}, namespace: default}}
spec: {{spec: {{devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu}}}}]}}}}}}
"""


def cluster_state(nodes=(), pods=(), workloads=()):
    """A ClusterState for the controllers' unit tests (the run's clock at 0)."""
    return ClusterState(list(nodes), list(pods), list(workloads), {}, datetime(2026, 1, 1, tzinfo=timezone.utc))


def controlled_workload(kind: str, name: str, replicas: int = 1, template_spec: Optional[dict] = None, **fields):
    spec = template_spec or {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    template = {"metadata": {"labels": {"app": name}}, "spec": spec}
    return ControlledWorkload(
        kind, "default", name, f"uid-{name}", LabelSelector((("app", name),)), template, replicas, **fields
    )


# ---------------------------------------------------------------------------- random clusters (batch tests)
# Each test_*_batch.py compares a plugin's batch methods with its per-node ones on these.

GPU = "example.com/gpu"
HUGEPAGES = "hugepages-2Mi"
LABEL_KEYS = ("zone", "pool", "num", "gpu")
LABEL_VALUES = ("a", "b", "c", "1", "5", "10", "-3", "+7", "x1", "")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus")
IMAGES = ("nginx", "nginx:1.25", "redis:7", "reg.io:5000/app", "busybox:latest")
RESOURCE_NAMES = (CPU, MEMORY, EPHEMERAL_STORAGE, GPU, HUGEPAGES, "foo")

# ---------------------------------------------------------------------------- random clusters

taints = st.builds(
    Taint,
    st.sampled_from(("k1", "k2", "node.kubernetes.io/unschedulable")),
    st.sampled_from(("", "v")),
    st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute")),
)
tolerations = st.builds(
    Toleration,
    st.sampled_from(("", "k1", "k2", "node.kubernetes.io/unschedulable")),
    st.sampled_from(("Equal", "Exists", "")),
    st.sampled_from(("", "v")),
    st.sampled_from(("", "NoSchedule", "PreferNoSchedule", "NoExecute")),
)
amounts = st.one_of(st.just(0), st.integers(1, 10), st.integers(0, 64_000), st.integers(0, 1 << 40))


def requirements(node_names=("n0", "n1", "n2")):
    label = st.builds(
        NodeSelectorRequirement,
        st.sampled_from(LABEL_KEYS),
        st.sampled_from(OPERATORS),
        st.lists(st.sampled_from(LABEL_VALUES), max_size=3).map(tuple),
    )
    field = st.builds(
        NodeSelectorRequirement,
        st.sampled_from(("metadata.name", "metadata.uid")),
        st.sampled_from(("In", "NotIn", "Exists")),
        st.lists(st.sampled_from(node_names + ("zz",)), max_size=2).map(tuple),
    )
    return label, field


def terms():
    label, field = requirements()
    return st.builds(NodeSelectorTerm, st.lists(label, max_size=3).map(tuple), st.lists(field, max_size=1).map(tuple))


def node_affinities():
    return st.builds(
        NodeAffinity,
        st.one_of(st.none(), st.builds(NodeSelector, st.lists(terms(), max_size=3).map(tuple))),
        st.lists(st.builds(PreferredSchedulingTerm, st.integers(0, 100), terms()), max_size=3).map(tuple),
    )


@st.composite
def nodes(draw, index: int):
    labels = draw(st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), max_size=4))
    allocatable = {}
    for name in RESOURCE_NAMES:
        if draw(st.booleans()):
            allocatable[name] = draw(amounts)
    allocatable[PODS] = draw(st.integers(0, 4))
    images = tuple(
        ContainerImage(
            tuple(draw(st.sets(st.sampled_from(IMAGES), min_size=1, max_size=2))), draw(st.integers(0, 3000)) << 20
        )
        for _ in range(draw(st.integers(0, 2)))
    )
    node = make_node(
        f"n{index}",
        labels,
        taints=draw(st.lists(taints, max_size=3)),
        unschedulable=draw(st.booleans()),
        images=images,
        doc_index=index,
    )
    node.allocatable.clear()
    node.allocatable.update(allocatable)
    return node


def containers(ports: bool = True):
    port = st.builds(
        ContainerPort,
        st.integers(80, 81),
        st.sampled_from((0, 80, 8080)),
        st.sampled_from(("TCP", "UDP")),
        st.sampled_from(("", "0.0.0.0", "10.0.0.1")),
    )
    requests = st.dictionaries(st.sampled_from(RESOURCE_NAMES), amounts, max_size=4)
    return st.builds(
        Container,
        st.just("c"),
        st.sampled_from(IMAGES),
        requests,
        st.lists(port, max_size=2 if ports else 0).map(tuple),
    )


@st.composite
def clusters(draw, max_nodes: int = 12):
    """(snapshot, pending pod, positions in a random evaluation order)."""
    count = draw(st.integers(1, max_nodes))
    node_list = [draw(nodes(i)) for i in range(count)]
    running = []
    for i in range(draw(st.integers(0, 2 * count))):
        host = draw(st.integers(0, count - 1))
        running.append(make_pod(f"r{i}", node=f"n{host}", containers=(draw(containers()),)))
    affinity = draw(node_affinities())
    pod = make_pod(
        "p",
        containers=tuple(draw(st.lists(containers(), min_size=0, max_size=2))),
        init_containers=tuple(draw(st.lists(containers(ports=False), max_size=1))),
        tolerations=tuple(draw(st.lists(tolerations, max_size=3))),
        node_selector=draw(st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), max_size=2)),
        affinity=Affinity(node_affinity=affinity) if draw(st.booleans()) else None,
        node=draw(st.sampled_from(("", "", "n0", "n1", "zz"))),
    )
    snapshot = make_snapshot(node_list, running)
    positions = np.asarray(draw(st.permutations(range(count)))[: draw(st.integers(1, count))], dtype=np.int64)
    return snapshot, pod, positions


# ---------------------------------------------------------------------------- comparisons


def statuses(verdicts: FilterVerdicts) -> list:
    return [verdicts.palette[c] if c >= 0 else None for c in verdicts.choice.tolist()]


def assert_filter_same(plugin, state, pod, table, positions) -> None:
    fast = plugin.filter_batch(state, pod, table, positions)
    fast = fast if fast is not None else FilterVerdicts.all_pass(len(positions))
    assert len(fast.choice) == len(positions)
    assert statuses(fast) == statuses(filter_per_node(plugin, state, pod, table, positions))


def assert_score_same(plugin, state, pod, table, positions) -> None:
    reference = score_per_node(plugin, state, pod, table, positions)
    assert not isinstance(reference, Status)
    fast = plugin.score_batch(state, pod, table, positions)
    assert fast.dtype == np.int64
    assert fast.tolist() == reference.tolist()
    if hasattr(plugin, "normalize_score"):
        names = [table.names[p] for p in positions.tolist()]
        normalized = normalize_per_node(plugin, state, pod, names, reference)
        assert not isinstance(normalized, Status)
        assert plugin.normalize_batch(state, pod, fast.copy()).tolist() == normalized.tolist()


@st.composite
def pod_moves(draw, max_moves: int = 8):
    """(node index, a pod to bind there, or None: take off the last pod bound), for
    assert_same_as_pods_come_and_go."""
    moves = []
    for i in range(draw(st.integers(1, max_moves))):
        bind = draw(st.booleans()) or not moves
        pod = make_pod(f"moved-{i}", containers=(draw(containers(ports=False)),)) if bind else None
        moves.append((draw(st.integers(0, 11)), pod))
    return moves


def assert_same_as_pods_come_and_go(plugin, snapshot, pod, positions, moves, *, score: bool) -> None:
    """The batch methods against the per-node ones on the same table again and again, one pod bound
    to or taken off a node between asks (``moves``: (node index, pod to bind or None to unbind the
    last one bound)): what they keep between cycles (plugins.helper.per_node_values) follows."""
    bound = []
    for _ in range(3):  # asked three times first: the kept values are in place
        _assert_batch_same(plugin, pod, snapshot, positions, score)
    for node, other in moves:
        if other is None and bound:
            snapshot.unbind(bound.pop())
        elif other is not None:
            snapshot.bind(other, snapshot.node_infos[node % len(snapshot.node_infos)].name)
            bound.append(other)
        _assert_batch_same(plugin, pod, snapshot, positions, score)


def _assert_batch_same(plugin, pod, snapshot, positions, score: bool) -> None:
    state = CycleState()
    if hasattr(plugin, "pre_filter"):
        plugin.pre_filter(state, pod, snapshot.node_infos)
    if score:
        plugin.pre_score(state, pod, snapshot.node_infos)
        assert_score_same(plugin, state, pod, snapshot.table, positions)
    else:
        assert_filter_same(plugin, state, pod, snapshot.table, positions)


# ---------------------------------------------------------------------------- InterPodAffinity's terms

ZONE = LABEL_ZONE
HOST = LABEL_HOSTNAME


def selector(labels: Optional[dict] = None, **exists) -> LabelSelector:
    """matchLabels from ``labels``; ``exists=("key",)`` adds an Exists expression per key."""
    expressions = tuple(LabelSelectorRequirement(key, "Exists") for key in exists.get("exists", ()))
    return LabelSelector(tuple(sorted((labels or {}).items())), expressions)


def term(
    labels: Optional[dict] = None,
    key: str = ZONE,
    namespaces: tuple[str, ...] = (),
    namespace_selector: Optional[LabelSelector] = None,
    label_selector: Optional[LabelSelector] = None,
) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector or selector(labels), key, namespaces, namespace_selector)


def weighted(weight: int, labels: dict, key: str = ZONE, **fields) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, term(labels, key, **fields))


def affinity(required=(), preferred=(), anti_required=(), anti_preferred=()) -> Affinity:
    pod_affinity = PodAffinity(tuple(required), tuple(preferred)) if required or preferred else None
    anti = PodAffinity(tuple(anti_required), tuple(anti_preferred)) if anti_required or anti_preferred else None
    return Affinity(pod_affinity=pod_affinity, pod_anti_affinity=anti)


def cluster_nodes():
    """node1, node2 in zone a; node3 in zone b; node4 without a zone label."""
    return [
        make_node("node1", {ZONE: "a", HOST: "node1"}),
        make_node("node2", {ZONE: "a", HOST: "node2"}),
        make_node("node3", {ZONE: "b", HOST: "node3"}),
        make_node("node4", {HOST: "node4"}),
    ]


def make_inter_pod_affinity(running=(), namespaces: Optional[dict] = None, args: Optional[dict] = None, nodes=None):
    snapshot = make_snapshot(nodes if nodes is not None else cluster_nodes(), running, namespaces)
    return new_inter_pod_affinity(args, FakeHandle(snapshot)), snapshot


# ---------------------------------------------------------------------------- DefaultPreemption's dry run


def running(name: str, node: str, cpu: int, priority: int, namespace: str = "default", **fields) -> Pod:
    return make_pod(name, namespace, node=node, requests={CPU: cpu}, priority=priority, **fields)


def preemptor(cpu: int = 1000, priority: int = 10, **fields) -> Pod:
    return make_pod("incoming", requests={CPU: cpu}, priority=priority, **fields)


@dataclass
class Outcome:
    code: str
    reasons: list[str]
    result: Optional[PostFilterResult]
    state: CycleState


def run_post_filter(nodes, pods, pod: Pod, extra_plugins=(), pre_filter_status: Optional[Status] = None) -> Outcome:
    """PreFilter and Filter as the scheduler runs them, then DefaultPreemption on what they said."""
    snapshot = make_snapshot(nodes, pods)
    handle = FakeHandle(snapshot)
    fit = new_fit(None, handle)
    filters = [node_unschedulable.new(None, handle), taint_toleration.new(None, handle), fit, *extra_plugins]
    profile = Profile.of(
        {"preFilter": [fit, *extra_plugins], "filter": filters, "postFilter": [new_default_preemption(None, handle)]},
        {},
        100,
    )
    framework = Framework(profile, snapshot)
    handle.framework = framework
    state = CycleState()
    framework.run_pre_filter(state, pod, snapshot.node_infos)
    if pre_filter_status is not None:
        statuses = NodeToStatus({}, pre_filter_status)
    else:
        first_failures = {n.name: framework.run_filter(state, pod, n) for n in snapshot.node_infos}
        statuses = NodeToStatus(
            {k: v for k, v in first_failures.items() if v is not None}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        )
    run = framework.run_post_filter(state, pod, statuses)
    code = "Success" if run.status is None else run.status.code.label
    return Outcome(code, [] if run.status is None else list(run.status.reasons), run.result, state)


# ---------------------------------------------------------------------- dynamic resource allocation

GPU_DRIVER = "gpu.example.com"


def make_device_class(name: str = "gpu", *selectors: str) -> DeviceClass:
    """A DeviceClass; without selectors it selects every device of the GPU driver."""
    return DeviceClass(name, selectors or (f'device.driver == "{GPU_DRIVER}"',))


def make_gpu_slice(
    node: str,
    count: int = 2,
    model: str = "h100",
    memory_gi: int = 80,
    numa_split: int = 0,
    driver: str = GPU_DRIVER,
    **fields,
) -> ResourceSlice:
    """One node-local slice of ``count`` GPUs gpu-0..; devices from ``numa_split`` on sit on NUMA 1."""
    devices = tuple(
        Device(
            f"gpu-{i}",
            {"model": model, "index": i, "numa": int(bool(numa_split) and i >= numa_split)},
            {"memory": Fraction(memory_gi << 30)},
        )
        for i in range(count)
    )
    fields.setdefault("node_name", node)
    return ResourceSlice(f"{node}-{driver}", driver, fields.pop("pool", node), devices=devices, **fields)


def exact(
    name: str = "gpu",
    device_class: str = "gpu",
    count: int = 1,
    mode: str = "ExactCount",
    selectors: tuple[str, ...] = (),
    admin: Optional[bool] = None,
) -> DeviceRequest:
    return DeviceRequest(name, ExactRequest(device_class, selectors, mode, count, admin))


def make_resource_claim(
    name: str,
    *requests: DeviceRequest,
    namespace: str = "default",
    constraints: tuple[DeviceConstraint, ...] = (),
    on: Optional[tuple[str, ...]] = None,
    node: str = "",
    reserved_for: tuple[Pod, ...] = (),
    owner: Optional[Pod] = None,
    **fields,
) -> ResourceClaim:
    """A claim; ``on`` (devices of ``node``'s GPU pool) makes it allocated there, reserved for those pods."""
    allocation = fields.pop("allocation", None)
    if on is not None:
        results = tuple(
            DeviceResult(requests[0].name if requests else "gpu", GPU_DRIVER, node, device) for device in on
        )
        selector = NodeSelector(
            (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", (node,)),)),)
        )
        allocation = AllocationResult(results, selector)
    owners = (OwnerReference("Pod", owner.name, "v1", True, owner.uid),) if owner is not None else ()
    return ResourceClaim(
        namespace,
        name,
        fields.pop("uid", f"uid-claim-{name}"),
        owner_references=owners,
        spec=ClaimSpec(tuple(requests or (exact(),)), constraints),
        allocation=allocation,
        reserved_for=tuple(ConsumerRef("pods", p.name, p.uid) for p in reserved_for),
        **fields,
    )


def claiming_pod(name: str, *claims: str, templates: tuple[str, ...] = (), node: str = "", **fields) -> Pod:
    """A pod using ResourceClaims by name (``claims``) or from templates (one pod claim per template)."""
    sources = tuple(PodResourceClaim(claim, claim_name=claim) for claim in claims) + tuple(
        PodResourceClaim(f"t{i}", template_name=template) for i, template in enumerate(templates)
    )
    return make_pod(
        name,
        node=node,
        uid=fields.pop("uid", f"uid-{name}"),
        claim_sources=sources,
        resource_claims=tuple(s.name for s in sources),
        **fields,
    )


def dra_snapshot(
    nodes: Iterable[Node],
    pods: Iterable[Pod] = (),
    *,
    classes: Iterable[DeviceClass] = (),
    slices: Iterable[ResourceSlice] = (),
    claims: Iterable[ResourceClaim] = (),
    templates: Iterable[ResourceClaimTemplate] = (),
) -> Snapshot:
    return make_snapshot(nodes, pods, dra=DraObjects(list(classes), list(slices), list(claims), list(templates)))
