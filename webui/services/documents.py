"""A version's objects one at a time (issue 50, item 3): how a big dump is edited.

The editor's raw text is for what a person types; a version over SCHEDLAB_EDITOR_MAX_BYTES is in
**objects mode**: its documents are listed a page at a time (kind, namespace/name, line; filtered by
kind, searched by name, counted per kind), read one at a time, and replaced, deleted or added to —
each edit saved as a new version whose every other character is the base version's, byte for byte.

The list is an index of the version's documents made once per text (its digest) — split by the
engine's own ``documents()``, each document's kind and name read from its first lines — and kept in
this process's memo and, for a big text, on disk beside the loaded scenarios (loaded_cache), so a
page request never parses the text again. An edit's new version gets its index derived from the base
version's (the documents after the edit shifted), not made again from its text.

An edit never runs the engine's whole check in the request: the edited document is checked on its
own (its YAML, then the engine's check of it alone; a Changes document's steps that name objects of
the rest are left to the whole check), a problem refusing the edit (400 naming the object, field path
and line in the whole text); the new version is saved and its whole check asked of a long-work worker
(webui.tasks.check_version, where big uploads are read), stored (TextCheck) for GET
/api/scenarios/{id} to answer once done — which never runs it either.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, Literal

import yaml
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from webui.models import Scenario, ScenarioVersion, TextCheck
from webui import textstore
from webui.services import engine, loaded_cache, scenarios
from webui.services.errors import Conflict, InvalidScenario, NotFound

Mode = Literal["text", "objects"]
PAGE_MAX = 500
CHANGES_KIND = "Changes"
# What a Changes document checked alone cannot know: the objects of the rest its steps name.
NAMED_ELSEWHERE = "does not exist (not in the scenario"
# A document's kind and name as most YAML writes them: top-level `kind:`, `metadata:`'s own keys.
_KIND = re.compile(r"^kind:[ \t]*(\S.*)$", re.MULTILINE)
_METADATA = re.compile(r"^metadata:[ \t]*(?:#.*)?$", re.MULTILINE)
_TOP_LEVEL = re.compile(r"^[^\s#]", re.MULTILINE)
_FIRST_INDENT = re.compile(r"^([ ]+)\S", re.MULTILINE)


def mode_of(version: ScenarioVersion) -> Mode:
    """ "objects" when the version's text is over SCHEDLAB_EDITOR_MAX_BYTES (counted in characters:
    a dump's YAML is ASCII), else "text"."""
    return _mode_of_length(version.length)


def _mode_of_length(length: int) -> Mode:
    return "objects" if length > settings.SCHEDLAB_EDITOR_MAX_BYTES else "text"


@dataclass(frozen=True)
class Entry:
    """One document of a version: where it is in the text (``start``, ``end``: its separator line
    included; ``body``: where the document's own text begins) and what it is."""

    kind: str  # "" for a document of comments only, or one whose kind does not read
    namespace: str
    name: str
    start: int
    body: int
    end: int
    line: int  # the 1-based line of the document's first line (its body's)


@dataclass(frozen=True)
class Index:
    digest: str
    length: int
    entries: tuple[Entry, ...]

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(entry.kind for entry in self.entries).items()))


@dataclass(frozen=True)
class Page:
    index: Index
    kind: str
    search: str
    matched: list[int]  # the positions of every matching entry; the page is [offset:offset + limit]
    offset: int
    limit: int


# --- the index -------------------------------------------------------------------------------------


def _scalar(raw: str) -> str:
    """A plain or quoted scalar as written after ``key:``, its comment and quotes gone."""
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        end = raw.find(raw[0], 1)
        return raw[1:end] if end > 0 else raw[1:]
    return raw.split(" #", 1)[0].strip()


def _header(body: str) -> tuple[str, str, str]:
    """(kind, namespace, name) of one document, read from its lines; parsed as YAML only when its
    lines do not say (JSON, flow style)."""
    kind_match = _KIND.search(body)
    meta = _METADATA.search(body)
    if kind_match is None or meta is None:
        return _parsed_header(body)
    block_end = _TOP_LEVEL.search(body, meta.end() + 1)
    block = body[meta.end() : block_end.start() if block_end else len(body)]
    indent = _FIRST_INDENT.search(block)
    if indent is None:
        return _scalar(kind_match.group(1)), "", ""
    own = "\n" + indent.group(1)
    return _scalar(kind_match.group(1)), _own_key(block, own + "namespace:"), _own_key(block, own + "name:")


