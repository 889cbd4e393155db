"""/ws/capacity/<id>/: a capacity question's progress ("trial 7 of ~12", or the one pass's copies placed
and their rate, with the method answering and why), then its end.

As for runs (consumers.py), the database row is the source of truth: a worker's group message is
only a hint to read it now; every POLL_SECONDS it is read anyway (embedded mode's in-memory layer
never carries the worker's messages to this process). A message is sent when the row changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from channels.db import database_sync_to_async

from webui import publisher
from webui.consumers import RowStateWatcher
from webui.models import FINISHED_STATUSES, CapacityQuestion
from webui.services import access, capacity


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
def _question_state(question_id: int) -> tuple[Any, ...] | None:
    """The row's progress and state (trials; method, why and the one pass's copies), as sent."""
    row = CapacityQuestion.objects.filter(pk=question_id).values_list(*STATE_FIELDS).first()
    return tuple(row) if row is not None else None


class CapacityProgressConsumer(RowStateWatcher):
    async def _open(self) -> str:
        self.question_id = int(self.scope["url_route"]["kwargs"]["question_id"])
        await _authorize(self.scope, self.question_id)
        return publisher.capacity_group_name(self.question_id)

    async def capacity_changed(self, message: dict[str, Any]) -> None:
        await self._hinted()

    async def _state(self) -> tuple[Any, ...] | None:
        return await _question_state(self.question_id)

    def _progress_message(self, state: tuple[Any, ...]) -> Mapping[str, Any]:
        return publisher.capacity_progress_message(*state)

    def _end_message(self, state: tuple[Any, ...]) -> Mapping[str, Any] | None:
        status, error = state[0], state[3]
        return publisher.capacity_end_message(status, error) if status in FINISHED_STATUSES else None
