"""The API's odds and ends: who you are (and the CSRF token), checking text without saving it, the
demos, and two runs compared. Mounted at /api/ (webui/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token
from ninja import Router, Status

from webui import presenters, schemas
from webui.services import access, demos, engine, events

router = Router(tags=["misc"])


@router.get("/session", response=schemas.SessionOut, summary="Who you are, and the CSRF token")
def session(request: HttpRequest):
    """The current user (or anonymous) and the CSRF token to send back as X-CSRFToken on every POST/PUT/DELETE; also
    sets the csrftoken cookie.
    """
    user = request.user.get_username() if request.user.is_authenticated else None
    return schemas.SessionOut(csrfToken=get_token(request), user=user, anonymous=user is None)


@router.post("/validate", response={200: schemas.ValidationOut, 413: schemas.ErrorOut}, summary="Check scenario text without saving it")
def validate(request: HttpRequest, body: schemas.TextIn):
    """Validates YAML text as the engine loads it: 200 with every problem (object, field path, line, message) and a
    summary of nodes and pods; 413 limit_exceeded when the text is over a size limit.
    """
    engine.enforce_size(body.text)
    check = engine.check(body.text)
    if check.over_limit is not None:
        raise check.over_limit
    return presenters.validation(check)


@router.get("/demos", response=list[schemas.DemoOut], summary="List the demo scenarios")
def demo_list(request: HttpRequest):
    """The built-in examples, each with a plain-words description of what it teaches."""
    return [schemas.DemoOut(slug=d.slug, name=d.name, description=d.description) for d in demos.all_demos()]


@router.post("/demos/{slug}/scenarios", response={201: schemas.ScenarioOut, **schemas.ERRORS}, summary="Copy a demo into your own scenario")
def demo_create(request: HttpRequest, slug: str):
    """Creates a new scenario of yours from the demo's text (demos themselves are read-only)."""
    saved = demos.create_from_demo(request.auth, slug)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))


@router.get("/comparisons", response={200: schemas.ComparisonOut, **schemas.ERRORS}, exclude_unset=True, summary="Two finished runs side by side")
def comparison(request: HttpRequest, a: int, b: int, pod: str | None = None):
    """Runs `a` and `b` (any two you may read; typically two configurations or two versions of one scenario):
    `summary` ("1 pod(s) land elsewhere in B than in A."), `counts` (`elsewhere`, `morePending`, `moreEvicted`,
    `morePreemptions`, `attempts`), `pods` (`[{pod, a, b, aWhy?, bWhy?}]`: node, null for pending, "deleted" for a
    preemption victim), `firstDivergence` (the first attempt where they part) and, with `pod=`, `scores`: that pod's
    weighted score per node and plugin in its first scored attempt of each run, with the difference.
    """
    run_a, run_b = access.readable_run(request.auth, a), access.readable_run(request.auth, b)
    return events.comparison(run_a, run_b, pod)
