from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.plugins import default_binder
from tests.scheduler_core.builders import make_pod


def test_bind_records_the_node_and_succeeds():
    pod = make_pod("p")
    assert default_binder.new(None, None).bind(CycleState(), pod, "n1") is None
    assert pod.node_name == "n1"
