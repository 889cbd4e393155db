"""Profiles from KubeSchedulerConfiguration: v1 merge, MultiPoint expansion, weights."""

from __future__ import annotations

import pytest

from scheduler_core.framework import profile as profile_module
from scheduler_core.framework.profile import ProfileError, build_profile, merge_plugin_set
from scheduler_core.model import PluginRef, PluginSet, SchedulerConfig, names
from scheduler_core.release import SUPPORTED_RELEASES, rules_for


class _Plugin:
    def __init__(self, name, methods):
        self.name = name
        for method in methods:
            setattr(self, method, lambda *a, **k: None)
        if "pre_filter" in methods:  # the PreFilter protocol asks for its extensions too
            self.pre_filter_extensions = lambda: None


def _registry():
    shapes = {
        "Sort": ("less",),
        "Fit": ("pre_filter", "filter", "pre_score", "score"),
        "Taints": ("filter", "score"),
        "Spread": ("pre_filter", "filter", "pre_score", "score"),
        "Binder": ("bind",),
        "Extra": ("filter",),
    }
    return {name: (lambda args, handle, n=name, m=methods: _Plugin(n, m)) for name, methods in shapes.items()}


# The real function, kept before the fixture below replaces it for the other tests.
REAL_DEFAULT_MULTI_POINT = profile_module.default_multi_point

DEFAULTS = (PluginRef("Sort"), PluginRef("Fit", 1), PluginRef("Taints", 3), PluginRef("Spread", 2), PluginRef("Binder"))


@pytest.fixture(autouse=True)
def small_defaults(monkeypatch):
    monkeypatch.setattr("scheduler_core.framework.profile.default_multi_point", lambda features: DEFAULTS)


def _names(profile, point):
    return [p.name for p in profile[point]]


def _config(**plugins):
    return SchedulerConfig(percentage_of_nodes_to_score=100, plugins=plugins)


def test_the_default_profile_expands_multipoint_in_order():
    profile = build_profile(None, None, _registry())
    assert _names(profile, "filter") == ["Fit", "Taints", "Spread"]
    assert profile.weights == {"Fit": 1, "Taints": 3, "Spread": 2}
    assert profile.percentage_of_nodes_to_score == 0  # the release's default: the adaptive share


def test_disabling_a_plugin_at_one_point_keeps_it_elsewhere():
    profile = build_profile(_config(score=PluginSet(disabled=(PluginRef("Spread"),))), None, _registry())
    assert _names(profile, "score") == ["Fit", "Taints"]
    assert _names(profile, "preScore") == ["Fit", "Spread"]


def test_a_point_specific_enable_overrides_multipoint_order_and_weight():
    config = _config(score=PluginSet(enabled=(PluginRef("Spread", 7),)))
    profile = build_profile(config, None, _registry())
    assert _names(profile, "score") == ["Spread", "Fit", "Taints"]
    assert profile.weights["Spread"] == 7


def test_an_unset_weight_on_a_point_specific_enable_counts_as_one():
    profile = build_profile(_config(score=PluginSet(enabled=(PluginRef("Taints"),))), None, _registry())
    assert profile.weights["Taints"] == 1


def test_disabling_star_drops_every_default_at_that_point():
    config = _config(filter=PluginSet(enabled=(PluginRef("Extra"),), disabled=(PluginRef("*"),)))
    assert _names(build_profile(config, None, _registry()), "filter") == ["Extra"]


def test_it_rejects_an_unknown_plugin():
    with pytest.raises(ProfileError) as err:
        build_profile(_config(filter=PluginSet(enabled=(PluginRef("Nope"),))), None, _registry())
    assert ("plugins", 'unknown plugin "Nope"') in err.value.problems


def test_it_rejects_a_plugin_enabled_at_a_point_it_does_not_extend():
    with pytest.raises(ProfileError) as err:
        build_profile(_config(bind=PluginSet(enabled=(PluginRef("Fit"),))), None, _registry())
    assert any("does not extend bind" in message for _, message in err.value.problems)


def test_a_configuration_without_percentage_is_adaptive():
    profile = build_profile(SchedulerConfig(), None, _registry())
    assert profile.percentage_of_nodes_to_score == 0


def test_merge_replaces_a_default_in_place_and_appends_new_plugins():
    merged = merge_plugin_set(
        PluginSet((PluginRef("A", 1), PluginRef("B", 2))), PluginSet((PluginRef("C"), PluginRef("A", 5)))
    )
    assert merged.enabled == (PluginRef("A", 5), PluginRef("B", 2), PluginRef("C"))


@pytest.mark.parametrize("minor", [32, 33, 34, 35, 36])
def test_each_release_places_its_gated_plugins_as_its_apply_feature_gates_does(minor):
    # getDefaultPlugins + applyFeatureGates: NodeDeclaredFeatures appended with its gate (on by
    # default in v1.36); DynamicResources only with DynamicResourceAllocation on (v1.34 on by
    # default), just before DefaultPreemption, weighted 2 once it scores (v1.35).
    release = next(r for r in SUPPORTED_RELEASES if r.minor == minor)
    expected = list(profile_module.BASE_MULTI_POINT)
    if minor >= 36:
        expected.append(PluginRef(names.NODE_DECLARED_FEATURES))
    if minor >= 34:
        at = [r.name for r in expected].index(names.DEFAULT_PREEMPTION)
        expected.insert(at, PluginRef(names.DYNAMIC_RESOURCES, 2 if minor >= 35 else None))
    assert REAL_DEFAULT_MULTI_POINT(rules_for(release).features) == tuple(expected)


def test_node_declared_features_comes_last_with_its_gate_on_in_v1_35():
    release = next(r for r in SUPPORTED_RELEASES if r.minor == 35)
    assert names.NODE_DECLARED_FEATURES not in [r.name for r in REAL_DEFAULT_MULTI_POINT(rules_for(release).features)]
    rules = rules_for(release, {"NodeDeclaredFeatures": True})
    assert REAL_DEFAULT_MULTI_POINT(rules.features)[-1] == PluginRef(names.NODE_DECLARED_FEATURES)


def test_a_gate_turned_on_brings_dynamic_resources_into_an_older_release():
    release = next(r for r in SUPPORTED_RELEASES if r.minor == 33)
    rules = rules_for(release, {"DynamicResourceAllocation": True})
    assert PluginRef(names.DYNAMIC_RESOURCES) in REAL_DEFAULT_MULTI_POINT(rules.features)
