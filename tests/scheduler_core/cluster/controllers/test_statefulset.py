"""The StatefulSet stand-in: ordinals, claims from volumeClaimTemplates before their pod,
OrderedReady versus Parallel, scale down from the highest ordinal."""

from __future__ import annotations

from scheduler_core.cluster.controllers import statefulset
from scheduler_core.cluster.controllers.state import CreateClaim, CreatePod, DeletePod
from scheduler_core.model import POLICY_PARALLEL
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_class

CLAIM_TEMPLATE = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                        "resources": {"requests": {"storage": "1Gi"}}}}


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
