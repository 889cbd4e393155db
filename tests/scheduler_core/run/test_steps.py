"""Runs with steps (../shared/spec/CHANGES.md): each operation as API writes through the release's informer
handlers and queueing hints, the controllers reacting, the step summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core.encoding.events import ClusterChangeKind, ExtensionPoint
from scheduler_core.run.loop import ClusterRun, run_to_the_end
from scheduler_core.scenario import load_scenario
from scheduler_core.encoding.timeline import timeline_summary
from tests.scheduler_core.builders import (
    budget_text,
    changes_text,
    gpu_devices_text,
    node_text,
    pod_text,
    scenario_text,
    workload_text,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"


def run(text: str):
    run_ = ClusterRun(load_scenario(text))
    events = list(run_.run())
    return run_, events, timeline_summary(events)


def changes_of(events, kind: ClusterChangeKind) -> list:
    return [e for e in events if e.extension_point is ExtensionPoint.CLUSTER and e.payload.kind is kind]


def moves_of(events, pod: str) -> list:
    return [e.payload for e in events if e.extension_point is ExtensionPoint.QUEUE_MOVE and e.pod == pod]


# ---------------------------------------------------------------------------- nodes


def test_it_moves_a_pod_rejected_for_room_when_a_step_adds_a_node_that_fits_it_through_fits_node_hint():
    """addNodeToCache -> MoveAllToActiveOrBackoffQueue(Node/Add) -> Fit.isSchedulableAfterNodeChange:
    the new node fits the pod's requests, so the hint queues it and the next attempt places it."""
    big_node = (
        "create: {apiVersion: v1, kind: Node, metadata: {name: big, labels: {kubernetes.io/hostname: big}}, "
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}"
    )
    _, events, timeline = run(
        scenario_text(node_text("small", cpu="1"), pod_text("wants-2", cpu="2"), changes_text([big_node]))
    )
    assert [(a["pod"], a["nodeName"], a["step"]) for a in timeline["attempts"]] == [
        ("default/wants-2", None, 0),
        ("default/wants-2", "big", 1),
    ]
    # The step comes at 1 s, when the pod's 1 s back-off ends: with SchedulerPopFromBackoffQ (v1.35)
    # isPodBackingoff compares windows and counts equality as still backing off, so the move goes
    # to backoffQ, and the flush of that same window pops it at once.
    moved = [(m.time_ms, m.queue, m.event, m.plugins) for m in moves_of(events, "default/wants-2")]
    assert moved[2:] == [
        (1000, "backoffQ", "NodeAdd", ["NodeResourcesFit"]),
        (1000, "activeQ", "PopFromBackoffQ", []),
    ]
    assert timeline["steps"][1]["pending"] == [] and timeline["final"]["default/wants-2"] == "big"


def test_it_leaves_the_pod_unschedulable_when_the_added_node_is_too_small_too():
    """Fit.isSchedulableAfterNodeChange answers QueueSkip when the pod does not fit the new node
    even empty (isFit): no move, no attempt, the pod stays pending."""
    _, events, timeline = run(
        scenario_text(
            node_text("small", cpu="1"),
            pod_text("wants-2", cpu="2"),
            changes_text(["addNodes: {like: small, count: 2, prefix: more-}"]),
        )
    )
    assert not [m for m in moves_of(events, "default/wants-2") if m.event == "NodeAdd"]
    assert len(timeline["attempts"]) == 1
    assert timeline["steps"][1]["pending"] == ["default/wants-2"]
    assert [c.payload.object for c in changes_of(events, ClusterChangeKind.NODE_ADDED)] == ["more-1", "more-2"]


def test_it_copies_labels_taints_and_allocatable_and_names_the_host_in_add_nodes():
    loop, _, _ = run(
        scenario_text(
            node_text("n1", cpu="3", labels=", zone: a", taints="{key: k, value: v, effect: NoSchedule}"),
            changes_text(["addNodes: {like: n1, count: 1, prefix: p-, labels: {pool: b}}"]),
        )
    )
    added = loop.kube_scheduler.snapshot.get("p-1").node
    assert added.labels == {"kubernetes.io/hostname": "p-1", "zone": "a", "pool": "b"}
    assert [t.key for t in added.taints] == ["k"] and added.allocatable["cpu"] == 3000


