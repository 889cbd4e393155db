"""The typed event stream a run emits: one event per extension point per plugin.

Every consumer — the CLI, the Celery task, the trace summary, the tests — reads this one stream.
Payloads are small dataclasses; ``Event.to_json`` gives the wire form documented in
docs/ENGINE_API.md. Per-node results travel inside one event per plugin (never one per node).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional, Union

import numpy as np


class ExtensionPoint(str, Enum):
    CYCLE_START = "CycleStart"
    QUEUE_SORT = "QueueSort"
    PRE_FILTER = "PreFilter"
    FILTER = "Filter"
    POST_FILTER = "PostFilter"
    PRE_SCORE = "PreScore"
    SCORE = "Score"
    NORMALIZE_SCORE = "NormalizeScore"
    TOTAL = "Total"
    RESERVE = "Reserve"
    PERMIT = "Permit"
    PRE_BIND = "PreBind"
    BIND = "Bind"
    POST_BIND = "PostBind"
    CYCLE_END = "CycleEnd"
    # The run to the end (timeline) adds what happens between cycles. These are not extension
    # points; they share the enum so every consumer reads one stream.
    RUN_START = "RunStart"
    ATTEMPT_END = "AttemptEnd"
    QUEUE_MOVE = "QueueMove"
    CLUSTER = "Cluster"
    RUN_END = "RunEnd"
    # A run with steps (../shared/spec/CHANGES.md): each step's start (step 0 is the scenario itself) and end.
    STEP_START = "StepStart"
    STEP_END = "StepEnd"


StatusJSON = Optional[dict[str, Any]]  # {"code": ..., "reasons": [...]}, None for success


@dataclass(slots=True)
class CycleStart:
    pod: str
    namespace: str
    name: str
    priority: int
    labels: dict[str, str]
    queue: list[str]
    node_count: int
    cycles: int
    # The pod's volumes the volume plugins look at, with their claims' state (volume/pictures.py);
    # left out of the JSON when there are none.
    volumes: list[dict[str, Any]] = field(default_factory=list)
    # The run to the end only: every queue as the attempt starts (the pod itself is in flight),
    # {"activeQ": [...], "backoffQ": [...], "unschedulablePods": [...]} in pop order.
    queues: Optional[dict[str, list[str]]] = None

    def to_json(self) -> dict[str, Any]:
        out = {"pod": self.pod, "namespace": self.namespace, "name": self.name, "priority": self.priority,
               "labels": self.labels, "queue": self.queue, "nodeCount": self.node_count, "cycles": self.cycles}
        if self.volumes:
            out["volumes"] = self.volumes
        if self.queues is not None:
            out["queues"] = self.queues
        return out


@dataclass(slots=True)
class QueueSortResult:
    order: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"order": self.order}


@dataclass(slots=True)
class PreFilterPluginResult:
    status: StatusJSON
    node_names: Optional[list[str]]
    state: Any = None  # the plugin's state_json() after PreFilter, when it has one
    # the plugin's pre_filter_picture(): typed verdicts for explanations, with to_json(node_list)
    picture: Any = None

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> dict[str, Any]:
        """``node_list``: what the picture's node lists become (lists; the columnar encoder's columns)."""
        out = {"status": self.status, "nodeNames": self.node_names, "state": self.state}
        if self.picture is not None:
            out["picture"] = self.picture.to_json(node_list)
        return out

    def picture_json(self) -> Optional[dict[str, Any]]:
        """The picture's wire form (None: the plugin has none for this pod)."""
        return None if self.picture is None else self.picture.to_json()


@dataclass(slots=True)
class PreFilterSummary:
    status: StatusJSON
    node_names: Optional[list[str]]
    skipped: list[str]
    narrowing_plugins: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "nodeNames": self.node_names, "skipped": self.skipped,
                "narrowingPlugins": self.narrowing_plugins}


