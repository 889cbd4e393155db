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


# The error answers every operation may give (one shape: ErrorOut); an operation adds 409 or 429 itself.
ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 503: ErrorOut}


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
    file: str | None = None  # the file (inside a directory or archive) when several were read as one scenario
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

    code: str = Field(description="ignored-kinds, finished-pods, missing-node, other-scheduler, scheduling-gated, resource-claims, "
                                  "dra-feature-off, pending-volumes, no-nodes, no-pending-pods, unread-files, not-objects, links, "
                                  "container-logs, duplicate-objects, kept-invalid")
    message: str
    objects: list[str] = Field(description='the objects concerned, e.g. "Pod default/web-1", in document order')


class FindingOut(Schema):
    """Something the dump lacks that the replay reads (`check --json`'s findings): said before the run."""

    code: str = Field(description="controller-absent, services-absent, namespaces-absent, claims-absent, volumes-absent, "
                                  "storage-classes-absent, priority-classes-absent, node-taints-missing, no-config")
    message: str
    objects: list[str] = Field(description='the objects concerned, e.g. "Pod kube-system/coredns-1"')
    kubectl: str | None = Field(None, description="kubectl command line(s), one per line, that fetch exactly what is missing")
    action: str | None = Field(None, description='a one-click change the API makes: "add-node-taints" '
                                                 "(POST /api/scenarios/{id}/fixes/node-taints)")


class ValidationOut(Schema):
    valid: bool
    errors: list[ScenarioErrorOut]
    summary: SummaryOut | None
    notices: list[NoticeOut] = []
    # What `python -m scheduler_core check --json` says of the same text: objects the scheduler uses,
    # counted per kind, and the completeness findings (empty while the text does not load).
    objects: dict[str, int] = {}
    findings: list[FindingOut] = []
    fetch: list[str] = []  # every finding's kubectl lines, each once: fetch everything the dump lacks


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
    objects: dict[str, int] = {}
    findings: list[FindingOut] = []
    fetch: list[str] = []  # every finding's kubectl lines, each once: fetch everything the dump lacks
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


class PluginDetailOut(Schema):
    plugin: str
    code: str  # the recorded status's code
    reasons: list[str]  # the recorded status's reasons
    # typed facts by "kind": resource (resource, requested, used, allocatable, free, pods), taint (key,
    # value, effect), port (protocol, hostIP, port, usedBy), label (source, key, operator, values,
    # nodeValue), spread (topologyKey, domain, matching, selfMatch, globalMinimum, maxSkew, skew),
    # volume (subject, detail, count, limit), node; each with its "reason" and "text"
    facts: list[dict]
    text: str


class NodeDetailOut(Schema):
    plugins: dict[str, PluginDetailOut]  # every plugin that rejected the node, in Filter order
    nominatedPods: list[str] = []  # noqa: N815 - nominated pods counted on the node (first filter pass)


class CycleDetailsOut(Schema):
    cycle: int
    pod: str
    nodes: dict[str, NodeDetailOut]  # every rejected node, in evaluation order


class CriterionOut(Schema):
    key: str  # pdbViolations | highestPriority | prioritySum | victims | latestStart
    prefers: str


class CandidateCriteriaOut(Schema):
    node: str
    victims: list[str]
    pdbViolations: int  # noqa: N815
    highestPriority: int  # noqa: N815
    prioritySum: int  # noqa: N815
    victimCount: int  # noqa: N815
    earliestStart: str | None  # noqa: N815 - of its highest-priority victims; null: none has a start time ("now")
    droppedAt: str | None  # noqa: N815 - the criterion key that ruled it out; null: best on every criterion
    chosen: bool


class PreemptionRankingOut(Schema):
    criteria: list[CriterionOut]  # pickOneNodeForPreemption's criteria, in order
    candidates: list[CandidateCriteriaOut]  # node order
    chosen: str | None  # null: a random tie left open (single pass)
    deciding: str  # a criterion key, or onlyCandidate | tieBreak | randomTie
    sentence: str


