"""A step's operations (run/steps/operations.py): scale, patch, create, delete and complete as the
API writes they make, and an operation that writes nothing saying why."""

from __future__ import annotations

import pytest

from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model import ObjectRef
from scheduler_core.run.steps.operations import pod_deletion_costs
from tests.scheduler_core.builders import (
    changes_text,
    gpu_devices_text,
    node_text,
    pod_text,
    scenario_text,
    workload_text,
)
from tests.scheduler_core.run.steps.support import changes_of, moves_of, run


def test_an_operation_that_writes_nothing_says_why_and_one_that_writes_says_nothing_more():
    text = scenario_text(
        node_text("n1"),
        workload_text("Deployment", "web", replicas=1),
        changes_text(
            [
                "scale: {kind: Deployment, namespace: default, name: web, replicas: 1}",
                "cordon: {node: n1}",
                "cordon: {node: n1}",
            ]
        ),
    )
    _, events, _ = run(text)
    assert [
        (c.payload.object, c.payload.detail) for c in changes_of(events, ClusterChangeKind.OPERATION_UNCHANGED)
    ] == [
        ("scale Deployment default/web to 1", "wrote nothing: it has 1 replicas already"),
        ("cordon n1", "wrote nothing: its node is unschedulable already"),
    ]


def test_it_moves_a_pod_waiting_for_a_volume_when_a_step_creates_a_matching_persistent_volume():
    """VolumeBinding rejects a pod whose claim (WaitForFirstConsumer, no provisioner) no volume
    matches; a step creates a matching volume: PersistentVolume/Add, VolumeBinding's hint queues
    the pod, and it binds."""
    storage_class = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: manual}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
"""
    claim = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {storageClassName: manual, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
    pod = pod_text("p", spec="  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]\n")
    volume = (
        "create: {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv1}, spec: {storageClassName: manual, "
        "capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}, status: {phase: Available}}"
    )
    _, events, timeline = run(scenario_text(node_text("n1"), storage_class, claim, pod, changes_text([volume])))
    assert [a["nodeName"] for a in timeline["attempts"]] == [None, "n1"]
    assert [m.plugins for m in moves_of(events, "default/p") if m.event == "PersistentVolumeAdd"] == [["VolumeBinding"]]


def test_it_creates_a_deployment_in_one_step_and_scales_it_in_the_next():
    """create (Deployment) -> the Deployment stand-in's ReplicaSet -> its pods; scale later."""
    deployment = (
        "create: {apiVersion: apps/v1, kind: Deployment, metadata: {name: api, namespace: default}, spec: "
        "{replicas: 1, selector: {matchLabels: {app: api}}, template: {metadata: {labels: {app: api}}, "
        "spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}}"
    )
    text = scenario_text(
        node_text("n1"),
        changes_text(
            [deployment], ["scale: {kind: Deployment, name: api, replicas: 3}"], ["deleteNodes: {names: [n1]}"]
        ),
    )
    _, _, timeline = run(text)
    assert [len(s["created"]) for s in timeline["steps"]] == [0, 1, 2, 3]
    assert [len(s["pending"]) for s in timeline["steps"]] == [0, 0, 0, 3]
    assert sorted(v for v in timeline["final"].values() if v) == ["deleted"] * 3


def test_it_deletes_a_workloads_pods_through_the_garbage_collector_when_the_workload_is_deleted():
    """delete (ReplicaSet): background propagation, the garbage collector deletes the pods it
    controls (gracefully: the kubelet stand-in removes them 300 ms apart)."""
    text = scenario_text(
        node_text("n1"),
        workload_text("ReplicaSet", "web", replicas=2, cpu="1"),
        changes_text(["delete: {kind: ReplicaSet, name: web}"]),
    )
    _, events, timeline = run(text)
    assert timeline["steps"][1]["deleted"] == ["default/web-1", "default/web-2"]
    assert [e.payload.time_ms for e in changes_of(events, ClusterChangeKind.POD_REMOVED)] == [1300, 1600]
    assert timeline["final"] == {"default/web-1": "deleted", "default/web-2": "deleted"}


def test_it_completes_a_job_so_its_pods_leave_and_free_their_room():
    """complete: the Job's pods succeed; the scheduler's informer drops finished pods (a
    delete), Fit's hint queues the pod waiting for room."""
    text = scenario_text(
        node_text("n1", cpu="2"),
        workload_text("Job", "etl", replicas=2, cpu="1"),
        pod_text("later", cpu="2"),
        changes_text(["complete: {kind: Job, name: etl}"]),
    )
    _, _, timeline = run(text)
    assert timeline["final"]["default/later"] == "n1"
    assert timeline["final"]["default/etl-1"] == "succeeded" and timeline["steps"][1]["created"] == []
    assert (
        timeline["steps"][1]["succeeded"] == ["default/etl-1", "default/etl-2"]
        and timeline["steps"][1]["deleted"] == []
    )


