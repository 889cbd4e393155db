"""A line composer for pretty-printed JSON: the same documents as ``yamltree.Composer``, or none at all.

``kubectl get -A -o json`` writes a cluster as one JSON List, pretty-printed: one key or value per
line, ``{``/``[`` at a line's end, ``}``/``]`` (``},``/``],``) on lines of their own. JSON is YAML, so
the event composer reads it (as a flow collection), but slowly: on a 275 MB dump ~24 s in its loop over
libyaml's events, and the loader's scans of the whole text for top-level values (``jsonstream``) and
bracket nesting (``yamltree._too_deep``) take 12 s more. This module reads that layout line by line,
each distinct line once (a dump's 6.9 M lines hold 186 k distinct ones), and builds the very same
``YMap``/``YList`` trees with the same lines, counting the nesting ``_too_deep`` counts as it goes.

It answers exactly what the event composer answers after ``as_yaml_stream`` (one document per
top-level value) or declines (``None``): on anything outside the layout, and on anything the event
composer (or the scans before it) would report as a problem, so every message, limit and edge case
stays theirs. The layout: ``json.dumps(indent=N)``, Go's ``json.MarshalIndent`` and kubectl's output —
lines holding ``{``, ``[``, ``}``, ``]`` (a comma after the closing ones), ``"key": `` followed by ``{``,
``[``, ``{}``, ``[]`` or a scalar, or a scalar, ``{}`` or ``[]`` alone (an item of a list), each with a
comma when an item follows; any indentation, blank lines, CRLF line ends. Scalars: double-quoted
strings with JSON's escapes (decoded as libyaml decodes them), JSON numbers, ``true``, ``false`` and
``null`` (plain scalars, resolved by the event composer's own ``resolve_plain``, since YAML reads some
of them unlike JSON: ``1e5``). Top-level values: objects and arrays, each starting on a line of its own;
several are one document each, as ``as_yaml_stream`` marks them (``--- {`` lines, as it writes them, are
read as it reads them). Everything else declines: JSON on one line (``json.dumps`` without ``indent``),
flow collections with items on one line, trailing commas, escapes JSON has not (``\\x``, ``\\U``...),
``\\u`` escapes of surrogates (libyaml refuses them), tabs, a BOM, control characters and others libyaml
refuses or reads as line breaks, keys too long for libyaml's simple keys, the ``<<`` key, duplicate
keys, a scalar at the top level, and the depth and document limits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, Optional

from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamlfast import READABLE, PlainScalars
from scheduler_core.scenario.yamlvalues import Document, YList, YMap


class _Decline(Exception):
    """Outside the layout, or a problem for the event composer to report: the caller composes with events."""


# What a line holds: the kind of its value (after its key, if any). Its parse is the tuple (kind,
# key or None, the scalar's value, a comma after it, extra); a line with brackets inside its strings
# or "--- " before it (rare) has ``_RARE`` added to its kind and (those brackets, whether "--- ") as extra.
_KEY_SCALAR, _OPEN_MAP, _OPEN_LIST, _EMPTY_MAP, _EMPTY_LIST, _SCALAR, _CLOSE_MAP, _CLOSE_LIST, _BLANK = range(9)
_RARE = 16
_BLANK_LINE = (_BLANK, None, None, False, None)
# The state of the innermost open collection: an item read (no comma after it), an item and a comma
# read (``comma`` is the state after an item), just opened.
_DONE, _MORE, _START = False, True, 2

_STRUCTURAL = {
    "{": _OPEN_MAP,
    "[": _OPEN_LIST,
    "{}": _EMPTY_MAP,
    "[]": _EMPTY_LIST,
    "{},": _EMPTY_MAP,
    "[],": _EMPTY_LIST,
    "}": _CLOSE_MAP,
    "]": _CLOSE_LIST,
    "},": _CLOSE_MAP,
    "],": _CLOSE_LIST,
}
# libyaml refuses characters outside this set and reads NEL, LS and PS as line breaks; tabs, a BOM
# and CR (after CRLF became LF) are outside the layout. (yamlfast's set, without the line break.)
_OUTSIDE = re.compile(f"[^{READABLE}]")  # within a line: yamlfast's characters without its line break
_STRING = re.compile(r'"((?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"')
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PLAIN = re.compile(r"(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null) *(,?)")
_BRACKETS = re.compile(r"[\[\]{}]")
_MAX_KEY = 250  # libyaml drops a simple key 1024 bytes after its start; 250 characters are at most 1000
_CHUNK = 1 << 22  # characters split into lines at a time: a line list of the whole text would be huge


def compose_json(
    text: str, limits: Limits, plain: PlainScalars, earlier: int = 0, first_line: int = 1, single: bool = False
) -> Optional[list[Document]]:
    """The documents of ``text`` as ``yamltree.Composer`` composes ``as_yaml_stream(text)`` (the
    scans before it finding no problem), or None when the text is outside the layout or composing it
    would report a problem. ``earlier`` and ``first_line``: the documents before ``text`` in its
    stream and the number of its first line there (a run of a longer text: yamltree.compose_runs).
    ``single``: decline a second top-level value (compose_runs composes several a run at a time)."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None  # a lone CR is a line break too
        text = text.replace("\r\n", "\n")
    try:
        return _JsonComposer(limits, plain, earlier, first_line, single).compose(_lines(text))
    except _Decline:
        return None


