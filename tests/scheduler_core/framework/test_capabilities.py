"""framework/capabilities.py: what each in-tree plugin offers beside its extension points, found
once per profile by protocol — and a misspelt method is no capability at all."""

from __future__ import annotations

from typing import ClassVar

import pytest

from scheduler_core.model import names
from scheduler_core.framework.capabilities import Capabilities
from scheduler_core.framework.profile import Profile, ProfileError, build_profile
from scheduler_core.plugins.registry import in_tree_registry
from tests.scheduler_core.builders import FakeHandle, make_node, make_snapshot


@pytest.fixture(scope="module")
def default_profile() -> Profile:
    return build_profile(None, FakeHandle(make_snapshot([make_node("n1")])), in_tree_registry())


@pytest.mark.parametrize(
    ("capability", "plugins"),
    [
        (
            "filter_batch",
            {
                names.NODE_UNSCHEDULABLE,
                names.NODE_NAME,
                names.TAINT_TOLERATION,
                names.NODE_AFFINITY,
                names.NODE_PORTS,
                names.NODE_RESOURCES_FIT,
                names.POD_TOPOLOGY_SPREAD,
                names.INTER_POD_AFFINITY,
                names.VOLUME_BINDING,
                names.NODE_VOLUME_LIMITS,
            },
        ),
        (
            "normalize_batch",
            {
                names.TAINT_TOLERATION,
                names.NODE_AFFINITY,
                names.POD_TOPOLOGY_SPREAD,
                names.INTER_POD_AFFINITY,
                names.DYNAMIC_RESOURCES,
            },
        ),
        ("pre_filter_picture", {names.POD_TOPOLOGY_SPREAD, names.DYNAMIC_RESOURCES}),
        ("pre_score_state", {names.POD_TOPOLOGY_SPREAD}),
        ("binding_state_json", {names.VOLUME_BINDING, names.DYNAMIC_RESOURCES}),
        ("node_picture", {names.DYNAMIC_RESOURCES}),
    ],
    ids=[
        "the filter fast paths",
        "the normalize fast paths",
        "PodTopologySpread's and DynamicResources' PreFilter pictures",
        "PodTopologySpread's typed PreScore state",
        "VolumeBinding and DynamicResources describe their binding steps",
        "DynamicResources says per node why it rejected it",
    ],
)
def test_the_default_profile_finds_each_capability_where_the_plugin_defines_it(default_profile, capability, plugins):
    offering = getattr(default_profile.capabilities, capability)
    assert set(offering) == plugins
    assert all(hasattr(plugin, capability) for plugin in offering.values())


def test_a_batch_for_some_pods_only_is_found_beside_the_batch(default_profile):
    sometimes = default_profile.capabilities.filter_batch_when
    assert set(sometimes) == {names.VOLUME_BINDING}, "VolumeBinding judges in batch the pods whose claims are bound"
    assert set(sometimes) <= set(default_profile.capabilities.filter_batch)
    assert all(hasattr(plugin, "judges_in_batch") for plugin in sometimes.values())


def test_queueing_hints_come_from_the_plugins_at_enqueue_points_only(default_profile):
    registered = dict(default_profile.capabilities.enqueue_extensions)
    assert names.IMAGE_LOCALITY not in registered, "a Score-only plugin registers no events"
    assert names.DEFAULT_BINDER not in registered
    assert names.SCHEDULING_GATES in registered and names.NODE_RESOURCES_FIT in registered
    assert all(ext is None or hasattr(ext, "events_to_register") for ext in registered.values())
    order = [name for name, _ in default_profile.capabilities.enqueue_extensions]
    assert order == [name for name in default_profile.instances if name in registered], "in the profile's order"


class Misspelt:
    name: ClassVar[str] = "Misspelt"

    def filter(self, state, pod, node_info):
        return None

    def filter_bacth(self, state, pod, table, positions):  # the typo a method-name lookup would hide
        return None

    def evnets_to_register(self):
        return []


def test_a_misspelt_capability_is_not_found_and_the_plugin_is_moved_by_every_event():
    capabilities = Capabilities.of({"Misspelt": Misspelt()})
    assert capabilities.filter_batch == {}
    assert capabilities.enqueue_extensions == [("Misspelt", None)]


def test_a_profile_refuses_a_plugin_that_does_not_implement_its_point():
    with pytest.raises(ProfileError) as refused:
        Profile.of({"score": [Misspelt()]}, {}, 100)
    assert refused.value.problems == [("plugins.score.enabled", 'plugin "Misspelt" does not extend score')]


def test_a_profile_refuses_an_unknown_point():
    with pytest.raises(ProfileError) as refused:
        Profile.of({"filtre": [Misspelt()]}, {}, 100)
    assert refused.value.problems == [("plugins.filtre", 'unknown extension point "filtre"')]
