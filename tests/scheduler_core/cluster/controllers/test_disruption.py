"""The disruption stand-in: getExpectedPodCount and updatePdbStatus's disruptionsAllowed."""

from __future__ import annotations

import pytest

from scheduler_core.cluster.controllers import disruption, replicaset
from scheduler_core.model import BudgetSpec, LabelSelector, PodDisruptionBudget
from tests.scheduler_core.builders import cluster_state, controlled_workload


@pytest.mark.parametrize(
    "spec, running, allowed",
    [
        pytest.param(BudgetSpec("default", "b", min_available=2), 3, 1, id="minAvailable 2 of 3 running"),
        pytest.param(BudgetSpec("default", "b", min_available=2), 1, 0, id="never below 0"),
        pytest.param(BudgetSpec("default", "b", min_available="50%"), 4, 1, id="50% of 5 rounds up to 3"),
        pytest.param(BudgetSpec("default", "b", max_unavailable=1), 5, 1, id="maxUnavailable 1 of 5"),
        pytest.param(BudgetSpec("default", "b", max_unavailable="30%"), 5, 2, id="30% of 5 rounds up to 2"),
    ],
)
def test_it_recomputes_disruptions_allowed(spec, running, allowed):
    web = controlled_workload("ReplicaSet", "web", replicas=5)
    state = cluster_state(workloads=[web])
    pods = [w.pod for w in replicaset.reconcile(state, web)]
    for pod in pods[:running]:
        pod.node_name = "n1"
    budget = PodDisruptionBudget("default", "b", LabelSelector((("app", "web"),)), 0)
    assert disruption.recompute(state, budget, spec).disruptions_allowed == allowed