def _lines(text: str) -> Iterable[str]:
    """``text.split("\\n")``, a few MB at a time."""
    return chain.from_iterable(_chunks(text))


def _chunks(text: str) -> Iterator[list[str]]:
    start = 0
    while True:
        end = text.find("\n", start + _CHUNK)
        if end < 0:
            yield text[start:].split("\n")
            return
        yield text[start:end].split("\n")
        start = end + 1


class _JsonComposer:
    def __init__(self, limits: Limits, plain: PlainScalars, earlier: int, first_line: int, single: bool) -> None:
        self.limits = limits
        self.plain = plain
        self.earlier = earlier
        self.first_line = first_line
        self.single = single

    def compose(self, lines: Iterable[str]) -> list[Document]:
        # The hot loop (7 M lines for a 275 MB dump): one piece of code, the state in locals. The
        # open collections are ``stack``, the innermost ``top`` (None: between top-level values).
        # ``shift``: how much deeper yamltree.deep_flow_line's count of brackets is than ``depth``,
        # for the brackets inside strings it counts too (0 but for them).
        parsed_lines: dict[str, Any] = {}
        parse = self.parse_line
        max_depth = self.limits.max_depth
        max_documents = self.limits.max_documents
        earlier = self.earlier
        documents: list[Document] = []
        stack: list[Any] = []
        top: Any = None
        key_lines: dict[str, int] = {}  # top's when it is a mapping
        is_map = False
        state: Any = _DONE
        depth = shift = 0
        root: Any = None
        doc_line = 0
        marked_any = unmarked_later = False
        for number, line in enumerate(lines, self.first_line):
            parsed = parsed_lines.get(line)
            if parsed is None:
                parsed = parsed_lines[line] = parse(line)
            kind, key, value, comma, extra = parsed
            if kind == _KEY_SCALAR and is_map and state:  # "key": scalar, in a mapping that takes it: most lines
                if key in key_lines:
                    raise _Decline()  # a duplicate key: a problem
                key_lines[key] = number
                top[key] = value
                state = comma
                continue
            if kind == _BLANK:
                continue
            marked = False
            if kind >= _RARE:
                kind -= _RARE
                brackets, marked = extra
                if brackets:
                    shift = self.count_brackets(brackets, depth, shift)
            if top is None:  # a top-level value starts: a document
                if key is not None or comma or kind > _EMPTY_LIST:
                    raise _Decline()
                if root is not None:
                    if self.single:
                        raise _Decline()
                    if not marked:
                        unmarked_later = True
                if marked:
                    marked_any = True
                if earlier + len(documents) >= max_documents or depth + shift >= max_depth:
                    raise _Decline()
                root = YMap(number) if kind in (_OPEN_MAP, _EMPTY_MAP) else YList(number)
                if kind >= _EMPTY_MAP:
                    documents.append(Document(earlier + len(documents) + 1, number, root))
                    continue
                doc_line = number
                top, is_map, state, depth = root, kind == _OPEN_MAP, _START, 1
                if is_map:
                    key_lines = root.lines
                stack = [root]
                continue
            if marked:
                raise _Decline()  # "---" inside a value
            if kind >= _CLOSE_MAP:
                if state is _MORE or (kind == _CLOSE_MAP) != is_map:
                    raise _Decline()  # a trailing comma, or a bracket closing what it did not open
                stack.pop()
                depth -= 1
                if not depth:
                    if comma:
                        raise _Decline()
                    documents.append(Document(earlier + len(documents) + 1, doc_line, root))
                    top, is_map = None, False
                    continue
                top = stack[-1]
                is_map = type(top) is YMap
                if is_map:
                    key_lines = top.lines
                state = comma
                continue
            if not state:
                raise _Decline()  # no comma after the item before
            if is_map:
                if key is None:
                    raise _Decline()
                if key in key_lines:
                    raise _Decline()
                key_lines[key] = number
                if kind == _KEY_SCALAR:  # (with brackets in its strings)
                    top[key] = value
                    state = comma
                    continue
            else:
                if key is not None:
                    raise _Decline()
                top.lines.append(number)
                if kind == _SCALAR:
                    top.append(value)
                    state = comma
                    continue
            if depth + shift >= max_depth:
                raise _Decline()  # the event composer (and deep_flow_line) report it
            node = YMap(number) if kind in (_OPEN_MAP, _EMPTY_MAP) else YList(number)
            if is_map:
                top[key] = node
            else:
                top.append(node)
            if kind >= _EMPTY_MAP:
                state = comma
                continue
            stack.append(node)
            depth += 1
            top, is_map, state = node, kind == _OPEN_MAP, _START
            if is_map:
                key_lines = top.lines
        if top is not None or not documents or (marked_any and unmarked_later):
            # A value open at the end; no value at all; "---" before some values but not all after
            # the first (as_yaml_stream marks none, and the event composer finds two in one document).
            raise _Decline()
        return documents

    def count_brackets(self, brackets: str, depth: int, shift: int) -> int:
        """``shift`` after the brackets inside a line's strings, counted as deep_flow_line counts them."""
        count = depth + shift
        for bracket in brackets:
            if bracket == "[" or bracket == "{":
                count += 1
                if count > self.limits.max_depth:
                    raise _Decline()  # _too_deep reports it
            elif count:
                count -= 1
        if count < depth:
            raise _Decline()  # fewer than the collections open: closing ones would not count alike
        return count - depth

    # -------------------------------------------------------------- one line
    def parse_line(self, line: str) -> Any:
        """(kind, key or None, the scalar's value, a comma after it, extra): see ``_RARE``."""
        if _OUTSIDE.search(line):
            raise _Decline()
        content = line.strip(" ")
        if not content:
            return _BLANK_LINE
        if line[:4] == "--- ":
            content = content[3:].lstrip(" ")
            kind = _STRUCTURAL.get(content)
            if kind is None or kind >= _CLOSE_MAP or content[-1] == ",":
                raise _Decline()  # (only the top level's "{", "[", "{}" and "[]" come after it)
            return kind + _RARE, None, None, False, ("", True)
        kind = _STRUCTURAL.get(content)
        if kind is not None:
            return kind, None, None, content[-1] == ",", None
        key: Optional[str] = None
        brackets = ""
        if content[0] == '"':
            text, raw, end = _string(content, 0)
            if content[end : end + 1] == ":":
                if end > _MAX_KEY or text == "<<":
                    raise _Decline()  # a simple key libyaml would drop, or a merge key
                key = text
                brackets = _brackets(raw)
                content = content[end + 1 :].lstrip(" ")
                kind = _STRUCTURAL.get(content)
                if kind is not None:
                    if kind >= _CLOSE_MAP:
                        raise _Decline()
                    return _line(kind, key, None, content[-1] == ",", brackets)
                if not content:
                    raise _Decline()
        if content[0] == '"':
            value, raw, end = _string(content, 0)
            tail = content[end:].lstrip(" ")
            if tail not in ("", ","):
                raise _Decline()
            kind = _SCALAR if key is None else _KEY_SCALAR
            return _line(kind, key, value, tail == ",", brackets + _brackets(raw))
        scalar = _PLAIN.fullmatch(content)
        if scalar is None:
            raise _Decline()
        kind = _SCALAR if key is None else _KEY_SCALAR
        return _line(kind, key, self.plain.resolve_plain(scalar[1]), scalar[2] == ",", brackets)


def _line(kind: int, key: Optional[str], value: Any, comma: bool, brackets: str) -> tuple[Any, ...]:
    if brackets:
        return kind + _RARE, key, value, comma, (brackets, False)
    return kind, key, value, comma, None


def _string(text: str, start: int) -> tuple[str, str, int]:
    """The JSON string at ``text[start]``: its value, its text between the quotes, the index after it."""
    found = _STRING.match(text, start)
    if found is None:
        raise _Decline()  # not closed on this line, or an escape JSON has not
    raw = found[1]
    return (_ESCAPE.sub(_unescape, raw) if "\\" in raw else raw), raw, found.end()


def _unescape(escape: re.Match[str]) -> str:
    if escape[1] is not None:
        code = int(escape[1], 16)
        if 0xD800 <= code <= 0xDFFF:
            raise _Decline()  # libyaml: "found invalid Unicode character escape code"
        return chr(code)
    return _SIMPLE_ESCAPES[escape[2]]


def _brackets(raw: str) -> str:
    """The brackets in a string's text, which deep_flow_line counts as nesting."""
    return "".join(_BRACKETS.findall(raw)) if _BRACKETS.search(raw) else ""
