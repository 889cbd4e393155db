"""Several JSON values in one file, as `kubectl get nodes -o json; kubectl get pods -A -o json` writes them.

A single JSON value is already a YAML document, but two back to back are not a YAML stream: YAML
needs a `---` between documents. We mark each further top-level value's start with `--- ` on its
own line (or after a newline when two values share a line), so the YAML composer reads one
document per value and every line number stays the one the user sees in the file."""

from __future__ import annotations

import re
from typing import Optional

# A JSON string (escapes included) or one bracket; everything else between them is skipped.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_LEADING = "\ufeff \t\r\n"


def value_starts(text: str) -> Optional[list[int]]:
    """Offsets where each top-level JSON object or array starts, or None when the text is not a
    stream of them (then the YAML composer reads it as it is and reports what is wrong)."""
    stripped = text.lstrip(_LEADING)
    if not stripped or stripped[0] not in "{[":
        return None
    starts: list[int] = []
    depth, end = 0, len(text) - len(stripped)
    for match in _TOKENS.finditer(text, end):
        token = match.group()
        if token[0] == '"':
            if depth == 0:
                return None  # a bare string between values: not a JSON stream
            continue
        if token in "{[":
            if depth == 0:
                if text[end : match.start()].strip(_LEADING):
                    return None  # something other than whitespace between two values
                starts.append(match.start())
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                end = match.end()
    if depth != 0 or text[end:].strip(_LEADING):
        return None
    return starts


def as_yaml_stream(text: str) -> str:
    """The text with a YAML document marker before every top-level JSON value after the first."""
    starts = value_starts(text)
    if not starts or len(starts) == 1:
        return text
    pieces, previous = [], 0
    for start in starts[1:]:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip(" \t\r"):
            cut, marker = line_start, "--- "  # the value starts its line: the marker goes in front
        else:
            cut, marker = start, "\n--- "  # two values on one line (one line more from here on)
        pieces.append(text[previous:cut])
        pieces.append(marker)
        previous = cut
    pieces.append(text[previous:])
    return "".join(pieces)


# `kubectl cluster-info dump` (standard output) writes each namespace's pods' container logs between
# its JSON lists, each framed by these lines (kubectl/pkg/cmd/clusterinfo/clusterinfo_dump.go).
_LOG_START = "==== START logs for container "
_LOG_FRAME = re.compile(r"^==== (START|END) logs for container (\S+) of pod (\S+) ====[ \t\r]*$", re.MULTILINE)


def blank_container_logs(text: str) -> tuple[str, list[str]]:
    """The text with every container log block (its frame lines included) replaced by empty lines,
    so the JSON lists around them read as a stream and every line number stays the file's; and the
    blocks skipped ("namespace/pod container"). A start without its end runs to the end of the text."""
    if _LOG_START not in text:
        return text, []
    pieces: list[str] = []
    skipped: list[str] = []
    kept_from = 0
    open_at: Optional[int] = None
    for frame in _LOG_FRAME.finditer(text):
        if frame.group(1) == "START" and open_at is None:
            pieces.append(text[kept_from : frame.start()])
            open_at = frame.start()
            skipped.append(f"{frame.group(3)} {frame.group(2)}")
        elif frame.group(1) == "END" and open_at is not None:
            pieces.append("\n" * text.count("\n", open_at, frame.end()))
            kept_from, open_at = frame.end(), None
    if open_at is not None:
        pieces.append("\n" * text.count("\n", open_at))
    else:
        pieces.append(text[kept_from:])
    return "".join(pieces), skipped
