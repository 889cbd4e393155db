"""The ReplicaSet stand-in: manageReplicas' counts, the names, getPodsToDelete's order (the
release's ranking, ranking.py)."""

from __future__ import annotations

from datetime import datetime, timezone

from scheduler_core.cluster.controllers import replicaset
from scheduler_core.cluster.controllers.state import CreatePod, DeletePod
from tests.scheduler_core.builders import cluster_state, controlled_workload


def test_it_creates_the_missing_pods_named_by_a_counter_that_skips_names_in_use():
    """manageReplicas (diff < 0): one pod per missing replica, owned by the ReplicaSet."""
    web = controlled_workload("ReplicaSet", "web", replicas=3)
    state = cluster_state(workloads=[web])
    first = replicaset.reconcile(state, web)
    assert [w.pod.name for w in first] == ["web-1", "web-2", "web-3"] and all(isinstance(w, CreatePod) for w in first)
    pod = first[0].pod
    assert pod.owner_references[0].kind == "ReplicaSet" and pod.owner_references[0].controller
    assert pod.labels == {"app": "web"} and pod.phase == "Pending"
    state.gone.add(first[1].pod.key)  # web-2 deleted: its replacement is web-4, never a reused name
    assert [w.pod.name for w in replicaset.reconcile(state, web)] == ["web-4"]


def test_it_deletes_pending_pods_first_then_the_most_recently_created():
    """getPodsToDelete (ranking.py): pending before bound; a standalone ReplicaSet has no
    colocation rank, so the newest creationTimestamp; ties name descending."""
    web = controlled_workload("ReplicaSet", "web", replicas=5)
    state = cluster_state(workloads=[web])
    pods = [w.pod for w in replicaset.reconcile(state, web)]
    for pod in pods[:4]:
        pod.node_name = "n1"
    state.created_ms[pods[3].key] = 5000  # web-4 is the newest bound pod
    web.replicas = 2
    deleted = replicaset.reconcile(state, web)
    assert [(type(w), w.pod.name) for w in deleted] == [
        (DeletePod, "web-5"),
        (DeletePod, "web-4"),
        (DeletePod, "web-3"),
    ]


def test_it_does_not_count_terminating_pods_as_active():
    """FilterActivePods: a terminating pod is replaced at once."""
    web = controlled_workload("ReplicaSet", "web", replicas=1)
    state = cluster_state(workloads=[web])
    [created] = replicaset.reconcile(state, web)
    created.pod.deletion_timestamp = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert [w.pod.name for w in replicaset.reconcile(state, web)] == ["web-2"]
