"""InterPodAffinityArgs: v1 defaults and validation (apis/config/v1 defaults, validation_pluginargs.go)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem

HARD_WEIGHT_FIELD = "hardPodAffinityWeight"
IGNORE_PREFERRED_FIELD = "ignorePreferredTermsOfExistingPods"
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1

# Type metadata a pluginConfig's args may carry besides the fields.
_TYPE_META_FIELDS = frozenset(("apiVersion", "kind"))
_KNOWN_FIELDS = frozenset((HARD_WEIGHT_FIELD, IGNORE_PREFERRED_FIELD)) | _TYPE_META_FIELDS


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    # Score added to a topology pair for each required affinity term of a running pod that the
    # incoming pod matches (0 turns the symmetry off).
    hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    # When set, PreScore skips a pod without preferred terms instead of weighing running pods' terms.
    ignore_preferred_terms_of_existing_pods: bool = False

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "InterPodAffinityArgs":
        raw = raw or {}
        problems = [ArgsProblem(name, f'unknown field "{name}"') for name in raw if name not in _KNOWN_FIELDS]
        weight = raw.get(HARD_WEIGHT_FIELD)
        if weight is None:
            weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT
        if not _is_int(weight):
            problems.append(ArgsProblem(HARD_WEIGHT_FIELD, f"Invalid value: {weight!r}: must be an integer"))
        elif not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
            problems.append(
                ArgsProblem(
                    HARD_WEIGHT_FIELD,
                    f"Invalid value: {weight}: not in valid range "
                    f"[{MIN_HARD_POD_AFFINITY_WEIGHT}-{MAX_HARD_POD_AFFINITY_WEIGHT}]",
                )
            )
        ignore = raw.get(IGNORE_PREFERRED_FIELD)
        if ignore is None:
            ignore = False
        if not isinstance(ignore, bool):
            problems.append(ArgsProblem(IGNORE_PREFERRED_FIELD, f"Invalid value: {ignore!r}: must be a boolean"))
        if problems:
            raise ArgsError(problems)
        return cls(weight, ignore)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
