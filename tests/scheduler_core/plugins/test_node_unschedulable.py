import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status
from scheduler_core.framework.cluster_events import QueueingHint
from scheduler_core.model import Taint, Toleration
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


# ------------------------------------------------------------------ queueing hints (upstream's
# TestIsSchedulableAfterNodeChange and the toleration hint, wrong-object cases aside)

NOT_READY = Taint("node.kubernetes.io/not-ready", "", "NoExecute")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(
            None, make_node("n", unschedulable=True), QueueingHint.QUEUE_SKIP, id="skip-unschedulable-node-added"
        ),
        pytest.param(None, make_node("n"), QueueingHint.QUEUE, id="queue-on-schedulable-node-added"),
        pytest.param(
            make_node("n", unschedulable=True),
            make_node("n", unschedulable=True, taints=(NOT_READY,)),
            QueueingHint.QUEUE_SKIP,
            id="skip-unrelated-change",
        ),
        pytest.param(
            make_node("n", unschedulable=True),
            make_node("n"),
            QueueingHint.QUEUE,
            id="queue-on-unschedulable-field-change",
        ),
        pytest.param(make_node("n"), make_node("n", unschedulable=True), QueueingHint.QUEUE_SKIP, id="skip-a-cordon"),
        pytest.param(
            make_node("n"),
            make_node("n", taints=(NOT_READY,)),
            QueueingHint.QUEUE_SKIP,
            id="skip-a-taint-on-a-schedulable-node",
        ),
    ],
)
def test_only_a_node_becoming_schedulable_queues(old, new, expected):
    assert node_unschedulable.node_changed_hint(make_pod("p"), old, new) is expected


TOLERATES_CORDON = (Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),)


@pytest.mark.parametrize(
    "updated, expected",
    [
        pytest.param(
            make_pod("p", tolerations=TOLERATES_CORDON), QueueingHint.QUEUE, id="the pod now tolerates the cordon"
        ),
        pytest.param(
            make_pod("p", tolerations=(Toleration("other", "Exists"),)),
            QueueingHint.QUEUE_SKIP,
            id="an unrelated toleration",
        ),
        pytest.param(make_pod("q", tolerations=TOLERATES_CORDON), QueueingHint.QUEUE_SKIP, id="another pod's update"),
    ],
)
def test_a_toleration_update_queues_only_the_pod_that_now_tolerates_the_cordon(updated, expected):
    assert node_unschedulable.pod_toleration_changed_hint(make_pod("p"), make_pod(updated.name), updated) is expected
