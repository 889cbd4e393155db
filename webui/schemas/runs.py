"""/api/runs: a run, its events and cycles, the engine's readings of them (explanations, the story, a
step's cluster, the trace) and what to try next (what if, another configuration) (webui/routers/runs.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema, EngineSchema
from webui.schemas.releases import ReleaseOut
from webui.schemas.scenarios import ClusterCountsOut, NodeLabelsOut
from webui.schemas.validate import GATES_LENGTH, RELEASE_LENGTH
from webui.services import engine


class RunQuery(ApiInput):
    """What a run is replayed as (query parameters of POST /api/scenarios/{id}/runs, beside `mode`): a
    supported release ("v1.36"; absent or "": as the dump says) and kube-scheduler's --feature-gates
    ("A=true,B=false"; absent: the release's defaults, or the dump's kube-scheduler's). The scenario's
    text is never changed: the run carries them."""

    release: str | None = Field(default=None, max_length=RELEASE_LENGTH)
    feature_gates: str | None = Field(default=None, max_length=GATES_LENGTH)
    version: int | None = None  # default: the latest version


class RunProgressOut(ApiSchema):
    cycle: int
    cycles: int


class RunOut(ApiSchema):
    id: int
    scenario: int
    version: int
    status: str
    mode: str  # timeline (run to the end) or single (one cycle per pending pod)
    progress: RunProgressOut
    error: str
    attempts: int
    event_count: int
    stored_bytes: int  # compressed event payload bytes stored so far
    stored_bytes_per_cycle: int | None  # storedBytes / finished cycles (null before the first)
    created: datetime
    started: datetime | None
    finished: datetime | None
    # The release it is replayed as and why, as chosen when it started (null: a run from before releases)
    release: ReleaseOut | None = None
    release_asked: str = ""  # what was asked: "v1.36", or "" (as the dump says)
    feature_gates: dict[str, bool] | None = None  # --feature-gates asked (null: none)


class EventOut(ApiSchema):
    seq: int
    cycle: int
    pod: str
    extension_point: str
    plugin: str | None
    payload: Any


class EventsPageOut(ApiSchema):
    events: list[EventOut]
    next: int  # pass as ?since= to continue
    done: bool  # the run finished and no stored event is left after `next`


class CycleOut(ApiSchema):
    cycle: int
    pod: str
    node_name: str | None  # null when the pod was not scheduled
    first_seq: int  # seq of the cycle's CycleStart event
    end_seq: int  # one past its CycleEnd event: the cycle is firstSeq <= seq < endSeq
    failed_scheduling_message: str | None  # null when the pod was scheduled


class RunNamesOut(ApiSchema):
    nodes: list[NodeLabelsOut]
    pods: list[str]


# ---------------------------------------------------------------- explanations (scheduler_core.answers.explain)


class CycleExplanationOut(EngineSchema, payload=engine.CycleExplanation):
    """Why the cycle's pod landed where it did, or nowhere: the engine's explanation as it declares it
    (scheduler_core/answers/explain.py ``CycleExplanation``; its parts, Filter facts and preemption
    ranking are its nested payloads, each schema made from its Struct)."""


# ---------------------------------------------------------------- what if, another configuration


class WhatIfApplyIn(ApiInput):
    pod: str
    suggestion: int = 0


class WhatIfOut(EngineSchema, payload=engine.WhatIfAnswerJSON):
    """scheduler_core.answers.whatif.what_if's answer for one pod of a run, as ``WhatIfAnswerJSON`` declares it,
    with the run it was asked of. `rejectedBy` and `failedSchedulingMessage` are absent when the pod fits now."""

    run: int
    version: int
    release: ReleaseOut | None = None  # the release the suggestions were verified as (the run's)


class TryConfigIn(ApiInput):
    config: str


class RunConfigOut(ApiSchema):
    config: str  # the version's KubeSchedulerConfiguration document as typed, or the release's defaults
    from_scenario: bool
    presets: dict[str, str]  # name -> a configuration to start from


# ---------------------------------------------------------------- trace (../shared/spec/SCENARIO_AND_TRACE.md)


class TraceCycleOut(ApiSchema):
    """One cycle of the spec's trace summary; the last five fields only when the cycle has them."""

    pod: str
    pre_filter: dict[str, Any]
    pre_filter_node_names: list[str] | None
    filter: dict[str, Any]
    feasible_nodes: list[str]
    scores: dict[str, Any]
    total_scores: dict[str, Any]
    node_name: str | None
    post_filter: dict[str, Any] | None = None
    error: Any = None
    failed_scheduling_message: str | None = None
    pre_filter_state: dict[str, Any] | None = None
    pre_score_state: dict[str, Any] | None = None


class TraceOut(ApiSchema):
    cycles: list[TraceCycleOut]


# ---------------------------------------------------------------- the story, runs with steps (../shared/spec/CHANGES.md)


class RecordedComparisonOut(EngineSchema, payload=engine.RecordedAnswers):
    """The recorded answers beside the replay (scheduler_core.answers.recorded ``RecordedAnswers``)."""


class StepBlockedOut(ApiSchema):
    pod: str  # the pod whose eviction a budget kept refusing
    budget: str  # namespace/name of that PodDisruptionBudget


class RolloutPendingOut(ApiSchema):
    pod: str
    failed_scheduling_message: str | None  # its last FailedScheduling message (null: never attempted)


class ProgressDeadlineOut(ApiSchema):
    seconds: int  # progressDeadlineSeconds
    passes_at: str  # when it passes (or passed), on the run's clock ("10:01.000")
    exceeded: bool  # it had passed when the step went quiet (ProgressDeadlineExceeded)


class StepRolloutOut(ApiSchema):
    """A rollout under way when its step went quiet (docs/CHANGES.md "Output of a run with a rollout"): the
    counts kubectl rollout status reads, its sentence, and the new pods still pending with why."""

    step: int
    kind: str  # Deployment | StatefulSet | DaemonSet
    workload: str  # namespace/name
    revision: int
    update_revision: str  # the new ReplicaSet or update revision (namespace/name)
    strategy: str
    desired: int
    updated: int
    replicas: int
    available: int
    old_pods: list[str]
    complete: bool  # false at a step's end: stuck (an OnDelete one waits for deletes)
    pending: list[RolloutPendingOut]
    status: str  # what kubectl rollout status prints for these counts
    partition: int | None = None  # a StatefulSet's RollingUpdate
    paused: bool | None = None  # a paused Deployment (spec.paused)
    progress_deadline: ProgressDeadlineOut | None = None  # a Deployment's rollout not complete


class StepCountsOut(ApiSchema):
    """How many pods each list of a step's summary has in all (GET .../timeline/summary lists the first ones)."""

    created: int
    deleted: int
    evicted: int
    placed: int
    pending: int
    succeeded: int


class StepSummaryOut(ApiSchema):
    """What a step did, as its StepEnd event says it (pods as namespace/name, in the order they happened)."""

    step: int
    name: str
    started_ms: int
    time_ms: int  # when the step went quiet
    created: list[str]
    deleted: list[str]
    evicted: list[str]
    placed: list[str]
    blocked: list[StepBlockedOut]  # drains blocked, with the budget that blocked them
    pending: list[str]  # still pending when the step went quiet
    succeeded: list[str]  # a `complete` made them succeed (they left the scheduler's view)
    rollouts: list[StepRolloutOut] | None = None  # only a step with a rollout under way at its end
    pending_why: list[RolloutPendingOut] = []  # each pod still pending with its last FailedScheduling message
    # Only in GET .../timeline/summary: each list's length in all, the lists (and pendingWhy) cut to their first 100
    counts: StepCountsOut | None = None


class TimelineStepOut(ApiSchema):
    """A step of the run's story: its heading, operations and, once it went quiet, its summary."""

    step: int
    name: str
    time_ms: int
    time: str
    operations: list[str]
    text: str  # the heading `timeline` prints ("step 2 — drain node-1: 2 evicted, 2 placed, 0 pending")
    summary: StepSummaryOut | None = None  # null while the step is under way


class TimelineEntryOut(ApiSchema):
    kind: str  # attempt | move | change | step
    index: int  # into that list


class TimelineOut(ApiSchema):
    """The run's story (scheduler_core.encoding.timeline.StoryBuilder.summary). Attempts, queue moves and cluster
    changes each carry the fields their kind has (docs/WEB_API.md); `steps` only for a run with steps."""

    mode: str
    attempts: list[dict[str, Any]]
    moves: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    entries: list[TimelineEntryOut]  # every attempt, move, change and step in the order they happened
    final: dict[str, str | None]  # pod -> node (null: pending; "deleted": a preemption victim)
    nominated: dict[str, str]
    time_ms: int | None  # when the run ended (null: not yet)
    finished: bool
    outcome: str
    steps: list[TimelineStepOut] | None = None
    recorded: RecordedComparisonOut | None


class TimelineCountsOut(ApiSchema):
    entries: int  # every attempt, move, change and step heading
    attempts: int
    moves: int
    changes: int
    pods: int  # pods with a final place
    placed: int  # on a node at the end
    pending: int  # left pending
    deleted: int  # preemption victims
    nominated: int  # pending with a nomination at the end


class TimelineSummaryOut(ApiSchema):
    """What the run view reads of the story at once (GET .../timeline/summary): how it ended, how many of each,
    the steps' summaries and the recorded answers; the entries are read a page at a time (.../timeline/entries)."""

    mode: str
    time_ms: int | None  # when the run ended (null: not yet)
    finished: bool
    outcome: str
    counts: TimelineCountsOut
    steps: list[TimelineStepOut] | None = None
    recorded: RecordedComparisonOut | None


class TimelineEntriesQuery(ApiInput):
    """Which entries of the story (GET .../timeline/entries)."""

    pod: str = Field(default="", max_length=317)  # a substring of the entry's pod (step headings are kept)
    kind: Literal["attempt", "move", "change", "step"] | None = None
    cycle: int | None = Field(default=None, ge=0)  # the page holding this cycle's attempt (over offset)
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=200, ge=1, le=1000)


