"""Pod signatures (kube-scheduler/framework/signers.go) and the profile's SignPod."""

from __future__ import annotations

from scheduler_core import load_scenario
from scheduler_core.framework import signers
from scheduler_core.model import (
    Affinity,
    ContainerPort,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
)
from scheduler_core.model import Container
from scheduler_core.run.schedule_one import Scheduler
from tests.scheduler_core.builders import make_pod, no_default_spreading, node_text


def list_defaulting(ignore_preferred: str) -> str:
    return no_default_spreading(
        f"{{name: InterPodAffinity, args: {{ignorePreferredTermsOfExistingPods: {ignore_preferred}}}}}"
    )


def _framework(config: str = ""):
    return Scheduler(load_scenario(config + node_text("n1"))).framework


def _req(key, values, op="In"):
    return NodeSelectorRequirement(key, op, tuple(values))


def test_host_ports_are_distinct_sorted_and_ignore_protocol():
    pod = make_pod(
        "p",
        containers=(
            Container("a", ports=(ContainerPort(80, 8080), ContainerPort(53, 53, "UDP"), ContainerPort(9000))),
        ),
        init_containers=(Container("i", ports=(ContainerPort(53, 53, "TCP"),)),),
    )
    assert signers.host_ports(pod) == (53, 8080)


def test_tolerations_are_ordered_by_key_and_value_and_keep_every_field():
    a = Toleration("b", "Equal", "1", "NoExecute", 300)
    b = Toleration("a", "Exists")
    assert signers.tolerations(make_pod("p", tolerations=(a, b))) == signers.tolerations(
        make_pod("q", tolerations=(b, a))
    )
    shorter = Toleration("b", "Equal", "1", "NoExecute", 60)
    assert signers.tolerations(make_pod("p", tolerations=(a,))) != signers.tolerations(
        make_pod("q", tolerations=(shorter,))
    )


def test_node_affinity_ignores_term_order_but_not_weights():
    t1 = NodeSelectorTerm((_req("zone", ["b", "a"]),))
    t2 = NodeSelectorTerm((_req("size", ["xl"]),))
    one = Affinity(NodeAffinity(NodeSelector((t1, t2)), (PreferredSchedulingTerm(10, t2),)))
    two = Affinity(
        NodeAffinity(
            NodeSelector((t2, NodeSelectorTerm((_req("zone", ["a", "b"]),)))), (PreferredSchedulingTerm(10, t2),)
        )
    )
    assert signers.node_affinity(make_pod("p", affinity=one)) == signers.node_affinity(make_pod("q", affinity=two))
    heavier = Affinity(NodeAffinity(NodeSelector((t1, t2)), (PreferredSchedulingTerm(20, t2),)))
    assert signers.node_affinity(make_pod("p", affinity=one)) != signers.node_affinity(make_pod("q", affinity=heavier))
    assert signers.node_affinity(make_pod("p")) is None


def test_volumes_leave_out_config_maps_and_secrets_and_the_volume_names():
    text = (
        node_text("n1")
        + """\
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers: [{name: c, image: x}]
  volumes:
  - {name: cfg, configMap: {name: a-config}}
  - {name: s, secret: {secretName: a-secret}}
  - {name: scratch, emptyDir: {}}
  - {name: data, persistentVolumeClaim: {claimName: shared}}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  containers: [{name: c, image: x}]
  volumes:
  - {name: data2, persistentVolumeClaim: {claimName: shared}}
  - {name: tmp, emptyDir: {}}
  - {name: cfg, configMap: {name: b-config}}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec:
  containers: [{name: c, image: x}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: other}}
  - {name: tmp, emptyDir: {}}
"""
    )
    pods = {pod.name: pod for pod in load_scenario(text).pods}
    assert signers.volumes(pods["a"]) == signers.volumes(pods["b"])
    assert signers.volumes(pods["a"]) != signers.volumes(pods["c"])


def test_the_default_profile_signs_no_pod_system_spreading_depends_on_earlier_pods():
    framework = _framework()
    assert framework.signatures_enabled
    refused = framework.sign_pod(make_pod("p"))
    assert isinstance(refused, signers.Unsignable) and refused.plugin == "PodTopologySpread"


def test_without_default_spreading_equal_pods_sign_alike_and_labels_count():
    framework = _framework(list_defaulting("false"))
    a = framework.sign_pod(make_pod("a", labels={"app": "web"}, requests={"cpu": 500}))
    b = framework.sign_pod(make_pod("b", labels={"app": "web"}, requests={"cpu": 500}))
    assert isinstance(a, tuple) and a == b
    assert framework.sign_pod(make_pod("c", labels={"app": "db"}, requests={"cpu": 500})) != a
    assert framework.sign_pod(make_pod("d", labels={"app": "web"}, requests={"cpu": 600})) != a


def test_labels_do_not_count_when_only_pods_with_terms_are_considered():
    framework = _framework(list_defaulting("true"))
    assert framework.sign_pod(make_pod("a", labels={"app": "web"})) == framework.sign_pod(
        make_pod("b", labels={"app": "db"})
    )


def test_pods_with_pod_affinity_or_spread_constraints_are_not_signable():
    framework = _framework(list_defaulting("false"))
    term = PodAffinityTerm(None, "zone")
    affine = make_pod("a", affinity=Affinity(pod_anti_affinity=PodAffinity(required=(term,))))
    assert framework.sign_pod(affine).plugin == "InterPodAffinity"
    spread = make_pod("b", topology_spread_constraints=(TopologySpreadConstraint(1, "zone", "DoNotSchedule"),))
    assert framework.sign_pod(spread).plugin == "PodTopologySpread"


def test_the_plugins_that_may_refuse_are_asked_first_with_the_same_answers(monkeypatch):
    # Only the refusal and the signature are the answer: asking the refusers first gives the same
    # ones (the first refusal in plugin order) and builds no fragment for a pod that gets none.
    framework = _framework(list_defaulting("false"))
    refusers = ["NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", "DynamicResources"]
    assert [plugin.name for plugin in framework.signing_refusers] == refusers
    term = PodAffinityTerm(None, "zone")
    both = make_pod(
        "both",
        affinity=Affinity(pod_anti_affinity=PodAffinity(required=(term,))),
        topology_spread_constraints=(TopologySpreadConstraint(1, "zone", "DoNotSchedule"),),
    )
    pods = [both, make_pod("plain", labels={"app": "web"}, requests={"cpu": 500}), make_pod("b", labels={"a": "b"})]
    for pod in pods:
        assert framework.sign_pod(pod) == signers.sign_pod(pod, framework.signing_plugins)
    built: list[str] = []
    for plugin in framework.signing_plugins:
        if plugin.name not in refusers:
            monkeypatch.setattr(type(plugin), "sign_pod", lambda self, pod: built.append(self.name) or [])
    refused = framework.sign_pod(both)
    assert isinstance(refused, signers.Unsignable) and refused.plugin == "PodTopologySpread" and built == []
    assert isinstance(framework.sign_pod(pods[1]), tuple) and len(built) == len(framework.signing_plugins) - 4
