"""scheduler_core: kube-scheduler's framework and default plugins (v1.32 to v1.36), in pure Python.

The public API is listed in docs/ENGINE_API.md; everything else is internal.
"""

from scheduler_core.encoding.events import Event, ExtensionPoint
from scheduler_core.answers.explain import CycleExplanation, explain_cycle
from scheduler_core.model import Scenario
from scheduler_core.model.resources import pod_requests
from scheduler_core.scenario import Limits, ScenarioError, ScenarioInvalid, load_scenario
from scheduler_core.run.schedule_one import simulate
from scheduler_core.encoding.trace import TraceBuilder, trace_cycles, trace_summary

__all__ = [
    "CycleExplanation",
    "Event",
    "ExtensionPoint",
    "Limits",
    "Scenario",
    "ScenarioError",
    "ScenarioInvalid",
    "TraceBuilder",
    "explain_cycle",
    "load_scenario",
    "pod_requests",
    "simulate",
    "trace_cycles",
    "trace_summary",
]
