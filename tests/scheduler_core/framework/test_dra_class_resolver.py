"""The DRA manager's DeviceClassResolver (extendedresourcecache.go), as the informer feeds it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from scheduler_core.framework.dra_class_resolver import DEVICE_CLASS_PREFIX, ExtendedResourceCache
from scheduler_core.model import DeviceClass

EARLY = datetime(2026, 1, 1, tzinfo=timezone.utc)
LATE = datetime(2026, 2, 1, tzinfo=timezone.utc)


def test_a_class_stands_for_its_extended_resource_and_its_implicit_name():
    cache = ExtendedResourceCache()
    gpu = DeviceClass("gpu", extended_resource_name="example.com/gpu")
    cache.informed(None, gpu)
    assert cache.device_class("example.com/gpu") is gpu
    assert cache.device_class(DEVICE_CLASS_PREFIX + "gpu") is gpu
    assert cache.device_class("example.com/fpga") is None


def test_the_newer_class_keeps_the_name_and_the_loser_is_not_recorded_at_all():
    cache = ExtendedResourceCache()
    new = DeviceClass("b", extended_resource_name="example.com/gpu", created=LATE)
    old = DeviceClass("a", extended_resource_name="example.com/gpu", created=EARLY)
    cache.informed(None, new)
    cache.informed(None, old)
    assert cache.device_class("example.com/gpu") is new
    assert cache.device_class(DEVICE_CLASS_PREFIX + "a") is None  # not even its implicit name


def test_at_the_same_time_the_smaller_name_wins_and_a_class_without_a_time_is_newest():
    cache = ExtendedResourceCache()
    cache.informed(None, DeviceClass("b", extended_resource_name="x.io/r", created=EARLY))
    a = DeviceClass("a", extended_resource_name="x.io/r", created=EARLY)
    cache.informed(None, a)
    assert cache.device_class("x.io/r") is a
    written = DeviceClass("z", extended_resource_name="x.io/r")
    cache.informed(None, written)
    assert cache.device_class("x.io/r") is written


def test_an_update_that_keeps_the_name_keeps_the_first_object_and_a_delete_frees_the_name():
    cache = ExtendedResourceCache()
    first = DeviceClass("gpu", ("true",), extended_resource_name="example.com/gpu")
    cache.informed(None, first)
    updated = replace(first, selectors=("false",))
    cache.informed(first, updated)
    assert cache.device_class("example.com/gpu") is first
    renamed = replace(first, extended_resource_name="example.com/accel")
    cache.informed(first, renamed)
    assert cache.device_class("example.com/gpu") is None and cache.device_class("example.com/accel") is renamed
    cache.informed(renamed, None)
    assert cache.device_class("example.com/accel") is None and cache.device_class(DEVICE_CLASS_PREFIX + "gpu") is None