def _own_key(block: str, line_start: str) -> str:
    """The value on metadata's own last line that starts so (a newline, the first key's indent, the
    key and its colon: a deeper or other key's line never does), or "". Found by str.rfind: a
    pattern over each block took half of the index of a dump's 181,000 documents (2.9 of 6.2 s)."""
    at = block.rfind(line_start)
    if at < 0:
        return ""
    start = at + len(line_start)
    end = block.find("\n", start)
    return _scalar(block[start : end if end >= 0 else len(block)].lstrip(" \t"))


def _parsed_header(body: str) -> tuple[str, str, str]:
    try:  # JSON (a `kubectl get -o json` object) read as JSON: many times faster than as YAML
        document = json.loads(body)
    except ValueError:
        try:
            document = yaml.load(body, Loader=engine.YAML_LOADER)
        except yaml.YAMLError:
            return "", "", ""
    if not isinstance(document, dict):
        return "", "", ""
    metadata = document.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return tuple(
        str(value) if isinstance(value, str) else ""
        for value in (document.get("kind"), metadata.get("namespace"), metadata.get("name"))
    )  # type: ignore[return-value]


def _entries(text: str, at: int = 0, line: int = 1) -> list[Entry]:
    """The documents of ``text`` (a part of a version's text beginning at character ``at``, line ``line``)."""
    out = []
    for chunk in engine.documents(text):
        body_line = line + chunk.separator.count("\n")
        kind, namespace, name = _header(chunk.body)
        end = at + len(chunk.original)
        out.append(Entry(kind, namespace, name, at, at + len(chunk.separator), end, body_line))
        at, line = end, body_line + chunk.body.count("\n")
    return out


_INDEXES: engine.Memo[Index] = engine.Memo(8)


def index_of(version: ScenarioVersion) -> Index:
    """The version's index: this process's, the one kept on disk, or made from its text once."""
    return _INDEXES.get_or_make(version.digest, lambda: _kept_or_made(version))


def _disk_key(digest: str) -> tuple[str, str]:
    return ("documents", digest)


def _kept_or_made(version: ScenarioVersion) -> Index:
    keep = loaded_cache.wanted(version.length)
    if keep:
        kept = loaded_cache.get(_disk_key(version.digest), engine.ENGINE_PACKAGE)
        if isinstance(kept, Index):
            return kept
    made = Index(version.digest, version.length, tuple(_entries(version.text)))
    if keep:
        loaded_cache.put(_disk_key(made.digest), engine.ENGINE_PACKAGE, made)
    return made


def index_meanwhile(text: str, kept: engine.KeptMeanwhile) -> bool:
    """The index of a text about to be saved as a version edited object by object, made and kept on
    disk by a forked child while this process saves it (the envelope's 226,000 documents: ~3.5 s that
    came after the save before); False when no child made it (``index_of`` makes it
    once the version is saved, when it is wanted). Its digest and length are the version's: its
    text, as saved."""
    if _mode_of_length(len(text)) != "objects" or not loaded_cache.wanted(len(text)):
        return False
    return kept.start(lambda: _keep_index(text))


def _keep_index(text: str) -> bytes:
    with engine.collector_paused():  # 226,000 entries, none of them garbage, beside a million read objects
        made = Index(textstore.digest_of(text), len(text), tuple(_entries(text)))
        loaded_cache.put(_disk_key(made.digest), engine.ENGINE_PACKAGE, made)
    return b"kept"


def _remember(index: Index) -> None:
    _INDEXES.put(index.digest, index)
    if loaded_cache.wanted(index.length):
        loaded_cache.put(_disk_key(index.digest), engine.ENGINE_PACKAGE, index)


# --- the whole check, on the long-work queue ----------------------------------------------------------

CHECK_TASK = "webui.tasks.check_version"  # sent by name: webui.tasks imports this module
CHECK_STALE = timedelta(minutes=10)  # asked this long ago and not done: its worker died, ask again


