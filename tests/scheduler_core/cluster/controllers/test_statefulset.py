"""The StatefulSet stand-in: ordinals, claims from volumeClaimTemplates before their pod,
OrderedReady versus Parallel, scale down from the highest ordinal; template changes (RollingUpdate
with partition, OnDelete)."""

from __future__ import annotations

import pytest

from scheduler_core.cluster.controllers import statefulset
from scheduler_core.cluster.controllers.state import CreateClaim, CreatePod, DeletePod
from scheduler_core.model import POLICY_PARALLEL
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_class

CLAIM_TEMPLATE = {
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}


def test_it_creates_the_claim_then_the_pod_one_ordinal_at_a_time_with_ordered_ready():
    """OrderedReady: ordinal n waits until n-1 runs; the claim data-db-n comes first, with the
    default class (DefaultStorageClass admission), and the pod's volume names it."""
    db = controlled_workload("StatefulSet", "db", replicas=2, claim_templates=(CLAIM_TEMPLATE,))
    state = cluster_state(workloads=[db])
    default = make_class("fast", annotations={"storageclass.kubernetes.io/is-default-class": "true"})
    writes = statefulset.reconcile(state, db, [default])
    assert [type(w) for w in writes] == [CreateClaim, CreatePod]
    claim, pod = writes[0].claim, writes[1].pod
    assert (claim.name, claim.storage_class_name, pod.name) == ("data-db-0", "fast", "db-0")
    assert [(v.name, v.claim_name) for v in pod.volumes] == [("data", "data-db-0")]
    assert pod.labels["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert statefulset.reconcile(state, db, [default]) == []  # db-0 is not running yet
    pod.node_name = "n1"
    assert [w.pod.name for w in statefulset.reconcile(state, db, [default]) if isinstance(w, CreatePod)] == ["db-1"]


def test_it_creates_every_missing_ordinal_at_once_with_parallel():
    db = controlled_workload("StatefulSet", "db", replicas=3, pod_management_policy=POLICY_PARALLEL)
    state = cluster_state(workloads=[db])
    assert [w.pod.name for w in statefulset.reconcile(state, db, [])] == ["db-0", "db-1", "db-2"]


def test_it_scales_down_from_the_highest_ordinal_one_at_a_time_with_ordered_ready():
    db = controlled_workload("StatefulSet", "db", replicas=3, pod_management_policy=POLICY_PARALLEL)
    state = cluster_state(workloads=[db])
    for write in statefulset.reconcile(state, db, []):
        write.pod.node_name = "n1"
    db.pod_management_policy = "OrderedReady"
    db.replicas = 1
    assert [(type(w), w.pod.name) for w in statefulset.reconcile(state, db, [])] == [(DeletePod, "db-2")]


# ---------------------------------------------------------------------------- template changes


def _running_set(replicas: int, update_strategy: dict | None = None, policy: str = POLICY_PARALLEL):
    """A set whose pods all run, then its template changed (a second revision)."""
    db = controlled_workload("StatefulSet", "db", replicas=replicas, pod_management_policy=policy)
    if update_strategy is not None:
        db.manifest = {"spec": {"updateStrategy": update_strategy}}
    state = cluster_state(workloads=[db])
    for write in statefulset.reconcile(state, db, []):
        write.pod.node_name = "n1"
    db.template = {
        "metadata": {"labels": {"app": "db"}},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
    }
    return db, state


def _deleted(writes) -> list[str]:
    return [w.pod.name for w in writes if isinstance(w, DeletePod)]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        pytest.param(None, ["db-3"], id="the default rolling update deletes the highest ordinal of the old revision"),
        pytest.param(
            {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 2}},
            ["db-3"],
            id="maxUnavailable is not read (MaxUnavailableStatefulSet is off in v1.35): one pod at a time",
        ),
        pytest.param(
            {"type": "RollingUpdate", "rollingUpdate": {"partition": 3, "maxUnavailable": "100%"}},
            ["db-3"],
            id="nothing below the partition is deleted",
        ),
        pytest.param({"type": "OnDelete"}, [], id="OnDelete deletes nothing"),
    ],
)
def test_a_template_change_deletes_old_pods_as_update_stateful_set_does(strategy, expected):
    db, state = _running_set(4, strategy)
    assert _deleted(statefulset.reconcile(state, db, [])) == expected


def test_an_unavailable_pod_holds_the_rolling_update():
    """OrderedReady: a pending pod (even below the partition) holds the set before any deletion."""
    db, state = _running_set(3, policy="OrderedReady")
    state.owned_pods(db)[0].node_name = ""
    assert _deleted(statefulset.reconcile(state, db, [])) == []


def test_a_deleted_pod_comes_back_at_the_revision_its_ordinal_is_due():
    """newVersionedStatefulSetPod: below the partition the current revision's template, from the
    partition up the update revision's."""
    db, state = _running_set(2, {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}})
    for pod in state.owned_pods(db):
        state.gone.add(pod.key)
    made = {w.pod.name: w.pod for w in statefulset.reconcile(state, db, []) if isinstance(w, CreatePod)}
    state.gone.clear()  # the informer's Adds of the new pods
    assert made["db-0"].containers[0].requests["cpu"] == 1000 and made["db-1"].containers[0].requests["cpu"] == 2000
    status = statefulset.rollout_status(state, db)
    assert (status.updated, status.partition, status.revision, status.old_pods) == (1, 1, 2, ["default/db-0"])


def test_the_rolling_update_completes_when_every_replica_runs_the_new_revision():
    """completeRollingUpdate: the update revision becomes current; kubectl's status is complete."""
    db, state = _running_set(1)
    assert _deleted(statefulset.reconcile(state, db, [])) == ["db-0"]
    state.gone.add(state.owned_pods(db)[0].key)
    [created] = statefulset.reconcile(state, db, [])
    state.gone.clear()  # the informer's Add of the new pod
    created.pod.node_name = "n1"
    assert statefulset.reconcile(state, db, []) == []
    revisions = statefulset.revisions(state, db)
    assert revisions.current_hash == revisions.latest_hash and statefulset.rollout_status(state, db).complete


def test_a_parallel_set_deletes_past_an_unhealthy_lower_pod_but_waits_for_one_on_its_way():
    """updateStatefulSet's walk from the highest ordinal: the first old pod is deleted whatever
    lies below it; an unhealthy pod met before any old one stops the walk."""
    db, state = _running_set(3, policy="Parallel")
    state.owned_pods(db)[0].node_name = ""
    assert _deleted(statefulset.reconcile(state, db, [])) == ["db-2"]
    db, state = _running_set(3, policy="Parallel")
    top = state.owned_pods(db)[2]
    state.pod_revisions[top.key] = statefulset.revisions(state, db).latest_hash
    top.node_name = ""
    assert _deleted(statefulset.reconcile(state, db, [])) == []


def test_ordered_ready_waits_for_min_ready_seconds_before_the_next_ordinal():
    """processReplica: ordinal 1 waits until ordinal 0 is running, ready and available
    (isRunningAndAvailable: ready at its binding, minReadySeconds later)."""
    db = controlled_workload("StatefulSet", "db", replicas=2, min_ready_seconds=10)
    state = cluster_state(workloads=[db])
    [first] = statefulset.reconcile(state, db, [])
    first.pod.node_name = "n1"
    state.bound_ms[first.pod.key] = 500
    state.now_ms = 10_000
    assert statefulset.reconcile(state, db, []) == []
    state.now_ms = 10_001
    assert [w.pod.name for w in statefulset.reconcile(state, db, []) if isinstance(w, CreatePod)] == ["db-1"]