def test_it_moves_pods_rejected_by_node_unschedulable_when_a_node_is_uncordoned():
    """extractNodeSpecUnschedulableChange: clearing spec.unschedulable is an UpdateNodeTaint event,
    which NodeUnschedulable's hint queues; cordoning gives no event at all."""
    cordoned = node_text("n1").replace("spec: {taints: []}", "spec: {taints: [], unschedulable: true}")
    _, events, timeline = run(scenario_text(cordoned, pod_text("p"), changes_text(["uncordon: {node: n1}"])))
    assert [c.payload.detail for c in changes_of(events, ClusterChangeKind.NODE_UPDATED)] == ["NodeUpdateNodeTaint"]
    assert [m.plugins for m in moves_of(events, "default/p") if m.event == "NodeUpdateNodeTaint"] == [
        ["NodeUnschedulable"]
    ]
    assert timeline["final"]["default/p"] == "n1"
    _, events, _ = run(scenario_text(node_text("n1"), changes_text(["cordon: {node: n1}"])))
    assert [c.payload.detail for c in changes_of(events, ClusterChangeKind.NODE_UPDATED)] == ["no scheduling change"]


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


def test_it_moves_a_pod_rejected_by_node_affinity_when_a_patch_gives_the_node_the_label():
    """NodeSchedulingPropertiesChange -> UpdateNodeLabel -> NodeAffinity's hint queues the pod."""
    pod = pod_text("p", spec="  nodeSelector: {disk: ssd}\n")
    patch = "patch: {kind: Node, name: n1, patch: {metadata: {labels: {disk: ssd}}}}"
    _, events, timeline = run(scenario_text(node_text("n1"), pod, changes_text([patch])))
    assert [c.payload.detail for c in changes_of(events, ClusterChangeKind.NODE_UPDATED)] == ["NodeUpdateNodeLabel"]
    assert [m.plugins for m in moves_of(events, "default/p") if m.event == "NodeUpdateNodeLabel"] == [["NodeAffinity"]]
    assert timeline["final"]["default/p"] == "n1"


@pytest.mark.parametrize(
    "node, pod",
    [
        pytest.param(node_text("n1"), pod_text("p", spec="  nodeSelector: {disk: ssd}\n"), id="NodeAffinity"),
        pytest.param(
            node_text("n1", taints="{key: dedicated, value: gpu, effect: NoSchedule}"),
            pod_text("p"),
            id="TaintToleration",
        ),
    ],
)
def test_nodes_added_like_the_one_that_rejected_the_pod_do_not_move_it(node, pod):
    """The release's hints for node events (isSchedulableAfterNodeChange of NodeAffinity,
    TaintToleration and NodeUnschedulable): a node added that the pod still does not match,
    tolerate or may not use says QueueSkip, so the pod is not tried again."""
    _, events, timeline = run(scenario_text(node, pod, changes_text(["addNodes: {like: n1, count: 2, prefix: more-}"])))
    assert [c.payload.object for c in changes_of(events, ClusterChangeKind.NODE_ADDED)] == ["more-1", "more-2"]
    assert not [m for m in moves_of(events, "default/p") if m.event == "NodeAdd"]
    assert len(timeline["attempts"]) == 1 and timeline["steps"][1]["pending"] == ["default/p"]


def test_a_node_created_cordoned_does_not_move_a_pod_that_only_cordoned_nodes_rejected():
    """NodeUnschedulable's hint: a node added with spec.unschedulable says QueueSkip (addNodes
    copies no cordon, so the node is created as an object)."""
    cordoned = node_text("n1").replace("spec: {taints: []}", "spec: {taints: [], unschedulable: true}")
    created = (
        "create: {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, "
        "spec: {unschedulable: true}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}"
    )
    _, events, timeline = run(scenario_text(cordoned, pod_text("p"), changes_text([created])))
    assert [c.payload.object for c in changes_of(events, ClusterChangeKind.NODE_ADDED)] == ["n2"]
    assert not [m for m in moves_of(events, "default/p") if m.event == "NodeAdd"]
    assert len(timeline["attempts"]) == 1 and timeline["steps"][1]["pending"] == ["default/p"]


