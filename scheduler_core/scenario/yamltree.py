"""YAML text -> plain values (``YMap``/``YList``/scalars) that remember their line numbers.

A small composer over the parser's event stream (libyaml's when available): one pass, no recursion,
so it can enforce the depth limit, refuse duplicate keys, budget aliases and record a 1-based line
for every mapping key and sequence item at almost no cost. PyYAML's own composer/constructor would
recurse (a deep document overflows the stack) and would silently keep the last duplicate key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable, Optional

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import ScalarNode

from scheduler_core.scenario import goyaml
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.scenario.jsonfast import compose_json
from scheduler_core.scenario.jsonstream import as_yaml_stream
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamlfast import compose_block

# The values are re-exported ("as": mypy's strict mode re-exports nothing implicitly): the loader and
# the readers import them from here.
from scheduler_core.scenario.yamlvalues import Document as Document
from scheduler_core.scenario.yamlvalues import SyntaxProblem as SyntaxProblem
from scheduler_core.scenario.yamlvalues import YList as YList
from scheduler_core.scenario.yamlvalues import YMap as YMap
from scheduler_core.scenario.yamlvalues import key_text

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_CONSTRUCTED_TAGS = {_TAG + t for t in ("int", "float", "bool", "null")}
_KNOWN_TAGS = _CONSTRUCTED_TAGS | {_STR, _TAG + "timestamp", _TAG + "binary", _TAG + "map", _TAG + "seq"}
_UNRESOLVED = object()  # a plain scalar's text not resolved yet (its value may be None)


class _Frame:
    """One open mapping or sequence while composing."""

    __slots__ = ("container", "key", "key_line", "size", "anchor", "skipped")

    def __init__(self, container: Any, anchor: Optional[str], skipped: bool = False) -> None:
        self.container = container
        self.key: Optional[str] = None
        self.key_line = 0
        self.size = 1
        self.anchor = anchor
        self.skipped = skipped  # deeper than the limit: consumed but not built


class _AliasBudgetExceeded(Exception):
    pass


class Composer:
    """Turns one YAML stream into ``Document``s, collecting every problem as a ``SyntaxProblem``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.problems: list[SyntaxProblem] = []
        self.documents: list[Document] = []
        self.earlier = 0  # documents of the stream's earlier runs (compose_runs): numbered after them
        self.first_line = 1  # the number of the text's first line (compose_runs: a run's, in the whole text)
        self.stopped = False  # a problem ended the parse: nothing after it is composed
        self._constructor = SafeConstructor()
        self._resolved: dict[str, Any] = {}
        self._depth_reported = False
        self._aliases = 0
        self._alias_nodes = 0

    # -------------------------------------------------------------- driver
    def compose(self, text: str) -> list[Document]:
        loader = _Loader(text)
        try:
            self._run(loader)
        except yaml.MarkedYAMLError as err:
            self._problem(_mark_line(err.problem_mark or err.context_mark, self.first_line), _yaml_message(err))
            self.stopped = True
        except yaml.YAMLError as err:
            self._problem(None, str(err))
            self.stopped = True
        except _AliasBudgetExceeded:
            self.stopped = True
        finally:
            loader.dispose()
        return self.documents

    def next_run(self) -> None:
        """The run composed was read: forget its documents and problems (their count stays)."""
        self.earlier += len(self.documents)
        self.documents, self.problems = [], []

    def _problem(self, line: Optional[int], message: str) -> None:
        self.problems.append(SyntaxProblem(self.earlier + len(self.documents) + 1, line, message))

    def _run(self, loader: Any) -> None:
        # The hot loop of loading (a million events for a 10 MB file): dispatch on the exact event
        # type, most frequent first; the common cases — a plain scalar, a key, a value stored in an
        # open mapping or sequence without anchor, duplicate or merge — are handled inline, every
        # other case by the methods below.
        stack: list[_Frame] = []
        top: Optional[_Frame] = None  # stack[-1]
        anchors: dict[str, tuple[Any, int]] = {}
        resolved = self._resolved
        first = self.first_line  # a mark's line 0 is this one
        doc_line = first
        root: Any = None
        get_event = loader.get_event
        while True:
            event = get_event()  # None once the stream has ended (libyaml's parser and PyYAML's)
            if event is None:
                return
            kind = type(event)
            if kind is ScalarEvent:
                line = event.start_mark.line + first
                if event.tag is not None:
                    value: Any = self._scalar(event, line, stack)
                elif event.implicit[0]:
                    value = resolved.get(event.value, _UNRESOLVED)
                    if value is _UNRESOLVED:
                        value = self.resolve_plain(event.value)
                else:
                    value = event.value  # quoted: always a string
                anchor = event.anchor
                if (
                    anchor is None
                    and top is not None
                    and top.key is None
                    and not top.skipped
                    and type(top.container) is YMap
                ):
                    top.size += 1  # a mapping key
                    top.key = value if type(value) is str else key_text(value)
                    top.key_line = line
                    continue
                size = 1
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                top = self._open(event, event.start_mark.line + first, stack, top)
                continue
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                frame = stack.pop()
                top = stack[-1] if stack else None
                value = None if frame.skipped else frame.container
                size, line, anchor = frame.size, frame.container.line, frame.anchor
            elif kind is AliasEvent:
                line = event.start_mark.line + first
                value, size = self._alias(event, line, anchors)
                anchor = None
            elif kind is DocumentStartEvent:
                if self.earlier + len(self.documents) >= self.limits.max_documents:
                    self._problem(
                        event.start_mark.line + first,
                        f"more than {self.limits.max_documents} documents (Limits.max_documents)",
                    )
                    self.stopped = True
                    return
                doc_line, root, anchors = event.start_mark.line + first, None, {}
                self._depth_reported = False
                continue
            elif kind is DocumentEndEvent:
                self.documents.append(Document(self.earlier + len(self.documents) + 1, doc_line, root))
                continue
            else:
                continue  # the stream's start and end
            # A complete value (scalar, alias, or a mapping or sequence just closed) into its parent.
            if anchor is not None or top is None or top.skipped:
                root = self._add(stack, value, size, line, anchor, anchors, root)
                continue
            top.size += size
            container = top.container
            if type(container) is YList:
                container.append(value)
                container.lines.append(line)
            elif top.key is None:
                self._set_key(top, value, line)
            elif top.key == "<<" or top.key in container.lines:
                self._set_value(top, top.key, value)  # a merge or a duplicate
            else:
                container[top.key] = value
                container.lines[top.key] = top.key_line
                top.key = None

    # -------------------------------------------------------------- containers
    def _open(self, event: Any, line: int, stack: list[_Frame], top: Optional[_Frame]) -> _Frame:
        if event.tag is not None:
            self._check_tag(event.tag, line, stack)
        skipped = top is not None and top.skipped
        if not skipped and len(stack) >= self.limits.max_depth:
            skipped = True
            if not self._depth_reported:
                self._depth_reported = True
                self._problem(line, f"nesting deeper than {self.limits.max_depth} levels (Limits.max_depth)")
        frame = _Frame(YMap(line) if type(event) is MappingStartEvent else YList(line), event.anchor, skipped)
        stack.append(frame)
        return frame

    def _add(
        self,
        stack: list[_Frame],
        value: Any,
        size: int,
        line: int,
        anchor: Optional[str],
        anchors: dict[str, tuple[Any, int]],
        root: Any,
    ) -> Any:
        if anchor is not None:
            anchors[anchor] = (value, size)
        if not stack:
            return value
        frame = stack[-1]
        frame.size += size
        if frame.skipped:
            return root
        container = frame.container
        if isinstance(container, YList):
            container.append(value)
            container.lines.append(line)
        elif frame.key is None:
            self._set_key(frame, value, line)
        else:
            self._set_value(frame, frame.key, value)
        return root

    def _set_key(self, frame: _Frame, key: Any, line: int) -> None:
        if isinstance(key, (YMap, YList)):
            self._problem(line, "a mapping key must be a scalar")
            key = f"<complex key at line {line}>"
        frame.key = key_text(key)
        frame.key_line = line

    def _set_value(self, frame: _Frame, key: str, value: Any) -> None:
        mapping: YMap = frame.container
        line = frame.key_line
        frame.key = None
        if key == "<<" and isinstance(value, (YMap, YList)):
            self._merge(mapping, value, line)
            return
        if key in mapping.lines:
            self._problem(line, f'duplicate key "{key}" (first at line {mapping.lines[key]})')
        mapping[key] = value
        mapping.lines[key] = line

    def _merge(self, mapping: YMap, value: Any, line: int) -> None:
        """``<<: *base`` (YAML merge key): explicit keys win, before or after it. Merged keys get no
        entry in ``lines`` (errors on them use the mapping's line), so a later explicit key is no duplicate."""
        sources = value if isinstance(value, YList) else [value]
        for source in sources:
            if not isinstance(source, YMap):
                self._problem(line, "a merge key (<<) needs a mapping or a list of mappings")
                continue
            for key, item in source.items():
                if key not in mapping:
                    mapping[key] = item

    # -------------------------------------------------------------- aliases
    def _alias(self, event: AliasEvent, line: int, anchors: dict[str, tuple[Any, int]]) -> tuple[Any, int]:
        if event.anchor not in anchors:
            self._problem(
                line, f'found undefined alias "{event.anchor}" (or an alias to a node that is not yet complete)'
            )
            return None, 1
        value, size = anchors[event.anchor]
        self._aliases += 1
        self._alias_nodes += size
        if self._aliases > self.limits.max_aliases or self._alias_nodes > self.limits.max_alias_expansion:
            self._problem(
                line,
                f"too many YAML aliases: more than {self.limits.max_aliases} aliases or "
                f"{self.limits.max_alias_expansion} aliased nodes (Limits.max_aliases)",
            )
            raise _AliasBudgetExceeded()
        return value, size

    # -------------------------------------------------------------- scalars
    def _scalar(self, event: ScalarEvent, line: int, stack: list[_Frame]) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            if not event.implicit[0]:
                return event.value  # quoted (or "!"-tagged): always a string
            return self.resolve_plain(event.value)
        self._check_tag(tag, line, stack)
        if tag in _CONSTRUCTED_TAGS:
            return self._construct(tag, event.value, line)
        return event.value

    def resolve_plain(self, text: str) -> Any:
        """A plain scalar's value as Kubernetes reads it (go-yaml v2, through sigs.k8s.io/yaml:
        ``goyaml``), not as YAML 1.1 does. The line composer (``yamlfast``) reads plain scalars
        through it too, so both read them alike."""
        # Plain scalars repeat a lot (labels, quantities): resolve each distinct text once.
        try:
            return self._resolved[text]
        except KeyError:
            pass
        value = goyaml.resolve_plain(text)
        self._resolved[text] = value
        return value

    def _construct(self, tag: str, text: str, line: Optional[int]) -> Any:
        method: Callable[[ScalarNode], Any] = {
            _TAG + "int": self._constructor.construct_yaml_int,
            _TAG + "float": self._constructor.construct_yaml_float,
            _TAG + "bool": self._constructor.construct_yaml_bool,
            _TAG + "null": self._constructor.construct_yaml_null,
        }[tag]
        try:
            return method(ScalarNode(tag, text))
        except (ValueError, KeyError, ConstructorError):
            self._problem(line, f'cannot read "{text[:40]}" as {tag.removeprefix(_TAG)}')
            return text

    def _check_tag(self, tag: Optional[str], line: int, stack: list[_Frame]) -> None:
        if tag is None or tag == "!" or tag in _KNOWN_TAGS:
            return
        if not (stack and stack[-1].skipped):
            self._problem(line, f"unsupported YAML tag {tag[:60]!r}")