def check_without_waiting(version: ScenarioVersion) -> engine.Check | None:
    """The version's whole check when known (this process's, or a long-work worker's stored), else
    None — asked of a long-work worker when not asked already: GET /api/scenarios/{id} in objects
    mode never runs it, nor waits for it."""
    known = engine.known_check(version.digest)
    if known is not None:
        return known
    row = TextCheck.objects.filter(digest=version.digest, engine=engine.check_fingerprint()).first()
    if row is not None and row.result is not None:
        return engine.remember_check(version.digest, engine.check_of_json(row.result))
    if row is None or row.asked < timezone.now() - CHECK_STALE:
        ask_check(version)
    return None


def ask_check(version: ScenarioVersion) -> None:
    """The version's whole check asked of a long-work worker (webui.tasks.check_version), once saved."""
    TextCheck.objects.update_or_create(
        digest=version.digest, engine=engine.check_fingerprint(), defaults={"result": None, "asked": timezone.now()}
    )
    version_id = version.pk
    transaction.on_commit(lambda: _send_check(version_id), robust=True)


def _send_check(version_id: int) -> None:
    current_app.send_task(CHECK_TASK, args=[version_id])  # routed to the long-work queue


def run_check(version_id: int) -> str:
    """The task's work, in a long-work worker: the engine's whole check of the version, stored."""
    version = ScenarioVersion.objects.filter(pk=version_id).first()
    if version is None:
        return f"version {version_id}: deleted meanwhile"
    keep_check(version.digest, engine.check(version.text))
    return f"version {version_id}: checked"


def keep_check(digest: str, check: engine.Check) -> None:
    """A whole check made here, stored for the web processes (also a big upload's: services/uploads.py)."""
    TextCheck.objects.update_or_create(
        digest=digest, engine=engine.check_fingerprint(), defaults={"result": engine.check_json(check)}
    )


# --- reading ---------------------------------------------------------------------------------------


def page(version: ScenarioVersion, kind: str = "", search: str = "", offset: int = 0, limit: int = 50) -> Page:
    """The entries of ``kind`` (all when "") whose namespace/name contains ``search`` (any case)."""
    index = index_of(version)
    wanted = search.lower()
    matched = [
        position
        for position, entry in enumerate(index.entries)
        if (not kind or entry.kind == kind) and (not wanted or wanted in f"{entry.namespace}/{entry.name}".lower())
    ]
    return Page(index, kind, search, matched, offset, min(limit, PAGE_MAX))


def entry_at(version: ScenarioVersion, position: int) -> Entry:
    entries = index_of(version).entries
    if not 0 <= position < len(entries):
        raise NotFound(f"version {version.number} has no document {position} (it has {len(entries)})")
    return entries[position]


def document_text(version: ScenarioVersion, position: int) -> str:
    """The document's own text (without the `---` line before it), as saved."""
    entry = entry_at(version, position)
    return version.text_between(entry.body, entry.end)


# --- editing ---------------------------------------------------------------------------------------


def base_version(scenario: Scenario, number: int | None) -> ScenarioVersion:
    """The version an edit is made to: the latest; 409 when the editor had another one (a save
    meanwhile: its positions may no longer be this version's)."""
    latest = scenarios.latest_version(scenario)
    if number is not None and number != latest.number:
        raise Conflict(
            f"version {number} is not the latest (version {latest.number} was saved since): "
            "reload the scenario and edit that one"
        )
    return latest


def replace_document(scenario: Scenario, number: int | None, position: int, body: str) -> scenarios.Saved:
    """Document ``position`` of the latest version becomes ``body`` (one document; its `---` line
    kept): a new version."""
    version = base_version(scenario, number)
    index = index_of(version)
    entry = entry_at(version, position)
    if position < len(index.entries) - 1 and not body.endswith("\n"):
        body += "\n"  # the next document's `---` starts a line of its own
    _check_documents(body, entry.line, position, single=True)
    text = version.text
    new_text = text[: entry.body] + body + text[entry.end :]
    new = [replace(made, start=entry.start) for made in _entries(body, entry.body, entry.line)]
    return _save(version, index, text, new_text, position, position + 1, new)


def delete_document(scenario: Scenario, number: int | None, position: int) -> scenarios.Saved:
    """Document ``position`` (with its `---` line) removed: a new version."""
    version = base_version(scenario, number)
    index = index_of(version)
    entry = entry_at(version, position)
    text = version.text
    return _save(version, index, text, text[: entry.start] + text[entry.end :], position, position + 1, [])


