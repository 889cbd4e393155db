"""The DaemonSet stand-in: NodeShouldRunDaemonPod, the tolerations AddOrUpdateDaemonPodTolerations
adds, ReplaceDaemonSetPodNodeNameNodeAffinity's matchFields term, and rollingUpdate of a changed
template (maxUnavailable; OnDelete)."""

from __future__ import annotations

import pytest

from scheduler_core.cluster.controllers import daemonset
from scheduler_core.cluster.controllers.state import DeletePod
from scheduler_core.model import Taint
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_node


def agent(**template):
    spec = {"containers": [{"name": "c"}], **template}
    return controlled_workload("DaemonSet", "agent", template_spec=spec)


@pytest.mark.parametrize(
    "template, node, should_run, keeps_running",
    [
        pytest.param({}, make_node("n"), True, True, id="a plain node runs the daemon pod"),
        pytest.param(
            {"nodeSelector": {"disk": "ssd"}}, make_node("n"), False, False, id="node selector does not match"
        ),
        pytest.param(
            {},
            make_node("n", taints=[Taint("dedicated", "db", "NoSchedule")]),
            False,
            True,
            id="an untolerated NoSchedule taint: not scheduled, but an existing pod keeps running",
        ),
        pytest.param(
            {},
            make_node("n", taints=[Taint("dedicated", "db", "NoExecute")]),
            False,
            False,
            id="an untolerated NoExecute taint: not scheduled, not kept",
        ),
        pytest.param(
            {},
            make_node("n", taints=[Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")]),
            True,
            True,
            id="the unschedulable taint is tolerated by every daemon pod",
        ),
        pytest.param({}, make_node("n", unschedulable=True), True, True, id="a cordoned node still runs daemon pods"),
    ],
)
def test_node_should_run_daemon_pod(template, node, should_run, keeps_running):
    daemon_set = agent(**template)
    state = cluster_state(nodes=[node], workloads=[daemon_set])
    verdict = daemonset.should_run(daemon_set, node, daemonset._template_pod(state, daemon_set))
    assert (verdict.should_run, verdict.should_continue_running) == (should_run, keeps_running)


def test_it_pins_each_daemon_pod_to_its_node_with_a_match_fields_term():
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become metadata.name In [node]."""
    daemon_set = agent(
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "os", "operator": "In", "values": ["linux"]}]}]
                }
            }
        }
    )
    spec = daemonset.daemon_pod_spec(daemon_set, "n7")
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}]}]
    assert {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"} in spec[
        "tolerations"
    ]


def test_it_creates_pods_in_node_order_and_deletes_the_pod_of_a_node_that_is_gone():
    daemon_set = agent()
    state = cluster_state(nodes=[make_node("b"), make_node("a")], workloads=[daemon_set])
    assert [w.pod.name for w in daemon_set_writes(state, daemon_set)] == ["agent-b", "agent-a"]
    state.nodes.pop(0)
    [gone] = daemon_set_writes(state, daemon_set)
    assert gone.pod.name == "agent-b" and gone.graceful is False


def daemon_set_writes(state, daemon_set):
    return daemonset.reconcile(state, daemon_set)


# ---------------------------------------------------------------------------- template changes (rollingUpdate)


def _running_agent(nodes: int, update_strategy: dict | None = None):
    """A DaemonSet whose pods run on every node, then its template changed."""
    daemon = controlled_workload("DaemonSet", "agent")
    if update_strategy is not None:
        daemon.manifest = {"spec": {"updateStrategy": update_strategy}}
    state = cluster_state(nodes=[make_node(f"n{i}") for i in range(1, nodes + 1)], workloads=[daemon])
    for write in daemonset.reconcile(state, daemon):
        write.pod.node_name = write.pod.name.split("-", 1)[1]
    daemon.template = {
        "metadata": {"labels": {"app": "agent"}},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
    }
    return daemon, state


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        pytest.param(
            None, ["agent-n1"], id="the default maxUnavailable of 1 replaces one node at a time in node order"
        ),
        pytest.param(
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%"}},
            ["agent-n1", "agent-n2"],
            id="half of 3 nodes rounds up to 2",
        ),
        pytest.param(
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
            ["agent-n1-2"],
            id="maxSurge 1 makes one new pod beside the first node's old one",
        ),
        pytest.param({"type": "OnDelete"}, [], id="OnDelete replaces nothing"),
    ],
)
def test_a_template_change_deletes_old_pods_as_rolling_update_does(strategy, expected):
    daemon, state = _running_agent(3, strategy)
    assert [w.pod.name for w in daemonset.reconcile(state, daemon)] == expected


def test_a_terminating_old_pod_counts_as_an_unavailable_node():
    """The release would already run its replacement, not yet available: no second delete."""
    daemon, state = _running_agent(3)
    [first] = daemonset.reconcile(state, daemon)
    first.pod.deletion_timestamp = state.epoch
    assert daemonset.reconcile(state, daemon) == []


def test_an_old_pod_that_is_not_available_is_replaced_and_counted_against_the_budget():
    """allowedReplacementPods: a pending old pod goes at once, and counts as unavailable
    (numUnavailable++), so with maxUnavailable 1 no available old pod goes with it."""
    daemon, state = _running_agent(3)
    state.owned_pods(daemon)[2].node_name = ""
    assert [w.pod.name for w in daemonset.reconcile(state, daemon)] == ["agent-n3"]
    status = daemonset.rollout_status(state, daemon)
    assert (status.desired, status.updated, status.available, status.complete) == (3, 0, 2, False)


def _surge_agent():
    daemon, state = _running_agent(2, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}})
    daemon.min_ready_seconds = 10
    [surge] = daemonset.reconcile(state, daemon)
    surge.pod.node_name = "n1"
    state.bound_ms[surge.pod.key] = 2_000
    return daemon, state, surge.pod


def test_a_surge_pod_runs_beside_the_old_one_until_it_is_available():
    """podsShouldBeOnNode with surge: the oldest new and oldest old pod both stay while the new
    one is not available; rollingUpdate counts it as a surge, so no other node surges."""
    daemon, state, _ = _surge_agent()
    state.now_ms = 12_000
    assert daemonset.reconcile(state, daemon) == []
    status = daemonset.rollout_status(state, daemon)
    assert (status.desired, status.updated, status.replicas) == (2, 0, 3)


def test_an_available_surge_pod_replaces_the_old_one_and_the_next_node_surges():
    """Once the new pod is available (minReadySeconds after its binding) the manage loop deletes
    the old one; the next sync surges onto the next node."""
    daemon, state, surge = _surge_agent()
    state.now_ms = 12_001
    [delete] = daemonset.reconcile(state, daemon)
    assert isinstance(delete, DeletePod) and delete.pod.name == "agent-n1"
    state.gone.add(delete.pod.key)
    assert [w.pod.name for w in daemonset.reconcile(state, daemon)] == ["agent-n2-2"]


# pkg/controller/daemon/update_test.go TestGetUnavailableNumbers: updatedDesiredNodeCounts over
# nodes that all should run a pod (newUpdateUnavailable sets maxUnavailable alone, newUpdateSurge
# maxSurge with maxUnavailable 0); emptyNodes: the walked nodes with no pod.
@pytest.mark.parametrize(
    ("nodes", "strategy", "with_pods", "expected", "empty"),
    [
        pytest.param(0, daemonset.UpdateStrategy("RollingUpdate", 0, 0), [], (0, 0, 0), 0, id="No nodes"),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", 1, 0),
            ["n0", "n1"],
            (0, 1, 2),
            0,
            id="Two nodes with ready pods",
        ),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", 0, 0),
            ["n0"],
            (0, 1, 2),
            1,
            id="Two nodes, one node without pods",
        ),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", 0, 0),
            ["n0"],
            (0, 1, 2),
            1,
            id="Two nodes, one node without pods, surge",
        ),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", "50%", 0),
            ["n0", "n1"],
            (0, 1, 2),
            0,
            id="Two nodes with pods, MaxUnavailable in percents",
        ),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", 0, "50%"),
            ["n0", "n1"],
            (1, 0, 2),
            0,
            id="Two nodes with pods, MaxUnavailable in percents, surge",
        ),
        pytest.param(
            2,
            daemonset.UpdateStrategy("RollingUpdate", 0, "100%"),
            ["n0", "n1"],
            (2, 0, 2),
            0,
            id="Two nodes with pods, MaxUnavailable is 100%, surge",
        ),
        pytest.param(
            3,
            daemonset.UpdateStrategy("RollingUpdate", "50%", 0),
            ["n0", "n1"],
            (0, 2, 3),
            1,
            id="Two nodes with pods, MaxUnavailable in percents, pod terminating",
        ),
    ],
)
def test_get_unavailable_numbers(nodes, strategy, with_pods, expected, empty):
    node_list = [make_node(f"n{i}") for i in range(nodes)]
    assert daemonset.updated_desired_node_counts(strategy, [True] * nodes) == expected
    on_nodes = {name: ["pod"] for name in with_pods}
    walked = daemonset.walked_nodes(node_list, node_list, on_nodes)
    assert sum(1 for node in walked if not on_nodes.get(node.name)) == empty
