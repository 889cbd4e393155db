from dataclasses import replace

import pytest

from scheduler_core.framework.storage import StorageState
from scheduler_core.model import ClaimRef, CSIStorageCapacity
from tests.scheduler_core.builders import make_claim, make_volume

CLAIM = make_claim("c", storage_class="fast")


def state():
    """The caches as their informers fill them: the API server's list, one object at a time."""
    storage = StorageState()
    for obj in (
        CLAIM,
        make_volume("v1", storage_class="fast"),
        make_volume("v2", storage_class="slow"),
        make_volume("v3", storage_class="fast"),
    ):
        storage.informed(None, obj)
    return storage


def test_volumes_of_a_class_are_listed_in_document_order():
    assert [v.name for v in state().volumes_of_class("fast")] == ["v1", "v3"]


def test_an_assumed_volume_is_seen_through_the_assume_cache_only():
    storage = state()
    assumed = replace(storage.volume("v1"), claim_ref=ClaimRef("default", "c", "uid-c"))
    storage.assume_volume(assumed)
    assert storage.assumed_volume("v1") is assumed
    assert storage.volumes_of_class("fast")[0] is assumed
    assert storage.volume("v1").claim_ref is None  # the informer (lister) object is unchanged
    storage.restore_volume("v1")
    assert storage.assumed_volume("v1").claim_ref is None


def test_an_informer_update_replaces_the_informer_object_and_expires_the_assumption():
    storage = state()
    storage.assume_claim(replace(CLAIM, annotations={"a": "b"}))
    written = replace(CLAIM, volume_name="v1")
    storage.informed(CLAIM, written)
    assert storage.claims["default/c"] is written and storage.assumed_claim("default/c") is written
    assert not storage.is_claim_assumed("default/c")


def test_a_new_volume_goes_to_the_end_of_the_list_and_a_deleted_one_leaves_it():
    storage = state()
    storage.informed(None, make_volume("v0", storage_class="fast"))
    storage.informed(storage.volume("v1"), None)
    assert [v.name for v in storage.volumes_of_class("fast")] == ["v3", "v0"]


def test_the_lists_kinds_are_tuples_that_follow_their_informer():
    storage = StorageState()
    capacity = CSIStorageCapacity("default", "cap", "fast")
    storage.informed(None, capacity)
    assert storage.capacities == (capacity,)
    storage.informed(capacity, None)
    assert storage.capacities == ()


def test_outsiders_read_the_caches_and_cannot_write_them():
    """Only the informers write the caches (framework/storage.py): the views refuse a write."""
    storage = state()
    with pytest.raises(TypeError):
        storage.claims["default/x"] = CLAIM  # type: ignore[index]
    with pytest.raises(TypeError):
        del storage.volumes["v1"]  # type: ignore[attr-defined]
    assert not hasattr(storage.claims, "pop") and not hasattr(storage.capacities, "append")