def add_documents(scenario: Scenario, number: int | None, added: str) -> scenarios.Saved:
    """``added`` (one or more documents) after the version's last document: a new version."""
    version = base_version(scenario, number)
    index = index_of(version)
    if not added.strip():
        raise InvalidScenario([_problem("the added text", None, "there is nothing to add: the text is empty")])
    text = version.text
    entries = list(index.entries)
    lead = ""
    if text and not text.endswith("\n"):
        lead = "\n"  # ends the last document's line: it is the last document's
        entries[-1] = replace(entries[-1], end=entries[-1].end + 1)
    segment = ("" if engine.documents(added)[0].separator else "---\n") + added
    if not segment.endswith("\n"):
        segment += "\n"
    at, line = len(text) + len(lead), text.count("\n") + len(lead) + 1
    _check_documents(segment, line, len(entries), single=False)
    base = replace(index, entries=tuple(entries))
    return _save(version, base, text, text + lead + segment, len(entries), len(entries), _entries(segment, at, line))


def _save(
    base: ScenarioVersion, index: Index, text: str, new_text: str, first: int, last: int, new: list[Entry]
) -> scenarios.Saved:
    """``new_text`` (the ``base`` version's ``text`` with its entries [first:last] made ``new``) saved
    as the next version if ``base`` is still the latest, its whole check asked of a long-work worker;
    its index derived from the base's."""
    engine.enforce_size(new_text)
    saved = scenarios.save(base.scenario, new_text, check_later=True, based_on=base.number)
    if engine.known_check(saved.version.digest) is None:
        ask_check(saved.version)
    if saved.version.digest != index.digest:
        moved = len(new_text) - len(text)
        lines = new_text.count("\n") - text.count("\n")
        rest = tuple(
            Entry(e.kind, e.namespace, e.name, e.start + moved, e.body + moved, e.end + moved, e.line + lines)
            for e in index.entries[last:]
        )
        _remember(Index(saved.version.digest, saved.version.length, index.entries[:first] + tuple(new) + rest))
    return saved


# --- the edited document checked on its own ---------------------------------------------------------


def _problem(what: str, line: int | None, message: str, path: str = "") -> dict[str, Any]:
    return {
        "file": None,
        "object": what,
        "path": path,
        "line": line,
        "message": message,
        "code": "invalid",
        "limit": None,
    }


def _check_documents(text: str, line: int, position: int, single: bool) -> None:
    """Every document of ``text`` (written at ``line`` of the version, the first being document
    ``position``) checked on its own; InvalidScenario (400) naming each problem's object, field path
    and line in the version's text."""
    chunks = engine.documents(text)
    if not text.strip():
        raise InvalidScenario(
            [_problem(f"document {position + 1}", line, "the text is empty: delete the object instead")]
        )
    if single and (len(chunks) != 1 or chunks[0].separator):
        raise InvalidScenario(
            [
                _problem(
                    f"document {position + 1}",
                    line,
                    "one document per edit: the text holds a document start (---); add documents with Add",
                )
            ]
        )
    problems: list[dict[str, Any]] = []
    for offset, chunk in enumerate(chunks):
        line += chunk.separator.count("\n")
        problems += _document_problems(chunk.body, line, position + offset)
        line += chunk.body.count("\n")
    if problems:
        raise InvalidScenario(problems)


def _document_problems(body: str, line: int, position: int) -> list[dict[str, Any]]:
    label = f"document {position + 1}"
    try:
        document = yaml.load(body, Loader=engine.YAML_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = line + mark.line if mark is not None else line
        return [_problem(label, where, f"this is not YAML: {getattr(exc, 'problem', None) or exc}")]
    if document is None:
        return []  # comments only
    if not isinstance(document, dict) or not isinstance(document.get("kind"), str):
        return [
            _problem(label, line, "a document is one object: a mapping with its apiVersion, kind and metadata", "kind")
        ]
    errors = engine.check(body).errors
    if document["kind"] == CHANGES_KIND:
        errors = [error for error in errors if NAMED_ELSEWHERE not in error["message"]]
    return [
        {
            **error,
            "object": label if error["object"] == "document 1" else error["object"],
            "line": None if error["line"] is None else error["line"] + line - 1,
        }
        for error in errors
    ]
