"""The PodTopologySpread plugin: wiring of the extension points (podtopologyspread/plugin.go).

Hard (DoNotSchedule) constraints are enforced at PreFilter/Filter, soft (ScheduleAnyway) ones
scored at PreScore/Score/NormalizeScore. A pod without constraints of its own gets the default
constraints (the system ones unless ``defaultingType: List``), with a selector deduced from the
Services and controller that select it; without such a selector it is not spread at all.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.batch import FilterVerdicts, filter_per_node
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import Handle, NodeScore, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.pod_counts import PodCounts
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import Node, Pod, TopologySpreadConstraint
from scheduler_core.plugins.pod_topology_spread.args import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    PodTopologySpreadArgs,
)
from scheduler_core.plugins.pod_topology_spread.common import (
    Constraint,
    MatchCounter,
    SpreadingListers,
    resolve_constraints,
)
from scheduler_core.plugins.pod_topology_spread.filtering import (
    PreFilterState,
    compute_pre_filter_state,
    filter_facts,
    filter_node,
    update_with_pod,
)
from scheduler_core.plugins.pod_topology_spread.picture import (
    DomainNodes,
    SpreadPicture,
    group_nodes,
    group_table,
    spread_picture,
)
from scheduler_core.plugins.pod_topology_spread.scoring import (
    PreScoreState,
    compute_pre_score_state,
    normalize,
    score_node,
)
from scheduler_core.plugins.pod_topology_spread import vectorized

_PRE_FILTER_STATE = StateKey[PreFilterState]("PreFilter" + names.POD_TOPOLOGY_SPREAD)
_PRE_SCORE_STATE = StateKey[PreScoreState]("PreScore" + names.POD_TOPOLOGY_SPREAD)


class PodTopologySpread:
    name: ClassVar[str] = names.POD_TOPOLOGY_SPREAD

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        """Spreading depends on where earlier pods went: a pod with constraints, or any pod while
        default constraints exist (the system ones unless ``defaultingType: List``), is not signable."""
        return self.refuses_to_sign(pod) or []

    def refuses_to_sign(self, pod: Pod) -> Optional[signers.Unsignable]:
        if pod.topology_spread_constraints:
            return signers.Unsignable(self.name, "pods with topology constraints are not signable")
        if self._default_constraints:
            return signers.Unsignable(self.name, "pods with default topology constraints are not signable")
        return None

    def __init__(self, args: PodTopologySpreadArgs, handle: Handle) -> None:
        self._handle = handle
        self._default_constraints = args.effective_default_constraints
        self._system_defaulted = args.system_defaulted
        self._counter = MatchCounter()  # the per-node (reference) path's counts
        # The fast path's counts, one array per selector; terminating pods are not counted.
        self._pod_counts = PodCounts(skip_terminating=True)
        self._groupings: dict[
            str, tuple[NodeTable[NodeInfo], DomainNodes]
        ] = {}  # the picture's nodes per domain, per key

    # ------------------------------------------------------------------ constraints

    @property
    def default_constraints(self) -> tuple[TopologySpreadConstraint, ...]:
        """The profile's default constraints (the system ones unless ``defaultingType: List``)."""
        return self._default_constraints

    def constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """getConstraints: the pod's own constraints for ``action``, else the applicable defaults."""
        if pod.topology_spread_constraints:
            return resolve_constraints(pod.topology_spread_constraints, action, pod.labels)
        return self._default_constraints_for(pod, action)

    def _default_constraints_for(self, pod: Pod, action: str) -> list[Constraint]:
        """buildDefaultConstraints: defaults for ``action`` with the selector deduced for the pod.
        The defaults are built once the selector is known not to be empty (most pods, in no
        Service and without a controller, have none): they would be dropped anyway."""
        if not any(spec.when_unsatisfiable == action for spec in self._default_constraints):
            return []
        snapshot = self._handle.snapshot
        listers = snapshot.indexed_listers.get(names.POD_TOPOLOGY_SPREAD)
        if not isinstance(listers, SpreadingListers):
            listers = snapshot.indexed_listers[names.POD_TOPOLOGY_SPREAD] = SpreadingListers(
                snapshot.services, snapshot.workloads
            )
        selector = listers.default_selector(pod)
        if selector.is_empty:
            return []
        defaults = resolve_constraints(self._default_constraints, action, pod.labels)
        return [
            Constraint(c.max_skew, c.topology_key, selector, c.min_domains, c.honor_node_affinity, c.honor_node_taints)
            for c in defaults
        ]

    # ------------------------------------------------------------------ queueing hints

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): pod changes, and nodes added, deleted, relabelled
        or retainted (isSchedulableAfterNodeChange)."""
        pod_actions = (
            ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_TOLERATION | ActionType.DELETE
        )
        node_actions = ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_actions), self.pod_change_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions), self.node_change_hint),
        ]

    def node_change_hint(self, pod: Pod, old: Optional[Node], new: Optional[Node]) -> QueueingHint:
        """isSchedulableAfterNodeChange: a node that carries every hard constraint's topology key
        was added or deleted, came to (or stopped) carrying them all, or, carrying them, changed
        a topology value or its taints."""
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        old_matching = old is not None and all(c.topology_key in old.labels for c in constraints)
        new_matching = new is not None and all(c.topology_key in new.labels for c in constraints)
        if old is not None and new is not None:
            if old_matching != new_matching:
                return QueueingHint.QUEUE
            moved = any(old.labels.get(c.topology_key) != new.labels.get(c.topology_key) for c in constraints)
            if new_matching and (moved or old.taints != new.taints):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if (new_matching if new is not None else old_matching) else QueueingHint.QUEUE_SKIP

    def pod_change_hint(self, pod: Pod, old: Optional[Pod], new: Optional[Pod]) -> QueueingHint:
        """isSchedulableAfterPodChange: a bound pod of the namespace that the pod's hard
        constraints count was added, deleted or relabelled (or the pod itself got a toleration
        while a constraint honours taints)."""
        if (new is not None and not _involved(new, pod)) or (old is not None and not _involved(old, pod)):
            return QueueingHint.QUEUE_SKIP
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        if new is not None and old is not None:
            if (
                pod.key == new.key
                and new.tolerations != old.tolerations
                and any(c.honor_node_taints for c in constraints)
            ):
                return QueueingHint.QUEUE
            if new.labels == old.labels:
                return QueueingHint.QUEUE_SKIP
            changed = any(c.matcher.matches(old.labels) != c.matcher.matches(new.labels) for c in constraints)
            return QueueingHint.QUEUE if changed else QueueingHint.QUEUE_SKIP
        changed_pod = new if new is not None else old
        assert changed_pod is not None  # an add or a delete: one of the two is there
        matches = any(c.matcher.matches(changed_pod.labels) for c in constraints)
        return QueueingHint.QUEUE if matches else QueueingHint.QUEUE_SKIP

    # ------------------------------------------------------------------ PreFilter / Filter

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, SKIP
        table = self._fast_table()
        if table is not None and nodes is table.node_infos:
            self._pod_counts.sync(table)
            pre_filter_state = vectorized.compute_pre_filter_state(pod, constraints, table, self._pod_counts)
        else:
            pre_filter_state = compute_pre_filter_state(pod, constraints, nodes, self._counter)
        state.write(_PRE_FILTER_STATE, pre_filter_state)
        return None, None

    def _fast_table(self) -> Optional[NodeTable[NodeInfo]]:
        """The snapshot's NodeTable when the framework runs the fast path, else None (node by node)."""
        framework = getattr(self._handle, "framework", None)
        snapshot = getattr(self._handle, "snapshot", None)
        if framework is None or snapshot is None or not getattr(framework, "vectorized", False):
            return None
        table: NodeTable[NodeInfo] = snapshot.table  # the handle's snapshot, read untyped above
        return table

    def pre_filter_extensions(self) -> "PodTopologySpread":
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod, pod_to_add, node_info, +1)

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._update(state, pod, pod_to_remove, node_info, -1)

    def _update(self, state: CycleState, pod: Pod, changed: PodInfo, node_info: NodeInfo, delta: int) -> MaybeStatus:
        pre_filter_state, status = self._pre_filter_state(state)
        if pre_filter_state is None:
            return status
        update_with_pod(pre_filter_state, changed.pod, pod, node_info.node, delta)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        pre_filter_state, status = self._pre_filter_state(state)
        if pre_filter_state is None:
            return status
        return filter_node(pre_filter_state, pod, node_info.node)

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[Any, ...]:
        """The rejecting constraint's domain, counts and skew (explanations only)."""
        pre_filter_state = state.read_optional(_PRE_FILTER_STATE)
        return () if pre_filter_state is None else filter_facts(pre_filter_state, pod, node_info.node)

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        pre_filter_state = state.read_optional(_PRE_FILTER_STATE)
        if pre_filter_state is None or pre_filter_state.batch is None:
            return filter_per_node(self, state, pod, table, positions)
        return vectorized.filter_verdicts(pre_filter_state, pod, positions)

    @staticmethod
    def _pre_filter_state(state: CycleState) -> tuple[Optional[PreFilterState], MaybeStatus]:
        value = state.read_optional(_PRE_FILTER_STATE)
        if value is None:
            return None, Status.error(f'reading "{_PRE_FILTER_STATE.name}" from cycleState: not found')
        return value, None

    # ------------------------------------------------------------------ PreScore / Score

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        all_nodes = self._handle.snapshot.node_infos
        if not all_nodes:
            return SKIP
        constraints = self.constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return SKIP
        # Only the pod's own constraints or non-system defaults require every key on a node:
        # system defaulting still spreads by hostname on nodes without a zone label.
        require_all = bool(pod.topology_spread_constraints) or not self._system_defaulted
        table = self._fast_table()
        positions = None
        if table is not None and all_nodes is table.node_infos:
            self._pod_counts.sync(table)
            positions = self._pod_counts.positions_of(nodes)
        if table is not None and positions is not None:  # positions: only with the table
            pre_score_state = vectorized.compute_pre_score_state(
                pod, constraints, positions, table, require_all, self._pod_counts
            )
        else:
            pre_score_state = compute_pre_score_state(pod, constraints, nodes, all_nodes, require_all, self._counter)
        state.write(_PRE_SCORE_STATE, pre_score_state)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score_state = state.read_optional(_PRE_SCORE_STATE)
        if pre_score_state is None:
            return 0, Status.error(f'error reading "{_PRE_SCORE_STATE.name}" from cycleState: not found')

        def count_on_node(index: int, info: NodeInfo) -> int:
            return self._counter.counter(pod.namespace, pre_score_state.constraints[index])(info)

        return score_node(pre_score_state, node_info, count_on_node), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        pre_score_state = state.read_optional(_PRE_SCORE_STATE)
        if pre_score_state is None:
            return Status.error(f'error reading "{_PRE_SCORE_STATE.name}" from cycleState: not found')
        normalize(pre_score_state, scores)
        return None

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        pre_score_state = state.read_optional(_PRE_SCORE_STATE)
        if pre_score_state is None:  # Score runs only after a successful PreScore
            raise RuntimeError(f'error reading "{_PRE_SCORE_STATE.name}" from cycleState: not found')
        if pre_score_state.batch is not None:
            return vectorized.score_positions(pre_score_state, positions)
        infos = table.node_infos
        names_ = table.names
        pre_score_state.scored_ignored = np.fromiter(
            (names_[p] in pre_score_state.ignored_nodes for p in positions.tolist()), dtype=bool, count=len(positions)
        )
        return np.fromiter(
            (self.score(state, pod, infos[p])[0] for p in positions.tolist()), dtype=np.int64, count=len(positions)
        )

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        pre_score_state = state.read_optional(_PRE_SCORE_STATE)
        if pre_score_state is None:
            raise RuntimeError(f'error reading "{_PRE_SCORE_STATE.name}" from cycleState: not found')
        return vectorized.normalize_scores(pre_score_state, scores)

    # ------------------------------------------------------------------ pictures

    def pre_filter_state(self, state: CycleState) -> Optional[PreFilterState]:
        """The PreFilter state itself, read-only (capacity_domains.py counts copies per domain from
        its matchNum and constraints rather than recounting them beside the plugin)."""
        return state.read_optional(_PRE_FILTER_STATE)

    def pre_filter_state_json(self, state: CycleState) -> Optional[list[dict[str, Any]]]:
        value = state.read_optional(_PRE_FILTER_STATE)
        return value.to_json() if value is not None else None

    def pre_filter_picture(self, state: CycleState, pod: Pod) -> Optional[SpreadPicture]:
        """Each hard constraint's own verdict per domain (picture.py), for explanations."""
        value = state.read_optional(_PRE_FILTER_STATE)
        if value is None:
            return None
        return spread_picture(value, pod, [self._grouping(c.topology_key) for c in value.constraints])

    def _grouping(self, key: str) -> DomainNodes:
        """The snapshot's nodes by ``key``: once per NodeTable on the fast path (labels are fixed there)."""
        table = self._fast_table()
        if table is None or table.node_infos is not self._handle.snapshot.node_infos:
            return group_nodes(self._handle.snapshot.node_infos, key)
        cached = self._groupings.get(key)
        if cached is None or cached[0] is not table:
            cached = self._groupings[key] = (table, group_table(table, key))
        return cached[1]

    def pre_score_state(self, state: CycleState) -> Optional[PreScoreState]:
        """The PreScore state itself (read-only from now on, as in Go): its JSON is made when the
        event is written, its per-node counts straight from their arrays."""
        return state.read_optional(_PRE_SCORE_STATE)

    def pre_score_state_json(self, state: CycleState) -> Optional[dict[str, Any]]:
        value = self.pre_score_state(state)
        return value.to_json() if value is not None else None


def _involved(changed: Pod, pod_with_spreading: Pod) -> bool:
    """involvedInTopologySpreading: the pod itself, or a bound pod of its namespace."""
    return changed.key == pod_with_spreading.key or (
        bool(changed.node_name) and changed.namespace == pod_with_spreading.namespace
    )


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> PodTopologySpread:
    return PodTopologySpread(PodTopologySpreadArgs.parse(args), handle)
