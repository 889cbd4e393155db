"""Model rows -> API output schemas (one function per schema, no logic beyond shaping)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from webui.models import FleetCheck, Run, RunCycle, Scenario, ScenarioVersion, ShareLink, Upgrade, Upload
from webui.services import documents, engine, events, objects, upgrades
from webui.services.access import Actor
from webui.schemas.releases import ReleaseOut
from webui.schemas.runs import (
    CycleExplanationOut,
    CycleOut,
    RecordedComparisonOut,
    RunOut,
    RunProgressOut,
    StepClusterPageOut,
    StepNodeOut,
    TimelineStepOut,
    TimelineSummaryOut,
)
from webui.schemas.scenarios import (
    ClusterPageOut,
    DocumentOut,
    DocumentsOut,
    DocumentTextOut,
    NodeObjectOut,
    ObjectsOut,
    PodClaimOut,
    PodObjectOut,
    ScenarioOut,
    ScenarioSummaryOut,
    VersionOut,
    VersionSummaryOut,
)
from webui.schemas.shares import ShareOut, ShareResolvedOut, ShareScenarioOut
from webui.schemas.upgrades import (
    CauseOut,
    FleetOut,
    FleetRowOut,
    FleetSummaryOut,
    UpgradeOut,
    UpgradeProgressOut,
)
from webui.schemas.uploads import UploadFileOut, UploadOut, UploadProgressOut
from webui.schemas.validate import ScenarioErrorOut, SummaryOut, ValidationOut


def scenario_summary(actor: Actor, scenario: Scenario) -> ScenarioSummaryOut:
    return ScenarioSummaryOut(
        id=scenario.pk,
        name=scenario.name,
        description=scenario.description,
        version=getattr(scenario, "version", None),
        demo=scenario.is_demo,
        owned=actor.owns(scenario),
        updated=scenario.updated,
    )


def scenario(actor: Actor, scenario: Scenario, version: ScenarioVersion, check: engine.Check | None) -> ScenarioOut:
    return ScenarioOut(
        id=scenario.pk,
        name=scenario.name,
        description=scenario.description,
        version=version.number,
        demo=scenario.is_demo,
        owned=actor.share is None and actor.owns(scenario),
        updated=scenario.updated,
        **_text_or_objects(version),
        created=scenario.created,
        forked_from=scenario.forked_from.scenario_id if scenario.forked_from else None,
        **(validation(check).model_dump() if check is not None else UNCHECKED),
    )


def _text_or_objects(version: ScenarioVersion) -> dict[str, Any]:
    """The text in "text" mode; none in "objects" mode (services/documents.py)."""
    mode = documents.mode_of(version)
    return {
        "text": version.text if mode == "text" else None,
        "mode": mode,
        "size": version.length,
        "editor_max_bytes": settings.SCHEDLAB_EDITOR_MAX_BYTES,
    }


def document(index: int, entry: documents.Entry) -> DocumentOut:
    return DocumentOut(
        index=index,
        kind=entry.kind,
        namespace=entry.namespace,
        name=entry.name,
        line=entry.line,
        size=entry.end - entry.body,
    )


def document_page(version: ScenarioVersion, page: documents.Page) -> DocumentsOut:
    entries = page.index.entries
    shown = page.matched[page.offset : page.offset + page.limit]
    return DocumentsOut(
        version=version.number,
        mode=documents.mode_of(version),
        size=version.length,
        total=len(entries),
        counts=page.index.counts(),
        kind=page.kind,
        search=page.search,
        matched=len(page.matched),
        offset=page.offset,
        limit=page.limit,
        documents=[document(position, entries[position]) for position in shown],
    )


def document_text(version: ScenarioVersion, index: int, entry: documents.Entry, text: str) -> DocumentTextOut:
    return DocumentTextOut(**document(index, entry).model_dump(), version=version.number, text=text)


UNCHECKED = {
    "valid": False,
    "errors": [],
    "summary": None,
    "notices": [],
    "objects": {},
    "findings": [],
    "fetch": [],
    "release": None,
    "dump_release": None,
    "checked": False,
}


def validation(check: engine.Check, dump: engine.Check | None = None) -> ValidationOut:
    """The check's problems, notices and findings are the engine's JSON: validated as it is.
    ``dump``: the check as the dump says (when ``check`` is of a release asked for)."""
    summary = SummaryOut(**vars(check.summary)) if check.summary else None
    return ValidationOut.model_validate(
        {
            "valid": check.valid,
            "errors": check.errors,
            "summary": summary,
            "notices": check.notices,
            "objects": check.objects,
            "findings": check.findings,
            "fetch": check.fetch,
            "release": check.release,
            "dumpRelease": (dump or check).release,
        }
    )


def version_summary(version: ScenarioVersion) -> VersionSummaryOut:
    return VersionSummaryOut(number=version.number, created=version.created, size=version.length)


def version(version: ScenarioVersion) -> VersionOut:
    return VersionOut(
        number=version.number,
        created=version.created,
        size=version.length,
        scenario=version.scenario_id,
        text=version.text,
    )


def run(run: Run) -> RunOut:
    return RunOut(
        id=run.pk,
        scenario=run.version.scenario_id,
        version=run.version.number,
        status=run.status,
        mode=run.mode,
        progress=RunProgressOut(cycle=run.cycle, cycles=run.cycles),
        error=run.error,
        attempts=run.attempts,
        event_count=run.event_count,
        stored_bytes=run.stored_bytes,
        stored_bytes_per_cycle=run.stored_bytes_per_cycle,
        created=run.created,
        started=run.started,
        finished=run.finished,
        release=run.release_choice,
        release_asked=run.release,
        feature_gates=run.feature_gates,
    )


def cycle(row: RunCycle) -> CycleOut:
    return CycleOut(
        cycle=row.cycle,
        pod=row.pod,
        node_name=row.node_name,
        first_seq=row.first_seq,
        end_seq=row.end_seq,
        failed_scheduling_message=row.failed_scheduling_message,
    )


def scenario_objects(found: objects.Objects) -> ObjectsOut:
    """Nodes and pods shaped here; the volumes and DRA devices are the engine's JSON, validated as it is."""
    return ObjectsOut.model_validate(
        {
            "version": found.version.number,
            "nodes": [node_object(node) for node in found.nodes],
            "pods": [pod_object(pod, id(pod) in found.pending, found.claims.get(pod.key, [])) for pod in found.pods],
            "volumes": found.volumes,
            "devices": found.devices,
        }
    )