def _mark_line(mark: Any, first_line: int = 1) -> Optional[int]:
    return mark.line + first_line if mark is not None else None


def _yaml_message(err: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (err.context, err.problem) if p]
    return "YAML syntax error: " + (", ".join(parts) if parts else "invalid YAML")


_FLOW_BRACKETS = re.compile(r"[\[\]{}]")
_NOT_BRACKETS = {code: None for code in range(128) if chr(code) not in "[]{}"}  # ASCII but the brackets
_FLOW_BRACKETS_ONLY = re.compile(r"[^\[\]{}]+")  # what translate leaves of the rest (not ASCII)


def _deeper_than(brackets: str, max_depth: int) -> bool:
    """Whether ``[``/``{`` nesting in a text of brackets alone exceeds ``max_depth`` (as counted below)."""
    depth = 0
    for bracket in brackets:
        if bracket in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif depth:
            depth -= 1
    return False


def deep_flow_line(text: str, max_depth: int) -> Optional[int]:
    """The line where ``[``/``{`` nesting first exceeds ``max_depth``, or None.

    libyaml's scanner is quadratic in flow nesting (100k ``[`` take a minute), so this cheap scan
    runs before parsing. It cannot tell brackets inside quoted strings or comments apart, which
    only matters for a string holding more than ``max_depth`` unclosed brackets."""
    # The brackets alone first (str.translate deletes the rest at memory speed: 0.4 s against the
    # scan's 1.1 s on the envelope's 261 MB, whose 172,000 brackets are all inside quoted strings):
    # the scan below runs only to name the line of a nesting too deep.
    if not _deeper_than(_FLOW_BRACKETS_ONLY.sub("", text.translate(_NOT_BRACKETS)), max_depth):
        return None
    depth = 0
    for match in _FLOW_BRACKETS.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                return text.count("\n", 0, match.start()) + 1
        elif depth:
            depth -= 1
    return None


