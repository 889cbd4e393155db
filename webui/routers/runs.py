"""/api/runs: a run's state, its events (pages, whole cycles, stored segments), the engine's readings of
them (cycles, explanations, the story, a step's cluster, the trace), and what to try next (what if,
another configuration). Mounted at /api/runs (webui/api.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from ninja import Query, Router, Status
from pydantic import TypeAdapter

from webui import presenters, responses
from webui.models import Run
from webui.services import access, configs, events, objects, recorded, releases, runs, segments, whatif
from webui.services.access import ActorRequest
from webui.services.errors import NotFound
from webui.schemas.common import ERRORS, ErrorOut
from webui.schemas.scenarios import ClusterPageQuery
from webui.schemas.runs import (
    CycleExplanationOut,
    CycleOut,
    EventsPageOut,
    RunConfigOut,
    RunNamesOut,
    RunOut,
    StepClusterPageOut,
    TimelineEntriesOut,
    TimelineEntriesQuery,
    TimelineOut,
    TimelineSummaryOut,
    TraceOut,
    TryConfigIn,
    WhatIfApplyIn,
    WhatIfOut,
)

CYCLES = TypeAdapter(list[CycleOut])

router = Router(tags=["runs"], by_alias=True)
SEGMENT_CONTENT_TYPE = "application/x-npz"  # NumPy's .npz: a ZIP of .npy arrays


@router.get("", response=list[RunOut], summary="List your runs")
def run_list(request: ActorRequest) -> list[RunOut]:
    """Your runs, newest first (at most 200)."""
    return [presenters.run(r) for r in runs.listing(request.auth)[:200]]


@router.get("/{int:run_id}", response={200: RunOut, **ERRORS}, summary="Read a run")
def run_detail(request: ActorRequest, run_id: int) -> RunOut:
    """Status, progress, error and stored size; a run whose worker died is re-queued when read."""
    return presenters.run(runs.recover_if_stale(access.readable_run(request.auth, run_id)))


@router.post("/{int:run_id}/cancel", response={200: RunOut, **ERRORS, 409: ErrorOut}, summary="Cancel a run")
def run_cancel(request: ActorRequest, run_id: int) -> RunOut:
    """Stops a queued or running run; 409 when it has already finished."""
    return presenters.run(runs.cancel(access.writable_run(request.auth, run_id)))


@router.delete("/{int:run_id}", response={204: None, **ERRORS}, summary="Delete a run")
def run_delete(request: ActorRequest, run_id: int) -> Status[None]:
    """Deletes the run with its events (owner only). A queued or running run is cancelled first (its
    worker stops at its next write)."""
    runs.delete(access.writable_run(request.auth, run_id))
    return Status(204, None)


@router.get("/{int:run_id}/events", response={200: EventsPageOut, **ERRORS}, summary="Read a run's events")
def run_events(
    request: ActorRequest,
    run_id: int,
    since: Query[int] = 0,
    limit: Query[int] = events.PAGE_SIZE,
    cycle: Query[int | None] = None,
) -> EventsPageOut | HttpResponse:
    """A page of the engine's events from the cursor `since` (pass `next` back), or with `cycle=N` every event of one
    cycle in one answer.
    """
    run = runs.recover_if_stale(access.readable_run(request.auth, run_id))  # status before events: see consumers
    if cycle is not None:
        return _cycle_events(request, run, cycle)
    page = events.page(run, max(since, 0), limit)
    cursor = page[-1]["seq"] + 1 if page else max(since, 0)
    done = run.is_finished and cursor >= segments.stored_event_count(run.pk)
    return EventsPageOut.model_validate({"events": page, "next": cursor, "done": done})


def _cycle_events(request: ActorRequest, run: Run, cycle: int) -> HttpResponse:
    """All of one cycle in one answer; `done` once its CycleEnd is among them (or the run finished)."""
    return responses.json_bytes(request, events.cycle_page_json(run, cycle, run.is_finished))


@router.get("/{int:run_id}/segment", response={200: None, **ERRORS})
def run_segment(request: ActorRequest, run_id: int, cycle: int) -> HttpResponse:
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


@router.get("/{int:run_id}/names", response={200: RunNamesOut, **ERRORS, 409: ErrorOut})
def run_names(request: ActorRequest, run_id: int) -> HttpResponse:
    """What the segments' indices refer to: the nodes (with labels) and the pending pods, once per run;
    409 names_not_ready before the run's worker has started it (ask again)."""
    run = access.readable_run(request.auth, run_id)
    return responses.gzipped_json(request, segments.stored_names_gz(run))


