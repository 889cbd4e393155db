"""The typed event stream a run emits: one event per extension point per plugin.

Every consumer — the CLI, the Celery task, the trace summary, the tests — reads this one stream.
Payloads are small dataclasses; ``Event.to_json`` gives the wire form documented in
docs/ENGINE_API.md. Per-node results travel inside one event per plugin (never one per node).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional, Union


class ExtensionPoint(str, Enum):
    CYCLE_START = "CycleStart"
    QUEUE_SORT = "QueueSort"
    PRE_FILTER = "PreFilter"
    FILTER = "Filter"
    POST_FILTER = "PostFilter"
    PRE_SCORE = "PreScore"
    SCORE = "Score"
    NORMALIZE_SCORE = "NormalizeScore"
    TOTAL = "Total"
    RESERVE = "Reserve"
    PERMIT = "Permit"
    PRE_BIND = "PreBind"
    BIND = "Bind"
    POST_BIND = "PostBind"
    CYCLE_END = "CycleEnd"


StatusJSON = Optional[dict]  # {"code": ..., "reasons": [...]}, None for success


@dataclass(slots=True)
class CycleStart:
    pod: str
    namespace: str
    name: str
    priority: int
    labels: dict[str, str]
    queue: list[str]
    node_count: int
    cycles: int

    def to_json(self) -> dict:
        return {"pod": self.pod, "namespace": self.namespace, "name": self.name, "priority": self.priority,
                "labels": self.labels, "queue": self.queue, "nodeCount": self.node_count, "cycles": self.cycles}


@dataclass(slots=True)
class QueueSortResult:
    order: list[str]

    def to_json(self) -> dict:
        return {"order": self.order}


@dataclass(slots=True)
class PreFilterPluginResult:
    status: StatusJSON
    node_names: Optional[list[str]]
    state: Any = None  # the plugin's state_json() after PreFilter, when it has one

    def to_json(self) -> dict:
        return {"status": self.status, "nodeNames": self.node_names, "state": self.state}


@dataclass(slots=True)
class PreFilterSummary:
    status: StatusJSON
    node_names: Optional[list[str]]
    skipped: list[str]
    narrowing_plugins: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"status": self.status, "nodeNames": self.node_names, "skipped": self.skipped,
                "narrowingPlugins": self.narrowing_plugins}


@dataclass(slots=True)
class FilterPluginResult:
    """One plugin's verdict on every evaluated node, compact: ``choice[i]`` indexes ``palette`` or is -1."""

    nodes: list[str]  # evaluated nodes, in evaluation order
    palette: list[Any]  # distinct Status objects
    choice: Any  # int array aligned with ``nodes``

    @property
    def statuses(self) -> dict[str, dict]:
        palette = [status.to_json() for status in self.palette]
        return {node: palette[c] for node, c in zip(self.nodes, self.choice.tolist()) if c >= 0}

    def to_json(self) -> dict:
        return {"statuses": self.statuses, "evaluated": len(self.nodes)}


@dataclass(slots=True)
class FilterSummary:
    evaluated: list[str]
    feasible_nodes: list[str]
    num_feasible_nodes_to_find: int
    start_index: int

    def to_json(self) -> dict:
        return {"evaluated": self.evaluated, "feasibleNodes": self.feasible_nodes,
                "numFeasibleNodesToFind": self.num_feasible_nodes_to_find, "startIndex": self.start_index}


@dataclass(slots=True)
class PostFilterOutcome:
    code: str
    reasons: list[str]
    nominated_node_name: Optional[str]
    candidates: dict[str, list[str]]
    victims: list[str]
    nomination_tie: bool = False

    def to_json(self) -> dict:
        out = {"code": self.code, "reasons": self.reasons, "nominatedNodeName": self.nominated_node_name,
               "victims": self.victims, "candidates": self.candidates}
        if self.nomination_tie:
            out["nominationTie"] = True
        return out


@dataclass(slots=True)
class PreScorePluginResult:
    status: StatusJSON
    state: Any = None

    def to_json(self) -> dict:
        return {"status": self.status, "state": self.state}


def _by_node(nodes: list[str], values: Any) -> dict[str, int]:
    return dict(zip(nodes, values.tolist() if hasattr(values, "tolist") else values))


@dataclass(slots=True)
class ScoreResult:
    nodes: list[str]  # the scored (feasible) nodes, in document order
    raw: Any  # int array aligned with ``nodes``

    def to_json(self) -> dict:
        return {"raw": _by_node(self.nodes, self.raw)}


@dataclass(slots=True)
class NormalizeResult:
    nodes: list[str]
    normalized: Any
    weight: int
    weighted: Any

    def to_json(self) -> dict:
        return {"normalized": _by_node(self.nodes, self.normalized), "weight": self.weight,
                "weighted": _by_node(self.nodes, self.weighted)}


@dataclass(slots=True)
class TotalResult:
    nodes: list[str]
    totals: Any
    node_name: Optional[str]
    ties: list[str]
    error: Optional[str] = None

    def to_json(self) -> dict:
        out = {"totalScores": _by_node(self.nodes, self.totals), "nodeName": self.node_name, "ties": self.ties}
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass(slots=True)
class BindingStep:
    status: StatusJSON
    node_name: str

    def to_json(self) -> dict:
        return {"status": self.status, "nodeName": self.node_name}


@dataclass(slots=True)
class CycleEnd:
    node_name: Optional[str]
    failed_scheduling_message: Optional[str] = None
    error: Optional[str] = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"nodeName": self.node_name}
        if self.failed_scheduling_message is not None:
            out["failedSchedulingMessage"] = self.failed_scheduling_message
        if self.error is not None:
            out["error"] = self.error
        return out


Payload = Union[CycleStart, QueueSortResult, PreFilterPluginResult, PreFilterSummary, FilterPluginResult,
                FilterSummary, PostFilterOutcome, PreScorePluginResult, ScoreResult, NormalizeResult,
                TotalResult, BindingStep, CycleEnd]


@dataclass(slots=True)
class Event:
    cycle: int
    pod: str
    extension_point: ExtensionPoint
    plugin: Optional[str]
    payload: Payload

    def to_json(self) -> dict:
        return {"cycle": self.cycle, "pod": self.pod, "extensionPoint": self.extension_point.value,
                "plugin": self.plugin, "payload": self.payload.to_json()}
