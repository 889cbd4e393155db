"""The Job stand-in: parallelism pods named as the ReplicaSet names them; a complete Job makes none."""

from __future__ import annotations

from scheduler_core.cluster.controllers import job
from tests.scheduler_core.builders import cluster_state, controlled_workload


def test_it_keeps_parallelism_pods_with_the_job_labels_until_complete():
    """manageJob: active pods up to parallelism; the API server's Job labels on each pod."""
    etl = controlled_workload("Job", "etl", replicas=2)
    etl.selector = None  # a Job written without a selector (the API server generates one)
    state = cluster_state(workloads=[etl])
    created = job.reconcile(state, etl)
    assert [w.pod.name for w in created] == ["etl-1", "etl-2"]
    assert created[0].pod.labels["batch.kubernetes.io/job-name"] == "etl"
    finished = job.complete(state, etl)
    for pod in finished:
        pod.phase = "Succeeded"
    assert [p.name for p in finished] == ["etl-1", "etl-2"] and job.reconcile(state, etl) == []
