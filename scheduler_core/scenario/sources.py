"""Every form a user has, read as one scenario: a file, several files, a directory, an archive.

``load_paths`` (the CLI) and ``load_upload`` (the web app: names and bytes) gather the YAML/JSON
files — a directory's tree, an archive's members (.tar, .tar.gz/.tgz, .zip, read in memory) — and
hand them to the loader as one scenario, in path order. What is not read is said in notices:
files that are not YAML/JSON (container logs, ...), YAML/JSON holding no object, links (never
followed). Errors name the file (inside its directory or archive) and the line. docs/INPUT_FORMS.md
describes the forms, the dump layouts recognised and the limits.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Iterator, Optional, Sequence, Union

import yaml

from scheduler_core.model import Notice, NoticeCode, Scenario
from scheduler_core.scenario.archives import (
    ArchiveContents,
    Budget,
    ReadRefused,
    archive_kind,
    open_bytes,
    read_archive,
)
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.layouts import is_yaml_or_json, kind_from_path, vocabulary
from scheduler_core.scenario.limits import Limits, megabytes
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.scenario.jsonstream import blank_container_logs
from scheduler_core.scenario.loader import (
    CONFIG_KIND,
    FILE,
    KINDS,
    SourceText,
    _holds_objects,
    _list_item_type,
    _named,
    load_sources,
)
from scheduler_core.scenario.textedit import DUMPER
from scheduler_core.scenario.yamltree import YList, YMap, compose

STDIN = "-"
_LISTED = 50  # file names listed in a notice (the count says the rest)
_WORDS = vocabulary([*KINDS, CONFIG_KIND])
_HEAD = 512  # bytes read to tell an archive by its magic


@dataclass
class SourceSet:
    """The files to read as one scenario, and what was left unread, by reason."""

    sources: list[SourceText] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # not YAML/JSON
    links: list[str] = field(default_factory=list)  # links and special files: not followed

    def notices(self) -> list[Notice]:
        notices: list[Notice] = []
        if self.unread:
            notices.append(
                Notice(
                    NoticeCode.UNREAD_FILES,
                    f"{len(self.unread)} file(s) that are not YAML/JSON "
                    "(container logs and others) not read: the scheduler does not read them",
                    _listed(self.unread),
                )
            )
        if self.links:
            notices.append(
                Notice(
                    NoticeCode.LINKS,
                    f"{len(self.links)} link(s) or special file(s) not followed (a dump's links are never followed)",
                    _listed(self.links),
                )
            )
        return notices


def _listed(names: list[str]) -> tuple[str, ...]:
    more = len(names) - _LISTED
    return tuple(names[:_LISTED]) + ((f"... and {more} more",) if more > 0 else ())


# ---------------------------------------------------------------------- public entry points


def load_paths(
    paths: Sequence[Union[str, Path]],
    limits: Optional[Limits] = None,
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
) -> Scenario:
    """The scenario in ``paths`` (files, directories, archives; '-' is standard input);
    ``second_process``: load_sources'."""
    return _load(read_sources(paths, limits), limits, release, second_process, let_go=True)


def load_upload(
    files: Sequence[tuple[str, bytes]], limits: Optional[Limits] = None, release: ReleaseRequest = ReleaseRequest()
) -> Scenario:
    """The scenario in uploaded files (name, bytes); an archive among them is unpacked."""
    return _load(read_upload(files, limits), limits, release)


def is_archive(data: bytes) -> bool:
    """Whether uploaded bytes are an archive (.tar, .tar.gz/.tgz, .zip; a gzip of one file), by their magic."""
    return archive_kind(data[:_HEAD]) is not None


def read_sources(paths: Sequence[Union[str, Path]], limits: Optional[Limits] = None) -> SourceSet:
    """The files ``paths`` hold, unread; raises ``ScenarioInvalid`` when one cannot be read."""
    budget = Budget(limits or Limits())
    found = SourceSet()
    only = len(paths) == 1
    try:
        for path in paths:
            _add_path(str(path), only, found, budget)
    except ReadRefused as err:
        raise _invalid(str(err)) from None
    return found


def read_upload(files: Sequence[tuple[str, bytes]], limits: Optional[Limits] = None) -> SourceSet:
    budget = Budget(limits or Limits())
    found = SourceSet()
    try:
        for name, data in files:
            _add_bytes(name, data, len(files) == 1, found, budget)
    except ReadRefused as err:
        raise _invalid(str(err)) from None
    return found


def _load(
    found: SourceSet,
    limits: Optional[Limits],
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
    let_go: bool = False,
) -> Scenario:
    """``let_go``: ``found`` is this load's own (load_paths read it): each file's bytes go once decoded."""
    if not found.sources:
        raise _invalid(
            "no YAML or JSON file found" + (f" (not read: {', '.join(found.unread[:5])})" if found.unread else "")
        )
    scenario = load_sources(found.sources, limits=limits, release=release, second_process=second_process, let_go=let_go)
    scenario.notices.extend(found.notices())
    return scenario


def _invalid(message: str) -> ScenarioInvalid:
    return ScenarioInvalid([ScenarioError(FILE, "", None, message)])