class ScoringExplanationOut(Schema):
    skipped: bool  # one feasible node: kube-scheduler ran no PreScore / Score / NormalizeScore
    node: str | None
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
    filterDetails: CycleDetailsOut | None = None  # noqa: N815 - the numbers behind each Filter rejection
    filterDetailsNote: str | None = None  # noqa: N815 - why filterDetails is null when some node was rejected
    preemption: PreemptionRankingOut | None = None  # DefaultPreemption's ranking of its candidates (from the replay)
    scoring: ScoringExplanationOut | None = None  # null: the cycle reached no scoring
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


class NodeLabelsOut(Schema):
    name: str
    labels: dict[str, str]


class NodesOut(Schema):
    version: int
    nodes: list[NodeLabelsOut]


class RunNamesOut(Schema):
    nodes: list[NodeLabelsOut]
    pods: list[str]


class FixIn(Schema):
    version: int | None = None  # default: the latest version


# ---------------------------------------------------------------- what if, another configuration


class WhatIfApplyIn(Schema):
    pod: str
    suggestion: int = 0


class SuggestionOut(Schema):
    """One verified change (scheduler_core.answers.whatif.Suggestion); `change` is what whatif_text writes into the text."""

    kind: str  # toleration | maxSkew | scheduleAnyway | dropAffinityTerm | dropNodeSelector | requests | nodeLabels
    #            | allocatable | evict | claimCount | claimClass | evictHolder
    text: str
    change: dict[str, Any]  # its fields depend on `kind` (docs/WEB_API.md)
    nodes: list[str]  # where the pod then fits (the first 50)
    nodeCount: int  # noqa: N815


class WhatIfOut(Schema):
    """scheduler_core.answers.whatif.what_if's answer for one pod of a run. `rejectedBy` and
    `failedSchedulingMessage` are absent when the pod fits now."""

    run: int
    version: int
    pod: str
    fitsNow: list[str]  # noqa: N815 - the nodes it fits as things stand (the first 50)
    rejectedBy: dict[str, int] | None = None  # noqa: N815 - plugin -> how many nodes it rejected
    failedSchedulingMessage: str | None = None  # noqa: N815
    suggestions: list[SuggestionOut]  # least intrusive first
    moreSuggestions: int  # noqa: N815 - verified but not listed
    noSingleChange: bool  # noqa: N815
    summary: str


class TryConfigIn(Schema):
    config: str


class RunConfigOut(Schema):
    config: str  # the version's KubeSchedulerConfiguration document as typed, or the release's defaults
    fromScenario: bool  # noqa: N815
    presets: dict[str, str]  # name -> a configuration to start from


# ---------------------------------------------------------------- comparisons (scheduler_core.answers.compare)


class ComparisonCountsOut(Schema):
    elsewhere: int
    morePending: int  # noqa: N815
    moreEvicted: int  # noqa: N815
    morePreemptions: int  # noqa: N815
    attempts: list[int]  # [in A, in B]


class ComparedPodOut(Schema):
    """Where a pod ended in each run: a node, null (pending) or "deleted" (a preemption victim).
    `aWhy`/`bWhy` (its FailedScheduling text) only where that run left it pending."""

    pod: str
    a: str | None
    b: str | None
    aWhy: str | None = None  # noqa: N815
    bWhy: str | None = None  # noqa: N815


class AttemptBriefOut(Schema):
    cycle: int
    pod: str
    nodeName: str | None  # noqa: N815
    text: str


class DivergenceOut(Schema):
    index: int  # the attempt's position in both runs
    a: AttemptBriefOut | None  # null: run A had no more attempts
    b: AttemptBriefOut | None


class ScoreDifferenceOut(Schema):
    pod: str
    plugins: list[str]
    nodes: list[dict[str, Any]]  # {node, plugins: {plugin: {a, b, difference}}, total: {a, b, difference}}
    skipped: dict[str, str | None]  # "a"/"b" -> why that run scored nothing, or null


