"""eventhandlers.py: what each informer callback does to the cache and the queue (eventhandlers.go),
PodSchedulingPropertiesChange's events for an updated pod, and NodeSchedulingPropertiesChange's
for an updated node (framework/events.go)."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from scheduler_core.run.eventhandlers import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    EventHandlers,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
    snapshot_of,
)
from scheduler_core.framework.cluster_events import ActionType, ClusterChange, ClusterEvent, EventResource
from scheduler_core.cluster.store import KIND_BUDGET, KIND_POD, KIND_WORKLOAD, Action, WatchEvent
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model import (
    CPU,
    KIND_REPLICA_SET,
    MEMORY,
    LabelSelector,
    NodeCondition,
    PodDisruptionBudget,
    Taint,
    Toleration,
    Workload,
)
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot


class RecordingQueue:
    """The two queue calls the handlers make, recorded in order."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def move_all_to_active_or_backoff(self, event, old, new, pre_check=None) -> None:
        self.calls.append(("move", event, old, new, pre_check))

    def delete(self, pod) -> None:
        self.calls.append(("delete", pod))

    def update(self, old, new, events) -> None:
        self.calls.append(("update", old, new, events))


def _assigned(action: ActionType) -> ClusterEvent:
    return ClusterEvent(EventResource.ASSIGNED_POD, action)


BASE = make_pod("p", labels={"app": "web"}, node="n1", requests={CPU: 500, MEMORY: 1 << 20})


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param({}, [ActionType.UPDATE], id="a change the scheduler does not single out is a general Update"),
        pytest.param({"labels": {"app": "db"}}, [ActionType.UPDATE_POD_LABEL], id="new labels are UpdatePodLabel"),
        pytest.param(
            {"requests": {CPU: 250, MEMORY: 1 << 20}},
            [ActionType.UPDATE_POD_SCALE_DOWN],
            id="a lowered request is UpdatePodScaleDown",
        ),
        pytest.param(
            {"requests": {CPU: 500}}, [ActionType.UPDATE_POD_SCALE_DOWN], id="a request removed is UpdatePodScaleDown"
        ),
        pytest.param(
            {"requests": {CPU: 900, MEMORY: 1 << 20}},
            [ActionType.UPDATE],
            id="a raised request is only a general Update",
        ),
        pytest.param(
            {"tolerations": (Toleration("k", "Exists"),)},
            [ActionType.UPDATE_POD_TOLERATION],
            id="a toleration added is UpdatePodToleration",
        ),
        pytest.param(
            {"labels": {}, "tolerations": (Toleration("k", "Exists"),)},
            [ActionType.UPDATE_POD_LABEL, ActionType.UPDATE_POD_TOLERATION],
            id="several kinds of change are each their own event, in the release's order",
        ),
    ],
)
def test_an_assigned_pods_update_is_the_events_of_what_changed(change, expected):
    requests = change.pop("requests", {CPU: 500, MEMORY: 1 << 20})
    new = make_pod("p", labels=change.pop("labels", {"app": "web"}), node="n1", requests=requests, **change)
    assert pod_scheduling_properties_change(new, BASE) == [_assigned(action) for action in expected]


def test_gates_removed_from_a_pending_pod_is_an_unscheduled_pod_event():
    gated = make_pod("p", scheduling_gates=("wait",))
    released = dataclasses.replace(gated, scheduling_gates=())
    assert pod_scheduling_properties_change(released, gated) == [
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    ]


def test_a_gate_added_is_not_gates_eliminated():
    open_pod = make_pod("p")
    gated = dataclasses.replace(open_pod, scheduling_gates=("wait",))
    assert pod_scheduling_properties_change(gated, open_pod) == [
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)
    ]


@pytest.fixture
def cluster():
    running = make_pod("running", node="n1", requests={CPU: 1000})
    snapshot = make_snapshot([make_node("n1")], [running])
    queue = RecordingQueue()
    return EventHandlers(queue, snapshot), queue, snapshot, running


def test_a_binding_moves_the_waiting_pods_then_the_pod_leaves_the_queue(cluster):
    # updatePod for an unassigned pod that became assigned: addAssignedPodToCache, then
    # deletePodFromSchedulingQueue(inBinding) — nothing else moves.
    handlers, queue, snapshot, _ = cluster
    pending = make_pod("new")
    bound = dataclasses.replace(pending, node_name="n1")
    handlers.update_pod(pending, bound)
    assert queue.calls == [("move", ASSIGNED_POD_ADD, None, bound, None), ("delete", pending)]
    assert bound in [info.pod for info in snapshot.get("n1").pods]


