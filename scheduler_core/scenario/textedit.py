"""Edits to a scenario's text that touch only the documents they must.

Every document (or item of a typed List) of one kind goes through an edit function with its key
(``namespace/name`` for a namespaced kind, the name otherwise): ``KEEP`` leaves it, ``None``
removes it, a mapping replaces it. A document without a change keeps its exact text, comments and
layout; a changed one is written anew, as JSON when it was JSON and as YAML otherwise. Several
JSON values back to back (``kubectl get nodes -o json; kubectl get pods -A -o json``) are split
as the loader splits them. Used by the what-if suggestions (scheduler_core/answers/whatif_text.py) and by the
node taints the node lifecycle controller would add (node_taints.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Callable

import yaml

from scheduler_core.scenario import goyaml

from scheduler_core.scenario.jsonstream import as_yaml_stream

# A document start: `---` alone, before a comment, or before the document's first value ("--- {").
DOCUMENT_START = re.compile(r"^---(?=[ \t\r]|$)[ \t]*(?:#.*)?$|^--- (?=\S)", re.MULTILINE)
# Plain scalars read, and strings written, as Kubernetes reads them (go-yaml v2: scenario/goyaml.py).
LOADER = goyaml.KubernetesLoader
DUMPER = goyaml.KubernetesDumper
LIST_SUFFIX = "List"  # kind: List, and the typed lists the API returns (NodeList, PodList, ...)
NAMESPACED = {
    "Pod",
    "Service",
    "ReplicaSet",
    "StatefulSet",
    "ReplicationController",
    "PodDisruptionBudget",
    "PersistentVolumeClaim",
    "CSIStorageCapacity",
    "ResourceClaim",
    "ResourceClaimTemplate",
}

KEEP = object()  # an edit's answer: leave this object as it is

# (object key, the parsed object: untyped YAML) -> its replacement, None to drop it, or KEEP
Edit = Callable[[str, dict[str, Any]], Any]


class Chunk:
    """One document of the stream with the separator line before it."""

    def __init__(self, separator: str, body: str) -> None:
        self.separator, self.body = separator, body

    @property
    def original(self) -> str:
        return self.separator + self.body

    @property
    def is_json(self) -> bool:
        return _first_value_char(self.body) in ("{", "[")


def documents(text: str) -> list[Chunk]:
    """The stream split at its document starts, each part keeping its separator."""
    chunks, last, separator = [], 0, ""
    for match in _document_starts(text):
        chunks.append(Chunk(separator, text[last : match.start()]))
        end = match.end() + (1 if match.end() < len(text) and text[match.end()] == "\n" else 0)
        separator, last = text[match.start() : end], end
    chunks.append(Chunk(separator, text[last:]))
    return [c for c in chunks if c.separator or c.body]


def _document_starts(text: str) -> Iterator[re.Match[str]]:
    """``DOCUMENT_START.finditer(text)``, tried only where a line starts with "---" (found at memory
    speed): the pattern's own scan visits every line of the text, ~1.6 s on a 286 MB dump."""
    at = 0 if text.startswith("---") else text.find("\n---") + 1
    if at == 0 and not text.startswith("---"):
        return
    while True:
        match = DOCUMENT_START.match(text, at)  # "^" holds at ``at``: the text's start or after a line break
        if match is not None:
            yield match
        found = text.find("\n---", at)
        if found < 0:
            return
        at = found + 1


def edit_objects(text: str, kind: str, edit: Edit) -> str:
    """The text with every object of ``kind`` passed through ``edit`` (see the module's docstring).
    A document that does not parse is kept as it is (the loader reports it)."""
    out = []
    for chunk in documents(as_yaml_stream(text)):
        try:
            document = yaml.load(chunk.body, Loader=LOADER)
        except yaml.YAMLError:
            out.append(chunk.original)
            continue
        changed, new = _edit_document(document, kind, edit)
        if not changed:
            out.append(chunk.original)
        elif new is not None:
            out.append(chunk.separator + _dump(new, chunk.is_json))
    return "".join(out)


def _dump(document: Any, as_json: bool) -> str:
    if as_json:
        return json.dumps(document, indent=2) + "\n"
    return yaml.dump(document, Dumper=DUMPER, sort_keys=False, default_flow_style=False)


def _edit_document(document: Any, kind: str, edit: Edit) -> tuple[bool, Any]:
    if not isinstance(document, dict):
        return False, document
    list_kind = document.get("kind")
    if isinstance(list_kind, str) and list_kind.endswith(LIST_SUFFIX) and isinstance(document.get("items"), list):
        return _edit_list(document, kind, edit)
    if list_kind != kind:
        return False, document
    result = edit(object_key(kind, document), document)
    if result is KEEP:
        return False, document
    return True, result


def _edit_list(document: dict[str, Any], kind: str, edit: Edit) -> tuple[bool, Any]:
    """Items of a typed List (NodeList, ...) carry no kind: they take it from the list."""
    item_kind = document["kind"][: -len(LIST_SUFFIX)]
    items, changed = [], False
    for item in document["items"]:
        if item_kind and isinstance(item, dict) and "kind" not in item:
            item_changed, new = _edit_document({**item, "kind": item_kind}, kind, edit)
            if item_changed and isinstance(new, dict):
                new = {key: value for key, value in new.items() if key != "kind" or key in item}
            elif not item_changed:
                new = item
        else:
            item_changed, new = _edit_document(item, kind, edit)
        changed |= item_changed
        if new is not None:
            items.append(new)
    return changed, {**document, "items": items} if changed else document


def object_key(kind: str, document: dict[str, Any]) -> str:
    metadata = document.get("metadata") or {}
    if kind in NAMESPACED:
        return f"{metadata.get('namespace') or 'default'}/{metadata.get('name')}"
    return str(metadata.get("name"))


def _first_value_char(body: str) -> str:
    """The first character of the document's value, past blank lines and comments."""
    for line in body.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped[0]
    return ""