class ComparisonOut(Schema):
    a: int
    b: int
    modes: list[str]
    summary: str
    counts: ComparisonCountsOut
    changed: int
    pods: list[ComparedPodOut]
    firstDivergence: DivergenceOut | None  # noqa: N815
    scores: ScoreDifferenceOut | None = None  # only with ?pod=


# ---------------------------------------------------------------- trace (../shared/spec/SCENARIO_AND_TRACE.md)


class TraceCycleOut(Schema):
    """One cycle of the spec's trace summary; the last five fields only when the cycle has them."""

    pod: str
    preFilter: dict[str, Any]  # noqa: N815
    preFilterNodeNames: list[str] | None  # noqa: N815
    filter: dict[str, Any]
    feasibleNodes: list[str]  # noqa: N815
    scores: dict[str, Any]
    totalScores: dict[str, Any]  # noqa: N815
    nodeName: str | None  # noqa: N815
    postFilter: dict[str, Any] | None = None  # noqa: N815
    error: Any = None
    failedSchedulingMessage: str | None = None  # noqa: N815
    preFilterState: dict[str, Any] | None = None  # noqa: N815
    preScoreState: dict[str, Any] | None = None  # noqa: N815


class TraceOut(Schema):
    cycles: list[TraceCycleOut]


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


class NodeTotalOut(Schema):
    node: str
    total: int  # the weighted total of the pod's re-run cycle


class PluginGapOut(Schema):
    plugin: str
    own: int  # weighted points on the pod's node
    other: int  # on the node compared (the winner, or the runner-up when its node wins)
    difference: int


class ExplainPodOut(Schema):
    """Why is this running pod here: its cycle re-run now, the pod taken off its node, against the rest of
    the cluster (its node included) — scheduler_core.answers.explain_pod's answer."""

    pod: str
    node: str  # where it runs
    outcome: str = Field(description="stays | tie | moves | unschedulable | error")
    chosen: str | None  # where the cycle would bind it now
    ownNodeFits: bool  # noqa: N815
    ownNodeRejection: str | None  # noqa: N815 - "Plugin: reason" when its node would no longer take it
    ownRank: int | None  # noqa: N815 - 1 = best total (ties share a rank); null when its node was not scored
    ownTotal: int | None  # noqa: N815
    comparedWith: str | None  # noqa: N815 - the winner, or the runner-up when its node wins
    margin: int | None  # its node's total minus comparedWith's
    top: list[NodeTotalOut]  # best first
    scored: int
    feasible: list[str]  # the nodes it fits now (the first 50, document order)
    feasibleCount: int  # noqa: N815
    plugins: list[PluginGapOut]
    failedSchedulingMessage: str | None  # noqa: N815 - when it would fit nowhere
    placedAt: str | None  # noqa: N815 - its PodScheduled=True time, when dumped
    caveats: list[str]  # always first: the cluster may have changed since the pod was placed
    summary: str


class RecordedPodOut(Schema):
    """One pending pod: its PodScheduled condition as dumped (the real scheduler's last word) beside the replay."""

    pod: str
    reason: str  # Unschedulable, SchedulingGated
    message: str
    time: str | None  # lastTransitionTime as written
    replayed: str  # the replay's FailedScheduling text, "bound to NODE", or "not attempted (scheduling gates)"
    replayedNode: str | None  # noqa: N815 - where the replay bound it (null: left pending)
    agrees: bool
    causes: list[str]  # when they differ: the likely causes (the dump's findings first), most specific first


class RecordedComparisonOut(Schema):
    """The recorded answers beside the replay, for every pending pod that carries one."""

    compared: int  # pending pods with a PodScheduled=False condition
    agree: int
    withoutCondition: int  # noqa: N815 - pending pods the dump gives no condition
    summary: str  # "the replay agrees with your cluster on 23 of 25 pending pod(s)"
    pods: list[RecordedPodOut]  # queue order


# ---------------------------------------------------------------- runs with steps (../shared/spec/CHANGES.md)


class StepBlockedOut(Schema):
    pod: str  # the pod whose eviction a budget kept refusing
    budget: str  # namespace/name of that PodDisruptionBudget


