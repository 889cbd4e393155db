"""cluster/store.py: the run's API server — every write a new version with the next
resourceVersion, never a change in place; no-op writes are no writes; watchers get old and new,
in write order, a write made during delivery after those already on their way; deletes as the API
server does them."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.cluster.store import (
    KIND_ATTACHMENT,
    KIND_BUDGET,
    KIND_CAPACITY,
    KIND_CLAIM,
    KIND_CLAIM_TEMPLATE,
    KIND_CSI_DRIVER,
    KIND_CSI_NODE,
    KIND_DEVICE_CLASS,
    KIND_NODE,
    KIND_POD,
    KIND_RESOURCE_CLAIM,
    KIND_SLICE,
    KIND_STORAGE_CLASS,
    KIND_VOLUME,
    KIND_WORKLOAD,
    OBJECT_KINDS,
    Action,
    Cluster,
    WatchEvent,
    follow,
)
from scheduler_core.run.loop import ClusterRun
from scheduler_core.encoding.events import ClusterChangeKind as Change
from scheduler_core.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    DeviceClass,
    DraObjects,
    LabelSelector,
    PodDisruptionBudget,
    PodScheduledCondition,
    ResourceClaimTemplate,
    ResourceSlice,
    StorageObjects,
    VolumeAttachment,
)
from tests.scheduler_core.builders import (
    controlled_workload,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_resource_claim,
    make_volume,
)

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def cluster() -> Cluster:
    pods = [
        make_pod("bound", node="n1"),
        make_pod("pending", nominated_node_name="n1"),
        make_pod("quick", node="n1", termination_grace_period_seconds=0),
    ]
    return Cluster(pods, [make_node("n1")], EPOCH, lambda: 1500)


def heard(cluster: Cluster, kind: str = KIND_POD) -> list[WatchEvent]:
    events: list[WatchEvent] = []
    cluster.watch(kind, events.append)
    return events


def test_a_write_is_a_new_version_with_the_next_resource_version_and_the_old_one_untouched(cluster):
    events = heard(cluster)
    before = cluster.pod("default/pending")
    first = cluster.patch_pod_status(
        "default/pending", Change.POD_STATUS, condition=PodScheduledCondition("False", "Unschedulable", "x")
    )
    second = cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="")
    assert before.scheduled_condition is None and before.nominated_node_name == "n1"  # never changed in place
    assert (first.resource_version, second.resource_version) == (1, 2)
    assert [(e.action, e.old, e.new) for e in events] == [
        (Action.MODIFIED, before, first),
        (Action.MODIFIED, first, second),
    ]
    assert cluster.pod("default/pending") is second


def test_a_write_that_changes_nothing_is_no_write(cluster):
    events = heard(cluster)
    assert cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="n1") is None
    assert cluster.patch_pod_status("default/gone", Change.POD_STATUS, nominated_node_name="") is None
    assert events == []


def test_the_binding_sets_the_node_and_clears_the_nomination(cluster):
    bound = cluster.bind("default/pending", "n1")
    assert (bound.node_name, bound.nominated_node_name, bound.scheduled_condition.status) == ("n1", "", "True")


def test_watchers_hear_in_subscription_order_and_a_write_made_while_delivering_comes_after(cluster):
    order: list[str] = []

    def first(event: WatchEvent) -> None:
        order.append(f"first {event.current.name} {event.action.value}")
        if event.current.name == "pending" and event.action is Action.MODIFIED:
            cluster.delete_pod("default/bound", Change.POD_TERMINATING)  # a watcher that writes

    cluster.watch(KIND_POD, first)
    cluster.watch(KIND_POD, lambda event: order.append(f"second {event.current.name} {event.action.value}"))
    cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="")
    assert order == [
        "first pending Modified",
        "second pending Modified",
        "first bound Modified",
        "second bound Modified",
    ]


@pytest.mark.parametrize(
    ("pod", "graceful", "action"),
    [
        pytest.param("bound", True, Action.MODIFIED, id="a bound pod deleted with grace stays, terminating"),
        pytest.param("bound", False, Action.DELETED, id="a delete without grace removes it at once"),
        pytest.param("pending", True, Action.DELETED, id="a pod no node runs is removed at once"),
        pytest.param("quick", True, Action.DELETED, id="a zero grace period and no finalizers removes it at once"),
    ],
)
def test_deletes_are_what_the_api_server_makes_of_them(cluster, pod, graceful, action):
    events = heard(cluster)
    cluster.delete_pod(f"default/{pod}", Change.POD_TERMINATING, graceful=graceful)
    [event] = events
    assert event.action is action
    if action is Action.MODIFIED:
        assert event.new.deletion_timestamp == EPOCH + timedelta(milliseconds=1500)
        assert event.change is Change.POD_TERMINATING
    else:
        assert cluster.pod(f"default/{pod}") is None and event.change is Change.POD_DELETED


def test_deleting_a_terminating_pod_again_changes_nothing(cluster):
    cluster.delete_pod("default/bound", Change.POD_TERMINATING)
    events = heard(cluster)
    cluster.delete_pod("default/bound", Change.POD_TERMINATING)
    assert events == []


def test_a_node_update_names_its_change_from_the_old_and_new_versions(cluster):
    events = heard(cluster, KIND_NODE)
    old = cluster.node("n1")
    cluster.update_node(
        dataclasses.replace(old, unschedulable=True), lambda a, b: f"{a.unschedulable}->{b.unschedulable}"
    )
    [event] = events
    assert (event.old, event.new.unschedulable, event.detail) == (old, True, "False->True")
    cluster.delete_node("n1")
    assert cluster.node("n1") is None and events[-1].action is Action.DELETED


def test_a_workload_write_is_a_new_version_heard_with_the_old_one():
    web = controlled_workload("Deployment", "web", replicas=2)
    workloads = Cluster([], [], EPOCH, lambda: 0, workloads=[web])
    events = heard(workloads, KIND_WORKLOAD)
    scaled = workloads.update_workload(dataclasses.replace(web, replicas=5), "replicas 2 → 5")
    assert web.replicas == 2 and scaled.replicas == 5 and scaled.resource_version == 1
    assert workloads.update_workload(dataclasses.replace(scaled), "nothing") is None  # no change, no write
    made = workloads.create_workload(controlled_workload("ReplicaSet", "web-1"), "by Deployment default/web")
    workloads.delete_workload("Deployment", "default", "web", "deleted")
    assert [(e.action, e.current.name, e.change, e.detail) for e in events] == [
        (Action.MODIFIED, "web", Change.WORKLOAD_CHANGED, "replicas 2 → 5"),
        (Action.ADDED, "web-1", Change.WORKLOAD_CHANGED, "by Deployment default/web"),
        (Action.DELETED, "web", Change.WORKLOAD_CHANGED, "deleted"),
    ]
    assert workloads.workloads() == [made] and events[0].old is web


WEB = LabelSelector((("app", "web"),))


def _guarded(allowed: int) -> Cluster:
    pods = [make_pod("w", node="n1", labels={"app": "web"})]
    return Cluster(
        pods, [make_node("n1")], EPOCH, lambda: 1500, budgets=[PodDisruptionBudget("default", "pdb", WEB, allowed)]
    )


def test_an_eviction_uses_up_a_disruption_of_its_budget_then_deletes_the_pod_with_grace():
    guarded = _guarded(1)
    budgets, pods = heard(guarded, KIND_BUDGET), heard(guarded, KIND_POD)
    assert guarded.evict_pod("default/w", "drain of n1").allowed
    [budget] = budgets
    assert (budget.old.disruptions_allowed, budget.new.disruptions_allowed, budget.new.disrupted_pods) == (1, 0, {"w"})
    [evicted] = pods
    assert evicted.change is Change.POD_EVICTED and evicted.new.is_terminating and evicted.detail == "drain of n1"


def test_a_refused_eviction_writes_nothing_and_names_the_budget():
    guarded = _guarded(0)
    events = [*heard(guarded, KIND_BUDGET), *heard(guarded, KIND_POD)]
    answer = guarded.evict_pod("default/w")
    assert (answer.allowed, answer.budget, events) == (False, "default/pdb", [])


def test_a_budget_written_twice_alike_is_one_write_and_a_delete_is_heard():
    guarded = _guarded(1)
    events = heard(guarded, KIND_BUDGET)
    spec = PodDisruptionBudget("default", "other", WEB, 3)
    guarded.put_budget(spec, "written")
    assert guarded.put_budget(dataclasses.replace(spec), "again") is None
    guarded.delete_budget("default/pdb", "deleted")
    assert [(e.action, e.current.key) for e in events] == [
        (Action.ADDED, "default/other"),
        (Action.DELETED, "default/pdb"),
    ]
    assert [b.key for b in guarded.budgets()] == ["default/other"]


SHARED = Path(__file__).resolve().parents[4] / "shared"
RUNS = sorted(
    [
        *(SHARED / "conformance-timeline" / "public").glob("*.yaml"),
        *(SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"),
        *(SHARED / "conformance-steps" / "public").glob("*.yaml"),
        *(Path(__file__).resolve().parents[2] / "fixtures" / "changes").glob("*.yaml"),
    ]
)


def test_the_corpora_are_there_to_audit():
    assert len(RUNS) >= 35 + 16 + 12


@pytest.mark.parametrize("path", RUNS, ids=lambda path: path.stem)
def test_no_run_changes_an_object_of_the_cluster_in_place(path):
    """Only the cluster writes pods, nodes, workloads, budgets and the storage and device objects: every
    version it handed out during a whole run (the scheduler's writes, its plugins', the kubelet's, the
    controllers' and the steps') is as it was then, its dicts and lists included."""
    run = ClusterRun(load_scenario(path.read_bytes()), audit_writes=True)
    for _ in run.run():
        pass
    assert run.cluster.changed_in_place() == []


def test_the_audit_sees_a_change_made_in_place(cluster):
    audited = Cluster([make_pod("p", node="n1")], [], EPOCH, lambda: 0, audit=True)
    audited.pod("default/p").node_name = "n2"
    assert audited.changed_in_place() == ["Pod default/p: node_name"]


# One object of every kind the cluster holds, and a change made in place to it (a field of a
# mutable object set; an item of a frozen object's dict set, or the field forced).
EVERY_KIND = [
    (KIND_POD, lambda: make_pod("p", node="n1"), lambda pod: setattr(pod, "node_name", "n2"), "node_name"),
    (KIND_NODE, lambda: make_node("n1"), lambda node: node.labels.update(zone="b"), "labels"),
    (
        KIND_WORKLOAD,
        lambda: controlled_workload("ReplicaSet", "web", replicas=1),
        lambda workload: object.__setattr__(workload, "replicas", 2),
        "replicas",
    ),
    (
        KIND_BUDGET,
        lambda: PodDisruptionBudget("default", "b", WEB, 1),
        lambda budget: object.__setattr__(budget, "disruptions_allowed", 0),
        "disruptions_allowed",
    ),
    (KIND_CLAIM, lambda: make_claim("data"), lambda claim: claim.annotations.update(x="y"), "annotations"),
    (KIND_VOLUME, lambda: make_volume("pv"), lambda volume: volume.labels.update(x="y"), "labels"),
    (
        KIND_STORAGE_CLASS,
        lambda: make_class("fast"),
        lambda storage_class: storage_class.annotations.update(x="y"),
        "annotations",
    ),
    (KIND_CSI_NODE, lambda: CSINode("n1"), lambda csi_node: csi_node.annotations.update(x="y"), "annotations"),
    (
        KIND_CSI_DRIVER,
        lambda: CSIDriver("csi.example.com"),
        lambda driver: object.__setattr__(driver, "attach_required", False),
        "attach_required",
    ),
    (
        KIND_CAPACITY,
        lambda: CSIStorageCapacity("default", "cap", "fast"),
        lambda capacity: object.__setattr__(capacity, "storage_class_name", "slow"),
        "storage_class_name",
    ),
    (
        KIND_ATTACHMENT,
        lambda: VolumeAttachment("va", "csi.example.com", "n1"),
        lambda attachment: object.__setattr__(attachment, "node_name", "n2"),
        "node_name",
    ),
    (KIND_RESOURCE_CLAIM, lambda: make_resource_claim("c"), lambda claim: claim.labels.update(x="y"), "labels"),
    (
        KIND_CLAIM_TEMPLATE,
        lambda: ResourceClaimTemplate("default", "tpl"),
        lambda template: template.labels.update(x="y"),
        "labels",
    ),
    (
        KIND_SLICE,
        lambda: ResourceSlice("n1-gpu", "gpu.example.com", "n1"),
        lambda slice_: object.__setattr__(slice_, "generation", 2),
        "generation",
    ),
    (
        KIND_DEVICE_CLASS,
        lambda: DeviceClass("gpu"),
        lambda device_class: object.__setattr__(device_class, "selectors", ("true",)),
        "selectors",
    ),
]


def test_every_kind_the_cluster_holds_is_audited():
    assert {kind for kind, *_ in EVERY_KIND} == {KIND_POD, KIND_NODE, KIND_WORKLOAD, KIND_BUDGET, *OBJECT_KINDS}


def _holding(kind: str, obj) -> Cluster:
    """An audited cluster holding ``obj`` from the start."""
    by_kind = {KIND_POD: "pods", KIND_NODE: "nodes", KIND_WORKLOAD: "workloads", KIND_BUDGET: "budgets"}
    if kind in by_kind:
        fields = {"pods": [], "nodes": [], by_kind[kind]: [obj]}
        return Cluster(fields.pop("pods"), fields.pop("nodes"), EPOCH, lambda: 0, audit=True, **fields)
    storage, dra = StorageObjects(), DraObjects()
    holder = {
        KIND_CLAIM: storage.claims,
        KIND_VOLUME: storage.volumes,
        KIND_STORAGE_CLASS: storage.classes,
        KIND_CSI_NODE: storage.csi_nodes,
        KIND_CSI_DRIVER: storage.csi_drivers,
        KIND_CAPACITY: storage.capacities,
        KIND_ATTACHMENT: storage.attachments,
        KIND_RESOURCE_CLAIM: dra.claims,
        KIND_CLAIM_TEMPLATE: dra.templates,
        KIND_SLICE: dra.slices,
        KIND_DEVICE_CLASS: dra.classes,
    }[kind]
    holder.append(obj)
    return Cluster([], [], EPOCH, lambda: 0, audit=True, storage=storage, dra=dra)


@pytest.mark.parametrize("kind, made, change, field", EVERY_KIND, ids=[kind for kind, *_ in EVERY_KIND])
def test_the_audit_sees_an_object_of_every_kind_changed_in_place(kind, made, change, field):
    listed = made()
    audited = _holding(kind, listed)
    assert audited.changed_in_place() == []
    change(listed)
    [found] = audited.changed_in_place()
    assert found.endswith(f": {field}")


@pytest.mark.parametrize("kind, made, change, field", EVERY_KIND[4:], ids=[kind for kind, *_ in EVERY_KIND[4:]])
def test_the_audit_sees_a_written_version_of_every_storage_and_device_kind_changed_in_place(kind, made, change, field):
    """What a write hands out is audited too (here an update of the object listed at the start)."""
    listed = made()
    audited = _holding(kind, listed)
    written = audited.update(kind, _relabelled(listed))
    assert written is not None and audited.changed_in_place() == []
    change(written)  # (a dict the new version shares with the listed one changes in both)
    assert {problem.rsplit(": ", 1)[1] for problem in audited.changed_in_place()} == {field}


def _relabelled(obj):
    """The object with something else changed (its line: every kind has one)."""
    return dataclasses.replace(obj, line=(obj.line or 0) + 1)


def test_storage_and_device_writes_are_versions_heard_in_write_order_and_a_no_op_is_no_write():
    cluster = Cluster([], [], EPOCH, lambda: 0, storage=StorageObjects(claims=[make_claim("data")]))
    events = heard(cluster, KIND_CLAIM)
    cluster.watch(KIND_VOLUME, events.append)
    listed = cluster.object(KIND_CLAIM, "default/data")
    bound = cluster.update(KIND_CLAIM, dataclasses.replace(listed, volume_name="pv"))
    created = cluster.create(KIND_VOLUME, make_volume("pv"))
    assert cluster.create(KIND_VOLUME, make_volume("pv")) is None  # AlreadyExists
    assert cluster.update(KIND_CLAIM, dataclasses.replace(listed, volume_name="pv")) is None  # nothing changes
    assert cluster.put(KIND_CLAIM, dataclasses.replace(listed, volume_name="pv")) is bound
    assert cluster.update(KIND_VOLUME, make_volume("gone")) is None
    deleted = cluster.delete(KIND_CLAIM, "default/data")
    assert (bound.resource_version, created.resource_version, cluster.write_count) == (1, 2, 3)
    assert listed.volume_name == "" and deleted is bound  # never changed in place
    assert [(e.kind, e.action, e.old, e.new) for e in events] == [
        (KIND_CLAIM, Action.MODIFIED, listed, bound),
        (KIND_VOLUME, Action.ADDED, None, created),
        (KIND_CLAIM, Action.DELETED, bound, None),
    ]
    assert list(cluster.listed(KIND_CLAIM)) == [] and list(cluster.listed(KIND_VOLUME)) == ["pv"]
    with pytest.raises(TypeError):
        cluster.listed(KIND_VOLUME)["x"] = created  # a lister's view: read-only


def test_a_listers_list_follows_writes_in_place_appending_the_new_and_dropping_the_deleted():
    budgets = Cluster(
        [],
        [],
        EPOCH,
        lambda: 0,
        budgets=[PodDisruptionBudget("default", "a", WEB, 1), PodDisruptionBudget("default", "b", WEB, 1)],
    )
    listed = budgets.budgets()
    budgets.watch(KIND_BUDGET, lambda event: follow(listed, event, lambda budget: budget.key))
    budgets.put_budget(PodDisruptionBudget("default", "a", WEB, 0))
    budgets.put_budget(PodDisruptionBudget("default", "c", WEB, 2))
    budgets.delete_budget("default/b")
    assert [(b.key, b.disruptions_allowed) for b in listed] == [("default/a", 0), ("default/c", 2)]


def test_before_v1_35_a_bound_pod_keeps_its_nomination(cluster):
    # ClearingNominatedNodeNameAfterBinding (on from v1.35) clears it in the binding; without the
    # gate the binding leaves status.nominatedNodeName as it was.
    bound = cluster.bind("default/pending", "n1", clear_nomination=False)
    assert (bound.node_name, bound.nominated_node_name) == ("n1", "n1")
    assert cluster.bind("default/gone", "n1", clear_nomination=False) is None
