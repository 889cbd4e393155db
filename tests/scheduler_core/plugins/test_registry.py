"""plugins/registry.py: the in-tree registry the scheduler and configuration validation hand to
build_profile (plugins/registry.go's NewInTreeRegistry)."""

from __future__ import annotations

import pytest

from scheduler_core.framework.profile import DEFAULT_MULTI_POINT, EXTENSION_POINTS, build_profile, default_multi_point
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.release import rules_for
from scheduler_core.release.versions import release_named
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


# The extension points each in-tree plugin implements in v1.35 (the ``var _ fwk.XPlugin = &Plugin{}``
# assertions beside each plugin in pkg/scheduler/framework/plugins/). A plugin whose method name is
# misspelt drops out of its point here. DynamicResources is left out: issue 24 is building it.
UPSTREAM_POINTS = {
    "SchedulingGates": ["preEnqueue"],
    "PrioritySort": ["queueSort"],
    "NodeUnschedulable": ["filter"],
    "NodeName": ["filter"],
    "TaintToleration": ["filter", "preScore", "score"],
    "NodeAffinity": ["preFilter", "filter", "preScore", "score"],
    "NodePorts": ["preFilter", "filter"],
    "NodeResourcesFit": ["preFilter", "filter", "preScore", "score"],
    "VolumeRestrictions": ["preFilter", "filter"],
    "NodeVolumeLimits": ["preFilter", "filter"],
    "VolumeBinding": ["preFilter", "filter", "preScore", "score", "reserve", "preBind"],
    "VolumeZone": ["preFilter", "filter"],
    "PodTopologySpread": ["preFilter", "filter", "preScore", "score"],
    "InterPodAffinity": ["preFilter", "filter", "preScore", "score"],
    "DefaultPreemption": ["preEnqueue", "postFilter"],
    "NodeResourcesBalancedAllocation": ["preScore", "score"],
    "ImageLocality": ["score"],
    "DefaultBinder": ["bind"],
}


@pytest.mark.parametrize("plugin", list(UPSTREAM_POINTS))
def test_each_plugin_extends_the_points_the_release_declares_for_it(plugin):
    handle = FakeHandle(make_snapshot([make_node("n1")]))
    profile = build_profile(None, handle, in_tree_registry())
    points = [point for point, _ in EXTENSION_POINTS if any(p.name == plugin for p in profile[point])]
    assert points == UPSTREAM_POINTS[plugin]


def test_node_declared_features_is_registered_from_v1_35_and_in_the_defaults_with_its_gate():
    # registry.go registers it from v1.35 whatever the gate (New builds it disabled while it is off);
    # applyFeatureGates puts it in the default set only with the gate on.
    v1_34, v1_35, v1_36 = (rules_for(release_named(r)).features for r in ("v1.34", "v1.35", "v1.36"))
    assert "NodeDeclaredFeatures" not in in_tree_registry(v1_34)
    assert "NodeDeclaredFeatures" in in_tree_registry(v1_35)
    assert "NodeDeclaredFeatures" not in [ref.name for ref in default_multi_point(v1_35)]
    assert "NodeDeclaredFeatures" in in_tree_registry(
        rules_for(release_named("v1.35"), {"NodeDeclaredFeatures": True}).features
    )
    handle = FakeHandle(make_snapshot([make_node("n1")]))
    profile = build_profile(None, handle, in_tree_registry(v1_36), v1_36)
    points = [point for point, _ in EXTENSION_POINTS if any(p.name == "NodeDeclaredFeatures" for p in profile[point])]
    assert points == ["preFilter", "filter"]
