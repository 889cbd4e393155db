"""Scenario text edits that touch only the documents they must (shared by what-if and the
controller's node taints)."""

from __future__ import annotations

import json
from pathlib import Path

from scheduler_core.scenario.textedit import DOCUMENT_START, KEEP, _document_starts, documents, edit_objects

NODE_A = "# the first node\napiVersion: v1\nkind: Node\nmetadata: {name: a}   # keep me\n"
NODE_B = "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {containers: [{name: c}]}\n"


def labelled(name: str):
    return lambda key, obj: {**obj, "metadata": {**obj["metadata"], "labels": {"x": "y"}}} if key == name else KEEP


def test_unchanged_documents_keep_their_exact_text():
    text = NODE_A + "---\n" + NODE_B + "--- # pods\n" + POD
    edited = edit_objects(text, "Node", labelled("b"))
    assert edited.startswith(NODE_A + "---\n")
    assert edited.endswith("--- # pods\n" + POD)
    assert "labels:\n    x: 'y'" in edited  # quoted: plain y is true to Kubernetes (go-yaml)


def test_a_pod_is_keyed_by_namespace_and_name_and_none_removes_it():
    text = NODE_A + "---\n" + POD
    assert edit_objects(text, "Pod", lambda key, obj: None if key == "shop/p" else KEEP) == NODE_A


def test_json_values_back_to_back_are_split_and_an_edited_one_stays_json():
    first = json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}]}
    )
    second = json.dumps({"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "p"}}]})
    edited = edit_objects(first + "\n" + second + "\n", "Node", labelled("a"))
    parts = [chunk.body for chunk in documents(edited)]
    assert json.loads(parts[0])["items"][0]["metadata"]["labels"] == {"x": "y"}
    assert parts[1] == second + "\n"


def test_items_of_a_typed_list_take_their_kind_from_the_list_and_keep_none():
    text = json.dumps(
        {"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}
    )
    edited = json.loads(edit_objects(text, "Node", labelled("b")))
    assert edited["items"] == [{"metadata": {"name": "a"}}, {"metadata": {"name": "b", "labels": {"x": "y"}}}]


def test_a_document_that_does_not_parse_is_kept_as_it_is():
    broken = "kind: Node\nmetadata: {name: [\n"
    assert edit_objects(broken + "---\n" + NODE_B, "Node", labelled("b")).startswith(broken + "---\n")


def test_document_starts_are_the_patterns_own_matches_found_from_the_lines_starting_with_dashes():
    shared = Path(__file__).resolve().parents[4] / "shared"
    texts = [
        "",
        "---",
        "---\n",
        "a: 1\n",
        "---\na: 1\n---\nb: 2\n",
        "a: 1\n---  # comment\nb: 2\n--- {c: 3}\n----\nd: 4\n---x\n---\t\n---\r\ne: 5\n---",
        "x: |\n  ---\n  inside\n---\n---\n",
        *(path.read_text() for path in sorted((shared / "conformance" / "public").glob("*.yaml"))[:40]),
        *(path.read_text() for path in sorted((Path(__file__).resolve().parents[2] / "fixtures" / "dumps").glob("*"))
          if path.is_file()),
    ]  # fmt: skip
    for text in texts:
        found = [(m.start(), m.end()) for m in _document_starts(text)]
        assert found == [(m.start(), m.end()) for m in DOCUMENT_START.finditer(text)], text[:200]
