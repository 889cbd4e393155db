"""Capacity questions (issue 26) under /api/: ask, read, list, cancel. Progress streams over
/ws/capacity/<id>/ (capacity_consumer.py); the trials run on the workers (services/capacity.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status

from webui import schemas
from webui.models import CapacityQuestion
from webui.services import access, capacity, engine, scenarios
from webui.services.capacity import Asked

router = Router(tags=["capacity"])
ERRORS = schemas.ERRORS
NAME_LENGTH = 400
LISTED_QUESTIONS = 50
PER_NODE_LISTED = 100  # nodes a pod-copies answer lists (perNode.nodeCount and total count them all)


class CapacityIn(Schema):
    kind: Literal["fit", "nodes", "removable", "fragmentation"]
    version: Optional[int] = None  # default: the latest version
    workload: Optional[str] = Field(None, max_length=NAME_LENGTH)  # fit: NS/NAME of a Deployment, ReplicaSet, StatefulSet or Job
    pod: Optional[str] = Field(None, max_length=NAME_LENGTH)  # fit: NS/NAME of a pod to copy
    likes: list[str] = Field(default_factory=list, max_length=10)  # nodes: template node names
    nodes: list[str] = Field(default_factory=list, max_length=100)  # removable: only these nodes ("can this node go?")
    max: Optional[int] = Field(None, ge=1, le=100_000)  # the most copies / nodes tried


class ParametersOut(Schema):
    workload: Optional[str]
    pod: Optional[str]
    likes: list[str]
    nodes: list[str]
    max: Optional[int]


class ProgressOut(Schema):
    done: int  # trials run
    estimate: int  # the search's current guess of its total
    copies: int  # pod copies: copies placed (or counted) by the one pass so far
    copiesPerSecond: Optional[float]  # noqa: N815 - per CPU second of the worker's pass (None: not measured yet)


class FitOut(Schema):
    target: str
    fits: int
    checkedNext: bool  # noqa: N815
    bound: int
    placements: dict[str, int]  # where the N copies land: node -> count
    stoppedBy: list[str]  # noqa: N815 - the copies of trial N+1 left pending
    message: str  # the FailedScheduling message of the first of them
    explanation: Optional[str]  # the explanation's headline of its last failed cycle
    displaced: list[str]
    trials: int
    tried: dict[str, bool]


class NodeCopiesOut(Schema):
    node: str
    copies: int


class PerNodeOut(Schema):
    """Each node's copies, most first (ties by name), at most PER_NODE_LISTED of them."""

    nodes: list[NodeCopiesOut]
    nodeCount: int  # noqa: N815 - nodes holding copies, listed or not
    total: int  # the copies on them (all nodes; less than fits where a count per domain is not certain per node)
    more: int  # nodes not listed


class DomainCopiesOut(Schema):
    domain: str
    before: int  # pods the constraint counted there before the copies
    room: int  # copies its nodes have room for
    added: int  # copies it ends with
    full: bool


class PerDomainOut(Schema):
    """Counted per domain of one DoNotSchedule spread constraint (docs/CAPACITY.md)."""

    topologyKey: str  # noqa: N815
    maxSkew: int  # noqa: N815
    minDomains: int  # noqa: N815
    smallest: int
    nodesExact: bool  # noqa: N815 - False: perNode lists only the nodes whose count is certain
    messageExact: bool  # noqa: N815
    reason: str
    domains: list[DomainCopiesOut]  # the first DOMAINS_LISTED
    domainCount: int  # noqa: N815


class CopiesOut(Schema):
    """How many more copies of a pod fit, by the one pass (counted or placed) or by the trial rounds
    when the pass could differ (``method`` and ``why`` say which and why)."""

    target: str
    method: Literal["counted", "placed", "trials"]
    why: str
    fits: int
    bound: Optional[int]  # the max asked (trials: the bound the search used)
    stoppedAtMax: bool  # noqa: N815 - every copy up to the bound fitted; the next was not tried
    stoppedBy: Optional[str]  # noqa: N815 - the copy that did not fit
    message: str  # its FailedScheduling message ("" when stopped at the bound)
    messageExact: bool  # noqa: N815 - False: the reason per domain, not the scheduler's message
    explanation: Optional[str]  # the explanation's headline of its failed cycle (placed, trials)
    countedTotal: Optional[int]  # noqa: N815 - stopped at max: how many counting says fit
    perNode: PerNodeOut  # noqa: N815
    perDomain: Optional[PerDomainOut]  # noqa: N815
    trials: int  # 1 for the pass
    displaced: list[str]  # pods the copies preempt (trials only)


class UnplaceableOut(Schema):
    pod: str
    reason: str


class TemplateOut(Schema):
    like: str
    needed: int
    most: int
    exhaustive: bool
    podsPerNode: dict[str, list[str]]  # noqa: N815
    unplaceable: list[UnplaceableOut]
    tried: dict[str, int]


class NodesNeededOut(Schema):
    pending: list[str]
    templates: list[TemplateOut]
    trials: int


class VerdictOut(Schema):
    node: str
    removable: bool
    reasons: list[str]


class RemovableOut(Schema):
    order: str
    verdicts: list[VerdictOut]
    together: list[str]
    trials: int


class StrandedOut(Schema):
    node: str
    free: int
    blockedBy: str  # noqa: N815


class ResourceOut(Schema):
    resource: str
    freeTotal: int  # noqa: N815
    largestFit: int  # noqa: N815
    largestNode: str  # noqa: N815
    smallestRequest: int  # noqa: N815
    stranded: list[StrandedOut]
    strandedTotal: int  # noqa: N815


class FragmentationOut(Schema):
    resources: list[ResourceOut]
    trials: int


