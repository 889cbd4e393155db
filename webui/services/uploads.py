"""Big uploads (issue 50): the request only stores the files (streamed to disk as they arrive:
webui/upload_handler.py) and answers; a worker of the long-work queue reads them — bytes as they are
read, then the objects — tidies and checks the text exactly as an import does (services/imports.py),
and saves it as version 1 of a new scenario. Its progress is in the Upload row, and over
/ws/uploads/<id>/ (upload_consumer.py); a problem is kept with its object, field path and line.

The files stay under SCHEDLAB_UPLOAD_DIR/<id>/ exactly as uploaded, whatever became of them: what the
user gave is never lost nor rewritten (the version is what the import made of it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from webui import publisher
from webui.models import Upload, UploadStatus
from webui.services import engine, imports, scenarios
from webui.services.access import Actor
from webui.services.errors import DomainError, NotFound

log = logging.getLogger(__name__)

UPLOAD_TASK = "webui.tasks.read_upload"  # sent by name: webui.tasks imports this module
CHUNK = 8 * 1024 * 1024  # read 8 MiB at a time
REPORT_SECONDS = 0.5  # progress written (and announced) at most this often while reading


class Received:
    """What the request stored of one file: its name as uploaded, and the file under the upload dir
    (StoredUpload, webui/upload_handler.py)."""

    def __init__(self, name: str, size: int, keep_at: Callable[[Path], None]) -> None:
        self.name = name
        self.size = size
        self.keep_at = keep_at


def upload_dir(upload_id: int) -> Path:
    return Path(settings.SCHEDLAB_UPLOAD_DIR) / str(upload_id)


def receive(actor: Actor, name: str, files: Sequence[Received]) -> Upload:
    """Keep the streamed files as the upload's, and send it to a long-work worker once saved."""
    if not files:
        raise DomainError("no file was uploaded (the multipart field is `file`)")
    title = (name or imports.title_of([imports.Upload(f.name, b"") for f in files]) or "Uploaded scenario")[:200]
    with transaction.atomic():
        upload = Upload.objects.create(name=title, size=sum(f.size for f in files), **actor.owner_fields())
        kept = []
        for number, received in enumerate(files):
            path = upload_dir(upload.pk) / f"{number}"
            received.keep_at(path)
            kept.append(
                {
                    "name": received.name,
                    "path": str(path.relative_to(settings.SCHEDLAB_UPLOAD_DIR)),
                    "size": received.size,
                }
            )
        upload.files = kept
        upload.save(update_fields=["files"])
        transaction.on_commit(lambda: _send(upload.pk), robust=True)
    return upload


def _send(upload_id: int) -> None:
    current_app.send_task(UPLOAD_TASK, args=[upload_id])  # routed to the long-work queue


def readable_upload(actor: Actor, upload_id: int) -> Upload:
    found = Upload.objects.filter(pk=upload_id).first()
    if found is None or actor.share is not None or not actor.owns(found):
        raise NotFound(f"upload {upload_id} not found")
    return found


# --- the worker's side ----------------------------------------------------------------------------


class _Progress:
    """Writes the upload's progress to its row (and tells its watchers) at most every REPORT_SECONDS."""

    def __init__(self, upload_id: int) -> None:
        self.upload_id = upload_id
        self.last = 0.0

    def __call__(self, force: bool = False, **fields: object) -> None:
        now = time.monotonic()
        if not force and now - self.last < REPORT_SECONDS:
            return
        self.last = now
        Upload.objects.filter(pk=self.upload_id).update(**fields)
        publisher.publish_upload(self.upload_id)


def read(upload_id: int, worker: str) -> str:
    """The task's work: claim the upload, read its files, save the version (or the problems)."""
    claimed = Upload.objects.filter(pk=upload_id, status=UploadStatus.QUEUED).update(
        status=UploadStatus.READING, claimed_by=worker, started=timezone.now(), what="reading the file"
    )
    if not claimed:
        return f"upload {upload_id}: not queued (finished, or read elsewhere)"
    upload = Upload.objects.get(pk=upload_id)
    progress = _Progress(upload_id)
    publisher.publish_upload(upload_id)
    try:
        files = _read_files(upload, progress)
        progress(force=True, what="tidying the text", bytes_read=upload.size)
        text = imports.upload_text(
            files, lambda done, total: progress(what=f"tidying the text: {done} of {total} objects", objects_read=done)
        )
        del files
        engine.enforce_size(text)
        progress(force=True, what="checking what was read")
        # Its owner now: a sign-in meanwhile made the upload its account's (services/accounts.py claim).
        owner_id, session_key = Upload.objects.values_list("owner_id", "owner_session_key").get(pk=upload_id)
        actor = Actor(user_id=owner_id, session_key=session_key)
        saved = scenarios.create(actor, upload.name, text)  # checked here, in the worker
        check = saved.check
        assert check is not None  # create() checks unless told to check later
    except DomainError as exc:
        _finish(
            upload_id,
            UploadStatus.FAILED,
            error=exc.message,
            errors=exc.details.get("errors", []),
            details=_details(exc),
        )
        return f"upload {upload_id}: failed ({exc.code})"
    summary = check.summary
    _finish(
        upload_id,
        UploadStatus.SUCCEEDED,
        scenario=saved.scenario,
        version=saved.version,
        valid=check.valid,
        errors=check.errors,
        objects_read=sum(check.objects.values()),
        summary=None
        if summary is None
        else {"nodes": summary.nodes, "pods": summary.pods, "pendingPods": summary.pending_pods},
    )
    return f"upload {upload_id}: saved as scenario {saved.scenario.pk} version {saved.version.number}"


def _details(exc: DomainError) -> dict[str, object]:
    return {key: value for key, value in exc.details.items() if key != "errors"}


def _finish(upload_id: int, status: UploadStatus, **fields: object) -> None:
    what = "saved" if status == UploadStatus.SUCCEEDED else "refused"
    Upload.objects.filter(pk=upload_id).update(status=status, what=what, finished=timezone.now(), **fields)
    publisher.publish_upload(upload_id)


def _read_files(upload: Upload, progress: _Progress) -> list[imports.Upload]:
    """Each file's bytes, read CHUNK at a time with the bytes read so far reported."""
    root = Path(settings.SCHEDLAB_UPLOAD_DIR)
    done = 0
    out = []
    for stored in upload.files:
        chunks = []
        with open(root / stored["path"], "rb") as handle:
            while chunk := handle.read(CHUNK):
                chunks.append(chunk)
                done += len(chunk)
                progress(bytes_read=done, what=f"reading {stored['name']}")
        out.append(imports.Upload(name=stored["name"], data=b"".join(chunks)))
    return out
