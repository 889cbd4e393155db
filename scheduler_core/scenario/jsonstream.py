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
                if text[end:match.start()].strip(_LEADING):
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