def test_the_binding_confirms_the_assumed_version_where_it_stands(cluster):
    handlers, _, snapshot, running = cluster
    assumed = make_pod("new")
    snapshot.bind(assumed, "n1")
    bound = dataclasses.replace(assumed, resource_version=7)
    handlers.update_pod(make_pod("new"), bound)
    assert [info.pod for info in snapshot.get("n1").pods] == [running, bound]
    assert not snapshot.is_assumed(bound)


def test_an_assumed_pods_update_is_not_for_the_queue(cluster):
    handlers, queue, snapshot, _ = cluster
    assumed = make_pod("new")
    snapshot.bind(dataclasses.replace(assumed), "n1")
    handlers.update_pod(assumed, dataclasses.replace(assumed, nominated_node_name="n1", resource_version=3))
    assert queue.calls == []


def test_a_finished_pod_leaves_the_informer_as_a_delete(cluster):
    handlers, queue, snapshot, running = cluster
    done = dataclasses.replace(running, phase="Succeeded")
    handlers.on_pod(WatchEvent(KIND_POD, Action.MODIFIED, running, done, ClusterChangeKind.POD_SUCCEEDED))
    assert snapshot.get("n1").pods == []
    assert queue.calls == [("move", ASSIGNED_POD_DELETE, running, None, None)]


def test_a_deleted_assigned_pod_leaves_its_node_then_moves_the_waiting_pods(cluster):
    handlers, queue, snapshot, running = cluster
    handlers.assigned_pod_deleted(running)
    assert snapshot.get("n1").pods == []
    assert snapshot.get("n1").requested.get(CPU, 0) == 0
    assert queue.calls == [("move", ASSIGNED_POD_DELETE, running, None, None)]


def test_an_updated_assigned_pod_is_seen_by_the_cache_and_each_change_is_an_event(cluster):
    handlers, queue, snapshot, running = cluster
    relabelled = dataclasses.replace(running, labels={"app": "web"})
    handlers.assigned_pod_updated(running, relabelled)
    assert [info.pod for info in snapshot.get("n1").pods] == [relabelled]
    assert queue.calls == [("move", _assigned(ActionType.UPDATE_POD_LABEL), running, relabelled, None)]


@pytest.mark.parametrize(
    "skip_itself",
    [True, False],
    ids=["the forgotten pod itself is skipped when asked", "every waiting pod is a candidate otherwise"],
)
def test_a_forgotten_assumed_pod_is_an_assigned_pod_delete(cluster, skip_itself):
    handlers, queue, _, _ = cluster
    pod = make_pod("assumed", node="n1")
    handlers.assumed_pod_forgotten(pod, skip_itself)
    [(kind, event, old, new, pre_check)] = queue.calls
    assert (kind, event, old, new) == ("move", ASSIGNED_POD_DELETE, pod, None)
    if skip_itself:
        assert (pre_check(pod), pre_check(make_pod("other"))) == (False, True)
    else:
        assert pre_check is None


UNSCHEDULED_UPDATE = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)


def test_a_pending_pods_status_write_reaches_the_queue_as_an_update(cluster):
    handlers, queue, _, _ = cluster
    pending = make_pod("pending")
    nominated = dataclasses.replace(pending, nominated_node_name="n1")
    handlers.unscheduled_pod_updated(pending, nominated)
    assert queue.calls == [("update", pending, nominated, [UNSCHEDULED_UPDATE])]


@pytest.mark.parametrize("new_node", ["n2", ""], ids=["a nomination moved elsewhere", "a nomination cleared"])
def test_a_changed_nomination_frees_its_room_for_pods_of_lower_or_equal_priority(cluster, new_node):
    handlers, queue, _, _ = cluster
    nominated = make_pod("nominated", priority=100, nominated_node_name="n1")
    changed = dataclasses.replace(nominated, nominated_node_name=new_node)
    handlers.unscheduled_pod_updated(nominated, changed)
    [update, (kind, event, old, new, pre_check)] = queue.calls
    assert update[0] == "update"
    assert (kind, event, old, new) == ("move", ASSIGNED_POD_DELETE, nominated, None)
    assert [pre_check(make_pod(f"p{p}", priority=p)) for p in (50, 100, 150)] == [True, True, False]


def test_a_first_nomination_moves_nobody(cluster):
    handlers, queue, _, _ = cluster
    pending = make_pod("pending")
    handlers.unscheduled_pod_updated(pending, dataclasses.replace(pending, nominated_node_name="n1"))
    assert [call[0] for call in queue.calls] == ["update"]


