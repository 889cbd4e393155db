"""API schemas. Field names are the public JSON contract (camelCase where the event stream uses it)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema


class ErrorBody(Schema):
    code: str
    message: str
    details: dict[str, Any] = {}


class ErrorOut(Schema):
    error: ErrorBody


class SessionOut(Schema):
    csrfToken: str  # noqa: N815
    user: str | None
    anonymous: bool


class ScenarioIn(Schema):
    name: str = Field(..., min_length=1, max_length=200)
    text: str = ""
    description: str = ""


class ScenarioUpdateIn(Schema):
    text: str
    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None


class ForkIn(Schema):
    version: int | None = None
    name: str | None = Field(None, min_length=1, max_length=200)


class TextIn(Schema):
    text: str


class ScenarioErrorOut(Schema):
    object: str
    path: str
    line: int | None
    message: str
    code: str = "invalid"  # or "limit_exceeded"
    limit: str | None = None  # with limit_exceeded: the limit's name, e.g. "max_nodes"


class SummaryOut(Schema):
    nodes: int
    pods: int
    pendingPods: int  # noqa: N815


class NoticeOut(Schema):
    """Something the scheduler leaves out of a valid scenario, said once (never silently dropped)."""

    code: str = Field(description="ignored-kinds, finished-pods, missing-node, other-scheduler, scheduling-gated, resource-claims, dra-feature-off, pending-volumes")
    message: str
    objects: list[str] = Field(description='the objects concerned, e.g. "Pod default/web-1", in document order')


class ValidationOut(Schema):
    valid: bool
    errors: list[ScenarioErrorOut]
    summary: SummaryOut | None
    notices: list[NoticeOut] = []


class ScenarioSummaryOut(Schema):
    id: int
    name: str
    description: str
    version: int | None
    demo: bool
    owned: bool
    updated: datetime


class ScenarioOut(ScenarioSummaryOut):
    text: str
    created: datetime
    forkedFrom: int | None  # noqa: N815 - the scenario id this one was forked from
    valid: bool
    errors: list[ScenarioErrorOut]
    summary: SummaryOut | None
    notices: list[NoticeOut] = []
    # False only in the answer to an import with check=later: valid/errors/summary are not known
    # yet (GET /api/scenarios/{id} gives them, waiting for the check under way).
    checked: bool = True


class VersionSummaryOut(Schema):
    number: int
    created: datetime
    size: int


class VersionOut(VersionSummaryOut):
    scenario: int
    text: str


class DiffOut(Schema):
    old: int
    new: int
    diff: str


class ProgressOut(Schema):
    cycle: int
    cycles: int


class RunOut(Schema):
    id: int
    scenario: int
    version: int
    status: str
    mode: str  # timeline (run to the end) or single (one cycle per pending pod)
    progress: ProgressOut
    error: str
    attempts: int
    eventCount: int  # noqa: N815
    storedBytes: int  # noqa: N815 - compressed event payload bytes stored so far
    storedBytesPerCycle: int | None  # noqa: N815 - storedBytes / finished cycles (null before the first)
    created: datetime
    started: datetime | None
    finished: datetime | None


class EventOut(Schema):
    seq: int
    cycle: int
    pod: str
    extensionPoint: str  # noqa: N815
    plugin: str | None
    payload: Any


class EventsPageOut(Schema):
    events: list[EventOut]
    next: int  # pass as ?since= to continue
    done: bool  # the run finished and no stored event is left after `next`


class CycleOut(Schema):
    cycle: int
    pod: str
    nodeName: str | None  # noqa: N815 - null when the pod was not scheduled
    firstSeq: int  # noqa: N815 - seq of the cycle's CycleStart event
    endSeq: int  # noqa: N815 - one past its CycleEnd event: the cycle is firstSeq <= seq < endSeq
    failedSchedulingMessage: str | None  # noqa: N815 - null when the pod was scheduled


class ReasonGroupOut(Schema):
    reason: str  # a Filter reason, as FailedScheduling counts it (each node under its first failing plugin)
    count: int
    plugins: list[str]
    nodes: list[str]  # empty for the nodes a PreFilterResult left out (the events do not name them)
    outsidePreFilter: bool  # noqa: N815


class PreFilterExplanationOut(Schema):
    rejected: bool  # PreFilter stopped the cycle (Filter did not run)
    plugins: list[str]  # the plugins that rejected, or that narrowed the nodes
    reasons: list[str]
    narrowedTo: list[str] | None  # noqa: N815 - the PreFilterResult's nodes; null: every node went to Filter
    missingNodes: list[str]  # noqa: N815 - narrowed-to names that are not nodes of the cluster
    sentence: str


class FilterExplanationOut(Schema):
    evaluated: int
    feasible: int
    groups: list[ReasonGroupOut]  # most nodes first
    sentence: str


class AllowedDomainOut(Schema):
    value: str
    nodes: list[str]


class ConstraintAllowanceOut(Schema):
    topologyKey: str  # noqa: N815
    maxSkew: int  # noqa: N815
    allowed: list[AllowedDomainOut]  # the domains this hard constraint alone allows
    sentence: str


class SpreadExplanationOut(Schema):
    constraints: list[ConstraintAllowanceOut]
    allowedByAll: list[str]  # noqa: N815 - the candidate nodes every hard constraint allows
    sentence: str


class PluginMarginOut(Schema):
    plugin: str
    weight: int
    winner: int  # the chosen node's weighted score
    runnerUp: int  # noqa: N815
    difference: int


class WinnerExplanationOut(Schema):
    node: str
    total: int
    runnerUp: str | None  # noqa: N815 - null when one node was scored
    runnerUpTotal: int | None  # noqa: N815
    margin: int
    plugins: list[PluginMarginOut]
    ties: list[str]
    sentence: str


class RequestShortfallOut(Schema):
    claim: str  # namespace/name
    request: str
    deviceClass: str  # noqa: N815
    wanted: str  # a count, or "all"
    mostFree: int  # noqa: N815 - the most devices of the class any one node has free
    bestNodes: list[str]  # noqa: N815 - the nodes with that many free


class ClaimsExplanationOut(Schema):
    perNode: dict[str, list[str]]  # noqa: N815 - node -> DynamicResources' sentence per request
    shortfalls: list[RequestShortfallOut]
    sentence: str


class CycleExplanationOut(Schema):
    cycle: int
    pod: str
    outcome: str  # scheduled | unschedulable | error | running
    node: str | None
    headline: str
    preFilter: PreFilterExplanationOut | None  # noqa: N815
    filter: FilterExplanationOut | None
    spread: SpreadExplanationOut | None
    winner: WinnerExplanationOut | None
    claims: ClaimsExplanationOut | None = None  # a pod with claims: DynamicResources' per-node verdicts


class NodeObjectOut(Schema):
    name: str
    labels: dict[str, str]
    taints: list[dict[str, str]]
    allocatable: dict[str, int]  # the engine's integers: millicores for cpu, bytes for memory, else units
    allocatableText: dict[str, str]  # noqa: N815 - the same as Kubernetes quantities ("500m", "16Gi")
    unschedulable: bool


class PodClaimOut(Schema):
    podClaim: str  # noqa: N815 - the entry's name in spec.resourceClaims
    claim: str | None  # namespace/name; None while a template's claim is not created yet
    requests: list[str]  # "gpu: 2 x gpu.example.com", "gpu: all of ...", "gpu: first of ..."
    devices: list[str]  # driver/pool/device of its allocation
    reservedFor: list[str]  # noqa: N815 - pod names


class PodObjectOut(Schema):
    namespace: str
    name: str
    labels: dict[str, str]
    nodeName: str | None  # noqa: N815
    priority: int
    requests: dict[str, int]  # the pod's effective requests (containers, init containers, overhead)
    requestsText: dict[str, str]  # noqa: N815
    pending: bool
    claims: list[PodClaimOut] = []  # its ResourceClaims (DRA), in spec.resourceClaims order


class DeviceOut(Schema):
    device: str  # driver/pool/device
    name: str
    attributes: dict[str, int | bool | str]
    classes: list[str]  # the DeviceClasses whose selectors accept it
    claim: str | None  # the claim holding it (namespace/name), None when free
    reservedFor: list[str]  # noqa: N815 - that claim's pods
    inFlight: bool = False  # noqa: N815 - held by an allocation Reserve made and PreBind has not written


class NodeDevicesOut(Schema):
    node: str
    free: int
    devices: list[DeviceOut]


class VolumeObjectOut(Schema):
    name: str
    phase: str
    storageClass: str | None  # noqa: N815
    claim: str | None  # the bound claim (spec.claimRef), "namespace/name"
    domains: dict[str, list[str]]  # topology key -> values the volume can be used in (labels and node affinity)
    capacityBytes: int | None = None  # noqa: N815


class ObjectsOut(Schema):
    version: int
    nodes: list[NodeObjectOut]
    pods: list[PodObjectOut]
    volumes: list[VolumeObjectOut] = []
    devices: list[NodeDevicesOut] = []  # DRA devices per node (nodes with ResourceSlices)


class ShareIn(Schema):
    version: int | None = None  # default: the latest version
    run: int | None = None
    compareRun: int | None = None  # noqa: N815 - a comparison's link: `run` side by side with this run
    step: str = Field("", max_length=200)


class ShareOut(Schema):
    token: str
    url: str
    scenario: int
    version: int
    run: int | None
    compareRun: int | None = None  # noqa: N815
    step: str
    created: datetime
    revoked: bool


class ShareScenarioOut(Schema):
    id: int
    name: str
    description: str


class ShareResolvedOut(Schema):
    readOnly: bool  # noqa: N815 - always true; the UI shows no edit controls
    scenario: ShareScenarioOut
    version: VersionOut
    run: RunOut | None
    compareRun: int | None = None  # noqa: N815 - a comparison's link: open /compare/?a=run&b=compareRun
    step: str


class DemoOut(Schema):
    slug: str
    name: str
    description: str
