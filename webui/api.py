"""The HTTP API under /api/ (OpenAPI docs at /api/docs). Operations: schema in -> service -> schema out."""

from __future__ import annotations

import gzip
from typing import Literal

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.cache import patch_vary_headers
from ninja import File, Form, NinjaAPI, Query, Router, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.files import UploadedFile
from ninja.security import APIKeyCookie

from webui import overload, presenters, schemas
from webui.services import (access, configs, demos, engine, events, fixes, imports, objects, recorded, runs, scenarios, segments,
                            shares, whatif, whyhere)
from webui.services.access import Actor
from webui.services.errors import DomainError, LimitExceeded, NotFound, ReadOnlyShare

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
GZIP_LEVEL = 1  # fast: a 2 MB cycle compresses ~10x at level 1 in a few ms
GZIP_MIN_BYTES = 32 * 1024  # the large read-only answers (a cycle's events, a version's nodes)


class NodeLabelsOut(Schema):
    name: str
    labels: dict[str, str]


class NodesOut(Schema):
    version: int
    nodes: list[NodeLabelsOut]


class RunNamesOut(Schema):
    nodes: list[NodeLabelsOut]
    pods: list[str]


SEGMENT_CONTENT_TYPE = "application/x-npz"  # NumPy's .npz: a ZIP of .npy arrays


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


API_DESCRIPTION = (
    "SchedLab re-runs kube-scheduler v1.35's decisions on a cluster scenario and shows every step. "
    "Save scenarios (Kubernetes YAML), start runs, read each run's events (the engine's own, one per "
    "extension point and plugin) and the engine's explanation of each cycle, and share read-only links. "
    "Every error has one shape: {\"error\": {\"code\", \"message\", \"details\"}}. Writes need the "
    "X-CSRFToken header (GET /api/session); a share token (X-Share-Token or ?token=) grants reads only."
)
api = NinjaAPI(title="SchedLab API", version="1", description=API_DESCRIPTION, auth=SessionActor(), urls_namespace="api")
scenario_router = Router(tags=["scenarios"])
run_router = Router(tags=["runs"])
share_router = Router(tags=["share links"])
misc_router = Router(tags=["misc"])
ERRORS = {400: schemas.ErrorOut, 403: schemas.ErrorOut, 404: schemas.ErrorOut, 413: schemas.ErrorOut, 503: schemas.ErrorOut}


def error_response(request: HttpRequest, status: int, code: str, message: str, details: dict | None = None) -> HttpResponse:
    return api.create_response(request, overload.error_body(code, message, details), status=status)


@api.exception_handler(DomainError)
def on_domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    response = error_response(request, exc.status, exc.code, exc.message, exc.details)
    if exc.retry_after is not None:
        response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def on_database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Out of pooled connections, too many clients, a connection cut: 503, the client retries."""
    overload.log_unavailable(request, exc)
    return on_domain_error(request, overload.unavailable())


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


@misc_router.get("/session", response=schemas.SessionOut, summary="Who you are, and the CSRF token")
def session(request: HttpRequest):
    """The current user (or anonymous) and the CSRF token to send back as X-CSRFToken on every POST/PUT/DELETE; also
    sets the csrftoken cookie.
    """
    user = request.user.get_username() if request.user.is_authenticated else None
    return schemas.SessionOut(csrfToken=get_token(request), user=user, anonymous=user is None)


@misc_router.post("/validate", response={200: schemas.ValidationOut, 413: schemas.ErrorOut}, summary="Check scenario text without saving it")
def validate(request: HttpRequest, body: schemas.TextIn):
    """Validates YAML text as the engine loads it: 200 with every problem (object, field path, line, message) and a
    summary of nodes and pods; 413 limit_exceeded when the text is over a size limit.
    """
    engine.enforce_size(body.text)
    check = engine.check(body.text)
    if check.over_limit is not None:
        raise check.over_limit
    return presenters.validation(check)


@misc_router.get("/demos", response=list[schemas.DemoOut], summary="List the demo scenarios")
def demo_list(request: HttpRequest):
    """The built-in examples, each with a plain-words description of what it teaches."""
    return [schemas.DemoOut(slug=d.slug, name=d.name, description=d.description) for d in demos.all_demos()]


@misc_router.post("/demos/{slug}/scenarios", response={201: schemas.ScenarioOut, **ERRORS}, summary="Copy a demo into your own scenario")
def demo_create(request: HttpRequest, slug: str):
    """Creates a new scenario of yours from the demo's text (demos themselves are read-only)."""
    saved = demos.create_from_demo(request.auth, slug)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))


