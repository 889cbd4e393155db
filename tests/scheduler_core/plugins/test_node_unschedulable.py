import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status
from scheduler_core.model import Toleration
from scheduler_core.plugins import node_unschedulable
from tests.scheduler_core.builders import make_node, make_pod

UNSCHEDULABLE = Status.unresolvable("node(s) were unschedulable")


@pytest.mark.parametrize(
    "unschedulable, tolerations, expected",
    [
        pytest.param(False, (), None, id="a schedulable node passes"),
        pytest.param(True, (), UNSCHEDULABLE, id="a cordoned node rejects a pod without tolerations"),
        pytest.param(
            True,
            (Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),),
            None,
            id="a pod tolerating the unschedulable taint fits a cordoned node",
        ),
        pytest.param(
            True, (Toleration("", "Exists"),), None, id="a tolerate-everything toleration fits a cordoned node"
        ),
        pytest.param(
            True,
            (Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute"),),
            UNSCHEDULABLE,
            id="a toleration for another effect does not help",
        ),
    ],
)
def test_node_unschedulable_filter(unschedulable, tolerations, expected):
    node = NodeInfo(make_node("n1", unschedulable=unschedulable))
    pod = make_pod("p", tolerations=tolerations)
    assert node_unschedulable.new(None, None).filter(CycleState(), pod, node) == expected
