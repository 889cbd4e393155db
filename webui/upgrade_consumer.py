"""/ws/upgrades/<id>/[?token=]: an upgrade comparison's progress as compare_releases reports it (runs
to the end done of the total, the last one named), then its end; /ws/fleet/<id>/: a fleet check's rows'
states each time one changes, then the end once every row finished.

As for runs and capacity questions (consumers.py, capacity_consumer.py), the rows are the source of
truth: a worker's group message is only a hint to read them now; every POLL_SECONDS they are read
anyway (embedded mode's in-memory layer never carries a worker's messages to this process). A message
is sent when what it says changed. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from webui import publisher
from webui.consumers import RowStateWatcher, RowWatcher
from webui.models import UPGRADE_FINISHED, Upgrade
from webui.services import access, upgrades

STATE_FIELDS = ("status", "done", "total", "what", "error")


@database_sync_to_async
def _authorize_upgrade(scope: Mapping[str, Any], upgrade_id: int, token: str) -> None:
    upgrades.readable_upgrade(access.websocket_actor(scope, token), upgrade_id)


@database_sync_to_async
def _authorize_fleet(scope: Mapping[str, Any], fleet_id: int) -> None:
    upgrades.readable_fleet(access.websocket_actor(scope), fleet_id)


@database_sync_to_async
def _upgrade_state(upgrade_id: int) -> tuple[Any, ...] | None:
    row = Upgrade.objects.filter(pk=upgrade_id).values_list(*STATE_FIELDS).first()
    return tuple(row) if row is not None else None


@database_sync_to_async
def _fleet_state(fleet_id: int) -> list[tuple[int, str, int, int]]:
    return list(Upgrade.objects.filter(fleet_id=fleet_id).order_by("pk").values_list("pk", "status", "done", "total"))


class UpgradeProgressConsumer(RowStateWatcher):
    async def _open(self) -> str:
        self.upgrade_id = int(self.scope["url_route"]["kwargs"]["upgrade_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        await _authorize_upgrade(self.scope, self.upgrade_id, query.get("token", [""])[0])
        return publisher.upgrade_group_name(self.upgrade_id)

    async def upgrade_changed(self, message: dict[str, Any]) -> None:
        await self._hinted()

    async def _state(self) -> tuple[Any, ...] | None:
        return await _upgrade_state(self.upgrade_id)

    def _progress_message(self, state: tuple[Any, ...]) -> Mapping[str, Any]:
        return publisher.upgrade_progress_message(*state)

    def _end_message(self, state: tuple[Any, ...]) -> Mapping[str, Any] | None:
        status, _done, _total, _what, error = state
        return publisher.upgrade_end_message(status, error) if status in UPGRADE_FINISHED else None


class FleetProgressConsumer(RowWatcher):
    async def _open(self) -> str:
        self.fleet_id = int(self.scope["url_route"]["kwargs"]["fleet_id"])
        await _authorize_fleet(self.scope, self.fleet_id)
        self.sent: list[tuple[int, str, int, int]] | str | None = None
        return publisher.fleet_group_name(self.fleet_id)

    async def upgrade_changed(self, message: dict[str, Any]) -> None:
        await self._hinted()

    async def _tick(self) -> bool:
        """Send the rows' states when one changed; True once every row finished (the end was sent)."""
        async with self.lock:
            if self.sent == "end":
                return True
            rows = await _fleet_state(self.fleet_id)
            if rows != self.sent:
                await self.send_json(publisher.fleet_progress_message(rows))
                self.sent = rows
            if all(status in UPGRADE_FINISHED for _pk, status, _done, _total in rows):
                await self.send_json(publisher.fleet_end_message())
                self.sent = "end"
                return True
        return False
