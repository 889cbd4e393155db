"""The pod and claim writes of the controllers (run/steps/pod_control.py): a StatefulSet's claims
before its pods, the claims of controller-made pods from templates, a replacement made as soon as
a preemption victim terminates."""

from __future__ import annotations

from scheduler_core.encoding.events import ClusterChangeKind, ExtensionPoint
from tests.scheduler_core.builders import changes_text, gpu_devices_text, node_text, scenario_text, workload_text
from tests.scheduler_core.run.steps.support import moves_of, run


def test_it_scales_a_stateful_set_with_claim_templates_and_binds_the_claims_through_volume_binding():
    """The StatefulSet stand-in creates data-db-<n> before db-<n>, one ordinal at a time
    (OrderedReady); VolumeBinding's PreBind selects the node and the stand-in provisioner binds
    each claim, so every pod runs with its own bound claim."""
    storage_class = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
"""
    claims = """  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
    text = scenario_text(
        node_text("n1"),
        node_text("n2"),
        storage_class,
        workload_text("StatefulSet", "db", replicas=1, cpu="1", extra_spec=claims),
        changes_text(["scale: {kind: StatefulSet, name: db, replicas: 3}"]),
    )
    loop, events, timeline = run(text)
    claims_state = loop.kube_scheduler.snapshot.storage.claims
    for ordinal in range(3):
        claim = claims_state[f"default/data-db-{ordinal}"]
        assert claim.storage_class_name == "local" and claim.is_fully_bound
        assert timeline["final"][f"default/db-{ordinal}"] in ("n1", "n2")
    created = [
        e
        for e in events
        if e.extension_point is ExtensionPoint.CLUSTER
        and e.payload.kind in (ClusterChangeKind.POD_CREATED, ClusterChangeKind.POD_BOUND)
    ]
    order = [(e.payload.kind.value, e.pod) for e in created]
    assert order.index(("PodBound", "default/db-1")) < order.index(("PodCreated", "default/db-2"))
    assert timeline["steps"][1]["created"] == ["default/db-1", "default/db-2"]


GPU_POD_SPEC = "      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"


def test_pods_a_deployment_scale_up_creates_get_claims_from_templates_and_release_them_when_they_go():
    """resourceclaim controller (pkg/controller/resourceclaim/controller.go, syncPod -> handleClaim):
    a pod the ReplicaSet stand-in creates gets one claim per template (named as the stand-in names
    them, owned by the pod) and then its status.resourceClaimStatuses, exactly as a pending pod of
    the scenario; DynamicResources.PreEnqueue holds it till then. The third pod finds no free GPU
    (Filter: cannot allocate all claims). Scaling down deletes the pending pod at once and the newest
    bound one through the kubelet; their claims are released and deleted (the pods' claims go)."""
    from scheduler_core.dra.claims import generated_claim_name

    deployment = workload_text("Deployment", "train", replicas=1, cpu="1", pod_spec=GPU_POD_SPEC)
    text = scenario_text(
        node_text("n1", cpu="8"),
        gpu_devices_text(),
        deployment,
        changes_text(
            ["scale: {kind: Deployment, name: train, replicas: 3}"],
            ["scale: {kind: Deployment, name: train, replicas: 1}"],
        ),
    )
    loop, events, timeline = run(text)
    made = [pod for pod in loop.stand_ins.steps.state.pods if pod.name.startswith("train-")]
    assert len(made) == 3
    for pod in made:
        expected = generated_claim_name("default", pod.name, "gpu")
        assert pod.claim_statuses == (("gpu", expected),)
        holds = [m for m in moves_of(events, pod.key)][:2]
        assert [(m.queue, m.event) for m in holds] == [
            ("unschedulablePods", "UnschedulablePodAdd"),
            ("activeQ", "UnschedulablePodUpdatePodGeneratedResourceClaim"),
        ]
    placed = [a for a in timeline["attempts"] if a["nodeName"] == "n1"]
    refused = [a for a in timeline["attempts"] if a["nodeName"] is None]
    assert len(placed) == 2 and refused
    assert "cannot allocate all claims" in refused[0]["failedSchedulingMessage"]
    kept = [pod for pod in made if timeline["final"].get(pod.key) == "n1"]
    assert len(kept) == 1
    claims = loop.kube_scheduler.snapshot.dra.claims
    assert sorted(claims) == [f"default/{generated_claim_name('default', kept[0].name, 'gpu')}"]
    remaining = next(iter(claims.values()))
    assert [ref.uid for ref in remaining.reserved_for] == [kept[0].uid] and remaining.allocation is not None


def test_it_replaces_a_preemption_victim_of_a_replica_set_as_soon_as_it_terminates():
    """The ReplicaSet stand-in counts a terminating victim as gone (FilterActivePods): its
    replacement is created when the scheduler deletes the victim, and stays pending."""
    create_urgent = (
        "create: {apiVersion: v1, kind: Pod, metadata: {name: urgent}, spec: {priority: 100, "
        "containers: [{name: c, resources: {requests: {cpu: '2'}}}]}}"
    )
    text = scenario_text(
        node_text("n1", cpu="2"), workload_text("ReplicaSet", "web", replicas=1, cpu="2"), changes_text([create_urgent])
    )
    _, events, timeline = run(text)
    assert timeline["final"] == {"default/urgent": "n1", "default/web-1": "deleted", "default/web-2": None}
    step = timeline["steps"][1]
    assert step["deleted"] == ["default/web-1"] and step["created"] == ["default/urgent", "default/web-2"]
