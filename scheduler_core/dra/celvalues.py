"""The values of the DRA CEL library that SchedLab's engine shares without running CEL: quantities
and semantic versions (k8s.io/apiserver/pkg/cel/library quantity.go, semver.go), the evaluation
error, and the API server's cost limit for a selector. No CEL interpreter is imported here
(scheduler_core.dra.celprogram holds it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

SELECTOR_MAX_COST = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost

_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


class CelRuntimeError(Exception):
    """An evaluation error, with cel-go's wording where SchedLab knows it."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """apiservercel.Quantity: an exact resource.Quantity."""

    value: Fraction


@dataclass(frozen=True, slots=True)
class Semver:
    """apiservercel.Semver (blang/semver): major, minor, patch and the pre-release parts."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()

    def key(self) -> tuple[int, int, int, bool, tuple[tuple[int, int, str], ...]]:
        # A version without a pre-release ranks above one with; numeric identifiers rank below
        # alphanumeric ones and compare as numbers (semver 2.0.0, section 11).
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, not self.pre, pre)


def parse_semver(text: str) -> Optional[Semver]:
    match = _SEMVER_RE.match(text)
    if match is None:
        return None
    pre = tuple(match.group(4).split(".")) if match.group(4) else ()
    return Semver(int(match.group(1)), int(match.group(2)), int(match.group(3)), pre)