@dataclass(slots=True)
class FilterPluginResult:
    """One plugin's verdict on every evaluated node, compact: ``choice[i]`` indexes ``palette`` or is -1."""

    nodes: list[str]  # evaluated nodes, in evaluation order
    palette: list[Any]  # distinct Status objects
    choice: Any  # int array aligned with ``nodes``
    # the plugin's node_picture() per node it rejected, when it has one for this pod
    # (DynamicResources: per request, the devices of its class on the node and who holds them)
    pictures: dict[str, Any] = field(default_factory=dict)

    @property
    def statuses(self) -> dict[str, dict[str, Any]]:
        """The rejected nodes' statuses (as JSON), in evaluation order."""
        palette = [status.to_json() for status in self.palette]
        choice = np.asarray(self.choice)
        rejected = np.flatnonzero(choice >= 0)  # most nodes pass: only the rejected ones are visited
        nodes = self.nodes
        return {nodes[i]: palette[c] for i, c in zip(rejected.tolist(), choice[rejected].tolist())}

    @property
    def evaluated(self) -> int:
        """How many nodes the plugin evaluated."""
        return len(self.nodes)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"statuses": self.statuses, "evaluated": self.evaluated}
        if self.pictures:
            out["pictures"] = self.pictures_json()
        return out

    def pictures_json(self) -> dict[str, dict[str, Any]]:
        return {node: picture.to_json() for node, picture in self.pictures.items()}


@dataclass(slots=True)
class FilterSummary:
    """Filter's result. ``nominated_only``: the pod's nominated node (or, with ``batch_hint``,
    the node OpportunisticBatching offered) alone was tried first (evaluateNominatedNode); when it
    fails, a full pass follows with its own events."""

    evaluated: list[str]
    feasible_nodes: list[str]
    num_feasible_nodes_to_find: int
    start_index: int
    nominated_only: bool = False
    batch_hint: bool = False  # that node was OpportunisticBatching's hint, not a nomination

    def to_json(self) -> dict[str, Any]:
        out = {"evaluated": self.evaluated, "feasibleNodes": self.feasible_nodes,
               "numFeasibleNodesToFind": self.num_feasible_nodes_to_find, "startIndex": self.start_index}
        if self.nominated_only:
            out["nominatedNodeOnly"] = True
        if self.batch_hint:
            out["batchHint"] = True
        return out


@dataclass(slots=True)
class PostFilterOutcome:
    """One PostFilter plugin's answer. ``reasons`` are its status's reasons as the framework joins
    them into the FailedScheduling message; ``summary`` is DefaultPreemption's short trace reason;
    ``nominatedNodeName`` is None when the plugin nominates nothing, "" when it clears a nomination."""

    code: str
    reasons: list[str]
    nominated_node_name: Optional[str]
    candidates: dict[str, list[str]]
    victims: list[str]
    nomination_tie: bool = False
    summary: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "reasons": self.reasons, "nominatedNodeName": self.nominated_node_name,
               "victims": self.victims, "candidates": self.candidates}
        if self.nomination_tie:
            out["nominationTie"] = True
        if self.summary is not None:
            out["summary"] = self.summary
        return out


@dataclass(slots=True)
class PostFilterSummary:
    """RunPostFilterPlugins' joined answer: its code, message (the FitError's PostFilter part) and
    the plugin that rejected first (or failed)."""

    code: str
    message: str
    plugin: Optional[str]

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "plugin": self.plugin}


@dataclass(slots=True)
class PreScorePluginResult:
    status: StatusJSON
    # The plugin's state as JSON, or its typed state (read-only after PreScore) whose to_json makes
    # it when the event is written: PodTopologySpread's per-node counts stay arrays until then.
    state: Any = None

    def to_json(self, node_counts: Optional[Callable[[Sequence[str], Any], Any]] = None) -> dict[str, Any]:
        """``node_counts``: passed to a typed state's to_json (the columnar encoder's columns)."""
        return {"status": self.status, "state": self.state_json(node_counts)}

    def state_json(self, node_counts: Optional[Callable[[Sequence[str], Any], Any]] = None) -> Any:
        """The state's wire form, whether the plugin gave it as JSON or typed."""
        return self.state.to_json(node_counts) if hasattr(self.state, "to_json") else self.state


