"""JSON Lists (`kubectl get -A -o json`) tidied into a YAML stream one item at a time (issue 50).

``imports._reformat_list`` decodes every top-level JSON value whole, then writes the items with
PyYAML: on a 262 MB List of a 5,000-node cluster that held ~1.4 GB of Python objects and took ~45 s,
most of it in PyYAML's representer (a Python call per value and per key) and in the resolver the
emitter asks twice per scalar. Here the text is walked value by value instead:

- a List's ``items`` are decoded one at a time (json's C decoder, each from where the last ended)
  and written at once, so only one item's objects are alive at a time;
- an item is written as the very node tree the representer of ``engine.YAML_DUMPER`` builds for it
  (block mappings and sequences; each distinct scalar's tag and style decided once, by that
  representer), serialized by the same emitter in one stream (the documents' separators, `...`
  after an open-ended scalar, are the emitter's), with its resolver's answers remembered per
  distinct scalar.

So the text is exactly what ``_reformat_list`` writes, or None when the walk meets what it does not
take — a top-level value that is not an object, a key twice in an object whose ``items`` it
streamed, an object with streamed ``items`` that turns out not to be a List, no List at all, text
that is not JSON: the caller reads the text its own way then, and says what it says.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

from yaml.nodes import MappingNode, ScalarNode, SequenceNode

MAP_TAG = "tag:yaml.org,2002:map"
SEQ_TAG = "tag:yaml.org,2002:seq"
JSON_SPACE = re.compile(r"[ \t\r\n]*")
PROGRESS_EVERY = 1000  # items written between two progress reports
# The remembered scalars are forgotten past this many (a 150,000-pod dump has millions of distinct
# names, addresses and timestamps; the labels, keys and quantities that repeat come back at once).
REMEMBERED = 200_000

# Told (items written, percent of the text walked) now and then.
Progress = Callable[[int, int], None]
Tidy = Callable[[Any], Any]  # an item (or a top-level object) before it is written: the server's fields dropped


class NotTaken(Exception):
    """The walk met what it does not take: the caller's whole-text path decides."""


def tidied_lists(
    text: str, decoder: json.JSONDecoder, dumper_class: Any, tidy: Tidy, progress: Progress | None = None
) -> str | None:
    """Every List's items (and every other top-level object) of a text of JSON objects, each tidied by
    ``tidy``, as one YAML stream written by ``dumper_class`` as ``yaml.dump_all(documents,
    Dumper=dumper_class, sort_keys=False, default_flow_style=False)`` writes it; None when not taken."""
    walk = _Walk(text, decoder, _Writer(dumper_class), tidy, progress)
    try:
        return walk.run()
    except (NotTaken, ValueError, RecursionError, IndexError):  # IndexError: the text ended mid-value
        return None


