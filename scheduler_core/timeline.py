"""The timeline of spec/TIMELINE.md, as a projection of the run's event stream.

Like ``trace``, it reads the wire form of events (``Event.to_json()``), so the web app can rebuild
a timeline from stored events exactly as the CLI builds it from live ones.
"""

from __future__ import annotations

from typing import Any, Iterable

from scheduler_core.events import Event, ExtensionPoint


class TimelineBuilder:
    def __init__(self) -> None:
        self.release = ""
        self.attempts: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}
        self.nominated: dict[str, str] = {}

    def add(self, event: Event) -> None:
        self.add_json(event.to_json())

    def add_json(self, event: dict) -> None:
        point = ExtensionPoint(event["extensionPoint"])
        payload = event["payload"]
        if point is ExtensionPoint.RUN_START:
            self.release = payload["release"]
        elif point is ExtensionPoint.CYCLE_START:
            self.attempts.append({"pod": payload["pod"], "nodeName": None})
        elif point is ExtensionPoint.CYCLE_END:
            self._cycle_end(self.attempts[-1], payload)
        elif point is ExtensionPoint.ATTEMPT_END:
            self._attempt_end(self.attempts[-1], payload)
        elif point is ExtensionPoint.RUN_END:
            self.final = dict(payload["final"])
            self.nominated = dict(payload["nominated"])

    @staticmethod
    def _cycle_end(attempt: dict, payload: dict) -> None:
        attempt["nodeName"] = payload["nodeName"]
        if payload["nodeName"] is None:
            message = payload.get("failedSchedulingMessage") or payload.get("error")
            if message is not None:
                attempt["failedSchedulingMessage"] = message

    @staticmethod
    def _attempt_end(attempt: dict, payload: dict) -> None:
        for key in ("nominatedNodeName", "victims", "bindingError"):
            if key in payload:
                attempt[key] = payload[key]

    def summary(self) -> dict:
        out: dict[str, Any] = {"release": self.release, "attempts": self.attempts,
                               "final": dict(sorted(self.final.items()))}
        if self.nominated:
            out["nominated"] = dict(sorted(self.nominated.items()))
        return out


def timeline_summary(events: Iterable[Event]) -> dict:
    builder = TimelineBuilder()
    for event in events:
        builder.add(event)
    return builder.summary()
