"""The typed event stream a run emits: one event per extension point per plugin.

Every consumer — the CLI, the Celery task, the trace summary, the tests — reads this one stream.
Each payload is declared once, as a ``Wire`` struct (``util/wire.py``) whose fields are its wire
form: ``Event.to_json`` (docs/ENGINE_API.md), the typed reading back, the JSON Schema the browser is
held to, the pipe codec's and the columnar form's field lists all come from these declarations. The
few payloads whose live form holds more (arrays aligned with a node list: Filter, Score,
NormalizeScore, Total) declare their wire form beside them and say how one becomes the other.
Per-node results travel inside one event per plugin (never one per node).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional, Union

import msgspec
import numpy as np

from scheduler_core.util.wire import Wire
from scheduler_core.framework.status import StatusJson
from scheduler_core.volume.pictures import PodVolumePicture


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


StatusJSON = Optional[StatusJson]  # {"code": ..., "reasons": [...]}, None for success


class CycleStart(Wire):
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
    volumes: list[PodVolumePicture] = []
    # The run to the end only: every queue as the attempt starts (the pod itself is in flight),
    # {"activeQ": [...], "backoffQ": [...], "unschedulablePods": [...]} in pop order.
    queues: Optional[dict[str, list[str]]] = None


class QueueSortResult(Wire):
    order: list[str]


class PreFilterPluginResult(Wire):
    status: StatusJSON
    node_names: Optional[list[str]]
    state: Any  # the plugin's state_json() after PreFilter, when it has one (always written)
    # the plugin's pre_filter_picture(): typed verdicts for explanations, with to_json(node_list)
    picture: Any = None

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> dict[str, Any]:
        """``node_list``: what the picture's node lists become (lists; the columnar encoder's columns)."""
        if self.picture is None:
            return Wire.to_json(self)
        return Wire.to_json(msgspec.structs.replace(self, picture=self.picture.to_json(node_list)))

    def picture_json(self) -> Optional[dict[str, Any]]:
        """The picture's wire form (None: the plugin has none for this pod)."""
        return None if self.picture is None else self.picture.to_json()


class PreFilterSummary(Wire):
    status: StatusJSON
    node_names: Optional[list[str]]
    skipped: list[str]
    narrowing_plugins: list[str]


class StoredFilterVerdicts(Wire):
    """A Filter plugin's verdicts as the stream keeps them (``FilterPluginResult``'s wire form).

    The live result holds every evaluated node with a compact status index; the wire form keeps only
    the rejected nodes (with their statuses), how many were evaluated, and the node pictures' JSON.
    Both answer ``statuses`` and ``pictures_json()`` alike, so a projection reads either."""

    statuses: dict[str, StatusJson]
    evaluated: int
    pictures: dict[str, dict[str, Any]] = {}

    def pictures_json(self) -> dict[str, dict[str, Any]]:
        return self.pictures


class FilterPluginResult(msgspec.Struct):
    """One plugin's verdict on every evaluated node, compact: ``choice[i]`` indexes ``palette`` or is -1.
    Its wire form is ``StoredFilterVerdicts``."""

    nodes: Sequence[str]  # evaluated nodes, in evaluation order
    palette: list[Any]  # distinct Status objects
    choice: Any  # int array aligned with ``nodes``
    # the plugin's node_pictures() of the nodes it rejected, when it has them for this pod
    # (DynamicResources: per request, the devices of its class on the node and who holds them)
    pictures: dict[str, Any] = {}

    @property
    def statuses(self) -> dict[str, StatusJson]:
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
        return StoredFilterVerdicts(self.statuses, self.evaluated, self.pictures_json()).to_json()

    def pictures_json(self) -> dict[str, dict[str, Any]]:
        return {node: picture.to_json() for node, picture in self.pictures.items()}


class FilterSummary(Wire):
    """Filter's result. ``nominated_only``: the pod's nominated node (or, with ``batch_hint``,
    the node OpportunisticBatching offered) alone was tried first (evaluateNominatedNode); when it
    fails, a full pass follows with its own events."""

    evaluated: Sequence[str]
    feasible_nodes: Sequence[str]
    num_feasible_nodes_to_find: int
    start_index: int
    nominated_only: bool = msgspec.field(default=False, name="nominatedNodeOnly")
    batch_hint: bool = False  # that node was OpportunisticBatching's hint, not a nomination


