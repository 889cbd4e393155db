"""A line composer for plain block YAML: the same documents as ``yamltree.Composer``, or none at all.

Loading a big scenario is mostly YAML: on the 10.8 MB ``PreemptionAsync_5000Nodes.yaml`` (636k lines,
1.65 M events) the event composer takes ~1.8 s of CPU with the garbage collector paused (as the
loader runs it), more than half of it in libyaml's event objects alone, so no composer over those
events can be much faster. What ``kubectl get -o yaml``, ``yaml.safe_dump`` and hand-written
manifests write is a small, regular part of YAML, though: one node per line, its place given by its
indentation. This module reads that part line by line, each distinct line once (keys, labels,
quantities and whole lines repeat a lot), and builds the very same ``YMap``/``YList`` trees with the
same lines, in ~0.65 s on that file.

It answers exactly what the event composer answers or declines (``None``): on anything outside the
subset, and on anything the event composer would report as a problem, so every message, limit and
edge case stays the event composer's. The subset: ``---`` alone on its line between documents,
comments on lines of their own or after a value, blank lines, block mappings with plain or quoted
keys, block sequences (indentless ones under a key too) with compact mappings in their items, empty
values, ``{}`` and ``[]``, plain scalars (read by the event composer's own YAML 1.1 resolution),
single-quoted scalars and double-quoted ones without escapes, over several lines too (folded as
libyaml folds them), literal block scalars (``|``, ``|-``, ``|+``, ``|2``) below a key or ``-``, CRLF
line ends. Everything else declines: flow collections, folded block scalars, anchors, aliases,
tags, ``?`` keys, merge keys, duplicate keys, a scalar alone on the line below its key, ``...``,
directives, content after ``---``, tabs, a BOM, a key too long for libyaml's simple keys, characters
libyaml refuses or reads as line breaks, and the depth and document limits.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Protocol

from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamlvalues import Document, SyntaxProblem, YList, YMap, key_text


class PlainScalars(Protocol):
    """The event composer's reading of plain scalars, so that both composers read them alike."""

    problems: list[SyntaxProblem]

    def resolve_plain(self, text: str) -> Any: ...  # Any: a YAML scalar


class _Decline(Exception):
    """Outside the subset, or a problem for the event composer to report: the caller composes with events.
    An exception because it can arise anywhere in a line's parse and always ends the whole attempt."""


# What one line holds, besides its keys, entries and value.
_SKIP = "skip"  # blank or a comment
_DOC = "doc"  # "---": a document starts
# The kinds of value a line ends with: none ("key:" or "-": the node, if any, is on the lines below),
# a scalar, "{}", "[]", a quoted scalar that goes on below, a literal block scalar ("|").
_NO_VALUE, _SCALAR, _EMPTY_MAP, _EMPTY_LIST, _OPEN_QUOTE, _LITERAL = range(6)

# Frame kinds: the root slot of a document, a block mapping, a block sequence, an indentless one.
_ROOT, _MAP, _SEQ, _ISEQ = range(4)

# libyaml refuses characters outside this set and reads NEL, LS and PS as line breaks; tabs, a BOM
# and CR (after CRLF became LF) are outside the subset.
# The characters libyaml reads as characters of the subset (a regular expression's class, line breaks apart).
READABLE = " -~\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_OUTSIDE = re.compile(f"[^\n{READABLE}]")
_ASCII_INSIDE = b"\n" + bytes(range(0x20, 0x7F))
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")  # may not start a plain scalar (but "-x", "?x", ":x")
_MAX_KEY = 250  # libyaml drops a simple key 1024 bytes before its ":"; 250 characters are at most 1000
_LITERAL_HEADER = re.compile(r"\|([+-]?)([1-9]?)([+-]?)(?: +(?:#.*)?)?")


