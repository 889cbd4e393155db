"""Compare a produced trace summary with an expected one, as the spec's checker does.

Floats compare with a relative tolerance of 1e-9. Every key is compared, the three added ones
included: the public corpus writes them wherever they apply, so their absence is an expectation too.
Returns human-readable differences (empty when they match).
"""

from __future__ import annotations

import math
from typing import Any


def diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    if isinstance(expected, float) or isinstance(actual, float):
        if (
            isinstance(expected, (int, float))
            and isinstance(actual, (int, float))
            and math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-12)
        ):
            return []
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in expected.keys() | actual.keys():
            if key not in actual:
                out.append(f"{path}.{key}: missing (expected {str(expected[key])[:200]})")
            elif key not in expected:
                out.append(f"{path}.{key}: unexpected {str(actual[key])[:200]}")
            else:
                out.extend(diff(expected[key], actual[key], f"{path}.{key}"))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [
                f"{path}: expected {len(expected)} items {str(expected)[:300]}, got {len(actual)} {str(actual)[:300]}"
            ]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in diff(e, a, f"{path}[{i}]")]
    if expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def diff_traces(expected: dict, actual: dict) -> list[str]:
    exp_cycles, act_cycles = expected["cycles"], actual["cycles"]
    if len(exp_cycles) != len(act_cycles):
        return [f"expected {len(exp_cycles)} cycles, got {len(act_cycles)}"]
    out: list[str] = []
    for i, (exp, act) in enumerate(zip(exp_cycles, act_cycles)):
        out.extend(diff(exp, act, f"cycles[{i}]({exp['pod']})"))
    return out
