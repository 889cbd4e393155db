"""Small builders for nodes, pods and snapshots in unit tests (like the framework's st.MakePod())."""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Optional

from scheduler_core.framework.dra_state import DraState
from scheduler_core.framework.node_info import NodeInfo, PodInfo, Snapshot
from scheduler_core.framework.storage import StorageState
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
    LABEL_HOSTNAME,
    MEMORY,
    PODS,
    VOLUME_KIND_CLAIM,
    ClaimRef,
    Container,
    CSIPersistentSource,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
    StorageObjects,
    Taint,
    Volume,
)


def make_node(name: str, labels: Optional[dict] = None, cpu: int = 4000, memory: int = 8 << 30,
              pods: int = 110, taints: Iterable[Taint] = (), **fields) -> Node:
    allocatable = {CPU: cpu, MEMORY: memory, PODS: pods}
    allocatable.update(fields.pop("allocatable", {}))
    return Node(name=name, labels=dict(labels or {}), taints=tuple(taints), allocatable=allocatable, **fields)


def make_pod(name: str, namespace: str = "default", labels: Optional[dict] = None, node: str = "",
             requests: Optional[dict] = None, **fields) -> Pod:
    containers = fields.pop("containers", (Container(name="c", requests=dict(requests or {})),))
    return Pod(name=name, namespace=namespace, labels=dict(labels or {}), node_name=node,
               containers=tuple(containers), **fields)


def make_snapshot(nodes: Iterable[Node], pods: Iterable[Pod] = (), namespaces: Optional[dict] = None,
                  **fields) -> Snapshot:
    snapshot = Snapshot([NodeInfo(n) for n in nodes], dict(namespaces or {}), **fields)
    for pod in pods:
        snapshot.by_name[pod.node_name].add_pod(PodInfo(pod))
    return snapshot


class FakeHandle:
    """The framework handle a plugin sees, for tests that call a plugin directly."""

    def __init__(self, snapshot: Snapshot, framework=None) -> None:
        self.snapshot = snapshot
        self.framework = framework


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

# ---------------------------------------------------------------------------- storage

GI = 1 << 30


def claim_volume(claim: str, name: str = "v") -> Volume:
    """A pod volume using the claim ``claim``."""
    return Volume(name, VOLUME_KIND_CLAIM, claim_name=claim)


def make_claim(name: str, namespace: str = "default", *, size_gi: int = 1, storage_class: Optional[str] = None,
               volume: str = "", modes: tuple[str, ...] = ("ReadWriteOnce",), bound: Optional[bool] = None,
               **fields) -> PersistentVolumeClaim:
    """A claim; ``volume`` set makes it bound (with the bind-completed annotation) unless bound=False."""
    annotations = dict(fields.pop("annotations", {}))
    if volume and bound is not False:
        annotations[ANN_BIND_COMPLETED] = "yes"
    phase = fields.pop("phase", "Bound" if volume and bound is not False else "Pending")
    return PersistentVolumeClaim(namespace, name, fields.pop("uid", f"uid-{name}"), annotations=annotations,
                                 access_modes=modes, storage_request=Fraction(size_gi * GI), storage_class_name=storage_class,
                                 volume_name=volume, phase=phase, **fields)


def make_volume(name: str, *, size_gi: int = 10, storage_class: str = "", claim: Optional[PersistentVolumeClaim] = None,
                node: Optional[str] = None, labels: Optional[dict] = None, modes: tuple[str, ...] = ("ReadWriteOnce",),
                phase: Optional[str] = None, driver: str = "csi.example.com", **fields) -> PersistentVolume:
    """A CSI volume; ``node`` pins it by hostname, ``claim`` binds it (phase Bound, else Available)."""
    affinity = fields.pop("node_affinity", None)
    if node is not None:
        affinity = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(LABEL_HOSTNAME, "In", (node,)),)),))
    ref = ClaimRef(claim.namespace, claim.name, claim.uid) if claim is not None else None
    csi = fields.pop("csi", CSIPersistentSource(driver, f"handle-{name}"))
    return PersistentVolume(name, dict(labels or {}), capacity=Fraction(size_gi * GI), access_modes=modes,
                            storage_class_name=storage_class, claim_ref=ref, node_affinity=affinity,
                            source_kind=fields.pop("source_kind", "csi" if csi else ""), csi=csi,
                            phase=phase or ("Bound" if claim is not None else "Available"), **fields)


def make_class(name: str, *, wait: bool = True, provisioner: str = "csi.example.com", **fields) -> StorageClass:
    mode = BINDING_WAIT_FOR_FIRST_CONSUMER if wait else BINDING_IMMEDIATE
    return StorageClass(name, provisioner, mode, **fields)


def storage_snapshot(nodes: Iterable[Node], pods: Iterable[Pod] = (), **objects) -> Snapshot:
    """A snapshot with storage objects: claims=, volumes=, classes=, csi_nodes=, csi_drivers=, ..."""
    snapshot = make_snapshot(nodes, pods)
    snapshot.storage = StorageState(StorageObjects(**{k: list(v) for k, v in objects.items()}))
    return snapshot


