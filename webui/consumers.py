"""/ws/runs/<id>/?since=<seq>[&token=<share token>]: a thin relay of a run's events.

The stored event log is the source of truth (channels_redis may drop messages, and in embedded mode
the worker's messages never reach this process), so live messages are only a hint ("stored up to
seq N"): on one, and every POLL_SECONDS anyway, we read the log after the last seq sent. The
cursor makes delivery gap-free and duplicate-free.

It only reads and relays: a run whose worker died is re-queued or failed where a run is read through
the API (GET /api/runs/N and its events pages: the run view reads it when it opens) and by every
worker's sweep (webui/celery.py); the new status then reaches the watcher on the next tick.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from webui import overload, publisher
from webui.models import Run
from webui.services import access, events
from webui.services.errors import DomainError, NotFound

POLL_SECONDS = 0.5
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN_LATER = 1013  # RFC 6455: the database is overloaded or unreachable; reconnect later


@database_sync_to_async
def _authorize(scope: Mapping[str, Any], run_id: int, token: str) -> bool:
    access.readable_run(access.websocket_actor(scope, token), run_id)
    return True


class RowGone(Exception):
    """The watched row was deleted: the watcher closes with CLOSE_NOT_FOUND."""


class RowWatcher(AsyncJsonWebsocketConsumer, abc.ABC):
    """What the run and capacity-question watchers (capacity_consumer.py) share around their polls:
    a visitor who may not read the row is refused (CLOSE_NOT_FOUND, or CLOSE_TRY_AGAIN_LATER while
    the database is unavailable); a reader joins the row's group, is accepted and polled until the
    end; on disconnect the poll stops and the group is left."""

    @abc.abstractmethod
    async def _open(self) -> str:
        """Read the URL and check access (a DomainError refuses); the row's group name."""

    @abc.abstractmethod
    async def _tick(self) -> bool:
        """Send what changed since the last tick; True once the row is finished and its end was sent."""

    async def _poll(self) -> None:
        """Tick every POLL_SECONDS until the row is finished, then close (a database that stopped
        answering closes with CLOSE_TRY_AGAIN_LATER: the browser reconnects)."""
        with contextlib.suppress(asyncio.CancelledError):
            try:
                while not await self._tick():
                    await asyncio.sleep(POLL_SECONDS)
            except RowGone:
                await self.close(code=CLOSE_NOT_FOUND)
                return
            except overload.UNAVAILABLE_ERRORS:
                await self.close(code=CLOSE_TRY_AGAIN_LATER)  # the browser reconnects (from its cursor)
                return
            await self.close()

    async def _hinted(self) -> None:
        """A worker's group message: read the row now rather than at the next poll."""
        if await self._tick():
            await self.close()

    async def connect(self) -> None:
        try:
            self.group = await self._open()
        except DomainError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        except overload.UNAVAILABLE_ERRORS:
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        self.lock = asyncio.Lock()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.poller = asyncio.ensure_future(self._poll())

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "poller"):
            self.poller.cancel()
            await self.channel_layer.group_discard(self.group, self.channel_name)


class RowStateWatcher(RowWatcher):
    """A row whose progress is a few of its fields (a capacity question, an upgrade comparison, an
    upload): the fields sent each time they changed, then the end once the row finished; a row gone
    closes with CLOSE_NOT_FOUND."""

    sent: tuple[Any, ...] | str | None = None  # the state last sent, "end" once the end was

    @abc.abstractmethod
    async def _state(self) -> tuple[Any, ...] | None:
        """The row's fields as sent (None: the row is gone)."""

    @abc.abstractmethod
    def _progress_message(self, state: tuple[Any, ...]) -> Mapping[str, Any]:
        """What the state says while the row is under way."""

    @abc.abstractmethod
    def _end_message(self, state: tuple[Any, ...]) -> Mapping[str, Any] | None:
        """The end the state says, once the row finished (None while it has not)."""

    async def _tick(self) -> bool:
        async with self.lock:
            if self.sent == "end":
                return True
            state = await self._state()
            if state is None:
                await self.close(code=CLOSE_NOT_FOUND)
                self.sent = "end"
                return True
            if state != self.sent:
                await self.send_json(self._progress_message(state))
                self.sent = state
            end = self._end_message(state)
            if end is not None:
                await self.send_json(end)
                self.sent = "end"
                return True
        return False


class RunGone(RowGone):
    """The run was deleted (with its scenario) while someone watched it."""


@database_sync_to_async
def _run_state(run_id: int) -> Run:
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        raise RunGone()
    return run


class RunEventsConsumer(RowWatcher):
    async def _open(self) -> str:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            self.cursor = max(0, int(query.get("since", ["0"])[0]))
        except ValueError as error:  # a cursor that is no number is refused like a run one may not read
            raise NotFound("the cursor ?since= is not a number") from error
        await _authorize(self.scope, self.run_id, query.get("token", [""])[0])
        return publisher.group_name(self.run_id)

    async def run_stored(self, message: publisher.GroupStored) -> None:
        """A worker stored more events: read them from the log now rather than at the next poll."""
        if message["next"] <= self.cursor:
            return
        async with self.lock:
            run = await _run_state(self.run_id)
            await self._catch_up(run)

    async def _tick(self) -> bool:
        """Catch up from the log; True once the run is finished and everything was sent."""
        async with self.lock:
            run = await _run_state(self.run_id)  # status first: a finished run has all events stored
            await self._catch_up(run)
            if run.is_finished:
                await self.send_json(publisher.end_message(run))
                return True
        return False

    async def _catch_up(self, run: Run) -> None:
        while page := await database_sync_to_async(events.stream_page)(run, self.cursor):
            await self._send_events(page)

    async def _send_events(self, batch: list[publisher.EventMessage]) -> None:
        for message in publisher.websocket_messages(batch):
            await self.send_json(message)
        self.cursor = batch[-1]["seq"] + 1
