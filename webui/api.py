"""The HTTP API under /api/ (OpenAPI docs at /api/docs). Operations: schema in -> service -> schema out."""

from __future__ import annotations

import gzip

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.cache import patch_vary_headers
from ninja import File, Form, NinjaAPI, Query, Router, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.files import UploadedFile
from ninja.security import APIKeyCookie

from webui import presenters, schemas
from webui.services import access, demos, engine, events, imports, objects, runs, scenarios, shares
from webui.services.access import Actor
from webui.services.errors import DomainError, LimitExceeded, ReadOnlyShare

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
GZIP_LEVEL = 1  # fast: a 2 MB cycle compresses ~10x at level 1 in a few ms
GZIP_MIN_BYTES = 32 * 1024  # the large read-only answers (a cycle's events, a version's nodes)


class NodeLabelsOut(Schema):
    name: str
    labels: dict[str, str]


class NodesOut(Schema):
    version: int
    nodes: list[NodeLabelsOut]


class SessionActor(APIKeyCookie):
    """Every request gets an Actor (anonymous visitors included); unsafe methods must pass CSRF.

    Subclassing APIKeyCookie is what makes ninja run Django's CSRF check (cookie csrftoken,
    header X-CSRFToken) on POST/PUT/DELETE.
    """

    param_name = settings.SESSION_COOKIE_NAME

    def __call__(self, request: HttpRequest) -> Actor:
        writing = request.method not in SAFE_METHODS
        token = access.share_token(request)
        if token and writing:
            raise ReadOnlyShare()
        self._get_key(request)  # the CSRF check; raises HttpError(403) on failure
        return access.actor_for(request, token=token, writing=writing)

    def authenticate(self, request: HttpRequest, key: str | None) -> Actor | None:  # pragma: no cover
        raise NotImplementedError  # __call__ does the work


api = NinjaAPI(title="SchedLab API", version="1", auth=SessionActor(), urls_namespace="api")
scenario_router = Router(tags=["scenarios"])
run_router = Router(tags=["runs"])
share_router = Router(tags=["share links"])
misc_router = Router(tags=["misc"])
ERRORS = {400: schemas.ErrorOut, 403: schemas.ErrorOut, 404: schemas.ErrorOut, 413: schemas.ErrorOut}


def error_response(request: HttpRequest, status: int, code: str, message: str, details: dict | None = None) -> HttpResponse:
    return api.create_response(request, {"error": {"code": code, "message": message, "details": details or {}}}, status=status)


@api.exception_handler(DomainError)
def on_domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    return error_response(request, exc.status, exc.code, exc.message, exc.details)


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return error_response(request, 422, "invalid_request", "the request does not match the schema", {"errors": exc.errors})


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    code = "csrf_failed" if "CSRF" in str(exc) else "http_error"
    return error_response(request, exc.status_code, code, str(exc))


@api.exception_handler(AuthenticationError)
def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(request, 401, "unauthenticated", "authentication required")


@api.exception_handler(RequestDataTooBig)
def on_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    exc = LimitExceeded("max_bytes", settings.SCHEDLAB_MAX_BYTES, f"the request body is over the limit (SCHEDLAB_MAX_BYTES={settings.SCHEDLAB_MAX_BYTES})")
    return on_domain_error(request, exc)


# --- misc ---------------------------------------------------------------------------------------


@misc_router.get("/session", response=schemas.SessionOut)
def session(request: HttpRequest):
    """Also sets the csrftoken cookie the browser echoes in X-CSRFToken."""
    user = request.user.get_username() if request.user.is_authenticated else None
    return schemas.SessionOut(csrfToken=get_token(request), user=user, anonymous=user is None)


@misc_router.post("/validate", response={200: schemas.ValidationOut, 413: schemas.ErrorOut})
def validate(request: HttpRequest, body: schemas.TextIn):
    """200 with every problem; 413 limit_exceeded (details: limit, max, errors) over a size limit."""
    engine.enforce_size(body.text)
    check = engine.check(body.text)
    if check.over_limit is not None:
        raise check.over_limit
    return presenters.validation(check)


@misc_router.get("/demos", response=list[schemas.DemoOut])
def demo_list(request: HttpRequest):
    return [schemas.DemoOut(slug=d.slug, name=d.name, description=d.description) for d in demos.all_demos()]


@misc_router.post("/demos/{slug}/scenarios", response={201: schemas.ScenarioOut, **ERRORS})
def demo_create(request: HttpRequest, slug: str):
    saved = demos.create_from_demo(request.auth, slug)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))


# --- scenarios ----------------------------------------------------------------------------------


def _saved(request: HttpRequest, saved: scenarios.Saved) -> schemas.ScenarioOut:
    return presenters.scenario(request.auth, saved.scenario, saved.version, saved.check)


@scenario_router.get("", response=list[schemas.ScenarioSummaryOut])
def scenario_list(request: HttpRequest, q: str = ""):
    return [presenters.scenario_summary(request.auth, s) for s in scenarios.listing(request.auth, q)]


