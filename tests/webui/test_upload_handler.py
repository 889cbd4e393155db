"""webui/upload_handler.py: POST /api/uploads's files stream to disk under the upload dir, counted as
they arrive; past SCHEDLAB_MAX_BYTES the part written goes and the refusal names the size, the limit
and the setting; only that endpoint's requests get the handler."""

from __future__ import annotations

import io

import pytest
from django.test import RequestFactory

from webui.services.errors import LimitExceeded
from webui.upload_handler import StoredUpload, StreamToDiskHandler, UploadStreamingMiddleware, body_to_disk, refusal


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.SCHEDLAB_UPLOAD_DIR = str(tmp_path / "uploads")
    return tmp_path / "uploads"


def started(handler: StreamToDiskHandler, length: int) -> StreamToDiskHandler:
    handler.handle_raw_input(io.BytesIO(), {}, length, "b")
    handler.new_file("file", "cluster.json", "application/json", None)
    return handler


def test_chunks_go_to_a_file_under_the_upload_dir_kept_by_a_link(upload_dir, tmp_path):
    handler = started(StreamToDiskHandler(), 100)
    assert handler.receive_data_chunk(b"abc", 0) is None
    assert handler.receive_data_chunk(b"def", 3) is None
    stored = handler.file_complete(6)
    assert isinstance(stored, StoredUpload)
    assert (stored.name, stored.size) == ("cluster.json", 6)
    assert stored.temporary_file_path().startswith(str(upload_dir / "incoming"))
    stored.keep_at(tmp_path / "kept" / "0")
    stored.close()
    assert (tmp_path / "kept" / "0").read_bytes() == b"abcdef"
    assert list((upload_dir / "incoming").iterdir()) == []


def test_past_the_limit_the_part_written_goes(settings, upload_dir):
    settings.SCHEDLAB_MAX_BYTES = 5
    handler = started(StreamToDiskHandler(), 20)
    handler.receive_data_chunk(b"abc", 0)
    with pytest.raises(LimitExceeded) as refused:
        handler.receive_data_chunk(b"def", 3)
    assert refused.value.details == {"limit": "max_bytes", "max": 5}
    assert list((upload_dir / "incoming").iterdir()) == []


def test_a_length_over_the_limit_is_refused_before_a_byte_is_read(settings):
    settings.SCHEDLAB_MAX_BYTES = 1024 * 1024
    with pytest.raises(
        LimitExceeded, match=r"^the upload is 300 MB, more than the limit of 1 MB; .*SCHEDLAB_MAX_BYTES="
    ):
        StreamToDiskHandler().handle_raw_input(io.BytesIO(), {}, 300 * 1024 * 1024, "b")


def test_a_refusal_without_a_length_says_the_limit(settings):
    settings.SCHEDLAB_MAX_BYTES = 8 * 1024 * 1024
    assert refusal(None).message.startswith("the upload is more than the limit of 8 MB; this server's administrator")


def test_only_the_uploads_endpoint_gets_the_handler():
    middleware = UploadStreamingMiddleware(lambda request: request.upload_handlers)
    factory = RequestFactory()
    handlers = middleware(factory.post("/api/uploads"))
    assert [type(h) for h in handlers] == [StreamToDiskHandler]
    assert StreamToDiskHandler not in [type(h) for h in middleware(factory.post("/api/scenarios/import"))]
    assert StreamToDiskHandler not in [type(h) for h in middleware(factory.get("/api/uploads"))]


def test_a_raw_body_is_copied_to_disk_a_chunk_at_a_time(upload_dir, monkeypatch, tmp_path):
    monkeypatch.setattr("webui.upload_handler.CHUNK", 4)
    request = RequestFactory().post("/api/uploads/file", b"0123456789", content_type="application/octet-stream")
    stored = body_to_disk(request, "a.json")
    assert (stored.name, stored.size) == ("a.json", 10)
    stored.keep_at(tmp_path / "kept")
    stored.close()
    assert (tmp_path / "kept").read_bytes() == b"0123456789"
    assert list((upload_dir / "incoming").iterdir()) == []


def test_a_raw_body_past_the_limit_without_a_length_is_refused_at_the_chunk_past_it(settings, upload_dir, monkeypatch):
    settings.SCHEDLAB_MAX_BYTES = 6
    monkeypatch.setattr("webui.upload_handler.CHUNK", 4)
    request = RequestFactory().post("/api/uploads/file", b"0123456789", content_type="application/octet-stream")
    del request.META["CONTENT_LENGTH"]  # sent chunked: only counting tells
    with pytest.raises(LimitExceeded, match=r"^the upload is more than the limit of 6 bytes; "):
        body_to_disk(request, "a.json")
    assert list((upload_dir / "incoming").iterdir()) == []
