"""model/policy.py: a PodDisruptionBudget's key, and equality that ignores the version the run's
cluster gives it (a write of the same budget is no write)."""

from __future__ import annotations

from dataclasses import replace

from scheduler_core.model.core import LabelSelector
from scheduler_core.model.policy import PodDisruptionBudget


def test_a_budget_is_keyed_by_namespace_and_name_and_compares_without_its_version():
    budget = PodDisruptionBudget("prod", "web", LabelSelector((("app", "web"),)), 1)
    assert budget.key == "prod/web"
    assert replace(budget, resource_version=9) == budget
    assert replace(budget, disruptions_allowed=0) != budget
