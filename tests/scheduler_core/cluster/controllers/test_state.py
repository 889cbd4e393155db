"""controllers/state.py: what the stand-in controllers read of the cluster — live pods, the pods a
workload controls (metav1.IsControlledBy plus its selector), creation times, names in use."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from scheduler_core.cluster.controllers.state import ClusterState, is_running
from scheduler_core.cluster.store import KIND_POD, KIND_WORKLOAD, Action, Cluster, WatchEvent
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model import ObjectRef, OwnerReference
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_node, make_pod

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _owned(name: str, owner: str = "web", uid: str = "uid-web", **fields):
    ref = OwnerReference("ReplicaSet", owner, "apps/v1", controller=True, uid=uid)
    return make_pod(name, labels={"app": owner}, owner_references=(ref,), **fields)


def test_owned_pods_are_live_controlled_and_selected():
    web = controlled_workload("ReplicaSet", "web")
    mine, relabelled, finished, other_uid = (
        _owned("a"),
        _owned("b"),
        _owned("c", phase="Succeeded"),
        _owned("d", uid="uid-old"),
    )
    relabelled.labels = {"app": "other"}
    not_controller = make_pod(
        "e", labels={"app": "web"}, owner_references=(OwnerReference("ReplicaSet", "web", "apps/v1", controller=False),)
    )
    state = cluster_state(pods=[mine, relabelled, finished, other_uid, not_controller], workloads=[web])
    assert state.owned_pods(web) == [mine]
    state.gone.add(mine.key)
    assert state.owned_pods(web) == []


def test_pods_added_later_are_indexed_by_owner_namespace_and_name():
    web = controlled_workload("ReplicaSet", "web")
    state = cluster_state(workloads=[web])
    late = _owned("late", namespace="default")
    state.add_pod(late)
    assert state.owned_pods(web) == [late] and state.pods_in("default") == [late]
    assert state.knows(late) and not state.knows(_owned("late"))  # the same key, another object
    assert state.name_in_use("default", "late") and not state.name_in_use("default", "other")


def test_creation_time_is_the_runs_clock_for_its_pods_and_the_dumps_for_the_rest():
    made, dumped, unknown = make_pod("made"), make_pod("dumped"), make_pod("unknown")
    state = ClusterState(
        [],
        [made, dumped, unknown],
        [],
        {},
        EPOCH,
        created_ms={made.key: 1500},
        created_at={dumped.key: EPOCH - timedelta(hours=2)},
    )
    assert state.created(made) == EPOCH + timedelta(milliseconds=1500)
    assert state.created(dumped) == EPOCH - timedelta(hours=2)
    assert state.created(unknown) == EPOCH - timedelta(days=1)  # older than anything the run makes


def test_nodes_are_found_by_name_and_a_bound_pod_runs_until_it_terminates():
    state = cluster_state(nodes=[make_node("n1")])
    assert state.node("n1").name == "n1" and state.node("n2") is None
    assert is_running(make_pod("p", node="n1"))
    assert not is_running(make_pod("p"))
    assert not is_running(make_pod("p", node="n1", deletion_timestamp=EPOCH))
    assert not is_running(make_pod("p", node="n1", phase="Failed"))


def test_a_binding_heard_by_the_informer_makes_the_pod_ready_from_then():
    """The kubelet stand-in: the Ready condition's lastTransitionTime is the binding's time; a
    pod bound in the dump has been ready since its creation; a pending pod is not ready."""
    pending, dumped = _owned("a"), _owned("b", node="n1")
    state = cluster_state(pods=[pending, dumped])
    state.clock_ms = lambda: 2500
    state.created_at[dumped.key] = EPOCH - timedelta(hours=1)
    assert state.ready_since(pending) is None and state.ready_since(dumped) == EPOCH - timedelta(hours=1)
    bound = replace(pending, node_name="n1")
    state.track(WatchEvent(KIND_POD, Action.MODIFIED, pending, bound, ClusterChangeKind.POD_BOUND))
    assert state.ready_since(bound) == EPOCH + timedelta(milliseconds=2500)


def test_a_pod_whose_name_a_new_pod_took_is_no_longer_live():
    """A StatefulSet pod deleted and made again: the new Add clears the name from ``gone``, but
    the old pod's last (terminating) version must not count as a second live pod."""
    web = controlled_workload("ReplicaSet", "web")
    old = _owned("web-0")
    state = cluster_state(pods=[old], workloads=[web])
    terminating = replace(old, deletion_timestamp=EPOCH)
    state.track(WatchEvent(KIND_POD, Action.MODIFIED, old, terminating, ClusterChangeKind.POD_TERMINATING))
    state.track(WatchEvent(KIND_POD, Action.DELETED, terminating, None, ClusterChangeKind.POD_REMOVED))
    again = _owned("web-0")
    state.add_pod(again)
    state.track(WatchEvent(KIND_POD, Action.ADDED, None, again, ClusterChangeKind.POD_CREATED))
    assert state.owned_pods(web) == [again] and not state.live(terminating)


def test_workload_writes_go_through_the_api_and_the_cache_follows_its_events():
    """With the run's cluster as its API, a controller's scale is a write there; the cache holds
    the new version only once the cluster's event has reached ``track_workload``."""
    web = controlled_workload("ReplicaSet", "web", replicas=1)
    cluster = Cluster([], [], EPOCH, lambda: 0, workloads=[web])
    state = cluster_state(workloads=cluster.workloads())
    state.api = cluster
    cluster.watch(KIND_WORKLOAD, state.track_workload)
    scaled = state.scale(web, 3, "replicas 1 → 3")
    assert web.replicas == 1 and scaled.replicas == 3
    assert state.workloads == [scaled] and cluster.workload("ReplicaSet", "default", "web") is scaled
    assert state.scale(scaled, 3) is scaled  # nothing to write: the version as it is
    made = state.create_workload(controlled_workload("ReplicaSet", "api"), "by a test")
    assert state.workloads == [scaled, made]
    cluster.delete_workload("ReplicaSet", "default", "web")
    assert state.workloads == [made]


def test_a_workload_is_found_by_kind_namespace_and_name():
    web = controlled_workload("ReplicaSet", "web")
    state = cluster_state(workloads=[web, controlled_workload("StatefulSet", "web")])
    assert state.workload(ObjectRef("ReplicaSet", "default", "web")) is web
    assert state.workload(ObjectRef("ReplicaSet", "other", "web")) is None
    assert state.workload(ObjectRef("Deployment", "default", "web")) is None