# A text that may be JSON (or a run of JSON values as_yaml_stream marked): the JSON line composer is tried.
_JSON_START = re.compile(r"[ \t\r\n\ufeff]*(?:--- +)?[\[{]")
# A text longer than this is composed a run of whole documents at a time (compose_runs).
RUN_CHARS = 16 * 1024 * 1024
# A line that starts a document: "---" alone or before a space (libyaml ends every open node there).
_DOCUMENT_LINE = re.compile(r"^---(?:[ \t\r]|$)", re.MULTILINE)


def compose_runs(text: str, limits: Limits) -> Iterator[tuple[list[Document], list[SyntaxProblem]]]:
    """``compose(text)``'s documents and problems, a run of whole documents (~RUN_CHARS) at a time:
    the loader reads each run's trees and lets them go before the next is composed, so a 1 GB dump
    never holds all its trees (about seven times its text) at once. A run ends where a line starts a
    document, which ends every node open before it, so a run composes as it does within the whole
    text: the same documents, their numbers and lines (the whole text's), the document limit
    and the alias budget counted over the whole text (one composer for every run), nothing composed
    past a problem that ends the parse. A text of one run is ``compose``'s.

    One JSON value (``kubectl get -A -o json``), pretty-printed, is composed line by line at once
    (jsonfast), without the scans of the whole text: it is one run anyway. Several are composed a
    run at a time, as YAML is, after those scans."""
    json = _JSON_START.match(text) is not None
    if json:
        with collector_paused():
            fast = compose_json(text, limits, Composer(limits), single=len(text) > RUN_CHARS)
        if fast is not None:
            yield fast, []
            return
    text = as_yaml_stream(text)
    if len(text) <= RUN_CHARS:
        with collector_paused():
            composed = _compose(text, limits, json_tried=json)
        yield composed
        return
    problem = _too_deep(text, limits)
    if problem is not None:
        yield [], [problem]
        return
    yield from RunComposer(limits, json).runs(text)


