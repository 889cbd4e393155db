"""What a scheduling cycle returns, typed (upstream's ScheduleResult, FitError, ...).

A cycle (``schedule_one.Cycle.steps``) yields one step record after each algorithm step — PreFilter,
a Filter pass, PostFilter, each PreScore and Score plugin, the host selection, each binding step
— and returns how it ended: ``Bound``, ``FitError`` (no node fits; with PostFilter's
``PreemptionOutcome``), ``SchedulingError`` or ``BindingFailed``. The recorder
(scheduler_core.run.recorder) turns both into the event stream while the cycle waits, so every picture
it draws sees the cluster as the step left it. The run to the end (loop.py) acts on the ending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from scheduler_core.backend.queue.nominator import NominatingInfo
from scheduler_core.encoding.events import ExtensionPoint
from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.runtime import PostFilterRun, PreFilterOutcome, ScoreOutcome
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.model import Pod


@dataclass(slots=True)
class FilterPass:
    """What Filter found: each plugin's verdicts over the evaluated nodes (evaluation order)."""

    evaluated: np.ndarray  # node positions, in evaluation order (rotated from the start index)
    verdicts: list[tuple[str, FilterVerdicts]]  # per active filter plugin, in Filter order
    feasible: np.ndarray  # node positions, in document order
    start_index: int
    num_to_find: int


# ---------------------------------------------------------------------------- the steps


@dataclass(frozen=True, slots=True)
class CycleStarted:
    """The pod popped: the queue as the cycle sees it (the pod first) and the run's three queues."""

    queue_view: list[str]
    queues: Optional[dict[str, list[str]]]
    pending: int  # the single pass's queue length (the run reports its own queues)


@dataclass(frozen=True, slots=True)
class PreFilterDone:
    outcome: PreFilterOutcome


@dataclass(frozen=True, slots=True)
class FilterDone:
    """A Filter pass: the nominated (or hinted) node alone, or the main pass."""

    passed: FilterPass
    feasible: Sequence[str]  # the feasible nodes' names, the list scoring gets (NodeTable.node_list)
    nominated_only: bool = False
    batch_hint: bool = False


@dataclass(frozen=True, slots=True)
class PostFilterDone:
    run: PostFilterRun


@dataclass(frozen=True, slots=True)
class PreScoreDone:
    plugin: str
    status: MaybeStatus


@dataclass(frozen=True, slots=True)
class ScoreDone:
    names: Sequence[str]
    outcome: ScoreOutcome


@dataclass(frozen=True, slots=True)
class HostSelected:
    """selectHost over the feasible nodes' totals: the pick, the top-total nodes and their positions."""

    names: Sequence[str]
    totals: np.ndarray
    chosen: str
    ties: Sequence[str]  # positions (NodePositions) in the engine's own process, as its other node lists
    tie_positions: np.ndarray


@dataclass(frozen=True, slots=True)
class ScoringFailed:
    message: str


@dataclass(frozen=True, slots=True)
class BindingStepDone:
    """One plugin at Reserve, Permit, PreBind, Bind or PostBind."""

    point: ExtensionPoint
    plugin: str
    status: MaybeStatus
    node: str


CycleStep = Union[
    CycleStarted,
    PreFilterDone,
    FilterDone,
    PostFilterDone,
    PreScoreDone,
    ScoreDone,
    HostSelected,
    ScoringFailed,
    BindingStepDone,
]


# ---------------------------------------------------------------------------- how a cycle ends


@dataclass(frozen=True, slots=True)
class PreemptionOutcome:
    """PostFilter's nomination and the victims the evaluator chose (deleted in a run to the end)."""

    nominating: NominatingInfo
    victims: tuple[Pod, ...]


@dataclass(frozen=True, slots=True)
class Bound:
    """ScheduleResult.SuggestedHost, with the binding cycle through."""

    node_name: str


class Unbound:
    """An ending that leaves the pod without a node: its ``node_name`` is None (``Bound``'s is the node),
    so a caller reads any ending's node alike."""

    __slots__ = ()

    @property
    def node_name(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class FitError(Unbound):
    """Unschedulable: the FailedScheduling message and Diagnosis.UnschedulablePlugins.
    ``nominating`` is None for ModeNoop (the nomination stays as it is); ``after_host_selection``:
    a Reserve or Permit plugin rejected the chosen node (a FitError over that one node)."""

    message: str
    unschedulable_plugins: frozenset[str]
    nominating: Optional[NominatingInfo]
    preemption: Optional[PreemptionOutcome] = None
    after_host_selection: bool = False


@dataclass(frozen=True, slots=True)
class SchedulingError(Unbound):
    """The cycle stopped on an error (the pod goes back with back-off, its nomination cleared)."""

    message: str
    after_host_selection: bool = False  # in Score or at Reserve / Permit


@dataclass(frozen=True, slots=True)
class BindingFailed(Unbound):
    """PreBind or Bind failed in the binding cycle (after the queue's Done): the node it was
    binding to, the error, and whether a plugin rejected rather than erred."""

    node: str
    message: str
    rejected: bool
    # v1.32: a PreBind rejection is a FitError over the node, its plugin unschedulable (hints move it).
    unschedulable_plugins: frozenset[str] = frozenset()
    # How long PreBind blocked before it failed (DynamicResources waiting for binding conditions):
    # the pod stays assumed on the node meanwhile, and the failure is handled when the wait ends;
    # ``plugin`` is the one that blocked (a preemption's cancellation names it again).
    after_ms: int = 0
    plugin: str = ""


CycleEnding = Union[Bound, FitError, SchedulingError, BindingFailed]
