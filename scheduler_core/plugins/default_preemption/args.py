"""DefaultPreemptionArgs: v1 defaulting and validation (apis/config/v1 + validation_pluginargs.go).

The two fields size the sample of potential nodes the real plugin dry-runs (from a random offset).
SchedLab's dry run evaluates every potential node, so they are parsed and validated for faithful
configuration errors but do not change the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

PERCENTAGE = "minCandidateNodesPercentage"
ABSOLUTE = "minCandidateNodesAbsolute"
_ARGS_FIELDS = {"apiVersion", "kind", PERCENTAGE, ABSOLUTE}


@dataclass(frozen=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    min_candidate_nodes_absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "DefaultPreemptionArgs":
        raw = raw or {}
        problems = [ArgsProblem(key, f'unknown field "{key}"') for key in raw if key not in _ARGS_FIELDS]
        percentage = _int_field(raw, PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, problems)
        absolute = _int_field(raw, ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE, problems)
        args = cls(percentage, absolute)
        problems.extend(args.validate())
        if problems:
            raise ArgsError(problems)
        return args

    def validate(self) -> list[ArgsProblem]:
        """ValidateDefaultPreemptionArgs: every problem, with its field path."""
        percentage, absolute = self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute
        problems: list[ArgsProblem] = []
        if not 0 <= percentage <= 100:
            problems.append(ArgsProblem(PERCENTAGE, f"Invalid value: {percentage}: not in valid range [0, 100]"))
        if absolute < 0:
            problems.append(ArgsProblem(ABSOLUTE, f"Invalid value: {absolute}: not in valid range [0, inf)"))
        if percentage == 0 and absolute == 0:
            problems.append(ArgsProblem(PERCENTAGE, f"Invalid value: 0: cannot be zero at the same time as {ABSOLUTE}"))
            problems.append(ArgsProblem(ABSOLUTE, f"Invalid value: 0: cannot be zero at the same time as {PERCENTAGE}"))
        return problems


def _int_field(raw: Mapping[str, Any], key: str, default: int, problems: list[ArgsProblem]) -> int:
    """SetDefaults_DefaultPreemptionArgs: an absent (or null) field takes its default; 0 stays 0."""
    value = raw.get(key)
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    problems.append(ArgsProblem(key, f"Invalid value: {value!r}: must be an integer"))
    return default
