"""/api/uploads: a big upload streamed to disk, then read, checked and saved as a scenario's version by
a long-work worker (webui/routers/uploads.py; docs/WEB_API.md, "Big uploads")."""

from __future__ import annotations

from datetime import datetime

from webui.schemas.common import ApiSchema
from webui.schemas.validate import ScenarioErrorOut, SummaryOut


class UploadFileOut(ApiSchema):
    name: str  # as uploaded
    size: int  # bytes


class UploadProgressOut(ApiSchema):
    what: str  # the step under way ("reading cluster.json", "checking what was read", "saved", "refused")
    bytes_read: int  # of the upload's size, read by the worker so far
    objects_read: int  # the objects the saved version holds (0 until it is checked)


class UploadOut(ApiSchema):
    id: int
    name: str  # the scenario's name
    files: list[UploadFileOut]  # kept on the server exactly as uploaded
    size: int
    status: str  # queued | reading | succeeded | failed
    progress: UploadProgressOut
    error: str  # why it was refused (failed), in the user's words
    errors: list[ScenarioErrorOut]  # every problem with its file, object, field path and line
    details: dict[str, object] | None  # a refusal's {limit, max}, as the API's 413 says them
    scenario: int | None  # the scenario it became (succeeded)
    version: int | None  # its version number
    valid: bool | None  # whether that version checks valid (its problems: errors)
    summary: SummaryOut | None
    created: datetime
    started: datetime | None
    finished: datetime | None
