"""/ws/capacity/<id>/ (webui/capacity_consumer.py): the question's progress each time its row
changes, then "end"; nobody but the asker may listen."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tests.webui.websocket_support import APP, session_cookie
from webui import publisher
from webui.models import CapacityQuestion, RunStatus, Scenario, ScenarioVersion

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
NO_PASS = {"method": "", "why": "", "copies": 0, "copiesPerSecond": None}


@database_sync_to_async
def make_question(session_key: str) -> CapacityQuestion:
    scenario = Scenario.objects.create(name="s", owner_session_key=session_key)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    return CapacityQuestion.objects.create(
        version=version,
        kind="fit",
        owner_session_key=session_key,
        status=RunStatus.RUNNING,
        trials_done=1,
        trials_estimate=5,
    )


@database_sync_to_async
def update(question: CapacityQuestion, **fields) -> None:
    CapacityQuestion.objects.filter(pk=question.pk).update(**fields)


async def connect(path: str, cookie: str) -> tuple[bool, WebsocketCommunicator]:
    communicator = WebsocketCommunicator(APP, path, headers=[(b"cookie", cookie.encode())])
    connected, _ = await communicator.connect()
    return connected, communicator


async def test_it_sends_progress_as_the_row_changes_then_the_end():
    key, cookie = await database_sync_to_async(session_cookie)()
    question = await make_question(key)
    connected, ws = await connect(f"/ws/capacity/{question.pk}/", cookie)
    assert connected
    assert await ws.receive_json_from(timeout=10) == {
        "type": "progress",
        "status": "running",
        "done": 1,
        "estimate": 5,
        "error": "",
        **NO_PASS,
    }
    await update(question, trials_done=3, trials_estimate=6)
    await database_sync_to_async(publisher.publish_capacity)(question.pk)
    assert await ws.receive_json_from(timeout=10) == {
        "type": "progress",
        "status": "running",
        "done": 3,
        "estimate": 6,
        "error": "",
        **NO_PASS,
    }
    await update(question, status=RunStatus.SUCCEEDED, trials_done=6)
    assert (await ws.receive_json_from(timeout=10))["done"] == 6
    assert await ws.receive_json_from(timeout=10) == {"type": "end", "status": "succeeded", "error": ""}
    assert (await ws.receive_output(timeout=10))["type"] == "websocket.close"


async def test_it_sends_the_one_pass_copies_and_rate_then_the_method_that_answered():
    key, cookie = await database_sync_to_async(session_cookie)()
    question = await make_question(key)
    await update(question, trials_done=0, trials_estimate=0, parameters={"pod": "default/p"})
    connected, ws = await connect(f"/ws/capacity/{question.pk}/", cookie)
    assert connected
    assert (await ws.receive_json_from(timeout=10))["copies"] == 0
    await update(question, copies_done=2000, copies_per_second=640.0)
    await database_sync_to_async(publisher.publish_capacity)(question.pk)
    assert await ws.receive_json_from(timeout=10) == {
        "type": "progress",
        "status": "running",
        "done": 0,
        "estimate": 0,
        "error": "",
        "method": "",
        "why": "",
        "copies": 2000,
        "copiesPerSecond": 640.0,
    }
    await update(
        question, status=RunStatus.SUCCEEDED, method="placed", why="not counted: anti-affinity", copies_done=2304
    )
    last = await ws.receive_json_from(timeout=10)
    assert (last["method"], last["why"], last["copies"]) == ("placed", "not counted: anti-affinity", 2304)
    assert (await ws.receive_json_from(timeout=10))["type"] == "end"


async def test_only_the_asker_may_listen():
    key, _ = await database_sync_to_async(session_cookie)()
    _, stranger = await database_sync_to_async(session_cookie)()
    question = await make_question(key)
    connected, ws = await connect(f"/ws/capacity/{question.pk}/", stranger)
    assert not connected
