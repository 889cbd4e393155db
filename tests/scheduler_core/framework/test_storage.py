from dataclasses import replace

from scheduler_core.framework.storage import StorageState
from scheduler_core.model import ClaimRef, StorageObjects
from tests.scheduler_core.builders import make_claim, make_volume

CLAIM = make_claim("c", storage_class="fast")


def state():
    return StorageState(
        StorageObjects(
            claims=[CLAIM],
            volumes=[
                make_volume("v1", storage_class="fast"),
                make_volume("v2", storage_class="slow"),
                make_volume("v3", storage_class="fast"),
            ],
        )
    )


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


def test_an_api_write_replaces_the_informer_object_and_expires_the_assumption():
    storage = state()
    storage.assume_claim(replace(CLAIM, annotations={"a": "b"}))
    written = replace(CLAIM, volume_name="v1")
    assert storage.put_claim(written) is CLAIM
    assert storage.assumed_claim("default/c") is written
    assert not storage.is_claim_assumed("default/c")


def test_a_new_volume_goes_to_the_end_of_the_list():
    storage = state()
    assert storage.put_volume(make_volume("v0", storage_class="fast")) is None
    assert [v.name for v in storage.volumes_of_class("fast")] == ["v1", "v3", "v0"]
