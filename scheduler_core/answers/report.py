"""The readable per-cycle report `python -m scheduler_core trace FILE` prints without --json."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from scheduler_core.encoding.events import (
    CycleEnd,
    CycleStart,
    Event,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    PostFilterOutcome,
    PreFilterPluginResult,
    PreScorePluginResult,
    StoredFilterVerdicts,
    TotalResult,
)
from scheduler_core.framework.filter_facts import CycleDetails
from scheduler_core.model import Scenario
from scheduler_core.run.schedule_one import TIE_BREAK_FIRST
from scheduler_core.encoding.timeline import StoryBuilder

MAX_NODES_LISTED = 20
SKIPPED_SCORING = (
    "one feasible node: kube-scheduler runs no PreScore, Score or NormalizeScore and takes it; "
    "the scores below are SchedLab's, for the trace only"
)


def _status_text(status: Mapping[str, Any]) -> str:
    return f"{status['code']}: {', '.join(status['reasons'])}" if status["reasons"] else status["code"]


def _cut(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NODES_LISTED])
    more = len(names) - MAX_NODES_LISTED
    return shown + (f", … (+{more})" if more > 0 else "")


def _numbers(details: Optional[CycleDetails], node: str, plugin: str) -> str:
    """`` — <the facts behind the plugin's rejection of node>`` when the report was given them."""
    detail = details.nodes.get(node) if details is not None else None
    found = detail.plugin(plugin) if detail is not None else None
    return f" — {found.text}" if found is not None else ""


def _tie_line(total: TotalResult, totals: dict[str, int], tie_break: str) -> list[str]:
    """Nodes sharing the top total: the release picks among them at random; say which one this run took."""
    ties = total.ties or []
    if len(ties) < 2:
        return []
    top = totals[ties[0]]
    how = (
        "the first in node order, as the spec's deterministic rule takes"
        if tie_break == TIE_BREAK_FIRST
        else "picked at random (--tie-break random)"
    )
    return [
        f"  tie:       {len(ties)} nodes share the top total {top} ({_cut(ties)}): kube-scheduler would pick one "
        f"of them at random; this run took {total.node_name}, {how}"
    ]


def _line(event: Event, details: Optional[CycleDetails] = None, tie_break: str = TIE_BREAK_FIRST) -> list[str]:
    p = event.payload
    who = event.plugin or "framework"
    if isinstance(p, CycleStart):
        return [f"\n== cycle {event.cycle + 1}/{p.cycles}: pod {p.pod} (priority {p.priority})"]
    if isinstance(p, PreFilterPluginResult) and event.plugin:
        narrowed = f" -> nodes {_cut(p.node_names)}" if p.node_names is not None else ""
        return [f"  PreFilter  {who}: {_status_text(p.status) if p.status else 'Success'}{narrowed}"]
    if isinstance(p, (FilterPluginResult, StoredFilterVerdicts)) and event.plugin:
        return _filter_lines(who, p.statuses, p.evaluated, details)
    if isinstance(p, FilterSummary):
        lines = [f"  feasible:  {_cut(p.feasible_nodes) or '(none)'}"]
        if len(p.feasible_nodes) == 1:
            lines.append(f"  {SKIPPED_SCORING}")
        return lines
    if isinstance(p, PostFilterOutcome) and event.plugin:
        nominated = f" nominated={p.nominated_node_name}" if p.nominated_node_name is not None else ""
        return [f"  PostFilter {who}: {p.code} {'; '.join(p.reasons)}{nominated}"]
    if isinstance(p, PreScorePluginResult):
        return [f"  PreScore   {who}: {_status_text(p.status) if p.status else 'Success'}"]
    if isinstance(p, NormalizeResult):
        normalized = p.normalized_by_node()
        pairs = [f"{n}={normalized[n]}x{p.weight}" for n in list(normalized)[:MAX_NODES_LISTED]]
        skipped = " (skipped by kube-scheduler)" if len(normalized) == 1 else ""
        return [f"  Score      {who}: {', '.join(pairs)}{skipped}"]
    if isinstance(p, TotalResult):
        if p.error:
            return [f"  error:     {p.error}"]
        totals = p.totals_by_node()
        ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:MAX_NODES_LISTED]
        return [f"  total:     {', '.join(f'{n}={s}' for n, s in ranked)}", *_tie_line(p, totals, tie_break)]
    if isinstance(p, CycleEnd):
        if p.node_name:
            return [f"  => bound to {p.node_name}"]
        return [f"  => unschedulable: {p.failed_scheduling_message or p.error}"]
    return []