class PostFilterOutcome(Wire):
    """One PostFilter plugin's answer. ``reasons`` are its status's reasons as the framework joins
    them into the FailedScheduling message; ``summary`` is DefaultPreemption's short trace reason;
    ``nominatedNodeName`` is None when the plugin nominates nothing, "" when it clears a nomination."""

    code: str
    reasons: list[str]
    nominated_node_name: Optional[str]
    victims: list[str]
    candidates: dict[str, list[str]]
    nomination_tie: bool = False
    summary: Optional[str] = None


class PostFilterSummary(Wire):
    """RunPostFilterPlugins' joined answer: its code, message (the FitError's PostFilter part) and
    the plugin that rejected first (or failed)."""

    code: str
    message: str
    plugin: Optional[str]


class PreScorePluginResult(Wire):
    status: StatusJSON
    # The plugin's state as JSON, or its typed state (read-only after PreScore) whose to_json makes
    # it when the event is written: PodTopologySpread's per-node counts stay arrays until then.
    state: Any

    def to_json(self, node_counts: Optional[Callable[[Sequence[str], Any], Any]] = None) -> dict[str, Any]:
        """``node_counts``: passed to a typed state's to_json (the columnar encoder's columns)."""
        if node_counts is None:
            return Wire.to_json(self)
        return Wire.to_json(msgspec.structs.replace(self, state=self.state_json(node_counts)))

    def state_json(self, node_counts: Optional[Callable[[Sequence[str], Any], Any]] = None) -> Any:
        """The state's wire form, whether the plugin gave it as JSON or typed."""
        return self.state.to_json(node_counts) if hasattr(self.state, "to_json") else self.state


def _by_node(nodes: Sequence[str], values: Any) -> dict[str, int]:
    return dict(zip(nodes, _plain(values)))


def _plain(values: Any) -> list[int]:
    """Python ints, whether the engine's array or a list read back."""
    plain: list[int] = values.tolist() if hasattr(values, "tolist") else values
    return plain


class ScoreWire(Wire):
    """``ScoreResult``'s wire form."""

    raw: dict[str, int]


class ScoreResult(msgspec.Struct):
    nodes: Sequence[str]  # the scored (feasible) nodes, in document order
    raw: Any  # int array aligned with ``nodes``

    def to_json(self) -> dict[str, Any]:
        return ScoreWire(self.raw_by_node()).to_json()

    @staticmethod
    def from_wire(wire: ScoreWire) -> ScoreResult:
        return ScoreResult(list(wire.raw), list(wire.raw.values()))

    def raw_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.raw)

    def raw_values(self) -> list[int]:
        """Aligned with ``nodes``."""
        return _plain(self.raw)


class NormalizeWire(Wire):
    """``NormalizeResult``'s wire form (both maps written from the one node list)."""

    normalized: dict[str, int]
    weight: int
    weighted: dict[str, int]


class NormalizeResult(msgspec.Struct):
    nodes: Sequence[str]
    normalized: Any
    weight: int
    weighted: Any

    def to_json(self) -> dict[str, Any]:
        return NormalizeWire(self.normalized_by_node(), self.weight, self.weighted_by_node()).to_json()

    @staticmethod
    def from_wire(wire: NormalizeWire) -> NormalizeResult:
        """Both maps were written from the one node list, so their values line up."""
        return NormalizeResult(
            list(wire.normalized), list(wire.normalized.values()), wire.weight, list(wire.weighted.values())
        )

    def normalized_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.normalized)

    def weighted_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.weighted)

    def node_scores(self) -> Iterator[tuple[str, int, int]]:
        """(node, normalized, weighted) per node, in ``nodes`` order."""
        return zip(self.nodes, _plain(self.normalized), _plain(self.weighted))


class TotalWire(Wire):
    """``TotalResult``'s wire form."""

    total_scores: dict[str, int]
    node_name: Optional[str]
    ties: Sequence[str]  # written as a list (NodePositions: the hand-over's ties)
    error: Optional[str] = None


