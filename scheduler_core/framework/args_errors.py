"""Errors of a plugin's args (pluginConfig), as config/validation's field errors name them.

A plugin's ``Args.parse`` raises ``ArgsError`` with every problem found; the profile builder turns
each into a ``pluginConfig[<plugin>].args.<path>`` problem of the configuration.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArgsProblem:
    path: str  # relative to the plugin's ``args``, e.g. "scoringStrategy.type"
    message: str


class ArgsError(ValueError):
    """Invalid pluginConfig args; carries every problem found."""

    def __init__(self, problems: list[ArgsProblem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))
        self.problems = problems