@router.get("/{int:run_id}/cycles", response={200: list[CycleOut], **ERRORS}, summary="List a run's cycles")
def run_cycles(request: ActorRequest, run_id: int) -> HttpResponse:
    """Each finished cycle's pod, node (or null) and FailedScheduling message, with its seq range; read from an
    index, no payload is decoded.
    """
    run = access.readable_run(request.auth, run_id)
    # Written by pydantic and gzipped when large: thousands of cycles through the router's encoder took seconds.
    rows = [presenters.cycle(row) for row in events.cycles(run.pk)]
    return responses.json_bytes(request, CYCLES.dump_json(rows, by_alias=True))


@router.get(
    "/{int:run_id}/cycles/{int:cycle}/explain",
    response={200: CycleExplanationOut, **ERRORS},
    summary="Explain one cycle",
)
def run_cycle_explain(request: ActorRequest, run_id: int, cycle: int) -> CycleExplanationOut:
    """Why the cycle's pod went where it did, or nowhere, computed by the engine from the cycle's events: PreFilter's
    rejection or narrowing, the Filter reasons grouped with their nodes (as FailedScheduling counts them), each
    PodTopologySpread constraint's allowed domains and the nodes all of them allow, and the winner's margin over
    the runner-up per plugin. 404 when the cycle has no events yet.
    """
    run = access.readable_run(request.auth, run_id)
    return presenters.explanation(events.explanation(run, cycle))


@router.get(
    "/{int:run_id}/timeline",
    response={200: TimelineOut, **ERRORS},
    exclude_unset=True,
    summary="Download the run's whole story",
)
def run_timeline(request: ActorRequest, run_id: int) -> StreamingHttpResponse:
    """The whole story, for a program to download (the run view reads /timeline/summary and /timeline/entries,
    never this): every attempt (`cycle`, `pod`, `attempt`, `timeMs`, `nodeName` or `failedSchedulingMessage`, the
    nomination it wrote, its preemption's `victims`), every queue move (`pod`, `queue`, `event`, `plugins`: whose
    queueing hints let it through) and every cluster change (`kind`: PodBound, PodTerminating, PodRemoved,
    BindingFailed, NominationSet/Cleared, Storage), each with the `cycle` it followed; then `final` placements and
    remaining `nominated` pods. A single-pass run has attempts only. A run with steps adds `steps` (TimelineStepOut:
    each step's heading, operations and `summary` — created, deleted, evicted, placed, `blocked` drains with their
    budget, pending —) and `{kind: "step", index}` entries where each step begins. `recorded`
    (RecordedComparisonOut, null when no pending pod carries one): each pending pod's PodScheduled condition as
    dumped — the real scheduler's reason, message and time — beside the replay's answer, whether they agree and,
    when not, the likely causes; `summary` "the replay agrees with your cluster on N of M pending pod(s)".
    Streamed a few thousand items at a time (gzipped as it goes to clients that accept it): a 5,000-node run's story
    is megabytes, a 150,000-pod run's hundreds; steps and recorded are checked by their schemas, the items are the
    engine's as it declares them (RunStory) and are not re-validated."""
    run = access.readable_run(request.auth, run_id)
    story = events.story(run)
    found = presenters.recorded(recorded.of_run(run, story))
    steps = presenters.timeline_steps(story)
    tail = {
        **({"steps": steps} if steps is not None else {}),
        "recorded": found.model_dump() if found is not None else None,
    }
    return responses.streamed_json(request, events.story_chunks(story, tail), compress=True)


