"""The one builder of run messages: what workers publish to the channel layer and what the
websocket sends to browsers. Tasks and consumers never assemble these dicts by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from webui.models import Run, RunEvent

# Channels dispatches a group message to the consumer method named by its type ("run.events" -> run_events).
GROUP_EVENTS_TYPE = "run.events"


class EventMessage(TypedDict):
    seq: int
    cycle: int
    pod: str
    extensionPoint: str  # noqa: N815 - the JSON contract is camelCase
    plugin: str | None
    payload: Any


class EventsMessage(TypedDict):
    type: Literal["events"]
    events: list[EventMessage]


class EndMessage(TypedDict):
    type: Literal["end"]
    status: str
    error: str


class GroupEvents(TypedDict):
    type: Literal["run.events"]
    events: list[EventMessage]


def group_name(run_id: int) -> str:
    return f"run_{run_id}"


def event_message(event: RunEvent) -> EventMessage:
    return EventMessage(
        seq=event.seq,
        cycle=event.cycle,
        pod=event.pod,
        extensionPoint=event.extension_point,
        plugin=event.plugin,
        payload=event.payload,
    )


def engine_json(event: RunEvent) -> dict[str, Any]:
    """The engine's own Event.to_json() shape, for TraceBuilder.add_json."""
    return {
        "cycle": event.cycle,
        "pod": event.pod,
        "extensionPoint": event.extension_point,
        "plugin": event.plugin,
        "payload": event.payload,
    }


def events_message(events: Iterable[EventMessage]) -> EventsMessage:
    return EventsMessage(type="events", events=list(events))


def end_message(run: Run) -> EndMessage:
    return EndMessage(type="end", status=run.status, error=run.error)


def publish_events(run_id: int, events: list[RunEvent]) -> None:
    """One group message per stored batch. Best effort: the DB log is the source of truth."""
    layer = get_channel_layer()
    if layer is None or not events:
        return
    message = GroupEvents(type=GROUP_EVENTS_TYPE, events=[event_message(e) for e in events])
    async_to_sync(layer.group_send)(group_name(run_id), message)
