"""kube-controller-manager's turn (cmd/kube-controller-manager: the workload controllers it
starts): one pass of the stand-in controllers over their workloads, in ../shared/spec/CHANGES.md's
order, and which of them a binding can move."""

from __future__ import annotations

from scheduler_core.cluster.controllers import daemonset, deployment, job, replicaset, statefulset
from scheduler_core.cluster.controllers.state import ClusterState, Write
from scheduler_core.model import (
    KIND_DAEMON_SET,
    KIND_DEPLOYMENT,
    KIND_JOB,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    StorageClass,
)

ALL_CONTROLLERS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB)


def sync_pass(state: ClusterState, kinds: tuple[str, ...], classes: list[StorageClass]) -> list[Write]:
    """One pass of the controllers of ``kinds`` over their workloads, in the spec's order (a
    Deployment writes its ReplicaSets through the cluster as it syncs; the pods the others
    want are returned, to be written in order). ``classes``: the storage classes a
    StatefulSet's claim templates default to."""
    for workload in [w for w in state.workloads if w.kind == KIND_DEPLOYMENT and KIND_DEPLOYMENT in kinds]:
        deployment.reconcile(state, workload)
    writes: list[Write] = []
    for kind in (KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB):
        if kind not in kinds:
            continue
        for workload in [w for w in state.workloads if w.kind == kind]:
            if kind == KIND_REPLICA_SET:
                writes.extend(replicaset.reconcile(state, workload))
            elif kind == KIND_STATEFUL_SET:
                writes.extend(statefulset.reconcile(state, workload, classes))
            elif kind == KIND_DAEMON_SET:
                writes.extend(daemonset.reconcile(state, workload))
            else:
                writes.extend(job.reconcile(state, workload))
    return writes


def bound_reactors(state: ClusterState, daemon_set_rolling: bool) -> tuple[str, ...]:
    """The controllers a binding can move (the others count pending and bound pods alike): a
    StatefulSet's OrderedReady progress; during a rollout, availability moves the Deployment (and
    so its ReplicaSets) and a DaemonSet."""
    kinds = [KIND_STATEFUL_SET]
    if state.rolling:
        kinds[:0] = [KIND_DEPLOYMENT, KIND_REPLICA_SET]
    if daemon_set_rolling:
        kinds.append(KIND_DAEMON_SET)
    return tuple(kinds)
