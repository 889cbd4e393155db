"""cluster/objects.py: storage and device objects written through the API — each call a write of
the cluster (a new version, a resourceVersion that equality ignores; none when nothing changes),
the scheduler's caches informed at once, a ClusterChange queued for the queue's hints (Add, Update
or Delete)."""

from __future__ import annotations

from dataclasses import replace

from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_CLAIM, KIND_RESOURCE_CLAIM
from scheduler_core.framework.cluster_events import ActionType, EventResource
from scheduler_core.backend.cache.snapshot import Snapshot
from tests.scheduler_core.builders import (
    make_claim,
    make_class,
    make_node,
    make_resource_claim,
    make_snapshot,
    make_volume,
    storage_snapshot,
)


def _told(snapshot: Snapshot) -> list[tuple[EventResource, ActionType]]:
    return [(change.event.resource, change.event.action) for change in snapshot.cluster_changes]


def test_resource_claim_writes_reach_the_cluster_then_the_cache_and_tell_the_queue():
    snapshot = make_snapshot([])
    writes = ObjectWrites(snapshot.api)
    claim = make_resource_claim("a", on=("gpu-0",), node="n1")
    first = writes.write_resource_claim(claim)
    assert snapshot.api.object(KIND_RESOURCE_CLAIM, "default/a") is first is snapshot.dra.claim("default", "a")
    second = writes.write_resource_claim(claim.deallocated())
    writes.delete_resource_claim("default/a")
    assert _told(snapshot) == [
        (EventResource.RESOURCE_CLAIM, ActionType.ADD),
        (EventResource.RESOURCE_CLAIM, ActionType.UPDATE),
        (EventResource.RESOURCE_CLAIM, ActionType.DELETE),
    ]
    assert snapshot.dra.claim("default", "a") is None and snapshot.api.object(KIND_RESOURCE_CLAIM, "default/a") is None
    assert (first.resource_version, second.resource_version) == (1, 2) and first == claim  # equality ignores it


def test_storage_writes_are_adds_then_updates_and_an_assumed_copy_expires():
    snapshot = storage_snapshot([make_node("n1")])
    writes = ObjectWrites(snapshot.api)
    claim = make_claim("data")
    writes.write_claim(claim)
    snapshot.storage.assume_claim(claim)
    written = writes.write_claim(replace(claim, volume_name="pv"))
    assert not snapshot.storage.is_claim_assumed(claim.key) and written.resource_version == 2
    writes.write_volume(make_volume("pv"))
    writes.write_storage_class(make_class("fast"))
    writes.delete_claim("default/data")
    assert _told(snapshot) == [
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.UPDATE),
        (EventResource.PERSISTENT_VOLUME, ActionType.ADD),
        (EventResource.STORAGE_CLASS, ActionType.ADD),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.DELETE),
    ]


def test_a_write_that_changes_nothing_is_no_write_and_returns_the_current_object():
    snapshot = storage_snapshot([make_node("n1")])
    writes = ObjectWrites(snapshot.api)
    first = writes.write_claim(make_claim("data"))
    again = writes.write_claim(make_claim("data"))
    assert again is first and snapshot.api.object(KIND_CLAIM, "default/data") is first
    assert _told(snapshot) == [(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)]
    assert snapshot.api.write_count == 1