# --- scenarios ----------------------------------------------------------------------------------


def _saved(request: HttpRequest, saved: scenarios.Saved) -> schemas.ScenarioOut:
    return presenters.scenario(request.auth, saved.scenario, saved.version, saved.check)


@scenario_router.get("", response=list[schemas.ScenarioSummaryOut], summary="List scenarios")
def scenario_list(request: HttpRequest, q: str = ""):
    """Your scenarios and the demos, newest first; `q` searches names and descriptions."""
    return [presenters.scenario_summary(request.auth, s) for s in scenarios.listing(request.auth, q)]


@scenario_router.post("", response={201: schemas.ScenarioOut, **ERRORS}, summary="Create a scenario")
def scenario_create(request: HttpRequest, body: schemas.ScenarioIn):
    """Saves the text as version 1, even when it does not validate (`valid` and `errors` say what is wrong)."""
    return Status(201, _saved(request, scenarios.create(request.auth, body.name, body.text, body.description)))


@scenario_router.post("/import", response={201: schemas.ScenarioOut, **ERRORS}, summary="Import files or an archive as a scenario")
def scenario_import(request: HttpRequest, name: Form[str] = "", text: Form[str] = "", file: File[list[UploadedFile]] = None,
                    check: Form[Literal["now", "later"]] = "now"):
    """Multipart upload of one or more files (repeat the `file` field), one of them possibly an archive
    (.tar, .tar.gz/.tgz, .zip: a support bundle, must-gather, sonobuoy results), or pasted text in a form
    field. One plain file is kept as typed (`kubectl get -o yaml` List output tidied into a YAML stream);
    several files or an archive are read by the engine (typed lists, layouts) into one YAML stream of every
    object, each with its apiVersion and kind. 400 `scenario_invalid` with every problem (naming the file or
    archive member and its line) when they cannot be read — nothing is saved then; 413 `limit_exceeded`
    naming the limit (`details.limit`) when the upload, an archive's unpacked size or file count, or the
    text is over it. `check=later` answers as soon as the text is saved (`checked` false) and checks it in
    the background: the scenario's GET gives the result, waiting for it (the browser opens the editor meanwhile).
    """
    uploads = [_upload(f) for f in file or []]
    if not uploads:
        engine.enforce_size(text)  # before tidying: nothing over the limit is parsed
    raw = imports.upload_text(uploads) if uploads else imports.normalize(text)
    engine.enforce_size(raw)  # what several files or an archive became: nothing over the limit is stored
    title = name or imports.title_of(uploads) or "Imported scenario"
    saved = scenarios.create(request.auth, title[:200], raw, check_later=check == "later")
    return Status(201, _saved(request, saved))


def _upload(file: UploadedFile) -> imports.Upload:
    engine.enforce_size_bytes(file.size)
    return imports.Upload(name=file.name or "upload", data=file.read())


