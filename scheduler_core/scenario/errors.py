"""Scenario problems: every one names the object, the field path, the YAML line and what was expected."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from scheduler_core.util.wire import Wire

INVALID = "invalid"
LIMIT_EXCEEDED = "limit_exceeded"
# Every size-limit message ends with the limit's name, e.g. "more than 10000 nodes (Limits.max_nodes)".
_LIMIT_SUFFIX = re.compile(r"\(Limits\.(\w+)\)$")


@dataclass(frozen=True, slots=True)
class ScenarioError:
    object: str  # "Pod default/web-1", "Node n1" or "document 3" when the object has no name
    path: str  # "spec.containers[0].resources.requests.cpu"; "" for the object (or file) itself
    line: Optional[int]  # 1-based YAML line, None when unknown
    message: str
    file: Optional[str] = None  # the file (inside a directory or archive) when several are read as one scenario

    @property
    def limit(self) -> Optional[str]:
        """The name of the size limit this problem exceeds (a ``Limits`` field), if it is one."""
        match = _LIMIT_SUFFIX.search(self.message)
        return match.group(1) if match else None

    @property
    def code(self) -> str:
        return LIMIT_EXCEEDED if self.limit else INVALID

    def wire(self) -> ScenarioErrorJSON:
        """Its wire form: what it is, with the code and limit its message says."""
        return ScenarioErrorJSON(
            file=self.file,
            object=self.object,
            path=self.path,
            line=self.line,
            message=self.message,
            code=self.code,
            limit=self.limit,
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def __str__(self) -> str:
        line = f"line {self.line}: " if self.line is not None else ""
        where = f"{self.file}: {line}" if self.file is not None else line
        path = f"{self.path}: " if self.path else ""
        return f"{where}{self.object}: {path}{self.message}"


class ScenarioErrorJSON(Wire, frozen=True, kw_only=True):  # type: ignore[misc]
    """A scenario problem as `check --json` and the API write it (``ScenarioError``'s wire form):
    ``file`` first, and only when several files were read as one scenario; ``code`` is "invalid" or
    "limit_exceeded", with the exceeded ``Limits`` field in ``limit`` (else null). Keyword-only: the
    optional ``file`` comes before the fields every problem has."""

    file: Optional[str] = None
    object: str
    path: str
    line: Optional[int]
    message: str
    code: str
    limit: Optional[str]


def _sorted(errors: list[ScenarioError]) -> list[ScenarioError]:
    """File by file in the order the files were read, then by line; errors without a line
    (whole-file problems) come first within their file."""
    files: dict[Optional[str], int] = {}
    for error in errors:
        files.setdefault(error.file, len(files))
    return sorted(errors, key=lambda e: (files[e.file], 0, 0) if e.line is None else (files[e.file], 1, e.line))


class ScenarioInvalid(ValueError):
    """The scenario cannot be loaded; ``errors`` holds every problem found, sorted by line."""

    def __init__(self, errors: list[ScenarioError]) -> None:
        self.errors = _sorted(errors)
        first = "; ".join(str(e) for e in self.errors[:3])
        more = f" (and {len(self.errors) - 3} more)" if len(self.errors) > 3 else ""
        super().__init__(f"{len(self.errors)} problem(s) in scenario: {first}{more}")