def cluster_page(found: objects.Objects, page: dict[str, Any]) -> ClusterPageOut:
    """The cluster view's page (objects.cluster_page) with its nodes and pods shaped as /objects shapes them."""
    return ClusterPageOut.model_validate(
        {
            **page,
            "nodes": [node_object(node) for node in page["nodes"]],
            "pods": [pod_object(pod, id(pod) in found.pending, found.claims.get(pod.key, [])) for pod in page["pods"]],
        }
    )


def node_object(node: engine.Node) -> NodeObjectOut:
    return NodeObjectOut(
        name=node.name,
        labels=node.labels,
        taints=[{"key": t.key, "value": t.value, "effect": t.effect} for t in node.taints],
        allocatable=node.allocatable,
        allocatable_text=objects.quantities_text(node.allocatable),
        unschedulable=node.unschedulable,
    )


def pod_object(pod: engine.Pod, pending: bool, claims: list[dict[str, Any]] | None = None) -> PodObjectOut:
    """A pod as the engine reads it; its claims are the engine's JSON (dra.inventory), validated as it is."""
    requests = engine.pod_requests(pod)
    return PodObjectOut(
        namespace=pod.namespace,
        name=pod.name,
        labels=pod.labels,
        node_name=pod.node_name or None,
        priority=pod.priority,
        requests=requests,
        requests_text=objects.quantities_text(requests),
        pending=pending,
        claims=[PodClaimOut.model_validate(claim) for claim in claims or []],
    )


