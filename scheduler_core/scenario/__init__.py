"""Scenario loading: YAML/JSON Kubernetes objects -> model.Scenario, or ScenarioInvalid with every problem.

``load_scenario`` reads one text; ``load_paths`` / ``load_upload`` (scenario/sources.py) read files,
directories and archives as one scenario.
"""

from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.loader import load_scenario
from scheduler_core.scenario.sources import load_paths, load_upload

__all__ = ["Limits", "ScenarioError", "ScenarioInvalid", "load_paths", "load_scenario", "load_upload"]
