"""Filter verdicts on cloned nodes, kept from one attempt to the next where nothing they read changed.

Two places filter a pod on clones of a node and of the cycle state, node by node: preemption's dry
run (SelectVictimsOnNode: the lower-priority pods taken off, put back one by one) and the first pass
of RunFilterPluginsWithNominatedPods (the nominated pods of equal or higher priority added). A pod
that fits nowhere is tried again after every change that might help it, and the replicas of a
copied workload are tried one after the other: each time, at thousands of nodes, most of the work
of the attempt, mostly to the same answers. Such a verdict is a function of:

- the node: its NodeInfo (the object, its Node and its generation, which every add and remove moves);
- the nominated pods added there (the pod objects);
- what is the same on every node of one attempt (``filter_inputs``): the pod's scheduling fields
  (not its name, uid or containers' names: no Filter below reads them), the Filter plugins that run
  and those told of each added or removed pod, the PreFilter states they read (each state's
  ``memo_content()``) and the namespaces' labels; the dry run adds the PodDisruptionBudgets.

Kept only when every Filter plugin that runs and every PreFilter extension told of pods is one of
``MEMO_PLUGINS``, whose verdict reads the node, the pod and its own PreFilter state and nothing else
(the volume and DRA plugins read claims, volumes and devices through the listers), and every
PreFilter state says what it holds. The same answers as filtering again, by construction; the tests
hold whole runs with the kept verdicts to runs without them and to the reference path.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter
from typing import Any, Callable, Collection, Generic, Iterable, Mapping, Optional, Protocol, Sequence, TypeVar

import numpy as np

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import FilterPlugin
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable, carried_positions
from scheduler_core.framework.profile import Profile
from scheduler_core.model import Container, Pod, names

V = TypeVar("V")

# Filter plugins (and PreFilter extensions) whose verdict on a node reads the node, the pod and the
# plugin's own PreFilter state only.
MEMO_PLUGINS = frozenset(
    {
        names.NODE_UNSCHEDULABLE,
        names.NODE_NAME,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
        names.NODE_PORTS,
        names.NODE_DECLARED_FEATURES,
        names.NODE_RESOURCES_FIT,
        names.INTER_POD_AFFINITY,
        names.POD_TOPOLOGY_SPREAD,
    }
)
RECENT_INPUTS = 8  # the inputs of this many recent attempts are kept, each with its verdicts


class Filtering(Protocol):
    """What ``filter_inputs`` reads of the framework (runtime.Framework is one)."""

    profile: Profile
    snapshot: SharedLister

    def active_filter_plugins(self, state: CycleState) -> list[FilterPlugin]: ...


def scheduling_fields(pod: Pod) -> tuple[Any, ...]:
    """What of the pod a Filter, a PreFilter extension or preemption's choice of victims can read:
    its spec and status as far as they do; not its name, uid, owners, the lines it came from or
    what the run wrote of its scheduling. Copies (a later write must not change what is compared)."""
    return (
        pod.namespace,
        dict(pod.labels),
        pod.node_name,
        pod.priority,
        pod.scheduler_name,
        dict(pod.node_selector),
        pod.affinity,
        pod.tolerations,
        pod.topology_spread_constraints,
        _containers(pod, pod.containers),
        _containers(pod, pod.init_containers),
        dict(pod.overhead),
        dict(pod.pod_level_requests),
        dict(pod.container_statuses),
        pod.resize_infeasible,
        pod.preemption_policy,
        pod.scheduling_gates,
        pod.resource_claims,
        pod.claim_sources,
        pod.claim_statuses,
        pod.extended_resource_claim,
        pod.volumes,
        pod.host_network,
        pod.host_users,
    )


def _containers(pod: Pod, containers: Sequence[Container]) -> tuple[Any, ...]:
    """The containers as Filter reads them: their names only where the pod's container statuses
    (keyed by name) are read with them; the image is Score's (ImageLocality), not Filter's."""
    if pod.container_statuses:
        return tuple(containers)
    return tuple(
        (dict(c.requests), c.ports, c.restart_policy, dict(c.limits), c.restart_rule_actions) for c in containers
    )


def filter_inputs(framework: Filtering, state: CycleState, pod: Pod) -> Optional[tuple[Any, ...]]:
    """What every node's verdict of this attempt depends on besides the node and the pods added or
    removed there, comparable with another attempt's; None when verdicts cannot be kept."""
    skipped = state.skip_filter_plugins
    filters = tuple(plugin.name for plugin in framework.active_filter_plugins(state))
    extensions = tuple(
        plugin.name
        for plugin in framework.profile.pre_filter
        if plugin.name not in skipped and plugin.pre_filter_extensions() is not None
    )
    if any(name not in MEMO_PLUGINS for name in (*filters, *extensions)):
        return None
    states = state.memo_content()
    if states is None:
        return None
    # Copies: what is compared later must be what this attempt read.
    namespaces = {namespace: dict(labels) for namespace, labels in framework.snapshot.namespace_labels.items()}
    return (scheduling_fields(pod), filters, extensions, states, namespaces)


