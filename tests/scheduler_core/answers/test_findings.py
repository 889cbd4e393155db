"""Completeness findings: what a dump lacks that the scheduler would read, the objects concerned and
the kubectl line that fetches exactly that. Each "only where it matters" rule follows the release
function that reads the missing object (helper.DefaultSelector via PodTopologySpread's
buildDefaultConstraints; InterPodAffinity's namespaceSelector; the volume plugins' listers)."""

from __future__ import annotations

from pathlib import Path

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.answers.findings import (
    CLAIMS_ABSENT,
    CONTROLLER_ABSENT,
    DRA_OBJECTS_ABSENT,
    DRA_OFF,
    NAMESPACES_ABSENT,
    NO_CONFIG,
    NODE_TAINTS_MISSING,
    RELEASE_ASSUMED,
    RELEASE_FROM_KUBELETS,
    RELEASE_NEAREST,
    PRIORITY_CLASSES_ABSENT,
    SERVICES_ABSENT,
    STORAGE_CLASSES_ABSENT,
    VOLUMES_ABSENT,
    fetch_commands,
    find_all,
)
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from tests.scheduler_core.builders import node_text, pod_text

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"
ROOT = Path(__file__).resolve().parents[3]
COREDNS = "kubeadm_coredns_partial.yaml"
PENDING_DNS = "kube-system/coredns-5d78c9869d-tq2zc"
REPLICA_SET = """---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: coredns-5d78c9869d, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 2
  selector: {matchLabels: {k8s-app: kube-dns, pod-template-hash: 5d78c9869d}}
  template:
    metadata: {labels: {k8s-app: kube-dns, pod-template-hash: 5d78c9869d}}
    spec: {containers: [{name: coredns, image: "registry.k8s.io/coredns/coredns:v1.12.1"}]}
"""
CONFIG_WITHOUT_SPREADING = """---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"""


def findings_of(text: str) -> dict:
    return {f.code: f for f in find_all(load_scenario(text))}


def owned_pod(name: str, owner_kind: str = "ReplicaSet", api_version: str = "apps/v1", spec: str = "") -> str:
    text = pod_text(name, spec=spec)
    owner = (
        f"  ownerReferences: [{{apiVersion: {api_version}, kind: {owner_kind}, name: {name}-rs, "
        "controller: true, uid: u1}]\n"
    )
    return text.replace(
        "metadata: {name: " + name + ", labels: {}}", "metadata:\n  name: " + name + "\n  labels: {app: web}\n" + owner
    )


# ---------------------------------------------------------------------------- default spreading


def test_the_coredns_dump_lacks_the_replica_set_and_says_how_to_fetch_it():
    found = {f.code: f for f in find_all(load_scenario((DUMPS / COREDNS).read_bytes()))}
    controller = found[CONTROLLER_ABSENT]
    assert controller.objects == ["ReplicaSet kube-system/coredns-5d78c9869d", f"Pod {PENDING_DNS}"]
    assert controller.fix == "kubectl get replicasets -n kube-system coredns-5d78c9869d -o yaml"
    assert found[SERVICES_ABSENT].fix == "kubectl get services -n kube-system -o yaml"
    assert list(found) == [CONTROLLER_ABSENT, SERVICES_ABSENT, NO_CONFIG]


def test_the_missing_replica_set_changes_where_the_pending_coredns_pod_goes():
    """Why the finding matters. Without the ReplicaSet (and no Service) DefaultSelector is empty and
    PodTopologySpread scores nothing: cp-1 (650m used of 4) edges worker-2 (1150m) on resources,
    675 to 670. With it the system defaults count the running replica on worker-1 (zone-a):
    hostname raw scores 2/3.6/2 and zone 5.4/5.4/4 round to cp-1 7, worker-1 9, worker-2 6, which
    normalise to 88/66/100 and, at weight 2, give worker-2 24 points more than cp-1: 870 to 851."""
    dump = (DUMPS / COREDNS).read_text()
    placed = {c["pod"]: c["nodeName"] for c in trace_summary(simulate(load_scenario(dump)))["cycles"]}
    completed = {c["pod"]: c["nodeName"] for c in trace_summary(simulate(load_scenario(dump + REPLICA_SET)))["cycles"]}
    assert (placed[PENDING_DNS], completed[PENDING_DNS]) == ("cp-1", "worker-2")
    assert CONTROLLER_ABSENT not in findings_of(dump + REPLICA_SET)


def test_a_pod_with_its_own_spread_constraints_does_not_read_the_defaults():
    spec = (
        "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
        "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n"
    )
    found = findings_of(node_text("n1") + "---\n" + owned_pod("web-1", spec=spec))
    assert CONTROLLER_ABSENT not in found and SERVICES_ABSENT not in found


