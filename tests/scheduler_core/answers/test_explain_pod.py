"""Why is this running pod here? Its cycle re-run with the pod taken off its node, against the
rest of the cluster as dumped (explain_pod.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.answers.explain_pod import (
    CHANGED_CAVEAT,
    OUTCOME_MOVES,
    OUTCOME_STAYS,
    OUTCOME_TIE,
    OUTCOME_UNSCHEDULABLE,
    NotBound,
    explain_pod,
)
from scheduler_core.cluster.node_lifecycle import with_controller_taints

ROOT = Path(__file__).resolve().parents[3]
DUMPS = ROOT / "tests" / "fixtures" / "dumps"
EKS = DUMPS / "eks_notready_recorded.yaml"
API = "shop/api-7c9d8b6f5d-h5m2c"
NODE_1, NODE_2, NODE_3 = (
    "ip-10-0-1-23.eu-west-1.compute.internal",
    "ip-10-0-2-41.eu-west-1.compute.internal",
    "ip-10-0-3-77.eu-west-1.compute.internal",
)


def test_a_running_pod_that_would_tie_says_so_with_every_plugin_even():
    """Off node 1 the api pod (1500m) fits node 1 and node 3 (each 125m used by aws-node and
    kube-proxy, no memory asked; node 3 has no taint in the dump) but not node 2 (1125m used). Both
    score alike plugin by plugin: the same free room, and no api pod bound on either (the other
    replica is pending, this one is taken off), so PodTopologySpread's defaults count zero on both.
    SchedLab takes the first in node order; the caveats say the real scheduler picks at random."""
    answer = explain_pod(load_scenario(EKS.read_bytes()), API)
    assert answer.feasible == [NODE_1, NODE_3]
    assert answer.own_node_fits and answer.own_node_rejection is None
    assert (answer.outcome, answer.chosen, answer.own_rank, answer.compared_with, answer.margin) == (
        OUTCOME_TIE,
        NODE_1,
        1,
        NODE_3,
        0,
    )
    assert answer.scored == 2 and answer.top[0].total == answer.top[1].total == answer.own_total
    assert all(gap.difference == 0 for gap in answer.plugins)
    assert answer.placed_at == "2026-11-22T14:03:11Z"
    assert answer.caveats[0] == CHANGED_CAVEAT
    assert answer.caveats[-1].startswith("SchedLab takes the first tied node")


def test_a_running_pod_another_node_would_win_now_gets_its_rank_and_the_gap():
    """kubeadm_calico.yaml: CoreDNS runs on cp-1, which also holds etcd and kube-apiserver; taken
    off, it tolerates the control-plane taint and fits all three nodes, and worker-1 (calico only)
    has more room: only the two resource plugins tell the nodes apart."""
    answer = explain_pod(
        load_scenario((DUMPS / "kubeadm_calico.yaml").read_bytes()), "kube-system/coredns-668d6bf9bc-m2twk"
    )
    assert (answer.outcome, answer.chosen, answer.own_rank, answer.compared_with) == (
        OUTCOME_MOVES,
        "worker-1",
        2,
        "worker-1",
    )
    assert answer.margin < 0 and answer.margin == sum(gap.difference for gap in answer.plugins)
    assert {gap.plugin for gap in answer.plugins if gap.difference} == {
        "NodeResourcesFit",
        "NodeResourcesBalancedAllocation",
    }
    assert answer.summary.startswith("kube-system/coredns-668d6bf9bc-m2twk would go to worker-1 now: cp-1 ranks 2 of 3")


def test_with_the_controllers_taints_its_node_is_the_only_one_left():
    answer = explain_pod(with_controller_taints(load_scenario(EKS.read_bytes())), API)
    assert answer.feasible == [NODE_1]
    assert (answer.outcome, answer.chosen, answer.own_rank, answer.compared_with) == (OUTCOME_STAYS, NODE_1, 1, None)
    assert answer.summary.startswith(f"{NODE_1} would still win for {API} (the only node that fits)")


def test_a_pod_its_node_would_refuse_now_names_the_plugin():
    """Node 1 resized to 1500m allocatable: 125m used leaves 1375m, short of the pod's 1500m; node 3
    still has 1805m free. A DaemonSet's aws-node pod is pinned by matchFields to its node."""
    smaller = EKS.read_text().replace("allocatable: {cpu: 1930m", "allocatable: {cpu: 1500m", 1)
    answer = explain_pod(load_scenario(smaller), API)
    assert (answer.own_node_fits, answer.own_node_rejection) == (False, "NodeResourcesFit: Insufficient cpu")
    assert (answer.outcome, answer.chosen, answer.feasible) == (OUTCOME_MOVES, NODE_3, [NODE_3])
    assert answer.summary == (
        f"{API} would no longer fit on {NODE_1} (NodeResourcesFit: Insufficient cpu); it would go to {NODE_3}."
    )
    pinned = explain_pod(load_scenario(EKS.read_bytes()), "kube-system/aws-node-k2v6d")
    assert pinned.feasible == [NODE_3] and pinned.chosen == NODE_3


def test_a_pod_that_fits_nowhere_now_gives_the_failed_scheduling_text():
    """Asking 1900m, more than the 1805m any node has free once the pod is off node 1."""
    bigger = EKS.read_text().replace(
        "cpu: 1500m, memory: 1Gi}}}\n    nodeName: " + NODE_1, "cpu: 1900m, memory: 1Gi}}}\n    nodeName: " + NODE_1, 1
    )
    answer = explain_pod(load_scenario(bigger), API)
    assert (answer.outcome, answer.chosen, answer.feasible) == (OUTCOME_UNSCHEDULABLE, None, [])
    assert answer.failed_scheduling_message.startswith("0/3 nodes are available: 3 Insufficient cpu.")


@pytest.mark.parametrize(
    "pod, words",
    [
        ("shop/api-7c9d8b6f5d-q4wzp", "is pending"),
        ("shop/nobody", "no pod shop/nobody"),
    ],
    ids=["a pending pod is refused", "an unknown pod is refused"],
)
def test_it_refuses_what_is_not_a_running_pod(pod, words):
    with pytest.raises(NotBound, match=words):
        explain_pod(load_scenario(EKS.read_bytes()), pod)


def test_a_static_pod_is_not_explained_as_if_the_scheduler_had_placed_it():
    """kube-proxy as kubeadm runs it: a mirror pod owned by its Node (issue 51 item 10)."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy-n1\n  namespace: kube-system\n"
        "  annotations: {kubernetes.io/config.mirror: abc}\n"
        "  ownerReferences: [{apiVersion: v1, kind: Node, name: n1, uid: u1, controller: true}]\n"
        "spec:\n  nodeName: n1\n  containers: [{name: c, image: proxy}]\n"
    )
    with pytest.raises(NotBound, match="kube-system/kube-proxy-n1 is a static pod: the kubelet of n1 runs it"):
        explain_pod(load_scenario(text), "kube-system/kube-proxy-n1")


def test_the_cli_prints_json_and_exits_2_for_a_pending_pod():
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "scheduler_core", "explain-pod", str(EKS), *args],
            cwd=ROOT,
            capture_output=True,
            timeout=120,
        )

    result = run(API, "--json")
    assert result.returncode == 0, result.stderr.decode()
    out = json.loads(result.stdout)
    assert out["pod"] == API and out["node"] == NODE_1 and out["feasibleCount"] == 2
    assert out["caveats"][0] == CHANGED_CAVEAT
    refused = run("shop/api-7c9d8b6f5d-q4wzp")
    assert refused.returncode == 2 and b"is pending" in refused.stderr and b"Traceback" not in refused.stderr