def test_a_storage_change_goes_to_the_queue_as_it_came(cluster):
    handlers, queue, _, _ = cluster
    change = ClusterChange(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.UPDATE), "old", "new")
    handlers.cluster_changed(change)
    assert queue.calls == [("move", change.event, "old", "new", None)]


def test_the_old_version_is_a_copy_the_change_does_not_touch():
    pod = make_pod("p", labels={"app": "web"})
    old = snapshot_of(pod)
    pod.labels = {"app": "db"}
    assert (old is not pod, old.labels) == (True, {"app": "web"})


@pytest.mark.parametrize(
    "old, new, labels",
    [
        pytest.param(
            make_node("n", unschedulable=True),
            make_node("n"),
            ["NodeUpdateNodeTaint"],
            id="spec.unschedulable cleared is an UpdateNodeTaint (extractNodeSpecUnschedulableChange)",
        ),
        pytest.param(make_node("n"), make_node("n", unschedulable=True), [], id="cordoning is no event at all"),
        pytest.param(
            make_node("n", cpu=1000), make_node("n", cpu=2000), ["NodeUpdateNodeAllocatable"], id="allocatable changed"
        ),
        pytest.param(
            make_node("n"),
            make_node("n", labels={"a": "b"}, taints=[Taint("k", "", "NoSchedule")]),
            ["NodeUpdateNodeLabel", "NodeUpdateNodeTaint"],
            id="labels then taints, in the extractors' order",
        ),
        pytest.param(
            make_node("n", conditions=(NodeCondition("Ready", "True"),)),
            make_node("n", conditions=(NodeCondition("Ready", "False"),)),
            ["NodeUpdateNodeCondition"],
            id="a condition's status changed",
        ),
        pytest.param(
            make_node("n", annotations={"a": "1"}),
            make_node("n"),
            ["NodeUpdateNodeAnnotation"],
            id="annotations changed",
        ),
    ],
)
def test_node_scheduling_properties_change(old, new, labels):
    events = node_scheduling_properties_change(new, old)
    assert [event.label for event in events] == labels


# ---------------------------------------------------------------------------- releases

from scheduler_core.release.rules import rules_for  # noqa: E402
from scheduler_core.release.versions import release_named  # noqa: E402


def handlers_of(release: str, **gates: bool):
    running = make_pod("running", node="n1", requests={CPU: 1000})
    snapshot = make_snapshot([make_node("n1")], [running])
    queue = RecordingQueue()
    rules = rules_for(release_named(release), gates or None)
    return EventHandlers(queue, snapshot, rules=rules), queue, snapshot


def moves(queue: RecordingQueue) -> list[tuple]:
    return [(call[1], call[2]) for call in queue.calls if call[0] == "move"]


@pytest.mark.parametrize("release, moved", [("v1.32", False), ("v1.33", True), ("v1.35", True)])
def test_a_changed_nomination_frees_room_from_v1_33_on(release, moved):
    # B1: updatePodInSchedulingQueue's hasNominatedNodeNameChanged branch is new in v1.33.
    handlers, queue, _ = handlers_of(release)
    nominated = make_pod("nominated", priority=100, nominated_node_name="n1")
    handlers.unscheduled_pod_updated(nominated, dataclasses.replace(nominated, nominated_node_name=""))
    assert moves(queue) == ([(ASSIGNED_POD_DELETE, nominated)] if moved else [])


@pytest.mark.parametrize("release, moved", [("v1.32", False), ("v1.33", True), ("v1.35", True)])
def test_a_deleted_nominated_pod_frees_room_from_v1_33_on(release, moved):
    # B1: deletePodFromSchedulingQueue's NominatedNodeName branch is new in v1.33.
    handlers, queue, _ = handlers_of(release)
    nominated = make_pod("nominated", priority=100, nominated_node_name="n1")
    handlers.unscheduled_pod_deleted(nominated)
    assert queue.calls[0] == ("delete", nominated)
    assert moves(queue) == ([(ASSIGNED_POD_DELETE, nominated)] if moved else [])


@pytest.mark.parametrize(
    "release, moved",
    [("v1.32", False), ("v1.33", True), ("v1.34", True), ("v1.35", False), ("v1.36", False)],
)
def test_binding_a_nominated_pod_is_also_a_queue_delete_in_v1_33_and_v1_34(release, moved):
    # B2: before v1.35 the unscheduled-pod informer handler sees the binding as OnDelete(old); v1.33
    # and v1.34 then move the pods of lower or equal priority for the nomination the old object
    # carried, after the assigned-pod handler's AssignedPodAdd. v1.35's one handler only deletes.
    handlers, queue, _ = handlers_of(release)
    pending = make_pod("preemptor", priority=100, nominated_node_name="n1")
    bound = dataclasses.replace(pending, node_name="n1")
    handlers.update_pod(pending, bound)
    expected = [(ASSIGNED_POD_ADD, None)] + ([(ASSIGNED_POD_DELETE, pending)] if moved else [])
    assert moves(queue) == expected
    if moved:
        pre_check = queue.calls[-1][4]
        assert [pre_check(make_pod(f"p{p}", priority=p)) for p in (50, 100, 150)] == [True, True, False]


