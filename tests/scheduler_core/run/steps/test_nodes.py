"""A step's node operations (run/steps/nodes.py): nodes added and created reaching the queue
through the release's hints, cordon and uncordon, a node patched, nodes lost, and drains with
the eviction API's budget check and kubectl drain's retries."""

from __future__ import annotations

import pytest

from scheduler_core.encoding.events import ClusterChangeKind
from tests.scheduler_core.builders import budget_text, changes_text, node_text, pod_text, scenario_text, workload_text
from tests.scheduler_core.run.steps.support import changes_of, moves_of, run


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