@scenario_router.get("/{int:scenario_id}", response={200: schemas.ScenarioOut, **ERRORS}, summary="Read a scenario")
def scenario_detail(request: HttpRequest, scenario_id: int):
    """The latest version's text with its validation result; with a share token, the shared version."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    version = scenarios.visible_version(request.auth, scenario)
    return presenters.scenario(request.auth, scenario, version, engine.check(version.text))


@scenario_router.put("/{int:scenario_id}", response={200: schemas.ScenarioOut, **ERRORS}, summary="Save a new version")
def scenario_update(request: HttpRequest, scenario_id: int, body: schemas.ScenarioUpdateIn):
    """Always makes a new version (invalid YAML included); `valid` and `errors` describe it. Demos and other people's
    scenarios are read-only.
    """
    scenario = access.writable_scenario(request.auth, scenario_id)
    return _saved(request, scenarios.save(scenario, body.text, body.name, body.description))


@scenario_router.delete("/{int:scenario_id}", response={204: None, **ERRORS}, summary="Delete a scenario")
def scenario_delete(request: HttpRequest, scenario_id: int):
    """Deletes the scenario with all its versions, runs and share links (owner only). Its queued and
    running runs are cancelled first (their workers stop at their next write)."""
    runs.delete_scenario(access.writable_scenario(request.auth, scenario_id))
    return Status(204, None)


@scenario_router.post("/{int:scenario_id}/fork", response={201: schemas.ScenarioOut, **ERRORS}, summary="Fork a scenario")
def scenario_fork(request: HttpRequest, scenario_id: int, body: schemas.ForkIn | None = None):
    """Copies one version (the latest by default) into a new scenario of yours."""
    body = body or schemas.ForkIn()
    scenario = access.readable_scenario(request.auth, scenario_id)
    return Status(201, _saved(request, scenarios.fork(request.auth, scenario, body.version, body.name)))


@scenario_router.get("/{int:scenario_id}/versions", response={200: list[schemas.VersionSummaryOut], **ERRORS}, summary="List a scenario's versions")
def version_list(request: HttpRequest, scenario_id: int):
    """Every version's number, time and size (a share token sees only the shared version)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    if request.auth.share is not None:
        return [presenters.version_summary(request.auth.share.version)]
    return [presenters.version_summary(v) for v in scenario.versions.order_by("number")]


@scenario_router.get("/{int:scenario_id}/versions/{int:number}", response={200: schemas.VersionOut, **ERRORS}, summary="Read one version")
def version_detail(request: HttpRequest, scenario_id: int, number: int):
    """The version's YAML text as saved."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    return presenters.version(scenarios.visible_version(request.auth, scenario, number))


@scenario_router.get("/{int:scenario_id}/diff", response={200: schemas.DiffOut, **ERRORS}, summary="Compare two versions")
def version_diff(request: HttpRequest, scenario_id: int, old: int, new: int):
    """A unified diff from version `old` to version `new`."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    before, after = (scenarios.visible_version(request.auth, scenario, n) for n in (old, new))
    return schemas.DiffOut(old=old, new=new, diff=scenarios.diff(before, after))


@scenario_router.get("/{int:scenario_id}/export", response={200: None, **ERRORS}, summary="Download a version's YAML")
def scenario_export(request: HttpRequest, scenario_id: int, version: int | None = None):
    """The version's text as a YAML file download."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    response = HttpResponse(chosen.text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="scenario-{scenario.pk}-v{chosen.number}.yaml"'
    return response


@scenario_router.get("/{int:scenario_id}/objects", response={200: schemas.ObjectsOut, **ERRORS}, summary="Nodes and pods as the engine reads them")
def scenario_objects(request: HttpRequest, scenario_id: int, version: int | None = None):
    """Every node (labels, taints, allocatable) and pod (labels, node, priority, effective requests) after the
    engine's defaulting; 400/413 with every problem when the version does not validate.
    """
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return _json_bytes(request, objects.objects_json(chosen, lambda found: presenters.scenario_objects(found).model_dump_json().encode()))


@scenario_router.get("/{int:scenario_id}/nodes", response={200: NodesOut, **ERRORS}, summary="Node names and labels")
def scenario_nodes(request: HttpRequest, scenario_id: int, version: int | None = None):
    """Only each node's name and labels (what the run view groups by); the same errors as /objects."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return _json_bytes(request, objects.nodes_json(chosen))


class FixIn(Schema):
    version: int | None = None  # default: the latest version


@scenario_router.post("/{int:scenario_id}/fixes/node-taints", response={201: schemas.ScenarioOut, **ERRORS, 409: schemas.ErrorOut},
                      summary="Add the taints the node lifecycle controller would add")
