"""kube-controller-manager's turn (controllers/manager.py): one pass of the controllers in the
spec's order, narrowed to the kinds asked, and the controllers a binding can move."""

from __future__ import annotations

from scheduler_core.cluster.controllers import manager
from scheduler_core.cluster.controllers.state import CreatePod
from tests.scheduler_core.builders import cluster_state, controlled_workload


def test_a_pass_answers_the_pods_each_controller_wants_in_the_specs_order():
    job = controlled_workload("Job", "etl", replicas=1)
    web = controlled_workload("ReplicaSet", "web", replicas=2)
    state = cluster_state(workloads=[job, web])
    writes = manager.sync_pass(state, manager.ALL_CONTROLLERS, [])
    assert all(isinstance(w, CreatePod) for w in writes)
    assert [w.pod.name for w in writes] == ["web-1", "web-2", "etl-1"]  # ReplicaSets before Jobs


def test_a_pass_runs_only_the_controllers_of_the_kinds_asked():
    job = controlled_workload("Job", "etl", replicas=1)
    web = controlled_workload("ReplicaSet", "web", replicas=1)
    state = cluster_state(workloads=[job, web])
    assert [w.pod.name for w in manager.sync_pass(state, ("Job",), [])] == ["etl-1"]


def test_a_binding_moves_stateful_sets_and_during_rollouts_deployments_and_daemon_sets():
    state = cluster_state()
    assert manager.bound_reactors(state, daemon_set_rolling=False) == ("StatefulSet",)
    assert manager.bound_reactors(state, daemon_set_rolling=True) == ("StatefulSet", "DaemonSet")
    state.rolling.add("default/web")
    assert manager.bound_reactors(state, daemon_set_rolling=False) == ("Deployment", "ReplicaSet", "StatefulSet")