class TotalResult(msgspec.Struct):
    nodes: Sequence[str]
    totals: Any
    node_name: Optional[str]
    ties: Sequence[str]  # a list, or NodePositions where node lists are positions (the hand-over)
    error: Optional[str] = None
    # Where the ties are in ``nodes`` when the scheduler knows it (ties == [nodes[p] for p in it]):
    # the columnar encoder stores them from it without looking up thousands of names.
    tie_positions: Any = None

    def to_json(self) -> dict[str, Any]:
        return TotalWire(self.totals_by_node(), self.node_name, self.ties, self.error).to_json()

    @staticmethod
    def from_wire(wire: TotalWire) -> TotalResult:
        totals = wire.total_scores
        return TotalResult(list(totals), list(totals.values()), wire.node_name, wire.ties, wire.error)

    def totals_by_node(self) -> dict[str, int]:
        return _by_node(self.nodes, self.totals)


class BindingStep(Wire):
    status: StatusJSON
    node_name: str
    state: Any = None  # the plugin's binding_state_json() after its step, when it has one


class CycleEnd(Wire):
    node_name: Optional[str]
    failed_scheduling_message: Optional[str] = None
    error: Optional[str] = None


# ---------------------------------------------------------------------- the run to the end


class RunStart(Wire):
    """The cluster when the run starts: every pod of the scenario and where it is (None: pending)."""

    pods: dict[str, Optional[str]]
    release: str


class AttemptEnd(Wire):
    """A timeline attempt's result beyond CycleEnd: when it happened, the pod's attempt number,
    the nomination it wrote (None: left as it was; "" cleared), the victims its preemption chose."""

    time_ms: int
    attempt: int
    nominated_node_name: Optional[str] = None
    victims: list[str] = []
    binding_error: Optional[str] = None  # the binding cycle (PreBind or Bind) failed with this
    binding_node: Optional[str] = None  # ... while binding the pod to this node (set with binding_error)
    # A binding blocked in PreBind (waiting for device binding conditions) fails this long after the
    # attempt (its end is told when the wait begins, with the error it ends with)
    binding_wait_ms: Optional[int] = None
    # Set when this corrects the end of an earlier attempt (that cycle's index): a binding blocked in
    # PreBind failed otherwise (a preemption cancelled it).
    corrects_cycle: Optional[int] = None


class QueueMoved(Wire):
    """A pod entered a queue: activeQ, backoffQ or unschedulablePods, and why (the event's label,
    and for a cluster event the plugins whose queueing hints let it through)."""

    time_ms: int
    queue: str
    event: str
    plugins: list[str]


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


class ClusterChanged(Wire):
    """Something in the cluster changed between cycles (``pod`` of the Event is the object's key
    for pods; ``object`` names others)."""

    time_ms: int
    kind: ClusterChangeKind
    object: str
    node: Optional[str] = None
    detail: str = ""
    # PodCreated only: the pod's labels and its spec.resourceClaims as created (a controller's pod
    # carries its template's, which a rollout changes), so a stored run's step view draws it as made.
    # ``claims`` is None, never empty, when the pod has none.
    labels: Optional[dict[str, str]] = None
    claims: Optional[list[dict[str, str]]] = None


class RunEnd(Wire):
    """Where every pod is at the end (node, None pending, "deleted"), and remaining nominations."""

    time_ms: int
    attempts: int
    final: dict[str, Optional[str]]
    nominated: dict[str, str]
    # Pods the run stopped retrying: they kept failing with an error (the release retries them every
    # back-off forever) while nothing else happened; empty when the run ended on its own.
    stopped_retrying: list[str] = []


class StepStarted(Wire):
    """A step begins: its number (0: the scenario itself), name and operations, in order."""

    step: int
    name: str
    time_ms: int
    operations: list[str]


class BlockedEviction(Wire):
    pod: str
    budget: str


class ProgressDeadline(Wire):
    """A Deployment rollout's progress deadline (progressDeadlineSeconds): when it passes, or
    passed, measured from the last progress (the Progressing condition's lastUpdateTime), and
    whether it had passed when the step went quiet (the condition ProgressDeadlineExceeded)."""

    seconds: int
    passes_ms: int
    exceeded: bool


class RolloutCounts(Wire):
    """kubectl rollout status's counts of a workload, the fields every form of a rollout shares (the
    event's ``RolloutStatus``, ``timeline --json``'s ``RolloutEntry``): its kind and
    ``namespace/name``, the revision rolled out to (a Deployment's new ReplicaSet, a StatefulSet's
    update ControllerRevision) and its number, the replicas wanted, the live pods at the new
    revision (updated), all its live pods (replicas), the available (bound, not terminating) ones,
    the pods of older revisions still there, and whether it is complete."""

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