class RunComposer:
    """Composes a stream a run of whole documents at a time (compose_runs), one text after another
    as the parts of one stream: the documents numbered and the lines counted after those of the
    texts before, one event composer for every run (its document count and alias budget are the
    stream's), nothing composed once a problem has ended the parse. ``earlier``, ``lines_before``:
    where the first text starts in its stream (a stream's second half read by another process:
    loader's two-process read)."""

    def __init__(self, limits: Limits, json: bool = False, earlier: int = 0, lines_before: int = 0) -> None:
        self.limits = limits
        self.json = json  # the stream may hold runs of JSON values (as_yaml_stream marked them)
        self.composer = Composer(limits)
        self.composer.earlier = earlier
        self.lines_before = lines_before
        self.events_used = False  # a run was composed by the event composer (its alias budget is in play)

    @property
    def documents(self) -> int:
        """The stream's documents composed so far (the last run's included once it was read)."""
        return self.composer.earlier

    def runs(self, text: str) -> Iterator[tuple[list[Document], list[SyntaxProblem]]]:
        composer, limits = self.composer, self.limits
        for run in _document_runs(text):
            if composer.stopped:
                return
            first_line = self.lines_before + 1
            with collector_paused():
                fast = None
                # A run of JSON values ("--- " before each but the text's first): the JSON line composer.
                if self.json and _JSON_START.match(run):
                    fast = compose_json(run, limits, Composer(limits), composer.earlier, first_line)
                if fast is None:
                    fast = compose_block(run, limits, Composer(limits), composer.earlier, first_line)
                if fast is None:
                    self.events_used = True
                    composer.first_line = first_line  # its lines and messages are the whole text's
                    composer.compose(run)
            if fast is not None:
                composer.earlier += len(fast)
                yield fast, []
            else:
                yield composer.documents, composer.problems
                if composer.stopped:
                    return
                composer.next_run()
            fast = None  # the run read: its trees go before the next run is composed
            self.lines_before += run.count("\n")


# A text this long or longer may be read in two processes (the loader's ``second_process``).
SPLIT_CHARS = 4 * 1024 * 1024
# The share of the text the parent reads: a little over half, as the child then pickles its half's
# objects (~3 s of its ~19 s for the envelope's 75,000 pods) while the parent waits for them.
FIRST_SHARE = 0.56


