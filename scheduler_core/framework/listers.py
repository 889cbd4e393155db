"""SharedLister: what the framework and the plugins read of the scheduler's snapshot
(pkg/scheduler/framework/listers.go).

The snapshot itself is the scheduler cache's (scheduler_core.backend.cache.snapshot.Snapshot, one
layer up): the framework names only what it reads of it, as upstream's framework hands plugins a
SharedLister (NodeInfos, StorageInfos) and never the cache.
"""

from __future__ import annotations

from typing import Iterable, Optional, Protocol

from scheduler_core.framework.dra_state import DraState
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.storage import StorageState
from scheduler_core.model import PodDisruptionBudget, Service, Workload


class SharedLister(Protocol):
    """The nodes as a cycle sees them (NodeInfoLister), in document order, with the objects the
    plugins read beside them (StorageInfoLister's claims and volumes, the DRA caches, the
    services, workloads, namespaces' labels and budgets)."""

    node_infos: list[NodeInfo]
    position: dict[str, int]
    services: list[Service]
    workloads: list[Workload]
    indexed_listers: dict[str, object]  # what plugins index of the two above, by plugin
    storage: StorageState
    dra: DraState
    pdbs: tuple[PodDisruptionBudget, ...]  # a new tuple when one changes
    namespace_labels: dict[str, dict[str, str]]  # every namespace's labels (labels_of_namespace)

    @property
    def table(self) -> NodeTable[NodeInfo]: ...

    def get(self, name: str) -> Optional[NodeInfo]: ...

    def labels_of_namespace(self, namespace: str) -> dict[str, str]: ...

    def have_pods_with_affinity(self) -> list[NodeInfo]: ...

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]: ...

    def is_pvc_used_by_pods(self, key: str) -> bool: ...

    def all_pods(self) -> Iterable[PodInfo]: ...