class RolloutStatus(RolloutCounts):
    """A workload's rollout as its step left it: its counts and the new pods still pending when the
    step went quiet (a stuck rollout). ``partition``: a StatefulSet's."""

    pending: list[str]
    partition: Optional[int] = None
    paused: Optional[bool] = None  # a paused Deployment (spec.paused): True, else absent
    progress_deadline: Optional[ProgressDeadline] = None  # a Deployment rollout not complete


class StepEnded(Wire):
    """A step went quiet: what it created, deleted, evicted, placed (bound), which evictions a
    budget blocked, the pods still pending then, and the pods a ``complete`` made succeed (all
    ``namespace/name``, in the order they happened). Every list is written, empty or not, but
    ``rollouts`` (only a run with a rollout has the key: stored runs keep their shape)."""

    step: int
    name: str
    started_ms: int
    time_ms: int
    created: list[str]
    deleted: list[str]
    evicted: list[str]
    placed: list[str]
    blocked: list[BlockedEviction]
    pending: list[str]
    succeeded: list[str]
    rollouts: list[RolloutStatus] = []  # workloads rolling out in the step


Payload = Union[
    RunStart,
    StepStarted,
    StepEnded,
    AttemptEnd,
    QueueMoved,
    ClusterChanged,
    RunEnd,
    CycleStart,
    QueueSortResult,
    PreFilterPluginResult,
    PreFilterSummary,
    FilterPluginResult,
    FilterSummary,
    PostFilterOutcome,
    PostFilterSummary,
    PreScorePluginResult,
    ScoreResult,
    NormalizeResult,
    TotalResult,
    BindingStep,
    CycleEnd,
]


class Event(Wire):
    cycle: int
    pod: str
    extension_point: ExtensionPoint
    plugin: Optional[str]
    payload: Payload


# ---------------------------------------------------------------------- reading the stream back


class WrittenJSON(msgspec.Struct):
    """A plugin's picture as read back from the stream: its JSON, written again as it is.

    The live picture is a plugin's own type (events.py imports no plugin); read back, only its wire
    form is left, and that is what every reader of a picture consumes."""

    value: Any

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> Any:
        """``node_list`` is ignored: the node lists were made lists when the picture was written."""
        return self.value


class UnknownEventKind(ValueError):
    """An event whose extension point (or cluster change kind) this release does not write."""


class PayloadInvalid(ValueError):
    """A payload that does not fit its declaration (a field its kind always has is missing, or of
    another type)."""


@dataclass(frozen=True)
class EventKind:
    """What an extension point's events carry: a plugin's own event (``plugin`` set) and the
    framework's summary (``plugin`` None), each as its wire declaration. The one table the
    readers, the pipe codec and the JSON Schema take the payloads from."""

    point: ExtensionPoint
    by_plugin: Optional[type[Wire]] = None
    summary: Optional[type[Wire]] = None


_BINDING = (
    ExtensionPoint.RESERVE,
    ExtensionPoint.PERMIT,
    ExtensionPoint.PRE_BIND,
    ExtensionPoint.BIND,
    ExtensionPoint.POST_BIND,
)
EVENT_KINDS: dict[ExtensionPoint, EventKind] = {
    kind.point: kind
    for kind in (
        EventKind(ExtensionPoint.CYCLE_START, summary=CycleStart),
        EventKind(ExtensionPoint.QUEUE_SORT, by_plugin=QueueSortResult),
        EventKind(ExtensionPoint.PRE_FILTER, by_plugin=PreFilterPluginResult, summary=PreFilterSummary),
        EventKind(ExtensionPoint.FILTER, by_plugin=StoredFilterVerdicts, summary=FilterSummary),
        EventKind(ExtensionPoint.POST_FILTER, by_plugin=PostFilterOutcome, summary=PostFilterSummary),
        EventKind(ExtensionPoint.PRE_SCORE, by_plugin=PreScorePluginResult),
        EventKind(ExtensionPoint.SCORE, by_plugin=ScoreWire),
        EventKind(ExtensionPoint.NORMALIZE_SCORE, by_plugin=NormalizeWire),
        EventKind(ExtensionPoint.TOTAL, summary=TotalWire),
        *(EventKind(point, by_plugin=BindingStep) for point in _BINDING),
        EventKind(ExtensionPoint.CYCLE_END, summary=CycleEnd),
        EventKind(ExtensionPoint.RUN_START, summary=RunStart),
        EventKind(ExtensionPoint.ATTEMPT_END, summary=AttemptEnd),
        EventKind(ExtensionPoint.QUEUE_MOVE, summary=QueueMoved),
        EventKind(ExtensionPoint.CLUSTER, summary=ClusterChanged),
        EventKind(ExtensionPoint.RUN_END, summary=RunEnd),
        EventKind(ExtensionPoint.STEP_START, summary=StepStarted),
        EventKind(ExtensionPoint.STEP_END, summary=StepEnded),
    )
}