# ---------------------------------------------------------------------- paths


def _add_path(path: str, only: bool, found: SourceSet, budget: Budget) -> None:
    if path == STDIN:
        _add_bytes(STDIN, sys.stdin.buffer.read(), only, found, budget)
        return
    try:
        if os.path.isdir(path):
            _add_directory(path, found, budget)
            return
        with open(path, "rb") as stream:
            _add_file(path, stream, os.fstat(stream.fileno()).st_size, only, found, budget)
    except OSError as err:
        raise ReadRefused(f"cannot read {path}: {err.strerror or err}") from None


def _add_file(path: str, stream: BinaryIO, size: int, only: bool, found: SourceSet, budget: Budget) -> None:
    kind = archive_kind(stream.read(_HEAD))
    stream.seek(0)
    if kind is not None:
        _add_archive(read_archive(stream, path, kind, is_yaml_or_json, budget), path, found)
        return
    budget.count_file(path)
    if size > budget.limits.max_bytes:  # refused before it is read, as the loader would after
        raise ReadRefused(
            f"{path}: the scenario is {megabytes(size)}, more than the limit of {megabytes(budget.limits.max_bytes)} "
            "(Limits.max_bytes)"
        )
    data = stream.read()
    budget.keep(len(data), path)
    found.sources.append(_given_file(path, data, only))


def _add_bytes(name: str, data: bytes, only: bool, found: SourceSet, budget: Budget) -> None:
    kind = archive_kind(data[:_HEAD])
    if kind is not None:
        _add_archive(read_archive(open_bytes(data), name, kind, is_yaml_or_json, budget), name, found)
        return
    budget.count_file(name)
    budget.keep(len(data), name)
    found.sources.append(_given_file(name, data, only))


def _given_file(name: str, data: bytes, only: bool) -> SourceText:
    """A file the user named: read strictly (an object without a kind is an error), named in errors
    unless it is the only one (then errors read as they always have: line numbers of that file)."""
    return SourceText(None if only else name, data, kind_named_by(name))


def kind_named_by(name: str) -> str:
    """The kind a given file's own name says ("nodes.json": Node), for objects written without one; "" for none."""
    return kind_from_path((PurePosixPath(name.replace("\\", "/")).name,), _WORDS) if name != STDIN else ""


def _add_archive(contents: ArchiveContents, archive: str, found: SourceSet) -> None:
    """A dump packed as an archive: each member found the way a directory's files are."""
    for member in contents.members:
        parts = PurePosixPath(member.name).parts
        found.sources.append(
            SourceText(f"{archive}:{member.name}", member.data, kind_from_path(parts, _WORDS), lenient=True)
        )
    found.unread.extend(f"{archive}:{name}" for name in contents.unread)
    found.links.extend(f"{archive}:{name}" for name in contents.links)


def _add_directory(root: str, found: SourceSet, budget: Budget) -> None:
    """A dump unpacked in a directory: every YAML/JSON file of its tree, in path order; links are
    reported, never followed (the tree is what the dump tool wrote, nothing it points to)."""
    for folder, subfolders, files in os.walk(root, followlinks=False):
        subfolders.sort()
        for name in [d for d in subfolders if os.path.islink(os.path.join(folder, d))]:
            budget.count_file(os.path.join(folder, name))
            found.links.append(os.path.join(folder, name))
            subfolders.remove(name)
        for name in sorted(files):
            _add_directory_file(root, os.path.join(folder, name), found, budget)


def _add_directory_file(root: str, path: str, found: SourceSet, budget: Budget) -> None:
    budget.count_file(path)
    if os.path.islink(path) or not os.path.isfile(path):
        found.links.append(path)
        return
    if not is_yaml_or_json(path):
        found.unread.append(path)  # logs and everything else: not opened
        return
    parts = PurePosixPath(Path(os.path.relpath(path, root)).as_posix()).parts
    size = os.path.getsize(path)
    budget.keep(size, path)
    with open(path, "rb") as stream:
        data = stream.read(size + 1)
    budget.keep(len(data) - size, path)  # a file that grew while read is still bounded
    found.sources.append(SourceText(path, data, kind_from_path(parts, _WORDS), lenient=True))


# ---------------------------------------------------------------------- one text of an upload

CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"
# Notices about input the text cannot carry (it holds objects only): written as its first comments.
_NOT_CARRIED = (
    NoticeCode.UNREAD_FILES,
    NoticeCode.LINKS,
    NoticeCode.CONTAINER_LOGS,
    NoticeCode.NOT_OBJECTS,
    NoticeCode.DUPLICATE_OBJECTS,
)