def scenario_fix_node_taints(request: HttpRequest, scenario_id: int, body: FixIn | None = None):
    """The finding `node-taints-missing`, fixed: saves the version (the latest by default) with every node's
    taints as kube-controller-manager's node lifecycle controller keeps them in step with its conditions
    (Ready False/Unknown, memory/disk/PID pressure, network unavailable, unschedulable) as the scenario's new
    version — in your fork when the scenario is a demo (the answer's `id` says which). Only node documents
    change. 400 when the version does not load, 409 when no node needs a change."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    saved = fixes.add_node_taints(request.auth, scenario, (body or FixIn()).version)
    return Status(201, _saved(request, saved))


@scenario_router.get("/{int:scenario_id}/explain-pod", response={200: schemas.ExplainPodOut, **ERRORS}, summary="Why is this running pod here?")
def scenario_explain_pod(request: HttpRequest, scenario_id: int, pod: str, version: int | None = None):
    """For a pod bound in the version (`pod` = namespace/name): its scheduling cycle run again against the
    rest of the cluster, its own node included, with the pod taken off (scheduler_core.explain_pod) — whether
    its node would still win now (`outcome`: stays, tie, moves, unschedulable; `chosen`), by how much (`margin`
    against `comparedWith`, `plugins` one by one), where else it fits (`feasible`), the best totals (`top`),
    and `caveats`, the first always that the cluster may have changed since the pod was placed. 400 when the
    pod is not running on a node of the version or the version does not load, 404 when there is no such pod."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    return whyhere.explain(scenarios.visible_version(request.auth, scenario, version), pod)


@scenario_router.post("/{int:scenario_id}/runs", response={201: schemas.RunOut, **ERRORS, 429: schemas.ErrorOut}, summary="Start a run")
def run_create(request: HttpRequest, scenario_id: int, mode: Query[Literal["timeline", "single"]] = "timeline"):
    """Queues a scheduling run of the latest version; 400 when it does not validate, 429 when you have too many runs
    queued. `mode=timeline` (the default) runs the scheduler to the end — queue, retries, preemption carried out;
    `mode=single` gives each pending pod one cycle in queue order (the trace's single pass).
    """
    scenario = access.runnable_scenario(request.auth, scenario_id)
    run = runs.start(request.auth, scenario, mode)
    objects.warm(run.version_id)  # its run view asks for the node labels: have them ready
    return Status(201, presenters.run(run))