@router.get(
    "/{int:run_id}/timeline/summary",
    response={200: TimelineSummaryOut, **ERRORS},
    exclude_unset=True,
    summary="How the run's story ended, with its counts",
)
def run_timeline_summary(request: ActorRequest, run_id: int) -> HttpResponse:
    """What the run view reads of the story at once: `mode`, `timeMs`, `finished`, `outcome` (the run's end in one
    sentence) and `counts` (`entries`, `attempts`, `moves`, `changes`; of the pods with a final place: `pods`,
    `placed`, `pending`, `deleted` — preemption victims —, `nominated`), with `steps` (a run with steps, as in
    /timeline) and `recorded` (as in /timeline: it grows with the pending pods only). The entries themselves are
    read a page at a time from /timeline/entries; where a pod ended, from GET /api/scenarios/{id}/cluster?run=."""
    run = access.readable_run(request.auth, run_id)
    story = events.story(run)
    answer = presenters.timeline_summary(story, recorded.of_run(run, story))
    return responses.json_bytes(request, answer.model_dump_json(by_alias=True, exclude_unset=True).encode())


@router.get(
    "/{int:run_id}/timeline/entries",
    response={200: TimelineEntriesOut, **ERRORS},
    summary="A page of the run's attempts, queue moves and cluster changes",
)
def run_timeline_entries(request: ActorRequest, run_id: int, asked: Query[TimelineEntriesQuery]) -> HttpResponse:
    """The story's entries in the order they happened, `limit` (1–1000, default 200) from `offset`: each
    `{kind, index, item}` — `kind` attempt, move, change or step, `index` into that list of the whole story, `item`
    the attempt, queue move or cluster change as /timeline has it, or a step's heading (its `summary` left out: the
    summary's lists are /timeline/summary's). `kind` keeps that kind only; `pod`
    those whose pod contains it (step headings stay: a run with steps reads by step); `cycle` answers the page
    (of `limit`) holding that cycle's attempt instead of `offset`'s (`offset` says which). `total`: entries in the
    whole story; `matched`: those matching `kind` and `pod` (the next page: `offset + limit`; an offset past the
    end answers none). 422 naming the parameter when one is out of its range."""
    run = access.readable_run(request.auth, run_id)
    query = events.EntryQuery(asked.pod, asked.kind, asked.cycle, asked.offset, asked.limit)
    answer = TimelineEntriesOut.model_validate(events.timeline_entries(events.story(run), query))
    return responses.json_bytes(request, answer.model_dump_json(by_alias=True).encode())


@router.get(
    "/{int:run_id}/steps/{int:step}/cluster",
    response={200: StepClusterPageOut, **ERRORS},
    summary="One page of the cluster at the end of a step",
)
def run_step_cluster(request: ActorRequest, run_id: int, step: int, asked: Query[ClusterPageQuery]) -> HttpResponse:
    """For a run with steps (a `Changes` document): the cluster at the end of step `step` a page at a time, as
    GET /api/scenarios/{id}/cluster pages a version's (the same query: `groupKey`, `domain`, `search`, `offset`,
    `limit` ≤ 500; the same counts: `nodeCount`, `podCount`, `pendingCount`, `nodeKeys`, `podKeys`, `groupKey`,
    `groupCount`, `groups`, `domain`, `search`, `matched`, `offset`, `limit`), with the step's: `step`, `name`,
    `deletedNodes`, `marks` (pods by mark at its end — `new`, `placed`, `moved`, `pending` — and `gone`),
    `goneCount`. `nodes`: the page's (`added` during the step, `unschedulable` as cordoned or drained; `taints`,
    `allocatable` as the version has them); `pods`: those on them, then at most 200 pending, each with its node
    (null: pending), its node at the end of the step before and its `mark` — `new` (created in the step), `placed`
    (pending before), `moved` (another node), `pending`, or "" (where it was); `gone`: the pods that left during the
    step (`evicted`, `deleted`, `succeeded`) from the page's nodes, then at most 200 that were pending. Computed by
    the engine (scheduler_core.answers.stepplacements) from the run's stored story events and its version; 404 when
    the run has no such step, or it has not ended yet."""
    run = access.readable_run(request.auth, run_id)
    query = objects.PageQuery(asked.group_key, asked.domain, asked.search, asked.offset, asked.limit)
    page = presenters.step_cluster_page(events.step_page(run, step, query))
    return responses.json_bytes(request, page.model_dump_json(by_alias=True).encode())


