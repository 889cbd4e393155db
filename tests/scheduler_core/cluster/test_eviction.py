"""cluster/eviction.py: the eviction API's PDB check (EvictionREST.Create)."""

from __future__ import annotations

from datetime import datetime, timezone

from scheduler_core.cluster.eviction import evict
from scheduler_core.model import LabelSelector, PodDisruptionBudget
from tests.scheduler_core.builders import make_pod

WEB = LabelSelector((("app", "web"),))


def test_it_refuses_an_eviction_when_the_budget_allows_no_disruption_and_names_it():
    """checkAndDecrement: DisruptionsAllowed == 0 -> 429 TooManyRequests."""
    answer = evict(make_pod("w", node="n1", labels={"app": "web"}), [PodDisruptionBudget("default", "pdb", WEB, 0)])
    assert not answer.allowed and answer.budget == "default/pdb"


def test_it_uses_up_one_disruption_per_eviction():
    """checkAndDecrement: DisruptionsAllowed-- and the pod in DisruptedPods."""
    answer = evict(make_pod("w", node="n1", labels={"app": "web"}), [PodDisruptionBudget("default", "pdb", WEB, 2)])
    assert answer.allowed and answer.used.disruptions_allowed == 1 and answer.used.disrupted_pods == {"w"}


def test_it_ignores_budgets_for_pending_and_terminating_pods():
    """canIgnorePDB: Pending (here: not bound), finished or already terminating."""
    budgets = [PodDisruptionBudget("default", "pdb", WEB, 0)]
    ignored = evict(make_pod("w", labels={"app": "web"}), budgets)
    assert ignored.allowed and ignored.used is None  # no budget is touched
    terminating = make_pod("t", node="n1", labels={"app": "web"})
    terminating.deletion_timestamp = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert evict(terminating, budgets).allowed


def test_it_refuses_a_pod_selected_by_two_budgets():
    """getPodDisruptionBudgets > 1: "This pod has more than one PodDisruptionBudget" (500)."""
    budgets = [PodDisruptionBudget("default", "a", WEB, 5), PodDisruptionBudget("default", "b", WEB, 5)]
    answer = evict(make_pod("w", node="n1", labels={"app": "web"}), budgets)
    assert not answer.allowed and answer.budget == "default/a, default/b"
