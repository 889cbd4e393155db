"""Imported text: `kubectl get -o yaml` output is tidied into an editable YAML stream; several
files or an archive are read by the engine into one stream of every object (a scenario is text).

kubectl writes one `kind: List` document full of server bookkeeping (managedFields, uid,
resourceVersion...). The engine reads Lists as they are, but a stream of plain objects is what a
person wants to edit. Text that does not parse is kept exactly as given: nothing typed is lost.

Speed: a 5 MB dump is parsed once, by the engine's own check of the saved text. Text that is not a
List is kept without parsing; kubectl's block-style List is unwrapped line by line (each item's lines
lose their two-space list indent, the server's metadata lines are dropped), keeping kubectl's own
layout; any other List (JSON, flow style) goes through the YAML parser (libyaml when present).

YAML anchors: an item may point (`*id001`) at an anchor (`&id001`) written in another item — PyYAML
writes a List so whenever items share a value. Cut into documents, such an alias would point into
another document, where YAML cannot follow it: the List is then kept exactly as typed (the engine
reads Lists as they are), rather than rewriting the user's items. The parser's path writes every
document with its own anchors: its aliases never cross documents.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from webui.services import engine, listtidy
from webui.services.errors import DomainError

SERVER_METADATA = ("managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# A List somewhere at the top level, in block style or JSON: only then is the text looked into.
MENTIONS_LIST = re.compile(r'^kind:[ \t]*["\']?List["\']?[ \t]*$|"kind"[ \t]*:[ \t]*"List"', re.MULTILINE)
FLOW_START = re.compile(r"[ \t\r\n]*[\[{]")
TOP_LEVEL_KEY = re.compile(r"^([A-Za-z]+):(.*)$")
# A YAML alias (`*name`) where a value starts: only text holding one is scanned for anchors.
MAY_HOLD_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s,\[\]{}]")
LIST_KEYS = {"apiVersion", "items", "kind", "metadata"}
# Plain scalars read, and strings written, as Kubernetes reads them (the engine's go-yaml reading).
LOADER = engine.YAML_LOADER
DUMPER = engine.YAML_DUMPER
# Told how many of a List's items have been written out so far and what percent of the work that is
# (a big upload's worker reports it: services/uploads.py); the items are written this many at a time.
Progress = listtidy.Progress
DUMP_BATCH = 1000


@dataclass(frozen=True)
class Upload:
    """One uploaded file as the browser sent it: its name (an archive's decides how it is unpacked)."""

    name: str
    data: bytes


def upload_text(
    uploads: list[Upload], progress: Progress | None = None, let_go: bool = False, second_process: bool = False
) -> str:
    """The scenario text of an upload. One plain file is kept as typed (tidied when it is kubectl's
    List), so its comments and layout stay and its problems are shown at its own lines in the editor;
    several files, or an archive, are read by the engine (typed lists, layouts, archive limits) and
    written out as one stream — their problems answer the import (400 naming file and line, 413 naming
    the limit), as there is no single text to show them in. ``let_go``: one plain file's bytes are
    dropped from ``uploads`` once decoded, so a big upload is not held twice while it is tidied
    (its caller keeps no other reference: a big upload's worker). ``second_process``: a big JSON
    List's items are tidied in two processes (a caller that may fork: a big upload's worker)."""
    engine.enforce_size_bytes(sum(len(upload.data) for upload in uploads))
    if len(uploads) == 1 and not engine.is_archive(uploads[0].data):
        name, decoded = uploads[0].name, _utf8(uploads[0])
        if let_go:
            uploads.clear()
        return _one_file(name, decoded, progress, second_process)
    return engine.upload_to_text([(upload.name, upload.data) for upload in uploads])


def added_to(version_text: str, uploads: list[Upload]) -> str:
    """A version's text with uploaded files added after it, each object as the import would write it
    (what `kubectl get` fetched for a finding): the version's own text is kept as typed, and the
    added part says which files it came from. The loader reads an object named twice once, with a
    notice, so fetching an object the dump already had does no harm."""
    added = upload_text(uploads)
    names = ", ".join(upload.name for upload in uploads)[:200]
    head = version_text.rstrip("\n")
    return f"{head}\n---\n# added from {names}\n{added.lstrip()}" if head.strip() else added


def _one_file(name: str, decoded: str, progress: Progress | None = None, second_process: bool = False) -> str:
    """One plain file, as typed — unless only its name says what its kind-less objects are (a support
    bundle's `nodes.json`: a list whose items carry no kind) and it loads so, but not as typed: then it is
    written out as the engine reads it with its name. Only a file named after a kind is checked here."""
    text = normalize(decoded, progress, second_process)
    if not engine.kind_named_by(name) or engine.check(text).valid:
        return text
    try:
        return engine.upload_to_text([(name, decoded.encode("utf-8"))])  # its bytes: decoded strictly from them
    except DomainError:
        return text  # it does not load with its name either: kept as typed, its problems at its own lines


def title_of(uploads: list[Upload]) -> str:
    """A name for the scenario: the one file's, or the first file's "and N more"."""
    if not uploads:
        return ""
    first = uploads[0].name
    return first if len(uploads) == 1 else f"{first} and {len(uploads) - 1} more"


def _utf8(upload: Upload) -> str:
    try:
        return upload.data.decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError(f"{upload.name} is not UTF-8 text (nor a .tar, .tar.gz, .tgz or .zip archive)") from None


def normalize(text: str, progress: Progress | None = None, second_process: bool = False) -> str:
    if not MENTIONS_LIST.search(text):
        return text
    unwrapped = unwrap_block_list(text)
    return unwrapped if unwrapped is not None else _reformat_list(text, progress, second_process)


# --- kubectl's block-style List, line by line --------------------------------------------------


def unwrap_block_list(text: str) -> str | None:
    """The items of a one-document block-style `kind: List` as a stream; None for any other layout;
    the text as typed when an alias in it points outside its own item (see the module's doc)."""
    if FLOW_START.match(text):
        return None  # JSON or flow style: not split into lines (a 262 MB List is 11 M of them, ~0.8 GB)
    lines = text.split("\n")
    items_at = _top_level_items(lines)
    if items_at is None:
        return None
    start, end = items_at
    items: list[list[str]] = []
    item_lines: list[int] = []  # the line (0-based) each item starts at
    for number, line in enumerate(lines[start:end], start):
        if line.startswith("- "):
            items.append([line[2:]])
            item_lines.append(number)
        elif items and (line.startswith("  ") or not line.strip()):
            items[-1].append(line[2:])
        else:
            return None  # a comment or anything else at column 0 inside items: not kubectl's layout
    if not items:
        return None
    if _alias_crosses_items(text, item_lines, end):
        return text  # cut into documents, an alias would point into another one: kept as typed
    documents = ["\n".join(_without_server_lines(_trimmed(item))) for item in items]
    return "\n---\n".join(documents) + "\n"


def _alias_crosses_items(text: str, item_lines: list[int], end: int) -> bool:
    """Whether an alias of the List points at an anchor outside its own item (in another item, or
    in the List's own fields): the scanner's tokens tell them from a `*` inside a string."""
    if not MAY_HOLD_ALIAS.search(text):
        return False
    anchors: dict[str, int] = {}  # name -> the line of its latest anchor (a later one replaces it)
    try:
        for token in yaml.scan(text, Loader=LOADER):
            if isinstance(token, yaml.AnchorToken):
                anchors[token.value] = token.start_mark.line
            elif isinstance(token, yaml.AliasToken) and token.value in anchors:
                if _item_at(anchors[token.value], item_lines, end) != _item_at(token.start_mark.line, item_lines, end):
                    return True
    except yaml.YAMLError:
        return True  # text the scanner refuses is not cut up: kept as typed, its problems shown where they are
    return False


def _item_at(line: int, item_lines: list[int], end: int) -> int:
    """The index of the item holding ``line``; -1 outside the items (the List's own fields)."""
    return bisect.bisect_right(item_lines, line) - 1 if line < end else -1


def _top_level_items(lines: list[str]) -> tuple[int, int] | None:
    """Where the lines of `items:` are, when the text is exactly one block-style List document."""
    keys: dict[str, int] = {}
    values: dict[str, str] = {}
    for number, line in enumerate(lines):
        if not line or line[0] in " -":
            continue
        if line.startswith("---") and number == 0:
            continue
        match = TOP_LEVEL_KEY.match(line)
        if match is None or match.group(1) not in LIST_KEYS or match.group(1) in keys:
            return None  # a comment, a second document, a flow style, another key
        keys[match.group(1)] = number
        values[match.group(1)] = match.group(2).strip()
    if values.get("kind", "").strip("\"'") != "List" or "items" not in keys or values["items"]:
        return None
    start = keys["items"] + 1
    later = [n for n in keys.values() if n > keys["items"]]
    return start, min(later) if later else len(lines)


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _without_server_lines(lines: list[str]) -> list[str]:
    """Drops metadata.{managedFields, uid, ...} and the last-applied annotation (with their nested
    lines); an annotations block left empty goes too."""
    out: list[str] = []
    section = ""  # "metadata" or "annotations" while inside them
    skip_deeper_than = None
    for line in lines:
        depth = _indent(line)
        if skip_deeper_than is not None:
            # A skipped key's value: deeper lines, and a sequence written at the key's own indent.
            if (
                not line.strip()
                or depth > skip_deeper_than
                or (depth == skip_deeper_than and line.lstrip().startswith("- "))
            ):
                continue
            skip_deeper_than = None
        key = line.strip().split(":", 1)[0].strip("\"'")
        if depth == 0:
            section = "metadata" if line.rstrip() == "metadata:" else ""
        elif section and depth == 2:
            section = "annotations" if line.rstrip() == "  annotations:" else "metadata"
            if key in SERVER_METADATA:
                skip_deeper_than = 2
                continue
        elif section == "annotations" and depth == 4 and key == LAST_APPLIED:
            skip_deeper_than = 4
            continue
        out.append(line)
    return _without_empty_annotations(out)


def _without_empty_annotations(lines: list[str]) -> list[str]:
    out: list[str] = []
    for number, line in enumerate(lines):
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if line.rstrip() == "  annotations:" and _indent(following) <= 2:
            continue
        out.append(line)
    return out


# --- any other List: through the YAML parser ---------------------------------------------------


def _reformat_list(text: str, progress: Progress | None = None, second_process: bool = False) -> str:
    """Every List's items (several Lists, JSON values back to back, objects between them) as one
    stream, in file order; anything that does not parse, or holds something else, is kept as given."""
    streamed = listtidy.tidied_lists(text, _json_decoder(), DUMPER, _without_server_fields, progress, second_process)
    if streamed is not None:
        return streamed
    documents = _json_values(text)
    if documents is None:
        try:
            documents = [doc for doc in yaml.load_all(engine.as_yaml_stream(text), Loader=LOADER) if doc is not None]
        except (yaml.YAMLError, RecursionError):  # deep nesting overflows PyYAML; the engine's max_depth names it
            return text
    if not documents or not all(isinstance(doc, dict) for doc in documents) or not any(map(_is_list, documents)):
        return text
    items = [item for doc in documents for item in (doc.get("items") or [] if _is_list(doc) else [doc])]
    del documents
    return _dump_items(items, progress)


def _dump_items(items: list[Any], progress: Progress | None) -> str:
    """The items as one YAML stream, written DUMP_BATCH at a time (progress told after each): the
    same text as one dump_all of them all, whose later documents each start with `---`."""
    parts = []
    for start in range(0, len(items), DUMP_BATCH):
        batch = [_without_server_fields(item) for item in items[start : start + DUMP_BATCH]]
        dumped = yaml.dump_all(batch, Dumper=DUMPER, sort_keys=False, default_flow_style=False)
        parts.append(dumped if not start else "---\n" + dumped)
        if progress is not None:
            done = min(start + DUMP_BATCH, len(items))
            progress(done, done * 100 // len(items))
    return "".join(parts) if parts else yaml.dump_all([], Dumper=DUMPER)


def _json_values(text: str) -> list[Any] | None:
    """The top-level values of text that is JSON and nothing else (`kubectl get -o json`, or JSON values
    back to back), read as the YAML parser reads them (a number as Kubernetes reads its text) but some
    30 times faster (a 40 MB List: 1 s instead of 28); None for anything else, which the parser reads."""
    decoder = _json_decoder()
    values: list[Any] = []
    at = _skip_space(text, 0)
    if text[at : at + 1] not in ("{", "["):
        return None
    try:
        while at < len(text):
            value, at = decoder.raw_decode(text, at)
            if value is not None:
                values.append(value)
            at = _skip_space(text, at)
    except (ValueError, RecursionError):  # not JSON from end to end (YAML, logs between the values)
        return None
    return values


def _json_decoder() -> json.JSONDecoder:
    return json.JSONDecoder(
        parse_int=engine.resolve_plain_scalar, parse_float=engine.resolve_plain_scalar, parse_constant=_not_json
    )


JSON_SPACE = listtidy.JSON_SPACE


def _skip_space(text: str, at: int) -> int:
    match = JSON_SPACE.match(text, at)
    return match.end() if match else at


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _is_list(document: dict[str, Any]) -> bool:
    return document.get("kind") == "List" and isinstance(document.get("items", []), (list, type(None)))


def _without_server_fields(item: Any) -> Any:
    if not isinstance(item, dict) or not isinstance(item.get("metadata"), dict):
        return item
    metadata = {key: value for key, value in item["metadata"].items() if key not in SERVER_METADATA}
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    return {**item, "metadata": metadata}
