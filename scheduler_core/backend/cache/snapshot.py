"""The scheduler cache and the Snapshot a cycle reads (pkg/scheduler/backend/cache: cache.go, snapshot.go).

Upstream keeps the cache (cacheImpl: assumed pods, AddPod/UpdatePod/RemovePod, AddNode/UpdateNode/
RemoveNode, image states) apart from the Snapshot it refreshes before every cycle (UpdateSnapshot);
here both are one object, ``Snapshot``, kept current as the informers and the cycles change it, so
every cycle reads the cache as it stands. Its nodes are listed in document order; the order Filter
walks (zones round-robin) is node_tree.py's. Framework code and plugins read it as a
framework.listers.SharedLister.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Iterable, Optional

from scheduler_core.backend.cache.node_tree import tree_order
from scheduler_core.framework.cluster_events import ClusterChange
from scheduler_core.framework.dra_state import DraState
from scheduler_core.framework.node_info import NodeInfo, PodInfo, cycle_pod_info
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.storage import StorageState
from scheduler_core.model import Container, Node, Pod, PodDisruptionBudget, Scenario, Service, Workload


@dataclass
class Snapshot:
    """The cluster as one cycle sees it: nodes in document order, pods bound to them."""

    node_infos: list[NodeInfo]
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    services: list[Service] = field(default_factory=list)  # for PodTopologySpread's system defaults
    workloads: list[Workload] = field(default_factory=list)  # ReplicaSets, StatefulSets, RCs
    # What plugins index of the two lists above, by the plugin's name (PodTopologySpread's Services
    # and controllers, for helper.DefaultSelector: scanned whole, 14 ms a cycle among 6,000
    # Services). The Services never change during a run; the workload informer
    # (run.eventhandlers.on_workload) empties this when a workload does.
    indexed_listers: dict[str, object] = field(default_factory=dict)
    storage: StorageState = field(default_factory=StorageState)  # claims, volumes, classes, CSI objects
    # What preemption must respect: a tuple, replaced at each change (run.eventhandlers.on_budget),
    # so the same object means the same budgets (preemption's KeptBudgets asks at every preemption).
    pdbs: tuple[PodDisruptionBudget, ...] = ()
    by_name: dict[str, NodeInfo] = field(init=False)
    # The storage and device informers' notifications for the event handlers (ClusterChange), one
    # per write the cluster delivered, waiting until the run hands them to the queue at its points.
    cluster_changes: list[ClusterChange] = field(default_factory=list)
    dra: DraState = field(default_factory=DraState)  # device classes, slices, resource claims
    # The node lists its table hands on stay positions (the engine's own process, event_pipe).
    node_lists_as_positions: bool = False

    def __post_init__(self) -> None:
        self._views()

    def _views(self, names_kept: bool = False, images_kept: bool = False) -> None:
        """Every view built on the node list, built anew. ``names_kept``: the same nodes in the same
        order as before (one node object changed), so the name maps are copied, not rebuilt;
        ``images_kept``: no node's image list changed, so the image states stay as they are."""
        self.assumed: set[str] = getattr(self, "assumed", set())  # kept when the node list changes
        if names_kept:
            self.by_name = dict(self.by_name)
            self.position = self._positions_copy()
        else:
            self.by_name = {info.name: info for info in self.node_infos}
            self.position = {info.name: i for i, info in enumerate(self.node_infos)}
        self._table: Optional[NodeTable[NodeInfo]] = None
        self._with_affinity: Optional[list[NodeInfo]] = None
        self._with_required_anti_affinity: Optional[list[NodeInfo]] = None
        if not images_kept:
            self._index_images()

    def _positions_copy(self) -> dict[str, int]:
        positions: dict[str, int] = self.position
        return dict(positions)

    @property
    def table(self) -> NodeTable[NodeInfo]:
        """The columnar view for vectorised plugins, built on first use and kept in step by ``bind``."""
        if self._table is None:
            self._table = NodeTable(
                self.node_infos,
                self.node_lists_as_positions,
                tree_order(info.node.labels for info in self.node_infos),
            )
        return self._table

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> "Snapshot":
        snapshot = cls(
            [NodeInfo(node) for node in scenario.nodes],
            {name: dict(ns.labels) for name, ns in scenario.namespaces.items()},
            list(scenario.services),
            list(scenario.workloads),
            pdbs=tuple(scenario.pdbs),
        )
        templates: dict[tuple[object, ...], PodInfo] = {}
        for pod in scenario.running_pods:
            snapshot.by_name[pod.node_name].add_pod(_template_pod_info(pod, templates))
        return snapshot

    def _index_images(self) -> None:
        """The scheduler cache's image states (cacheImpl.addNodeImageStates): one summary per image
        name, shared by every node listing it. Its size is the one reported by the first node that
        listed the name (nodes enter the cache in document order; a later node with another size
        for the same name only joins the summary's set of nodes), and it counts distinct nodes."""
        sizes: dict[str, int] = {}
        holders: dict[str, set[str]] = {}
        for info in self.node_infos:
            for image in info.node.images:
                for name in image.names:
                    sizes.setdefault(name, image.size_bytes)
                    holders.setdefault(name, set()).add(info.name)
        for info in self.node_infos:
            info.image_sizes = {
                name: (sizes[name], len(holders[name])) for image in info.node.images for name in image.names
            }

    def get(self, name: str) -> Optional[NodeInfo]:
        return self.by_name.get(name)

    def labels_of_namespace(self, namespace: str) -> dict[str, str]:
        return self.namespace_labels.get(namespace, {})

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """Nodes running a pod with (anti-)affinity; cached until the next bind or unbind."""
        if self._with_affinity is None:
            self._with_affinity = [info for info in self.node_infos if info.pods_with_affinity]
        return self._with_affinity

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        if self._with_required_anti_affinity is None:
            self._with_required_anti_affinity = [
                info for info in self.node_infos if info.pods_with_required_anti_affinity
            ]
        return self._with_required_anti_affinity

    def _changed(self, node_info: NodeInfo) -> None:
        """Keep the cached affinity node lists in document order after a pod joins or leaves."""
        for cached, member in (
            (self._with_affinity, bool(node_info.pods_with_affinity)),
            (self._with_required_anti_affinity, bool(node_info.pods_with_required_anti_affinity)),
        ):
            if cached is not None:
                _set_membership(cached, node_info, member, self.position)

    def is_pvc_used_by_pods(self, key: str) -> bool:
        """Snapshot.IsPVCUsedByPods: a pod on some node uses the claim ("namespace/name")."""
        return any(key in info.pvc_ref_counts for info in self.node_infos)

    def all_pods(self) -> Iterable[PodInfo]:
        for info in self.node_infos:
            yield from info.pods

    def bind(self, pod: Pod, node_name: str) -> PodInfo:
        """Assume the pod onto the node (the cache's AssumePod + FinishBinding): ``pod`` is the
        cycle's own copy, which takes the node; it counts there until its binding's Update
        confirms it (``add_pod``) or the binding fails (``unbind``)."""
        pod.node_name = node_name
        self.assumed.add(pod.key)
        return self._add(pod, node_name)

    def _add(self, pod: Pod, node_name: str) -> PodInfo:
        info = cycle_pod_info(pod)
        self.by_name[node_name].add_pod(info)
        if self._table is not None:
            self._table.add_pod(node_name, info)
        self._changed(self.by_name[node_name])
        return info

    def unbind(self, pod: Pod) -> None:
        """Forget an assumed pod (ForgetPod), e.g. when its binding cycle fails."""
        self.remove_pod(pod)
        self.assumed.discard(pod.key)
        pod.node_name = ""

    def is_assumed(self, pod: Pod) -> bool:
        """IsAssumedPod: bound in a cycle, its binding not yet heard back."""
        return pod.key in self.assumed

    def assumed_pod(self, key: str) -> Optional[Pod]:
        """The cache's GetPod for an assumed pod: the cycle's copy, on the node it is being bound
        to; None when no pod of that key is assumed (rare: a search of the nodes)."""
        if key not in self.assumed:
            return None
        for node_info in self.node_infos:
            for info in node_info.pods:
                if info.pod.key == key:
                    return info.pod
        return None

    def add_pod(self, pod: Pod) -> None:
        """The cache's AddPod for an assigned pod: a new one joins its node; the version a
        binding confirms replaces the assumed one where it stands."""
        if self.assumed and pod.key in self.assumed:
            self.assumed.discard(pod.key)
            node_info = self.by_name[pod.node_name]
            index = next(i for i, info in enumerate(node_info.pods) if info.pod.key == pod.key)
            if node_info.pods[index].pod.node_name == pod.node_name:
                self._replace_at(node_info, index, pod)
                return
            self.remove_pod(node_info.pods[index].pod)
        self._add(pod, pod.node_name)

    @staticmethod
    def _replace_at(node_info: NodeInfo, index: int, pod: Pod) -> None:
        """The new version of a pod where its assumed version was: a binding changes neither its
        spec nor its labels, so what the cache computed of it (requests, terms, the table's sums)
        stands and only the entry's object changes."""
        old = node_info.pods[index]
        new = old.with_pod(pod)
        node_info.pods[index] = new
        for group in (node_info.pods_with_affinity, node_info.pods_with_required_anti_affinity):
            for i, info in enumerate(group):
                if info is old:
                    group[i] = new

    def remove_pod(self, pod: Pod) -> PodInfo:
        """The cache's RemovePod: the pod no longer counts on its node (it keeps its nodeName)."""
        node_info = self.by_name[pod.node_name]
        info = node_info.remove_pod(pod)
        if self._table is not None:
            self._table.remove_pod(pod.node_name, info)
        self._changed(node_info)
        return info

    def update_pod(self, old: Pod, pod: Pod) -> None:
        """The cache's UpdatePod (e.g. the pod started terminating): the old version removed and
        the new one added, so every index sees the new version."""
        self.remove_pod(old)
        self._add(pod, pod.node_name)

    # ------------------------------------------------------------------ nodes that change (runs with steps)

    def add_node(self, node: Node) -> NodeInfo:
        """The cache's AddNode: the node joins at the end of the listing (document order)."""
        info = NodeInfo(node)
        self._set_nodes([*self.node_infos, info])
        return info

    def update_node(self, node: Node) -> NodeInfo:
        """The cache's UpdateNode: the node object changes, what is bound to it stays."""
        info = self.by_name[node.name]
        images_kept = node.images == info.node.images
        info.node = node
        info.generation += 1
        # A new list as for any change (caches compare it by identity); the names and their order
        # are the same, and the image states too when the node's images are: a drain of thousands
        # of nodes (a cordon each) no longer rebuilds them over every node each time.
        self.node_infos = list(self.node_infos)
        self._views(names_kept=True, images_kept=images_kept)
        return info

    def remove_node(self, name: str) -> NodeInfo:
        """The cache's RemoveNode, with every pod bound to it (they go with the node)."""
        info = self.by_name[name]
        self._set_nodes([other for other in self.node_infos if other is not info])
        return info

    def _set_nodes(self, node_infos: list[NodeInfo]) -> None:
        """A new node list: every view built on the old one (the NodeTable, per-table caches that
        compare the list by identity, the affinity lists, image states) is rebuilt from it."""
        self.node_infos = node_infos
        self.__post_init__()


