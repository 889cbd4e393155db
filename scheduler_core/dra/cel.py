"""The DRA CEL environment (k8s.io/dynamic-resource-allocation/cel/compile.go) on cel-python:
the compiled selectors the allocator and the loader use. The interpreter itself is in
scheduler_core.dra.celprogram, imported with the first expression compiled.

A selector sees one variable, ``device``, with ``driver`` (string), ``attributes`` and
``capacity``: maps from a domain to maps from an id to the value (``device.attributes["gpu.example.com"].model``).
An attribute written without a domain belongs to the driver's domain. A domain the device does
not have is an empty map (compile.go's mapper with a default), so ``.model`` on it is the runtime
error ``no such key: model``. Capacities are quantities and attribute versions are semantic
versions, with the functions of k8s.io/apiserver/pkg/cel/library (quantity.go, semver.go):
``quantity("40Gi")``, ``isQuantity``, ``compareTo``, ``isLessThan``, ``isGreaterThan``, ``add``,
``sub``, ``sign``, ``isInteger``, ``asInteger``, ``asApproximateFloat``, ``semver("1.2.3")``,
``isSemver``, ``major``, ``minor``, ``patch``.

The cost limit (resourceapi.CELSelectorExpressionMaxCost) is applied where the API server applies
it, to the worst-case estimate at create (celcost.py); cel-python has no runtime cost accounting,
which is never reached here: a device has at most 32 attributes (validation), so an expression
within the estimate stays within the limit when it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from scheduler_core.dra.celvalues import SELECTOR_MAX_COST, CelRuntimeError, Quantity, Semver, parse_semver
from scheduler_core.model import Device

__all__ = [
    "SELECTOR_MAX_COST",
    "CelRuntimeError",
    "CompiledSelector",
    "Quantity",
    "Semver",
    "compile_selector",
    "parse_semver",
]


# The selector nearly every DeviceClass has: ``device.driver == "<driver>"`` (either way round).
# Its answer is a string comparison; cel-python's interpreter over a freshly built device variable
# takes ~0.15 ms for it, and a node picture asks it of every device of a cluster once.
_CEL_SPACE = "[ \\t\\n\\r\\f]*"  # the grammar's whitespace
_DRIVER_EQUALS = (
    re.compile(rf'{_CEL_SPACE}device\.driver{_CEL_SPACE}=={_CEL_SPACE}"([^"\\\n\r]*)"{_CEL_SPACE}'),
    re.compile(rf'{_CEL_SPACE}"([^"\\\n\r]*)"{_CEL_SPACE}=={_CEL_SPACE}device\.driver{_CEL_SPACE}'),
)


def _driver_equals(expression: str) -> Optional[str]:
    """The driver name when the whole expression is ``device.driver == "<name>"`` (a plain
    double-quoted literal, no escapes), else None."""
    for pattern in _DRIVER_EQUALS:
        match = pattern.fullmatch(expression)
        if match is not None:
            return match.group(1)
    return None


@dataclass(frozen=True, slots=True)
class CompiledSelector:
    expression: str
    program: Any = None
    error: Optional[str] = None  # "compilation failed: ..." when it does not compile
    max_cost: int = 0  # the API server's worst-case estimate (celcost), compared with its limit at create
    driver_equals: Optional[str] = None  # the expression is ``device.driver == "<this>"``

    def matches(self, driver: str, device: Device) -> bool:
        """CompilationResult.DeviceMatches; raises CelRuntimeError with the release's wording."""
        if self.driver_equals is not None:
            return driver == self.driver_equals
        from scheduler_core.dra import celprogram  # loaded by compile_selector already

        return celprogram.evaluate(self.program, driver, device)


@lru_cache(maxsize=256)
def compile_selector(expression: str, shared_devices: bool = True) -> CompiledSelector:
    """GetOrCompile (the release keeps an LRU cache of compiled expressions too). The scheduler's
    environment declares DRAConsumableCapacity's field (``shared_devices``); the loader, which
    checks an expression before the release is known, asks without it first."""
    from scheduler_core.dra import celprogram  # the interpreter, for the first expression only

    program, error, max_cost = celprogram.compile_program(expression, shared_devices)
    if error is not None:
        return CompiledSelector(expression, None, error)
    return CompiledSelector(expression, program, max_cost=max_cost, driver_equals=_driver_equals(expression))
