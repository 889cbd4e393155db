import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP
from scheduler_core.plugins import volumes
from tests.scheduler_core.builders import make_pod

FACTORIES = [
    pytest.param(volumes.new_volume_restrictions, id="VolumeRestrictions"),
    pytest.param(volumes.new_node_volume_limits, id="NodeVolumeLimits"),
    pytest.param(volumes.new_volume_binding, id="VolumeBinding"),
    pytest.param(volumes.new_volume_zone, id="VolumeZone"),
]


@pytest.mark.parametrize("factory", FACTORIES)
def test_a_pod_without_volumes_is_skipped_at_pre_filter(factory):
    assert factory(None, None).pre_filter(CycleState(), make_pod("p"), []) == (None, SKIP)


def test_volume_binding_is_a_score_plugin_skipped_at_pre_score():
    plugin = volumes.new_volume_binding(None, None)
    assert hasattr(plugin, "score")
    assert plugin.pre_score(CycleState(), make_pod("p"), []) == SKIP


def test_volume_binding_reserves_and_pre_binds_a_pod_without_volumes():
    plugin = volumes.new_volume_binding(None, None)
    state = CycleState()
    pod = make_pod("p")
    plugin.pre_filter(state, pod, [])
    assert plugin.reserve(state, pod, "n1") is None
    assert plugin.pre_bind(state, pod, "n1") is None