def test_it_deletes_a_pod_gracefully_and_the_kubelet_removes_it_300_ms_later():
    text = scenario_text(node_text("n1"), pod_text("p", node_name="n1"), changes_text(["delete: {kind: Pod, name: p}"]))
    _, events, timeline = run(text)
    removed = changes_of(events, ClusterChangeKind.POD_REMOVED)
    assert [e.payload.time_ms for e in removed] == [1300] and timeline["final"]["default/p"] == "deleted"


def test_pods_a_step_creates_with_claims_each_have_their_own_uid_so_one_removal_releases_only_its_claims():
    """Pods written by `create` operations get a uid, as the scenario's pods with claims do (the
    API server gives every pod one): the stand-in resourceclaim controller releases the claims
    reserved for, and deletes those owned by, the removed pod's uid. With no uid, removing `b`
    released `c`'s claim while `c` ran and deleted the fresh claim of `d`, which then stayed
    pending for ever."""

    def gpu_pod(name: str) -> str:
        return (
            f"create: {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: default}}, "
            "spec: {containers: [{name: c, resources: {claims: [{name: gpu}]}}], "
            "resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}}"
        )

    text = scenario_text(
        node_text("n1", cpu="8"),
        gpu_devices_text(devices=3),
        changes_text([gpu_pod("b"), gpu_pod("c")], ["delete: {kind: Pod, namespace: default, name: b}", gpu_pod("d")]),
    )
    loop, _, timeline = run(text)
    assert {key: timeline["final"][key] for key in ("default/c", "default/d")} == {"default/c": "n1", "default/d": "n1"}
    uids = {pod.name: pod.uid for pod in loop.stand_ins.steps.state.pods}
    assert len({uids["b"], uids["c"], uids["d"]}) == 3 and all(uids.values())
    held = {claim.owner_references[0].uid: claim for claim in loop.kube_scheduler.snapshot.dra.claims.values()}
    assert sorted(held) == sorted([uids["c"], uids["d"]])
    assert all(
        claim.allocation is not None and [ref.uid for ref in claim.reserved_for] == [uid] for uid, claim in held.items()
    )


def test_a_pod_created_again_under_a_used_name_gets_another_uid():
    again = (
        "create: {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: default}, "
        "spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}}"
    )
    text = scenario_text(
        node_text("n1", cpu="8"),
        gpu_devices_text(devices=2),
        changes_text([again], ["delete: {kind: Pod, namespace: default, name: b}"], [again]),
    )
    loop, _, timeline = run(text)
    made = [pod for pod in loop.stand_ins.steps.state.pods if pod.name == "b"]
    assert [pod.uid for pod in made] == ["uid-pod-default-b", "uid-pod-default-b-2"]
    assert timeline["final"]["default/b"] == "n1"


@pytest.mark.parametrize(
    "change",
    [
        "set: {name: web, requests: {cpu: 500m}}",
        "patch: {kind: Deployment, namespace: default, name: web, patch: {metadata: {labels: {tier: front}}}}",
    ],
)
def test_a_template_change_after_a_scale_keeps_the_scaled_size(change):
    """A merge patch applies to the live object: `scale` wrote spec.replicas 5, so a later change of
    the template (or of anything else) keeps 5 replicas — it used to merge onto the manifest as
    first written and put 3 back (found by the differential check against the release's logic)."""
    deployment = workload_text("Deployment", "web", replicas=3, cpu="100m")
    scale = "scale: {kind: Deployment, namespace: default, name: web, replicas: 5}"
    loop, _, timeline = run(scenario_text(node_text("n1", cpu="4"), deployment, changes_text([scale], [change])))
    assert loop.cluster.workload("Deployment", "default", "web").replicas == 5
    running = [pod for pod, node in timeline["final"].items() if node not in (None, "deleted", "succeeded")]
    assert len(running) == 5


def test_the_deletion_cost_of_every_pod_manifest_that_carries_one():
    def pod(cost: str) -> dict:
        return {"metadata": {"annotations": {"controller.kubernetes.io/pod-deletion-cost": cost}}}

    objects = {
        ObjectRef("Pod", "default", "a"): pod("10"),
        ObjectRef("Pod", "default", "b"): pod("0"),
        ObjectRef("Pod", "default", "c"): {},
        ObjectRef("Deployment", "default", "d"): pod("7"),
    }
    assert pod_deletion_costs(objects) == {"default/a": 10}
