"""/ws/uploads/<id>/: a big upload's progress as its worker reads it (services/uploads.py) — the bytes
read of its size, the step under way, then the objects read — and its end (the version it became, or
that it was refused: the page then reads every problem from GET /api/uploads/<id>).

As for upgrades (upgrade_consumer.py), the row is the source of truth: a worker's group message is
only a hint to read it now; every POLL_SECONDS it is read anyway. Nothing is computed here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from channels.db import database_sync_to_async

from webui import overload, publisher
from webui.consumers import CLOSE_NOT_FOUND, CLOSE_TRY_AGAIN_LATER, RowWatcher
from webui.models import UPLOAD_FINISHED, Upload
from webui.services import access, uploads

POLL_SECONDS = 0.5
STATE_FIELDS = ("status", "what", "size", "bytes_read", "objects_read", "error", "scenario_id", "version__number")


@database_sync_to_async
def _authorize(scope: Mapping[str, Any], upload_id: int) -> None:
    uploads.readable_upload(access.websocket_actor(scope), upload_id)


@database_sync_to_async
def _state(upload_id: int) -> tuple[Any, ...] | None:
    row = Upload.objects.filter(pk=upload_id).values_list(*STATE_FIELDS).first()
    return tuple(row) if row is not None else None


class UploadProgressConsumer(RowWatcher):
    async def _open(self) -> str:
        self.upload_id = int(self.scope["url_route"]["kwargs"]["upload_id"])
        await _authorize(self.scope, self.upload_id)
        self.sent: tuple[Any, ...] | str | None = None  # the state last sent, "end" once the end was
        return publisher.upload_group_name(self.upload_id)

    async def upload_changed(self, message: dict[str, Any]) -> None:
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
        """Send the state when it changed; True once the upload finished (its end was sent)."""
        async with self.lock:
            if self.sent == "end":
                return True
            state = await _state(self.upload_id)
            if state is None:
                await self.close(code=CLOSE_NOT_FOUND)
                self.sent = "end"
                return True
            status, what, size, bytes_read, objects_read, error, scenario, version = state
            if state != self.sent:
                await self.send_json(
                    publisher.upload_progress_message(status, what, size, bytes_read, objects_read, error)
                )
                self.sent = state
            if status in UPLOAD_FINISHED:
                await self.send_json(publisher.upload_end_message(status, error, scenario, version))
                self.sent = "end"
                return True
        return False
