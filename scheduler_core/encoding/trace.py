"""The trace summary of ../shared/spec/SCENARIO_AND_TRACE.md, as a projection of the event stream.

It reads typed events: live ones as the engine emits them, or stored ones read back from their wire
form (``events.read_events``), so the web app rebuilds a trace exactly as the CLI builds it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Optional, Union

from scheduler_core.encoding.events import (
    CycleEnd,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    PostFilterOutcome,
    PostFilterSummary,
    PreFilterPluginResult,
    PreFilterSummary,
    PreScorePluginResult,
    ScoreResult,
    StoredFilterVerdicts,
    TotalResult,
    event_from_json,
)
from scheduler_core.model.names import DEFAULT_PREEMPTION, INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD

STATE_PLUGINS = (POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY)
_QUIET_CODES = ("Success", "Skip")


def _new_cycle(pod: str) -> dict[str, Any]:
    return {
        "pod": pod,
        "preFilter": {},
        "preFilterNodeNames": None,
        "filter": {},
        "feasibleNodes": [],
        "scores": {},
        "totalScores": {},
        "nodeName": None,
    }


class TraceBuilder:
    def __init__(self) -> None:
        self.cycles: list[dict[str, Any]] = []
        self._extras: list[dict[str, Any]] = []

    def add(self, event: Event) -> None:
        point = event.extension_point
        handler = _HANDLERS.get(point)
        if point is ExtensionPoint.CYCLE_START:
            self.cycles.append(_new_cycle(event.pod))
            self._extras.append({})
        elif handler is not None:
            handler(self.cycles[-1], self._extras[-1], event.plugin, event.payload)

    def add_json(self, event: dict[str, Any]) -> None:
        """A stored event (``Event.to_json()``), read back typed."""
        self.add(event_from_json(event))

    def summary(self) -> dict[str, Any]:
        return {"cycles": list(self.take())}

    def take(self) -> Iterator[dict[str, Any]]:
        """The cycles built so far, as the spec writes them, forgotten once taken."""
        cycles, extras = self.cycles, self._extras
        self.cycles, self._extras = [], []
        for cycle, more in zip(cycles, extras):
            out = dict(cycle)
            for key in ("postFilter", "error", "failedSchedulingMessage", "preFilterState", "preScoreState"):
                if more.get(key):
                    out[key] = more[key]
            yield out


def _pre_filter(
    cycle: dict[str, Any],
    extras: dict[str, Any],
    plugin: Optional[str],
    payload: Union[PreFilterPluginResult, PreFilterSummary],
) -> None:
    if isinstance(payload, PreFilterSummary):
        cycle["preFilterNodeNames"] = payload.node_names
        return
    status = payload.status
    if status is not None and status["code"] not in _QUIET_CODES:
        cycle["preFilter"][plugin] = status
    if plugin in STATE_PLUGINS and payload.state is not None:
        extras.setdefault("preFilterState", {})[plugin] = payload.state


def _filter(
    cycle: dict[str, Any],
    extras: dict[str, Any],
    plugin: Optional[str],
    payload: Union[FilterPluginResult, StoredFilterVerdicts, FilterSummary],
) -> None:
    if isinstance(payload, FilterSummary):
        cycle["feasibleNodes"] = list(payload.feasible_nodes)
        return
    for node, status in payload.statuses.items():
        cycle["filter"].setdefault(node, {})[plugin] = status


def _post_filter(
    cycle: dict[str, Any],
    extras: dict[str, Any],
    plugin: Optional[str],
    payload: Union[PostFilterOutcome, PostFilterSummary],
) -> None:
    """The spec's ``postFilter`` is DefaultPreemption's dry run, only when it ran."""
    if plugin != DEFAULT_PREEMPTION or not isinstance(payload, PostFilterOutcome):
        return
    out: dict[str, Any] = {
        "code": payload.code,
        "reasons": payload.reasons,
        "victims": payload.victims,
        "candidates": payload.candidates,
    }
    if payload.summary is not None:
        out["reasons"] = [payload.summary]
    out["nominatedNodeName"] = payload.nominated_node_name or None  # "" (cleared) prints as null
    if payload.nomination_tie:
        out["nominationTie"] = True
    extras["postFilter"] = out


def _pre_score(
    cycle: dict[str, Any], extras: dict[str, Any], plugin: Optional[str], payload: PreScorePluginResult
) -> None:
    state = payload.state_json()
    if plugin in STATE_PLUGINS and state is not None:
        extras.setdefault("preScoreState", {})[plugin] = state


def _score(cycle: dict[str, Any], extras: dict[str, Any], plugin: Optional[str], payload: ScoreResult) -> None:
    cycle["scores"][plugin] = {node: {"raw": raw} for node, raw in zip(payload.nodes, payload.raw_values())}


def _normalize(cycle: dict[str, Any], extras: dict[str, Any], plugin: Optional[str], payload: NormalizeResult) -> None:
    per_node = cycle["scores"][plugin]
    for node, normalized, weighted in payload.node_scores():
        scores = per_node[node]
        scores["normalized"] = normalized
        scores["weighted"] = weighted


def _total(cycle: dict[str, Any], extras: dict[str, Any], plugin: Optional[str], payload: TotalResult) -> None:
    if payload.error:
        extras["error"] = payload.error
        return
    cycle["totalScores"] = payload.totals_by_node()


def _cycle_end(cycle: dict[str, Any], extras: dict[str, Any], plugin: Optional[str], payload: CycleEnd) -> None:
    cycle["nodeName"] = payload.node_name
    if payload.failed_scheduling_message is not None:
        extras["failedSchedulingMessage"] = payload.failed_scheduling_message
    if payload.error:
        extras["error"] = payload.error


_HANDLERS: dict[ExtensionPoint, Callable[[dict[str, Any], dict[str, Any], Optional[str], Any], None]] = {
    ExtensionPoint.PRE_FILTER: _pre_filter,
    ExtensionPoint.FILTER: _filter,
    ExtensionPoint.POST_FILTER: _post_filter,
    ExtensionPoint.PRE_SCORE: _pre_score,
    ExtensionPoint.SCORE: _score,
    ExtensionPoint.NORMALIZE_SCORE: _normalize,
    ExtensionPoint.TOTAL: _total,
    ExtensionPoint.CYCLE_END: _cycle_end,
}


def trace_summary(events: Iterable[Event]) -> dict[str, Any]:
    return {"cycles": list(trace_cycles(events))}


def trace_cycles(events: Iterable[Event]) -> Iterator[dict[str, Any]]:
    """The summary's cycles one at a time, each given once the next one starts (or the events end):
    a 5,000-node run's trace (hundreds of MB) is written out holding one cycle in memory."""
    builder = TraceBuilder()
    for event in events:
        if event.extension_point is ExtensionPoint.CYCLE_START:
            yield from builder.take()
        builder.add(event)
    yield from builder.take()


# The points whose events the builder reads: a single pass made for it alone (``simulate(reads=...)``,
# `trace --json`) writes no QueueSort, Reserve or binding events, and copies no queue per cycle.
TRACE_READS = frozenset({ExtensionPoint.CYCLE_START, *_HANDLERS})
