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
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from webui import publisher
from webui.models import Upload, UploadStatus
from webui.services import documents, engine, imports, scenarios
from webui.services.access import Actor
from webui.services.errors import DomainError, NotFound

log = logging.getLogger(__name__)

UPLOAD_TASK = "webui.tasks.read_upload"  # sent by name: webui.tasks imports this module
CHUNK = 8 * 1024 * 1024  # read 8 MiB at a time
REPORT_SECONDS = 0.5  # progress written (and announced) at most this often while reading
HEARTBEAT_SECONDS = 10.0  # the reading worker says it is alive this often (a check is one long call)


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
        shutil.rmtree(upload_dir(upload.pk), ignore_errors=True)  # left by a database since reset: no row's
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


def forget_files(upload_ids: Sequence[int]) -> None:
    """The files of uploads whose rows are gone (their account deleted): removed from the upload dir."""
    for upload_id in upload_ids:
        shutil.rmtree(upload_dir(upload_id), ignore_errors=True)


def _send(upload_id: int) -> None:
    current_app.send_task(UPLOAD_TASK, args=[upload_id])  # routed to the long-work queue


def readable_upload(actor: Actor, upload_id: int) -> Upload:
    """The uploader's (recovered first when a dead worker or a lost message left it behind)."""
    found = Upload.objects.filter(pk=upload_id).first()
    if found is None or actor.share is not None or not actor.owns(found):
        raise NotFound(f"upload {upload_id} not found")
    return recover_if_stale(found)


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


class _Heartbeat(threading.Thread):
    """Tells the row the worker is alive every HEARTBEAT_SECONDS while it reads (recovery requeues an
    upload whose heartbeat went stale: its worker died)."""

    def __init__(self, upload_id: int, worker: str) -> None:
        super().__init__(name=f"schedlab-upload-{upload_id}", daemon=True)
        self.mine = Upload.objects.filter(pk=upload_id, claimed_by=worker, status=UploadStatus.READING)
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(HEARTBEAT_SECONDS):
                self.mine.update(heartbeat=timezone.now())
        except Exception:  # the database gone for a moment: recovery decides, not this thread
            log.exception("an upload's heartbeat failed")
        finally:
            connection.close()  # this thread's own connection


def read(upload_id: int, worker: str) -> str:
    """The task's work: claim the upload, read its files, save the version (or the problems)."""
    now = timezone.now()
    claimed = Upload.objects.filter(pk=upload_id, status=UploadStatus.QUEUED).update(
        status=UploadStatus.READING,
        claimed_by=worker,
        started=now,
        heartbeat=now,
        attempts=F("attempts") + 1,
        what="reading the file",
    )
    if not claimed:
        return f"upload {upload_id}: not queued (finished, or read elsewhere)"
    heartbeat = _Heartbeat(upload_id, worker)
    heartbeat.start()
    try:
        # The collector paused until the upload is read and told: its first pass after a big read
        # walks every object read and finds nothing (~1.2 s of the envelope's read, between its check
        # and its save); it walks them once the user has the answer.
        with engine.collector_paused():
            return _read(upload_id, worker)
    except (Upload.DoesNotExist, FileNotFoundError):
        return f"upload {upload_id}: deleted meanwhile (its account was)"
    finally:
        heartbeat.stopped.set()
        heartbeat.join()


def _read(upload_id: int, worker: str) -> str:
    upload = Upload.objects.get(pk=upload_id)
    progress = _Progress(upload_id)
    publisher.publish_upload(upload_id)
    try:
        files = _read_files(upload, progress)
        progress(force=True, what="tidying the text", bytes_read=upload.size)
        text = imports.upload_text(
            files,
            lambda done, percent: progress(what=f"tidying the text: {done:,} objects ({percent}%)", objects_read=done),
            let_go=True,  # one file's bytes go once decoded: a 262 MB JSON List is not held twice while tidied
            second_process=True,  # a big JSON List's second half of items tidied by a forked child meanwhile
        )
        del files
        engine.enforce_size(text)
        progress(force=True, what="checking what was read")
        # Its owner now: a sign-in meanwhile made the upload its account's (services/accounts.py claim).
        owner_id, session_key = Upload.objects.values_list("owner_id", "owner_session_key").get(pk=upload_id)
        actor = Actor(user_id=owner_id, session_key=session_key)
        # The scenario read is kept on disk for the run's worker by a forked child, and a big
        # text's index by another, while this process saves the text; both are there before the
        # upload is called read.
        with engine.kept_meanwhile() as kept, engine.digest_remembered(text):
            check = engine.check(text)  # here, in the worker (create() finds it done)
            summary = check.summary
            indexed = documents.index_meanwhile(text, kept)  # by a child, while this process saves
            with transaction.atomic():
                saved = scenarios.create(actor, upload.name, text)
                if documents.mode_of(saved.version) == "objects":
                    documents.keep_check(saved.version.digest, check)  # the editor's answer without checking again
                    if not indexed:  # its object list, kept on disk for the web process when shared
                        documents.index_of(saved.version)
                kept.wait()
                if not _finish(
                    upload_id,
                    worker,
                    UploadStatus.SUCCEEDED,
                    scenario=saved.scenario,
                    version=saved.version,
                    valid=check.valid,
                    errors=check.errors,
                    objects_read=sum(check.objects.values()),
                    summary=None
                    if summary is None
                    else {"nodes": summary.nodes, "pods": summary.pods, "pendingPods": summary.pending_pods},
                ):
                    transaction.set_rollback(True)  # recovery gave it to another worker meanwhile: saved once, there
                    return f"upload {upload_id}: no longer this worker's"
    except DomainError as exc:
        _finish(
            upload_id,
            worker,
            UploadStatus.FAILED,
            error=exc.message,
            errors=exc.details.get("errors", []),
            details=_details(exc),
        )
        publisher.publish_upload(upload_id)
        return f"upload {upload_id}: failed ({exc.code})"
    publisher.publish_upload(upload_id)
    return f"upload {upload_id}: saved as scenario {saved.scenario.pk} version {saved.version.number}"


