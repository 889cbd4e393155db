"""scheduling.k8s.io/v1 PriorityClass and the KubeSchedulerConfiguration
(kubescheduler.config.k8s.io/v1) as the profiles are built from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True, slots=True)
class PluginRef:
    name: str
    weight: Optional[int] = None


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: what the Priority admission plugin resolves a pod's
    ``priorityClassName`` to (``preemption_policy`` defaults to PreemptLowerPriority)."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    line: Optional[int] = None


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """One profile of a KubeSchedulerConfiguration, as written (defaults are applied in profile.py).

    ``percentage_of_nodes_to_score`` is the profile's own value, else the configuration's (None when
    neither sets it). ``plugins`` maps an extension point's config name (``multiPoint``, ``preFilter``, ``filter``,
    ``postFilter``, ``preScore``, ``score``, ``reserve``, ``permit``, ``preBind``, ``bind``,
    ``postBind``, ``queueSort``) to its enabled/disabled sets; ``plugin_args`` maps a plugin name
    to its raw args mapping (validated and typed by the plugin's args dataclass).
    """

    percentage_of_nodes_to_score: Optional[int] = None
    scheduler_name: str = "default-scheduler"
    plugins: dict[str, PluginSet] = field(default_factory=dict)
    plugin_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    line: Optional[int] = None


DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10


@dataclass(frozen=True, slots=True)
class SchedulerConfiguration:
    """A KubeSchedulerConfiguration: its profiles (one per schedulerName) and the queue's back-off."""

    profiles: tuple[SchedulerConfig, ...]
    pod_initial_backoff_seconds: int = DEFAULT_POD_INITIAL_BACKOFF_SECONDS
    pod_max_backoff_seconds: int = DEFAULT_POD_MAX_BACKOFF_SECONDS
    line: Optional[int] = None