@router.get(
    "/{int:run_id}/whatif", response={200: WhatIfOut, **ERRORS}, exclude_unset=True, summary="What would make a pod fit"
)
def run_whatif(request: ActorRequest, run_id: int, pod: str) -> dict[str, Any]:
    """For a pod that is pending in the run's version: `suggestions` — single changes (`kind`: toleration, maxSkew,
    scheduleAnyway, dropAffinityTerm, dropNodeSelector, requests, evict; `text`, `change`, the `nodes` it opens), each
    verified by re-running the engine's PreFilter and Filter on the changed input, least intrusive first;
    `noSingleChange` when none opens a node; `fitsNow` when nothing needs to change.
    """
    return whatif.suggestions(access.readable_run(request.auth, run_id), pod)


@router.post(
    "/{int:run_id}/whatif/apply",
    response={201: RunOut, **ERRORS, 429: ErrorOut},
    summary="Apply a suggestion as a new version and run it",
)
def run_whatif_apply(request: ActorRequest, run_id: int, body: WhatIfApplyIn) -> Status[RunOut]:
    """Saves the run's version with the suggestion applied (only the pod's document, the node's, or the victims'
    documents change) as the scenario's new version — in your fork when the scenario is a demo (the answer's
    `scenario` says which) — and starts a run of it (the same mode)."""
    run = access.derivable_run(request.auth, run_id)
    saved = whatif.apply(request.auth, run, body.pod, body.suggestion)
    return Status(201, presenters.run(runs.start(request.auth, saved.scenario, run.mode, releases.of_run(run))))


@router.get("/{int:run_id}/config", response={200: RunConfigOut, **ERRORS}, summary="The run's scheduler configuration")
def run_config(request: ActorRequest, run_id: int) -> dict[str, Any]:
    """`config`: the KubeSchedulerConfiguration document of the run's version as typed, or the release's
    defaults written out when it has none (`fromScenario` false): what "Try another configuration" edits."""
    return configs.config_of(access.readable_run(request.auth, run_id).version.text)


@router.post(
    "/{int:run_id}/try-config",
    response={201: RunOut, **ERRORS, 429: ErrorOut},
    summary="Run the run's version with another configuration",
)
def run_try_config(request: ActorRequest, run_id: int, body: TryConfigIn) -> Status[RunOut]:
    """Saves the run's version with its KubeSchedulerConfiguration replaced by `config` (checked on its own
    first: problems name its lines) as a new version, and starts a run of it in the same mode — in your fork
    when the scenario is a demo (the answer's `scenario` says which). Compare the two with /api/comparisons."""
    run = access.derivable_run(request.auth, run_id)
    return Status(201, presenters.run(configs.try_config(request.auth, run, body.config)))


@router.get(
    "/{int:run_id}/trace", response={200: TraceOut, **ERRORS}, exclude_unset=True, summary="Download the run's trace"
)
def run_trace(request: ActorRequest, run_id: int) -> StreamingHttpResponse:
    """The spec's trace summary (SCENARIO_AND_TRACE.md), rebuilt from the stored events and streamed
    cycle by cycle (TraceOut is its declaration; the bytes are the engine's, not re-validated)."""
    return responses.streamed_json(request, events.trace_chunks(access.readable_run(request.auth, run_id)))