def _by_node(nodes: list[str], values: Any) -> dict[str, int]:
    return dict(zip(nodes, _plain(values)))


def _plain(values: Any) -> list[int]:
    """Python ints, whether the engine's array or a list read back."""
    plain: list[int] = values.tolist() if hasattr(values, "tolist") else values
    return plain


@dataclass(slots=True)
class ScoreResult:
    nodes: list[str]  # the scored (feasible) nodes, in document order
    raw: Any  # int array aligned with ``nodes``

    def to_json(self) -> dict[str, Any]:
        return {"raw": self.raw_by_node()}

    def raw_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.raw)

    def raw_values(self) -> list[int]:
        """Aligned with ``nodes``."""
        return _plain(self.raw)


@dataclass(slots=True)
class NormalizeResult:
    nodes: list[str]
    normalized: Any
    weight: int
    weighted: Any

    def to_json(self) -> dict[str, Any]:
        return {"normalized": self.normalized_by_node(), "weight": self.weight, "weighted": self.weighted_by_node()}

    def normalized_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.normalized)

    def weighted_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.weighted)

    def node_scores(self) -> Iterator[tuple[str, int, int]]:
        """(node, normalized, weighted) per node, in ``nodes`` order."""
        return zip(self.nodes, _plain(self.normalized), _plain(self.weighted))


@dataclass(slots=True)
class TotalResult:
    nodes: list[str]
    totals: Any
    node_name: Optional[str]
    ties: list[str]
    error: Optional[str] = None
    # Where the ties are in ``nodes`` when the scheduler knows it (ties == [nodes[p] for p in it]):
    # the columnar encoder stores them from it without looking up thousands of names.
    tie_positions: Any = None

    def to_json(self) -> dict[str, Any]:
        out = {"totalScores": self.totals_by_node(), "nodeName": self.node_name, "ties": self.ties}
        if self.error is not None:
            out["error"] = self.error
        return out

    def totals_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.totals)


@dataclass(slots=True)
class BindingStep:
    status: StatusJSON
    node_name: str
    state: Any = None  # the plugin's binding_state_json() after its step, when it has one

    def to_json(self) -> dict[str, Any]:
        out = {"status": self.status, "nodeName": self.node_name}
        if self.state is not None:
            out["state"] = self.state
        return out


@dataclass(slots=True)
class CycleEnd:
    node_name: Optional[str]
    failed_scheduling_message: Optional[str] = None
    error: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodeName": self.node_name}
        if self.failed_scheduling_message is not None:
            out["failedSchedulingMessage"] = self.failed_scheduling_message
        if self.error is not None:
            out["error"] = self.error
        return out


# ---------------------------------------------------------------------- the run to the end


@dataclass(slots=True)
class RunStart:
    """The cluster when the run starts: every pod of the scenario and where it is (None: pending)."""

    pods: dict[str, Optional[str]]
    release: str

    def to_json(self) -> dict[str, Any]:
        return {"pods": self.pods, "release": self.release}


@dataclass(slots=True)
class AttemptEnd:
    """A timeline attempt's result beyond CycleEnd: when it happened, the pod's attempt number,
    the nomination it wrote (None: left as it was; "" cleared), the victims its preemption chose."""

    time_ms: int
    attempt: int
    nominated_node_name: Optional[str] = None
    victims: list[str] = field(default_factory=list)
    binding_error: Optional[str] = None  # the binding cycle (PreBind or Bind) failed with this
    binding_node: Optional[str] = None  # ... while binding the pod to this node

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"timeMs": self.time_ms, "attempt": self.attempt}
        if self.nominated_node_name is not None:
            out["nominatedNodeName"] = self.nominated_node_name
        if self.victims:
            out["victims"] = self.victims
        if self.binding_error is not None:
            out["bindingError"] = self.binding_error
            out["bindingNode"] = self.binding_node
        return out


