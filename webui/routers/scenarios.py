"""/api/scenarios: scenarios and their versions (save, fork, import, diff, export), what the engine reads
in them, the fixes it offers, and the runs and share links made of them. Mounted at /api/scenarios
(webui/api.py)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpResponse, StreamingHttpResponse
from ninja import File, Form, Query, Router, Status
from ninja.files import UploadedFile

from webui import presenters, responses
from webui.services import (
    access,
    documents,
    engine,
    events,
    fixes,
    imports,
    objects,
    releases,
    runs,
    scenarios,
    shares,
    whyhere,
)
from webui.services.access import ActorRequest
from webui.schemas.common import ERRORS, ErrorOut
from webui.schemas.runs import RunOut, RunQuery
from webui.schemas.scenarios import (
    ClusterPageOut,
    ClusterQuery,
    DiffOut,
    DocumentIn,
    DocumentQuery,
    DocumentsOut,
    DocumentTextOut,
    ExplainPodOut,
    FixIn,
    ForkIn,
    NodesOut,
    ObjectsOut,
    ScenarioIn,
    ScenarioOut,
    ScenarioSummaryOut,
    ScenarioUpdateIn,
    VersionOut,
    VersionSummaryOut,
)
from webui.schemas.shares import ShareIn, ShareOut

router = Router(tags=["scenarios"], by_alias=True)


def _saved(request: ActorRequest, saved: scenarios.Saved) -> ScenarioOut:
    return presenters.scenario(request.auth, saved.scenario, saved.version, saved.check)


@router.get("", response=list[ScenarioSummaryOut], summary="List scenarios")
def scenario_list(request: ActorRequest, q: str = "") -> list[ScenarioSummaryOut]:
    """Your scenarios and the demos, newest first; `q` searches names and descriptions."""
    return [presenters.scenario_summary(request.auth, s) for s in scenarios.listing(request.auth, q)]


@router.post("", response={201: ScenarioOut, **ERRORS}, summary="Create a scenario")
def scenario_create(request: ActorRequest, body: ScenarioIn) -> Status[ScenarioOut]:
    """Saves the text as version 1, even when it does not validate (`valid` and `errors` say what is wrong)."""
    return Status(201, _saved(request, scenarios.create(request.auth, body.name, body.text, body.description)))


@router.post("/import", response={201: ScenarioOut, **ERRORS}, summary="Import files or an archive as a scenario")
def scenario_import(
    request: ActorRequest,
    name: Form[str] = "",
    text: Form[str] = "",
    file: File[list[UploadedFile] | None] = None,
    check: Form[Literal["now", "later"]] = "now",
) -> Status[ScenarioOut]:
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


@router.post(
    "/{int:scenario_id}/files", response={201: ScenarioOut, **ERRORS}, summary="Add fetched files to a scenario"
)
def scenario_add_files(
    request: ActorRequest, scenario_id: int, file: File[list[UploadedFile]], version: Form[int | None] = None
) -> Status[ScenarioOut]:
    """What the findings' `kubectl` lines fetched (one or more files, or an archive), added after the
    version's text (the latest by default) as the scenario's next version — in your fork when it is a
    demo or someone else's shared scenario (the answer's `id` says which). The version's text is kept as
    typed; the added objects are written as an import writes them. 400 naming file and line when the
    files do not read, 413 over a size limit; nothing is saved then."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    source = scenarios.get_version(scenario, version)
    text = imports.added_to(source.text, [_upload(f) for f in file])
    engine.enforce_size(text)
    return Status(201, _saved(request, scenarios.save_derived(request.auth, source, text, "fetched files added")))


def _upload(file: UploadedFile) -> imports.Upload:
    engine.enforce_size_bytes(file.size or 0)  # an uploaded file knows its size; the text it becomes is checked too
    return imports.Upload(name=file.name or "upload", data=file.read())