@scenario_router.get("/{int:scenario_id}/runs", response={200: list[schemas.RunOut], **ERRORS}, summary="List a scenario's runs")
def scenario_runs(request: HttpRequest, scenario_id: int):
    """The runs of this scenario you may read, newest first (at most 200)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = runs.listing(request.auth, scenario)[:200]
    return [presenters.run(r) for r in found if access.can_read_run(request.auth, r)]


@scenario_router.post("/{int:scenario_id}/share", response={201: schemas.ShareOut, **ERRORS}, summary="Make a share link")
def share_create(request: HttpRequest, scenario_id: int, body: schemas.ShareIn | None = None):
    """An unguessable read-only link to a version (and optionally a run and a step, or two runs compared, the second
    of any scenario you may read); the owner's scenarios, and demos (public) with your own runs of them.
    """
    body = body or schemas.ShareIn()
    scenario = access.shareable_scenario(request.auth, scenario_id)
    link = shares.create(request.auth, scenario, body.version, body.run, body.step, body.compareRun)
    return Status(201, presenters.share(request, link))


@scenario_router.get("/{int:scenario_id}/shares", response={200: list[schemas.ShareOut], **ERRORS}, summary="List a scenario's share links")
def share_list(request: HttpRequest, scenario_id: int):
    """Every link made for this scenario, revoked ones included (owner only)."""
    scenario = access.writable_scenario(request.auth, scenario_id)
    return [presenters.share(request, link) for link in shares.listing(scenario)]


# --- runs ---------------------------------------------------------------------------------------


@run_router.get("", response=list[schemas.RunOut], summary="List your runs")
def run_list(request: HttpRequest):
    """Your runs, newest first (at most 200)."""
    return [presenters.run(r) for r in runs.listing(request.auth)[:200]]


@run_router.get("/{int:run_id}", response={200: schemas.RunOut, **ERRORS}, summary="Read a run")
def run_detail(request: HttpRequest, run_id: int):
    """Status, progress, error and stored size; a run whose worker died is re-queued when read."""
    return presenters.run(runs.recover_if_stale(access.readable_run(request.auth, run_id)))


@run_router.post("/{int:run_id}/cancel", response={200: schemas.RunOut, **ERRORS, 409: schemas.ErrorOut}, summary="Cancel a run")
def run_cancel(request: HttpRequest, run_id: int):
    """Stops a queued or running run; 409 when it has already finished."""
    return presenters.run(runs.cancel(access.writable_run(request.auth, run_id)))


@run_router.delete("/{int:run_id}", response={204: None, **ERRORS}, summary="Delete a run")
def run_delete(request: HttpRequest, run_id: int):
    """Deletes the run with its events (owner only). A queued or running run is cancelled first (its
    worker stops at its next write)."""
    runs.delete(access.writable_run(request.auth, run_id))
    return Status(204, None)


@run_router.get("/{int:run_id}/events", response={200: schemas.EventsPageOut, **ERRORS}, summary="Read a run's events")
def run_events(
    request: HttpRequest, run_id: int, since: Query[int] = 0, limit: Query[int] = events.PAGE_SIZE, cycle: Query[int | None] = None
):
    """A page of the engine's events from the cursor `since` (pass `next` back), or with `cycle=N` every event of one
    cycle in one answer.
    """
    run = runs.recover_if_stale(access.readable_run(request.auth, run_id))  # status before events: see consumers
    if cycle is not None:
        return _cycle_events(request, run, cycle)
    page = events.page(run, max(since, 0), limit)
    cursor = page[-1]["seq"] + 1 if page else max(since, 0)
    done = run.is_finished and cursor >= segments.stored_event_count(run.pk)
    return schemas.EventsPageOut(events=page, next=cursor, done=done)


def _cycle_events(request: HttpRequest, run, cycle: int) -> HttpResponse:
    """All of one cycle in one answer; `done` once its CycleEnd is among them (or the run finished)."""
    return _json_bytes(request, events.cycle_page_json(run, cycle, run.is_finished))


@run_router.get("/{int:run_id}/segment", response={200: None, **ERRORS})
def run_segment(request: HttpRequest, run_id: int, cycle: int):
    """One cycle's events as stored: a NumPy .npz (docs/WEB_API.md, "Event segments"); 404 until it is stored."""
    run = access.readable_run(request.auth, run_id)
    blob = segments.cycle_blob(run, cycle)
    if blob is None:
        raise NotFound(f"run {run.pk} has no stored cycle {cycle}")
    response = HttpResponse(blob, content_type=SEGMENT_CONTENT_TYPE)
    # A stored cycle never changes; through a share link it is not kept, so a revoked link reads nothing.
    cacheable = run.is_finished and request.auth.share is None
    response["Cache-Control"] = "private, max-age=31536000, immutable" if cacheable else "no-store"
    return response


@run_router.get("/{int:run_id}/names", response={200: RunNamesOut, **ERRORS})
def run_names(request: HttpRequest, run_id: int):
    """What the segments' indices refer to: the nodes (with labels) and the pending pods, once per run."""
    run = access.readable_run(request.auth, run_id)
    return _gzipped_json(request, segments.stored_names_gz(run))


def _gzipped_json(request: HttpRequest, gzipped: bytes) -> HttpResponse:
    """JSON stored gzipped: sent as it is to clients that accept gzip, else decompressed."""
    accepts = "gzip" in request.headers.get("Accept-Encoding", "")
    response = HttpResponse(gzipped if accepts else gzip.decompress(gzipped), content_type="application/json; charset=utf-8")
    if accepts:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


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


@run_router.get("/{int:run_id}/cycles", response={200: list[schemas.CycleOut], **ERRORS}, summary="List a run's cycles")
def run_cycles(request: HttpRequest, run_id: int):
    """Each finished cycle's pod, node (or null) and FailedScheduling message, with its seq range; read from an
    index, no payload is decoded.
    """
    run = access.readable_run(request.auth, run_id)
    return [presenters.cycle(row) for row in events.cycles(run.pk)]


