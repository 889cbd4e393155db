"""plugins/registry.py: the in-tree registry the scheduler and configuration validation hand to
build_profile (plugins/registry.go's NewInTreeRegistry)."""

from __future__ import annotations

from scheduler_core.framework.profile import DEFAULT_MULTI_POINT
from scheduler_core.plugins.registry import in_tree_registry
from tests.scheduler_core.builders import FakeHandle, make_node, make_snapshot


def test_it_has_a_factory_for_every_default_plugin():
    assert {ref.name for ref in DEFAULT_MULTI_POINT} <= set(in_tree_registry())


def test_each_factory_builds_the_plugin_it_is_registered_under():
    handle = FakeHandle(make_snapshot([make_node("n1")]))
    for name, factory in in_tree_registry().items():
        assert factory(None, handle).name == name


def test_each_call_gives_a_copy_a_caller_may_change():
    mine = in_tree_registry()
    mine.pop(next(iter(mine)))
    assert len(in_tree_registry()) == len(mine) + 1
