import pytest

from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource, QueueingHint
from scheduler_core.framework.profile import EXTENSION_POINTS, build_profile
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.framework.status import Status
from scheduler_core.plugins import scheduling_gates
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot


def test_a_pod_without_gates_may_enter_the_queue():
    assert scheduling_gates.new(None, None).pre_enqueue(make_pod("p")) is None


def test_a_gated_pod_waits_for_its_gates():
    gated = make_pod("p", scheduling_gates=("a", "b"))
    assert scheduling_gates.new(None, None).pre_enqueue(gated) == Status.unresolvable(
        "waiting for scheduling gates: [a b]"
    )


@pytest.mark.parametrize(
    "method",
    [
        "pre_filter",
        "filter",
        "pre_score",
        "score",
        "reserve",
        "permit",
        "pre_bind",
        "bind",
        "post_bind",
        "post_filter",
        "less",
    ],
)
def test_the_plugin_has_no_scheduling_cycle_extension_point(method):
    assert not hasattr(scheduling_gates.new(None, None), method)


def test_the_default_profile_runs_it_at_pre_enqueue_only():
    profile = build_profile(None, FakeHandle(make_snapshot([make_node("n1")])), in_tree_registry())
    points = [point for point, _ in EXTENSION_POINTS if any(p.name == "SchedulingGates" for p in profile[point])]
    assert points == ["preEnqueue"]


@pytest.mark.parametrize(
    "updated, hint",
    [
        pytest.param("p", QueueingHint.QUEUE, id="the pod's own gates removed requeue it"),
        pytest.param("other", QueueingHint.QUEUE_SKIP, id="another pod's gates do not"),
    ],
)
def test_it_requeues_only_when_the_pods_own_gates_are_eliminated(updated, hint):
    """isSchedulableAfterUpdatePodSchedulingGatesEliminated."""
    [registered] = scheduling_gates.new(None, None).events_to_register()
    assert registered.event == ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    assert registered.hint(make_pod("p"), None, make_pod(updated)) == hint
