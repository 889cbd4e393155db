"""Small builders for nodes, pods and snapshots in unit tests (like the framework's st.MakePod())."""

from __future__ import annotations

from typing import Iterable, Optional

from scheduler_core.framework.node_info import NodeInfo, PodInfo, Snapshot
from scheduler_core.model import CPU, MEMORY, PODS, Container, Node, Pod, Taint


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
