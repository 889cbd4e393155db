"""CycleState: per-cycle plugin state, written at PreFilter/PreScore and read at Filter/Score.

Keys are typed (`StateKey[T]`) so each plugin reads back exactly what it wrote; values clone
themselves so the preemption dry run can change a copy (framework.CycleState).
"""

from __future__ import annotations

import copy
from typing import Any, Generic, Optional, TypeVar

T = TypeVar("T")


class StateKey(Generic[T]):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name})"


class StateNotFound(LookupError):
    pass


class CycleState:
    __slots__ = ("_values", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._values: dict[StateKey[Any], Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: StateKey[T], value: T) -> None:
        self._values[key] = value

    def read(self, key: StateKey[T]) -> T:
        try:
            value: T = self._values[key]
        except KeyError:
            raise StateNotFound(f"error reading {key.name!r} from cycleState: not found") from None
        return value

    def read_optional(self, key: StateKey[T]) -> Optional[T]:
        return self._values.get(key)

    def memo_content(self) -> Optional[tuple[Any, ...]]:
        """What the values hold, comparable with another cycle's and not changed by later writes
        (preemption's kept verdicts): each value's ``memo_content()``, in the order written; None
        when a value has none or says it cannot tell (None)."""
        content: list[tuple[str, Any]] = []
        for key, value in self._values.items():
            of = getattr(value, "memo_content", None)
            held = of() if of is not None else None
            if held is None:
                return None
            content.append((key.name, held))
        return tuple(content)

    def clone(self) -> "CycleState":
        """Deep enough for the preemption dry run: each value's own ``clone()`` when it has one."""
        other = CycleState()
        for key, value in self._values.items():
            cloner = getattr(value, "clone", None)
            other._values[key] = cloner() if cloner else copy.deepcopy(value)
        other.skip_filter_plugins = set(self.skip_filter_plugins)
        other.skip_score_plugins = set(self.skip_score_plugins)
        return other