@run_router.get("/{int:run_id}/cycles/{int:cycle}/explain", response={200: schemas.CycleExplanationOut, **ERRORS}, summary="Explain one cycle")
def run_cycle_explain(request: HttpRequest, run_id: int, cycle: int):
    """Why the cycle's pod went where it did, or nowhere, computed by the engine from the cycle's events: PreFilter's
    rejection or narrowing, the Filter reasons grouped with their nodes (as FailedScheduling counts them), each
    PodTopologySpread constraint's allowed domains and the nodes all of them allow, and the winner's margin over
    the runner-up per plugin. 404 when the cycle has no events yet.
    """
    run = access.readable_run(request.auth, run_id)
    return presenters.explanation(events.explanation(run, cycle))


@run_router.get("/{int:run_id}/timeline", response={200: dict, **ERRORS}, summary="The run's attempts, queue moves and cluster changes")
def run_timeline(request: HttpRequest, run_id: int):
    """Every attempt (`cycle`, `pod`, `attempt`, `timeMs`, `nodeName` or `failedSchedulingMessage`, the nomination it
    wrote, its preemption's `victims`), every queue move (`pod`, `queue`, `event`, `plugins`: whose queueing hints let it
    through) and every cluster change (`kind`: PodBound, PodTerminating, PodRemoved, BindingFailed, NominationSet/Cleared, Storage),
    each with the `cycle` it followed; then `final` placements and remaining `nominated` pods. A single-pass run has
    attempts only. A run with steps adds `steps` (TimelineStepOut: each step's heading, operations and `summary` —
    created, deleted, evicted, placed, `blocked` drains with their budget, pending —) and `{kind: "step", index}`
    entries where each step begins. `recorded` (RecordedComparisonOut, null when no pending pod carries one): each pending pod's
    PodScheduled condition as dumped — the real scheduler's reason, message and time — beside the replay's answer,
    whether they agree and, when not, the likely causes; `summary` "the replay agrees with your cluster on N of M
    pending pod(s)".
    """
    run = access.readable_run(request.auth, run_id)
    story = events.story(run)
    found = presenters.recorded(recorded.of_run(run, story))
    steps = presenters.timeline_steps(story)
    return {**story, **({"steps": steps} if steps is not None else {}),
            "recorded": found.model_dump() if found is not None else None}


@run_router.get("/{int:run_id}/steps/{int:step}/cluster", response={200: schemas.StepClusterOut, **ERRORS},
                summary="The cluster at the end of a step")
def run_step_cluster(request: HttpRequest, run_id: int, step: int):
    """For a run with steps (a `Changes` document): every node at the end of step `step` (`added` during it,
    `unschedulable` as cordoned or drained), every pod with its node (null: pending), its node at the end of the
    step before and its `mark` — `new` (created in the step), `placed` (pending before), `moved` (another node),
    `pending`, or "" (where it was) —, and the pods that left during the step (`gone`: `evicted`, `deleted`,
    `succeeded`, with the node they left). Computed by the engine (scheduler_core.stepplacements) from the run's
    stored story events and its version; 404 when the run has no such step, or it has not ended yet.
    """
    run = access.readable_run(request.auth, run_id)
    # Validated by its schema, sent gzipped when large (5000 nodes' labels: 1.3 MB of JSON).
    return _json_bytes(request, presenters.step_cluster(events.step_cluster(run, step)).model_dump_json().encode())


@run_router.get("/{int:run_id}/whatif", response={200: dict, **ERRORS}, summary="What would make a pod fit")
def run_whatif(request: HttpRequest, run_id: int, pod: str):
    """For a pod that is pending in the run's version: `suggestions` — single changes (`kind`: toleration, maxSkew,
    scheduleAnyway, dropAffinityTerm, dropNodeSelector, requests, evict; `text`, `change`, the `nodes` it opens), each
    verified by re-running the engine's PreFilter and Filter on the changed input, least intrusive first;
    `noSingleChange` when none opens a node; `fitsNow` when nothing needs to change.
    """
    return whatif.suggestions(access.readable_run(request.auth, run_id), pod)


class WhatIfApplyIn(Schema):
    pod: str
    suggestion: int = 0


@run_router.post("/{int:run_id}/whatif/apply", response={201: schemas.RunOut, **ERRORS, 429: schemas.ErrorOut},
                 summary="Apply a suggestion as a new version and run it")