class AnswerOut(Schema):
    """Exactly one is set: the kind's answer."""

    fit: Optional[FitOut] = None  # how many more of a workload fit
    copies: Optional[CopiesOut] = None  # how many more copies of a pod fit
    nodes: Optional[NodesNeededOut] = None
    removable: Optional[RemovableOut] = None
    fragmentation: Optional[FragmentationOut] = None


class DecidingOut(Schema):
    """The deciding trial, saved as a scenario of yours and run: open it at ``url``."""

    run: int
    scenario: int
    label: str
    cycle: Optional[int]  # the cycle that shows the answer (the N+1-th copy's last failed attempt)
    step: Optional[int]  # the step of the trial's changes
    url: str


class CapacityOut(Schema):
    id: int
    scenario: int
    version: int
    kind: str
    parameters: ParametersOut
    status: str
    method: Optional[Literal["counted", "placed", "trials"]]  # pod copies: what answers (None: not known yet)
    why: str  # why that method answers
    progress: ProgressOut
    width: int  # trials a round may hold
    error: str
    answer: Optional[AnswerOut]
    deciding: Optional[DecidingOut]
    created: datetime
    finished: Optional[datetime]


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
    return PerNodeOut(nodes=listed, nodeCount=held, total=sum(copies for _, copies in ranked), more=held - len(listed))


def copies_out(question: CapacityQuestion) -> CopiesOut:
    stored = question.answer["copies"]
    return CopiesOut(**{key: stored[key] for key in ("target", "method", "why", "fits", "bound", "messageExact",
                                                     "explanation", "countedTotal", "perDomain", "trials", "displaced")},
                     stoppedAtMax=question.stopped_at_max, stoppedBy=question.stopped_by or None,
                     message=question.stop_message, perNode=per_node(question.per_node))


def present(question: CapacityQuestion) -> CapacityOut:
    run = question.deciding_run
    deciding = None if run is None else DecidingOut(
        run=run.pk, scenario=run.version.scenario_id, label=question.deciding_label, cycle=question.deciding_cycle,
        step=question.deciding_step, url=deciding_url(question))
    parameters = {"workload": None, "pod": None, "likes": [], "nodes": [], "max": None, **question.parameters}
    return CapacityOut(
        id=question.pk, scenario=question.version.scenario_id, version=question.version.number, kind=question.kind,
        parameters=ParametersOut(**parameters), status=question.status, method=question.method or None,
        why=question.why,
        progress=ProgressOut(done=question.trials_done, estimate=max(question.trials_done, question.trials_estimate),
                             copies=question.copies_done, copiesPerSecond=question.copies_per_second),
        width=question.width, error=question.error, answer=_answer_out(question), deciding=deciding,
        created=question.created, finished=question.finished)


def _answer_out(question: CapacityQuestion) -> Optional[AnswerOut]:
    if not question.answer:
        return None
    if "copies" in question.answer:
        return AnswerOut(copies=copies_out(question))
    return AnswerOut(**question.answer)


def _fresh(question_id: int) -> CapacityQuestion:
    return CapacityQuestion.objects.select_related("version", "deciding_run__version").get(pk=question_id)


@router.post("/scenarios/{int:scenario_id}/capacity", response={201: CapacityOut, **ERRORS},
             summary="Ask a capacity question")
def capacity_ask(request: HttpRequest, scenario_id: int, body: CapacityIn):
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


@router.get("/scenarios/{int:scenario_id}/capacity", response={200: list[CapacityOut], **ERRORS},
            summary="List your capacity questions about a scenario")
def capacity_list(request: HttpRequest, scenario_id: int):
    """Newest first (at most 50)."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = capacity.listing(request.auth, scenario).select_related("deciding_run__version")[:LISTED_QUESTIONS]
    return [present(q) for q in found]


@router.get("/capacity/{int:question_id}", response={200: CapacityOut, **ERRORS}, summary="Read a capacity question")
def capacity_read(request: HttpRequest, question_id: int):
    """Its status, the method answering (pod copies) and why, progress (trials done of the estimated total; copies
    placed and per second), and once succeeded its answer and deciding run."""
    capacity.recover_if_stale(capacity.readable_question(request.auth, question_id))  # as runs are on read
    return present(_fresh(question_id))


@router.post("/capacity/{int:question_id}/cancel", response={200: CapacityOut, **ERRORS, 409: schemas.ErrorOut},
             summary="Cancel a capacity question")
def capacity_cancel(request: HttpRequest, question_id: int):
    """Stops it: status cancelled, its outstanding trials revoked. 409 when it already finished."""
    question = capacity.readable_question(request.auth, question_id)
    capacity.cancel(question)
    return present(_fresh(question_id))


class WorkloadOut(Schema):
    kind: str
    namespace: str
    name: str
    replicas: int


class TargetsOut(Schema):
    """What a question may name: the scalable workloads, the nodes and the pods, as the engine reads them."""

    version: int
    workloads: list[WorkloadOut]
    nodes: list[str]
    pods: list[str]


@router.get("/scenarios/{int:scenario_id}/capacity/targets", response={200: TargetsOut, **ERRORS},
            summary="What capacity questions can name")
def capacity_targets(request: HttpRequest, scenario_id: int, version: Optional[int] = None):
    """The Deployments, ReplicaSets, StatefulSets and Jobs (for `fit`), the nodes (for `nodes` and `removable`) and
    the pods of a version, as the engine loads them. 400 when the version does not validate or has steps of its own."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    found = capacity.targets(scenarios.visible_version(request.auth, scenario, version))
    return TargetsOut(version=found.version, workloads=[WorkloadOut(**w) for w in found.workloads], nodes=found.nodes,
                      pods=found.pods)
