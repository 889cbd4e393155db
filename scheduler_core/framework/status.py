"""Status: what a plugin says at an extension point (framework.Status).

Expected rejections are statuses, never exceptions. ``None`` stands for success, as a nil
``*Status`` does in Go: it keeps the hot Filter/Score paths allocation-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Optional, TypeGuard, TypedDict


class StatusJson(TypedDict):
    """A failed status as events carry it: ``{"code": "Unschedulable", "reasons": [...]}``."""

    code: str
    reasons: list[str]


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        """The name the framework prints (``UnschedulableAndUnresolvable``)."""
        return _CODE_LABELS[self]


_CODE_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    # PreBind only: how long the plugin blocked before it returned this (DynamicResources waiting
    # for binding conditions); the run's clock carries the wait, the binding cycle ends after it
    after_ms: int = 0

    @staticmethod
    def unschedulable(*reasons: str) -> "Status":
        return Status(Code.UNSCHEDULABLE, reasons)

    @staticmethod
    def unresolvable(*reasons: str) -> "Status":
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)

    @staticmethod
    def error(message: str, after_ms: int = 0) -> "Status":
        return Status(Code.ERROR, (message,), after_ms=after_ms)

    @staticmethod
    def skip() -> "Status":
        return SKIP

    @property
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    @property
    def is_rejected(self) -> bool:
        """Unschedulable or UnschedulableAndUnresolvable (framework.Status.IsRejected)."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        return Status(self.code, self.reasons, plugin, self.after_ms)

    def to_json(self) -> StatusJson:
        return {"code": self.code.label, "reasons": list(self.reasons)}


SKIP = Status(Code.SKIP)

# A plugin returns ``None`` for success; helpers accept both spellings.
MaybeStatus = Optional[Status]


def is_success(status: MaybeStatus) -> bool:
    return status is None or status.code == Code.SUCCESS


def is_failure(status: MaybeStatus) -> TypeGuard[Status]:
    """``not is_success(status)``, said so the type checker knows a failure is a Status."""
    return status is not None and status.code != Code.SUCCESS


def status_json(status: MaybeStatus) -> Optional[StatusJson]:
    return status.to_json() if is_failure(status) else None
