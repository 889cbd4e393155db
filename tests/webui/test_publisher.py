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