@router.get("/{int:scenario_id}", response={200: ScenarioOut, **ERRORS}, summary="Read a scenario")
def scenario_detail(request: ActorRequest, scenario_id: int) -> ScenarioOut:
    """The latest version with its validation result; with a share token, the shared version.

    `mode` says how the editor edits it. `"text"`: `text` is the whole text, and the answer waits for
    its check. `"objects"` — a text over SCHEDLAB_EDITOR_MAX_BYTES (`editorMaxBytes`; `size` is the
    text's characters): `text` is null, the version is read and edited object by object
    (`/documents`), and the answer never runs nor waits for the engine's whole check: `checked` false
    while a long-work worker makes it (asked here when nobody has; ask again), else its stored result."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    version = scenarios.visible_version(request.auth, scenario)
    if documents.mode_of(version) == "objects":
        return presenters.scenario(request.auth, scenario, version, documents.check_without_waiting(version))
    return presenters.scenario(request.auth, scenario, version, engine.check(version.text))


@router.put("/{int:scenario_id}", response={200: ScenarioOut, **ERRORS}, summary="Save a new version")
def scenario_update(request: ActorRequest, scenario_id: int, body: ScenarioUpdateIn) -> ScenarioOut:
    """Makes a new version of a changed text (invalid YAML included); a save of the same text (a rename,
    a new description) changes only those. `valid` and `errors` describe it. Demos and other people's
    scenarios are read-only.
    """
    scenario = access.writable_scenario(request.auth, scenario_id)
    return _saved(request, scenarios.save(scenario, body.text, body.name, body.description))


@router.get(
    "/{int:scenario_id}/documents", response={200: DocumentsOut, **ERRORS}, summary="One page of a version's objects"
)
def document_list(request: ActorRequest, scenario_id: int, asked: Query[DocumentQuery]) -> DocumentsOut:
    """The version's documents (the latest by default), each object of a dump one: `limit` (≤ 500) of
    those of `kind` whose namespace/name contains `search` (any case), from `offset`, in text order —
    each with its `index` (what the edits below name), kind, namespace, name, first `line` and size;
    `matched` says how many match, `counts` how many of each kind the version holds. Listed from an
    index made once per text, never by parsing the text again."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    version = scenarios.visible_version(request.auth, scenario, asked.version)
    found = documents.page(version, asked.kind, asked.search, asked.offset, asked.limit)
    return presenters.document_page(version, found)


@router.get(
    "/{int:scenario_id}/documents/{int:index}",
    response={200: DocumentTextOut, **ERRORS},
    summary="Read one object of a version",
)
def document_detail(request: ActorRequest, scenario_id: int, index: int, version: int | None = None) -> DocumentTextOut:
    """Document `index` of the version (the latest by default): its text as saved (without the `---`
    line before it), read from the pieces that hold it. 404 when the version has no such document."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    entry = documents.entry_at(chosen, index)
    return presenters.document_text(chosen, index, entry, documents.document_text(chosen, index))


@router.put(
    "/{int:scenario_id}/documents/{int:index}", response={200: ScenarioOut, **ERRORS}, summary="Replace one object"
)
def document_replace(request: ActorRequest, scenario_id: int, index: int, body: DocumentIn) -> ScenarioOut:
    """Document `index` of the latest version replaced by `text` (one document), saved as the next
    version; every other character of the text is kept. The document is checked on its own first:
    400 `scenario_invalid` naming each problem's object, field path and line in the whole text, and
    nothing is saved. The whole check is asked of a long-work worker (`checked` false; GET the
    scenario for it). 409 `conflict` when `version` is not the latest; owner only (a share link is read-only)."""
    scenario = access.writable_scenario(request.auth, scenario_id)
    return _saved(request, documents.replace_document(scenario, body.version, index, body.text))


@router.delete(
    "/{int:scenario_id}/documents/{int:index}", response={200: ScenarioOut, **ERRORS}, summary="Delete one object"
)
def document_delete(request: ActorRequest, scenario_id: int, index: int, version: int | None = None) -> ScenarioOut:
    """Document `index` of the latest version (with its `---` line) removed, saved as the next version,
    the rest of the text kept; as PUT for the check, `version` and who may."""
    scenario = access.writable_scenario(request.auth, scenario_id)
    return _saved(request, documents.delete_document(scenario, version, index))


@router.post("/{int:scenario_id}/documents", response={201: ScenarioOut, **ERRORS}, summary="Add objects")
def document_add(request: ActorRequest, scenario_id: int, body: DocumentIn) -> Status[ScenarioOut]:
    """`text` (one or more YAML documents) added after the latest version's last document, saved as the
    next version; each added document is checked on its own first (400 as PUT)."""
    scenario = access.writable_scenario(request.auth, scenario_id)
    return Status(201, _saved(request, documents.add_documents(scenario, body.version, body.text)))


@router.delete("/{int:scenario_id}", response={204: None, **ERRORS}, summary="Delete a scenario")
def scenario_delete(request: ActorRequest, scenario_id: int) -> Status[None]:
    """Deletes the scenario with all its versions, runs and share links (owner only). Its queued and
    running runs are cancelled first (their workers stop at their next write)."""
    runs.delete_scenario(access.writable_scenario(request.auth, scenario_id))
    return Status(204, None)


@router.post("/{int:scenario_id}/fork", response={201: ScenarioOut, **ERRORS}, summary="Fork a scenario")
def scenario_fork(request: ActorRequest, scenario_id: int, body: ForkIn | None = None) -> Status[ScenarioOut]:
    """Copies one version (the latest by default) into a new scenario of yours."""
    body = body or ForkIn()
    scenario = access.readable_scenario(request.auth, scenario_id)
    return Status(201, _saved(request, scenarios.fork(request.auth, scenario, body.version, body.name)))


@router.get(
    "/{int:scenario_id}/versions",
    response={200: list[VersionSummaryOut], **ERRORS},
    summary="List a scenario's versions",
)
def version_list(request: ActorRequest, scenario_id: int) -> list[VersionSummaryOut]:
    """Every version's number, time and size (a share token sees only the shared version)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    if request.auth.share is not None:
        return [presenters.version_summary(request.auth.share.version)]
    return [presenters.version_summary(v) for v in scenario.versions.order_by("number")]


