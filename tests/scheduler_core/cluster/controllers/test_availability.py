"""podutil.IsPodAvailable with the kubelet stand-in's Ready condition, and the controllers' resync
minReadySeconds + 1 s after a pod became ready."""

from __future__ import annotations

import pytest

from scheduler_core.cluster.controllers import availability
from scheduler_core.model import ObjectRef, OwnerReference
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_pod


@pytest.mark.parametrize(
    ("min_ready", "bound_ms", "now_ms", "expected"),
    [
        pytest.param(0, 1_500, 1_500, True, id="without minReadySeconds a ready pod is available at once"),
        pytest.param(10, 1_500, 11_000, False, id="ready at 1.5 s (1 s as served): not yet at 11 s"),
        pytest.param(10, 1_500, 11_001, True, id="strictly after lastTransitionTime + minReadySeconds"),
        pytest.param(10, None, 0, True, id="a pod bound in the scenario was ready before the run"),
    ],
)
def test_a_bound_pod_is_available_min_ready_seconds_after_its_binding(min_ready, bound_ms, now_ms, expected):
    pod = make_pod("p", node="n1")
    state = cluster_state(pods=[pod])
    if bound_ms is not None:
        state.bound_ms[pod.key] = bound_ms
    state.now_ms = now_ms
    assert availability.is_available(state, pod, min_ready) == expected


def test_a_pending_or_terminating_pod_is_not_available():
    pending = make_pod("p")
    state = cluster_state(pods=[pending])
    assert not availability.is_available(state, pending, 0)


def test_the_controller_looks_again_min_ready_seconds_and_a_second_after_the_binding():
    pod = make_pod("p", node="n1")
    state = cluster_state(pods=[pod])
    state.bound_ms[pod.key] = 1_500
    assert availability.resync_ms(state, pod, 10) == 12_500
    assert availability.resync_ms(state, pod, 0) is None


def _owned_pod(workload):
    ref = OwnerReference(workload.kind, workload.name, "apps/v1", controller=True, uid=workload.uid)
    return make_pod(f"{workload.name}-1", labels={"app": workload.name}, node="n1", owner_references=(ref,))


def test_a_pod_becoming_ready_matters_to_its_controller_only_while_it_waits_for_it():
    ordered = controlled_workload("StatefulSet", "db", min_ready_seconds=5)
    parallel = controlled_workload("StatefulSet", "cache", min_ready_seconds=5, pod_management_policy="Parallel")
    agent = controlled_workload("DaemonSet", "agent", min_ready_seconds=5)
    quick = controlled_workload("StatefulSet", "quick")
    state = cluster_state(workloads=[ordered, parallel, agent, quick])
    assert availability.owner_to_resync(state, _owned_pod(ordered), []) is ordered  # OrderedReady progress
    assert availability.owner_to_resync(state, _owned_pod(parallel), []) is None
    assert availability.owner_to_resync(state, _owned_pod(agent), []) is None
    assert availability.owner_to_resync(state, _owned_pod(agent), [ObjectRef("DaemonSet", "default", "agent")]) is agent
    assert availability.owner_to_resync(state, _owned_pod(quick), []) is None  # no minReadySeconds


def test_the_resyncs_wake_the_run_soonest_first_and_are_taken_once_due():
    db = controlled_workload("StatefulSet", "db", min_ready_seconds=5)
    pod = _owned_pod(db)
    state = cluster_state(workloads=[db], pods=[pod])
    state.bound_ms[pod.key] = 1_000
    resyncs = availability.Resyncs(state)
    assert resyncs.next_ms() is None
    resyncs.expect_available(pod, 1_000, [])
    assert resyncs.next_ms() == 7_000 and state.now_ms == 1_000
    assert not resyncs.take_due(6_999)
    assert resyncs.take_due(7_000) and resyncs.next_ms() is None
