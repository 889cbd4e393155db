"""Realistic cluster dumps (tests/fixtures/dumps, each file's header says what it is modelled on) load
and schedule as kube-scheduler v1.35.4 would. Every expected answer below is worked out by hand from
the release's rules, written next to it; none was copied from SchedLab's output.
(The EKS StatefulSet dump has its own module: test_statefulset_dump.py.)
"""

from __future__ import annotations

from pathlib import Path

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.model import NoticeCode
from scheduler_core.model.resources import pod_requests
from scheduler_core.encoding.timeline import timeline_summary

DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "dumps"
INSUFFICIENT_CPU = {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}


def load(name: str):
    return load_scenario((DUMPS / name).read_bytes())


def cycles(name: str) -> dict[str, dict]:
    return {c["pod"]: c for c in trace_summary(simulate(load(name)))["cycles"]}


def rejected_by(cycle: dict, plugin: str) -> dict[str, dict]:
    """node -> the plugin's status, for the nodes that plugin rejected (the trace keys filter by node)."""
    return {node: plugins[plugin] for node, plugins in cycle["filter"].items() if plugin in plugins}


def notices(scenario) -> dict[NoticeCode, tuple[str, ...]]:
    return {n.code: n.objects for n in scenario.scheduling_notices()}


# ------------------------------------------------------------------ kubeadm + Calico + CoreDNS (a kind: List)


def test_kubeadm_every_kind_loads_and_what_is_left_out_is_said():
    scenario = load("kubeadm_calico.yaml")
    assert (len(scenario.nodes), len(scenario.running_pods), [p.key for p in scenario.pending_pods]) == (
        3,
        7,
        ["default/web-7d4b9c8f6-x2x9z"],
    )
    said = notices(scenario)
    assert said[NoticeCode.FINISHED_PODS] == ("Pod default/report-29377440-bk7vz",)
    assert said[NoticeCode.SCHEDULING_GATED] == ("Pod default/web-canary",)
    [ignored] = [n.message for n in scenario.scheduling_notices() if n.code is NoticeCode.IGNORED_KINDS]
    assert "2 ConfigMap, 1 DaemonSet, 2 Deployment, 1 ServiceAccount" in ignored


def test_kubeadm_a_finished_job_pod_frees_its_cpu():
    # worker-1: calico 250m + web 1500m = 1750m of 2 CPUs; the Succeeded report pod's 1 CPU is not in the
    # scheduler's cache. worker-2: 250m + cache-0 1200m + 1500m > 2 CPUs. cp-1: the control-plane taint.
    web = cycles("kubeadm_calico.yaml")["default/web-7d4b9c8f6-x2x9z"]
    assert web["nodeName"] == "worker-1"
    assert rejected_by(web, "NodeResourcesFit") == {"cp-1": INSUFFICIENT_CPU, "worker-2": INSUFFICIENT_CPU}
    assert rejected_by(web, "TaintToleration") == {
        "cp-1": {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) had untolerated taint(s)"]}
    }


# ------------------------------------------------------------------ GKE GPU pool (two JSON Lists back to back)


def test_gke_gpus_asked_for_in_limits_are_requested_and_counted():
    scenario = load("gke_gpu_pool.json")
    trainer = next(p for p in scenario.running_pods if p.key == "ml/trainer-a-0")
    assert pod_requests(trainer)["nvidia.com/gpu"] == 3  # the API server copies limits to absent requests
    assert notices(scenario)[NoticeCode.OTHER_SCHEDULER] == ("Pod ml/notebook-0",)


def test_gke_the_gpu_pod_goes_where_gpus_are_left():
    # k9x2 has 4 - 3 = 1 GPU left, the default pool has none (more than allocatable: unresolvable),
    # p3m7 has 4. Then train-c asks for 4: p3m7 has 2 left, k9x2 1: nobody of lower priority to evict.
    found = cycles("gke_gpu_pool.json")
    assert found["ml/train-b-0"]["nodeName"] == "gke-ml-gpu-pool-5e6f7a8b-p3m7"
    train_c = found["ml/train-c-0"]
    assert train_c["nodeName"] is None
    assert train_c["failedSchedulingMessage"] == (
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: "
        "0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
    )