@router.get(
    "/{int:scenario_id}/versions/{int:number}", response={200: VersionOut, **ERRORS}, summary="Read one version"
)
def version_detail(request: ActorRequest, scenario_id: int, number: int) -> VersionOut:
    """The version's YAML text as saved."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    return presenters.version(scenarios.visible_version(request.auth, scenario, number))


@router.get("/{int:scenario_id}/diff", response={200: DiffOut, **ERRORS}, summary="Compare two versions")
def version_diff(request: ActorRequest, scenario_id: int, old: int, new: int) -> DiffOut:
    """A unified diff from version `old` to version `new`."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    before, after = (scenarios.visible_version(request.auth, scenario, n) for n in (old, new))
    return DiffOut(old=old, new=new, diff=scenarios.diff(before, after))


@router.get("/{int:scenario_id}/export", response={200: None, **ERRORS}, summary="Download a version's YAML")
def scenario_export(request: ActorRequest, scenario_id: int, version: int | None = None) -> StreamingHttpResponse:
    """The version's text as a YAML file download, streamed a piece at a time (a 1 GB dump never sits
    whole in the web process)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    pieces = (piece.encode() for piece in chosen.text_pieces())
    response = responses.streamed(request, pieces, "application/yaml; charset=utf-8", compress=True)
    response["Content-Disposition"] = f'attachment; filename="scenario-{scenario.pk}-v{chosen.number}.yaml"'
    return response


@router.get(
    "/{int:scenario_id}/objects",
    response={200: ObjectsOut, **ERRORS},
    summary="Nodes and pods as the engine reads them",
)
def scenario_objects(request: ActorRequest, scenario_id: int, version: int | None = None) -> HttpResponse:
    """Every node (labels, taints, allocatable) and pod (labels, node, priority, effective requests) after the
    engine's defaulting; 400/413 with every problem when the version does not validate.
    """
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return responses.json_bytes(
        request,
        objects.objects_json(chosen, lambda found: presenters.scenario_objects(found).model_dump_json().encode()),
    )


@router.get(
    "/{int:scenario_id}/cluster", response={200: ClusterPageOut, **ERRORS}, summary="One page of the cluster view"
)
def scenario_cluster(request: ActorRequest, scenario_id: int, asked: Query[ClusterQuery]) -> HttpResponse:
    """What the cluster view draws of a big cluster, never all of it: the counts of the whole, every domain of
    `groupKey` (default: zone, region, hostname, the first key) with its nodes and pods (the largest 200 first),
    then the nodes in `domain` (when given) whose name or `key=value` label contains `search`, `limit` (≤ 500) of
    them from `offset` (`matched` says how many in all), with the pods on them and the first 200 pending pods.
    `run`: a finished run of the version whose final placements are drawn (`placements`, `nominated`,
    `placedIn`). The same errors as /objects."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, asked.version)
    placed = None
    if asked.run is not None:
        placed = objects.run_placements(events.story(access.readable_run(request.auth, asked.run)))
    found = objects.found_of(chosen)
    query = objects.PageQuery(asked.group_key, asked.domain, asked.search, asked.offset, asked.limit)
    page = objects.cluster_page(found, query, placed)
    return responses.json_bytes(request, presenters.cluster_page(found, page).model_dump_json(by_alias=True).encode())


