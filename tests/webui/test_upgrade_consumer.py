"""/ws/upgrades/<id>/ and /ws/fleet/<id>/ (webui/upgrade_consumer.py): an upgrade comparison's progress as
its row changes, then "end" (its asker or its share link); a fleet check's rows' states as one changes,
then "end" once every row finished (its asker only)."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tests.webui.websocket_support import APP, session_cookie
from webui import publisher
from webui.models import FleetCheck, Scenario, ScenarioVersion, ShareLink, Upgrade, UpgradeStatus

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def make_upgrade(session_key: str, fleet: FleetCheck | None = None) -> Upgrade:
    scenario = Scenario.objects.create(name="s", owner_session_key=session_key)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    return Upgrade.objects.create(
        version=version,
        fleet=fleet,
        old_release="v1.35",
        new_release="v1.36",
        owner_session_key=session_key,
        status=UpgradeStatus.RUNNING,
        done=1,
        total=6,
        what="v1.35.4",
    )


@database_sync_to_async
def make_fleet(session_key: str) -> FleetCheck:
    return FleetCheck.objects.create(target="v1.36", owner_session_key=session_key)


@database_sync_to_async
def update(upgrade: Upgrade, **fields) -> None:
    Upgrade.objects.filter(pk=upgrade.pk).update(**fields)


@database_sync_to_async
def share_link(upgrade: Upgrade) -> str:
    return ShareLink.objects.create(version=upgrade.version, upgrade=upgrade).token


async def connect(path: str, cookie: str = "") -> tuple[bool, WebsocketCommunicator]:
    communicator = WebsocketCommunicator(APP, path, headers=[(b"cookie", cookie.encode())] if cookie else [])
    connected, _ = await communicator.connect()
    return connected, communicator


async def test_it_sends_the_progress_as_the_row_changes_then_the_end():
    key, cookie = await database_sync_to_async(session_cookie)()
    upgrade = await make_upgrade(key)
    connected, ws = await connect(f"/ws/upgrades/{upgrade.pk}/", cookie)
    assert connected
    assert await ws.receive_json_from(timeout=10) == {
        "type": "progress",
        "status": "running",
        "done": 1,
        "total": 6,
        "what": "v1.35.4",
        "error": "",
    }
    await update(upgrade, done=2, what="v1.36.3")
    await database_sync_to_async(publisher.publish_upgrade)(upgrade.pk)
    assert (await ws.receive_json_from(timeout=10))["done"] == 2
    await update(upgrade, status=UpgradeStatus.SUCCEEDED, done=6)
    assert (await ws.receive_json_from(timeout=10))["done"] == 6
    assert await ws.receive_json_from(timeout=10) == {"type": "end", "status": "succeeded", "error": ""}
    assert (await ws.receive_output(timeout=10))["type"] == "websocket.close"


async def test_its_share_link_may_watch_and_a_stranger_may_not():
    key, _ = await database_sync_to_async(session_cookie)()
    _, stranger = await database_sync_to_async(session_cookie)()
    upgrade = await make_upgrade(key)
    connected, _ws = await connect(f"/ws/upgrades/{upgrade.pk}/", stranger)
    assert not connected
    token = await share_link(upgrade)
    connected, ws = await connect(f"/ws/upgrades/{upgrade.pk}/?token={token}")
    assert connected and (await ws.receive_json_from(timeout=10))["type"] == "progress"
    await ws.disconnect()


async def test_a_fleet_check_s_rows_are_sent_as_one_changes_then_the_end():
    key, cookie = await database_sync_to_async(session_cookie)()
    _, stranger = await database_sync_to_async(session_cookie)()
    fleet = await make_fleet(key)
    first, second = await make_upgrade(key, fleet), await make_upgrade(key, fleet)
    connected, _ws = await connect(f"/ws/fleet/{fleet.pk}/", stranger)
    assert not connected
    connected, ws = await connect(f"/ws/fleet/{fleet.pk}/", cookie)
    assert connected
    assert await ws.receive_json_from(timeout=10) == {
        "type": "progress",
        "rows": [
            {"upgrade": first.pk, "status": "running", "done": 1, "total": 6},
            {"upgrade": second.pk, "status": "running", "done": 1, "total": 6},
        ],
    }
    await update(first, status=UpgradeStatus.SUCCEEDED, done=6)
    await database_sync_to_async(publisher.publish_upgrade)(first.pk, fleet.pk)
    assert (await ws.receive_json_from(timeout=10))["rows"][0]["status"] == "succeeded"
    await update(second, status=UpgradeStatus.SKIPPED)
    assert (await ws.receive_json_from(timeout=10))["rows"][1]["status"] == "skipped"
    assert await ws.receive_json_from(timeout=10) == {"type": "end"}