def share_url(request: HttpRequest, link: ShareLink) -> str:
    # The page at /share/<token> belongs to the browser UI (webui/pages.py).
    return request.build_absolute_uri(f"/share/{link.token}")


def share(request: HttpRequest, link: ShareLink) -> ShareOut:
    return ShareOut(
        token=link.token,
        url=share_url(request, link),
        scenario=link.version.scenario_id,
        version=link.version.number,
        run=link.run_id,
        compare_run=link.compare_run_id,
        step=link.step,
        created=link.created,
        revoked=not link.is_active,
        upgrade=link.upgrade_id,
    )


def share_resolved(link: ShareLink, release: dict[str, Any] | None) -> ShareResolvedOut:
    """``release``: the shared version's choice as the dump says (engine.check's)."""
    target = link.version.scenario
    return ShareResolvedOut(
        read_only=True,
        scenario=ShareScenarioOut(id=target.pk, name=target.name, description=target.description),
        version=version(link.version),
        run=run(link.run) if link.run else None,
        compare_run=link.compare_run_id,
        step=link.step,
        upgrade=link.upgrade_id,
        release=ReleaseOut.model_validate(release) if release is not None else None,
    )


def explanation(found: engine.CycleExplanation) -> CycleExplanationOut:
    """The engine's typed explanation, as its JSON (the same camelCase names) validated by the schema."""
    return CycleExplanationOut.model_validate(found.to_json())


def recorded(comparison: engine.RecordedComparison | None) -> RecordedComparisonOut | None:
    """The engine's comparison as it serves it: every compared pod in queue order, with the summary line."""
    return None if comparison is None else RecordedComparisonOut.model_validate(comparison.answers().to_json())


