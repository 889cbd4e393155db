"""/ws/uploads/<id>/: a big upload's progress as its worker reads it (services/uploads.py) — the bytes
read of its size, the step under way, then the objects read — and its end (the version it became, or
that it was refused: the page then reads every problem from GET /api/uploads/<id>).

As for upgrades (upgrade_consumer.py), the row is the source of truth: a worker's group message is
only a hint to read it now; every POLL_SECONDS it is read anyway. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from channels.db import database_sync_to_async

from webui import publisher
from webui.consumers import RowStateWatcher
from webui.models import UPLOAD_FINISHED, Upload
from webui.services import access, uploads

STATE_FIELDS = ("status", "what", "size", "bytes_read", "objects_read", "error", "scenario_id", "version__number")


@database_sync_to_async
def _authorize(scope: Mapping[str, Any], upload_id: int) -> None:
    uploads.readable_upload(access.websocket_actor(scope), upload_id)


@database_sync_to_async
def _upload_state(upload_id: int) -> tuple[Any, ...] | None:
    row = Upload.objects.filter(pk=upload_id).values_list(*STATE_FIELDS).first()
    return tuple(row) if row is not None else None


class UploadProgressConsumer(RowStateWatcher):
    async def _open(self) -> str:
        self.upload_id = int(self.scope["url_route"]["kwargs"]["upload_id"])
        await _authorize(self.scope, self.upload_id)
        return publisher.upload_group_name(self.upload_id)

    async def upload_changed(self, message: dict[str, Any]) -> None:
        await self._hinted()

    async def _state(self) -> tuple[Any, ...] | None:
        return await _upload_state(self.upload_id)

    def _progress_message(self, state: tuple[Any, ...]) -> Mapping[str, Any]:
        status, what, size, bytes_read, objects_read, error, _scenario, _version = state
        return publisher.upload_progress_message(status, what, size, bytes_read, objects_read, error)

    def _end_message(self, state: tuple[Any, ...]) -> Mapping[str, Any] | None:
        status, *_, error, scenario, version = state
        return publisher.upload_end_message(status, error, scenario, version) if status in UPLOAD_FINISHED else None
