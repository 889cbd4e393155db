from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import SKIP
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
