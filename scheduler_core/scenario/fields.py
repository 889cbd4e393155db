"""Typed, located access to a YAML value: every read knows its field path and line.

Decoders never raise for bad input: a read of the wrong type records a ``ScenarioError`` on the
``Context`` and returns the default, so one pass collects every problem in the file.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Union

from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.yamltree import YList, YMap

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


class Context:
    """The object being decoded (its display name can change once metadata is read) and the error sink."""

    __slots__ = ("object", "errors", "file", "kept")

    def __init__(
        self,
        object_name: str,
        errors: list[ScenarioError],
        file: Optional[str] = None,
        kept: Optional[list[ScenarioError]] = None,
    ) -> None:
        self.object = object_name
        self.errors = errors
        self.file = file  # the file being read when a scenario comes from several (None: the one text)
        # Problems the API server lets an object that already exists keep (a dump's objects), while
        # it refuses them on a new one: said as a notice where this list is given, errors otherwise.
        self.kept = kept

    def error(self, path: str, line: Optional[int], message: str) -> None:
        self.errors.append(ScenarioError(self.object, path, line, message, self.file))

    def keep(self, path: str, line: Optional[int], message: str) -> None:
        if self.kept is None:
            self.error(path, line, message)
        else:
            self.kept.append(ScenarioError(self.object, path, line, message, self.file))


def describe(value: Any) -> str:
    """How a value reads in messages: 'an integer (5)'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        return f"an integer ({_short(str(value))})"
    if isinstance(value, float):
        return f"a number ({_short(repr(value))})"
    if isinstance(value, str):
        return f'a string ("{_short(value)}")'
    if isinstance(value, YList):
        return "a list"
    if isinstance(value, YMap):
        return "a mapping"
    return type(value).__name__


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class Field:
    """A located value: ``value`` at ``path`` (dotted, with [i]) on ``line``.

    A child's path is written out only when asked for (an error, a notice): a load walks hundreds
    of thousands of fields and names few of them."""

    __slots__ = ("value", "_path", "line", "ctx", "_parent", "_key")

    def __init__(
        self,
        value: Any,
        path: Optional[str],
        line: Optional[int],
        ctx: Context,
        parent: Optional[Field] = None,
        key: Union[str, int] = "",
    ) -> None:
        self.value = value
        self._path = path  # None: the parent's path and ``key``, written out on first use
        self.line = line
        self.ctx = ctx
        self._parent = parent
        self._key = key

    @property
    def path(self) -> str:
        path = self._path
        if path is None:
            parent = self._parent
            assert parent is not None  # a field without a path is a child
            base, key = parent.path, self._key
            path = self._path = f"{base}[{key}]" if isinstance(key, int) else (f"{base}.{key}" if base else key)
            self._parent = None
        return path

    # ------------------------------------------------------------ navigation
    def get(self, key: str) -> Optional[Field]:
        """The child at ``key``; None when absent or null (Kubernetes treats both alike)."""
        value = self.value
        if not isinstance(value, YMap):
            return None
        child = value.get(key)
        if child is None:
            return None
        return Field(child, None, value.lines.get(key, value.line), self.ctx, self, key)

    def get_map(self, key: str) -> Optional[Field]:
        child = self.get(key)
        if child is None or child.expect_map():
            return child
        return None

    def get_list(self, key: str) -> list[Field]:
        child = self.get(key)
        return child.items() if child is not None else []

    def items(self) -> list[Field]:
        value = self.value
        if not isinstance(value, YList):
            self.error(f"expected a list, got {describe(value)}")
            return []
        ctx = self.ctx
        return [Field(item, None, value.lines[i], ctx, self, i) for i, item in enumerate(value)]

    def entries(self) -> Iterator[tuple[str, Field]]:
        """(key, child) of a mapping, nulls included (a null map value is still an error for labels)."""
        value = self.value
        for key, item in value.items():
            yield key, Field(item, None, value.lines.get(key, value.line), self.ctx, self, key)

    # ------------------------------------------------------------ type checks
    def error(self, message: str) -> None:
        self.ctx.error(self.path, self.line, message)

    def keep(self, message: str) -> None:
        """A problem an existing object may keep (``Context.keep``)."""
        self.ctx.keep(self.path, self.line, message)

    def error_at(self, key: str, message: str) -> None:
        """An error about child ``key`` (which may be absent: then the parent's line is used)."""
        lines = getattr(self.value, "lines", None)
        line = lines.get(key, self.line) if isinstance(lines, dict) else self.line
        self.ctx.error(f"{self.path}.{key}" if self.path else key, line, message)

    def expect_map(self) -> bool:
        if isinstance(self.value, YMap):
            return True
        self.error(f"expected a mapping, got {describe(self.value)}")
        return False

    def as_str(self, default: str = "") -> str:
        value = self.value
        if isinstance(value, str):
            return value
        # As it was probably typed: a plain true/false/number (go-yaml also reads y, n, on, off as booleans).
        shown = ("true" if value else "false") if isinstance(value, bool) else value
        hint = f' (quote it: "{shown}")' if isinstance(value, (int, float, bool)) else ""
        self.error(f"expected a string, got {describe(value)}{hint}")
        return default

    def as_int(self, default: int = 0, low: Optional[int] = None, high: Optional[int] = None) -> int:
        value = self.value
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON has one number type: 2.0 is the integer 2
        if not isinstance(value, int) or isinstance(value, bool):
            self.error(f"expected an integer, got {describe(value)}")
            return default
        if (low is not None and value < low) or (high is not None and value > high):
            self.error(_range_message(value, low, high))
            return default
        return value

    def as_bool(self, default: bool = False) -> bool:
        if isinstance(self.value, bool):
            return self.value
        self.error(f"expected a boolean (true or false), got {describe(self.value)}")
        return default

    # ------------------------------------------------------------ shorthands
    def get_str(self, key: str, default: str = "") -> str:
        child = self.get(key)
        return child.as_str(default) if child is not None else default

    def get_int(self, key: str, default: int = 0, low: Optional[int] = None, high: Optional[int] = None) -> int:
        child = self.get(key)
        return child.as_int(default, low, high) if child is not None else default

    def get_optional_int(self, key: str, low: Optional[int] = None, high: Optional[int] = None) -> Optional[int]:
        child = self.get(key)
        if child is None:
            return None
        sentinel = low - 1 if low is not None else -(2**80)
        value = child.as_int(sentinel, low, high)
        return None if value == sentinel else value

    def get_bool(self, key: str, default: bool = False) -> bool:
        child = self.get(key)
        return child.as_bool(default) if child is not None else default

    def get_str_list(self, key: str) -> list[tuple[str, Field]]:
        return [(item.as_str(), item) for item in self.get_list(key)]


def _range_message(value: int, low: Optional[int], high: Optional[int]) -> str:
    if low is not None and high is not None:
        return f"must be between {low} and {high}, inclusive (got {_short(str(value))})"
    if low is not None:
        return f"must be greater than or equal to {low} (got {_short(str(value))})"
    return f"must be less than or equal to {high} (got {_short(str(value))})"