def run_whatif_apply(request: HttpRequest, run_id: int, body: WhatIfApplyIn):
    """Saves the run's version with the suggestion applied (only the pod's document, the node's, or the victims'
    documents change) as the scenario's new version — in your fork when the scenario is a demo (the answer's
    `scenario` says which) — and starts a run of it (the same mode)."""
    run = access.derivable_run(request.auth, run_id)
    saved = whatif.apply(request.auth, run, body.pod, body.suggestion)
    return Status(201, presenters.run(runs.start(request.auth, saved.scenario, run.mode)))


@run_router.get("/{int:run_id}/config", response={200: dict, **ERRORS}, summary="The run's scheduler configuration")
def run_config(request: HttpRequest, run_id: int):
    """`config`: the KubeSchedulerConfiguration document of the run's version as typed, or the release's
    defaults written out when it has none (`fromScenario` false): what "Try another configuration" edits."""
    return configs.config_of(access.readable_run(request.auth, run_id).version.text)


class TryConfigIn(Schema):
    config: str


@run_router.post("/{int:run_id}/try-config", response={201: schemas.RunOut, **ERRORS, 429: schemas.ErrorOut},
                 summary="Run the run's version with another configuration")
def run_try_config(request: HttpRequest, run_id: int, body: TryConfigIn):
    """Saves the run's version with its KubeSchedulerConfiguration replaced by `config` (checked on its own
    first: problems name its lines) as a new version, and starts a run of it in the same mode — in your fork
    when the scenario is a demo (the answer's `scenario` says which). Compare the two with /api/comparisons."""
    run = access.derivable_run(request.auth, run_id)
    return Status(201, presenters.run(configs.try_config(request.auth, run, body.config)))


@misc_router.get("/comparisons", response={200: dict, **ERRORS}, summary="Two finished runs side by side")
def comparison(request: HttpRequest, a: int, b: int, pod: str | None = None):
    """Runs `a` and `b` (any two you may read; typically two configurations or two versions of one scenario):
    `summary` ("1 pod(s) land elsewhere in B than in A."), `counts` (`elsewhere`, `morePending`, `moreEvicted`,
    `morePreemptions`, `attempts`), `pods` (`[{pod, a, b, aWhy?, bWhy?}]`: node, null for pending, "deleted" for a
    preemption victim), `firstDivergence` (the first attempt where they part) and, with `pod=`, `scores`: that pod's
    weighted score per node and plugin in its first scored attempt of each run, with the difference.
    """
    run_a, run_b = access.readable_run(request.auth, a), access.readable_run(request.auth, b)
    return events.comparison(run_a, run_b, pod)


@run_router.get("/{int:run_id}/trace", response={200: dict, **ERRORS}, summary="Download the run's trace")
def run_trace(request: HttpRequest, run_id: int):
    """The spec's trace summary (SCENARIO_AND_TRACE.md), rebuilt from the stored events."""
    return events.trace(access.readable_run(request.auth, run_id))


# --- share links --------------------------------------------------------------------------------


@share_router.get("/{token}", response={200: schemas.ShareResolvedOut, **ERRORS}, summary="Open a share link")
def share_resolve(request: HttpRequest, token: str):
    """What the token shares: the scenario, the version's text, the run (if any) and the step."""
    return presenters.share_resolved(access.active_share(token))


@share_router.post("/{token}/fork", response={201: schemas.ScenarioOut, **ERRORS}, summary="Fork a shared version")
def share_fork(request: HttpRequest, token: str, body: schemas.ForkIn | None = None):
    """Copies the shared version into a new scenario of yours (the token is in the path, not a credential)."""
    saved = shares.fork(request.auth, access.active_share(token), (body or schemas.ForkIn()).name)
    return Status(201, _saved(request, saved))


@share_router.delete("/{token}", response={200: schemas.ShareOut, **ERRORS}, summary="Revoke a share link")
def share_revoke(request: HttpRequest, token: str):
    """The link stops working at once (owner only)."""
    return presenters.share(request, shares.revoke(request.auth, token))


api.add_router("/", misc_router)
api.add_router("/scenarios", scenario_router)
api.add_router("/runs", run_router)
api.add_router("/share", share_router)
api.add_router("/", "webui.routers.capacity.router")
