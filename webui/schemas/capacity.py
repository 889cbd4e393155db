"""/api/capacity: capacity questions asked, listed, read and cancelled (webui/routers/capacity.py;
docs/CAPACITY.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema
from webui.schemas.releases import ReleaseOut

NAME_LENGTH = 400
CopiesMethod = Literal["counted", "placed", "trials"]  # what answers a pod-copies question (CapacityMethod)


class CapacityIn(ApiInput):
    kind: Literal["fit", "nodes", "removable", "fragmentation"]
    version: Optional[int] = None  # default: the latest version
    workload: Optional[str] = Field(
        default=None, max_length=NAME_LENGTH
    )  # fit: NS/NAME of a Deployment, ReplicaSet, StatefulSet or Job
    pod: Optional[str] = Field(default=None, max_length=NAME_LENGTH)  # fit: NS/NAME of a pod to copy
    likes: list[str] = Field(default_factory=list, max_length=10)  # nodes: template node names
    nodes: list[str] = Field(default_factory=list, max_length=100)  # removable: only these nodes ("can this node go?")
    max: Optional[int] = Field(default=None, ge=1, le=100_000)  # the most copies / nodes tried


class ParametersOut(ApiSchema):
    workload: Optional[str]
    pod: Optional[str]
    likes: list[str]
    nodes: list[str]
    max: Optional[int]


class CapacityProgressOut(ApiSchema):
    done: int  # trials run
    estimate: int  # the search's current guess of its total
    copies: int  # pod copies: copies placed (or counted) by the one pass so far
    copies_per_second: Optional[float]  # per CPU second of the worker's pass (None: not measured yet)


class FitOut(ApiSchema):
    target: str
    fits: int
    checked_next: bool
    bound: int
    placements: dict[str, int]  # where the N copies land: node -> count
    stopped_by: list[str]  # the copies of trial N+1 left pending
    message: str  # the FailedScheduling message of the first of them
    explanation: Optional[str]  # the explanation's headline of its last failed cycle
    displaced: list[str]
    trials: int
    tried: dict[str, bool]


class NodeCopiesOut(ApiSchema):
    node: str
    copies: int


class PerNodeOut(ApiSchema):
    """Each node's copies, most first (ties by name), at most PER_NODE_LISTED (webui/routers/capacity.py) of them."""

    nodes: list[NodeCopiesOut]
    node_count: int  # nodes holding copies, listed or not
    total: int  # the copies on them (all nodes; less than fits where a count per domain is not certain per node)
    more: int  # nodes not listed


class DomainCopiesOut(ApiSchema):
    domain: str
    before: int  # pods the constraint counted there before the copies
    room: int  # copies its nodes have room for
    added: int  # copies it ends with
    full: bool


class PerDomainOut(ApiSchema):
    """Counted per domain of one DoNotSchedule spread constraint (docs/CAPACITY.md)."""

    topology_key: str
    max_skew: int
    min_domains: int
    smallest: int
    nodes_exact: bool  # False: perNode lists only the nodes whose count is certain
    message_exact: bool
    reason: str
    domains: list[DomainCopiesOut]  # the first DOMAINS_LISTED
    domain_count: int


class CopiesOut(ApiSchema):
    """How many more copies of a pod fit, by the one pass (counted or placed) or by the trial rounds
    when the pass could differ (``method`` and ``why`` say which and why)."""

    target: str
    method: CopiesMethod
    why: str
    fits: int
    bound: Optional[int]  # the max asked (trials: the bound the search used)
    stopped_at_max: bool  # every copy up to the bound fitted; the next was not tried
    stopped_by: Optional[str]  # the copy that did not fit
    message: str  # its FailedScheduling message ("" when stopped at the bound)
    message_exact: bool  # False: the reason per domain, not the scheduler's message
    explanation: Optional[str]  # the explanation's headline of its failed cycle (placed, trials)
    counted_total: Optional[int]  # stopped at max: how many counting says fit
    per_node: PerNodeOut
    per_domain: Optional[PerDomainOut]
    trials: int  # 1 for the pass
    displaced: list[str]  # pods the copies preempt (trials only)


class UnplaceableOut(ApiSchema):
    pod: str
    reason: str


class TemplateOut(ApiSchema):
    like: str
    needed: int
    most: int
    exhaustive: bool
    pods_per_node: dict[str, list[str]]
    unplaceable: list[UnplaceableOut]
    tried: dict[str, int]


class NodesNeededOut(ApiSchema):
    pending: list[str]
    templates: list[TemplateOut]
    trials: int


class VerdictOut(ApiSchema):
    node: str
    removable: bool
    reasons: list[str]


class RemovableOut(ApiSchema):
    order: str
    verdicts: list[VerdictOut]
    together: list[str]
    trials: int


class StrandedOut(ApiSchema):
    node: str
    free: int
    blocked_by: str
    free_text: str | None = None  # with its unit ("22Gi", "1500m"); absent in answers stored before it was


class ResourceOut(ApiSchema):
    resource: str
    free_total: int
    largest_fit: int
    largest_node: str
    smallest_request: int
    stranded: list[StrandedOut]
    stranded_total: int
    # The amounts with their unit ("22Gi", "4000m"); absent in answers stored before they were.
    free_total_text: str | None = None
    largest_fit_text: str | None = None
    stranded_total_text: str | None = None


class FragmentationOut(ApiSchema):
    resources: list[ResourceOut]
    trials: int


class AnswerOut(ApiSchema):
    """Exactly one is set: the kind's answer."""

    fit: Optional[FitOut] = None  # how many more of a workload fit
    copies: Optional[CopiesOut] = None  # how many more copies of a pod fit
    nodes: Optional[NodesNeededOut] = None
    removable: Optional[RemovableOut] = None
    fragmentation: Optional[FragmentationOut] = None


class DecidingOut(ApiSchema):
    """The deciding trial, saved as a scenario of yours and run: open it at ``url``."""

    run: int
    scenario: int
    label: str
    cycle: Optional[int]  # the cycle that shows the answer (the N+1-th copy's last failed attempt)
    step: Optional[int]  # the step of the trial's changes
    url: str


class CapacityOut(ApiSchema):
    id: int
    scenario: int
    version: int
    kind: str
    parameters: ParametersOut
    status: str
    method: Optional[CopiesMethod]  # pod copies: what answers (None: not known yet)
    why: str  # why that method answers
    progress: CapacityProgressOut
    width: int  # trials a round may hold
    error: str
    answer: Optional[AnswerOut]
    deciding: Optional[DecidingOut]
    created: datetime
    finished: Optional[datetime]
    release: Optional[ReleaseOut] = None  # the release its engine calls replay (the version's, as the dump says)


class WorkloadOut(ApiSchema):
    kind: str
    namespace: str
    name: str
    replicas: int


class UnusableWorkloadOut(ApiSchema):
    """A workload the controllers cannot use (a dump's Deployment without its pod template): left out, with why."""

    kind: str
    namespace: str
    name: str
    reason: str  # its first problem: field path, message, file and line


class TargetsOut(ApiSchema):
    """What a question may name: the scalable workloads, the nodes and the pods, as the engine reads them;
    the workloads left out, each with why."""

    version: int
    workloads: list[WorkloadOut]
    nodes: list[str]
    pods: list[str]
    unusable: list[UnusableWorkloadOut] = []
