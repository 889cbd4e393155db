"""What changes if we upgrade: two releases' runs compared, each difference with its cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.answers.upgrade import compare_releases, upgrade_counts
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario.errors import ScenarioInvalid
from scheduler_core.scenario.loader import load_scenario

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

# Two nodes, one pod of cpu only: v1.35 scores the balance with the pod (n1 87, n2 75: n1 wins),
# v1.36 the change it makes (n1 68, n2 69: n2 wins) — BalancedAllocation's v1.36 formula alone.
SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: n2
  containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: NodeResourcesFit}]
"""


def test_the_balanced_allocation_change_is_named_as_the_cause_of_a_pod_landing_elsewhere():
    scenario = load_scenario(SCENARIO)
    result = compare_releases(scenario, release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    assert (result.old, result.new) == ("v1.35.4", "v1.36.3")
    [row] = result.pods
    assert (row.pod, row.old_node, row.new_node) == ("default/web", "n1", "n2")
    assert row.causes == ["balanced_allocation_scores_the_change"]
    assert "NodeResourcesBalancedAllocation" in row.plugins
    text = "\n".join(result.lines())
    assert "1 pod(s) land elsewhere" in text and "kubernetes#135573" in text
    quiet = {c.name for c in result.changes if c.checked and not (c.explains or c.touches or c.plugins)}
    assert "NodeDeclaredFeatures" in quiet


def test_nothing_differs_between_a_release_and_itself():
    scenario = load_scenario(SCENARIO)
    result = compare_releases(scenario, release_named("v1.36"), release_named("v1.36"), run_to_the_end)
    assert result.pods == [] and result.changes == []
    assert result.summary.startswith("nothing changes")


def test_dra_only_changes_are_not_run_on_a_cluster_without_devices_and_progress_is_told():
    told = []
    scenario = load_scenario(SCENARIO)
    result = compare_releases(
        scenario,
        release_named("v1.35"),
        release_named("v1.36"),
        run_to_the_end,
        progress=lambda done, total, what: told.append((done, total)),
    )
    unchecked = {c.name for c in result.changes if not c.checked}
    assert "DRADeviceTaints" in unchecked and "DynamicResourceAllocation" not in unchecked
    assert told[-1][0] == told[-1][1]


def test_an_older_cluster_names_every_change_that_moves_its_scores():
    scenario = load_scenario((EXAMPLES / "preemption.yaml").read_bytes())
    result = compare_releases(scenario, release_named("v1.32"), release_named("v1.36"), run_to_the_end)
    causes = {cause for row in result.pods for found in row.plugin_causes.values() for cause in found}
    assert {"balanced_allocation_scores_the_change", "dynamic_resources_scores"} <= causes
    assert result.to_json()["new"] == "v1.36.3"


def test_the_counts_are_the_summary_s_numbers_and_the_causes_what_does_something_here():
    scenario = load_scenario(SCENARIO)
    result = compare_releases(scenario, release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    counts = upgrade_counts(result)
    assert (counts.elsewhere, counts.more_pending, counts.rescored, counts.reworded) == (1, 0, 1, 0)
    assert counts.causes == ["balanced_allocation_scores_the_change"]
    assert counts.to_json() == {
        "elsewhere": 1,
        "morePending": 0,
        "rescored": 1,
        "reworded": 0,
        "causes": ["balanced_allocation_scores_the_change"],
    }
    nothing = compare_releases(scenario, release_named("v1.36"), release_named("v1.36"), run_to_the_end)
    assert upgrade_counts(nothing).to_json() == {"elsewhere": 0, "morePending": 0, "rescored": 0, "reworded": 0}


TAINTED_GPU = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: example.com/broken, effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: plain, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpu, resourceClaimName: plain}]
"""


def test_the_newer_release_replays_the_dra_fields_its_api_server_keeps():
    """Loaded as v1.35 (the taint dropped), replayed as v1.36 with the taint its API server keeps."""
    scenario = load_scenario(TAINTED_GPU, release=ReleaseRequest(release_named("v1.35")))
    assert scenario.dra.slices[0].devices[0].taints == ()
    result = compare_releases(scenario, release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    [row] = result.pods
    assert (row.old_node, row.new_node, row.causes) == ("n1", None, ["DRADeviceTaints"])


def test_a_release_turning_a_gate_on_schedlab_does_not_replay_refuses_the_comparison():
    """DRADeviceBindingConditions is alpha in v1.35: asked on there (--feature-gates), its fields are refused."""
    bound = TAINTED_GPU.replace("  - name: gpu-0\n", "  - name: gpu-0\n    bindsToNode: true\n", 1)
    assert "bindsToNode" in bound
    scenario = load_scenario(bound, release=ReleaseRequest(release_named("v1.36")))
    gates = {"DRADeviceBindingConditions": True}
    with pytest.raises(ScenarioInvalid) as raised:
        compare_releases(scenario, release_named("v1.35"), release_named("v1.36"), run_to_the_end, gates=gates)
    [error] = raised.value.errors
    assert "SchedLab does not replay DRADeviceBindingConditions yet: the gate is on in v1.35 with --feature-gates" in (
        error.message
    )


def test_a_change_the_newer_release_cannot_be_run_without_is_said_refused_not_dropped():
    """v1.33 has DRAPrioritizedList off (and DRA itself): v1.35 with it put back drops the claim's
    firstAvailable and its API server refuses the request left with nothing. The comparison goes on
    and says why that change was not run."""
    prioritized = TAINTED_GPU.replace(
        "      exactly: {deviceClassName: gpu}\n", "      firstAvailable: [{name: any, deviceClassName: gpu}]\n"
    )
    assert "firstAvailable" in prioritized
    scenario = load_scenario(prioritized, release=ReleaseRequest(release_named("v1.35")))
    result = compare_releases(scenario, release_named("v1.33"), release_named("v1.35"), run_to_the_end)
    [change] = [c for c in result.changes if c.name == "DRAPrioritizedList"]
    assert not change.checked and change.refused == (
        "ResourceClaim default/plain: spec.devices.requests[0]: Required value: exactly one of `exactly` or "
        "`firstAvailable` is required"
    )
    assert all(c.refused is None for c in result.changes if c.name != "DRAPrioritizedList")
    assert "Not run: DRAPrioritizedList put back, v1.35.4 refuses this cluster: ResourceClaim default/plain" in (
        "\n".join(result.lines())
    )


def test_an_upgrade_to_v1_36_makes_a_pod_wait_for_a_device_nobody_attaches():
    """examples/dra_binding_conditions.yaml: v1.35's API server drops the binding conditions and
    train-1 is bound at once; v1.36 waits for them in vain, and the pod stays pending."""
    example = (Path(__file__).resolve().parents[3] / "examples" / "dra_binding_conditions.yaml").read_text()
    result = compare_releases(load_scenario(example), release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    moved = {pod.pod: pod for pod in result.pods}
    assert (moved["default/train-1"].old_node, moved["default/train-1"].new_node) == ("node-1", None)
    assert "DRADeviceBindingConditions" in moved["default/train-1"].touched_by


def test_an_upgrade_to_v1_36_gives_a_pod_devices_for_its_extended_resource():
    """examples/dra_extended_gpu.yaml: v1.35's API server drops the class's extendedResourceName and
    no node advertises 2 GPUs; v1.36 meets train-0's request with node-1's devices, the change named."""
    example = (Path(__file__).resolve().parents[3] / "examples" / "dra_extended_gpu.yaml").read_text()
    result = compare_releases(load_scenario(example), release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    moved = {pod.pod: pod for pod in result.pods}
    assert (moved["default/train-0"].old_node, moved["default/train-0"].new_node) == (None, "node-1")
    assert "DRAExtendedResource" in {change.name for change in result.changes if change.explains}


def test_an_upgrade_to_v1_36_replays_shared_devices_the_older_release_held_whole():
    """examples/dra_shared_nic.yaml: v1.35's API server drops the NICs' sharing (db-0's claim holds
    node-1's NIC whole); v1.36 keeps it, and web-1 goes from Pending to node-1, the change named."""
    example = (Path(__file__).resolve().parents[3] / "examples" / "dra_shared_nic.yaml").read_text()
    result = compare_releases(load_scenario(example), release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    moved = {pod.pod: pod for pod in result.pods}
    assert (moved["default/web-1"].old_node, moved["default/web-1"].new_node) == (None, "node-1")
    assert "DRAConsumableCapacity" in {change.name for change in result.changes if change.explains}


def test_the_declared_features_code_changes_are_run_only_for_pods_needing_a_node_feature():
    scenario = load_scenario(SCENARIO)
    result = compare_releases(scenario, release_named("v1.35"), release_named("v1.36"), run_to_the_end)
    unchecked = {c.name for c in result.changes if not c.checked}
    assert {"declared_features_reason_unnamed", "declared_features_user_namespaces_host_network"} <= unchecked