# Where the engine's live payload holds more than its wire form (arrays aligned with a node list),
# how the wire form is read back into it. Every other payload reads back as its declaration.
_LIVE_FROM_WIRE: dict[type[Wire], Callable[[Any], Any]] = {
    ScoreWire: ScoreResult.from_wire,
    NormalizeWire: NormalizeResult.from_wire,
    TotalWire: TotalResult.from_wire,
}

# What a payload reads back as: its own type, but StoredFilterVerdicts for a Filter plugin's result.
ReadPayload = Union[Payload, StoredFilterVerdicts]

# Fields a stored run may lack because it was written before the field existed, with what they meant
# then (a run's step ended before `succeeded` listed its completed pods among the deleted ones).
_WRITTEN_BEFORE: dict[type[Wire], dict[str, Any]] = {StepEnded: {"succeeded": []}}


def read_payload(declared: type[Wire], data: dict[str, Any]) -> ReadPayload:
    """One payload's wire form back to its type (the live type where it holds more, ``_LIVE_FROM_WIRE``)."""
    older = _WRITTEN_BEFORE.get(declared)
    if older is not None:
        data = {**older, **data}
    try:
        payload = declared.from_json(data)
    except msgspec.ValidationError as exc:
        raise PayloadInvalid(f"{declared.__name__}: {exc}") from None
    if isinstance(payload, PreFilterPluginResult) and payload.picture is not None:
        payload.picture = WrittenJSON(payload.picture)
    live = _LIVE_FROM_WIRE.get(declared)
    read: ReadPayload = live(payload) if live is not None else payload  # type: ignore[assignment]
    return read


def _unknown_cluster_change(data: dict[str, Any]) -> Optional[UnknownEventKind]:
    kind = data.get("kind")
    if kind in _CLUSTER_KINDS:
        return None
    return UnknownEventKind(
        f"unknown cluster change kind {kind!r}; this release writes {', '.join(k.value for k in ClusterChangeKind)}"
    )


_CLUSTER_KINDS = frozenset(kind.value for kind in ClusterChangeKind)


def event_from_json(data: dict[str, Any]) -> Event:
    """The event ``Event.to_json()`` wrote, typed again (``event_from_json(e.to_json()).to_json() ==
    e.to_json()``). A Filter plugin's result comes back as ``StoredFilterVerdicts``, a PreFilter picture
    as ``WrittenJSON``: what their wire form keeps. Raises ``UnknownEventKind`` for a kind this release
    does not write, and ``PayloadInvalid`` for a payload that does not fit its kind's declaration."""
    try:
        point = ExtensionPoint(data["extensionPoint"])
    except ValueError:
        raise UnknownEventKind(
            f"unknown event kind {data['extensionPoint']!r} (cycle {data.get('cycle')}, "
            f"pod {data.get('pod')!r}); this release writes "
            f"{', '.join(p.value for p in ExtensionPoint)}"
        ) from None
    kind = EVENT_KINDS[point]
    plugin = data.get("plugin")
    declared = kind.summary if plugin is None else kind.by_plugin
    if declared is None:
        raise PayloadInvalid(f"a {point.value} event {'without' if plugin is None else 'with'} a plugin")
    if point is ExtensionPoint.CLUSTER:
        unknown = _unknown_cluster_change(data["payload"])
        if unknown is not None:
            raise unknown
    # Event.payload is what the engine emits; reading adds StoredFilterVerdicts
    payload: Any = read_payload(declared, data["payload"])
    return Event(data["cycle"], data["pod"], point, plugin, payload)


def read_events(events_json: Iterable[dict[str, Any]]) -> Iterator[Event]:
    """Each event of a stream read back from its wire form (stored, or one JSON line each), in order."""
    for data in events_json:
        yield event_from_json(data)
