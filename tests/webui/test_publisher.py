"""webui.publisher: typed messages; one group message per stored batch."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from webui import publisher
from webui.models import Run, RunStatus


def test_it_builds_event_messages_in_the_public_shape():
    event = publisher.EventMessage(
        seq=3, cycle=0, pod="default/p", extensionPoint="Filter", plugin="NodeName", payload={"statuses": {}}
    )
    assert publisher.events_message([event]) == {
        "type": "events",
        "events": [
            {
                "seq": 3,
                "cycle": 0,
                "pod": "default/p",
                "extensionPoint": "Filter",
                "plugin": "NodeName",
                "payload": {"statuses": {}},
            }
        ],
    }


def test_it_builds_the_end_message():
    run = Run(status=RunStatus.FAILED, error="boom")
    assert publisher.end_message(run) == {"type": "end", "status": "failed", "error": "boom"}


@pytest.mark.skipif(
    "channels.layers.InMemoryChannelLayer" not in str(get_channel_layer().__class__), reason="needs the in-memory layer"
)
def test_it_tells_the_group_how_far_the_log_is_stored():
    def publish_and_receive() -> dict:
        layer = get_channel_layer()
        channel = async_to_sync(layer.new_channel)()
        async_to_sync(layer.group_add)(publisher.group_name(7), channel)
        publisher.publish_stored(7, 45)
        return async_to_sync(layer.receive)(channel)

    # A worker thread, as in Celery: another test (Playwright's sync API) may own this thread's loop.
    with ThreadPoolExecutor(1) as pool:
        message = pool.submit(publish_and_receive).result(timeout=10)
    assert message == {"type": "run.stored", "next": 45}


def message(seq: int, payload) -> publisher.EventMessage:
    return publisher.EventMessage(seq=seq, cycle=0, pod="p", extensionPoint="Filter", plugin="P", payload=payload)


def test_it_splits_a_batch_into_messages_daphne_will_send():
    batch = [message(seq, {"blob": "x" * 400}) for seq in range(10)]
    messages = list(publisher.websocket_messages(batch, budget=3000))
    assert len(messages) > 1
    assert all(len(json.dumps(m)) <= 3000 for m in messages)
    assert [e["seq"] for m in messages for e in m["events"]] == list(range(10))
    assert all(e["payload"] == {"blob": "x" * 400} for m in messages for e in m["events"])


def test_it_omits_a_payload_too_big_for_any_message():
    [only] = list(publisher.websocket_messages([message(4, {"blob": "x" * 5000})], budget=1000))
    assert only["events"] == [
        {
            "seq": 4,
            "cycle": 0,
            "pod": "p",
            "extensionPoint": "Filter",
            "plugin": "P",
            "payload": None,
            "payloadOmitted": True,
        }
    ]


def test_capacity_progress_never_estimates_fewer_trials_than_done():
    assert publisher.capacity_progress_message("running", 7, 5, "") == {
        "type": "progress",
        "status": "running",
        "done": 7,
        "estimate": 7,
        "error": "",
        "method": "",
        "why": "",
        "copies": 0,
        "copiesPerSecond": None,
    }
    assert publisher.capacity_end_message("cancelled", "cancelled by the owner") == {
        "type": "end",
        "status": "cancelled",
        "error": "cancelled by the owner",
    }
    assert publisher.capacity_group_name(3) != publisher.group_name(3)


def test_capacity_progress_carries_the_one_pass_state():
    message = publisher.capacity_progress_message(
        "running", 0, 0, "", "placed", "not counted: anti-affinity", 3000, 812.5
    )
    assert {k: message[k] for k in ("method", "why", "copies", "copiesPerSecond")} == {
        "method": "placed",
        "why": "not counted: anti-affinity",
        "copies": 3000,
        "copiesPerSecond": 812.5,
    }
    assert set(message) == set(publisher.CapacityProgressMessage.__annotations__)


def test_upgrade_messages_say_the_progress_and_the_end_and_a_fleet_s_rows():
    assert publisher.upgrade_progress_message("running", 2, 6, "v1.36.3", "") == {
        "type": "progress",
        "status": "running",
        "done": 2,
        "total": 6,
        "what": "v1.36.3",
        "error": "",
    }
    assert publisher.upgrade_end_message("failed", "boom") == {"type": "end", "status": "failed", "error": "boom"}
    assert publisher.fleet_progress_message([(4, "queued", 0, 0), (5, "succeeded", 6, 6)]) == {
        "type": "progress",
        "rows": [
            {"upgrade": 4, "status": "queued", "done": 0, "total": 0},
            {"upgrade": 5, "status": "succeeded", "done": 6, "total": 6},
        ],
    }
    assert publisher.fleet_end_message() == {"type": "end"}
    assert len({publisher.upgrade_group_name(3), publisher.fleet_group_name(3), publisher.group_name(3)}) == 3


@pytest.mark.skipif(
    "channels.layers.InMemoryChannelLayer" not in str(get_channel_layer().__class__), reason="needs the in-memory layer"
)
def test_an_upgrade_s_change_is_told_to_its_watchers_and_its_fleet_s():
    def publish_and_receive() -> tuple[dict, dict]:
        layer = get_channel_layer()
        mine, fleet = async_to_sync(layer.new_channel)(), async_to_sync(layer.new_channel)()
        async_to_sync(layer.group_add)(publisher.upgrade_group_name(8), mine)
        async_to_sync(layer.group_add)(publisher.fleet_group_name(2), fleet)
        publisher.publish_upgrade(8, 2)
        return async_to_sync(layer.receive)(mine), async_to_sync(layer.receive)(fleet)

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(publish_and_receive).result(timeout=10) == (
            {"type": "upgrade.changed"},
            {"type": "upgrade.changed"},
        )


def test_upload_messages_say_the_bytes_read_and_the_end_with_the_version():
    assert publisher.upload_progress_message("reading", "reading a.json", 100, 40, 0, "") == {
        "type": "progress",
        "status": "reading",
        "what": "reading a.json",
        "size": 100,
        "bytesRead": 40,
        "objectsRead": 0,
        "error": "",
    }
    assert publisher.upload_end_message("succeeded", "", 4, 1) == {
        "type": "end",
        "status": "succeeded",
        "error": "",
        "scenario": 4,
        "version": 1,
    }
    assert publisher.upload_group_name(3) not in {publisher.upgrade_group_name(3), publisher.group_name(3)}
