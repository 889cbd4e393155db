"""The DaemonSet stand-in: NodeShouldRunDaemonPod, the tolerations AddOrUpdateDaemonPodTolerations
adds, ReplaceDaemonSetPodNodeNameNodeAffinity's matchFields term."""

from __future__ import annotations

import pytest

from scheduler_core.cluster.controllers import daemonset
from scheduler_core.model import Taint
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_node


def agent(**template):
    spec = {"containers": [{"name": "c"}], **template}
    return controlled_workload("DaemonSet", "agent", template_spec=spec)


@pytest.mark.parametrize("template, node, should_run, keeps_running", [
    pytest.param({}, make_node("n"), True, True, id="a plain node runs the daemon pod"),
    pytest.param({"nodeSelector": {"disk": "ssd"}}, make_node("n"), False, False, id="node selector does not match"),
    pytest.param({}, make_node("n", taints=[Taint("dedicated", "db", "NoSchedule")]), False, True,
                 id="an untolerated NoSchedule taint: not scheduled, but an existing pod keeps running"),
    pytest.param({}, make_node("n", taints=[Taint("dedicated", "db", "NoExecute")]), False, False,
                 id="an untolerated NoExecute taint: not scheduled, not kept"),
    pytest.param({}, make_node("n", taints=[Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")]), True, True,
                 id="the unschedulable taint is tolerated by every daemon pod"),
    pytest.param({}, make_node("n", unschedulable=True), True, True, id="a cordoned node still runs daemon pods"),
])
def test_node_should_run_daemon_pod(template, node, should_run, keeps_running):
    daemon_set = agent(**template)
    state = cluster_state(nodes=[node], workloads=[daemon_set])
    verdict = daemonset.should_run(daemon_set, node, daemonset._template_pod(state, daemon_set))
    assert (verdict.should_run, verdict.should_continue_running) == (should_run, keeps_running)


def test_it_pins_each_daemon_pod_to_its_node_with_a_match_fields_term():
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become metadata.name In [node]."""
    daemon_set = agent(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "os", "operator": "In", "values": ["linux"]}]}]}}})
    spec = daemonset.daemon_pod_spec(daemon_set, "n7")
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}]}]
    assert {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]


def test_it_creates_pods_in_node_order_and_deletes_the_pod_of_a_node_that_is_gone():
    daemon_set = agent()
    state = cluster_state(nodes=[make_node("b"), make_node("a")], workloads=[daemon_set])
    assert [w.pod.name for w in daemon_set_writes(state, daemon_set)] == ["agent-b", "agent-a"]
    state.nodes.pop(0)
    [gone] = daemon_set_writes(state, daemon_set)
    assert gone.pod.name == "agent-b" and gone.graceful is False


def daemon_set_writes(state, daemon_set):
    return daemonset.reconcile(state, daemon_set)
