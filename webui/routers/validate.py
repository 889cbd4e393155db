"""/api/validate: scenario text checked as the engine loads it, without saving it (what the editor asks
as you type). Mounted at /api/validate (webui/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from webui import presenters
from webui.schemas.common import ErrorOut
from webui.schemas.validate import TextIn, ValidationOut
from webui.services import engine, releases

router = Router(tags=["validate"], by_alias=True)


@router.post(
    "", response={200: ValidationOut, 400: ErrorOut, 413: ErrorOut}, summary="Check scenario text without saving it"
)
def validate(request: HttpRequest, body: TextIn) -> ValidationOut:
    """Validates YAML text as the engine loads it: 200 with every problem (object, field path, line, message), a
    summary of nodes and pods, and `release`: the release it is replayed as and why (the kube-scheduler image,
    kubectl version record or kubelets the dump says it with, or the default). With `release` ("v1.36") and/or
    `featureGates` ("A=true,B=false") asked, the text is checked replayed as that release and `release` is that
    choice, `dumpRelease` what the dump alone says; 400 release_invalid (`details`: field, problems, release)
    when the release is not a supported one or its kube-scheduler refuses a gate. 413 limit_exceeded when the
    text is over a size limit.
    """
    engine.enforce_size(body.text)
    wanted = releases.asked(body.release, body.feature_gates)
    dump = engine.check(body.text)
    if dump.over_limit is not None:
        raise dump.over_limit
    return presenters.validation(releases.checked(body.text, wanted), dump)