# ------------------------------------------------------------------ AKS in the middle of a preemption


def test_aks_priority_comes_from_the_class_or_the_global_default():
    scenario = load("aks_mid_preemption.yaml")
    priorities = {p.key: p.priority for p in scenario.pending_pods}
    assert priorities == {"batch/month-end-close-29377890-h7j2k": 100000, "batch/report-29377891-x5c7v": 1000}


def test_aks_the_nominated_node_is_tried_first_and_kept_for_the_preemptor():
    found = cycles("aks_mid_preemption.yaml")
    close = found["batch/month-end-close-29377890-h7j2k"]
    # vmss000001 still holds the terminating victim's 1500m: 1200m does not fit in 400m. Preemption is
    # not tried again while a victim on the nominated node is terminating.
    assert close["failedSchedulingMessage"].endswith(
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    # report (300m, priority 1000) would fit vmss000001's 400m, but the preemptor (priority 100000 >= 1000)
    # is nominated there and counts in the first filter pass.
    report = found["batch/report-29377891-x5c7v"]
    assert report["nodeName"] is None
    assert rejected_by(report, "NodeResourcesFit")["aks-nodepool1-27318453-vmss000001"] == INSUFFICIENT_CPU


def test_aks_run_to_the_end_a_victim_terminating_in_the_dump_stays_and_nobody_else_is_evicted():
    summary = timeline_summary(run_to_the_end(load("aks_mid_preemption.yaml")))
    assert summary["nominated"] == {"batch/month-end-close-29377890-h7j2k": "aks-nodepool1-27318453-vmss000001"}
    assert summary["final"]["batch/etl-worker-7f6d5c-m9n3p"] == "aks-nodepool1-27318453-vmss000001"
    assert summary["final"]["batch/ledger-0"] == "aks-nodepool1-27318453-vmss000000"  # the PDB's pods stay


# ------------------------------------------------------------------ on-prem: sidecars, pod-level resources, resize


def test_onprem_requests_as_pod_requests_computes_them():
    scenario = load("onprem_sidecars_resize.yaml")
    by_key = {p.key: p for p in scenario.pods}
    # checkout: app 1 CPU + sidecar 100m = 1100m running; while migrate runs: 2 + 100m (the sidecar started
    # before it) = 2100m; the larger, plus the kata overhead 250m.
    assert pod_requests(by_key["shop/checkout-8c7b6a-q4r5t"])["cpu"] == 2350
    # analytics: pod-level requests (3 CPUs) replace its containers' 500m.
    assert pod_requests(by_key["shop/analytics-0"])["cpu"] == 3000
    # search: spec 500m, actuated 500m, allocated 1000m while the resize is in progress: the largest.
    assert pod_requests(by_key["shop/search-6f7c9d-8kq2w"])["cpu"] == 1000


def test_onprem_a_pod_with_a_resource_claim_is_said_not_attempted_in_both_modes():
    scenario = load("onprem_sidecars_resize.yaml")
    assert notices(scenario)[NoticeCode.RESOURCE_CLAIMS] == ("Pod shop/inference-0",)
    summary = timeline_summary(run_to_the_end(scenario))
    assert "shop/inference-0" not in {attempt["pod"] for attempt in summary["attempts"]}
    assert "shop/inference-0" not in cycles("onprem_sidecars_resize.yaml")


def test_onprem_both_pods_land_only_where_their_real_requests_fit():
    # Free CPU: n01 4000 - 200 - 1000 (resizing) - 500 = 2300; n02 4000 - 200 - 1400 = 2400;
    # r2-n01 4000 - 200 - 600 = 3200. analytics (3000, priority 1000) goes first: only r2-n01.
    # checkout (2350) then: r2-n01 has 200 left, n01 2300, n02 2400: only n02.
    found = cycles("onprem_sidecars_resize.yaml")
    analytics, checkout = found["shop/analytics-0"], found["shop/checkout-8c7b6a-q4r5t"]
    assert analytics["nodeName"] == "bm-r2-n01"
    assert rejected_by(analytics, "NodeResourcesFit") == {"bm-r1-n01": INSUFFICIENT_CPU, "bm-r1-n02": INSUFFICIENT_CPU}
    assert checkout["nodeName"] == "bm-r1-n02"
    assert rejected_by(checkout, "NodeResourcesFit") == {"bm-r1-n01": INSUFFICIENT_CPU, "bm-r2-n01": INSUFFICIENT_CPU}


# ------------------------------------------------------------------ a rollout spread with matchLabelKeys


def test_rollout_spreads_the_new_replicaset_on_its_own_without_the_terminating_pod():
    # New-hash pods per zone: a 1, b 0 (its one pod is terminating: not counted), c 1; the old ReplicaSet's
    # five pods do not match pod-template-hash. min 0: a and c would make a skew of 2 > maxSkew 1.
    found = cycles("rollout_match_label_keys.yaml")
    [pending] = found.values()
    assert pending["nodeName"] == "ip-10-20-2-17.eu-west-1.compute.internal"
    rejected = rejected_by(pending, "PodTopologySpread")
    assert sorted(rejected) == ["ip-10-20-1-17.eu-west-1.compute.internal", "ip-10-20-3-17.eu-west-1.compute.internal"]


# ------------------------------------------------------------------ EKS + Istio + node-local DNS (issue 50, item 7)
# Free CPU of the general nodes (3920m each) before the run, sidecars' 100m counted (istio-init's 100m
# is under the containers' sum): 11-21 1445, 12-34 1045, 13-47 695, 21-18 345, 22-55 745, 23-92 895,
# 31-64 645, 32-77 845; the ingress nodes are tainted dedicated=ingress:NoSchedule.
ISTIO = "istio_nodelocaldns_10.yaml"


def test_istio_dump_loads_as_kubectl_wrote_it():
    scenario = load(ISTIO)
    assert (len(scenario.nodes), len(scenario.running_pods), len(scenario.pending_pods)) == (10, 70, 10)
    said = notices(scenario)
    assert said[NoticeCode.FINISHED_PODS] == ("Pod shop/pg-backup-29390400-8xq2m",)
    # a sidecar pod's requests: the app's and istio-proxy's (istio-init's 100m is the lesser)
    [checkout] = [p for p in scenario.pending_pods if p.key == "shop/checkout-59jxw56675-75x7d"]
    assert pod_requests(checkout)["cpu"] == 1000


def test_istio_run_to_the_end_who_stays_pending_and_why():
    summary = timeline_summary(run_to_the_end(load(ISTIO)))
    final = summary["final"]
    pending = sorted(pod for pod, node in final.items() if node is None)
    assert pending == [
        "batch/model-training-qmz7xd4bt8-2vxzw",  # 6 CPUs: more than any node has
        "shop/checkout-59jxw56675-4mxwc",  # zone spread 2/2/1: only us-east-1c, where no node has 1000m
        "shop/checkout-59jxw56675-75x7d",
        "shop/payments-x6r4tx9dsx-xff25",  # one per node: the ninth has no general node left
    ]
    assert final["shop/payments-x6r4tx9dsx-7g9n7"] == "ip-10-0-23-92.ec2.internal"  # the one node without payments
    assert final["shop/postgres-2"] in {"ip-10-0-31-64.ec2.internal", "ip-10-0-32-77.ec2.internal"}  # its volume's zone
    # the recommenders wait for the model server (required pod affinity), then join it
    model = final["shop/reco-model-nrbcsnzj27-flp8c"]
    assert final["shop/recommendation-cfxpmgt6mb-nqcsr"] == final["shop/recommendation-cfxpmgt6mb-lqv4f"] == model
    # nightly-etl (1600m, batch-high) fits nowhere; evicting one batch-low report-worker (1000m) frees enough on
    # 13-47 (695 + 1000) and 22-55 (745 + 1000), each within the budget (minAvailable 3 of 4): the victim that
    # started later (11-16 against 11-14) decides
    victims = {a["pod"]: a["victims"] for a in summary["attempts"] if a.get("victims")}
    assert victims == {"batch/nightly-etl-nkqt7t5hjk-htq42": ["batch/report-worker-4hzbggq7rx-26szd"]}
    assert final["batch/nightly-etl-nkqt7t5hjk-htq42"] == "ip-10-0-22-55.ec2.internal"
    assert final["batch/report-worker-4hzbggq7rx-26szd"] == "deleted"
    assert len(summary["attempts"]) == 17