@dataclass(slots=True)
class QueueMoved:
    """A pod entered a queue: activeQ, backoffQ or unschedulablePods, and why (the event's label,
    and for a cluster event the plugins whose queueing hints let it through)."""

    time_ms: int
    queue: str
    event: str
    plugins: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"timeMs": self.time_ms, "queue": self.queue, "event": self.event, "plugins": self.plugins}


class ClusterChangeKind(str, Enum):
    POD_BOUND = "PodBound"  # the binding reached the API (the pod runs there)
    POD_TERMINATING = "PodTerminating"  # a victim is being deleted (deletionTimestamp set)
    POD_REMOVED = "PodRemoved"  # a victim is gone: removed by the stand-in kubelet, or at once (grace period 0)
    BINDING_FAILED = "BindingFailed"  # the binding cycle failed: the assumed pod is forgotten on its node
    NOMINATION_SET = "NominationSet"  # status.nominatedNodeName written
    NOMINATION_CLEARED = "NominationCleared"
    # Any other status patch of a pod (its PodScheduled condition, a victim's DisruptionTarget,
    # the claims made for it): detail says which.
    POD_STATUS = "PodStatus"
    STORAGE = "Storage"  # a PersistentVolume or claim written by the binder or the volume controller
    # Runs with steps: the operations' and the stand-in controllers' writes ("detail" says who).
    POD_CREATED = "PodCreated"  # a pod created (by a controller or a step)
    POD_DELETED = "PodDeleted"  # a pod deleted at once (pending, or its node lost)
    POD_EVICTED = "PodEvicted"  # the eviction API let a drain delete it (it terminates)
    POD_SUCCEEDED = "PodSucceeded"  # a Job's pod completed (`complete`)
    EVICTION_REFUSED = "EvictionRefused"  # a budget refused the eviction (detail: the budget)
    DRAIN_BLOCKED = "DrainBlocked"  # the drain gave up on this pod (detail: the budget)
    NODE_ADDED = "NodeAdded"
    NODE_UPDATED = "NodeUpdated"  # detail: the events it gave (NodeUpdateNodeTaint, ...)
    NODE_DELETED = "NodeDeleted"
    WORKLOAD_CHANGED = "WorkloadChanged"  # a workload created, scaled, patched or deleted
    BUDGET_CHANGED = "BudgetChanged"  # a PodDisruptionBudget's disruptionsAllowed recomputed
    # A step's operation that wrote nothing (object: the operation; detail: why), said so that an
    # accepted operation never passes in silence.
    OPERATION_UNCHANGED = "OperationUnchanged"


@dataclass(slots=True)
class ClusterChanged:
    """Something in the cluster changed between cycles (``pod`` of the Event is the object's key
    for pods; ``object`` names others)."""

    time_ms: int
    kind: ClusterChangeKind
    object: str
    node: Optional[str] = None
    detail: str = ""
    # PodCreated only: the pod's labels and its spec.resourceClaims as created (a controller's pod
    # carries its template's, which a rollout changes), so a stored run's step view draws it as made.
    labels: Optional[dict[str, str]] = None
    claims: Optional[list[dict[str, str]]] = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"timeMs": self.time_ms, "kind": self.kind.value, "object": self.object}
        if self.node is not None:
            out["node"] = self.node
        if self.detail:
            out["detail"] = self.detail
        if self.labels is not None:
            out["labels"] = self.labels
        if self.claims:
            out["claims"] = self.claims
        return out


@dataclass(slots=True)
class RunEnd:
    """Where every pod is at the end (node, None pending, "deleted"), and remaining nominations."""

    time_ms: int
    attempts: int
    final: dict[str, Optional[str]]
    nominated: dict[str, str]
    # Pods the run stopped retrying: they kept failing with an error (the release retries them every
    # back-off forever) while nothing else happened; empty when the run ended on its own.
    stopped_retrying: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {"timeMs": self.time_ms, "attempts": self.attempts, "final": self.final, "nominated": self.nominated}
        if self.stopped_retrying:
            out["stoppedRetrying"] = self.stopped_retrying
        return out