def upload_to_text(files: Sequence[tuple[str, bytes]], limits: Optional[Limits] = None) -> str:
    """Uploaded files (an archive among them unpacked) as one scenario text — a web app stores a
    scenario as text: every object ``load_upload`` reads, in file order, as a YAML stream, each with
    the ``apiVersion`` and ``kind`` its list or its file's place in the dump gives it (kinds the
    scheduler does not read included, an object a dump tool wrote twice once). What the text cannot
    hold (files not read, links, container logs) is said in comments at its top, and so are the objects
    that used YAML aliases: each is written with the values they point at (an alias cannot point
    into another document), so every document reads alone, as the upload was read. Raises
    ``ScenarioInvalid`` as ``load_upload`` does, every problem naming its file and line: nothing is
    written from files that do not load."""
    found = read_upload(files, limits)
    scenario = _load(found, limits)
    seen: dict[tuple[str, str, str], str] = {}
    objects: list[Any] = []
    aliased = 0
    for source in found.sources:
        aliases = _Aliases() if _may_hold_alias(source.text) else None
        for obj in _source_objects(source, limits or Limits()):
            if _first_time(obj, seen):
                objects.append(_plain(obj, aliases))
                aliased += aliases is not None and aliases.take()
    names = ", ".join(name for name, _ in files)
    header = [
        f"Imported from {names}: {len(objects)} object(s), apiVersion and kind filled in from their lists or files."
    ]
    if aliased:
        header.append(
            f"{aliased} object(s) used YAML aliases (*name): written with the values they point at, as they were "
            "read (an alias cannot point into another document)."
        )
    for notice in scenario.notices:
        if notice.code in _NOT_CARRIED:
            header += [notice.message, *(f"  {name}" for name in notice.objects)]
    body = yaml.dump_all(objects, Dumper=DUMPER, sort_keys=False, default_flow_style=False, allow_unicode=True)
    return "".join(f"# {_one_line(line)}\n" for line in header) + body


def _one_line(text: str) -> str:
    """A comment line of untrusted names: no line break (nor other control character) can end it."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _source_objects(source: SourceText, limits: Limits) -> Iterator[YMap]:
    """The objects of one file as the loader reads them (``_read_document``): lists unwrapped, each
    item and kind-less object given its kind and apiVersion; files holding no object skipped."""
    text = source.text.decode("utf-8-sig") if isinstance(source.text, bytes) else source.text
    documents, _ = compose(blank_container_logs(text)[0], limits)
    for document in documents:
        value = document.value
        if value is None or (source.lenient and not _holds_objects(value, source.kind_hint)):
            continue
        if isinstance(value, YList) and (not value or _named(value[0], source.kind_hint)):
            yield from (_typed(item, source.kind_hint, "") for item in value)
            continue
        item_type = _list_item_type(value, source.kind_hint) if isinstance(value, YMap) else None
        if item_type is None:
            yield _typed(value, source.kind_hint, "")
        else:
            yield from (_typed(item, *item_type) for item in value.get("items") or ())


def _typed(obj: YMap, default_kind: str, default_api_version: str) -> YMap:
    """The object with apiVersion and kind first: its own, else its list's or its file's; an
    apiVersion still missing is the one the loader accepts for the kind."""
    kind = obj.get("kind") or default_kind
    api_version = obj.get("apiVersion") or (default_api_version if "kind" not in obj else "")
    if not api_version:
        api_version = (
            CONFIG_API_VERSION if kind == CONFIG_KIND else KINDS[kind].api_versions[0] if kind in KINDS else ""
        )
    typed = YMap(getattr(obj, "line", 0))
    if api_version:
        typed["apiVersion"] = api_version
    typed["kind"] = kind
    typed.update((key, value) for key, value in obj.items() if key not in ("apiVersion", "kind"))
    return typed


def _first_time(obj: YMap, seen: dict[tuple[str, str, str], str]) -> bool:
    """False for an object a dump tool wrote twice (same kind, namespace, name and uid: read once,
    as the loader reads it once with a notice)."""
    found = obj.get("metadata")
    metadata: dict[str, Any] = found if isinstance(found, dict) else {}
    key = (str(obj.get("kind")), str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
    uid = str(metadata.get("uid") or "")
    if not key[2] or key not in seen:
        seen[key] = uid
        return True
    return not (uid and seen[key] == uid)


class _Aliases:
    """The mappings and lists met while writing one file's objects: the reader gives an alias the very
    value of its anchor, so one met again was reached through an alias (``take``: since last asked)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()  # ids: the file's documents stay alive while its objects are written
        self.met = False

    def meet(self, value: Any) -> None:
        if id(value) in self.seen:
            self.met = True
        else:
            self.seen.add(id(value))

    def take(self) -> bool:
        met, self.met = self.met, False
        return met


_ALIAS = re.compile(rb"(?:^|[\s\[{,:])\*[^\s,\[\]{}]")  # a `*name` where a value starts


def _may_hold_alias(text: Union[str, bytes]) -> bool:
    """Whether a file may hold an alias (only then are its values tracked)."""
    return _ALIAS.search(text.encode("utf-8") if isinstance(text, str) else text) is not None


def _plain(value: Any, aliases: Optional[_Aliases] = None) -> Any:
    """Plain dicts and lists for the YAML writer (the reader's mappings remember their lines); a value
    an alias points at is written in full wherever it is used."""
    if isinstance(value, dict):
        if aliases is not None:
            aliases.meet(value)
        return {key: _plain(item, aliases) for key, item in value.items()}
    if isinstance(value, list):
        if aliases is not None:
            aliases.meet(value)
        return [_plain(item, aliases) for item in value]
    return value