def _set_membership(nodes: list[NodeInfo], node_info: NodeInfo, member: bool, position: dict[str, int]) -> None:
    """Insert or remove ``node_info`` in a list kept in snapshot order."""
    index = bisect.bisect_left(nodes, position[node_info.name], key=lambda info: position[info.name])
    present = index < len(nodes) and nodes[index] is node_info
    if member and not present:
        nodes.insert(index, node_info)
    elif present and not member:
        del nodes[index]


def _template_pod_info(pod: Pod, templates: dict[tuple[object, ...], PodInfo]) -> PodInfo:
    """PodInfo(pod), or the computed parts of an earlier pod's (PodInfo.with_pod) when everything
    PodInfo reads of the two is equal: the containers' and init containers' names, requests, ports
    and restart policies, the overhead and pod-level requests; the namespace, labels and affinity
    when the pod has pod (anti-)affinity (its terms read them); the containers' resize state when a
    resize is under way (a status without ``resources`` does not count: every running pod of a
    kubectl dump has statuses). Pods of one template share their spec's decoded values
    (scenario/pods.py's decode_pod), which are looked up by identity first; a real dump's pods
    rarely do (each mounts its own ``kube-api-access-*`` volume), so they are compared by value.
    The envelope's 144,000 running pods build 27 PodInfos (62,520 before). ``templates``
    lives while the scenario holds every pod, so the identities it is keyed by are not reused."""
    extra: tuple[object, ...] = ()
    affinity = pod.affinity
    if affinity is not None and (affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None):
        extra += (affinity, pod.namespace, tuple(pod.labels.items()))  # the model's affinity is a frozen value
    resizing = any(status.actuated is not None for status in pod.container_statuses.values())
    if resizing:
        extra += (pod.resize_infeasible, _resize_state(pod))
    same_objects = (id(pod.containers), id(pod.init_containers), id(pod.overhead), id(pod.pod_level_requests), *extra)
    try:
        first = templates.get(same_objects)
    except TypeError:  # a value that cannot be a key (none the decoder makes)
        return PodInfo(pod)
    if first is None:
        same_values = (_requests_inputs(pod, resizing), *extra)
        first = templates.get(same_values)
        if first is None:
            first = templates[same_values] = PodInfo(pod)
        templates[same_objects] = first
        if first.pod is pod:
            return first
    return first.with_pod(pod)


def _requests_inputs(pod: Pod, by_name: bool) -> tuple[object, ...]:
    """What PodInfo's requests and host ports read of the pod's spec, as a value. The containers'
    names only while a resize is under way (the requests then find each one's status by its name):
    copies of a workload can name their containers apart."""

    def container(c: Container) -> tuple[object, ...]:
        return (c.name if by_name else "", tuple(c.requests.items()), c.ports, c.restart_policy)

    return (
        "values",  # never equal to a key of identities
        tuple(container(c) for c in pod.containers),
        tuple(container(c) for c in pod.init_containers),
        tuple(pod.overhead.items()),
        tuple(pod.pod_level_requests.items()),
    )


def _resize_state(pod: Pod) -> tuple[object, ...]:
    """What PodRequests reads of the containers' statuses while a resize is under way, as a value."""
    return tuple(
        (name, tuple(status.allocated.items()), tuple(status.actuated.items()) if status.actuated is not None else None)
        for name, status in pod.container_statuses.items()
    )
