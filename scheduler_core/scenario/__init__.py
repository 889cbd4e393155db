"""Scenario loading: YAML/JSON Kubernetes objects -> model.Scenario, or ScenarioInvalid with every problem."""

from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.loader import load_scenario

__all__ = ["Limits", "ScenarioError", "ScenarioInvalid", "load_scenario"]