@scenario_router.post("", response={201: schemas.ScenarioOut, **ERRORS})
def scenario_create(request: HttpRequest, body: schemas.ScenarioIn):
    return Status(201, _saved(request, scenarios.create(request.auth, body.name, body.text, body.description)))


@scenario_router.post("/import", response={201: schemas.ScenarioOut, **ERRORS})
def scenario_import(request: HttpRequest, name: Form[str] = "", text: Form[str] = "", file: File[UploadedFile] = None):
    """Multipart/form upload of a file, or pasted text; `kubectl get -o yaml` List output is tidied."""
    raw = _upload_text(file) if file is not None else text
    engine.enforce_size(raw)  # before tidying: nothing over the limit is parsed
    title = name or (file.name if file is not None else "") or "Imported scenario"
    return Status(201, _saved(request, scenarios.create(request.auth, title[:200], imports.normalize(raw))))


def _upload_text(file: UploadedFile) -> str:
    engine.enforce_size_bytes(file.size)
    try:
        return file.read().decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError("the uploaded file is not UTF-8 text") from None


@scenario_router.get("/{int:scenario_id}", response={200: schemas.ScenarioOut, **ERRORS})
def scenario_detail(request: HttpRequest, scenario_id: int):
    scenario = access.readable_scenario(request.auth, scenario_id)
    version = scenarios.visible_version(request.auth, scenario)
    return presenters.scenario(request.auth, scenario, version, engine.check(version.text))


@scenario_router.put("/{int:scenario_id}", response={200: schemas.ScenarioOut, **ERRORS})
def scenario_update(request: HttpRequest, scenario_id: int, body: schemas.ScenarioUpdateIn):
    scenario = access.writable_scenario(request.auth, scenario_id)
    return _saved(request, scenarios.save(scenario, body.text, body.name, body.description))


@scenario_router.delete("/{int:scenario_id}", response={204: None, **ERRORS})
def scenario_delete(request: HttpRequest, scenario_id: int):
    scenarios.delete(access.writable_scenario(request.auth, scenario_id))
    return Status(204, None)


@scenario_router.post("/{int:scenario_id}/fork", response={201: schemas.ScenarioOut, **ERRORS})
def scenario_fork(request: HttpRequest, scenario_id: int, body: schemas.ForkIn | None = None):
    body = body or schemas.ForkIn()
    scenario = access.readable_scenario(request.auth, scenario_id)
    return Status(201, _saved(request, scenarios.fork(request.auth, scenario, body.version, body.name)))


@scenario_router.get("/{int:scenario_id}/versions", response={200: list[schemas.VersionSummaryOut], **ERRORS})
def version_list(request: HttpRequest, scenario_id: int):
    scenario = access.readable_scenario(request.auth, scenario_id)
    if request.auth.share is not None:
        return [presenters.version_summary(request.auth.share.version)]
    return [presenters.version_summary(v) for v in scenario.versions.order_by("number")]


@scenario_router.get("/{int:scenario_id}/versions/{int:number}", response={200: schemas.VersionOut, **ERRORS})
def version_detail(request: HttpRequest, scenario_id: int, number: int):
    scenario = access.readable_scenario(request.auth, scenario_id)
    return presenters.version(scenarios.visible_version(request.auth, scenario, number))


@scenario_router.get("/{int:scenario_id}/diff", response={200: schemas.DiffOut, **ERRORS})
def version_diff(request: HttpRequest, scenario_id: int, old: int, new: int):
    scenario = access.readable_scenario(request.auth, scenario_id)
    before, after = (scenarios.visible_version(request.auth, scenario, n) for n in (old, new))
    return schemas.DiffOut(old=old, new=new, diff=scenarios.diff(before, after))


