"""`check`: the objects the scheduler uses, the notices, the findings and the fetch lines, typed,
as JSON and as the CLI prints them (nothing is scheduled)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec

from scheduler_core import load_scenario
from scheduler_core.answers.check import check_scenario
from scheduler_core.cluster.node_lifecycle import controller_taint_changes, with_controller_taints
from scheduler_core.answers.findings import (
    CONTROLLER_ABSENT,
    NO_CONFIG,
    NODE_TAINTS_MISSING,
    RELEASE_ASSUMED,
    SERVICES_ABSENT,
)
from scheduler_core.model import NoticeCode

ROOT = Path(__file__).resolve().parents[3]
DUMPS = ROOT / "tests" / "fixtures" / "dumps"
EKS = DUMPS / "eks_notready_recorded.yaml"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", *args], cwd=ROOT, capture_output=True, timeout=120)


def test_it_counts_what_the_scheduler_uses_and_leaves_out_the_gated_pod():
    report = check_scenario(load_scenario(EKS.read_bytes()))
    # 12 pods in the file: 8 running, 3 pending, the gated canary left out with a notice.
    assert report.objects == {"Node": 3, "Pod": 11, "Service": 1, "ReplicaSet": 1}
    assert (report.running_pods, report.pending_pods) == (8, 3)
    assert [n.code for n in report.notices] == [NoticeCode.SCHEDULING_GATED]
    assert [f.code for f in report.findings] == [NODE_TAINTS_MISSING, NO_CONFIG, RELEASE_ASSUMED]


def test_the_findings_are_made_with_the_collector_paused_and_it_resumes(monkeypatch):
    import gc

    from scheduler_core.answers import check

    scenario = load_scenario(EKS.read_bytes())
    collecting = []
    find_all = check.find_all
    monkeypatch.setattr(check, "find_all", lambda read: collecting.append(gc.isenabled()) or find_all(read))
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        check_scenario(scenario)
        assert (collecting, gc.isenabled()) == ([False], True)
    finally:
        if not was_enabled:
            gc.disable()


def test_device_claims_and_their_classes_and_slices_are_counted_as_read():
    """DynamicResources reads them: they were read and used but not listed under "Read" (issue 51)."""
    report = check_scenario(load_scenario((ROOT / "examples" / "dra_pending_gpu.yaml").read_bytes()))
    assert report.objects == {"Node": 2, "Pod": 2, "DeviceClass": 2, "ResourceSlice": 2, "ResourceClaim": 2}


def test_the_json_has_the_documented_keys():
    out = check_scenario(load_scenario((DUMPS / "kubeadm_coredns_partial.yaml").read_bytes())).to_json()
    assert set(out) == {"objects", "pods", "notices", "findings", "fetch"}
    assert out["objects"] == {"Node": 3, "Pod": 8}
    assert [f["code"] for f in out["findings"]] == [CONTROLLER_ABSENT, SERVICES_ABSENT, NO_CONFIG]
    assert out["fetch"] == [
        "kubectl get replicasets -n kube-system coredns-5d78c9869d -o yaml",
        "kubectl get services -n kube-system -o yaml",
    ]


def test_the_json_is_written_as_check_json_declares_it():
    """CheckJSON: its keys in declaration order, addedNodeTaints only when the taints were added, and
    what msgspec writes of it."""
    scenario = load_scenario(EKS.read_bytes())
    changes = controller_taint_changes(scenario)
    for report in (check_scenario(scenario), check_scenario(with_controller_taints(scenario, changes), changes)):
        out = report.to_json()
        keys = ["objects", "pods", "notices", "findings", "fetch", "addedNodeTaints"]
        assert list(out) == keys[: len(out)]
        assert out == msgspec.json.decode(msgspec.json.encode(report.wire()))
    assert list(out["addedNodeTaints"][0]) == ["node", "add", "remove", "conditions"]


def test_the_cli_prints_the_check_as_json_and_exits_0():
    result = run("check", str(EKS), "--json")
    assert result.returncode == 0, result.stderr.decode()
    out = json.loads(result.stdout)
    assert out["pods"] == {"running": 8, "pending": 3}
    assert out["findings"][0]["objects"] == ["Node ip-10-0-3-77.eu-west-1.compute.internal"]


def test_with_add_node_taints_the_finding_is_gone_and_the_change_is_said():
    result = run("check", str(EKS), "--add-node-taints")
    out = result.stdout.decode()
    assert result.returncode == 0
    assert (
        "added the node lifecycle controller's taints: ip-10-0-3-77.eu-west-1.compute.internal "
        "+node.kubernetes.io/not-ready:NoSchedule +node.kubernetes.io/not-ready:NoExecute"
    ) in out
    assert "node-taints-missing" not in out
    assert json.loads(run("check", str(EKS), "--add-node-taints", "--json").stdout)["addedNodeTaints"] == [
        {
            "node": "ip-10-0-3-77.eu-west-1.compute.internal",
            "conditions": ["Ready=False"],
            "remove": [],
            "add": ["node.kubernetes.io/not-ready:NoSchedule", "node.kubernetes.io/not-ready:NoExecute"],
        }
    ]


def test_the_readable_report_lists_findings_and_fetch_lines():
    out = run("check", str(DUMPS / "kubeadm_coredns_partial.yaml")).stdout.decode().splitlines()
    assert (
        out[0]
        == "release: replayed as kube-scheduler v1.35.4: the cluster runs v1.35.4 (Pod kube-system/kube-scheduler-cp-1: image registry.k8s.io/kube-scheduler:v1.35.4)"
    )
    assert out[1] == "read: 3 Node, 8 Pod"
    assert "  kubectl get replicasets -n kube-system coredns-5d78c9869d -o yaml" in out
    assert any(line.startswith("finding [controller-absent]: 1 pending pod(s)") for line in out)


def test_invalid_input_still_exits_2_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: Bad_Name}\n")
    result = run("check", str(bad))
    assert result.returncode == 2 and b"Traceback" not in result.stderr and b"Bad_Name" in result.stderr
