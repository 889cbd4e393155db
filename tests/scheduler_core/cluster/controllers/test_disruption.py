"""The disruption stand-in: getExpectedPodCount and updatePdbStatus's disruptionsAllowed."""

from __future__ import annotations

from dataclasses import replace

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


class _Budgets:
    """The API server's budgets as the controller sees them, with the status writes it made."""

    def __init__(self, *budgets: PodDisruptionBudget) -> None:
        self.held = {budget.name: budget for budget in budgets}
        self.written: list[tuple[str, int, str]] = []

    def budgets(self) -> list[PodDisruptionBudget]:
        return list(self.held.values())

    def put_budget(self, budget: PodDisruptionBudget, detail: str = "") -> PodDisruptionBudget:
        self.held[budget.name] = budget
        self.written.append((budget.name, budget.disruptions_allowed, detail))
        return budget


def _running_web_pods(count: int):
    web = controlled_workload("ReplicaSet", "web", replicas=count)
    state = cluster_state(workloads=[web])
    pods = [w.pod for w in replicaset.reconcile(state, web)]
    for pod in pods:
        pod.node_name = "n1"
    return state, pods


def test_sync_writes_only_the_statuses_that_moved_and_yields_each_once_written():
    state, _ = _running_web_pods(3)
    spec = BudgetSpec("default", "moves", min_available=2)
    moves = PodDisruptionBudget("default", "moves", LabelSelector((("app", "web"),)), 0, spec=spec)
    holds = PodDisruptionBudget(
        "default", "holds", LabelSelector((("app", "web"),)), 2, spec=replace(spec, name="holds", min_available=1)
    )
    api = _Budgets(moves, holds)
    synced = disruption.sync(state, api)
    assert api.written == []  # a generator: each write when the caller asks for the next
    assert [budget.name for budget in synced] == ["moves"]
    assert api.written == [("moves", 1, "disruptionsAllowed 0 → 1")]


def test_sync_after_a_pod_changed_looks_only_at_the_budgets_that_select_it():
    state, pods = _running_web_pods(3)
    spec = BudgetSpec("default", "other", min_available=0)
    other = PodDisruptionBudget("default", "other", LabelSelector((("app", "db"),)), 5, spec=spec)
    api = _Budgets(other)
    assert list(disruption.sync(state, api, changed=pods[0])) == []
    assert not disruption.selects(other, pods[0])
    assert disruption.selects(replace(other, selector=LabelSelector((("app", "web"),))), pods[0])