def test_it_removes_a_lost_node_with_its_pods_at_once_and_the_replica_set_replaces_them():
    """deleteNodes: Node/Delete, then the pods go without grace; the ReplicaSet stand-in
    (manageReplicas) creates replacements, which land on the remaining node."""
    text = scenario_text(
        node_text("a1", labels=", zone: a"),
        node_text("b1", labels=", zone: b"),
        workload_text("ReplicaSet", "web", replicas=2, cpu="1"),
        changes_text(["deleteNodes: {selector: {zone: a}}"]),
    )
    loop, events, timeline = run(text)
    step = timeline["steps"][1]
    assert step["deleted"] == ["default/web-1"] and step["created"] == ["default/web-3"]
    assert timeline["final"] == {"default/web-1": "deleted", "default/web-2": "b1", "default/web-3": "b1"}
    assert loop.kube_scheduler.snapshot.get("a1") is None


# ---------------------------------------------------------------------------- drain and budgets


def test_it_reports_a_drain_blocked_by_a_budget_with_the_budget():
    """The eviction API's PDB check (checkAndDecrement): with disruptionsAllowed 0 every eviction
    is refused (429); kubectl drain retries every 5 s and gives up after 60 s of nothing else."""
    text = scenario_text(
        node_text("n1"),
        node_text("n2"),
        workload_text("ReplicaSet", "db", replicas=2, cpu="3"),
        budget_text("db-pdb", "db", min_available="2"),
        changes_text(["drain: {node: n1}"]),
    )
    _, events, timeline = run(text)
    step = timeline["steps"][1]
    assert step["evicted"] == [] and step["blocked"] == [{"pod": "default/db-1", "budget": "default/db-pdb"}]
    refused = changes_of(events, ClusterChangeKind.EVICTION_REFUSED)
    assert [e.payload.time_ms for e in refused][:3] == [1000, 6000, 11000]
    blocked = changes_of(events, ClusterChangeKind.DRAIN_BLOCKED)
    assert len(blocked) == 1 and blocked[0].payload.time_ms - refused[0].payload.time_ms >= 60000


def test_it_evicts_one_pod_at_a_time_as_the_budget_allows_and_the_replacements_run():
    """checkAndDecrement uses up a disruption; the disruption stand-in gives it back once the
    replacement runs; the refused eviction succeeds on the retry 5 s later."""
    text = scenario_text(
        node_text("n1"),
        node_text("n2"),
        node_text("n3"),
        workload_text(
            "ReplicaSet", "web", replicas=2, cpu="1", pod_spec="      nodeSelector: {kubernetes.io/hostname: n1}\n"
        ),
        budget_text("web-pdb", "web", max_unavailable="1"),
        changes_text(
            [
                "patch: {kind: ReplicaSet, namespace: default, name: web, patch: {spec: "
                "{template: {spec: {nodeSelector: null}}}}}"
            ],
            ["drain: {node: n1}"],
        ),
    )
    _, events, timeline = run(text)
    step = timeline["steps"][2]
    assert step["evicted"] == ["default/web-1", "default/web-2"] and step["blocked"] == []
    evictions = changes_of(events, ClusterChangeKind.POD_EVICTED)
    assert evictions[1].payload.time_ms - evictions[0].payload.time_ms == 5000
    assert timeline["final"]["default/web-3"] in ("n2", "n3") and timeline["final"]["default/web-4"] in ("n2", "n3")


def test_it_does_not_evict_daemon_set_pods_when_draining():
    """kubectl drain --ignore-daemonsets: the DaemonSet filter skips its pods; they stay on the
    cordoned node (they tolerate node.kubernetes.io/unschedulable)."""
    text = scenario_text(
        node_text("n1"), workload_text("DaemonSet", "agent", cpu="100m"), changes_text(["drain: {node: n1}"])
    )
    _, _, timeline = run(text)
    assert timeline["steps"][1]["evicted"] == [] and timeline["final"] == {"default/agent-n1": "n1"}