def _details(exc: DomainError) -> dict[str, object]:
    return {key: value for key, value in exc.details.items() if key != "errors"}


def _finish(upload_id: int, worker: str, status: UploadStatus, **fields: object) -> bool:
    """Ends the upload as this worker's, if it still is (recovery may have given it to another)."""
    what = "saved" if status == UploadStatus.SUCCEEDED else "refused"
    mine = Upload.objects.filter(pk=upload_id, claimed_by=worker, status=UploadStatus.READING)
    return bool(mine.update(status=status, what=what, finished=timezone.now(), **fields))


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


# --- recovery -------------------------------------------------------------------------------------
# As for upgrade comparisons (services/upgrades.py): an upload whose worker stopped beating (killed,
# machine gone) is queued again and read from its kept files; a queued one whose message is gone
# (sent while the broker was down) is sent again once no upload is being read; either is failed with
# the reason once SCHEDLAB_MAX_RUN_ATTEMPTS tries are used up. Every worker sweeps (celery.py), and
# every read of it (GET /api/uploads/{id}).


def _stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS)


def _abandoned() -> Q:
    return Q(status=UploadStatus.READING, heartbeat__lt=_stale_before())


def _lost() -> Q:
    lost_before = timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS)
    return Q(status=UploadStatus.QUEUED, queued_at__lt=lost_before)


def _readers_idle() -> bool:
    return not Upload.objects.filter(status=UploadStatus.READING, heartbeat__gte=_stale_before()).exists()


def sweep_stale_uploads() -> int:
    """Recover every upload left behind; returns how many were found."""
    found = list(Upload.objects.filter(_abandoned()))
    if _readers_idle():
        found += list(Upload.objects.filter(_lost()))
    for upload in found:
        _recover(upload)
    return len(found)


def recover_if_stale(upload: Upload) -> Upload:
    stale = Upload.objects.filter(_abandoned(), pk=upload.pk).exists() or (
        Upload.objects.filter(_lost(), pk=upload.pk).exists() and _readers_idle()
    )
    if stale:
        _recover(upload)
        upload.refresh_from_db()
    return upload


def _recover(upload: Upload) -> None:
    tries = upload.attempts if upload.status == UploadStatus.READING else upload.enqueues - upload.attempts
    same = Upload.objects.filter(
        pk=upload.pk, status=upload.status, heartbeat=upload.heartbeat, queued_at=upload.queued_at
    )
    if tries >= settings.SCHEDLAB_MAX_RUN_ATTEMPTS:
        message = (
            f"no worker finished reading it after {tries} tries (SCHEDLAB_MAX_RUN_ATTEMPTS): the long-work "
            f"workers (queue {settings.SCHEDLAB_LONG_QUEUE}) stopped, or none is running; the files are kept "
            "as uploaded"
        )
        if same.update(status=UploadStatus.FAILED, what="refused", error=message, finished=timezone.now()):
            log.error("upload %s: %s", upload.pk, message)
    else:
        with transaction.atomic():
            if same.update(
                status=UploadStatus.QUEUED,
                claimed_by="",
                what="",
                queued_at=timezone.now(),
                enqueues=F("enqueues") + 1,
            ):
                log.warning("upload %s: left behind (%s); sending it again", upload.pk, upload.status)
                transaction.on_commit(lambda: _send(upload.pk), robust=True)
    publisher.publish_upload(upload.pk)
