"""/ws/uploads/<id>/ (webui/upload_consumer.py): a big upload's progress as its row changes (bytes read
of its size, the step, the objects), then "end" with the version it became; its uploader only."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tests.webui.websocket_support import APP, session_cookie
from webui import publisher
from webui.models import Scenario, ScenarioVersion, Upload, UploadStatus

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def make_upload(session_key: str) -> Upload:
    return Upload.objects.create(
        name="big", size=1000, status=UploadStatus.READING, what="reading big.json", owner_session_key=session_key
    )


@database_sync_to_async
def update(upload: Upload, **fields) -> None:
    Upload.objects.filter(pk=upload.pk).update(**fields)


@database_sync_to_async
def saved_as(upload: Upload) -> tuple[int, int]:
    scenario = Scenario.objects.create(name="big", owner_session_key=upload.owner_session_key)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    Upload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.SUCCEEDED, what="saved", bytes_read=1000, objects_read=7, scenario=scenario, version=version
    )
    return scenario.pk, version.number


async def connect(path: str, cookie: str = "") -> tuple[bool, WebsocketCommunicator]:
    communicator = WebsocketCommunicator(APP, path, headers=[(b"cookie", cookie.encode())] if cookie else [])
    connected, _ = await communicator.connect()
    return connected, communicator


def progress(status: str, what: str, bytes_read: int, objects_read: int = 0) -> dict:
    return {
        "type": "progress",
        "status": status,
        "what": what,
        "size": 1000,
        "bytesRead": bytes_read,
        "objectsRead": objects_read,
        "error": "",
    }


async def test_it_sends_the_progress_as_the_row_changes_then_the_end():
    key, cookie = await database_sync_to_async(session_cookie)()
    upload = await make_upload(key)
    connected, ws = await connect(f"/ws/uploads/{upload.pk}/", cookie)
    assert connected
    assert await ws.receive_json_from(timeout=10) == progress("reading", "reading big.json", 0)
    await update(upload, bytes_read=400)
    await database_sync_to_async(publisher.publish_upload)(upload.pk)
    assert await ws.receive_json_from(timeout=10) == progress("reading", "reading big.json", 400)
    scenario, version = await saved_as(upload)
    assert await ws.receive_json_from(timeout=10) == progress("succeeded", "saved", 1000, 7)
    assert await ws.receive_json_from(timeout=10) == {
        "type": "end",
        "status": "succeeded",
        "error": "",
        "scenario": scenario,
        "version": version,
    }
    assert (await ws.receive_output(timeout=10))["type"] == "websocket.close"


async def test_another_visitor_is_refused():
    key, _ = await database_sync_to_async(session_cookie)()
    _, other = await database_sync_to_async(session_cookie)()
    upload = await make_upload(key)
    connected, ws = await connect(f"/ws/uploads/{upload.pk}/", other)
    assert not connected
    connected, ws = await connect(f"/ws/uploads/{upload.pk + 1}/", other)
    assert not connected


async def test_an_upload_deleted_while_watched_closes_as_not_found():
    key, cookie = await database_sync_to_async(session_cookie)()
    upload = await make_upload(key)
    connected, ws = await connect(f"/ws/uploads/{upload.pk}/", cookie)
    assert connected
    assert await ws.receive_json_from(timeout=10) == progress("reading", "reading big.json", 0)
    await database_sync_to_async(Upload.objects.filter(pk=upload.pk).delete)()
    await database_sync_to_async(publisher.publish_upload)(upload.pk)
    closed = await ws.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4404}