@dataclass(slots=True)
class StepStarted:
    """A step begins: its number (0: the scenario itself), name and operations, in order."""

    step: int
    name: str
    time_ms: int
    operations: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "name": self.name, "timeMs": self.time_ms, "operations": self.operations}


@dataclass(slots=True)
class BlockedEviction:
    pod: str
    budget: str

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "budget": self.budget}


@dataclass(frozen=True, slots=True)
class RolloutStatus:
    """A workload's rollout as its step left it (kubectl rollout status's counts): its kind and
    ``namespace/name``, the revision rolled out to (a Deployment's new ReplicaSet, a StatefulSet's
    update ControllerRevision) and its number, the replicas wanted, the live pods at the new
    revision (updated), all its live pods (replicas), the available (bound, not terminating) ones,
    the pods of older revisions still there, whether it is complete, and the new pods still
    pending when the step went quiet (a stuck rollout). ``partition``: a StatefulSet's."""

    kind: str
    workload: str
    revision: int
    update_revision: str
    strategy: str
    desired: int
    updated: int
    replicas: int
    available: int
    old_pods: list[str]
    complete: bool
    pending: list[str]
    partition: Optional[int] = None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "workload": self.workload, "revision": self.revision,
               "updateRevision": self.update_revision, "strategy": self.strategy, "desired": self.desired,
               "updated": self.updated, "replicas": self.replicas, "available": self.available,
               "oldPods": self.old_pods, "complete": self.complete, "pending": self.pending}
        if self.partition is not None:
            out["partition"] = self.partition
        return out


@dataclass(slots=True)
class StepEnded:
    """A step went quiet: what it created, deleted, evicted, placed (bound), which evictions a
    budget blocked, the pods still pending then, and the pods a ``complete`` made succeed (all
    ``namespace/name``, in the order they happened)."""

    step: int
    name: str
    started_ms: int
    time_ms: int
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)
    blocked: list[BlockedEviction] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    succeeded: list[str] = field(default_factory=list)
    rollouts: list[RolloutStatus] = field(default_factory=list)  # Deployments rolling out in the step

    def to_json(self) -> dict[str, Any]:
        out = {"step": self.step, "name": self.name, "startedMs": self.started_ms, "timeMs": self.time_ms,
               "created": self.created, "deleted": self.deleted, "evicted": self.evicted, "placed": self.placed,
               "blocked": [b.to_json() for b in self.blocked], "pending": self.pending, "succeeded": self.succeeded}
        if self.rollouts:  # only a run with a rollout has the key: stored runs keep their shape
            out["rollouts"] = [r.to_json() for r in self.rollouts]
        return out


Payload = Union[RunStart, StepStarted, StepEnded, AttemptEnd, QueueMoved, ClusterChanged, RunEnd,
                CycleStart, QueueSortResult, PreFilterPluginResult, PreFilterSummary, FilterPluginResult,
                FilterSummary, PostFilterOutcome, PostFilterSummary, PreScorePluginResult, ScoreResult, NormalizeResult,
                TotalResult, BindingStep, CycleEnd]


@dataclass(slots=True)
class Event:
    cycle: int
    pod: str
    extension_point: ExtensionPoint
    plugin: Optional[str]
    payload: Payload

    def to_json(self) -> dict[str, Any]:
        return {"cycle": self.cycle, "pod": self.pod, "extensionPoint": self.extension_point.value,
                "plugin": self.plugin, "payload": self.payload.to_json()}


# ---------------------------------------------------------------------- reading the stream back


@dataclass(slots=True)
class WrittenJSON:
    """A plugin's picture as read back from the stream: its JSON, written again as it is.

    The live picture is a plugin's own type (events.py imports no plugin); read back, only its wire
    form is left, and that is what every reader of a picture consumes."""

    value: Any

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> Any:
        """``node_list`` is ignored: the node lists were made lists when the picture was written."""
        return self.value