def test_a_profile_without_default_constraints_does_not_read_the_controller():
    found = findings_of(node_text("n1") + "---\n" + owned_pod("web-1") + CONFIG_WITHOUT_SPREADING)
    assert CONTROLLER_ABSENT not in found and NO_CONFIG not in found


def test_owners_default_spreading_does_not_read_are_not_findings():
    """DefaultSelector accepts only apps/v1 ReplicaSet and StatefulSet and v1 ReplicationController;
    a running pod's owner is read by no cycle."""
    found = findings_of(
        node_text("n1")
        + "---\n"
        + owned_pod("job-1", "Job", "batch/v1")
        + "---\n"
        + owned_pod("web-2").replace("spec:", "spec:\n  nodeName: n1", 1)
    )
    assert CONTROLLER_ABSENT not in found


def test_a_missing_statefulset_is_fetched_by_its_own_kind():
    found = findings_of(node_text("n1") + "---\n" + owned_pod("db-0", "StatefulSet"))
    assert found[CONTROLLER_ABSENT].fix == "kubectl get statefulsets -n default db-0-rs -o yaml"


# ---------------------------------------------------------------------------- namespaces


def test_a_namespace_selector_over_undeclared_namespaces_is_a_finding():
    spec = """  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
        namespaceSelector: {matchLabels: {team: shop}}
"""
    text = node_text("n1") + "---\n" + pod_text("web", spec=spec).replace("name: web,", "name: web, namespace: shop,")
    found = findings_of(text)[NAMESPACES_ABSENT]
    assert found.objects == ["Pod shop/web", "Namespace shop"]
    assert found.fix == "kubectl get namespaces shop -o yaml"
    declared = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: shop}}\n"
    assert NAMESPACES_ABSENT not in findings_of(text + declared)


def test_an_empty_namespace_selector_needs_no_labels():
    spec = """  affinity:
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname, namespaceSelector: {}}
"""
    assert NAMESPACES_ABSENT not in findings_of(node_text("n1") + "---\n" + pod_text("web", spec=spec))


# ---------------------------------------------------------------------------- storage and priority


def claim_text(name: str, volume: str = "", storage_class: str = "") -> str:
    bound = f"\n  volumeName: {volume}" if volume else ""
    named = f"\n  storageClassName: {storage_class}" if storage_class else ""
    return f"""---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}, namespace: default}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}{bound}{named}
"""


def using(name: str, *claims: str) -> str:
    volumes = ", ".join(f"{{name: v{i}, persistentVolumeClaim: {{claimName: {c}}}}}" for i, c in enumerate(claims))
    return pod_text(name, spec=f"  volumes: [{volumes}]\n")


def test_claims_volumes_and_classes_named_but_absent_are_findings():
    text = (
        node_text("n1")
        + "---\n"
        + using("app", "data", "logs")
        + claim_text("logs", volume="pv-logs", storage_class="gp3")
    )
    found = findings_of(text)
    assert found[CLAIMS_ABSENT].objects == ["PersistentVolumeClaim default/data", "Pod default/app"]
    assert found[CLAIMS_ABSENT].fix == "kubectl get persistentvolumeclaims -n default data -o yaml"
    assert found[VOLUMES_ABSENT].objects == ["PersistentVolume pv-logs", "PersistentVolumeClaim default/logs"]
    assert found[VOLUMES_ABSENT].fix == "kubectl get persistentvolumes pv-logs -o yaml"
    assert found[STORAGE_CLASSES_ABSENT].fix == "kubectl get storageclasses gp3 -o yaml"


def test_a_priority_class_named_but_absent_is_a_finding_and_the_system_ones_are_not():
    named = "  priority: 1000\n  priorityClassName: batch-high\n"
    system = "  priority: 2000000000\n  priorityClassName: system-cluster-critical\n"
    found = findings_of(node_text("n1") + "---\n" + pod_text("a", spec=named) + "---\n" + pod_text("b", spec=system))
    assert found[PRIORITY_CLASSES_ABSENT].objects == ["PriorityClass batch-high", "Pod default/a"]
    assert found[PRIORITY_CLASSES_ABSENT].fix == "kubectl get priorityclasses batch-high -o yaml"


# ---------------------------------------------------------------------------- nodes, configuration, fetch lines


def test_a_not_ready_node_without_its_taints_is_a_finding_naming_the_node():
    found = {f.code: f for f in find_all(load_scenario((DUMPS / "eks_notready_recorded.yaml").read_bytes()))}
    taints = found[NODE_TAINTS_MISSING]
    assert taints.objects == ["Node ip-10-0-3-77.eu-west-1.compute.internal"]
    assert "lacks node.kubernetes.io/not-ready:NoSchedule, node.kubernetes.io/not-ready:NoExecute" in taints.message
    assert taints.fix is None