# A node's stamp: its NodeInfo, Node and generation, the nominated pods added there; and a kept
# verdict, with the node's stamp then.
_Stamp = tuple[NodeInfo, Any, int, tuple[Pod, ...]]
_Entry = tuple[_Stamp, V]


class ByPosition:
    """The verdicts of one set of inputs by the node's position in one NodeTable, each still as
    its stamp would say: within one table a position holds the same NodeInfo and Node (a node that
    changes, joins or leaves builds a new table), and the table logs each position whose pods
    changed (``changed_since``), so an attempt re-checks those and the nodes with nominated pods
    only, not thousands of stamps. Holds only verdicts reached with no nominated pod added."""

    __slots__ = ("table", "version", "verdicts", "known")

    def __init__(self) -> None:
        self.table: Optional[NodeTable[NodeInfo]] = None
        self.version = 0
        self.verdicts = np.empty(0, dtype=object)
        self.known = np.zeros(0, dtype=bool)

    def sync(self, table: NodeTable[NodeInfo]) -> None:
        """Forget what changed since the last attempt (everything, on another table)."""
        if self.table is not table:
            self.table, self.verdicts = table, np.empty(table.size, dtype=object)
            self.known = np.zeros(table.size, dtype=bool)
        elif self.version != table.version:
            changed = table.changed_since(self.version)
            if changed is None:
                self.known[:] = False
            else:
                self.known[changed] = False
        self.version = table.version

    def keep(self, position: int, verdict: Any) -> None:
        self.verdicts[position] = verdict
        self.known[position] = True


class _Kept(Generic[V]):
    """One set of inputs' verdicts: by node name under their stamps, and by position (``ByPosition``)."""

    __slots__ = ("by_node", "by_position")

    def __init__(self) -> None:
        self.by_node: dict[str, _Entry[V]] = {}
        self.by_position = ByPosition()


class BoundVerdicts(Generic[V]):
    """The verdicts kept under one attempt's inputs."""

    __slots__ = ("_kept", "_by_node", "_nominated", "_nominated_nodes", "_table")

    def __init__(
        self,
        kept: _Kept[V],
        nominated: Callable[[str], tuple[Pod, ...]],
        nominated_nodes: Optional[Collection[str]] = None,
        table: Optional[NodeTable[NodeInfo]] = None,
    ) -> None:
        self._kept = kept
        self._by_node = kept.by_node
        self._nominated = nominated
        self._nominated_nodes = nominated_nodes  # the only nodes with pods to add (None: any may have)
        self._table = table  # the snapshot's, whose positions the node lists may carry (carried_positions)

    def _stamp(self, node_info: NodeInfo) -> _Stamp:
        name = node_info.name
        asked = self._nominated_nodes is None or name in self._nominated_nodes
        return node_info, node_info.node, node_info.generation, self._nominated(name) if asked else ()

    def get(self, node_info: NodeInfo) -> Optional[V]:
        entry = self._by_node.get(node_info.name)
        return entry[1] if entry is not None and entry[0] == self._stamp(node_info) else None

    def get_all(self, node_infos: Sequence[NodeInfo]) -> list[Optional[V]]:
        """``get`` of each node: by position where the nodes say theirs in the snapshot's table
        (``ByPosition``), else the stamps made and compared at C speed where the nodes with
        nominated pods are known (preemption's dry run asks thousands an attempt)."""
        nominated_nodes, table = self._nominated_nodes, self._table
        if nominated_nodes is None:
            return [self.get(node_info) for node_info in node_infos]
        positions = carried_positions(node_infos, table) if table is not None else None
        if positions is not None and table is not None:
            return self._get_by_position(positions, table, nominated_nodes)
        return self._stamped(node_infos, nominated_nodes)[0]

    def _stamped(
        self, node_infos: Sequence[NodeInfo], nominated_nodes: Collection[str]
    ) -> tuple[list[Optional[V]], list[tuple[Pod, ...]]]:
        """Each node's verdict kept under a stamp equal to its own, and the nominated pods its stamp
        holds (asked only of the nodes that have some)."""
        names = list(map(_NAME, node_infos))
        nominated: list[tuple[Pod, ...]] = [()] * len(names)
        for index in indexes_in(names, nominated_nodes):
            nominated[index] = self._nominated(names[index])
        # The NodeInfo (which has identity only), its Node (another object equal to it is the same
        # node to Filter), its generation, the nominated pods.
        stamps = zip(node_infos, map(_NODE, node_infos), map(_GENERATION, node_infos), nominated)
        return kept_under(self._by_node, names, stamps), nominated

    def _get_by_position(
        self, positions: np.ndarray, table: NodeTable[NodeInfo], nominated_nodes: Collection[str]
    ) -> list[Optional[V]]:
        """``get_all`` of the table's nodes at ``positions``: the verdicts still known there; the
        other nodes' (and every node's with nominated pods) by their stamps, kept by position
        when no nominated pod was added."""
        at = self._kept.by_position
        at.sync(table)
        answers: list[Optional[V]] = at.verdicts[positions].tolist()
        check = ~at.known
        check[[table.index[name] for name in nominated_nodes if name in table.index]] = True
        indexes = np.flatnonzero(check[positions])
        if not len(indexes):
            return answers
        checked = positions[indexes]
        verdicts, nominated = self._stamped(table.infos_array[checked].tolist(), nominated_nodes)
        for index, position, verdict, added in zip(indexes.tolist(), checked.tolist(), verdicts, nominated):
            answers[index] = verdict
            if verdict is not None and not added:
                at.keep(position, verdict)
        return answers

    def put(self, node_info: NodeInfo, verdict: V) -> None:
        stamp = self._stamp(node_info)
        self._by_node[node_info.name] = (stamp, verdict)
        at, table = self._kept.by_position, self._table
        if not stamp[3] and table is not None and at.table is table and at.version == table.version:
            position = table.index.get(node_info.name)
            if position is not None and table.node_infos[position] is node_info:
                at.keep(position, verdict)