@dataclass(slots=True)
class StoredFilterVerdicts:
    """A Filter plugin's verdicts read back from the stream (``FilterPluginResult``'s wire form).

    The live result holds every evaluated node with a compact status index; the wire form keeps only
    the rejected nodes (with their statuses), how many were evaluated, and the node pictures' JSON.
    Both answer ``statuses`` and ``pictures_json()`` alike, so a projection reads either."""

    statuses: dict[str, dict[str, Any]]
    evaluated: int
    pictures: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"statuses": self.statuses, "evaluated": self.evaluated}
        if self.pictures:
            out["pictures"] = self.pictures
        return out

    def pictures_json(self) -> dict[str, dict[str, Any]]:
        return self.pictures


class UnknownEventKind(ValueError):
    """An event whose extension point (or cluster change kind) this release does not write."""


def _cycle_start(p: dict[str, Any]) -> CycleStart:
    return CycleStart(p["pod"], p["namespace"], p["name"], p["priority"], p["labels"], p["queue"], p["nodeCount"],
                      p["cycles"], p.get("volumes", []), p.get("queues"))


def _pre_filter(p: dict[str, Any]) -> Union[PreFilterPluginResult, PreFilterSummary]:
    """Without ``skipped`` it is a plugin's own result (the summary always lists what was skipped)."""
    if "skipped" in p:
        return PreFilterSummary(p["status"], p["nodeNames"], p["skipped"], p["narrowingPlugins"])
    picture = WrittenJSON(p["picture"]) if "picture" in p else None
    return PreFilterPluginResult(p["status"], p["nodeNames"], p["state"], picture)


def _filter(p: dict[str, Any]) -> Union[StoredFilterVerdicts, FilterSummary]:
    if "statuses" in p:
        return StoredFilterVerdicts(p["statuses"], p["evaluated"], p.get("pictures", {}))
    return FilterSummary(p["evaluated"], p["feasibleNodes"], p["numFeasibleNodesToFind"], p["startIndex"],
                         p.get("nominatedNodeOnly", False), p.get("batchHint", False))


def _post_filter(p: dict[str, Any]) -> Union[PostFilterOutcome, PostFilterSummary]:
    if "message" in p:
        return PostFilterSummary(p["code"], p["message"], p["plugin"])
    return PostFilterOutcome(p["code"], p["reasons"], p["nominatedNodeName"], p["candidates"], p["victims"],
                             p.get("nominationTie", False), p.get("summary"))


def _normalize(p: dict[str, Any]) -> NormalizeResult:
    """Both maps were written from the one node list, so their values line up."""
    return NormalizeResult(list(p["normalized"]), list(p["normalized"].values()), p["weight"],
                           list(p["weighted"].values()))


def _total(p: dict[str, Any]) -> TotalResult:
    totals = p["totalScores"]
    return TotalResult(list(totals), list(totals.values()), p["nodeName"], p["ties"], p.get("error"))


def _cluster(p: dict[str, Any]) -> ClusterChanged:
    try:
        kind = ClusterChangeKind(p["kind"])
    except ValueError:
        raise UnknownEventKind(f"unknown cluster change kind {p['kind']!r}; this release writes "
                               f"{', '.join(k.value for k in ClusterChangeKind)}") from None
    return ClusterChanged(p["timeMs"], kind, p["object"], p.get("node"), p.get("detail", ""), p.get("labels"),
                          p.get("claims"))


def _step_end(p: dict[str, Any]) -> StepEnded:
    return StepEnded(p["step"], p["name"], p["startedMs"], p["timeMs"], p["created"], p["deleted"], p["evicted"],
                     p["placed"], [BlockedEviction(b["pod"], b["budget"]) for b in p["blocked"]], p["pending"],
                     p.get("succeeded", []),  # runs stored before `succeeded` existed listed them as deleted
                     [_rollout(r) for r in p.get("rollouts", [])])