def test_the_fetch_lines_group_names_by_kind_and_namespace_once_each():
    text = (
        node_text("n1") + "---\n" + using("a", "x", "z") + "---\n" + using("b", "z")
    )  # not "y": go-yaml reads it as true
    findings = find_all(load_scenario(text))
    assert fetch_commands(findings) == [
        "kubectl get persistentvolumeclaims -n default x z -o yaml",
        "kubectl version -o yaml > version.yaml   # add it to the dump",
    ]
    assert [f.to_json()["code"] for f in findings] == [CLAIMS_ABSENT, NO_CONFIG, RELEASE_ASSUMED]


def test_how_sure_the_release_is_is_a_finding_unless_the_dump_or_the_user_says_it():
    assumed = {f.code for f in find_all(load_scenario(node_text("n1")))}
    assert RELEASE_ASSUMED in assumed
    dump = load_scenario((ROOT / "examples" / "cluster-info-dump" / "nodes.json").read_bytes())
    kubelets = {f.code: f for f in find_all(dump)}
    assert "newest kubelet" in kubelets[RELEASE_FROM_KUBELETS].message
    kubeadm = {f.code for f in find_all(load_scenario((DUMPS / "kubeadm_coredns_partial.yaml").read_bytes()))}
    assert not kubeadm & {RELEASE_ASSUMED, RELEASE_FROM_KUBELETS, RELEASE_NEAREST}
    old = node_text("n1").replace("status: {", "status: {nodeInfo: {kubeletVersion: v1.29.4}, ", 1)
    nearest = {f.code: f for f in find_all(load_scenario(old))}
    assert "not a supported release" in nearest[RELEASE_NEAREST].message


def test_hand_written_pods_without_an_owner_do_not_ask_for_services():
    """No owner reference: a scenario written by hand, not a dump that lost its Services."""
    found = findings_of(node_text("n1") + "---\n" + pod_text("web", labels="{app: web}"))
    assert SERVICES_ABSENT not in found
    assert SERVICES_ABSENT in findings_of(node_text("n1") + "---\n" + owned_pod("web-1"))


def test_it_names_the_claims_templates_and_device_classes_a_dump_lacks():
    """DynamicResources' PreEnqueue holds a pod whose claim or template is absent (isSchedulable's
    'ResourceClaim not created yet' / not found) and PreFilter rejects a request whose class is absent."""
    scenario = load_scenario("""apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: default}
spec:
  containers: [{name: c, image: pause, resources: {claims: [{name: gpu}, {name: shared}]}}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: shared, resourceClaimName: shared-gpus}
""")
    [finding] = [f for f in find_all(scenario) if f.code == DRA_OBJECTS_ABSENT]
    assert finding.objects == ["ResourceClaim default/shared-gpus", "DeviceClass gpu.example.com", "Pod default/train"]
    assert "kubectl get resourceclaims -n default shared-gpus -o yaml" in finding.fix
    assert "kubectl get deviceclasses gpu.example.com -o yaml" in finding.fix


_CLAIMING_POD = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: default}
spec:
  containers: [{name: c, image: pause, resources: {claims: [{name: gpu}]}}]
  resourceClaims:
  - {name: gpu, resourceClaimName: gpus}
"""


def test_pods_with_claims_where_dynamic_resource_allocation_is_off_say_how_to_turn_it_on():
    """v1.32 and v1.33 keep DynamicResourceAllocation off by default: their API server drops a pod's
    claims and their scheduler has no DynamicResources, so a dump whose pods have claims came from a
    cluster that turned it on. Said instead of the objects it lacks (nothing would read them)."""

    def codes(gates: dict[str, bool] | None) -> dict[str, object]:
        scenario = load_scenario(_CLAIMING_POD, release=ReleaseRequest(release_named("v1.33"), gates))
        return {f.code: f for f in find_all(scenario)}

    off = codes(None)
    assert DRA_OBJECTS_ABSENT not in off
    finding = off[DRA_OFF]
    assert finding.objects == ["Pod default/train"] and finding.fix is None
    assert "DynamicResourceAllocation is off in v1.33 (its default)" in finding.message
    assert "--feature-gates DynamicResourceAllocation=true" in finding.message
    on = codes({"DynamicResourceAllocation": True})
    assert DRA_OFF not in on and DRA_OBJECTS_ABSENT in on
    assert DRA_OFF not in {f.code for f in find_all(load_scenario(_CLAIMING_POD))}  # v1.35: on