# ---------------------------------------------------------------------------- controllers through the run


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


def test_it_gives_a_new_node_its_daemon_pod_and_none_to_a_node_with_an_untolerated_taint():
    """NodeShouldRunDaemonPod: the added node gets agent-<node>; a NoSchedule taint the template
    does not tolerate means no pod there."""
    text = scenario_text(
        node_text("n1"),
        node_text("t1", taints="{key: dedicated, value: db, effect: NoSchedule}"),
        workload_text("DaemonSet", "agent", cpu="100m"),
        changes_text(["addNodes: {like: n1, count: 1, prefix: n-new-}"]),
    )
    _, _, timeline = run(text)
    assert timeline["final"] == {"default/agent-n1": "n1", "default/agent-n-new-1": "n-new-1"}
    assert timeline["steps"][1]["created"] == ["default/agent-n-new-1"]


def test_it_creates_a_deployments_replica_set_named_by_the_template_hash():
    """A Deployment without a ReplicaSet gets <deployment>-<hash> (../shared/spec/CHANGES.md's hash)."""
    loop, _, timeline = run(
        scenario_text(node_text("n1"), workload_text("Deployment", "web", replicas=2, cpu="1"), changes_text([]))
    )
    replica_set = next(w for w in loop.stand_ins.steps.state.workloads if w.kind == "ReplicaSet")
    assert replica_set.name.startswith("web-") and len(replica_set.name) == len("web-") + 10
    assert sorted(timeline["final"]) == [f"default/{replica_set.name}-1", f"default/{replica_set.name}-2"]


def test_it_scales_a_replica_set_down_deleting_pending_pods_first_then_the_newest():
    """getPodsToDelete as ../shared/spec/CHANGES.md fixes it: the pending pod goes first."""
    text = scenario_text(
        node_text("n1", cpu="2"),
        workload_text("ReplicaSet", "web", replicas=3, cpu="1"),
        changes_text(["scale: {kind: ReplicaSet, name: web, replicas: 1}"]),
    )
    _, _, timeline = run(text)
    assert timeline["steps"][0]["pending"] == ["default/web-3"]
    assert timeline["steps"][1]["deleted"] == ["default/web-3", "default/web-2"]
    assert timeline["final"] == {"default/web-1": "n1", "default/web-2": "deleted", "default/web-3": "deleted"}


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


def test_it_starts_each_step_one_second_after_the_previous_went_quiet():
    text = scenario_text(node_text("n1"), changes_text(["cordon: {node: n1}"], ["uncordon: {node: n1}"]))
    _, _, timeline = run(text)
    assert [s["at"] for s in timeline["steps"]] == ["0:00.000", "0:01.000", "0:02.000"]


def test_it_keeps_runs_without_a_changes_document_as_they_were():
    """No Changes document: no steps, no step keys, controllers off (a ReplicaSet short of pods
    gets none)."""
    text = scenario_text(node_text("n1"), workload_text("ReplicaSet", "web", replicas=2), pod_text("p"))
    timeline = timeline_summary(run_to_the_end(load_scenario(text)))
    assert "steps" not in timeline and all("step" not in a for a in timeline["attempts"])
    assert timeline["final"] == {"default/p": "n1"}


# ---------------------------------------------------------------------------- regression fixtures
# SchedLab's own recorded output, not the real scheduler's (tests/fixtures/changes/README.md).


@pytest.mark.parametrize("case", sorted(p.stem for p in FIXTURES.glob("*.yaml")))
def test_it_answers_as_it_did_when_the_fixture_was_recorded(case):
    text = (FIXTURES / f"{case}.yaml").read_text()
    expected = json.loads((FIXTURES / f"{case}.expected.json").read_text())
    assert timeline_summary(run_to_the_end(load_scenario(text))) == expected


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


