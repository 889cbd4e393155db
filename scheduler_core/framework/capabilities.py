"""What a plugin may offer beside its extension points, declared as protocols and looked up once
per profile (``Capabilities.of``), never by method name at run time.

- the vectorised fast path over the NodeTable (``filter_batch``, ``score_batch``,
  ``normalize_batch``); the per-node methods stay the reference;
- pictures and state for events and the browser (``pre_filter_state_json``, ``pre_filter_picture``,
  ``pre_score_state``, ``pre_score_state_json``, ``binding_state_json``);
- signing (signers.SignPlugin) and queueing hints (interfaces.EnqueueExtensions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable, Mapping, Optional, Protocol, TypeVar, runtime_checkable

import numpy as np

from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    NormalizeScorePlugin,
    PermitPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
)
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.model import Pod


@runtime_checkable
class FilterBatchPlugin(Protocol):
    """Filter over many nodes at once; None means every node passes."""

    name: ClassVar[str]

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]: ...


@runtime_checkable
class SometimesFilterBatchPlugin(Protocol):
    """A FilterBatchPlugin whose batch answers some pods only (VolumeBinding's: claims all bound);
    the others it judges node by node, as a plugin without a batch method."""

    name: ClassVar[str]

    def judges_in_batch(self, state: CycleState, pod: Pod) -> bool: ...


@runtime_checkable
class ScoreBatchPlugin(Protocol):
    """Score over many nodes at once: one raw score per position."""

    name: ClassVar[str]

    def score_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> np.ndarray: ...


@runtime_checkable
class NormalizeBatchPlugin(Protocol):
    """NormalizeScore over the raw scores array."""

    name: ClassVar[str]

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class PreFilterStateJson(Protocol):
    """The plugin's PreFilter state as JSON, for the PreFilter event."""

    def pre_filter_state_json(self, state: CycleState) -> object: ...


@runtime_checkable
class PreFilterPicture(Protocol):
    """Typed verdicts of PreFilter for explanations (their ``to_json(node_list)`` is the event's)."""

    def pre_filter_picture(self, state: CycleState, pod: Pod) -> object: ...


@runtime_checkable
class TypedPreScoreState(Protocol):
    """The plugin's typed PreScore state; its JSON is made when the event is written."""

    def pre_score_state(self, state: CycleState) -> object: ...


@runtime_checkable
class PreScoreStateJson(Protocol):
    """The plugin's PreScore state as JSON, for plugins without a typed one."""

    def pre_score_state_json(self, state: CycleState) -> object: ...


@runtime_checkable
class BindingStateJson(Protocol):
    """The plugin's state after a binding-cycle step (Reserve ... PostBind), as JSON."""

    def binding_state_json(self, state: CycleState, node: str) -> object: ...


@runtime_checkable
class NodePicture(Protocol):
    """Why the plugin rejected each of these nodes, for explanations (DynamicResources'
    per-request verdicts), by node name; empty: the plugin has no picture for this pod."""

    def node_pictures(self, state: CycleState, pod: Pod, node_infos: list[NodeInfo]) -> Mapping[str, object]: ...


# The points whose plugins register queueing hints (buildQueueingHintMap).
_ENQUEUE_POINTS = (PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, ReservePlugin, PermitPlugin)

P = TypeVar("P")


def _offering(plugins: dict[str, object], capability: type[P]) -> dict[str, P]:
    return {name: plugin for name, plugin in plugins.items() if isinstance(plugin, capability)}


@dataclass(frozen=True)
class Capabilities:
    """Each capability's plugins by name (a plugin that lacks it is absent), found once."""

    filter_batch: dict[str, FilterBatchPlugin]
    filter_batch_when: dict[str, SometimesFilterBatchPlugin]
    score_batch: dict[str, ScoreBatchPlugin]
    normalize_batch: dict[str, NormalizeBatchPlugin]
    normalize_score: dict[str, NormalizeScorePlugin]
    pre_filter_state_json: dict[str, PreFilterStateJson]
    pre_filter_picture: dict[str, PreFilterPicture]
    pre_score_state: dict[str, TypedPreScoreState]
    pre_score_state_json: dict[str, PreScoreStateJson]
    binding_state_json: dict[str, BindingStateJson]
    node_picture: dict[str, NodePicture]
    # Every plugin at PreEnqueue, PreFilter, Filter, Reserve or Permit, in the profile's plugin
    # order, with its EnqueueExtensions (None: it declares none and is moved by every event).
    enqueue_extensions: list[tuple[str, Optional[EnqueueExtensions]]]

    @classmethod
    def of(cls, plugins: dict[str, object]) -> "Capabilities":
        return cls(
            _offering(plugins, FilterBatchPlugin),
            _offering(plugins, SometimesFilterBatchPlugin),
            _offering(plugins, ScoreBatchPlugin),
            _offering(plugins, NormalizeBatchPlugin),
            _offering(plugins, NormalizeScorePlugin),
            _offering(plugins, PreFilterStateJson),
            _offering(plugins, PreFilterPicture),
            _offering(plugins, TypedPreScoreState),
            _offering(plugins, PreScoreStateJson),
            _offering(plugins, BindingStateJson),
            _offering(plugins, NodePicture),
            _enqueue_extensions(plugins.items()),
        )


def _enqueue_extensions(plugins: Iterable[tuple[str, object]]) -> list[tuple[str, Optional[EnqueueExtensions]]]:
    return [
        (name, plugin if isinstance(plugin, EnqueueExtensions) else None)
        for name, plugin in plugins
        if any(isinstance(plugin, point) for point in _ENQUEUE_POINTS)
    ]
