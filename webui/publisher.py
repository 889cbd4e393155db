"""The one builder of run messages: what workers publish to the channel layer and what the
websocket sends to browsers. Tasks and consumers never assemble these dicts by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Final, Literal, NotRequired, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from webui.models import Run

# Channels dispatches a group message to the consumer method named by its type ("run.stored" -> run_stored).
GROUP_STORED_TYPE: Final = "run.stored"
# daphne refuses to send a websocket message over 1 MiB (its default --websocket-max-message-size,
# which also bounds what clients may send us, so we keep it). Batches are split to stay well below.
WEBSOCKET_BUDGET = 512 * 1024
EVENT_OVERHEAD = 600  # an event's fields besides its payload (pod and plugin names), and the envelope


# The messages' keys are the JSON contract's, camelCase: TypedDict's functional form writes them as
# they are sent.
EventMessage = TypedDict(
    "EventMessage",
    {
        "seq": int,
        "cycle": int,
        "pod": str,
        "extensionPoint": str,
        "plugin": str | None,
        "payload": Any,
        # Set (with payload null) when one event alone is over WEBSOCKET_BUDGET, e.g. a Filter step over
        # thousands of nodes: fetch it from GET /api/runs/<id>/events?since=<seq>&limit=1.
        "payloadOmitted": NotRequired[bool],
    },
)


class EventsMessage(TypedDict):
    type: Literal["events"]
    events: list[EventMessage]


class EndMessage(TypedDict):
    type: Literal["end"]
    status: str
    error: str


class GroupStored(TypedDict):
    type: Literal["run.stored"]
    next: int  # one past the last stored seq


def group_name(run_id: int) -> str:
    return f"run_{run_id}"


def events_message(events: Iterable[EventMessage]) -> EventsMessage:
    return EventsMessage(type="events", events=list(events))


def websocket_messages(events: list[EventMessage], budget: int = WEBSOCKET_BUDGET) -> Iterator[EventsMessage]:
    """Split a batch into messages that daphne will send; seq order is kept."""
    chunk: list[EventMessage] = []
    size = 0
    for event in events:
        cost = len(json.dumps(event["payload"])) + EVENT_OVERHEAD
        if cost > budget:
            event, cost = EventMessage(**{**event, "payload": None, "payloadOmitted": True}), EVENT_OVERHEAD
        if chunk and size + cost > budget:
            yield events_message(chunk)
            chunk, size = [], 0
        chunk.append(event)
        size += cost
    if chunk:
        yield events_message(chunk)


def end_message(run: Run) -> EndMessage:
    return EndMessage(type="end", status=run.status, error=run.error)


def publish_stored(run_id: int, end_seq: int) -> None:
    """Tell watchers that events up to ``end_seq`` are stored. Best effort: they poll the log anyway.

    Only the cursor travels: the stored log is what every watcher reads, so the worker never turns
    a 5000-node cycle back into JSON for a group message that nobody may be listening to."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = GroupStored(type=GROUP_STORED_TYPE, next=end_seq)
    async_to_sync(layer.group_send)(group_name(run_id), dict(message))  # the layer takes any dict


# --- capacity questions (services/capacity.py): progress, as a hint that the row changed ----------

GROUP_CAPACITY_TYPE = "capacity.changed"


CapacityProgressMessage = TypedDict(
    "CapacityProgressMessage",
    {
        "type": Literal["progress"],
        "status": str,
        "done": int,  # trials run so far
        "estimate": int,  # the search's current guess of its total ("trial 7 of ~12")
        "error": str,
        # Pod-copies questions (issue 42): what answers ("" until known, then counted, placed or trials),
        # why, and the one pass's progress: copies placed (or counted) so far, per CPU second.
        "method": str,
        "why": str,
        "copies": int,
        "copiesPerSecond": float | None,
    },
)


class CapacityEndMessage(TypedDict):
    type: Literal["end"]
    status: str
    error: str


def capacity_group_name(question_id: int) -> str:
    return f"capacity_{question_id}"


def capacity_progress_message(
    status: str,
    done: int,
    estimate: int,
    error: str,
    method: str = "",
    why: str = "",
    copies: int = 0,
    copies_per_second: float | None = None,
) -> CapacityProgressMessage:
    return CapacityProgressMessage(
        type="progress",
        status=status,
        done=done,
        estimate=max(done, estimate),
        error=error,
        method=method,
        why=why,
        copies=copies,
        copiesPerSecond=copies_per_second,
    )


