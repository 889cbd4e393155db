import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status
from scheduler_core.plugins import node_name
from tests.scheduler_core.builders import make_node, make_pod


@pytest.mark.parametrize(
    "pod_node, expected",
    [
        pytest.param("", None, id="a pod without nodeName fits any node"),
        pytest.param("n1", None, id="a pod naming the node fits it"),
        pytest.param(
            "n2",
            Status.unresolvable("node(s) didn't match the requested node name"),
            id="a pod naming another node does not fit",
        ),
    ],
)
def test_node_name_filter(pod_node, expected):
    pod = make_pod("p", node=pod_node)
    assert node_name.new(None, None).filter(CycleState(), pod, NodeInfo(make_node("n1"))) == expected