def test_it_blocks_a_drain_after_a_patch_raises_the_budget():
    """patch (PodDisruptionBudget): the disruption stand-in recomputes with the new spec before
    the drain's eviction asks (minAvailable 2 of 2 running: 0 allowed)."""
    text = scenario_text(
        node_text("n1"),
        node_text("n2"),
        workload_text("ReplicaSet", "db", replicas=2, cpu="3"),
        budget_text("db-pdb", "db", min_available="1", allowed=1),
        changes_text(
            ["patch: {kind: PodDisruptionBudget, name: db-pdb, patch: {spec: {minAvailable: 2}}}"],
            ["drain: {node: n1}"],
        ),
    )
    _, _, timeline = run(text)
    assert timeline["steps"][2]["blocked"] == [{"pod": "default/db-1", "budget": "default/db-pdb"}]


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


# ---------------------------------------------------------------------------- claims of controller-made pods

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


# ---------------------------------------------------------------------------- rollouts


def _rollout_run(cpu_per_node: str, strategy: str = ""):
    deployment = workload_text("Deployment", "web", replicas=3, cpu="1", extra_spec=strategy)
    return run(
        scenario_text(
            node_text("n1", cpu=cpu_per_node),
            node_text("n2", cpu=cpu_per_node),
            node_text("n3", cpu=cpu_per_node),
            deployment,
            changes_text(["set: {name: web, requests: {cpu: '2'}}"]),
        )
    )


def test_a_rollout_with_room_replaces_every_pod_one_at_a_time_and_is_reported_complete():
    """rolloutRolling with the defaults (surge 1, unavailable 0 for 3 replicas): a new pod runs,
    then an old one goes — the one sharing its node with it (the related-pods rank)."""
    loop, events, timeline = _rollout_run("4")
    [rollout] = timeline["rollouts"]
    assert (rollout["step"], rollout["revision"], rollout["complete"], rollout["pending"]) == (1, 2, True, [])
    assert rollout["status"] == 'deployment "web" successfully rolled out'
    new_set = rollout["updateRevision"].split("/")[1]
    placed = [(a["pod"], a["nodeName"]) for a in timeline["attempts"] if a["step"] == 1]
    assert placed == [(f"default/{new_set}-1", "n1"), (f"default/{new_set}-2", "n2"), (f"default/{new_set}-3", "n3")]
    old = sorted(pod for pod in timeline["final"] if not pod.startswith(f"default/{new_set}"))
    assert timeline["steps"][1]["deleted"] == old  # web-<old>-1 on n1 first, then -2, -3
    assert all(timeline["final"][pod] == "deleted" for pod in old)
    assert "rollouts" not in timeline["steps"][1]