@router.get("/{int:scenario_id}/nodes", response={200: NodesOut, **ERRORS}, summary="Node names and labels")
def scenario_nodes(request: ActorRequest, scenario_id: int, version: int | None = None) -> HttpResponse:
    """Only each node's name and labels (what the run view groups by); the same errors as /objects."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    chosen = scenarios.visible_version(request.auth, scenario, version)
    return responses.json_bytes(request, objects.nodes_json(chosen))


@router.post(
    "/{int:scenario_id}/fixes/node-taints",
    response={201: ScenarioOut, **ERRORS, 409: ErrorOut},
    summary="Add the taints the node lifecycle controller would add",
)
def scenario_fix_node_taints(request: ActorRequest, scenario_id: int, body: FixIn | None = None) -> Status[ScenarioOut]:
    """The finding `node-taints-missing`, fixed: saves the version (the latest by default) with every node's
    taints as kube-controller-manager's node lifecycle controller keeps them in step with its conditions
    (Ready False/Unknown, memory/disk/PID pressure, network unavailable, unschedulable) as the scenario's new
    version — in your fork when the scenario is a demo (the answer's `id` says which). Only node documents
    change. 400 when the version does not load, 409 when no node needs a change."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    saved = fixes.add_node_taints(request.auth, scenario, (body or FixIn()).version)
    return Status(201, _saved(request, saved))


@router.get(
    "/{int:scenario_id}/explain-pod", response={200: ExplainPodOut, **ERRORS}, summary="Why is this running pod here?"
)
def scenario_explain_pod(
    request: ActorRequest, scenario_id: int, pod: str, version: int | None = None
) -> dict[str, Any]:
    """For a pod bound in the version (`pod` = namespace/name): its scheduling cycle run again against the
    rest of the cluster, its own node included, with the pod taken off (scheduler_core.answers.explain_pod) — whether
    its node would still win now (`outcome`: stays, tie, moves, unschedulable; `chosen`), by how much (`margin`
    against `comparedWith`, `plugins` one by one), where else it fits (`feasible`), the best totals (`top`),
    and `caveats`, the first always that the cluster may have changed since the pod was placed; `release`: the
    release it was re-run as (the version's, as the dump says). 400 when the
    pod is not running on a node of the version or the version does not load, 404 when there is no such pod."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    return whyhere.explain(scenarios.visible_version(request.auth, scenario, version), pod)


@router.post("/{int:scenario_id}/runs", response={201: RunOut, **ERRORS, 429: ErrorOut}, summary="Start a run")
def run_create(
    request: ActorRequest,
    scenario_id: int,
    asked: Query[RunQuery],
    mode: Query[Literal["timeline", "single"]] = "timeline",
) -> Status[RunOut]:
    """Queues a scheduling run of the latest version (or `version`); 400 when it does not validate, 429 when you have
    too many runs queued. `mode=timeline` (the default) runs the scheduler to the end — queue, retries, preemption
    carried out; `mode=single` gives each pending pod one cycle in queue order (the trace's single pass). Which
    kube-scheduler to replay: `release` ("v1.36"; absent: the release the dump says — its kube-scheduler image,
    kubectl version record or kubelets — else the default) and `featureGates` ("A=true,B=false", as kube-scheduler's
    flag); the run keeps them (its `release` says the choice and why), the scenario's text is unchanged.
    400 release_invalid (`details`: field, problems, release) for a release that is not supported or a gate its
    kube-scheduler refuses (unknown, locked, a dependency off).
    """
    scenario = access.runnable_scenario(request.auth, scenario_id)
    wanted = releases.asked(asked.release, asked.feature_gates)
    version = scenarios.visible_version(request.auth, scenario, asked.version) if asked.version is not None else None
    run = runs.start(request.auth, scenario, mode, wanted, version)
    if run.names_gz is None:  # its run view reads the node labels from the run's names, else from the version
        objects.warm(run.version_id)
    return Status(201, presenters.run(run))


@router.get("/{int:scenario_id}/runs", response={200: list[RunOut], **ERRORS}, summary="List a scenario's runs")
def scenario_runs(request: ActorRequest, scenario_id: int) -> list[RunOut]:
    """The runs of this scenario you may read, newest first (at most 200)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = runs.listing(request.auth, scenario)[:200]
    return [presenters.run(r) for r in found if access.can_read_run(request.auth, r)]


@router.post("/{int:scenario_id}/share", response={201: ShareOut, **ERRORS}, summary="Make a share link")
def share_create(request: ActorRequest, scenario_id: int, body: ShareIn | None = None) -> Status[ShareOut]:
    """An unguessable read-only link to a version (and optionally a run and a step, or two runs compared, the second
    of any scenario you may read, or `upgrade`: one of your upgrade comparisons of it); the owner's scenarios, and
    demos (public) with your own runs of them.
    """
    body = body or ShareIn()
    scenario = access.shareable_scenario(request.auth, scenario_id)
    link = shares.create(request.auth, scenario, body.version, body.run, body.step, body.compare_run, body.upgrade)
    return Status(201, presenters.share(request, link))


@router.get(
    "/{int:scenario_id}/shares", response={200: list[ShareOut], **ERRORS}, summary="List a scenario's share links"
)
def share_list(request: ActorRequest, scenario_id: int) -> list[ShareOut]:
    """Every link made for this scenario, revoked ones included (owner only)."""
    scenario = access.writable_scenario(request.auth, scenario_id)
    return [presenters.share(request, link) for link in shares.listing(scenario)]