class TimelineItemOut(ApiSchema):
    kind: str  # attempt | move | change | step
    index: int  # into that list of the whole story
    item: dict[str, Any]  # the attempt, move, change or step as the whole story has it


class TimelineEntriesOut(ApiSchema):
    total: int  # entries in the whole story
    matched: int  # entries matching pod and kind; the page is entries[offset:offset+limit] of them
    offset: int
    limit: int
    pod: str
    kind: str | None
    entries: list[TimelineItemOut]


class StepNodeOut(EngineSchema, payload=engine.NodeAtStep):
    """A node at the end of a step, as the engine declares it, with the version's taints and allocatable (a node
    the version has; a node a step added has none here)."""

    taints: list[dict[str, str]] = []
    allocatable: dict[str, int] = {}
    allocatable_text: dict[str, str] = {}


class PodAtStepOut(EngineSchema, payload=engine.PodAtStep):
    """A pod at the end of a step (scheduler_core.answers.stepplacements ``PodAtStep``)."""


class GonePodOut(EngineSchema, payload=engine.GonePod):
    """A pod that left during a step (scheduler_core.answers.stepplacements ``GonePod``)."""


class StepClusterPageOut(ClusterCountsOut):
    """One page of the cluster at the end of a step (GET .../steps/{k}/cluster): the counts of the whole, the
    step's marks, the domains, a page of nodes with their pods, the first pending pods and the pods that left."""

    step: int
    name: str
    deleted_nodes: list[str]  # nodes lost during the step
    marks: dict[str, int]  # pods by mark at the step's end (new, placed, moved, pending) and `gone` (left during it)
    gone_count: int
    nodes: list[StepNodeOut]
    pods: list[PodAtStepOut]  # on the page's nodes, then at most 200 pending
    gone: list[GonePodOut]  # those that left from the page's nodes, then at most 200 that were pending