def test_a_rollout_without_room_is_stuck_with_the_new_pod_pending_and_the_old_pods_kept():
    """The new pod asks 2 CPUs where 1 is free on each node: it stays Pending, maxUnavailable 0
    keeps the three old pods, and the step goes quiet with the rollout unfinished."""
    _, _, timeline = _rollout_run("2")
    [rollout] = timeline["rollouts"]
    assert (rollout["desired"], rollout["updated"], rollout["available"], rollout["complete"]) == (3, 1, 3, False)
    assert len(rollout["oldPods"]) == 3 and timeline["steps"][1]["deleted"] == []
    [pending] = rollout["pending"]
    assert pending["failedSchedulingMessage"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    assert (
        rollout["status"]
        == 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
    )


def test_a_recreate_rollout_starts_the_new_pods_only_after_every_old_pod_is_gone():
    _, events, timeline = _rollout_run("2", "  strategy: {type: Recreate}\n")
    removed = changes_of(events, ClusterChangeKind.POD_REMOVED)
    first_new = next(a for a in timeline["attempts"] if a["step"] == 1)
    assert len(removed) == 3 and timeline["rollouts"][0]["complete"]
    assert first_new["nodeName"] is not None and max(e.payload.time_ms for e in removed) == 1900


def test_the_stuck_rollout_example_says_which_new_pod_waits_and_why():
    """examples/rollout_stuck.yaml: 2Gi where no node has 2Gi free; the three old pods stay."""
    text = (Path(__file__).resolve().parents[3] / "examples" / "rollout_stuck.yaml").read_text()
    _, _, timeline = run(text)
    [rollout] = timeline["rollouts"]
    assert not rollout["complete"] and rollout["updated"] == 1 and len(rollout["oldPods"]) == 3
    assert "3 Insufficient memory" in rollout["pending"][0]["failedSchedulingMessage"]


def test_a_partitioned_stateful_set_rollout_replaces_only_the_pods_from_the_partition_up():
    """RollingUpdate with partition 1: db-2 then db-1 are deleted, made again at the new revision
    (same names) and placed; db-0 keeps the old template; kubectl calls it complete."""
    stateful_set = workload_text(
        "StatefulSet", "db", replicas=3, cpu="1", extra_spec="  updateStrategy: {rollingUpdate: {partition: 1}}\n"
    )
    _, _, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            stateful_set,
            changes_text(["set: {kind: StatefulSet, name: db, requests: {cpu: '2'}}"]),
        )
    )
    [rollout] = timeline["rollouts"]
    assert (rollout["kind"], rollout["updated"], rollout["oldPods"], rollout["complete"]) == (
        "StatefulSet",
        2,
        ["default/db-0"],
        True,
    )
    assert rollout["status"] == "partitioned roll out complete: 2 new pods have been updated..."
    assert timeline["steps"][1]["deleted"] == ["default/db-2", "default/db-1"]
    assert timeline["steps"][1]["created"] == ["default/db-2", "default/db-1"]


def test_a_daemon_set_rollout_moves_on_as_soon_as_a_new_pod_is_bound():
    """maxUnavailable 50 % of 4 nodes: n1 and n2 go first; the binding of n1's new pod (1.3 s,
    when the kubelet stand-in removed the old one) lets n3 go at once, not when n2 is removed."""
    daemon_set = workload_text(
        "DaemonSet", "agent", cpu="1", extra_spec="  updateStrategy: {rollingUpdate: {maxUnavailable: 50%}}\n"
    )
    _, events, timeline = run(
        scenario_text(
            *[node_text(f"n{i}") for i in range(1, 5)],
            daemon_set,
            changes_text(["set: {kind: DaemonSet, name: agent, requests: {cpu: '2'}}"]),
        )
    )
    terminating = [(e.payload.time_ms, e.pod) for e in changes_of(events, ClusterChangeKind.POD_TERMINATING)]
    assert terminating == [
        (1000, "default/agent-n1"),
        (1000, "default/agent-n2"),
        (1300, "default/agent-n3"),
        (1600, "default/agent-n4"),
    ]
    assert timeline["rollouts"][0]["status"] == 'daemon set "agent" successfully rolled out'


def _replica_sets(events) -> list[str]:
    return [e.payload.detail for e in changes_of(events, ClusterChangeKind.WORKLOAD_CHANGED)]


def test_a_scale_in_the_middle_of_a_rollout_is_shared_in_proportion():
    """sync/scale: 3 -> 6 while the new set has 1 of 4 (surge 25 %: max-replicas 4): 6 + 2 surge
    is shared 3 * 8 / 4 = 6 to the old set, 1 * 8 / 4 = 2 to the new one; then the rollout goes on."""
    deployment = workload_text("Deployment", "web", replicas=3, cpu="1")
    _, events, timeline = run(
        scenario_text(
            *[node_text(f"n{i}", cpu="2") for i in range(1, 4)],
            deployment,
            changes_text(
                ["set: {name: web, requests: {cpu: '3'}}"], ["scale: {kind: Deployment, name: web, replicas: 6}"]
            ),
        )
    )
    scaled = [d for d in _replica_sets(events) if d.startswith("ReplicaSet replicas")]
    assert scaled[:2] == [
        "ReplicaSet replicas 3 → 6 (Deployment default/web)",
        "ReplicaSet replicas 1 → 2 (Deployment default/web)",
    ]
    assert [r["desired"] for r in timeline["rollouts"]] == [3, 6]


