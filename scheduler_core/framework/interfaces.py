"""Extension-point protocols (framework/interface.go).

A plugin is a class with a ``name``; it implements only the points it uses. The profile builder
(framework/profile.py) sorts each plugin into a typed list per extension point by checking it
against these runtime-checkable Protocols once, and the type checker verifies the lists' uses.
The optional capabilities beside the points (batch methods, pictures for the browser, signing,
events to register) are declared protocols too: framework/capabilities.py, signers.SignPlugin and
``EnqueueExtensions`` here. Methods return ``None`` for success, as Go returns a nil ``*Status``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from scheduler_core.framework.cluster_events import ClusterEventWithHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import gathered_names
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """The nodes a PreFilter plugin narrows the cycle to; ``None`` names means all nodes."""

    node_names: Optional[frozenset[str]] = None

    @property
    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: Optional["PreFilterResult"]) -> "PreFilterResult":
        if other is None or other.node_names is None:  # other.all_nodes
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int


@dataclass(slots=True)
class PostFilterResult:
    """framework.PostFilterResult: a nomination (``None`` is ModeNoop; ``""`` clears the nomination).

    The rest is detail for pictures and the trace: every candidate node with its victims, the
    victims picked, whether the pick was a random tie, and ``summary`` — the trace's short reason
    ("preemption: no candidates") for the dry run's outcome.
    """

    nominated_node_name: Optional[str] = None
    candidates: dict[str, list[str]] = field(default_factory=dict)
    victims: list[str] = field(default_factory=list)
    nomination_tie: bool = False
    summary: Optional[str] = None
    # The victims to delete, most important first (what prepareCandidate deletes).
    victim_pods: tuple[Pod, ...] = field(default=(), compare=False, repr=False)

    @property
    def nominates(self) -> bool:
        """NominatingMode is ModeOverride (the framework keeps the last such result)."""
        return self.nominated_node_name is not None


@dataclass(frozen=True, slots=True)
class StatusesByPosition:
    """A NodeToStatus's explicit statuses by node position: the node at ``positions[i]`` of
    ``node_infos`` has ``distinct[status_of[i]]`` (none when -1); ``order``: the indexes ``i``
    with a status, in the order the name map holds them. Preemption asks every node of thousands
    whether evicting might help: one array lookup per node, not a name lookup."""

    node_infos: list[NodeInfo]
    names: list[str]  # the node names, as node_infos (the table's)
    names_array: np.ndarray
    positions: np.ndarray
    status_of: np.ndarray
    distinct: list[Status]
    order: np.ndarray

    def named(self) -> dict[str, Status]:
        """The same statuses by node name."""
        statuses = np.empty(len(self.distinct), dtype=object)
        statuses[:] = self.distinct
        names = gathered_names(self.names, self.names_array, self.positions[self.order])
        return dict(zip(names, statuses[self.status_of[self.order]].tolist()))


class NodeToStatus:
    """framework.NodeToStatus: explicit per-node statuses, and one status for every other node.
    ``by_position``: the same statuses, when the cycle had them by position; the name map is then
    made on first use (most cycles never ask a name)."""

    __slots__ = ("_statuses", "absent", "by_position")

    def __init__(
        self,
        statuses: Optional[dict[str, Status]],
        absent: Status,
        by_position: Optional[StatusesByPosition] = None,
    ) -> None:
        if statuses is None and by_position is None:
            raise ValueError("NodeToStatus needs its statuses by name or by position")
        self._statuses = statuses
        self.absent = absent
        self.by_position = by_position

    @property
    def statuses(self) -> dict[str, Status]:
        if self._statuses is None:
            assert self.by_position is not None  # checked when made
            self._statuses = self.by_position.named()
        return self._statuses

    def get(self, node: str) -> Status:
        return self.statuses.get(node, self.absent)

    def __repr__(self) -> str:
        return f"NodeToStatus({self.statuses!r}, {self.absent!r})"


class Plugin(Protocol):
    name: ClassVar[str]


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    name: ClassVar[str]

    def pre_enqueue(self, pod: Pod) -> MaybeStatus: ...


@runtime_checkable
class QueueSortPlugin(Protocol):
    name: ClassVar[str]

    def less(self, a: Pod, b: Pod) -> bool: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Incremental updates of PreFilter state when preemption adds or removes a pod."""

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus: ...

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus: ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: ClassVar[str]

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]: ...

    def pre_filter_extensions(self) -> Optional[PreFilterExtensions]: ...


@runtime_checkable
class FilterPlugin(Protocol):
    name: ClassVar[str]

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus: ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: ClassVar[str]

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: "NodeToStatus"
    ) -> tuple[Optional[PostFilterResult], MaybeStatus]: ...


@runtime_checkable
class PreScorePlugin(Protocol):
    name: ClassVar[str]

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus: ...


@runtime_checkable
class ScorePlugin(Protocol):
    name: ClassVar[str]

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]: ...


@runtime_checkable
class NormalizeScorePlugin(Protocol):
    """A ScorePlugin with ScoreExtensions: rewrites ``scores`` in place to [0, 100]."""

    name: ClassVar[str]

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus: ...


@runtime_checkable
class ReservePlugin(Protocol):
    name: ClassVar[str]

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Protocol):
    name: ClassVar[str]

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus: ...


@runtime_checkable
class PreBindPlugin(Protocol):
    name: ClassVar[str]

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus: ...


@runtime_checkable
class BindPlugin(Protocol):
    name: ClassVar[str]

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus: ...


@runtime_checkable
class PostBindPlugin(Protocol):
    name: ClassVar[str]

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """framework.EnqueueExtensions: the cluster events that may make a pod this plugin rejected
    schedulable, each with its queueing hint. A plugin without it is moved by every event."""

    def events_to_register(self) -> list[ClusterEventWithHint]: ...


class PluginsRunner(Protocol):
    """framework.PluginsRunner, the part preemption's dry run uses: Filter (with the nominated
    pods) and the PreFilter extensions on a node with pods removed or added back.
    runtime.Framework is one."""

    def run_pre_filter_add_pod(
        self, state: CycleState, pod: Pod, added: PodInfo, node_info: NodeInfo
    ) -> MaybeStatus: ...

    def run_pre_filter_remove_pod(
        self, state: CycleState, pod: Pod, removed: PodInfo, node_info: NodeInfo
    ) -> MaybeStatus: ...

    def run_pre_filter_remove_pods(
        self, state: CycleState, pod: Pod, removed: Sequence[PodInfo], node_info: NodeInfo
    ) -> MaybeStatus: ...

    def run_filter_with_nominated_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus: ...


class Handle(Protocol):
    """What a plugin may ask of the framework (framework.Handle), kept small on purpose."""

    @property
    def snapshot(self) -> SharedLister: ...

    @property
    def framework(self) -> PluginsRunner: ...

    @property
    def options(self) -> FrameworkOptions: ...
