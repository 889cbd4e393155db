"""/api/uploads (webui/routers/uploads.py): a big upload streams to disk, is refused while it streams
when over SCHEDLAB_MAX_BYTES (in the user's words, nothing kept), and otherwise answers 202 at once;
the long-work worker's task then makes it a scenario's version, or refuses it naming file and line."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.webui import support
from webui.models import ScenarioVersion, Upload
from webui.services import uploads
from webui.tasks import read_upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path) -> Path:
    settings.SCHEDLAB_UPLOAD_DIR = str(tmp_path / "uploads")
    return tmp_path / "uploads"


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """Stands in for the long-work queue: what would be sent to it."""
    queued: list[int] = []
    monkeypatch.setattr(uploads, "_send", queued.append)
    return queued


def post(client: Client, *files: SimpleUploadedFile, name: str = ""):
    data: dict[str, object] = {"file": list(files)}
    if name:
        data["name"] = name
    return client.post("/api/uploads", data)


def kept_files(upload_dir: Path) -> list[Path]:
    return sorted(p for p in upload_dir.rglob("*") if p.is_file())


def test_a_good_upload_is_kept_as_sent_and_becomes_a_version_after_the_task(
    owner: Client, upload_dir: Path, sent: list[int], django_capture_on_commit_callbacks
):
    text = support.scenario_text(nodes=3, pending=2)
    with django_capture_on_commit_callbacks(execute=True):
        response = post(owner, SimpleUploadedFile("cluster.yaml", text.encode()), name="big one")
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["name"], body["size"]) == ("queued", "big one", len(text.encode()))
    assert body["files"] == [{"name": "cluster.yaml", "size": len(text.encode())}]
    assert sent == [body["id"]]
    # The file is kept exactly as sent; nothing is left where it streamed in.
    assert [p.read_bytes() for p in kept_files(upload_dir)] == [text.encode()]
    assert not list((upload_dir / "incoming").iterdir())

    read_upload(body["id"])  # what the long-work worker does

    done = owner.get(f"/api/uploads/{body['id']}").json()
    assert done["status"] == "succeeded"
    assert done["valid"] is True
    assert done["summary"] == {"nodes": 3, "pods": 2, "pendingPods": 2}
    assert done["progress"]["bytesRead"] == len(text.encode())
    assert done["progress"]["objectsRead"] == 5
    version = ScenarioVersion.objects.get(scenario_id=done["scenario"], number=done["version"])
    assert version.number == 1
    assert version.text == text
    scenario = owner.get(f"/api/scenarios/{done['scenario']}").json()
    assert (scenario["name"], scenario["text"], scenario["owned"]) == ("big one", text, True)


def test_an_upload_over_the_limit_is_refused_while_it_streams_in_the_user_s_words(
    owner: Client, settings, upload_dir: Path, sent: list[int]
):
    settings.SCHEDLAB_MAX_BYTES = 1024 * 1024
    # Its Content-Length is within the multipart allowance: refused at the chunk past the limit.
    data = b"# padding\n" * 110_500  # 1.05 MB
    response = post(owner, SimpleUploadedFile("cluster.yaml", data))
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "limit_exceeded"
    assert error["details"] == {"limit": "max_bytes", "max": 1024 * 1024}
    assert error["message"].startswith("the upload is 1.1 MB, more than the limit of 1 MB; ")
    assert "SCHEDLAB_MAX_BYTES=" in error["message"]
    assert not Upload.objects.exists() and sent == []
    # Just past the limit, the size is said in bytes (both would read "1 MB").
    response = post(owner, SimpleUploadedFile("cluster.yaml", data[:1_050_000]))
    assert response.json()["error"]["message"].startswith("the upload is 1050")
    assert "bytes, more than the limit of 1 MB (1048576 bytes); " in response.json()["error"]["message"]
    assert kept_files(upload_dir) == []  # the part that streamed in is gone


def test_an_upload_whose_length_says_it_is_over_the_limit_is_refused_before_it_is_read(
    owner: Client, settings, upload_dir: Path
):
    settings.SCHEDLAB_MAX_BYTES = 1024 * 1024
    response = post(owner, SimpleUploadedFile("cluster.yaml", b"x" * (3 * 1024 * 1024)))
    assert response.status_code == 413
    message = response.json()["error"]["message"]
    assert message.startswith("the upload is 3 MB, more than the limit of 1 MB; this server's administrator raises")
    assert kept_files(upload_dir) == []


def test_an_upload_without_a_file_is_refused(owner: Client):
    response = owner.post("/api/uploads", {"name": "nothing"})
    assert response.status_code == 422


def test_an_archive_that_does_not_read_fails_naming_file_and_line_and_keeps_what_was_sent(
    owner: Client, upload_dir: Path, sent: list[int], django_capture_on_commit_callbacks
):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("nodes.yaml", support.node_yaml("n1", "a"))
        archive.writestr("pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [oops\n")
    with django_capture_on_commit_callbacks(execute=True):
        body = post(owner, SimpleUploadedFile("bundle.zip", buffer.getvalue())).json()
    read_upload(sent[0])
    done = owner.get(f"/api/uploads/{body['id']}").json()
    assert done["status"] == "failed"
    assert done["scenario"] is None and done["version"] is None
    assert done["errors"] and done["errors"][0]["file"] == "bundle.zip:pods.yaml"
    assert done["errors"][0]["line"] is not None
    assert [p.read_bytes() for p in kept_files(upload_dir)] == [buffer.getvalue()]


def test_a_text_with_problems_is_saved_as_a_version_with_each_problem_located(
    owner: Client, sent: list[int], django_capture_on_commit_callbacks
):
    text = (
        support.node_yaml("n1", "a")
        + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelectr: {}\n"
    )
    with django_capture_on_commit_callbacks(execute=True):
        body = post(owner, SimpleUploadedFile("cluster.yaml", text.encode())).json()
    read_upload(sent[0])
    done = owner.get(f"/api/uploads/{body['id']}").json()
    assert (done["status"], done["valid"], done["version"]) == ("succeeded", False, 1)
    spec = text.split("\n").index("spec:", text.count("\n") - 3) + 1  # the pod's `spec:` line
    problems = {(e["path"], e["line"]) for e in done["errors"]}
    assert problems == {("spec.containers", spec), ("spec.nodeSelectr", spec + 1)}
    assert all("p" in e["object"] for e in done["errors"])


def test_only_its_uploader_reads_an_upload(owner: Client, stranger: Client, sent: list[int]):
    body = post(owner, SimpleUploadedFile("cluster.yaml", b"kind: List\n")).json()
    assert stranger.get(f"/api/uploads/{body['id']}").status_code == 404
    assert owner.get(f"/api/uploads/{body['id']}").status_code == 200


# --- POST /api/uploads/file: one file as the raw body (what the browser sends) -----------------------


def post_body(client: Client, data: bytes, filename: str = "cluster.json", name: str = ""):
    query = f"filename={filename}" + (f"&name={name}" if name else "")
    return client.post(f"/api/uploads/file?{query}", data, content_type="application/octet-stream")


def test_a_raw_body_upload_is_kept_as_sent_and_becomes_a_version_after_the_task(
    owner: Client, upload_dir: Path, sent: list[int], django_capture_on_commit_callbacks
):
    text = support.scenario_text(nodes=2, pending=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_body(owner, text.encode(), "../../etc/cluster.yaml")
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["name"], body["files"]) == (
        "queued",
        "cluster.yaml",  # a path in the name is not followed
        [{"name": "cluster.yaml", "size": len(text.encode())}],
    )
    assert [p.read_bytes() for p in kept_files(upload_dir)] == [text.encode()]
    read_upload(sent[0])
    done = owner.get(f"/api/uploads/{body['id']}").json()
    assert (done["status"], done["valid"], done["version"]) == ("succeeded", True, 1)
    assert ScenarioVersion.objects.get(scenario_id=done["scenario"]).text == text


def test_a_raw_body_over_the_limit_is_refused_in_the_user_s_words_and_nothing_is_kept(
    owner: Client, settings, upload_dir: Path, sent: list[int]
):
    settings.SCHEDLAB_MAX_BYTES = 1024 * 1024
    response = post_body(owner, b"x" * (3 * 1024 * 1024))
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["details"] == {"limit": "max_bytes", "max": 1024 * 1024}
    assert error["message"] == (
        "the upload is 3 MB, more than the limit of 1 MB; this server's administrator raises it with "
        "SCHEDLAB_MAX_BYTES=4194304 (4 MB)"  # room above the size, as every refusal says
    )
    assert kept_files(upload_dir) == [] and not Upload.objects.exists() and sent == []


def test_a_raw_body_without_a_file_name_is_refused(owner: Client):
    response = owner.post("/api/uploads/file", b"kind: List\n", content_type="application/octet-stream")
    assert response.status_code == 422