def compose_block(
    text: str, limits: Limits, plain: PlainScalars, earlier: int = 0, first_line: int = 1
) -> Optional[list[Document]]:
    """The documents of ``text`` as ``yamltree.Composer`` composes them, or None when the text is
    outside the subset or composing it would report a problem. ``earlier`` and ``first_line``: the
    documents before ``text`` in its stream and the number of its first line there (a run of a
    longer text: yamltree.compose_runs), which its documents and lines are numbered after."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None  # a lone CR is a line break too
        text = text.replace("\r\n", "\n")
    try:
        documents = _LineComposer(limits, plain, earlier, first_line).compose(text.split("\n"))
    except _Decline:
        return None
    return documents if _readable(text) else None  # checked last: texts that decline mostly do early


def _readable(text: str) -> bool:
    """Whether libyaml reads every character of ``text`` as a character (not a line break) of the subset."""
    if text.isascii():  # the usual case, checked at memory speed
        return not text.encode("ascii").translate(None, _ASCII_INSIDE)
    return _OUTSIDE.search(text) is None


class _LineComposer:
    def __init__(self, limits: Limits, plain: PlainScalars, earlier: int = 0, first_line: int = 1) -> None:
        self.limits = limits
        self.plain = plain
        self.earlier = earlier  # documents before this text in its stream
        self.first_line = first_line  # the number of its first line in the stream
        self.documents: list[Document] = []
        self.parsed: dict[str, Any] = {}  # each distinct line's parse
        self.consumed = 0  # the last line read as part of a scalar over several lines

    def compose(self, lines: list[str]) -> list[Document]:
        # The hot loop (636k lines for a 10 MB file), one piece of code with the state in locals: a
        # function call or a tuple per line would cost as much as the rest. The open collections are
        # a stack of (column, kind, node) in three lists, with its top in locals. A "key:" or "-"
        # whose node starts on a later line leaves a pending slot (``pend_node[pend_slot]``, its "key:"
        # or "-" at ``pend_col``): the next key or entry opens a collection there when it is deeper,
        # else the slot is null. A line that fails may continue a plain scalar: see the ``except``.
        parsed_lines = self.parsed
        parse = self.parse_line
        max_depth = self.limits.max_depth
        documents = self.documents
        earlier = self.earlier
        cols: list[int] = []
        kinds: list[int] = []
        nodes: list[Any] = []
        top_col, top_kind = -1, _ROOT
        top_node: Any = None
        pend_node: Any = None  # None: no pending slot
        pend_slot: Any = None
        pend_col = -1
        doc_line = 0  # 0: no document open
        # Lines are numbered from first_line (a run's first line in its whole text: yamltree.compose_runs);
        # the scalars over several lines index ``lines`` with ``number - before``.
        before = self.first_line - 1
        numbered = enumerate(lines, self.first_line)
        for number, line in numbered:
            try:
                parsed = parsed_lines.get(line)
                if parsed is None:
                    parsed = parsed_lines[line] = parse(line)
                if parsed is _SKIP:
                    continue
                if parsed is _DOC or not doc_line:
                    if pend_node is not None:
                        pend_node[pend_slot] = None
                    if doc_line:
                        documents.append(Document(earlier + len(documents) + 1, doc_line, nodes[0][0]))
                    if earlier + len(documents) >= self.limits.max_documents:
                        raise _Decline()
                    doc_line = number
                    cols, kinds, nodes = [-1], [_ROOT], [[None]]  # the root frame: a slot for the value
                    top_col, top_kind, top_node = -1, _ROOT, nodes[0]
                    pend_node, pend_slot, pend_col = top_node, 0, -1
                    if parsed is _DOC:
                        continue
                tokens, key, value, value_kind, key_col, _ = parsed
                if key_col >= 0:  # a key first on its line: most lines
                    if pend_node is not None:
                        if key_col > pend_col:  # below a "key:" or "-": the first key of a mapping
                            if len(cols) > max_depth:  # (the root frame is no collection)
                                raise _Decline()
                            top_node = pend_node[pend_slot] = YMap(number)
                            if pend_slot == -1:
                                pend_node.lines[-1] = number  # an item's line is its node's, below its "-"
                            top_col, top_kind = key_col, _MAP
                            cols.append(key_col)
                            kinds.append(_MAP)
                            nodes.append(top_node)
                        else:
                            pend_node[pend_slot] = None  # nothing below the "key:" or "-": null
                        pend_node = None
                    if top_col != key_col or top_kind != _MAP:
                        _close(cols, kinds, nodes, key_col, _MAP)
                        top_col, top_kind, top_node = cols[-1], kinds[-1], nodes[-1]
                    key_lines = top_node.lines
                    if key in key_lines:
                        raise _Decline()  # a duplicate key: a problem
                    key_lines[key] = number
                    if value_kind == _SCALAR:
                        top_node[key] = value
                        continue
                    pend_node, pend_slot, pend_col = top_node, key, key_col
                else:
                    for column, kind in tokens:  # "- " entries, then perhaps a key
                        if pend_node is not None and (
                            column > pend_col or (column == pend_col and kind == _SEQ and top_kind == _MAP)
                        ):
                            if len(cols) > max_depth:
                                raise _Decline()
                            top_node = pend_node[pend_slot] = YMap(number) if kind == _MAP else YList(number)
                            if pend_slot == -1:
                                pend_node.lines[-1] = number
                            top_col, top_kind = column, (_ISEQ if column == pend_col else kind)  # "- " under "key:"
                            cols.append(top_col)
                            kinds.append(top_kind)
                            nodes.append(top_node)
                        else:
                            if pend_node is not None:
                                pend_node[pend_slot] = None
                            if top_col != column or (top_kind == _MAP) != (kind == _MAP):
                                _close(cols, kinds, nodes, column, kind)
                                top_col, top_kind, top_node = cols[-1], kinds[-1], nodes[-1]
                        if kind == _MAP:
                            key_lines = top_node.lines
                            if key in key_lines:
                                raise _Decline()
                            key_lines[key] = number
                            pend_node, pend_slot, pend_col = top_node, key, column
                        else:
                            top_node.append(None)
                            top_node.lines.append(number)
                            pend_node, pend_slot, pend_col = top_node, -1, column
                    if not tokens and (pend_node is None or pend_col != -1):
                        raise _Decline()  # a scalar alone on its line below a key or item, or a continuation
                if value_kind:
                    if value_kind in (_EMPTY_MAP, _EMPTY_LIST):
                        if len(cols) > max_depth:
                            raise _Decline()
                        value = YMap(number) if value_kind == _EMPTY_MAP else YList(number)
                    elif value_kind != _SCALAR:
                        value, last = self.multiline(lines, number - before, value_kind, value, top_col)
                        for _ in range(last + before - number):
                            next(numbered)
                    pend_node[pend_slot] = value
                    pend_node = None
            except _Decline:
                # A line deeper than its collection allows continues a plain scalar, when the line
                # before it (blank lines aside) ended with one: rare, so looked into only then.
                last = self.continue_plain(lines, number - before, top_col, top_node)
                for _ in range(last + before - number):
                    next(numbered)
        if pend_node is not None:
            pend_node[pend_slot] = None
        if doc_line:
            documents.append(Document(earlier + len(documents) + 1, doc_line, nodes[0][0]))
        return documents

    # -------------------------------------------------------------- one line
    def parse_line(self, line: str) -> Any:
        """``_SKIP``, ``_DOC``, or (the line's keys and "- " entries as (column, kind), its key or None,
        its value and the value's kind, the key's column when the line starts with it else -1, the text
        of its plain scalar when one ends the line else None)."""
        content = line.lstrip(" ")
        if not content or content[0] == "#":
            return _SKIP
        indent = len(line) - len(content)
        if indent == 0 and content[0] in "-.%":
            if content[:3] == "---" and not content[3:].strip(" "):
                return _DOC
            if content[:3] in ("---", "...") or content[0] == "%":
                raise _Decline()  # content after "---", a document end, a directive
        tokens: list[tuple[int, int]] = []
        column = indent
        while content[0] == "-" and (len(content) == 1 or content[1] == " "):
            tokens.append((column, _SEQ))
            rest = content[1:].lstrip(" ")
            column += len(content) - len(rest)
            content = rest
            if not content or content[0] == "#":
                return tuple(tokens), None, None, _NO_VALUE, -1, None
        key, rest = self.split_key(content)
        if key is None:
            return tuple(tokens), None, *self.scalar(content, -1)
        key_col = -1 if tokens else column  # a key first on its line: the hot loop's common case
        tokens.append((column, _MAP))
        if not rest or rest[0] == "#":
            return tuple(tokens), key, None, _NO_VALUE, key_col, None
        return tuple(tokens), key, *self.scalar(rest, key_col)

    def split_key(self, content: str) -> tuple[Optional[str], str]:
        """(the key, the text after its ": ") when the line holds a key, else (None, the line's content)."""
        if content[0] in "'\"":
            key, end = _quoted(content)
            after = content[end:].lstrip(" ") if end > 0 else ""
            if after[:1] != ":" or after[1:2] not in ("", " "):
                return None, content  # a quoted value (perhaps over several lines)
            end = len(content) - len(after)
        else:
            end = content.find(": ")
            if end < 0:
                if content[-1] != ":":
                    return None, content
                end = len(content) - 1
            comment = content.find(" #")
            if 0 <= comment < end:
                return None, content  # a scalar, then a comment holding ": "
            _check_plain_start(content)
            after = content[end:]
            key = self.key_of(content[:end].rstrip(" "))
        if end > _MAX_KEY or key == "<<":
            raise _Decline()  # a simple key libyaml would drop, or a merge key
        return key, after[1:].lstrip(" ")

    def key_of(self, text: str) -> str:
        value = self.resolve(text)
        return value if type(value) is str else key_text(value)

    def scalar(self, text: str, key_col: int) -> tuple[Any, int, int, Optional[str]]:
        """The value ``text`` holds (a line's end), its kind, ``key_col``, and its text when it is a plain
        scalar that the lines below may continue."""
        first = text[0]
        if first == "'" or first == '"':
            value, end = _quoted(text)
            if end < 0:
                return (first, text[1:]), _OPEN_QUOTE, key_col, None
            _check_tail(text, end)
            return value, _SCALAR, key_col, None
        if first == "{" or first == "[":
            if text[1:2] != ("}" if first == "{" else "]"):
                raise _Decline()  # a flow collection
            _check_tail(text, 2)
            return None, (_EMPTY_MAP if first == "{" else _EMPTY_LIST), key_col, None
        if first == "|":
            header = _LITERAL_HEADER.fullmatch(text)
            if header is None or (header[1] and header[3]):
                raise _Decline()  # not a header libyaml reads alike (or at all)
            return (header[1] or header[3], int(header[2] or 0)), _LITERAL, key_col, None
        _check_plain_start(text)
        comment = text.find(" #")
        plain = text if comment < 0 else text[:comment]
        plain = plain.rstrip(" ")
        if ": " in plain or plain[-1] == ":":
            raise _Decline()  # a key where no mapping may start
        return self.resolve(plain), _SCALAR, key_col, (plain if comment < 0 else None)

    def resolve(self, text: str) -> Any:
        return self.plain.resolve_plain(text)  # go-yaml's reading never fails: no problem to decline on

    # -------------------------------------------------------------- scalars over several lines
    def multiline(self, lines: list[str], number: int, kind: int, header: Any, parent_col: int) -> tuple[str, int]:
        """The value of the quoted or literal scalar that starts at line ``number``, and its last line."""
        if kind == _OPEN_QUOTE:
            quote, first = header
            value, last = _quoted_below(lines, number, quote, first)
        else:
            if parent_col < 0:
                raise _Decline()  # a document that is a literal scalar: its indentation rules differ
            chomping, increment = header
            value, last = _literal_below(lines, number, chomping, increment, parent_col)
        self.consumed = last
        return value, last

    def continue_plain(self, lines: list[str], number: int, parent_col: int, parent: Any) -> int:
        """When line ``number`` continues the plain scalar that ended the line before it (blank lines
        aside), that scalar with its lines folded in, in its slot, and its last line; else _Decline."""
        previous = number - 1
        while previous > self.consumed and not lines[previous - 1].strip(" "):
            previous -= 1
        if previous <= self.consumed:
            raise _Decline()  # no such line, or one that is part of a scalar over several lines
        parsed = self.parsed.get(lines[previous - 1])
        if type(parsed) is not tuple or parsed[5] is None:
            raise _Decline()  # a comment, "---", or a line that ends otherwise
        text, last = _plain_below(lines, previous, number, parsed[5], parent_col)
        tokens = parsed[0]
        # The scalar's slot: its mapping's key, its sequence's last item, or the document's root.
        parent[parsed[1] if tokens and tokens[-1][1] == _MAP else (-1 if tokens else 0)] = self.resolve(text)
        self.consumed = last
        return last


def _close(cols: list[int], kinds: list[int], nodes: list[Any], column: int, kind: int) -> None:
    """Ends the collections deeper than ``column``; the one open there must take a key (``kind``
    _MAP) or a "- " entry (_SEQ)."""
    while cols[-1] > column:
        cols.pop()
        kinds.pop()
        nodes.pop()
    if cols[-1] != column:
        raise _Decline()  # indented unlike any open collection
    if kind == _MAP and kinds[-1] == _ISEQ:
        cols.pop()  # the key ends the indentless sequence under the key before it
        kinds.pop()
        nodes.pop()
    if (kinds[-1] == _MAP) != (kind == _MAP):
        raise _Decline()  # a key in a sequence, an entry in a mapping


# ------------------------------------------------------------------ scalars
def _quoted(text: str) -> tuple[str, int]:
    """The quoted scalar that starts ``text``: (its value, the index after it), or ("", -1) when it
    does not end on this line."""
    end = _closing_quote(text, 1)
    if end < 0:
        return "", -1
    return _unquote(text[0], text[1:end]), end + 1


def _closing_quote(text: str, start: int) -> int:
    """Where the quote that ends a scalar quoted with ``text[0]`` is, from ``start`` on (-1: not in
    ``text``). Declines a double-quoted scalar with escapes."""
    if text[0] == '"':
        end = text.find('"', start)
        if "\\" in (text[start:end] if end >= 0 else text[start:]):
            raise _Decline()  # escapes
        return end
    end = text.find("'", start)
    while end >= 0 and text[end + 1 : end + 2] == "'":  # '' is a quote inside the scalar
        end = text.find("'", end + 2)
    return end


def _unquote(quote: str, text: str) -> str:
    return text.replace("''", "'") if quote == "'" else text


def _quoted_below(lines: list[str], number: int, quote: str, first: str) -> tuple[str, int]:
    """A quoted scalar that goes on below line ``number`` (``first``: its text on that line), folded as
    libyaml folds it: each line trimmed, one line break a space, n + 1 of them n newlines."""
    _closing_quote(quote + first, 1)  # escapes on the first line decline
    value = _unquote(quote, first.rstrip(" "))
    breaks = 0
    for index in range(number, len(lines)):
        line = lines[index]
        if _is_document_marker(line):
            raise _Decline()  # libyaml: "found unexpected document indicator"
        end = _closing_quote(quote + line, 1)
        if end < 0:
            piece = line.strip(" ")
            if not piece:
                breaks += 1
                continue
            value += (" " if not breaks else "\n" * breaks) + _unquote(quote, piece)
            breaks = 0
            continue
        value += (" " if not breaks else "\n" * breaks) + _unquote(quote, line[: end - 1].lstrip(" "))
        _check_tail(line, end)
        return value, index + 1
    raise _Decline()  # the stream ends inside the scalar


def _plain_below(lines: list[str], previous: int, number: int, text: str, parent_col: int) -> tuple[str, int]:
    """The plain scalar ``text`` (which ends line ``previous``) with the lines from ``number`` on that
    continue it folded in, and its last line. libyaml continues a plain scalar on every line deeper than
    the collection around it, up to a comment or a line that is not deeper."""
    breaks = number - previous - 1
    last = 0
    for index in range(number - 1, len(lines)):
        line = lines[index]
        content = line.lstrip(" ")
        if not content:
            breaks += 1
            continue
        if len(line) - len(content) <= parent_col or content[0] == "#" or _is_document_marker(line):
            break
        comment = content.find(" #")
        piece = (content if comment < 0 else content[:comment]).rstrip(" ")
        if ": " in piece or piece[-1] == ":":
            raise _Decline()  # a key after a scalar over several lines: an error
        text += (" " if not breaks else "\n" * breaks) + piece
        breaks = 0
        last = index + 1
        if comment >= 0:
            break
    if not last:
        raise _Decline()  # line ``number`` does not continue the scalar: it fails for what it is
    return text, last


def _literal_below(lines: list[str], number: int, chomping: str, increment: int, parent_col: int) -> tuple[str, int]:
    """The literal block scalar whose header ends line ``number``, as libyaml's
    ``yaml_parser_scan_block_scalar`` reads it, and its last line (empty lines after it included)."""
    indent = parent_col + increment if increment else 0
    index, breaks, max_indent = _empty_lines(lines, number, indent)
    if not indent:
        indent = max(max_indent, parent_col + 1, 1)
    value, leading = "", ""
    while index < len(lines):
        line = lines[index]
        if len(line) - len(line.lstrip(" ")) < indent or (len(line) == indent and index == len(lines) - 1):
            break  # less indented (or the end of the stream): the scalar is over
        value += leading + "\n" * breaks + line[indent:]
        leading = "\n" if index < len(lines) - 1 else ""  # the last line has no break
        index, breaks, _ = _empty_lines(lines, index + 1, indent)
    if chomping != "-":
        value += leading
    if chomping == "+":
        value += "\n" * breaks
    return value, index


def _empty_lines(lines: list[str], index: int, indent: int) -> tuple[int, int, int]:
    """From ``lines[index]`` on, the lines that are empty for a block scalar indented by ``indent`` (0:
    not known yet): (the index of the first other line, the empty lines' breaks, their widest indentation)."""
    breaks = max_indent = 0
    while index < len(lines):
        line = lines[index]
        spaces = len(line) - len(line.lstrip(" "))
        width = spaces if not indent else min(spaces, indent)
        max_indent = max(max_indent, width)
        if width < len(line) or index == len(lines) - 1:
            break  # a line with more than spaces up to the indentation, or the end of the stream
        breaks += 1
        index += 1
    return index, breaks, max_indent


def _is_document_marker(line: str) -> bool:
    return line[:3] in ("---", "...") and line[3:4] in ("", " ")


def _check_tail(text: str, end: int) -> None:
    """After a quoted scalar or an empty collection: nothing but spaces and a comment."""
    tail = text[end:]
    rest = tail.lstrip(" ")
    if rest and (rest[0] != "#" or rest == tail):
        raise _Decline()


def _check_plain_start(text: str) -> None:
    first = text[0]
    if first in _INDICATORS and not (first in "-?:" and text[1:2] not in ("", " ")):
        raise _Decline()