@pytest.mark.parametrize("release, forgotten", [("v1.34", False), ("v1.35", True), ("v1.36", True)])
def test_a_deleted_assumed_pod_is_forgotten_at_once_from_v1_35(release, forgotten):
    # B3: handleAssumedPodDeletion (v1.35): the pod whose binding is under way is deleted; the cache
    # forgets the assumed version at once (its cpu is free) and AssignedPodDelete moves the waiting
    # pods. v1.34 only drops it from the queue; the cache keeps it until its binding fails.
    handlers, queue, snapshot = handlers_of(release)
    assumed = make_pod("assumed", requests={CPU: 500})
    snapshot.bind(assumed, "n1")
    deleted = make_pod("assumed", requests={CPU: 500})  # the API's object: still unassigned
    handlers.unscheduled_pod_deleted(deleted)
    assert snapshot.is_assumed(deleted) is not forgotten
    assert snapshot.get("n1").requested.get(CPU, 0) == (1000 if forgotten else 1500)
    if forgotten:
        [(event, old)] = moves(queue)
        assert (event, old.key, old.node_name) == (ASSIGNED_POD_DELETE, "default/assumed", "n1")
    else:
        assert moves(queue) == []


def test_an_assumed_pod_marked_for_deletion_is_forgotten_from_v1_35():
    # B3: updatePodInSchedulingQueue of an assumed pod whose deletionTimestamp was just set.
    from datetime import datetime, timezone

    for release, forgotten in (("v1.34", False), ("v1.35", True)):
        handlers, queue, snapshot = handlers_of(release)
        snapshot.bind(make_pod("assumed"), "n1")
        before = make_pod("assumed", resource_version=1)
        terminating = dataclasses.replace(
            before, resource_version=2, deletion_timestamp=datetime(2026, 1, 1, tzinfo=timezone.utc)
        )
        handlers.unscheduled_pod_updated(before, terminating)
        assert snapshot.is_assumed(before) is not forgotten, release
        assert [call[0] for call in queue.calls] == (["move"] if forgotten else []), release


@pytest.mark.parametrize("release, sees_claims", [("v1.33", False), ("v1.34", True)])
def test_the_generated_claims_event_needs_dynamic_resource_allocation(release, sees_claims):
    # B4: PodSchedulingPropertiesChange adds extractPodGeneratedResourceClaimChange only with the
    # DRA gate (off by default before v1.34).
    handlers, queue, _ = handlers_of(release)
    pending = make_pod("p")
    with_claims = dataclasses.replace(pending, claim_statuses=(("c", "p-c-abcde"),))
    handlers.unscheduled_pod_updated(pending, with_claims)
    [(_, _, _, events)] = queue.calls
    wanted = ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM if sees_claims else ActionType.UPDATE
    assert events == [ClusterEvent(EventResource.UNSCHEDULABLE_POD, wanted)]


def test_v1_32_labels_a_toleration_update_update_pod_tolerations():
    # B4: the same event (it matches the same registrations), named as v1.32 names it.
    pending = make_pod("p")
    tolerating = dataclasses.replace(pending, tolerations=(Toleration("k", "Exists"),))
    for release, label in (
        ("v1.32", "UnschedulablePodUpdatePodTolerations"),
        ("v1.33", "UnschedulablePodUpdatePodToleration"),
    ):
        handlers, queue, _ = handlers_of(release)
        handlers.unscheduled_pod_updated(pending, tolerating)
        [event] = queue.calls[0][3]
        assert (event.label, event.action) == (label, ActionType.UPDATE_POD_TOLERATION)


@pytest.mark.parametrize("release, emitted", [("v1.35", False), ("v1.36", True)])
def test_a_changed_declared_feature_is_an_event_with_node_declared_features(release, emitted):
    # B4: NodeSchedulingPropertiesChange's extractNodeFeaturesChange, behind NodeDeclaredFeatures
    # (on in v1.36).
    old = make_node("n1")
    new = copy.copy(old)
    new.declared_features = ("RestartAllContainersOnContainerExits",)
    handlers, queue, _ = handlers_of(release)
    events = handlers.node_updated(old, new)
    assert [e.label for e in events] == (["NodeUpdateNodeDeclaredFeature"] if emitted else [])