def _filter_lines(
    who: str, rejected: Mapping[str, Mapping[str, Any]], evaluated: int, details: Optional[CycleDetails]
) -> list[str]:
    if not rejected:
        return [f"  Filter     {who}: all {evaluated} node(s) pass"]
    lines = [f"  Filter     {who}: {len(rejected)} of {evaluated} node(s) rejected"]
    for node, status in list(rejected.items())[:MAX_NODES_LISTED]:
        lines.append(f"               {node}: {_status_text(status)}{_numbers(details, node, who)}")
    return lines


def render_notices(scenario: Scenario) -> list[str]:
    """The release replayed, then what was left out and why, one line each (the objects, cut after a few)."""
    lines = [f"release: {scenario.release.sentence()}"]
    for notice in scenario.scheduling_notices():
        objects = f": {_cut(list(notice.objects))}" if notice.objects else ""
        lines.append(f"note: {notice.message}{objects}")
    return lines


def render_report(
    events: Iterable[Event],
    scenario: Scenario,
    details: Optional[dict[int, CycleDetails]] = None,
    tie_break: str = TIE_BREAK_FIRST,
) -> str:
    """``details``: per cycle, the facts behind Filter rejections (filter_details.collect_details with
    ``per_plugin=MAX_NODES_LISTED``); each listed rejection then carries its numbers."""
    lines = report_header(scenario)
    for event in events:
        lines.extend(_line(event, (details or {}).get(event.cycle), tie_break))
    return "\n".join(lines)


def report_header(scenario: Scenario) -> list[str]:
    """The report's first lines: the cluster's size and the scenario's notices."""
    return [
        f"{len(scenario.nodes)} node(s), {len(scenario.running_pods)} running pod(s), "
        f"{len(scenario.pending_pods)} pending pod(s)",
        *render_notices(scenario),
    ]


def cycle_report_lines(
    events: Iterable[Event], details: Optional[CycleDetails], tie_break: str = TIE_BREAK_FIRST
) -> list[str]:
    """``render_report``'s lines for one cycle's events (a report written a cycle at a time)."""
    return [line for event in events for line in _line(event, details, tie_break)]


# ---------------------------------------------------------------------- the run to the end


class TimelineReport:
    """The readable account `timeline` prints without --json: the story's sentences, timed."""

    def __init__(self) -> None:
        self.story = StoryBuilder()

    def add(self, event: Event) -> None:
        self.story.add(event)

    @property
    def lines(self) -> list[str]:
        return self.story.lines()


def render_timeline(events: Iterable[Event], scenario: Scenario) -> str:
    report = TimelineReport()
    for event in events:
        report.add(event)
    return "\n".join([*report_header(scenario), *report.lines])


def render_comparison(result: dict[str, Any]) -> str:
    """`compare` without --json: the summary, the pods that end differently, the first divergence."""
    lines = [result["summary"]]
    for row in result["pods"]:
        if row["a"] != row["b"]:
            lines.append(f"  {row['pod']}: A {row['a'] or 'Pending'} → B {row['b'] or 'Pending'}")
    split = result["firstDivergence"]
    if split is not None:
        lines.append(
            f"The runs part at attempt {split['index'] + 1}: "  # 1-based, as "(attempt 1)"; the JSON keeps the index
            f"A {split['a']['text'] if split['a'] else '(no attempt)'} | B {split['b']['text'] if split['b'] else '(no attempt)'}"
        )
    scores = result.get("scores")
    if scores:
        lines.append(f"Weighted scores of {scores['pod']} (A → B):")
        for node in scores["nodes"]:
            cells = [f"{plugin} {v['a']}→{v['b']}" for plugin, v in node["plugins"].items() if v["a"] != v["b"]]
            total = node["total"]
            lines.append(
                f"  {node['node']}: total {total['a']}→{total['b']}" + (f" ({', '.join(cells)})" if cells else "")
            )
        for side in ("a", "b"):
            if scores.get("skipped", {}).get(side):
                lines.append(f"  {side.upper()}: {scores['skipped'][side]}")
    return "\n".join(lines)
