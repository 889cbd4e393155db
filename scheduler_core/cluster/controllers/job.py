"""The Job stand-in (pkg/controller/job: manageJob): ``parallelism`` pods named as the
ReplicaSet names them; ``complete`` makes them succeed, and a complete Job makes no more."""

from __future__ import annotations

from scheduler_core.cluster.controllers import replicaset
from scheduler_core.cluster.controllers.state import ClusterState, Write
from scheduler_core.model import ControlledWorkload, Pod

# The labels the API server's Job strategy puts on the template (and so on every pod).
LABEL_CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LABEL_JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"


def job_labels(job: ControlledWorkload) -> dict[str, str]:
    return {
        LABEL_CONTROLLER_UID: job.uid,
        LABEL_JOB_NAME: job.name,
        LEGACY_CONTROLLER_UID: job.uid,
        LEGACY_JOB_NAME: job.name,
    }


def reconcile(state: ClusterState, job: ControlledWorkload) -> list[Write]:
    wanted = 0 if job.key in state.completed_jobs else job.replicas
    return replicaset.reconcile(state, job, wanted, job_labels(job))


def complete(state: ClusterState, job: ControlledWorkload) -> list[Pod]:
    """Every active pod of the Job succeeds; the Job is complete."""
    state.completed_jobs.add(job.key)
    return [pod for pod in state.owned_pods(job) if not pod.is_terminating]
