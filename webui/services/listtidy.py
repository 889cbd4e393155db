"""JSON Lists (`kubectl get -A -o json`) tidied into a YAML stream one item at a time (issue 50).

``imports._reformat_list`` decodes every top-level JSON value whole, then writes the items with
PyYAML: on a 262 MB List of a 5,000-node cluster that held ~1.4 GB of Python objects and took ~45 s,
most of it in PyYAML's representer (a Python call per value and per key) and in the resolver the
emitter asks twice per scalar. Here the text is walked value by value instead:

- a List's ``items`` are decoded one at a time (json's C decoder, each from where the last ended)
  and written at once, so only one item's objects are alive at a time;
- an item (a mapping) is written by ``blockyaml``'s block writer, which writes decoded JSON as the
  dumper does without building its node trees (a scalar's text learnt once, libyaml's folding
  ported; 31 -> 11 s on the envelope's 683 MB List, two processes), or by the dumper itself when
  the writer cannot (``Unwritten``); a List whose items are not all non-empty mappings is walked
  again through one emitter (``_EmitterWriter``: every item as the node tree the representer of
  ``engine.YAML_DUMPER`` builds, serialized in one stream, the documents' separators and the `...`
  after an open-ended scalar the emitter's).

So the text is exactly what ``_reformat_list`` writes, or None when the walk meets what it does not
take — a top-level value that is not an object, a key twice in an object whose ``items`` it
streamed, an object with streamed ``items`` that turns out not to be a List, no List at all, text
that is not JSON: the caller reads the text its own way then, and says what it says.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
from collections.abc import Callable
from typing import Any, Union

from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from webui.services import blockyaml, engine
from webui.services.engine import Forked

MAP_TAG = "tag:yaml.org,2002:map"
SEQ_TAG = "tag:yaml.org,2002:seq"
JSON_SPACE = re.compile(r"[ \t\r\n]*")
PROGRESS_EVERY = 1000  # items written between two progress reports
# The remembered scalars are forgotten past this many (a 150,000-pod dump has millions of distinct
# names, addresses and timestamps; the labels, keys and quantities that repeat come back at once).
REMEMBERED = 200_000
# A List's items from this many characters on are written in two processes (``second_process``): the
# second half of them by a forked child, in the same time as the first half here. Below it a fork
# costs more than it saves (and only a big upload's worker asks for it).
TWO_PROCESSES_FROM = 16 << 20

# Told (items written, percent of the text walked) now and then.
Progress = Callable[[int, int], None]
Tidy = Callable[[Any], Any]  # an item (or a top-level object) before it is written: the server's fields dropped


class NotTaken(Exception):
    """The walk met what it does not take: the caller's whole-text path decides."""


def tidied_lists(
    text: str,
    decoder: json.JSONDecoder,
    dumper_class: Any,
    tidy: Tidy,
    progress: Progress | None = None,
    second_process: bool = False,
) -> str | None:
    """Every List's items (and every other top-level object) of a text of JSON objects, each tidied by
    ``tidy``, as one YAML stream written by ``dumper_class`` as ``yaml.dump_all(documents,
    Dumper=dumper_class, sort_keys=False, default_flow_style=False)`` writes it; None when not taken.
    ``second_process``: a big List's second half of items is written by a forked child meanwhile
    (the same text; a caller that may fork: a big upload's worker)."""
    try:
        try:
            return _Walk(text, decoder, _Writer(dumper_class), tidy, progress, second_process).run()
        except _EmitterNeeded:
            return _Walk(text, decoder, _EmitterWriter(dumper_class), tidy, progress, second_process).run()
    except (NotTaken, ValueError, RecursionError, IndexError):  # IndexError: the text ended mid-value
        return None


Writer = Union["_Writer", "_EmitterWriter"]


