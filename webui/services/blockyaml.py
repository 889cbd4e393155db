"""Decoded JSON written as block YAML, byte for byte as ``yaml.dump(value, Dumper=engine.YAML_DUMPER,
sort_keys=False, default_flow_style=False)`` writes it — about three times faster (issue 50: the
envelope's JSON List is 10.9 M lines of YAML once tidied, and PyYAML's representer and libyaml's
emitter spent ~30 s of the read on them).

The layout is libyaml's block style at its defaults (indent 2, width 80): a mapping's keys one per
line, a nested mapping two spaces in, a sequence in a mapping at the mapping's own indent ("- "), a
mapping or sequence in a sequence starting on the item's "- " line, empty ones as ``{}`` and ``[]``.
What is not the layout's is a scalar's text, which the dumper decides: the representer (the engine's
``KubernetesDumper`` quotes a string go-yaml would read as something else) and the serializer's
resolver (YAML 1.1's, which quotes a string PyYAML would read back as a timestamp or a number), then
libyaml's analysis (plain, single-quoted or double-quoted) — and at width 80 a plain or quoted scalar
is folded at a space past the 80th column onto the next line, two spaces in from its key or dash.

So each distinct scalar's unfolded text is learnt once: a string of printable ASCII the resolvers
leave a string and libyaml writes plain (``_SURELY_PLAIN``: no indicator, no ``: `` or `` #``, no
leading, trailing or double space) is its own text; one the resolvers read as something else is
single-quoted; any other scalar is asked of the dumper itself (a one-key mapping dumped without a
width). The fold is libyaml's own loop (``yaml_emitter_write_plain_scalar``,
``..._write_single_quoted``) ported for those two styles; a document holding anything else that could
fold (a double-quoted scalar past the width), a key the dumper would not write as a simple key, or a
value that is not JSON's, is dumped whole by the dumper (``Unwritten``), so the text is always the
dumper's. tests/webui/services/test_blockyaml.py holds it to ``yaml.dump`` on random and real values.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import ScalarNode

BEST_WIDTH = 80  # libyaml's default width: a scalar folds at a space once its column passes it
SIMPLE_KEY_MAX = 128  # libyaml writes a longer key as a complex one ("? key")
STR_TAG = "tag:yaml.org,2002:str"
# How a scalar's learnt text is written past the width: folded as plain, folded as single-quoted, not
# by this writer (double-quoted), never (over several lines even unfolded).
PLAIN, SINGLE, OTHER, NEVER = "", "'", '"', "\n"
# A string libyaml writes plain in block context when the resolvers leave it a string: printable
# ASCII starting with no indicator, "." or "-", with no ": " or ":" at the end, no " #", no leading,
# trailing or double space. Anything else is asked of the dumper.
_SURELY_PLAIN = re.compile(r"[A-Za-z0-9_/](?:[A-Za-z0-9_./=+@~()$^;,\[\]{}?!&*|>'\"%`#<-]|:(?! |\Z)| (?![ #]|\Z))*\Z")
_PRINTABLE_ASCII = re.compile(r"[ -~]*\Z")
# The first characters of a string PyYAML's resolver may read as something else (its implicit
# resolvers are keyed by them; "" is null's) or go-yaml may (``resolve_plain``): others are strings.
_MAY_RESOLVE = frozenset("yYnNtTfFoO~<=.+-0123456789!&*")
REMEMBERED = 200_000  # the learnt texts are forgotten past this many (a dump has millions of names)


class Unwritten(Exception):
    """A value this writer cannot write as the dumper would: the caller dumps the document whole."""


class BlockWriter:
    """Documents (mappings of decoded JSON) written as the dumper writes them; ``dumper_class`` is
    ``engine.YAML_DUMPER``'s kind: a PyYAML dumper whose representer and resolver decide the scalars."""

    def __init__(self, dumper_class: Any, resolve_plain: Any) -> None:
        self.dumper_class = dumper_class
        self.resolve_plain = resolve_plain
        self.resolver = dumper_class(None)  # its resolve(): the serializer's implicit check
        self.values: dict[Any, tuple[str, str]] = {}
        self.keys: dict[Any, str] = {}

    def document(self, value: dict[str, Any]) -> str:
        """One document's text (without a ``---`` line before it): ``Unwritten`` when not this writer's."""
        if type(value) is not dict or not value:
            raise Unwritten
        out: list[str] = []
        self.mapping(value, "", "", out)
        return "".join(out)

    def dumped(self, value: Any) -> str:
        """The dumper's own text of a document (for one this writer does not write)."""
        text: str = yaml.dump(value, Dumper=self.dumper_class, sort_keys=False, default_flow_style=False)
        return text

    # --- collections ------------------------------------------------------------------------------

    def mapping(self, value: dict[str, Any], first: str, indent: str, out: list[str]) -> None:
        """``first``: the first line's start (an indent, or a sequence item's "- "); ``indent`` the others'."""
        prefix = first
        inner = indent + "  "
        for key, item in value.items():
            head = prefix + self.key(key) + ":"
            prefix = indent
            kind = type(item)
            if kind is dict:
                if item:
                    out.append(head + "\n")
                    self.mapping(item, inner, inner, out)
                else:
                    out.append(head + " {}\n")
            elif kind is list:
                if item:
                    out.append(head + "\n")
                    self.sequence(item, indent, indent, out)  # in a mapping, a sequence is not indented
                else:
                    out.append(head + " []\n")
            else:
                out.append(head + " " + self.scalar(item, len(head) + 1, inner) + "\n")

    def sequence(self, value: list[Any], first: str, indent: str, out: list[str]) -> None:
        prefix = first
        inner = indent + "  "
        for item in value:
            head = prefix + "-"
            prefix = indent
            kind = type(item)
            if kind is dict:
                if item:
                    self.mapping(item, head + " ", inner, out)
                else:
                    out.append(head + " {}\n")
            elif kind is list:
                if item:
                    self.sequence(item, head + " ", inner, out)
                else:
                    out.append(head + " []\n")
            else:
                out.append(head + " " + self.scalar(item, len(head) + 1, inner) + "\n")

    # --- scalars ----------------------------------------------------------------------------------

    def scalar(self, value: Any, column: int, inner: str) -> str:
        """A scalar's text starting at ``column``, folded as libyaml folds it (continuing at ``inner``)."""
        key = (type(value), repr(value) if type(value) is float else value)
        learnt = self.values.get(key)
        if learnt is None:
            if len(self.values) >= REMEMBERED:
                self.values.clear()
            learnt = self.values[key] = self.learn(value)
        text, style = learnt
        if style == NEVER:
            raise Unwritten
        if column + len(text) <= BEST_WIDTH or " " not in text:
            return text  # no space past the width: nothing to fold
        if style == PLAIN:
            return _folded_plain(value, column, len(inner))
        if style == SINGLE:
            return _folded_single(value, column, len(inner))
        raise Unwritten

    def learn(self, value: Any) -> tuple[str, str]:
        if type(value) is str:
            quick = self.quick(value)
            if quick is not None:
                return quick
        return self.asked(value)

    def quick(self, text: str) -> tuple[str, str] | None:
        """A string's text when it is decided without the dumper: itself when it surely writes plain,
        single-quoted when the representer quotes it (a resolver reads it as something else); None
        when only the dumper can tell."""
        if not (text and _PRINTABLE_ASCII.match(text)):
            return None
        if not self.read_as_itself(text):
            return _single_quoted(text), SINGLE
        return (text, PLAIN) if _SURELY_PLAIN.match(text) else None

    def read_as_itself(self, text: str) -> bool:
        """Whether go-yaml and PyYAML's resolver both read the text, plain, as this very string."""
        if text[0] not in _MAY_RESOLVE:
            return True
        read = self.resolve_plain(text)
        if not (isinstance(read, str) and read == text):
            return False
        return bool(self.resolver.resolve(ScalarNode, text, (True, False)) == STR_TAG)

    def asked(self, value: Any) -> tuple[str, str]:
        """The dumper's text of a value, unfolded, and how it folds."""
        dumped = yaml.dump({"k": value}, Dumper=self.dumper_class, default_flow_style=False, width=-1)
        text = dumped[3:-1]
        if not dumped.startswith("k: ") or "\n" in text:
            return text, NEVER  # written over several lines: the document is dumped whole
        if type(value) is str and text == value:
            return text, PLAIN
        if type(value) is str and text == _single_quoted(value):
            return text, SINGLE
        return text, OTHER

    def key(self, key: Any) -> str:
        text = self.keys.get(key)
        if text is None:
            if len(self.keys) >= REMEMBERED:
                self.keys.clear()
            text = self.keys[key] = self.learn_key(key)
        return text

    def learn_key(self, key: Any) -> str:
        if type(key) is not str:
            raise Unwritten
        quick = self.quick(key) if len(key) <= SIMPLE_KEY_MAX else None
        if quick is not None:
            return quick[0]
        dumped = yaml.dump({key: 0}, Dumper=self.dumper_class, default_flow_style=False, width=-1)
        if dumped.startswith("?") or not dumped.endswith(": 0\n") or dumped.count("\n") != 1:
            raise Unwritten
        return dumped[: -len(": 0\n")]


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _folded_plain(text: str, column: int, indent: int) -> str:
    """libyaml's plain scalar from ``column``: a single space (not the last) met past the width
    becomes a line break and ``indent`` spaces."""
    pieces: list[str] = []
    start = 0
    spaces = False
    for at, char in enumerate(text):
        if char == " ":
            if not spaces and column > BEST_WIDTH and text[at + 1 : at + 2] != " ":
                pieces.append(text[start:at])
                pieces.append("\n" + " " * indent)
                column = indent
                start = at + 1
            else:
                column += 1
            spaces = True
        else:
            column += 1
            spaces = False
    pieces.append(text[start:])
    return "".join(pieces)


def _folded_single(text: str, column: int, indent: int) -> str:
    """libyaml's single-quoted scalar from ``column`` (its opening quote there): as plain, but a
    space first or last is never folded, and a quote is written twice."""
    pieces: list[str] = ["'"]
    column += 1
    spaces = False
    last = len(text) - 1
    for at, char in enumerate(text):
        if char == " ":
            if not spaces and column > BEST_WIDTH and at != 0 and at != last and text[at + 1] != " ":
                pieces.append("\n" + " " * indent)
                column = indent
            else:
                pieces.append(" ")
                column += 1
            spaces = True
        else:
            if char == "'":
                pieces.append("'")
                column += 1
            pieces.append(char)
            column += 1
            spaces = False
    pieces.append("'")
    return "".join(pieces)
