"""What dumps say of their release, read off every form SchedLab takes."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.release.choice import ReleaseRequest, ReleaseSource
from scheduler_core.release.versions import Release, Version
from scheduler_core.scenario.loader import load_scenario
from scheduler_core.scenario.sources import load_paths

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"

NODE = """
apiVersion: v1
kind: Node
metadata: {{name: n1}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
  nodeInfo: {{kubeletVersion: {kubelet}}}
"""


def test_kubectl_version_output_decides_and_is_no_object():
    text = (
        "clientVersion: {gitVersion: v1.36.0, major: '1', minor: '36'}\n"
        "serverVersion: {gitVersion: v1.34.2-eks-113cf36, major: '1', minor: 34+}\n---\n"
        + NODE.format(kubelet="v1.33.9")
    )
    scenario = load_scenario(text)
    assert scenario.release.release == Release(34, 9)
    assert scenario.release.source is ReleaseSource.SERVER_VERSION
    assert "v1.34.2" in scenario.release.sentence()
    assert [n.name for n in scenario.nodes] == ["n1"]


def test_nodes_alone_give_their_newest_kubelet_as_a_lower_bound():
    text = NODE.format(kubelet="v1.36.1") + "---\n" + NODE.format(kubelet="v1.35.2").replace("n1", "n2")
    scenario = load_scenario(text)
    assert scenario.release.release.minor == 36
    assert scenario.release.source is ReleaseSource.KUBELET_VERSION
    assert "Node n1" in scenario.release.sentence()


def test_the_kube_scheduler_static_pod_is_the_strongest_word_and_brings_its_feature_gates():
    pod = """
apiVersion: v1
kind: Pod
metadata: {name: kube-scheduler-cp-1, namespace: kube-system}
spec:
  nodeName: n1
  containers:
  - name: kube-scheduler
    image: registry.k8s.io/kube-scheduler:v1.33.4
    command: [kube-scheduler, --feature-gates=SchedulerAsyncPreemption=false,NotAGateWeModel=true]
"""
    scenario = load_scenario(NODE.format(kubelet="v1.34.0") + "---\n" + pod)
    assert scenario.release.release.minor == 33
    assert scenario.release.source is ReleaseSource.SCHEDULER_IMAGE
    assert not scenario.rules.gates.enabled("SchedulerAsyncPreemption")


def test_asking_overrides_the_dump():
    scenario = load_scenario(NODE.format(kubelet="v1.36.1"), release=ReleaseRequest(Release(33, 13)))
    assert scenario.release.release.minor == 33
    assert scenario.release.source is ReleaseSource.ASKED
    assert scenario.release.reported == Version(1, 36, 1)


def test_an_openshift_cluster_version_maps_to_its_kubernetes_release():
    text = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
status:
  desired: {version: 4.20.8}
---
""" + NODE.format(kubelet="v1.33.6")
    scenario = load_scenario(text)
    assert scenario.release.release.minor == 33
    assert scenario.release.source is ReleaseSource.OPENSHIFT_VERSION


def test_sonobuoy_and_support_bundle_records_are_read_from_their_archives_layout():
    sonobuoy = load_paths([FIXTURES / "forms" / "sonobuoy"])
    assert sonobuoy.release.source is ReleaseSource.SERVER_VERSION
    assert sonobuoy.release.release.minor == 32
    bundle = load_paths([FIXTURES / "forms" / "troubleshoot"])
    assert bundle.release.source is ReleaseSource.SERVER_VERSION
    assert bundle.release.release.minor == 32


def test_a_kubeadm_dump_is_replayed_as_its_scheduler_image_says():
    scenario = load_paths([FIXTURES / "kubeadm_coredns_partial.yaml"])
    assert scenario.release.source is ReleaseSource.SCHEDULER_IMAGE
    assert scenario.release.release.version == "v1.35.4"


def test_a_scenario_that_says_nothing_is_the_default_release():
    scenario = load_scenario(
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: '1', pods: '10'}}\n"
    )
    assert scenario.release.source is ReleaseSource.DEFAULT
    assert scenario.release.release.version == "v1.35.4"
