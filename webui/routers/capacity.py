"""Capacity questions (issue 26): ask, list, read, cancel. Mounted at /api/capacity (webui/api.py): a
scenario's questions under /api/capacity/scenarios/{id}, one question at /api/capacity/{id}. Progress
streams over /ws/capacity/<id>/ (capacity_consumer.py); the trials run on the workers (services/capacity.py)."""

from __future__ import annotations

from typing import Any, Optional, cast

from ninja import Router, Status

from webui.models import CapacityQuestion
from webui.schemas.capacity import (
    AnswerOut,
    CapacityIn,
    CapacityOut,
    CapacityProgressOut,
    CopiesMethod,
    CopiesOut,
    DecidingOut,
    NodeCopiesOut,
    ParametersOut,
    PerDomainOut,
    PerNodeOut,
    TargetsOut,
    UnusableWorkloadOut,
    WorkloadOut,
)
from webui.schemas.common import ERRORS, ErrorOut
from webui.services import access, capacity, engine, scenarios
from webui.services.access import ActorRequest
from webui.services.capacity import Asked

router = Router(tags=["capacity"], by_alias=True)
LISTED_QUESTIONS = 50
PER_NODE_LISTED = 100  # nodes a pod-copies answer lists (perNode.nodeCount and total count them all)
DOMAINS_LISTED = 100  # domains a counted-per-domain answer lists (perDomain.domainCount counts them all)


def deciding_url(question: CapacityQuestion) -> str:
    query = []
    if question.deciding_cycle is not None:
        query.append(f"cycle={question.deciding_cycle}&step=Filter")
    if question.deciding_step is not None:
        query.append(f"changeStep={question.deciding_step}")
    return f"/runs/{question.deciding_run_id}/" + (f"?{'&'.join(query)}" if query else "")


def per_node(counts: Optional[dict[str, int]]) -> PerNodeOut:
    """The nodes' copies most first (ties by name), bounded: a 5000-node answer lists PER_NODE_LISTED."""
    ranked = sorted((counts or {}).items(), key=lambda item: (-item[1], item[0]))
    listed = [NodeCopiesOut(node=node, copies=copies) for node, copies in ranked[:PER_NODE_LISTED] if copies > 0]
    held = sum(1 for _, copies in ranked if copies > 0)
    return PerNodeOut(nodes=listed, node_count=held, total=sum(copies for _, copies in ranked), more=held - len(listed))


def per_domain(spread: dict[str, Any]) -> PerDomainOut:
    """The engine's count per domain with its first DOMAINS_LISTED domains (hostname spreading: one per node)."""
    domains = spread["domains"]
    return PerDomainOut.model_validate({**spread, "domains": domains[:DOMAINS_LISTED], "domainCount": len(domains)})


def copies_out(question: CapacityQuestion, stored: dict[str, Any]) -> CopiesOut:
    """``stored``: the engine's answer (PassAnswerJSON less its trial); each node's copies and whether
    it stopped at max are the question's (its ``per_node`` and ``stopped_at_max``)."""
    spread = stored["perDomain"]
    return CopiesOut.model_validate(
        {
            **stored,
            "perDomain": None if spread is None else per_domain(spread),
            "stoppedAtMax": question.stopped_at_max,
            "perNode": per_node(question.per_node),
        }
    )


def present(question: CapacityQuestion) -> CapacityOut:
    run = question.deciding_run
    deciding = (
        None
        if run is None
        else DecidingOut(
            run=run.pk,
            scenario=run.version.scenario_id,
            label=question.deciding_label,
            cycle=question.deciding_cycle,
            step=question.deciding_step,
            url=deciding_url(question),
        )
    )
    parameters = {"workload": None, "pod": None, "likes": [], "nodes": [], "max": None, **question.parameters}
    return CapacityOut(
        id=question.pk,
        scenario=question.version.scenario_id,
        version=question.version.number,
        kind=question.kind,
        parameters=ParametersOut(**parameters),
        status=question.status,
        method=cast(CopiesMethod | None, question.method or None),  # one of CapacityMethod's values, or "" (not known)
        why=question.why,
        progress=CapacityProgressOut(
            done=question.trials_done,
            estimate=max(question.trials_done, question.trials_estimate),
            copies=question.copies_done,
            copies_per_second=question.copies_per_second,
        ),
        width=question.width,
        error=question.error,
        answer=_answer_out(question),
        deciding=deciding,
        created=question.created,
        finished=question.finished,
        release=question.release_choice,
    )


