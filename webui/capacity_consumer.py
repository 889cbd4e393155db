"""/ws/capacity/<id>/: a capacity question's progress ("trial 7 of ~12", or the one pass's copies placed
and their rate, with the method answering and why), then its end.

As for runs (consumers.py), the database row is the source of truth: a worker's group message is
only a hint to read it now; every POLL_SECONDS it is read anyway (embedded mode's in-memory layer
never carries the worker's messages to this process). A message is sent when the row changed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from channels.db import database_sync_to_async

from webui import overload, publisher
from webui.consumers import CLOSE_NOT_FOUND, CLOSE_TRY_AGAIN_LATER, RowWatcher
from webui.models import FINISHED_STATUSES, CapacityQuestion
from webui.services import access, capacity

POLL_SECONDS = 0.5


@database_sync_to_async
def _authorize(scope: Mapping[str, Any], question_id: int) -> None:
    capacity.readable_question(access.websocket_actor(scope), question_id)


STATE_FIELDS = (
    "status",
    "trials_done",
    "trials_estimate",
    "error",
    "method",
    "why",
    "copies_done",
    "copies_per_second",
)


@database_sync_to_async
def _state(question_id: int) -> tuple[Any, ...] | None:
    """The row's progress and state (trials; method, why and the one pass's copies), as sent."""
    row = CapacityQuestion.objects.filter(pk=question_id).values_list(*STATE_FIELDS).first()
    return tuple(row) if row is not None else None


class CapacityProgressConsumer(RowWatcher):
    async def _open(self) -> str:
        self.question_id = int(self.scope["url_route"]["kwargs"]["question_id"])
        await _authorize(self.scope, self.question_id)
        self.sent: tuple[Any, ...] | str | None = None  # the state last sent, "end" once the end was
        return publisher.capacity_group_name(self.question_id)

    async def capacity_changed(self, message: dict[str, Any]) -> None:
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
            status, error = state[0], state[3]
            if state != self.sent:
                await self.send_json(publisher.capacity_progress_message(*state))
                self.sent = state
            if status in FINISHED_STATUSES:
                await self.send_json(publisher.capacity_end_message(status, error))
                self.sent = "end"
                return True
        return False
