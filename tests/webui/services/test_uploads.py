"""webui/services/uploads.py: a big upload's files kept as sent; the worker's read reports its progress
(bytes read of the size, the step, then the objects) to the row and its watchers as it goes, and ends
with the version or every problem; an upload is read once, and only its uploader sees it."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import yaml

from tests.webui import support
from webui.models import Scenario, TextCheck, Upload, UploadStatus
from django.contrib.auth.models import User
from django.utils import timezone

from webui.services import accounts, uploads
from webui.services.access import Actor
from webui.services.errors import DomainError, NotFound

pytestmark = pytest.mark.django_db

OWNER = Actor(session_key="k" * 32)


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path) -> Path:
    settings.SCHEDLAB_UPLOAD_DIR = str(tmp_path / "uploads")
    return tmp_path / "uploads"


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    queued: list[int] = []
    monkeypatch.setattr(uploads, "_send", queued.append)
    return queued


def received(tmp_path: Path, name: str, data: bytes) -> uploads.Received:
    source = tmp_path / f"streamed-{name}"
    source.write_bytes(data)
    return uploads.Received(
        name, len(data), lambda path: (path.parent.mkdir(parents=True, exist_ok=True), path.hardlink_to(source))
    )


def test_the_read_reports_bytes_then_objects_to_the_row_and_its_watchers(
    monkeypatch, tmp_path, sent, django_capture_on_commit_callbacks
):
    data = support.scenario_text(nodes=40, pending=10).encode()
    monkeypatch.setattr(uploads, "CHUNK", 1000)  # several chunks, each reported
    monkeypatch.setattr(uploads, "REPORT_SECONDS", 0.0)
    seen: list[tuple[str, str, int, int]] = []

    def publish(upload_id: int) -> None:  # what a watcher reads when told
        row = Upload.objects.get(pk=upload_id)
        seen.append((row.status, row.what, row.bytes_read, row.objects_read))

    monkeypatch.setattr(uploads.publisher, "publish_upload", publish)
    with django_capture_on_commit_callbacks(execute=True):
        upload = uploads.receive(OWNER, "", [received(tmp_path, "cluster.yaml", data)])
    assert (upload.name, upload.size, sent) == ("cluster.yaml", len(data), [upload.pk])

    assert uploads.read(upload.pk, "w1").startswith(f"upload {upload.pk}: saved as scenario ")

    reading = [bytes_read for status, what, bytes_read, _ in seen if what == "reading cluster.yaml"]
    assert len(reading) == -(-len(data) // 1000)  # one report per chunk
    assert reading == sorted(reading) and reading[-1] == len(data)
    steps = [what for _, what, _, _ in seen]
    assert steps[0] == "reading the file" and steps[-3:] == ["tidying the text", "checking what was read", "saved"]
    assert seen[-1] == ("succeeded", "saved", len(data), 50)
    row = Upload.objects.get(pk=upload.pk)
    assert row.scenario is not None and row.version is not None
    assert (row.valid, row.summary, row.claimed_by) == (True, {"nodes": 40, "pods": 10, "pendingPods": 10}, "w1")
    assert row.scenario.owner_session_key == OWNER.session_key  # the uploader's, though a worker saved it
    assert row.version.text == data.decode()


def test_an_upload_is_read_once(tmp_path, sent):
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=1, pending=1).encode())]
    )
    assert "saved" in uploads.read(upload.pk, "w1")
    assert uploads.read(upload.pk, "w2") == f"upload {upload.pk}: not queued (finished, or read elsewhere)"
    assert Scenario.objects.count() == 1


def test_a_big_upload_s_check_is_kept_for_the_editor_which_does_not_check_it_again(tmp_path, sent, settings):
    from webui.services import documents, engine

    settings.SCHEDLAB_EDITOR_MAX_BYTES = 100  # the scenario is in objects mode
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=2, pending=1).encode())]
    )
    uploads.read(upload.pk, "w1")
    version = Scenario.objects.get().versions.get()
    engine.forget_everything()  # the web process: it never checked it
    kept = documents.check_without_waiting(version)
    assert kept is not None and kept.summary.nodes == 2
    settings.SCHEDLAB_EDITOR_MAX_BYTES = 10_000_000
    other = uploads.receive(
        OWNER, "y", [received(tmp_path, "b.yaml", support.scenario_text(nodes=3, pending=1).encode())]
    )
    uploads.read(other.pk, "w1")
    assert TextCheck.objects.count() == 1  # a scenario the editor reads whole is checked as it opens


def test_a_big_upload_s_index_is_on_disk_once_it_is_read_and_the_collector_waits_till_then(
    tmp_path, sent, settings, monkeypatch
):
    import gc

    from webui.services import documents, engine, scenarios

    settings.SCHEDLAB_EDITOR_MAX_BYTES = 100  # the scenario is in objects mode
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    engine.let_reading_fork()
    collecting_while_saved = []
    create = scenarios.create
    monkeypatch.setattr(
        scenarios, "create", lambda *a, **k: (collecting_while_saved.append(gc.isenabled()), create(*a, **k))[1]
    )
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=2, pending=1).encode())]
    )
    uploads.read(upload.pk, "w1")
    assert collecting_while_saved == [False] and gc.isenabled()
    version = Scenario.objects.get().versions.get()
    engine.forget_everything()  # the web process
    monkeypatch.setattr(documents, "_entries", lambda *a, **k: pytest.fail("made again"))
    assert [entry.kind for entry in documents.index_of(version).entries].count("Node") == 2


def test_a_text_over_the_limit_once_tidied_is_refused_in_the_user_s_words_and_nothing_is_saved(
    tmp_path, settings, sent
):
    data = support.scenario_text(nodes=30, pending=5).encode()
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "a.yaml", data)])
    settings.SCHEDLAB_MAX_BYTES = 1000  # lowered after it was received
    uploads.read(upload.pk, "w1")
    row = Upload.objects.get(pk=upload.pk)
    assert (row.status, row.what, row.details) == (UploadStatus.FAILED, "refused", {"limit": "max_bytes", "max": 1000})
    assert row.error.startswith("the scenario is ") and "SCHEDLAB_MAX_BYTES=" in row.error
    assert not Scenario.objects.exists()
    assert (Path(settings.SCHEDLAB_UPLOAD_DIR) / row.files[0]["path"]).read_bytes() == data  # kept as sent


def test_a_file_that_is_not_text_fails_naming_it(tmp_path, sent):
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "blob.bin", b"\xff\xfe\x00garbage")])
    uploads.read(upload.pk, "w1")
    row = Upload.objects.get(pk=upload.pk)
    assert row.status == UploadStatus.FAILED
    assert row.error == "blob.bin is not UTF-8 text (nor a .tar, .tar.gz, .tgz or .zip archive)"


def test_no_file_is_refused():
    with pytest.raises(DomainError, match="no file was uploaded"):
        uploads.receive(OWNER, "x", [])


def test_only_its_uploader_reads_it(tmp_path, sent):
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "a.yaml", b"kind: List\n")])
    assert uploads.readable_upload(OWNER, upload.pk) == upload
    with pytest.raises(NotFound):
        uploads.readable_upload(Actor(session_key="s" * 32), upload.pk)
    with pytest.raises(NotFound):
        uploads.readable_upload(OWNER, upload.pk + 1)


def test_a_kubectl_json_list_reports_the_objects_tidied_as_it_goes(monkeypatch, tmp_path, sent):
    items = [yaml.safe_load(support.node_yaml(f"n{i}", "a")) for i in range(5)]
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode()
    monkeypatch.setattr(uploads, "REPORT_SECONDS", 0.0)
    monkeypatch.setattr(uploads.imports.listtidy, "PROGRESS_EVERY", 2)
    seen: list[tuple[str, int]] = []
    monkeypatch.setattr(
        uploads.publisher,
        "publish_upload",
        lambda pk: seen.append(tuple(Upload.objects.filter(pk=pk).values_list("what", "objects_read").get())),
    )
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "dump.json", data)])
    uploads.read(upload.pk, "w1")
    tidied = [entry for entry in seen if entry[0].startswith("tidying the text: ")]
    assert [objects for _what, objects in tidied] == [2, 4, 5]
    assert [what.split(" objects")[0] for what, _objects in tidied] == [f"tidying the text: {n}" for n in (2, 4, 5)]
    assert tidied[-1][0].endswith("objects (100%)")
    assert seen[-1] == ("saved", 5)
    assert Upload.objects.get(pk=upload.pk).version.text.startswith("apiVersion: v1\nkind: Node\n")


def test_signing_in_while_it_waits_makes_the_scenario_it_becomes_the_account_s(tmp_path, sent):
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=1, pending=1).encode())]
    )
    user = User.objects.create_user("ada")
    assert accounts.claim(OWNER.session_key, user).uploads == 1
    uploads.read(upload.pk, "w1")
    scenario = Upload.objects.get(pk=upload.pk).scenario
    assert scenario is not None and (scenario.owner_id, scenario.owner_session_key) == (user.pk, "")


# --- recovery --------------------------------------------------------------------------------------


def _reading(tmp_path, attempts: int, beat_seconds_ago: float) -> Upload:
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=1, pending=1).encode())]
    )
    Upload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.READING,
        claimed_by="dead-worker",
        attempts=attempts,
        heartbeat=timezone.now() - timedelta(seconds=beat_seconds_ago),
    )
    return Upload.objects.get(pk=upload.pk)


def test_an_upload_whose_worker_died_is_sent_again_and_read_from_its_kept_files(
    tmp_path, sent, django_capture_on_commit_callbacks
):
    upload = _reading(tmp_path, attempts=1, beat_seconds_ago=120)
    with django_capture_on_commit_callbacks(execute=True):
        assert uploads.sweep_stale_uploads() == 1
    row = Upload.objects.get(pk=upload.pk)
    assert (row.status, row.enqueues, sent) == (UploadStatus.QUEUED, 2, [upload.pk])
    assert "saved" in uploads.read(upload.pk, "w2")
    assert Upload.objects.get(pk=upload.pk).attempts == 2


def test_an_upload_beating_is_left_alone_and_one_out_of_tries_fails_saying_why(tmp_path, sent):
    alive = _reading(tmp_path, attempts=1, beat_seconds_ago=5)
    spent = _reading(tmp_path, attempts=3, beat_seconds_ago=120)
    assert uploads.sweep_stale_uploads() == 1
    assert Upload.objects.get(pk=alive.pk).status == UploadStatus.READING
    row = Upload.objects.get(pk=spent.pk)
    assert row.status == UploadStatus.FAILED
    assert row.error.startswith("no worker finished reading it after 3 tries (SCHEDLAB_MAX_RUN_ATTEMPTS)")


def test_a_queued_upload_whose_message_was_lost_is_sent_again_when_no_upload_is_being_read(
    tmp_path, sent, django_capture_on_commit_callbacks
):
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "a.yaml", b"kind: List\n")])
    Upload.objects.filter(pk=upload.pk).update(queued_at=timezone.now() - timedelta(minutes=5))
    alive = _reading(tmp_path, attempts=1, beat_seconds_ago=5)
    assert uploads.sweep_stale_uploads() == 0  # a worker is reading: the queue may just be long
    Upload.objects.filter(pk=alive.pk).update(status=UploadStatus.SUCCEEDED)
    with django_capture_on_commit_callbacks(execute=True):
        found = uploads.readable_upload(OWNER, upload.pk)  # read through the API: recovered there too
    assert (found.status, found.enqueues, sent) == (UploadStatus.QUEUED, 2, [upload.pk])


def test_a_worker_whose_upload_was_given_to_another_saves_nothing(tmp_path, sent, monkeypatch):
    upload = uploads.receive(
        OWNER, "x", [received(tmp_path, "a.yaml", support.scenario_text(nodes=1, pending=1).encode())]
    )
    check = uploads.engine.check

    def recovered_meanwhile(text: str):
        Upload.objects.filter(pk=upload.pk).update(claimed_by="w2")  # its heartbeat went stale: requeued, reclaimed
        return check(text)

    monkeypatch.setattr(uploads.engine, "check", recovered_meanwhile)
    assert uploads.read(upload.pk, "w1") == f"upload {upload.pk}: no longer this worker's"
    assert not Scenario.objects.exists()


def test_a_directory_no_upload_owns_does_not_stop_a_new_one(tmp_path, upload_dir, sent):
    (upload_dir / "1").mkdir(parents=True)
    (upload_dir / "1" / "0").write_bytes(b"from a database since reset")
    upload = uploads.receive(OWNER, "x", [received(tmp_path, "a.yaml", b"kind: List\n")])
    assert (upload_dir / str(upload.pk) / "0").read_bytes() == b"kind: List\n"
