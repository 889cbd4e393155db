"""The trace summary of ../shared/spec/SCENARIO_AND_TRACE.md, as a projection of the event stream.

It reads the wire form of events (``Event.to_json()``) so the web app can rebuild a trace from
stored events exactly as the CLI builds it from live ones.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from scheduler_core.events import Event, ExtensionPoint
from scheduler_core.names import DEFAULT_PREEMPTION, INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD

STATE_PLUGINS = (POD_TOPOLOGY_SPREAD, INTER_POD_AFFINITY)
_QUIET_CODES = ("Success", "Skip")


def _new_cycle(pod: str) -> dict[str, Any]:
    return {"pod": pod, "preFilter": {}, "preFilterNodeNames": None, "filter": {}, "feasibleNodes": [],
            "scores": {}, "totalScores": {}, "nodeName": None}


class TraceBuilder:
    def __init__(self) -> None:
        self.cycles: list[dict[str, Any]] = []
        self._extras: list[dict[str, Any]] = []

    def add(self, event: Event) -> None:
        self.add_json(event.to_json())

    def add_json(self, event: dict) -> None:
        point = ExtensionPoint(event["extensionPoint"])
        handler = _HANDLERS.get(point)
        if point is ExtensionPoint.CYCLE_START:
            self.cycles.append(_new_cycle(event["pod"]))
            self._extras.append({})
        elif handler is not None:
            handler(self.cycles[-1], self._extras[-1], event.get("plugin"), event["payload"])

    def summary(self) -> dict:
        cycles = []
        for cycle, extras in zip(self.cycles, self._extras):
            out = dict(cycle)
            for key in ("postFilter", "error", "failedSchedulingMessage", "preFilterState", "preScoreState"):
                if extras.get(key):
                    out[key] = extras[key]
            cycles.append(out)
        return {"cycles": cycles}


def _pre_filter(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    if plugin is None:
        cycle["preFilterNodeNames"] = payload["nodeNames"]
        return
    status = payload["status"]
    if status is not None and status["code"] not in _QUIET_CODES:
        cycle["preFilter"][plugin] = status
    if plugin in STATE_PLUGINS and payload.get("state") is not None:
        extras.setdefault("preFilterState", {})[plugin] = payload["state"]


def _filter(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    if plugin is None:
        cycle["feasibleNodes"] = list(payload["feasibleNodes"])
        return
    for node, status in payload["statuses"].items():
        cycle["filter"].setdefault(node, {})[plugin] = status


def _post_filter(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    """The spec's ``postFilter`` is DefaultPreemption's dry run, only when it ran."""
    if plugin != DEFAULT_PREEMPTION:
        return
    out = {key: payload[key] for key in ("code", "reasons", "victims", "candidates")}
    if payload.get("summary") is not None:
        out["reasons"] = [payload["summary"]]
    out["nominatedNodeName"] = payload["nominatedNodeName"] or None  # "" (cleared) prints as null
    if payload.get("nominationTie"):
        out["nominationTie"] = True
    extras["postFilter"] = out


def _pre_score(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    if plugin in STATE_PLUGINS and payload.get("state") is not None:
        extras.setdefault("preScoreState", {})[plugin] = payload["state"]


def _score(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    cycle["scores"][plugin] = {node: {"raw": raw} for node, raw in payload["raw"].items()}


def _normalize(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    per_node = cycle["scores"][plugin]
    for node, value in payload["normalized"].items():
        per_node[node]["normalized"] = value
        per_node[node]["weighted"] = payload["weighted"][node]


def _total(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    if payload.get("error"):
        extras["error"] = payload["error"]
        return
    cycle["totalScores"] = dict(payload["totalScores"])


def _cycle_end(cycle: dict, extras: dict, plugin: Optional[str], payload: dict) -> None:
    cycle["nodeName"] = payload["nodeName"]
    if payload.get("failedSchedulingMessage") is not None:
        extras["failedSchedulingMessage"] = payload["failedSchedulingMessage"]
    if payload.get("error"):
        extras["error"] = payload["error"]


_HANDLERS = {
    ExtensionPoint.PRE_FILTER: _pre_filter,
    ExtensionPoint.FILTER: _filter,
    ExtensionPoint.POST_FILTER: _post_filter,
    ExtensionPoint.PRE_SCORE: _pre_score,
    ExtensionPoint.SCORE: _score,
    ExtensionPoint.NORMALIZE_SCORE: _normalize,
    ExtensionPoint.TOTAL: _total,
    ExtensionPoint.CYCLE_END: _cycle_end,
}


def trace_summary(events: Iterable[Event]) -> dict:
    builder = TraceBuilder()
    for event in events:
        builder.add(event)
    return builder.summary()
