"""A big upload streamed to disk as it arrives (issue 50): POST /api/uploads's files go, chunk by chunk,
into a file under SCHEDLAB_UPLOAD_DIR, never whole into the web process's memory, and the size limit
(SCHEDLAB_MAX_BYTES) is enforced while they stream — the request is refused at the first chunk past it
(or at once, when its Content-Length already says so), naming the size in MB, the limit and the
setting that raises it. A refused or broken upload leaves no file behind.

Two ways in. The browser sends one file as the request's raw body (POST /api/uploads/file, read here
by ``body_to_disk``). A multipart POST /api/uploads (several files, curl -F) is read by Django through
the request's upload handlers when anything first touches request.POST or request.FILES (the API's
CSRF check does): the middleware below puts StreamToDiskHandler alone in place for it before that
happens; every other request keeps Django's. Either way the web process holds the body once, briefly:
daphne hands any body over as a queue of 8 KiB chunks, and Django spools it to disk past
SCHEDLAB_UPLOAD_MEMORY_BYTES before the view reads it. (daphne's Twisted request would also parse a
multipart body whole into memory first, ~11 times its size: webui/asgi.py turns that off.)
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse

from webui.services import engine
from webui.services.errors import LimitExceeded

UPLOADS_PATH = "/api/uploads"
CHUNK = 1024 * 1024  # a raw body is copied to disk 1 MiB at a time
# What a multipart body adds around its files (boundaries, part headers, the name field): a request
# whose Content-Length is over the limit by more than this is refused before a byte of it is read.
MULTIPART_ALLOWANCE = 64 * 1024


def incoming_dir() -> Path:
    """Where files land while they stream in (the same file system as where they are kept)."""
    path = Path(settings.SCHEDLAB_UPLOAD_DIR) / "incoming"
    path.mkdir(parents=True, exist_ok=True)
    return path


if TYPE_CHECKING:
    _UploadedBytes = UploadedFile[bytes]  # generic in Django's stubs only
else:
    _UploadedBytes = UploadedFile


class StoredUpload(_UploadedBytes):
    """One streamed file, on disk under the upload dir: deleted when closed unless kept (keep_at)."""

    def __init__(self, file: IO[bytes], name: str, content_type: str, size: int, charset: str | None) -> None:
        super().__init__(file, name, content_type, size, charset)
        self.stored = file

    def temporary_file_path(self) -> str:
        return str(self.stored.name)

    def keep_at(self, path: Path) -> None:
        """Keep the file's bytes at ``path`` (a hard link: nothing is copied) before it is closed."""
        self.stored.flush()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.hardlink_to(self.temporary_file_path())


def refusal(size: int | None) -> LimitExceeded:
    """The upload is over SCHEDLAB_MAX_BYTES: its size (when known) in MB, the limit, the setting."""
    return engine.size_refusal("the upload", size)


def body_to_disk(request: HttpRequest, file_name: str) -> StoredUpload:
    """The request's raw body, copied to a file under the upload dir a chunk at a time: refused at once
    when its Content-Length is over SCHEDLAB_MAX_BYTES, else at the first chunk past it (the part
    written goes). The caller closes it (keep_at first, to keep it)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.SCHEDLAB_MAX_BYTES:
        raise refusal(length)
    stored = tempfile.NamedTemporaryFile(dir=incoming_dir(), prefix="upload-", suffix=".part")  # noqa: SIM115 - returned
    size = 0
    while chunk := request.read(CHUNK):
        size += len(chunk)
        if size > settings.SCHEDLAB_MAX_BYTES:
            stored.close()
            raise refusal(length or None)
        stored.write(chunk)
    stored.flush()
    return StoredUpload(stored, file_name, request.content_type or "", size, None)


class StreamToDiskHandler(FileUploadHandler):
    """Writes each file's chunks to its own file under the upload dir, counting the bytes of all of them."""

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.received = 0
        self.request_length: int | None = None
        self.file: IO[bytes] | None = None

    def handle_raw_input(
        self,
        input_data: IO[bytes],
        META: dict[str, Any],  # noqa: N803 - Django's name
        content_length: int,
        boundary: str,
        encoding: str | None = None,
    ) -> None:
        self.request_length = content_length or None
        if content_length and content_length > settings.SCHEDLAB_MAX_BYTES + MULTIPART_ALLOWANCE:
            raise refusal(content_length)

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        # Closed when the request ends (Django closes its uploaded files), or by upload_interrupted.
        self.file = tempfile.NamedTemporaryFile(dir=incoming_dir(), prefix="upload-", suffix=".part")  # noqa: SIM115

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > settings.SCHEDLAB_MAX_BYTES:
            self.upload_interrupted()  # the part written so far goes at once
            raise refusal(self.request_length)
        assert self.file is not None
        self.file.write(raw_data)
        return None  # written: no other handler sees it

    def file_complete(self, file_size: int) -> UploadedFile[bytes]:
        assert self.file is not None
        self.file.flush()
        self.file.seek(0)
        name = self.file_name or "upload"
        stored = StoredUpload(self.file, name, self.content_type or "", file_size, self.charset)
        self.file = None
        return stored

    def upload_interrupted(self) -> None:
        if self.file is not None:
            self.file.close()  # a NamedTemporaryFile: gone with its close
            self.file = None


class UploadStreamingMiddleware:
    """Puts StreamToDiskHandler in place for POST /api/uploads, before anything reads the body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path.rstrip("/") == UPLOADS_PATH:
            request.upload_handlers = [StreamToDiskHandler(request)]
        return self.get_response(request)
