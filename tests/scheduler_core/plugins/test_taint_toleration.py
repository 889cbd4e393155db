import pytest

from scheduler_core.framework.cluster_events import QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status
from scheduler_core.model import Taint, Toleration
from scheduler_core.plugins import taint_toleration
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.plugins.scoring import run_scoring

UNTOLERATED = Status.unresolvable("node(s) had untolerated taint(s)")
DEDICATED = Taint("dedicated", "gpu", "NoSchedule")
EVICT = Taint("maintenance", "", "NoExecute")
PREFER = Taint("spot", "true", "PreferNoSchedule")


@pytest.mark.parametrize(
    "taints, tolerations, expected",
    [
        pytest.param((), (), None, id="an untainted node passes"),
        pytest.param((DEDICATED,), (), UNTOLERATED, id="an untolerated NoSchedule taint rejects the pod"),
        pytest.param((EVICT,), (), UNTOLERATED, id="an untolerated NoExecute taint rejects the pod"),
        pytest.param((PREFER,), (), None, id="a PreferNoSchedule taint never rejects"),
        pytest.param(
            (DEDICATED,),
            (Toleration("dedicated", "Equal", "gpu", "NoSchedule"),),
            None,
            id="a matching Equal toleration lets the pod in",
        ),
        pytest.param(
            (DEDICATED, EVICT),
            (Toleration("dedicated", "Exists"),),
            UNTOLERATED,
            id="every NoSchedule and NoExecute taint must be tolerated",
        ),
    ],
)
def test_taint_toleration_filter(taints, tolerations, expected):
    node = NodeInfo(make_node("n1", taints=taints))
    pod = make_pod("p", tolerations=tolerations)
    assert taint_toleration.new(None, None).filter(CycleState(), pod, node) == expected


@pytest.mark.parametrize(
    "node_taints, tolerations, raw, normalized",
    [
        pytest.param(
            [(), (PREFER,), (PREFER, Taint("b", "", "PreferNoSchedule"))],
            (),
            [0, 1, 2],
            [100, 50, 0],
            id="fewer intolerable PreferNoSchedule taints score higher",
        ),
        pytest.param([(), ()], (), [0, 0], [100, 100], id="nodes without such taints all score the maximum"),
        pytest.param(
            [(PREFER,), ()],
            (Toleration("spot", "Exists", "", "PreferNoSchedule"),),
            [0, 0],
            [100, 100],
            id="a PreferNoSchedule toleration removes the penalty",
        ),
        pytest.param(
            [(PREFER,), ()],
            (Toleration("spot", "Exists", "", "NoSchedule"),),
            [1, 0],
            [0, 100],
            id="a toleration for another effect does not count when scoring",
        ),
        pytest.param([(DEDICATED,), ()], (), [0, 0], [100, 100], id="NoSchedule taints are not counted when scoring"),
    ],
)
def test_taint_toleration_scores_intolerable_prefer_no_schedule_taints(node_taints, tolerations, raw, normalized):
    nodes = [NodeInfo(make_node(f"n{i}", taints=t)) for i, t in enumerate(node_taints)]
    pod = make_pod("p", tolerations=tolerations)
    assert run_scoring(taint_toleration.new(None, None), pod, nodes) == (None, raw, normalized)


# ------------------------------------------------------------------ queueing hints (the release's
# isSchedulableAfterNodeChange / isSchedulableAfterPodTolerationChange)

GPU_ONLY = Taint("dedicated", "gpu", "NoSchedule")
SOFT = Taint("soft", "", "PreferNoSchedule")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(None, make_node("n"), QueueingHint.QUEUE, id="a node added without taints"),
        pytest.param(None, make_node("n", taints=(GPU_ONLY,)), QueueingHint.QUEUE_SKIP, id="a node added with a taint"),
        pytest.param(
            None, make_node("n", taints=(SOFT,)), QueueingHint.QUEUE, id="a PreferNoSchedule taint does not repel"
        ),
        pytest.param(
            make_node("n", taints=(GPU_ONLY,)), make_node("n"), QueueingHint.QUEUE, id="the untolerated taint removed"
        ),
        pytest.param(make_node("n"), make_node("n", taints=(GPU_ONLY,)), QueueingHint.QUEUE_SKIP, id="a taint added"),
        pytest.param(
            make_node("n"), make_node("n", labels={"k": "v"}), QueueingHint.QUEUE_SKIP, id="tolerated before and after"
        ),
    ],
)
def test_only_a_node_losing_its_last_untolerated_taint_queues(old, new, expected):
    assert taint_toleration.node_changed_hint(make_pod("p"), old, new) is expected


def test_a_node_added_with_a_taint_the_pod_tolerates_queues():
    tolerating = make_pod("p", tolerations=(Toleration("dedicated", "Equal", "gpu", "NoSchedule"),))
    assert (
        taint_toleration.node_changed_hint(tolerating, None, make_node("n", taints=(GPU_ONLY,))) is QueueingHint.QUEUE
    )


def test_a_toleration_update_queues_the_rejected_pod_alone():
    pod = make_pod("p")
    assert taint_toleration.pod_toleration_changed_hint(pod, pod, make_pod("p")) is QueueingHint.QUEUE
    assert taint_toleration.pod_toleration_changed_hint(pod, None, make_pod("q")) is QueueingHint.QUEUE_SKIP


def test_before_v1_34_the_reason_names_the_first_untolerated_taint():
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    v133 = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == 33)).features
    node = NodeInfo(make_node("n1", taints=(PREFER, DEDICATED, EVICT)))
    status = taint_toleration.new(None, None, v133).filter(CycleState(), make_pod("p"), node)
    assert status == Status.unresolvable("node(s) had untolerated taint {dedicated: gpu}")