def test_a_paused_deployment_rolls_out_only_once_resumed():
    """spec.paused: the template changed while paused makes no new set; the patch that resumes it
    starts the rollout, its progress deadline counted from then."""
    deployment = workload_text(
        "Deployment", "web", replicas=2, cpu="1", extra_spec="  paused: true\n  progressDeadlineSeconds: 30\n"
    )
    _, _, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            deployment,
            changes_text(
                ["set: {name: web, requests: {cpu: '5'}}"],
                ["patch: {kind: Deployment, name: web, patch: {spec: {paused: false}}}"],
            ),
        )
    )
    paused, resumed = timeline["rollouts"]
    assert (paused["step"], paused["paused"], paused["updated"], paused["updateRevision"]) == (1, True, 0, "")
    assert "progressDeadline" not in paused and "paused" not in resumed
    assert (resumed["step"], resumed["updated"], resumed["progressDeadline"]) == (
        2,
        1,
        {"seconds": 30, "passesAt": "0:32.000", "exceeded": False},
    )


def test_a_stuck_rollout_reports_its_progress_deadline_passed_once_the_step_outlasts_it():
    """DeploymentTimedOut: a 1 s deadline; the step waits 10 s on a refused eviction before it
    goes quiet, so the deadline passed: kubectl's error."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  progressDeadlineSeconds: 1\n")
    other = workload_text("Deployment", "db", replicas=1, cpu="1")
    _, _, timeline = run(
        scenario_text(
            node_text("n1", cpu="2"),
            deployment,
            other,
            budget_text("db", "db", "1"),
            changes_text(["set: {name: web, requests: {cpu: '2'}}", "drain: {node: n1}"]),
        )
    )
    [rollout] = timeline["rollouts"]
    assert rollout["progressDeadline"] == {"seconds": 1, "passesAt": "0:02.000", "exceeded": True}
    assert rollout["status"] == 'deployment "web" exceeded its progress deadline'


def test_a_complete_rollout_deletes_old_replica_sets_beyond_the_history_limit():
    """cleanupDeployment: revisionHistoryLimit 0: the old set goes once it has no pod left."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  revisionHistoryLimit: 0\n")
    _, events, timeline = run(
        scenario_text(node_text("n1"), deployment, changes_text(["set: {name: web, requests: {cpu: '2'}}"]))
    )
    assert timeline["rollouts"][0]["complete"]
    [deleted] = [d for d in _replica_sets(events) if "deleted" in d]
    assert deleted == "ReplicaSet deleted (revisionHistoryLimit of Deployment default/web)"


def test_min_ready_seconds_holds_the_rollout_until_the_new_pod_is_available():
    """minReadySeconds 5: the new pod bound at 1 s is available after 6 s; the old one goes at the
    ReplicaSet's resync 7 s (1 s + 5 s + 1 s), not at the binding."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  minReadySeconds: 5\n")
    _, events, timeline = run(
        scenario_text(node_text("n1"), deployment, changes_text(["set: {name: web, requests: {cpu: '2'}}"]))
    )
    terminating = [e.payload.time_ms for e in changes_of(events, ClusterChangeKind.POD_TERMINATING)]
    assert terminating == [7000] and timeline["rollouts"][0]["complete"]


def test_a_daemon_set_surge_rollout_runs_the_new_pod_beside_the_old_one():
    """maxSurge 1, maxUnavailable 0: agent-n1-2 runs beside agent-n1 until it is available, then
    agent-n1 goes and n2 surges."""
    daemon_set = workload_text(
        "DaemonSet",
        "agent",
        cpu="1",
        extra_spec="  updateStrategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n",
    )
    _, events, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            daemon_set,
            changes_text(["set: {kind: DaemonSet, name: agent, requests: {cpu: '2'}}"]),
        )
    )
    assert timeline["steps"][1]["created"] == ["default/agent-n1-2", "default/agent-n2-2"]
    assert timeline["steps"][1]["deleted"] == ["default/agent-n1", "default/agent-n2"]
    assert timeline["rollouts"][0]["status"] == 'daemon set "agent" successfully rolled out'


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
