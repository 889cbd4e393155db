"""/ws/runs/<id>/: stored events then live ones, every event exactly once and in order, then "end"."""

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tests.webui.websocket_support import APP, session_cookie
from webui import consumers, publisher
from webui.models import Run, RunSegment, RunStatus, Scenario, ScenarioVersion, ShareLink
from webui.services import engine

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def make_run(session_key: str, stored: int, status: str = RunStatus.RUNNING) -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key=session_key)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    names = engine.run_names_gz(engine.load(""))
    run = Run.objects.create(version=version, status=status, owner_session_key=session_key, names_gz=names)
    if stored:
        store(run.pk, range(stored))
    return run


def store(run_id: int, seqs) -> int:
    """Stores events with these seqs (cycle = seq // 10), one segment per cycle; returns one past the last."""
    names = engine.RunNames([], [])
    by_cycle: dict[int, list[int]] = {}
    for seq in seqs:
        by_cycle.setdefault(seq // 10, []).append(seq)
    for cycle, group in by_cycle.items():
        encoder = engine.SegmentEncoder(names, group[0])
        for seq in group:
            encoder.add_json(
                {"cycle": cycle, "pod": "default/p", "extensionPoint": "Filter", "plugin": "P", "payload": {"n": seq}}
            )
        RunSegment.objects.create(
            run_id=run_id, cycle=cycle, first_seq=group[0], end_seq=group[-1] + 1, blob=encoder.finish()
        )
    return max(seqs) + 1


@database_sync_to_async
def finish(run: Run) -> None:
    Run.objects.filter(pk=run.pk).update(status=RunStatus.SUCCEEDED)


async def connect(path: str, cookie: str = "") -> WebsocketCommunicator:
    headers = [(b"cookie", cookie.encode())] if cookie else []
    communicator = WebsocketCommunicator(APP, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def collect(communicator: WebsocketCommunicator) -> tuple[list[int], dict]:
    seqs = []
    while True:
        message = await communicator.receive_json_from(timeout=10)
        if message["type"] == "end":
            return seqs, message
        seqs += [e["seq"] for e in message["events"]]


@pytest.fixture
def session():
    return session_cookie()


async def test_it_sends_all_stored_events_then_end_for_a_finished_run(session):
    key, cookie = session
    run = await make_run(key, stored=1234, status=RunStatus.SUCCEEDED)
    communicator = await connect(f"/ws/runs/{run.pk}/?since=0", cookie)
    seqs, end = await collect(communicator)
    assert seqs == list(range(1234))
    assert end == {"type": "end", "status": "succeeded", "error": ""}
    await communicator.disconnect()


async def test_it_resumes_after_a_reconnect_without_gaps_or_duplicates(session):
    key, cookie = session
    run = await make_run(key, stored=30)
    first = await connect(f"/ws/runs/{run.pk}/?since=0", cookie)
    message = await first.receive_json_from(timeout=5)
    received = [e["seq"] for e in message["events"]]
    await first.disconnect()
    await database_sync_to_async(store)(run.pk, range(30, 60))
    await finish(run)
    second = await connect(f"/ws/runs/{run.pk}/?since={received[-1] + 1}", cookie)
    rest, end = await collect(second)
    assert received + rest == list(range(60))
    assert end["status"] == "succeeded"


async def test_it_reads_the_log_when_told_more_is_stored_and_repairs_lost_messages(session, monkeypatch):
    key, cookie = session
    monkeypatch.setattr(consumers, "POLL_SECONDS", 30)  # only live messages may deliver
    run = await make_run(key, stored=5)
    communicator = await connect(f"/ws/runs/{run.pk}/?since=0", cookie)
    assert [e["seq"] for e in (await communicator.receive_json_from(timeout=5))["events"]] == list(range(5))
    end = await database_sync_to_async(store)(run.pk, range(5, 8))
    await database_sync_to_async(publisher.publish_stored)(run.pk, end)
    assert [e["seq"] for e in (await communicator.receive_json_from(timeout=5))["events"]] == [5, 6, 7]
    # 8..9 are stored but their message is lost; the message for 10..11 brings them along.
    await database_sync_to_async(store)(run.pk, range(8, 10))
    end = await database_sync_to_async(store)(run.pk, range(10, 12))
    await database_sync_to_async(publisher.publish_stored)(run.pk, end)
    seqs = []
    while len(seqs) < 4:
        seqs += [e["seq"] for e in (await communicator.receive_json_from(timeout=5))["events"]]
    assert seqs == [8, 9, 10, 11]
    await database_sync_to_async(publisher.publish_stored)(run.pk, end)  # a duplicate delivery
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_it_delivers_events_written_by_another_process_by_polling_the_log(session):
    key, cookie = session
    run = await make_run(key, stored=0)
    communicator = await connect(f"/ws/runs/{run.pk}/", cookie)
    await database_sync_to_async(store)(run.pk, range(3))  # no channel message at all (embedded mode)
    await finish(run)
    seqs, end = await collect(communicator)
    assert seqs == [0, 1, 2] and end["status"] == "succeeded"


async def test_it_refuses_a_visitor_who_may_not_read_the_run(session):
    key, _ = session
    run = await make_run(key, stored=1)
    communicator = WebsocketCommunicator(APP, f"/ws/runs/{run.pk}/")
    connected, _ = await communicator.connect()
    assert not connected


async def test_it_accepts_a_share_token(session):
    key, _ = session
    run = await make_run(key, stored=2, status=RunStatus.SUCCEEDED)
    link = await database_sync_to_async(ShareLink.objects.create)(version_id=run.version_id, run=run)
    communicator = await connect(f"/ws/runs/{run.pk}/?token={link.token}")
    seqs, _ = await collect(communicator)
    assert seqs == [0, 1]


async def test_it_refuses_a_malformed_cursor(session):
    key, cookie = session
    run = await make_run(key, stored=1)
    communicator = WebsocketCommunicator(APP, f"/ws/runs/{run.pk}/?since=abc", headers=[(b"cookie", cookie.encode())])
    connected, _ = await communicator.connect()
    assert not connected
    await asyncio.sleep(0)


async def test_it_closes_when_the_run_is_deleted_while_watched(session):
    key, cookie = session
    run = await make_run(key, stored=1)
    communicator = await connect(f"/ws/runs/{run.pk}/", cookie)
    await communicator.receive_json_from(timeout=5)
    await database_sync_to_async(Scenario.objects.filter(pk=run.version.scenario_id).delete)()
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}


@database_sync_to_async
def abandon(run: Run) -> None:
    """The run's worker died: no heartbeat for longer than allowed, and no attempt left."""
    stale = timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 5)
    Run.objects.filter(pk=run.pk).update(
        heartbeat=stale, attempts=settings.SCHEDLAB_MAX_RUN_ATTEMPTS, claimed_by="gone"
    )


@database_sync_to_async
def read_through_the_api(run: Run, session_key: str) -> dict:
    client = Client()
    client.cookies["sessionid"] = session_key
    return client.get(f"/api/runs/{run.pk}").json()


async def test_it_only_relays_a_run_whose_worker_died_and_the_api_read_marks_it(session):
    key, cookie = session
    run = await make_run(key, stored=2)
    await abandon(run)
    communicator = await connect(f"/ws/runs/{run.pk}/", cookie)
    assert [e["seq"] for e in (await communicator.receive_json_from(timeout=5))["events"]] == [0, 1]
    # The consumer read the run before sending its events, and wrote nothing.
    assert (await database_sync_to_async(Run.objects.get)(pk=run.pk)).status == RunStatus.RUNNING
    assert (await read_through_the_api(run, key))["status"] == RunStatus.FAILED
    end = await communicator.receive_json_from(timeout=5)
    assert end["type"] == "end" and end["status"] == "failed" and "stopped responding" in end["error"]
    await communicator.disconnect()