def _rollout(p: dict[str, Any]) -> RolloutStatus:
    return RolloutStatus(p["kind"], p["workload"], p["revision"], p["updateRevision"], p["strategy"], p["desired"],
                         p["updated"], p["replicas"], p["available"], p["oldPods"], p["complete"], p["pending"],
                         p.get("partition"))


def _binding(p: dict[str, Any]) -> BindingStep:
    return BindingStep(p["status"], p["nodeName"], p.get("state"))


# What a payload reads back as: its own type, but StoredFilterVerdicts for a Filter plugin's result.
ReadPayload = Union[Payload, StoredFilterVerdicts]

# One reader per kind of event: the payload's wire form back to its type.
_READERS: dict[ExtensionPoint, Callable[[dict[str, Any]], ReadPayload]] = {
    ExtensionPoint.CYCLE_START: _cycle_start,
    ExtensionPoint.QUEUE_SORT: lambda p: QueueSortResult(p["order"]),
    ExtensionPoint.PRE_FILTER: _pre_filter,
    ExtensionPoint.FILTER: _filter,
    ExtensionPoint.POST_FILTER: _post_filter,
    ExtensionPoint.PRE_SCORE: lambda p: PreScorePluginResult(p["status"], p["state"]),
    ExtensionPoint.SCORE: lambda p: ScoreResult(list(p["raw"]), list(p["raw"].values())),
    ExtensionPoint.NORMALIZE_SCORE: _normalize,
    ExtensionPoint.TOTAL: _total,
    ExtensionPoint.RESERVE: _binding,
    ExtensionPoint.PERMIT: _binding,
    ExtensionPoint.PRE_BIND: _binding,
    ExtensionPoint.BIND: _binding,
    ExtensionPoint.POST_BIND: _binding,
    ExtensionPoint.CYCLE_END: lambda p: CycleEnd(p["nodeName"], p.get("failedSchedulingMessage"), p.get("error")),
    ExtensionPoint.RUN_START: lambda p: RunStart(p["pods"], p["release"]),
    ExtensionPoint.ATTEMPT_END: lambda p: AttemptEnd(p["timeMs"], p["attempt"], p.get("nominatedNodeName"),
                                                     p.get("victims", []), p.get("bindingError"), p.get("bindingNode")),
    ExtensionPoint.QUEUE_MOVE: lambda p: QueueMoved(p["timeMs"], p["queue"], p["event"], p["plugins"]),
    ExtensionPoint.CLUSTER: _cluster,
    ExtensionPoint.RUN_END: lambda p: RunEnd(p["timeMs"], p["attempts"], p["final"], p["nominated"],
                                             p.get("stoppedRetrying", [])),
    ExtensionPoint.STEP_START: lambda p: StepStarted(p["step"], p["name"], p["timeMs"], p["operations"]),
    ExtensionPoint.STEP_END: _step_end,
}


def event_from_json(data: dict[str, Any]) -> Event:
    """The event ``Event.to_json()`` wrote, typed again (``event_from_json(e.to_json()).to_json() ==
    e.to_json()``). A Filter plugin's result comes back as ``StoredFilterVerdicts``, a PreFilter picture
    as ``WrittenJSON``: what their wire form keeps. Raises ``UnknownEventKind`` for a kind this release
    does not write, and KeyError for a payload that lacks a field its kind always has."""
    try:
        point = ExtensionPoint(data["extensionPoint"])
    except ValueError:
        raise UnknownEventKind(f"unknown event kind {data['extensionPoint']!r} (cycle {data.get('cycle')}, "
                               f"pod {data.get('pod')!r}); this release writes "
                               f"{', '.join(p.value for p in ExtensionPoint)}") from None
    # Event.payload is what the engine emits; reading adds StoredFilterVerdicts
    payload: Any = _READERS[point](data["payload"])
    return Event(data["cycle"], data["pod"], point, data.get("plugin"), payload)


def read_events(events_json: Iterable[dict[str, Any]]) -> Iterator[Event]:
    """Each event of a stream read back from its wire form (stored, or one JSON line each), in order."""
    for data in events_json:
        yield event_from_json(data)
