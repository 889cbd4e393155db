"""/api/uploads: big uploads (issue 50). The request streams its files to disk (webui/upload_handler.py:
the size limit enforced as they arrive) and answers 202 at once; a long-work worker reads, checks and
saves them as a new scenario's version 1 (services/uploads.py), its progress over /ws/uploads/<id>/.
Mounted at /api/uploads (webui/api.py)."""

from __future__ import annotations

from ninja import File, Form, Router, Status
from ninja.files import UploadedFile

from webui import presenters
from webui.schemas.common import ERRORS
from webui.schemas.uploads import UploadOut
from webui.services import uploads
from webui.services.access import ActorRequest
from webui.services.errors import DomainError
from webui.upload_handler import StoredUpload, body_to_disk

router = Router(tags=["uploads"], by_alias=True)


@router.post("", response={202: UploadOut, **ERRORS}, summary="Upload a big dump to be read in the background")
def upload_create(request: ActorRequest, file: File[list[UploadedFile]], name: Form[str] = "") -> Status[UploadOut]:
    """Multipart: one or more files (repeat `file`), one of them possibly an archive, as
    `POST /api/scenarios/import` takes them, (+ `name`). The body streams to disk as it arrives and is
    never held whole in memory; over `SCHEDLAB_MAX_BYTES` it is refused at once (413 `limit_exceeded`
    `max_bytes`, the size in MB, the limit and the setting that raises it) and nothing is kept. Answers
    202 with the upload queued: a worker of the long-work queue reads it (progress: GET
    /api/uploads/{id}, or /ws/uploads/{id}/), then it is version 1 of a new scenario (`scenario`,
    `version`), or `failed` with every problem (`errors`: file, object, field path, line). The files are
    kept as uploaded either way."""
    stored = [_stored(f) for f in file]
    received = [uploads.Received(f.name or "upload", f.size or 0, f.keep_at) for f in stored]
    return Status(202, presenters.upload(uploads.receive(request.auth, name, received)))


@router.post("/file", response={202: UploadOut, **ERRORS}, summary="Upload one big file as the request's body")
def upload_body(request: ActorRequest, filename: str, name: str = "") -> Status[UploadOut]:
    """One file (a dump, or an archive) as the request's raw body — what the browser sends — named by
    `?filename=` (`name`:
    the scenario's, by default the file's). Otherwise as the multipart POST /api/uploads: copied to
    disk a chunk at a time, refused over `SCHEDLAB_MAX_BYTES` (413 `limit_exceeded` `max_bytes`) with
    nothing kept, 202 with the upload queued for a long-work worker."""
    stored = body_to_disk(request, filename[:255] or "upload")
    try:
        received = [uploads.Received(stored.name or "upload", stored.size or 0, stored.keep_at)]
        return Status(202, presenters.upload(uploads.receive(request.auth, name, received)))
    finally:
        stored.close()


def _stored(file: UploadedFile) -> StoredUpload:
    if not isinstance(file, StoredUpload):  # pragma: no cover - the middleware always puts its handler in place
        raise DomainError("the upload was not streamed to disk")
    return file


@router.get("/{int:upload_id}", response={200: UploadOut, **ERRORS}, summary="Read a big upload")
def upload_detail(request: ActorRequest, upload_id: int) -> UploadOut:
    """Where its worker is (`progress`: bytes read of `size`, then the objects read), then the version
    it became or why it was refused (`error`, `errors`). Yours only (404 otherwise)."""
    return presenters.upload(uploads.readable_upload(request.auth, upload_id))
