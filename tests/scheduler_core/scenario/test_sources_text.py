"""scheduler_core.scenario.sources.upload_to_text: an upload (files, an archive) as one scenario text.

Every dump form of tests/fixtures/dumps/forms, packed as the user uploads it, must give a text that
loads as exactly what ``load_upload`` reads from the upload itself (same nodes, pods in the same
order, same notices about objects), with apiVersion and kind written on every object.
(Kept apart from test_sources.py, the forms' own tests, while both are written in parallel.)
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
import yaml

from scheduler_core import load_scenario
from scheduler_core.scenario.errors import ScenarioInvalid
from scheduler_core.scenario.loader import KINDS
from scheduler_core.scenario.sources import is_archive, kind_named_by, load_upload, upload_to_text

FORMS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps" / "forms"
DIRECTORIES = ["cluster-info-dump-dir", "insights", "must-gather", "raw-api-lists", "sonobuoy", "troubleshoot"]
SINGLE_FILES = ["cluster-info-dump.txt", "kubectl-get-all.yaml"]


def tar_gz(root: Path, extra: tuple[tuple[str, bytes], ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        members = [(str(p.relative_to(root.parent)), p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()]
        for name, data in [*members, *extra]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def same_reading(text: str, upload: list[tuple[str, bytes]]) -> None:
    from_text, from_upload = load_scenario(text), load_upload(upload)
    assert [n.name for n in from_text.nodes] == [n.name for n in from_upload.nodes]
    assert [p.key for p in from_text.pods] == [p.key for p in from_upload.pods]
    assert [p.key for p in from_text.pending_pods] == [p.key for p in from_upload.pending_pods]
    object_notices = [
        n
        for n in from_upload.scheduling_notices()
        if n.code.value not in ("unread-files", "links", "container-logs", "not-objects", "duplicate-objects")
    ]
    assert [n.to_json() for n in from_text.scheduling_notices()] == [n.to_json() for n in object_notices]


@pytest.mark.parametrize("form", DIRECTORIES)
def test_an_archived_dump_becomes_a_text_that_reads_as_the_upload_does(form: str):
    upload = [(f"{form}.tar.gz", tar_gz(FORMS / form))]
    text = upload_to_text(upload)
    documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    assert all(doc.get("kind") for doc in documents)
    # The kinds the scheduler reads get their apiVersion too (others, e.g. a bundle's kind-less Events, need none).
    assert all(doc.get("apiVersion") in KINDS[doc["kind"]].api_versions for doc in documents if doc["kind"] in KINDS)
    assert sum(doc["kind"] == "Node" for doc in documents) == 3
    same_reading(text, upload)


@pytest.mark.parametrize("name", SINGLE_FILES)
def test_several_plain_files_become_one_text(name: str):
    upload = [
        (name, (FORMS / name).read_bytes()),
        ("extra.yaml", b"apiVersion: v1\nkind: Namespace\nmetadata: {name: extra}\n"),
    ]
    text = upload_to_text(upload)
    assert "kind: Namespace\nmetadata:\n  name: extra\n" in text
    same_reading(text, upload)


def test_what_the_text_cannot_hold_is_said_in_its_first_comments_on_one_line_each():
    evil = ("cluster-info-dump-dir/kube-system/evil\nkind: Node\n.log", b"not yaml")
    text = upload_to_text([("dump.tar.gz", tar_gz(FORMS / "cluster-info-dump-dir", (evil,)))])
    header = text.split("\napiVersion:", 1)[0].splitlines()
    assert all(line.startswith("# ") for line in header)
    assert any("evil?kind: Node?.log" in line for line in header)  # a newline in a name cannot end the comment
    assert any(line.endswith("logs.txt") for line in header)


def test_an_object_written_twice_by_the_dump_tool_is_written_once():
    upload = [("must-gather.tar.gz", tar_gz(FORMS / "must-gather"))]
    keys = [
        (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"])
        for d in yaml.safe_load_all(upload_to_text(upload))
        if d
    ]
    assert len(keys) == len(set(keys))


def test_a_member_that_does_not_load_is_named_and_nothing_is_written():
    broken = ("raw-api-lists/broken.json", b'{"kind": "PodList", "items": [\n  {"metadata": }\n]}\n')
    with pytest.raises(ScenarioInvalid) as raised:
        upload_to_text([("dump.tar.gz", tar_gz(FORMS / "raw-api-lists", (broken,)))])
    assert any(e.file == "dump.tar.gz:raw-api-lists/broken.json" and e.line == 2 for e in raised.value.errors)


def test_archives_are_told_by_their_first_bytes():
    assert is_archive(tar_gz(FORMS / "raw-api-lists")) and not is_archive(b"apiVersion: v1\nkind: Node\n")


@pytest.mark.parametrize(
    "name, kind", [("nodes.json", "Node"), ("dump/Pods.yaml", "Pod"), ("cluster.yaml", ""), ("-", "")]
)
def test_a_given_files_own_name_may_say_its_kind(name: str, kind: str):
    assert kind_named_by(name) == kind


ANCHORED_LIST = FORMS.parents[1] / "webui_import" / "anchored-list.yaml"


@pytest.mark.parametrize("packed", ["archive", "files"])
def test_a_list_whose_items_share_yaml_anchors_becomes_documents_that_each_read_alone(packed: str):
    """Items of a List pointing (`*id001`) at an anchor of another item: each object is written out with
    the values it points at, so no document of the text points into another; it reads as the upload."""
    data = ANCHORED_LIST.read_bytes()
    assert b"*id001" in data
    if packed == "archive":
        upload = [("dump.tar.gz", _tar_gz_of([("dump/anchored-list.yaml", data)]))]
    else:
        upload = [
            ("anchored-list.yaml", data),
            ("more.yaml", b"apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"),
        ]
    text = upload_to_text(upload)
    assert "*id" not in text and "&id" not in text
    assert (
        "# 10 object(s) used YAML aliases (*name): written with the values they point at, as they were read "
        "(an alias cannot point into another document).\n"
    ) in text
    same_reading(text, upload)
    nodes = [doc for doc in yaml.safe_load_all(text) if doc and doc["kind"] == "Node"]
    assert [n["status"]["allocatable"] for n in nodes] == [{"cpu": "2", "memory": "8Gi", "pods": "110"}] * 3


def _tar_gz_of(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_text_without_aliases_says_nothing_of_them():
    upload = [("dump.tar.gz", tar_gz(FORMS / "raw-api-lists"))]
    assert "alias" not in upload_to_text(upload)