_NAME, _NODE, _GENERATION = attrgetter("name"), attrgetter("node"), attrgetter("generation")


K = TypeVar("K")


def kept_under(
    by_node: Mapping[str, tuple[tuple[Any, ...], K]], names: Iterable[str], stamps: Iterable[tuple[Any, ...]]
) -> list[Optional[K]]:
    """What ``by_node`` keeps for each node under a stamp equal to the one given (None: nothing, or
    kept under another), compared at C speed: a tuple compares its items by identity first, then by
    value. The dry runs ask it of thousands of nodes an attempt."""
    entries = list(map(by_node.get, names, repeat(_NOT_KEPT)))
    return [entry[1] if same else None for same, entry in zip(map(eq, map(_STAMP, entries), stamps), entries)]


def indexes_in(names: Sequence[str], members: Collection[str]) -> list[int]:
    """The indexes of the names that are ``members`` (the few nodes with nominated pods among
    thousands), found at C speed."""
    return list(compress(range(len(names)), map(members.__contains__, names)))


_STAMP = itemgetter(0)
_NOT_KEPT: tuple[None, None] = (None, None)  # equal to no stamp


class VerdictMemo(Generic[V]):
    """The per-node verdicts of the last few distinct attempt inputs (see the module's notes)."""

    def __init__(self) -> None:
        self._recent: list[tuple[tuple[Any, ...], _Kept[V]]] = []  # the latest first

    def bound(
        self,
        inputs: tuple[Any, ...],
        nominated: Callable[[str], tuple[Pod, ...]],
        nominated_nodes: Optional[Collection[str]] = None,
        table: Optional[NodeTable[NodeInfo]] = None,
    ) -> BoundVerdicts[V]:
        """The verdicts kept under inputs equal to these (none yet: a new set, the oldest dropped);
        ``nominated``: the pods Filter adds on a node, by its name; ``nominated_nodes``: the only
        nodes it may name some for (None: it is asked of every node); ``table``: the snapshot's,
        for nodes that come with their positions in it."""
        for index, (known, kept) in enumerate(self._recent):
            if known == inputs:
                if index:
                    self._recent.insert(0, self._recent.pop(index))
                return BoundVerdicts(kept, nominated, nominated_nodes, table)
        fresh: _Kept[V] = _Kept()
        self._recent.insert(0, (inputs, fresh))
        del self._recent[RECENT_INPUTS:]
        return BoundVerdicts(fresh, nominated, nominated_nodes, table)
