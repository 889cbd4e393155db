"""VolumeBindingArgs: v1 defaults and validation (apis/config/v1 defaults, validation_pluginargs.go)
at the release's feature gates: StorageCapacityScoring is off (alpha), so ``shape`` is refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem

BIND_TIMEOUT_FIELD = "bindTimeoutSeconds"
SHAPE_FIELD = "shape"
DEFAULT_BIND_TIMEOUT_SECONDS = 600

_TYPE_META_FIELDS = frozenset(("apiVersion", "kind"))
_KNOWN_FIELDS = frozenset((BIND_TIMEOUT_FIELD, SHAPE_FIELD)) | _TYPE_META_FIELDS


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs:
    # How long PreBind waits for the volume controller to finish binding (0: it gives up at once).
    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "VolumeBindingArgs":
        raw = raw or {}
        problems = [ArgsProblem(name, f'unknown field "{name}"') for name in raw if name not in _KNOWN_FIELDS]
        timeout = raw.get(BIND_TIMEOUT_FIELD)
        if timeout is None:
            timeout = DEFAULT_BIND_TIMEOUT_SECONDS
        if not isinstance(timeout, int) or isinstance(timeout, bool):
            problems.append(ArgsProblem(BIND_TIMEOUT_FIELD, f"Invalid value: {timeout!r}: must be an integer"))
        elif timeout < 0:
            problems.append(
                ArgsProblem(
                    BIND_TIMEOUT_FIELD,
                    f"Invalid value: {timeout}: invalid BindTimeoutSeconds, should not be a negative value",
                )
            )
        if raw.get(SHAPE_FIELD) is not None:
            problems.append(
                ArgsProblem(
                    SHAPE_FIELD,
                    "Invalid value: unexpected field `shape`, remove it or turn on "
                    "the feature gate StorageCapacityScoring",
                )
            )
        if problems:
            raise ArgsError(problems)
        return cls(timeout)
