"""What YAML text composes to: mappings and sequences that remember their lines, and the documents
and problems of a stream.

Its own module so that both composers build the same types: the event composer (``yamltree``) and
the line composer for plain block YAML (``yamlfast``), which ``yamltree.compose`` tries first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


class YMap(dict[str, Any]):  # Any: a YAML value (scalar, YMap or YList)
    """A YAML mapping: ``line`` of its start, ``lines[key]`` the line of each key."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int) -> None:  # empty: dict.__init__ has nothing to do
        self.line = line
        self.lines: dict[str, int] = {}


class YList(list[Any]):  # Any: a YAML value (scalar, YMap or YList)
    """A YAML sequence: ``line`` of its start, ``lines[i]`` the line of each item."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int) -> None:  # empty: list.__init__ has nothing to do
        self.line = line
        self.lines: list[int] = []


@dataclass(frozen=True, slots=True)
class Document:
    index: int  # 1-based position in the stream
    line: int
    value: Any


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    document: int
    line: Optional[int]
    message: str


def key_text(key: Any) -> str:
    # sigs.k8s.io/yaml turns YAML into JSON, whose keys are strings: 80 -> "80", true -> "true".
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)
