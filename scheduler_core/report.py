"""The readable per-cycle report `python -m scheduler_core trace FILE` prints without --json."""

from __future__ import annotations

from typing import Iterable

from scheduler_core.events import Event, ExtensionPoint
from scheduler_core.model import Scenario

MAX_NODES_LISTED = 20


def _status_text(status: dict) -> str:
    return f"{status['code']}: {', '.join(status['reasons'])}" if status["reasons"] else status["code"]


def _cut(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NODES_LISTED])
    more = len(names) - MAX_NODES_LISTED
    return shown + (f", … (+{more})" if more > 0 else "")


def _line(event: Event) -> list[str]:
    p = event.payload.to_json()
    point = event.extension_point
    who = event.plugin or "framework"
    if point is ExtensionPoint.CYCLE_START:
        return [f"\n== cycle {event.cycle + 1}/{p['cycles']}: pod {p['pod']} (priority {p['priority']})"]
    if point is ExtensionPoint.PRE_FILTER and event.plugin:
        status = p["status"]
        narrowed = f" -> nodes {_cut(p['nodeNames'])}" if p["nodeNames"] is not None else ""
        return [f"  PreFilter  {who}: {_status_text(status) if status else 'Success'}{narrowed}"]
    if point is ExtensionPoint.FILTER and event.plugin:
        rejected = p["statuses"]
        if not rejected:
            return [f"  Filter     {who}: all {p['evaluated']} node(s) pass"]
        lines = [f"  Filter     {who}: {len(rejected)} of {p['evaluated']} node(s) rejected"]
        for node, status in list(rejected.items())[:MAX_NODES_LISTED]:
            lines.append(f"               {node}: {_status_text(status)}")
        return lines
    if point is ExtensionPoint.FILTER:
        return [f"  feasible:  {_cut(p['feasibleNodes']) or '(none)'}"]
    if point is ExtensionPoint.POST_FILTER and event.plugin:
        nominated = f" nominated={p['nominatedNodeName']}" if p["nominatedNodeName"] is not None else ""
        return [f"  PostFilter {who}: {p['code']} {'; '.join(p['reasons'])}{nominated}"]
    if point is ExtensionPoint.PRE_SCORE:
        return [f"  PreScore   {who}: {_status_text(p['status']) if p['status'] else 'Success'}"]
    if point is ExtensionPoint.NORMALIZE_SCORE:
        pairs = [f"{n}={p['normalized'][n]}x{p['weight']}" for n in list(p["normalized"])[:MAX_NODES_LISTED]]
        return [f"  Score      {who}: {', '.join(pairs)}"]
    if point is ExtensionPoint.TOTAL:
        if p.get("error"):
            return [f"  error:     {p['error']}"]
        ranked = sorted(p["totalScores"].items(), key=lambda kv: -kv[1])[:MAX_NODES_LISTED]
        return [f"  total:     {', '.join(f'{n}={s}' for n, s in ranked)}"]
    if point is ExtensionPoint.CYCLE_END:
        if p["nodeName"]:
            return [f"  => bound to {p['nodeName']}"]
        return [f"  => unschedulable: {p.get('failedSchedulingMessage') or p.get('error')}"]
    return []


def render_notices(scenario: Scenario) -> list[str]:
    """What was left out and why, one line each (the objects, cut after a few)."""
    lines = []
    for notice in scenario.scheduling_notices():
        objects = f": {_cut(list(notice.objects))}" if notice.objects else ""
        lines.append(f"note: {notice.message}{objects}")
    return lines


def render_report(events: Iterable[Event], scenario: Scenario) -> str:
    lines = [f"{len(scenario.nodes)} node(s), {len(scenario.running_pods)} running pod(s), "
             f"{len(scenario.pending_pods)} pending pod(s)", *render_notices(scenario)]
    for event in events:
        lines.extend(_line(event))
    return "\n".join(lines)


# ---------------------------------------------------------------------- the run to the end

_EVENT_WORDS = {"UnschedulablePodAdd": "created", "AssignedPodAdd": "pod {other} bound",
                "AssignedPodDelete": "pod {other} deleted", "AssignedPodUpdate": "pod {other} updated"}


def _clock(ms: int) -> str:
    """Minutes:seconds.milliseconds of the run's logical clock (12:00.000 is twelve minutes in)."""
    return f"{ms // 60000}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


class TimelineReport:
    """The readable account `timeline` prints without --json: attempts, moves, evictions, bindings."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._cause = ""  # the last cluster change, named in the moves it causes
        self._attempt: dict = {}

    def add(self, event: Event) -> None:
        point, payload = event.extension_point, event.payload.to_json()
        if point is ExtensionPoint.CYCLE_START:
            self._attempt = {"pod": event.pod}
        elif point is ExtensionPoint.CYCLE_END:
            self._attempt.update(payload)
        elif point is ExtensionPoint.ATTEMPT_END:
            self._attempt_line(payload)
        elif point is ExtensionPoint.QUEUE_MOVE:
            self._move_line(event.pod, payload)
        elif point is ExtensionPoint.CLUSTER:
            self._cluster_line(event.pod, payload)
        elif point is ExtensionPoint.RUN_END:
            self.lines.append(f"{_clock(payload['timeMs'])} run ended after {payload['attempts']} attempt(s)")

    def _attempt_line(self, payload: dict) -> None:
        attempt, when = self._attempt, _clock(payload["timeMs"])
        if attempt.get("nodeName"):
            self.lines.append(f"{when} {attempt['pod']} (attempt {payload['attempt']}): scheduled to {attempt['nodeName']}")
            return
        why = attempt.get("failedSchedulingMessage") or attempt.get("error") or ""
        line = f"{when} {attempt['pod']} (attempt {payload['attempt']}): unschedulable — {why}"
        if payload.get("victims"):
            line += f" → preempts {', '.join(payload['victims'])} on {payload.get('nominatedNodeName')}"
        self.lines.append(line)

    def _move_line(self, pod: str, payload: dict) -> None:
        if payload["event"] == "ScheduleAttemptFailure":
            return  # said by the attempt's own line
        reason = _EVENT_WORDS.get(payload["event"], payload["event"]).format(other=self._cause or "?")
        plugins = f" ({', '.join(payload['plugins'])})" if payload["plugins"] else ""
        self.lines.append(f"{_clock(payload['timeMs'])} {pod} moved to {payload['queue']}: {reason}{plugins}")

    def _cluster_line(self, pod: str, payload: dict) -> None:
        self._cause = payload["object"]
        when, kind, node = _clock(payload["timeMs"]), payload["kind"], payload.get("node")
        text = {
            "PodBound": f"{pod} bound to {node}",
            "PodTerminating": f"{pod} on {node} terminating ({payload.get('detail', '')})",
            "PodRemoved": f"{pod} removed from {node}",
            "NominationSet": f"{pod} nominated to {node}",
            "NominationCleared": f"{pod} nomination to {node} cleared",
        }.get(kind, f"{payload['object']}: {payload.get('detail', kind)}")
        self.lines.append(f"{when} {text}")


def render_timeline(events: Iterable[Event], scenario: Scenario) -> str:
    report = TimelineReport()
    for event in events:
        report.add(event)
    header = [f"{len(scenario.nodes)} node(s), {len(scenario.running_pods)} running pod(s), "
              f"{len(scenario.pending_pods)} pending pod(s)", *render_notices(scenario)]
    return "\n".join([*header, *report.lines])