# ---------------------------------------------------------------------------- OpportunisticBatching


def no_default_spreading(*plugin_config: str) -> str:
    """A KubeSchedulerConfiguration document without PodTopologySpread's system default constraints
    (the default profile never batches while they exist), with further ``pluginConfig`` entries."""
    extra = "".join(f"  - {entry}\n" for entry in plugin_config)
    return ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
            "- schedulerName: default-scheduler\n  pluginConfig:\n"
            "  - name: PodTopologySpread\n    args: {defaultingType: List}\n" + extra + "---\n")


def fill_one_node_each(nodes: int = 150, pods: int = 3) -> str:
    """150 nodes of 4 CPUs (more than Filter looks at: it stops after 100 feasible ones); n010 and
    n120 are the preferred size, n020 the second choice; each pod needs 3 CPUs, so a node takes one."""
    sizes = {10: "xl", 20: "l", 120: "xl"}
    docs = []
    for i in range(nodes):
        size = f", size: {sizes[i]}" if i in sizes else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:03d}, labels: {{kubernetes.io/hostname: n{i:03d}{size}}}}}\n"
                    "status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}\n")
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


# ---------------------------------------------------------------------- dynamic resource allocation

GPU_DRIVER = "gpu.example.com"


def make_device_class(name: str = "gpu", *selectors: str) -> DeviceClass:
    """A DeviceClass; without selectors it selects every device of the GPU driver."""
    return DeviceClass(name, selectors or (f'device.driver == "{GPU_DRIVER}"',))


def make_gpu_slice(node: str, count: int = 2, model: str = "h100", memory_gi: int = 80, numa_split: int = 0,
                   driver: str = GPU_DRIVER, **fields) -> ResourceSlice:
    """One node-local slice of ``count`` GPUs gpu-0..; devices from ``numa_split`` on sit on NUMA 1."""
    devices = tuple(Device(f"gpu-{i}", {"model": model, "index": i, "numa": int(bool(numa_split) and i >= numa_split)},
                           {"memory": Fraction(memory_gi << 30)}) for i in range(count))
    fields.setdefault("node_name", node)
    return ResourceSlice(f"{node}-{driver}", driver, fields.pop("pool", node), devices=devices, **fields)


def exact(name: str = "gpu", device_class: str = "gpu", count: int = 1, mode: str = "ExactCount",
          selectors: tuple[str, ...] = (), admin: Optional[bool] = None) -> DeviceRequest:
    return DeviceRequest(name, ExactRequest(device_class, selectors, mode, count, admin))


def make_resource_claim(name: str, *requests: DeviceRequest, namespace: str = "default",
                        constraints: tuple[DeviceConstraint, ...] = (), on: Optional[tuple[str, ...]] = None,
                        node: str = "", reserved_for: tuple[Pod, ...] = (), owner: Optional[Pod] = None,
                        **fields) -> ResourceClaim:
    """A claim; ``on`` (devices of ``node``'s GPU pool) makes it allocated there, reserved for those pods."""
    allocation = fields.pop("allocation", None)
    if on is not None:
        results = tuple(DeviceResult(requests[0].name if requests else "gpu", GPU_DRIVER, node, device)
                        for device in on)
        selector = NodeSelector((NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In",
                                                                                         (node,)),)),))
        allocation = AllocationResult(results, selector)
    owners = (OwnerReference("Pod", owner.name, "v1", True, owner.uid),) if owner is not None else ()
    return ResourceClaim(namespace, name, fields.pop("uid", f"uid-claim-{name}"), owner_references=owners,
                         spec=ClaimSpec(tuple(requests or (exact(),)), constraints), allocation=allocation,
                         reserved_for=tuple(ConsumerRef("pods", p.name, p.uid) for p in reserved_for), **fields)


def claiming_pod(name: str, *claims: str, templates: tuple[str, ...] = (), node: str = "", **fields) -> Pod:
    """A pod using ResourceClaims by name (``claims``) or from templates (one pod claim per template)."""
    sources = tuple(PodResourceClaim(claim, claim_name=claim) for claim in claims) + tuple(
        PodResourceClaim(f"t{i}", template_name=template) for i, template in enumerate(templates))
    return make_pod(name, node=node, uid=fields.pop("uid", f"uid-{name}"), claim_sources=sources,
                    resource_claims=tuple(s.name for s in sources), **fields)


def dra_snapshot(nodes: Iterable[Node], pods: Iterable[Pod] = (), *, classes: Iterable[DeviceClass] = (),
                 slices: Iterable[ResourceSlice] = (), claims: Iterable[ResourceClaim] = (),
                 templates: Iterable[ResourceClaimTemplate] = ()) -> Snapshot:
    snapshot = make_snapshot(nodes, pods)
    snapshot.dra = DraState(DraObjects(list(classes), list(slices), list(claims), list(templates)))
    return snapshot