@scenario_router.get("/{int:scenario_id}/export", response={200: None, **ERRORS})
def scenario_export(request: HttpRequest, scenario_id: int, version: int | None = None):
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    response = HttpResponse(chosen.text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="scenario-{scenario.pk}-v{chosen.number}.yaml"'
    return response


@scenario_router.get("/{int:scenario_id}/objects", response={200: schemas.ObjectsOut, **ERRORS})
def scenario_objects(request: HttpRequest, scenario_id: int, version: int | None = None):
    """Nodes and pods as the engine reads them; 400/413 with every problem when the version does not validate."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return _json_bytes(request, objects.objects_json(chosen, lambda found: presenters.scenario_objects(found).model_dump_json().encode()))


@scenario_router.get("/{int:scenario_id}/nodes", response={200: NodesOut, **ERRORS})
def scenario_nodes(request: HttpRequest, scenario_id: int, version: int | None = None):
    """Only the nodes' names and labels (what the run view groups by); the same errors as /objects."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return _json_bytes(request, objects.nodes_json(chosen))


@scenario_router.post("/{int:scenario_id}/runs", response={201: schemas.RunOut, **ERRORS, 429: schemas.ErrorOut})
def run_create(request: HttpRequest, scenario_id: int):
    scenario = access.runnable_scenario(request.auth, scenario_id)
    run = runs.start(request.auth, scenario)
    objects.warm(run.version_id)  # its run view asks for the node labels: have them ready
    return Status(201, presenters.run(run))


@scenario_router.get("/{int:scenario_id}/runs", response={200: list[schemas.RunOut], **ERRORS})
def scenario_runs(request: HttpRequest, scenario_id: int):
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = runs.listing(request.auth, scenario)[:200]
    return [presenters.run(r) for r in found if access.can_read_run(request.auth, r)]


@scenario_router.post("/{int:scenario_id}/share", response={201: schemas.ShareOut, **ERRORS})
def share_create(request: HttpRequest, scenario_id: int, body: schemas.ShareIn | None = None):
    body = body or schemas.ShareIn()
    scenario = access.writable_scenario(request.auth, scenario_id)
    return Status(201, presenters.share(request, shares.create(request.auth, scenario, body.version, body.run, body.step)))


@scenario_router.get("/{int:scenario_id}/shares", response={200: list[schemas.ShareOut], **ERRORS})
def share_list(request: HttpRequest, scenario_id: int):
    scenario = access.writable_scenario(request.auth, scenario_id)
    return [presenters.share(request, link) for link in shares.listing(scenario)]


# --- runs ---------------------------------------------------------------------------------------


@run_router.get("", response=list[schemas.RunOut])
def run_list(request: HttpRequest):
    return [presenters.run(r) for r in runs.listing(request.auth)[:200]]


@run_router.get("/{int:run_id}", response={200: schemas.RunOut, **ERRORS})
def run_detail(request: HttpRequest, run_id: int):
    return presenters.run(runs.recover_if_stale(access.readable_run(request.auth, run_id)))


@run_router.post("/{int:run_id}/cancel", response={200: schemas.RunOut, **ERRORS, 409: schemas.ErrorOut})
def run_cancel(request: HttpRequest, run_id: int):
    return presenters.run(runs.cancel(access.writable_run(request.auth, run_id)))


@run_router.get("/{int:run_id}/events", response={200: schemas.EventsPageOut, **ERRORS})
def run_events(
    request: HttpRequest, run_id: int, since: Query[int] = 0, limit: Query[int] = events.PAGE_SIZE, cycle: Query[int | None] = None
):
    run = runs.recover_if_stale(access.readable_run(request.auth, run_id))  # status before events: see consumers
    if cycle is not None:
        return _cycle_events(request, run, cycle)
    page = events.page(run.pk, max(since, 0), limit)
    cursor = page[-1]["seq"] + 1 if page else max(since, 0)
    done = run.is_finished and not events.page(run.pk, cursor, 1)
    return schemas.EventsPageOut(events=page, next=cursor, done=done)


def _cycle_events(request: HttpRequest, run, cycle: int) -> HttpResponse:
    """All of one cycle in one answer; `done` once its CycleEnd is among them (or the run finished).

    Same shape as EventsPageOut, but spliced from the stored payloads (a 5000-node cycle is ~2 MB)."""
    return _json_bytes(request, events.cycle_page_json(run.pk, cycle, run.is_finished))


def _json_bytes(request: HttpRequest, body: bytes) -> HttpResponse:
    """Prebuilt JSON, gzipped when large and the client accepts it (these answers carry no secret
    and echo no request input, so compressing them leaks nothing; headers are untouched)."""
    gzipped = len(body) >= GZIP_MIN_BYTES and "gzip" in request.headers.get("Accept-Encoding", "")
    response = HttpResponse(gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0) if gzipped else body, content_type="application/json; charset=utf-8")
    if gzipped:
        response["Content-Encoding"] = "gzip"
    if len(body) >= GZIP_MIN_BYTES:
        patch_vary_headers(response, ("Accept-Encoding",))
    return response


@run_router.get("/{int:run_id}/cycles", response={200: list[schemas.CycleOut], **ERRORS})
def run_cycles(request: HttpRequest, run_id: int):
    """The finished cycles of a run, from an index written at run time (no payload is read)."""
    run = access.readable_run(request.auth, run_id)
    return [presenters.cycle(row) for row in events.cycles(run.pk)]


@run_router.get("/{int:run_id}/trace", response={200: dict, **ERRORS})
def run_trace(request: HttpRequest, run_id: int):
    return events.trace(access.readable_run(request.auth, run_id))


# --- share links --------------------------------------------------------------------------------


@share_router.get("/{token}", response={200: schemas.ShareResolvedOut, **ERRORS})
def share_resolve(request: HttpRequest, token: str):
    return presenters.share_resolved(access.active_share(token))


@share_router.post("/{token}/fork", response={201: schemas.ScenarioOut, **ERRORS})
def share_fork(request: HttpRequest, token: str, body: schemas.ForkIn | None = None):
    """The token names the source (in the path); the new scenario is the caller's own."""
    saved = shares.fork(request.auth, access.active_share(token), (body or schemas.ForkIn()).name)
    return Status(201, _saved(request, saved))


@share_router.delete("/{token}", response={200: schemas.ShareOut, **ERRORS})
def share_revoke(request: HttpRequest, token: str):
    return presenters.share(request, shares.revoke(request.auth, token))


api.add_router("/", misc_router)
api.add_router("/scenarios", scenario_router)
api.add_router("/runs", run_router)
api.add_router("/share", share_router)
