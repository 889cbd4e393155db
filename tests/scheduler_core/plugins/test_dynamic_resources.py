from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.plugins import dynamic_resources
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.plugins.scoring import run_scoring


def test_a_pod_without_claims_is_skipped_at_pre_filter():
    assert dynamic_resources.new(None, None).pre_filter(CycleState(), make_pod("p"), []) == (None, SKIP)


def test_score_runs_without_pre_score_and_gives_zero():
    plugin = dynamic_resources.new(None, None)
    assert not hasattr(plugin, "pre_score")
    nodes = [NodeInfo(make_node("n1")), NodeInfo(make_node("n2"))]
    assert run_scoring(plugin, make_pod("p"), nodes) == (None, [0, 0], [0, 0])


def test_reserve_and_pre_bind_succeed_without_claims():
    plugin = dynamic_resources.new(None, None)
    state = CycleState()
    assert plugin.reserve(state, make_pod("p"), "n1") is None
    assert plugin.pre_bind(state, make_pod("p"), "n1") is None


def test_post_filter_after_its_pre_filter_has_no_claims_to_deallocate():
    plugin = dynamic_resources.new(None, None)
    state = CycleState()
    plugin.pre_filter(state, make_pod("p"), [])
    assert plugin.post_filter(state, make_pod("p"), None) == (None, Status.unschedulable("no new claims to deallocate"))


def test_post_filter_without_its_pre_filter_state_fails_with_not_found():
    """PreFilter stopped before DynamicResources ran: cycleState.Read's ErrNotFound, as an Error."""
    plugin = dynamic_resources.new(None, None)
    assert plugin.post_filter(CycleState(), make_pod("p"), None) == (None, Status.error("not found"))