@pytest.mark.parametrize(
    "new_fields, in_cache",
    [
        pytest.param({"labels": {"foo": "bar"}}, True, id="update assumed pod"),
        pytest.param({"deletion_timestamp": "now"}, False, id="delete assumed pod with deletion timestamp"),
    ],
)
def test_v1_35_update_pod_of_an_assumed_pod(new_fields, in_cache):
    # The assumed rows of TestUpdatePod in v1.35's eventhandlers_test.go: an assumed pod's update
    # leaves the cache's assumed version and the queue alone, unless it starts the pod's deletion:
    # then it leaves the cache. Neither is in the queue.
    from datetime import datetime, timezone

    from scheduler_core.backend.queue import LogicalClock, SchedulingQueue

    queue = SchedulingQueue(
        LogicalClock(), lambda info: info.timestamp, {"default-scheduler": {}}, {}, 1000, 10_000, bool
    )
    snapshot = make_snapshot([make_node("node1")])
    handlers = EventHandlers(queue, snapshot, rules=rules_for(release_named("v1.35")))
    pod = make_pod("pod1", namespace="ns1", uid="pod1", resource_version=1)
    snapshot.bind(dataclasses.replace(pod), "node1")  # AssumePod(scheduledPod)
    if new_fields.get("deletion_timestamp"):
        new_fields = {"deletion_timestamp": datetime(2026, 1, 1, tzinfo=timezone.utc)}
    handlers.update_pod(pod, dataclasses.replace(pod, resource_version=2, **new_fields))
    assert (snapshot.assumed_pod("ns1/pod1") is not None) is in_cache
    assert queue.queued_info("ns1/pod1") is None


def test_v1_35_delete_pod_of_an_assumed_pod():
    # TestDeletePod's "delete assumed pod" of v1.35: the deletion of the (unassigned) API object
    # removes the assumed pod from the cache.
    from scheduler_core.backend.queue import LogicalClock, SchedulingQueue

    queue = SchedulingQueue(
        LogicalClock(), lambda info: info.timestamp, {"default-scheduler": {}}, {}, 1000, 10_000, bool
    )
    snapshot = make_snapshot([make_node("node1")])
    handlers = EventHandlers(queue, snapshot, rules=rules_for(release_named("v1.35")))
    pod = make_pod("pod1", namespace="ns1", uid="pod1")
    snapshot.bind(dataclasses.replace(pod), "node1")
    handlers.delete_pod(pod)
    assert snapshot.assumed_pod("ns1/pod1") is None and snapshot.get("node1").pods == []
    assert queue.queued_info("ns1/pod1") is None


def test_a_workload_s_write_drops_what_the_plugins_indexed_of_the_workloads(cluster):
    """The ReplicaSet lister PodTopologySpread's default selector reads: its index is built anew after a write."""
    handlers, _queue, snapshot, _ = cluster
    snapshot.indexed_listers["PodTopologySpread"] = object()
    replica_set = Workload(KIND_REPLICA_SET, "default", "rs", LabelSelector((("app", "web"),)))
    handlers.on_workload(WatchEvent(KIND_WORKLOAD, Action.ADDED, None, replica_set, ClusterChangeKind.WORKLOAD_CHANGED))
    assert snapshot.indexed_listers == {} and [(w.kind, w.name) for w in snapshot.workloads] == [("ReplicaSet", "rs")]


def test_a_budgets_change_gives_the_lister_a_new_tuple_and_leaves_the_old_one_as_it_was(cluster):
    # Preemption tells unchanged budgets by the tuple's identity (KeptBudgets.of): a change must
    # never be made in place, and each write gives the lister a new tuple in document order.
    handlers, queue, snapshot, _ = cluster
    selector = LabelSelector((("app", "web"),))
    web, db = PodDisruptionBudget("default", "web", selector, 1), PodDisruptionBudget("default", "db", selector, 2)
    spent = dataclasses.replace(web, disruptions_allowed=0)
    before = snapshot.pdbs
    for action, old, new, expected in (
        (Action.ADDED, None, web, (web,)),
        (Action.ADDED, None, db, (web, db)),
        (Action.MODIFIED, web, spent, (spent, db)),
        (Action.DELETED, db, None, (spent,)),
    ):
        handlers.on_budget(WatchEvent(KIND_BUDGET, action, old, new, ClusterChangeKind.BUDGET_CHANGED))
        assert type(snapshot.pdbs) is tuple and snapshot.pdbs == expected and snapshot.pdbs is not before
        before = snapshot.pdbs
    assert queue.calls == []  # an informer with no handler: a budget's change moves no pod