def capacity_end_message(status: str, error: str) -> CapacityEndMessage:
    return CapacityEndMessage(type="end", status=status, error=error)


def publish_capacity(question_id: int) -> None:
    """Tell watchers the question's row changed (best effort: they poll it anyway)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(capacity_group_name(question_id), {"type": GROUP_CAPACITY_TYPE})


# --- upgrade comparisons and fleet checks (services/upgrades.py, issue 48) ----------------------

GROUP_UPGRADE_TYPE = "upgrade.changed"


class UpgradeProgressMessage(TypedDict):
    type: Literal["progress"]
    status: str
    done: int  # runs to the end done (compare_releases' progress)
    total: int  # of this many: the two releases' runs and one per release change that may matter here
    what: str  # the last run done ("v1.36.3 without NodeDeclaredFeatures")
    error: str


class UpgradeEndMessage(TypedDict):
    type: Literal["end"]
    status: str
    error: str


class FleetRowState(TypedDict):
    upgrade: int
    status: str
    done: int
    total: int


class FleetProgressMessage(TypedDict):
    """A fleet check's rows changed: their states (the page reads the rows' answers from the API)."""

    type: Literal["progress"]
    rows: list[FleetRowState]


class FleetEndMessage(TypedDict):
    type: Literal["end"]


def upgrade_group_name(upgrade_id: int) -> str:
    return f"upgrade_{upgrade_id}"


def fleet_group_name(fleet_id: int) -> str:
    return f"fleet_{fleet_id}"


def upgrade_progress_message(status: str, done: int, total: int, what: str, error: str) -> UpgradeProgressMessage:
    return UpgradeProgressMessage(type="progress", status=status, done=done, total=total, what=what, error=error)


def upgrade_end_message(status: str, error: str) -> UpgradeEndMessage:
    return UpgradeEndMessage(type="end", status=status, error=error)


def fleet_progress_message(rows: Iterable[tuple[int, str, int, int]]) -> FleetProgressMessage:
    """``rows``: (upgrade id, status, done, total) per scenario, in the check's order."""
    return FleetProgressMessage(
        type="progress",
        rows=[FleetRowState(upgrade=pk, status=status, done=done, total=total) for pk, status, done, total in rows],
    )


def fleet_end_message() -> FleetEndMessage:
    return FleetEndMessage(type="end")


def publish_upgrade(upgrade_id: int, fleet_id: int | None = None) -> None:
    """Tell watchers the upgrade's row (and its fleet check's) changed (best effort: they poll it anyway)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(upgrade_group_name(upgrade_id), {"type": GROUP_UPGRADE_TYPE})
    if fleet_id is not None:
        async_to_sync(layer.group_send)(fleet_group_name(fleet_id), {"type": GROUP_UPGRADE_TYPE})


# --- big uploads (services/uploads.py, upload_consumer.py) ----------------------------------------

GROUP_UPLOAD_TYPE = "upload.changed"


class UploadProgressMessage(TypedDict):
    type: Literal["progress"]
    status: str  # queued, reading, succeeded, failed
    what: str  # the step under way ("reading cluster.json", "checking what was read")
    size: int  # the upload's bytes
    bytesRead: int  # of them, read by the worker so far
    objectsRead: int  # the objects the version holds (once checked)
    error: str


class UploadEndMessage(TypedDict):
    """The upload finished: the page reads its answer (the version, or every problem) from the API."""

    type: Literal["end"]
    status: str
    error: str
    scenario: int | None
    version: int | None  # the version's number


def upload_group_name(upload_id: int) -> str:
    return f"upload_{upload_id}"


def upload_progress_message(
    status: str, what: str, size: int, bytes_read: int, objects_read: int, error: str
) -> UploadProgressMessage:
    return UploadProgressMessage(
        type="progress",
        status=status,
        what=what,
        size=size,
        bytesRead=bytes_read,
        objectsRead=objects_read,
        error=error,
    )


def upload_end_message(status: str, error: str, scenario: int | None, version: int | None) -> UploadEndMessage:
    return UploadEndMessage(type="end", status=status, error=error, scenario=scenario, version=version)


def publish_upload(upload_id: int) -> None:
    """Tell watchers the upload's row changed (best effort: they poll it anyway)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(upload_group_name(upload_id), {"type": GROUP_UPLOAD_TYPE})