def _answer_out(question: CapacityQuestion) -> Optional[AnswerOut]:
    if not question.answer:
        return None
    if "copies" in question.answer:
        return AnswerOut(copies=copies_out(question, question.answer["copies"]))
    return AnswerOut.model_validate(question.answer)


def _fresh(question_id: int) -> CapacityQuestion:
    return CapacityQuestion.objects.select_related("version", "deciding_run__version").get(pk=question_id)


@router.post("/scenarios/{int:scenario_id}", response={201: CapacityOut, **ERRORS}, summary="Ask a capacity question")
def capacity_ask(request: ActorRequest, scenario_id: int, body: CapacityIn) -> Status[CapacityOut]:
    """Starts a capacity question about a version (default: the latest): `fit` (how many more copies of `workload`
    or `pod` fit; a `pod` is answered by the engine's one pass — counted or placed — unless only trials give the
    answer: `method` and `why` say which), `nodes` (how many nodes like each of `likes` the pending pods need), `removable` (which nodes can
    go; `nodes` narrows it to those), `fragmentation`. Its trials run on the workers in rounds; follow it at
    GET /api/capacity/{id} or /ws/capacity/{id}/. 400 when the scenario cannot answer it (no such workload or node).
    """
    scenario = access.runnable_scenario(request.auth, scenario_id)
    question = engine.Question(body.kind, body.workload, body.pod, tuple(body.likes), tuple(body.nodes), body.max)
    asked = capacity.ask(request.auth, scenario, Asked(question, body.version))
    return Status(201, present(_fresh(asked.pk)))


@router.get(
    "/scenarios/{int:scenario_id}",
    response={200: list[CapacityOut], **ERRORS},
    summary="List your capacity questions about a scenario",
)
def capacity_list(request: ActorRequest, scenario_id: int) -> list[CapacityOut]:
    """Newest first (at most 50)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = capacity.listing(request.auth, scenario).select_related("deciding_run__version")[:LISTED_QUESTIONS]
    return [present(q) for q in found]


@router.get("/{int:question_id}", response={200: CapacityOut, **ERRORS}, summary="Read a capacity question")
def capacity_read(request: ActorRequest, question_id: int) -> CapacityOut:
    """Its status, the method answering (pod copies) and why, progress (trials done of the estimated total; copies
    placed and per second), and once succeeded its answer and deciding run."""
    capacity.recover_if_stale(capacity.readable_question(request.auth, question_id))  # as runs are on read
    return present(_fresh(question_id))


@router.post(
    "/{int:question_id}/cancel",
    response={200: CapacityOut, **ERRORS, 409: ErrorOut},
    summary="Cancel a capacity question",
)
def capacity_cancel(request: ActorRequest, question_id: int) -> CapacityOut:
    """Stops it: status cancelled, its outstanding trials revoked. 409 when it already finished."""
    question = capacity.readable_question(request.auth, question_id)
    capacity.cancel(question)
    return present(_fresh(question_id))


@router.get(
    "/scenarios/{int:scenario_id}/targets",
    response={200: TargetsOut, **ERRORS},
    summary="What capacity questions can name",
)
def capacity_targets(request: ActorRequest, scenario_id: int, version: Optional[int] = None) -> TargetsOut:
    """The Deployments, ReplicaSets, StatefulSets and Jobs (for `fit`), the nodes (for `nodes` and `removable`) and
    the pods of a version, as the engine loads them, and the workloads the controllers cannot use (`unusable`, each
    with its reason: a dump's Deployment without its pod template). 400 when the version does not validate or has
    steps of its own (then `details.withoutSteps`: the newest version before it that questions can be asked of, or
    null; always null through a share link, which shows its one version)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    look_back = request.auth.share is None
    found = capacity.targets(scenarios.visible_version(request.auth, scenario, version), look_back)
    return TargetsOut(
        version=found.version,
        workloads=[WorkloadOut(**w) for w in found.workloads],
        nodes=found.nodes,
        pods=found.pods,
        unusable=[UnusableWorkloadOut(**w) for w in found.unusable],
    )
