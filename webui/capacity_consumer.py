"""/ws/capacity/<id>/: a capacity question's progress ("trial 7 of ~12"), then its end.

As for runs (consumers.py), the database row is the source of truth: a worker's group message is
only a hint to read it now; every POLL_SECONDS it is read anyway (embedded mode's in-memory layer
never carries the worker's messages to this process). A message is sent when the row changed.
"""

from __future__ import annotations

import asyncio
import contextlib

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from webui import overload, publisher
from webui.models import CapacityQuestion
from webui.services import access, capacity
from webui.services.errors import DomainError

POLL_SECONDS = 0.5
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN_LATER = 1013


@database_sync_to_async
def _authorize(scope, question_id: int) -> None:
    user = scope.get("user")
    session = scope.get("session")
    actor = access.Actor(user_id=user.pk if user is not None and user.is_authenticated else None,
                         session_key=(session.session_key if session is not None else None) or "")
    capacity.readable_question(actor, question_id)


@database_sync_to_async
def _state(question_id: int) -> tuple[str, int, int, str] | None:
    row = CapacityQuestion.objects.filter(pk=question_id).values_list("status", "trials_done", "trials_estimate", "error").first()
    return tuple(row) if row is not None else None


class CapacityProgressConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.question_id = int(self.scope["url_route"]["kwargs"]["question_id"])
        try:
            await _authorize(self.scope, self.question_id)
        except DomainError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        except overload.UNAVAILABLE_ERRORS:
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        self.sent: tuple | None = None
        self.lock = asyncio.Lock()
        await self.channel_layer.group_add(publisher.capacity_group_name(self.question_id), self.channel_name)
        await self.accept()
        self.poller = asyncio.ensure_future(self._poll())

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "poller"):
            self.poller.cancel()
            await self.channel_layer.group_discard(publisher.capacity_group_name(self.question_id), self.channel_name)

    async def capacity_changed(self, message: dict) -> None:
        if await self._tick():
            await self.close()

    async def _poll(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            try:
                while not await self._tick():
                    await asyncio.sleep(POLL_SECONDS)
            except overload.UNAVAILABLE_ERRORS:
                await self.close(code=CLOSE_TRY_AGAIN_LATER)
                return
            await self.close()

    async def _tick(self) -> bool:
        """Send the state when it changed; True once the question is finished (its end was sent)."""
        async with self.lock:
            if self.sent == "end":
                return True
            state = await _state(self.question_id)
            if state is None:
                await self.close(code=CLOSE_NOT_FOUND)
                self.sent = "end"
                return True
            status, done, estimate, error = state
            if state != self.sent:
                await self.send_json(publisher.capacity_progress_message(status, done, estimate, error))
                self.sent = state
            if status in capacity.FINISHED_STATUSES:
                await self.send_json(publisher.capacity_end_message(status, error))
                self.sent = "end"
                return True
        return False
