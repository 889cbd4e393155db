from types import SimpleNamespace

import pytest

from scheduler_core.framework.profile import build_profile
from scheduler_core.framework.status import Status
from scheduler_core.plugins import scheduling_gates
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot


def test_a_pod_without_gates_may_enter_the_queue():
    assert scheduling_gates.new(None, None).pre_enqueue(make_pod("p")) is None


def test_a_gated_pod_waits_for_its_gates():
    # Our Pod model has no schedulingGates field; a stand-in carrying one shows the message.
    gated = SimpleNamespace(scheduling_gates=("a", "b"))
    assert scheduling_gates.new(None, None).pre_enqueue(gated) == Status.unresolvable(
        "waiting for scheduling gates: [a b]")


@pytest.mark.parametrize("method", ["pre_filter", "filter", "pre_score", "score", "reserve", "permit",
                                    "pre_bind", "bind", "post_bind", "post_filter", "less"])
def test_the_plugin_has_no_scheduling_cycle_extension_point(method):
    assert not hasattr(scheduling_gates.new(None, None), method)


def test_the_default_profile_builds_with_the_plugin_in_it():
    profile = build_profile(None, FakeHandle(make_snapshot([make_node("n1")])))
    assert "SchedulingGates" in profile.instances
    assert all(p.name != "SchedulingGates" for plugins in profile.plugins.values() for p in plugins)