class _Walk:
    def __init__(self, text: str, decoder: json.JSONDecoder, writer: _Writer, tidy: Tidy, progress: Progress | None):
        self.text = text
        self.decode = decoder.raw_decode
        self.writer = writer
        self.tidy = tidy
        self.progress = progress
        self.lists = 0

    def run(self) -> str:
        text = self.text
        at = self.space(0)
        while at < len(text):
            if text[at] != "{":
                raise NotTaken  # an array or a scalar at the top: the whole-text path says what it is
            at = self.space(self.top_object(at))
        if not self.lists:
            raise NotTaken  # nothing to tidy: the whole-text path keeps the text as typed
        if self.progress is not None:
            self.progress(self.writer.written, 100)
        return self.writer.finish()

    def space(self, at: int) -> int:
        found = JSON_SPACE.match(self.text, at)
        return found.end() if found is not None else at

    def expect(self, at: int, token: str) -> int:
        if self.text[at] != token:
            raise NotTaken
        return self.space(at + 1)

    def top_object(self, at: int) -> int:
        """One top-level object: a List's items written as they are decoded, any other object whole."""
        text = self.text
        fields: dict[str, Any] = {}
        streamed = False
        at = self.space(at + 1)
        if text[at] == "}":
            self.writer.write(self.tidy({}))
            return at + 1
        while True:
            if text[at] != '"':
                raise NotTaken
            key, at = self.decode(text, at)
            at = self.expect(self.space(at), ":")
            if key == "items" and text[at] == "[":
                if key in fields:
                    raise NotTaken  # a key twice: the decoder keeps the last, written at the first's place
                at = self.items(at)
                fields[key], streamed = _STREAMED, True
            else:
                if streamed and key in fields:
                    raise NotTaken
                fields[key], at = self.decode(text, at)
            at = self.space(at)
            if text[at] == ",":
                at = self.space(at + 1)
                continue
            at = self.expect(at, "}")
            break
        if _is_list(fields):
            self.lists += 1
        elif streamed:
            raise NotTaken  # its items were written as a List's: it is an object of its own
        else:
            self.writer.write(self.tidy(fields))
        return at

    def items(self, at: int) -> int:
        """A List's items from its "[", each written as soon as it is decoded."""
        text = self.text
        at = self.space(at + 1)
        if text[at] == "]":
            return at + 1
        while True:
            item, at = self.decode(text, at)
            self.writer.write(self.tidy(item))
            del item
            if self.progress is not None and self.writer.written % PROGRESS_EVERY == 0:
                self.progress(self.writer.written, at * 100 // len(text))
            at = self.space(at)
            if text[at] == ",":
                at = self.space(at + 1)
                continue
            if text[at] != "]":
                raise NotTaken
            return at + 1


class _Streamed:
    """The place of a List's ``items`` among its keys: already written."""


_STREAMED = _Streamed()


def _is_list(fields: dict[str, Any]) -> bool:
    """imports._is_list: kind List, and items a list (streamed), null or missing."""
    items = fields.get("items", _STREAMED)
    return fields.get("kind") == "List" and (items is _STREAMED or isinstance(items, list) or items is None)


class _Writer:
    """Documents written into one YAML stream by ``dumper_class``'s emitter, each as its
    representer's node tree (see the module's doc)."""

    def __init__(self, dumper_class: Any) -> None:
        self.stream = io.StringIO()
        # As yaml.dump_all(..., sort_keys=False, default_flow_style=False) makes it.
        self.dumper = dumper_class(self.stream, default_flow_style=False, sort_keys=False)
        self.scalars: dict[tuple[type, Any], tuple[str, str, Any]] = {}
        resolved: dict[tuple[str, tuple[bool, bool]], str] = {}
        resolve = self.dumper.resolve

        def remembered(kind: Any, value: Any, implicit: Any) -> Any:
            # A scalar's tag depends only on its text and the implicit flags: two calls per scalar
            # from the emitter, most of them for a text seen before.
            if kind is not ScalarNode:
                return resolve(kind, value, implicit)
            key = (value, implicit)
            found = resolved.get(key)
            if found is None:
                if len(resolved) >= REMEMBERED:
                    resolved.clear()
                found = resolved[key] = resolve(kind, value, implicit)
            return found

        self.dumper.resolve = remembered
        self.dumper.open()
        self.written = 0

    def write(self, document: Any) -> None:
        self.dumper.serialize(self.node(document))
        self.written += 1

    def finish(self) -> str:
        self.dumper.close()
        return self.stream.getvalue()

    def node(self, value: Any) -> Any:
        """The node the representer builds for a decoded JSON value (no aliases: the decoder never
        shares a dict or a list, and scalars are never aliased)."""
        kind = type(value)
        if kind is dict:
            node = self.node
            return MappingNode(MAP_TAG, [(node(key), node(item)) for key, item in value.items()], flow_style=False)
        if kind is list:
            node = self.node
            return SequenceNode(SEQ_TAG, [node(item) for item in value], flow_style=False)
        # -0.0 and 0.0 are equal keys, as are 1.0 and 1: a float is known by its repr.
        key = (kind, repr(value) if kind is float else value)
        found = self.scalars.get(key)
        if found is None:
            if len(self.scalars) >= REMEMBERED:
                self.scalars.clear()
            made = self.dumper.represent_data(value)
            if type(made) is not ScalarNode:
                raise NotTaken  # a value the decoder does not make
            found = self.scalars[key] = (made.tag, made.value, made.style)
        return ScalarNode(found[0], found[1], style=found[2])