class _Walk:
    def __init__(
        self,
        text: str,
        decoder: json.JSONDecoder,
        writer: Writer,
        tidy: Tidy,
        progress: Progress | None,
        split: bool = False,
    ) -> None:
        self.text = text
        self.decode = decoder.raw_decode
        self.writer = writer
        self.tidy = tidy
        self.progress = progress
        self.lists = 0
        self.split = split and hasattr(os, "fork")  # the next big List's items in two processes
        self.last_start = 0  # where the last item written started (the child's half: its last)

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
        """A List's items from its "[", each written as soon as it is decoded (the second half of a
        big List's by a child process, when the walk may fork)."""
        if self.split and len(self.text) - at >= TWO_PROCESSES_FROM:
            self.split = False  # one child per walk: the first big List
            return self.items_in_two(at, at + (len(self.text) - at) // 2)
        return self.items_from(self.space(at + 1), None)

    def items_from(self, at: int, middle: int | None) -> int:
        """The items from ``at`` (the first one's start, or "]") to the List's end; with ``middle``,
        only up to the first item other than the first that starts at or after it: the position of
        that item's start is returned (or of the end, past the "]", when there is none)."""
        text = self.text
        first = True
        if text[at] == "]":
            return at + 1
        while True:
            if middle is not None and at >= middle and not first:
                return at
            self.last_start = at
            item, at = self.decode(text, at)
            self.writer.write(self.tidy(item))
            del item
            first = False
            if self.progress is not None and self.writer.written % PROGRESS_EVERY == 0:
                self.progress(self.writer.written, at * 100 // len(text))
            at = self.space(at)
            if text[at] == ",":
                at = self.space(at + 1)
                continue
            if text[at] != "]":
                raise NotTaken
            return at + 1

    def items_in_two(self, at: int, middle: int) -> int:
        """The items, the first half written here while a forked child writes the second half
        (from the first item other than the first that starts at or after ``middle``), its text then
        put in place. The child's stream starts at the item before its half, as this one's emitter
        has it there (``_SecondHalf``), so the documents' separators are the emitter's own."""
        start = self.space(at + 1)
        child = Forked.start(lambda: _SecondHalf(self).answer(start, middle))
        if child is None:  # no process to spare now: all of it here
            return self.items_from(start, None)
        try:
            boundary = self.items_from(start, middle)
        except BaseException:
            child.cancel()  # its half is of no use now
            raise
        half = _half_from(child.answer())
        if self.text[boundary - 1] == "]":  # the List ended before the middle: no second half
            return boundary
        if half is None:  # the child did not take its half (or failed): written here, whatever it meets
            return self.items_from(boundary, None)
        return self.writer.append_half(half, self)


class _Half:
    """What the child wrote: the text after the document before its half, how many items, where the
    last one starts and where the List's items end."""

    def __init__(self, text: str, written: int, last_start: int, end: int) -> None:
        self.text = text
        self.written = written
        self.last_start = last_start
        self.end = end


class _SecondHalf:
    """The child's side of ``items_in_two``: it finds the same boundary the parent stops at, writes
    from the item before it in a stream of its own, and answers what follows that item's document."""

    def __init__(self, walk: _Walk) -> None:
        self.walk = walk

    def answer(self, at: int, middle: int) -> bytes | None:
        """The half pickled, None when there is none (``Forked``: the parent then writes it)."""
        half = self.half(at, middle)
        return None if half is None else pickle.dumps(half, protocol=pickle.HIGHEST_PROTOCOL)

    def half(self, at: int, middle: int) -> _Half | None:
        walk, text = self.walk, self.walk.text
        previous = -1
        while at < middle or previous < 0:  # to the boundary, as the parent's items_from(middle) stops
            if text[at] == "]":
                return None
            previous = at
            _, at = walk.decode(text, at)
            at = walk.space(at)
            if text[at] == ",":
                at = walk.space(at + 1)
            elif text[at] == "]":
                return None  # the List ends before the middle: no second half
            else:
                raise NotTaken
        writer = walk.writer = walk.writer.fresh()
        walk.progress = None  # the parent reports
        item, _ = walk.decode(text, previous)
        writer.write(walk.tidy(item))
        cut = writer.stream.tell()
        end = walk.items_from(at, None)
        return _Half(writer.stream.getvalue()[cut:], writer.written - 1, walk.last_start, end)


def _half_from(answer: bytes | None) -> _Half | None:
    """The child's half, or None when it sent none (no second half, or it failed)."""
    if answer is None:
        return None
    half = pickle.loads(answer)
    return half if isinstance(half, _Half) else None


class _Streamed:
    """The place of a List's ``items`` among its keys: already written."""


_STREAMED = _Streamed()


def _is_list(fields: dict[str, Any]) -> bool:
    """imports._is_list: kind List, and items a list (streamed), null or missing."""
    items = fields.get("items", _STREAMED)
    return fields.get("kind") == "List" and (items is _STREAMED or isinstance(items, list) or items is None)


class _Writer:
    """Documents written into one YAML stream as ``dumper_class`` writes them: each mapping by the
    block writer (``blockyaml``: the same text, about three times faster), any it does not write whole by
    the dumper. A document that is not a non-empty mapping (a List's item may be anything) starts on
    the ``---`` line or ends open (``...``) by the emitter's state: the walk is then made again by
    ``_EmitterWriter``, which writes every document through one emitter."""

    def __init__(self, dumper_class: Any) -> None:
        self.stream = io.StringIO()
        self.dumper_class = dumper_class
        self.blocks = blockyaml.BlockWriter(dumper_class, engine.resolve_plain_scalar)
        self.written = 0

    def fresh(self) -> _Writer:
        """A writer of its own for a forked child's half."""
        return _Writer(self.dumper_class)

    def write(self, document: Any) -> None:
        if type(document) is not dict or not document:
            raise _EmitterNeeded
        try:
            text = self.blocks.document(document)
        except blockyaml.Unwritten:
            text = self.blocks.dumped(document)
        if self.written:
            self.stream.write("---\n")
        self.stream.write(text)
        self.written += 1

    def append_half(self, half: _Half, walk: _Walk) -> int:
        """The child's documents after this stream's (it wrote the last item before its half first,
        as the emitter's way needs; here every document after the first starts with ``---``)."""
        self.stream.write(half.text)
        self.written += half.written
        return half.end

    def finish(self) -> str:
        return self.stream.getvalue()


class _EmitterNeeded(Exception):
    """A document only the emitter's stream writes as ``dump_all`` does: the walk is made with it."""


class _EmitterWriter:
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
        self.dumper_class = dumper_class
        self.written = 0

    def fresh(self) -> _EmitterWriter:
        """A writer of its own for a forked child's half."""
        return _EmitterWriter(self.dumper_class)

    def write(self, document: Any) -> None:
        self.dumper.serialize(self.node(document))
        self.written += 1

    def append_half(self, half: _Half, walk: _Walk) -> int:
        """The child's documents after this stream's: its last item written here too (so the
        emitter is left as that document leaves it: an open end, a "..." before the next), its text
        then replaced by the child's, which holds every document of the half as this stream would."""
        end = self.stream.tell()
        item, _ = walk.decode(walk.text, half.last_start)
        self.write(walk.tidy(item))
        self.stream.seek(end)
        self.stream.truncate()
        self.stream.write(half.text)
        self.written += half.written - 1
        return half.end

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
