"""/api/validate: scenario text checked as the engine loads it, without saving it (what the editor asks
as you type). Mounted at /api/validate (webui/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from webui import presenters
from webui.schemas.common import ErrorOut
from webui.schemas.validate import TextIn, ValidationOut
from webui.services import engine

router = Router(tags=["validate"], by_alias=True)


@router.post("", response={200: ValidationOut, 413: ErrorOut}, summary="Check scenario text without saving it")
def validate(request: HttpRequest, body: TextIn) -> ValidationOut:
    """Validates YAML text as the engine loads it: 200 with every problem (object, field path, line, message) and a
    summary of nodes and pods; 413 limit_exceeded when the text is over a size limit.
    """
    engine.enforce_size(body.text)
    check = engine.check(body.text)
    if check.over_limit is not None:
        raise check.over_limit
    return presenters.validation(check)