def timeline_steps(story: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The story's steps, checked against their schema (None: a run without steps keeps its shape)."""
    if "steps" not in story:
        return None
    steps = [TimelineStepOut.model_validate(step).model_dump() for step in story["steps"]]
    for step in steps:  # `rollouts` (and a rollout's `partition`, `paused`, `progressDeadline`) only where written
        summary = step["summary"]
        if summary is not None:
            del summary["counts"]  # the summary endpoint's own (brief_steps)
        if summary is not None and summary["rollouts"] is None:
            del summary["rollouts"]
        for rollout in (summary or {}).get("rollouts") or ():
            for key in ("partition", "paused", "progressDeadline"):
                if rollout[key] is None:
                    del rollout[key]
    return steps


STEP_PODS_LISTED = 100  # pods a list of a step's summary names in GET .../timeline/summary (`counts` says all)
STEP_POD_LISTS = ("created", "deleted", "evicted", "placed", "pending", "succeeded")


def brief_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps as the run view reads them at once: each summary's pod lists (and pendingWhy) cut to their first
    STEP_PODS_LISTED, with `counts` of each in all (a step of a 150,000-pod run places them all: named whole, the
    summary would be megabytes; a pod's entries are a search away)."""
    out = []
    for step in steps:
        summary = step["summary"]
        if summary is not None:
            summary = {
                **summary,
                **{key: summary[key][:STEP_PODS_LISTED] for key in STEP_POD_LISTS},
                "pendingWhy": summary["pendingWhy"][:STEP_PODS_LISTED],
                "counts": {key: len(summary[key]) for key in STEP_POD_LISTS},
            }
        out.append({**step, "summary": summary})
    return out


def timeline_summary(story: dict[str, Any], comparison: engine.RecordedComparison | None) -> TimelineSummaryOut:
    """What the run view reads of the story at once (events.timeline_summary), its steps (brief_steps) and recorded
    answers."""
    whole = timeline_steps(story)
    steps = brief_steps(whole) if whole is not None else None
    found = recorded(comparison)
    return TimelineSummaryOut.model_validate(
        {
            **events.timeline_summary(story),
            **({"steps": steps} if steps is not None else {}),
            "recorded": found.model_dump() if found is not None else None,
        }
    )


def step_cluster_page(page: dict[str, Any]) -> StepClusterPageOut:
    """A page of the cluster at the end of a step (events.step_page): the engine's nodes, pods and gone pods as
    their JSON, each node with the version's taints and allocatable when the version has it."""

    def node(at: engine.NodeAtStep, written: engine.Node | None) -> StepNodeOut:
        return StepNodeOut.model_validate(
            {
                **at.to_json(),
                **(
                    node_object(written).model_dump(
                        include={"taints", "allocatable", "allocatable_text"}, by_alias=True
                    )
                    if written
                    else {}
                ),
            }
        )

    return StepClusterPageOut.model_validate(
        {
            **page,
            "nodes": [node(at, written) for at, written in page["nodes"]],
            "pods": [pod.to_json() for pod in page["pods"]],
            "gone": [gone.to_json() for gone in page["gone"]],
        }
    )


def upgrade(found: Upgrade) -> UpgradeOut:
    """An upgrade comparison; its answer and counts are the engine's JSON, served as stored."""
    return UpgradeOut(
        id=found.pk,
        scenario=found.version.scenario_id,
        scenario_name=found.version.scenario.name,
        version=found.version.number,
        fleet=found.fleet_id,
        from_release=found.old_release,
        to_release=found.new_release,
        feature_gates=found.feature_gates,
        release=found.release_choice,
        status=found.status,
        progress=UpgradeProgressOut(done=found.done, total=found.total, what=found.what),
        error=found.error,
        answer=found.answer,
        counts=found.counts,
        old_run=found.old_run_id,
        new_run=found.new_run_id,
        created=found.created,
        started=found.started,
        finished=found.finished,
    )


def fleet_row(found: Upgrade) -> FleetRowOut:
    return FleetRowOut(
        upgrade=found.pk,
        scenario=found.version.scenario_id,
        scenario_name=found.version.scenario.name,
        version=found.version.number,
        status=found.status,
        from_release=found.old_release,
        release=found.release_choice,
        progress=UpgradeProgressOut(done=found.done, total=found.total, what=found.what),
        counts=found.counts,
        summary=found.answer.get("summary") if found.answer else None,
        causes=[CauseOut(**cause) for cause in upgrades.causes(found)],
        error=found.error,
    )


def fleet(check: FleetCheck, rows: list[Upgrade]) -> FleetOut:
    return FleetOut(
        id=check.pk,
        to_release=check.target,
        feature_gates=check.feature_gates,
        created=check.created,
        finished=all(row.is_finished for row in rows),
        rows=[fleet_row(row) for row in rows],
    )


def fleet_summary(check: FleetCheck) -> FleetSummaryOut:
    return FleetSummaryOut(
        id=check.pk, to_release=check.target, created=check.created, scenarios=check.upgrades.count()
    )


def upload(found: Upload) -> UploadOut:
    """A big upload: where its worker is, then the version it became or every problem."""
    return UploadOut(
        id=found.pk,
        name=found.name,
        files=[UploadFileOut(name=f["name"], size=f["size"]) for f in found.files],
        size=found.size,
        status=found.status,
        progress=UploadProgressOut(what=found.what, bytes_read=found.bytes_read, objects_read=found.objects_read),
        error=found.error,
        errors=[ScenarioErrorOut(**error) for error in found.errors],
        details=found.details,
        scenario=found.scenario_id,
        version=found.version.number if found.version is not None else None,
        valid=found.valid,
        summary=SummaryOut.model_validate(found.summary) if found.summary is not None else None,
        created=found.created,
        started=found.started,
        finished=found.finished,
    )