@dataclass(frozen=True)
class Halves:
    """A block YAML stream cut at a document line: ``second`` starts with it."""

    first: str
    second: str
    lines_before: int  # the lines of ``first``
    documents_before: int  # its documents as its document lines count them (RunComposer.documents says)


def halves(text: str, limits: Limits) -> Optional[Halves]:
    """``text`` (what compose_runs composes) cut at the first document line from its middle on, for
    the loader to read each half in a process of its own: composing the halves one after the other
    with one RunComposer is composing the text (a document line ends every node open before it).
    None for a text shorter than SPLIT_CHARS, JSON (its line composer reads a List as one document),
    one too deep to compose, or one without such a line."""
    if len(text) < SPLIT_CHARS or _JSON_START.match(text):
        return None
    text = as_yaml_stream(text)
    if _too_deep(text, limits) is not None:
        return None
    found = _DOCUMENT_LINE.search(text, int(len(text) * FIRST_SHARE))
    while found is not None and _after_directive(text, found.start()):
        found = _DOCUMENT_LINE.search(text, found.end())
    if found is None:
        return None
    first = text[: found.start()]
    return Halves(first, text[found.start() :], first.count("\n"), _documents_in(first))


# A line with something on it but a comment or a directive.
_CONTENT_LINE = re.compile(r"^[ \t]*[^\s#%]", re.MULTILINE)


def _documents_in(text: str) -> int:
    """The documents of a stream as counted from its lines: one per document line, and one before
    the first of them if anything but blank lines, comments and directives is written there. Counted
    at memory speed: document lines written back to back ("---" twice) count once, as does a
    stream that ends a document with "..." otherwise — the caller compares this with what the
    composer numbered, and reads one process's way when they differ."""
    first = _DOCUMENT_LINE.search(text)
    implicit = _CONTENT_LINE.search(text, 0, len(text) if first is None else first.start()) is not None
    lines = sum(text.count("\n---" + end) for end in (" ", "\t", "\r", "\n")) + text.endswith("\n---")
    return lines + (first is not None and first.start() == 0) + implicit


def _document_runs(text: str) -> Iterator[str]:
    start = 0
    while len(text) - start > RUN_CHARS:
        found = _DOCUMENT_LINE.search(text, start + RUN_CHARS)
        while found is not None and _after_directive(text, found.start()):
            found = _DOCUMENT_LINE.search(text, found.end())
        if found is None:
            break
        yield text[start : found.start()]
        start = found.start()
    yield text[start:]


def _after_directive(text: str, at: int) -> bool:
    """Whether the line before ``at`` is a directive ("%YAML 1.2"): it belongs to the document after it."""
    previous = text.rfind("\n", 0, max(0, at - 1)) + 1
    return text.startswith("%", previous)


def _too_deep(text: str, limits: Limits) -> Optional[SyntaxProblem]:
    # The nesting of brackets is at most their count, which str.count finds at memory speed (the scan
    # takes 30 ms on a 10 MB dump without any).
    opening = text.count("[") + text.count("{")
    deep = deep_flow_line(text, limits.max_depth) if opening > limits.max_depth else None
    if deep is None:
        return None
    return SyntaxProblem(1, deep, f"nesting deeper than {limits.max_depth} levels (Limits.max_depth)")


def compose(text: str, limits: Limits) -> tuple[list[Document], list[SyntaxProblem]]:
    # The collector paused as the loader pauses it (gcpause): the tree has no cycle to find, and its
    # passes over the growing tree cost as much as composing it (0.7 s on a 10 MB dump).
    with collector_paused():
        return _compose(text, limits)


def _compose(text: str, limits: Limits, json_tried: bool = False) -> tuple[list[Document], list[SyntaxProblem]]:
    if not json_tried and _JSON_START.match(text):
        # Pretty-printed JSON, line by line: what the event composer answers after the scans below,
        # which the line composer makes itself (it declines where they would find a problem).
        fast = compose_json(text, limits, Composer(limits))
        if fast is not None:
            return fast, []
    text = as_yaml_stream(text)  # several JSON values back to back: one document each
    problem = _too_deep(text, limits)
    if problem is not None:
        return [], [problem]
    fast = compose_block(text, limits, Composer(limits))  # plain block YAML, line by line: ~3x faster
    if fast is not None:
        return fast, []
    composer = Composer(limits)  # a new one: the line composer's may hold a plain scalar's problem
    documents = composer.compose(text)
    return documents, composer.problems
