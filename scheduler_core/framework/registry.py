"""The in-tree registry: plugin name -> factory (framework/runtime.Registry).

A factory takes the plugin's args (the raw ``pluginConfig`` mapping, or None for defaults) and the
framework handle, and returns the plugin. Args are parsed and validated by the plugin's own
``Args.parse``, which raises ``ArgsError`` naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from scheduler_core.framework.interfaces import Handle

PluginFactory = Callable[[Optional[Mapping[str, Any]], Handle], Any]


@dataclass(frozen=True)
class ArgsProblem:
    path: str  # relative to the plugin's ``args``, e.g. "scoringStrategy.type"
    message: str


class ArgsError(ValueError):
    """Invalid pluginConfig args; carries every problem found."""

    def __init__(self, problems: list[ArgsProblem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))
        self.problems = problems


Registry = dict[str, PluginFactory]


def in_tree_registry() -> Registry:
    # Imported here: plugins import the framework, so the framework must not import them at load.
    from scheduler_core.plugins import IN_TREE

    return dict(IN_TREE)