class RolloutPendingOut(Schema):
    pod: str
    failedSchedulingMessage: str | None  # noqa: N815 - its last FailedScheduling message (null: never attempted)


class StepRolloutOut(Schema):
    """A rollout under way when its step went quiet (docs/CHANGES.md "Output of a run with a rollout"): the
    counts kubectl rollout status reads, its sentence, and the new pods still pending with why."""

    step: int
    kind: str  # Deployment | StatefulSet | DaemonSet
    workload: str  # namespace/name
    revision: int
    updateRevision: str  # noqa: N815 - the new ReplicaSet or update revision (namespace/name)
    strategy: str
    desired: int
    updated: int
    replicas: int
    available: int
    oldPods: list[str]  # noqa: N815
    complete: bool  # false at a step's end: stuck (an OnDelete one waits for deletes)
    pending: list[RolloutPendingOut]
    status: str  # what kubectl rollout status prints for these counts
    partition: int | None = None  # a StatefulSet's RollingUpdate


class StepSummaryOut(Schema):
    """What a step did, as its StepEnd event says it (pods as namespace/name, in the order they happened)."""

    step: int
    name: str
    startedMs: int  # noqa: N815
    timeMs: int  # noqa: N815 - when the step went quiet
    created: list[str]
    deleted: list[str]
    evicted: list[str]
    placed: list[str]
    blocked: list[StepBlockedOut]  # drains blocked, with the budget that blocked them
    pending: list[str]  # still pending when the step went quiet
    succeeded: list[str]  # a `complete` made them succeed (they left the scheduler's view)
    rollouts: list[StepRolloutOut] | None = None  # only a step with a rollout under way at its end


class TimelineStepOut(Schema):
    """A step of the run's story: its heading, operations and, once it went quiet, its summary."""

    step: int
    name: str
    timeMs: int  # noqa: N815
    time: str
    operations: list[str]
    text: str  # the heading `timeline` prints ("step 2 — drain node-1: 2 evicted, 2 placed, 0 pending")
    summary: StepSummaryOut | None = None  # null while the step is under way


class TimelineEntryOut(Schema):
    kind: str  # attempt | move | change | step
    index: int  # into that list


class TimelineOut(Schema):
    """The run's story (scheduler_core.encoding.timeline.StoryBuilder.summary). Attempts, queue moves and cluster
    changes each carry the fields their kind has (docs/WEB_API.md); `steps` only for a run with steps."""

    mode: str
    attempts: list[dict[str, Any]]
    moves: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    entries: list[TimelineEntryOut]  # every attempt, move, change and step in the order they happened
    final: dict[str, str | None]  # pod -> node (null: pending; "deleted": a preemption victim)
    nominated: dict[str, str]
    timeMs: int | None  # noqa: N815 - when the run ended (null: not yet)
    finished: bool
    outcome: str
    steps: list[TimelineStepOut] | None = None
    recorded: RecordedComparisonOut | None


class StepNodeOut(Schema):
    name: str
    labels: dict[str, str]
    unschedulable: bool
    added: bool  # added during this step


class StepPodOut(Schema):
    pod: str
    node: str | None  # null: pending at the end of the step
    mark: str  # "new" | "placed" | "moved" | "pending" | "" (where it was)
    previousNode: str | None  # noqa: N815 - at the end of the step before
    labels: dict[str, str]  # as written or as its controller created it (a run stored before events carried them: the template's)
    claims: list[dict[str, str]] = []  # spec.resourceClaims: {name, resourceClaimName | resourceClaimTemplateName}


class StepGoneOut(Schema):
    pod: str
    node: str | None  # where it was when it left
    how: str  # "evicted" | "deleted" | "succeeded"
    labels: dict[str, str]


class StepClusterOut(Schema):
    """The cluster at the end of a step (scheduler_core.answers.stepplacements)."""

    step: int
    name: str
    nodes: list[StepNodeOut]
    deletedNodes: list[str]  # noqa: N815
    pods: list[StepPodOut]
    gone: list[StepGoneOut]
