"""Where every pod is at the end of each step of a run with steps (../shared/spec/CHANGES.md), and what
moved during the step: a projection of the run's stored story events (Cluster, StepStart/End),
so the web app's cluster view can draw any step without re-running the scheduler.

It reads the stored wire form of events (``Event.to_json()``) back typed. It also needs the
scenario the run started from: the pods it held (the events only say what changed) and the
Changes document (the labels of the nodes ``addNodes`` makes, which nodes a step cordons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from scheduler_core.cluster.controllers.deployment import POD_TEMPLATE_HASH, template_hash
from scheduler_core.util.wire import Wire
from scheduler_core.encoding.events import ClusterChanged, ClusterChangeKind, StepEnded, StepStarted, read_events
from scheduler_core.model import (
    KIND_DEPLOYMENT,
    LABEL_HOSTNAME,
    AddNodesOp,
    CordonOp,
    DrainOp,
    Scenario,
    Step,
)

# How a pod looks at the end of a step, against the end of the step before (step 0: the scenario).
MARK_NEW = "new"  # created during the step (placed or not)
MARK_PLACED = "placed"  # pending before, on a node now
MARK_MOVED = "moved"  # on another node than before (a pod re-created with its name elsewhere)
MARK_PENDING = "pending"  # no node at the end of the step (and not new)
MARK_SAME = ""  # where it was
STEP_MARKS = (MARK_NEW, MARK_PLACED, MARK_MOVED, MARK_PENDING)  # the marks a step's pods are counted by

# How a pod left during a step (its last node kept, to draw it there crossed out).
GONE_EVICTED = "evicted"  # a drain's eviction
GONE_DELETED = "deleted"  # deleted (scale down, a lost node, a preemption victim, a delete)
GONE_SUCCEEDED = "succeeded"  # a completed Job's pod

_GONE_BY_KIND = {
    ClusterChangeKind.POD_EVICTED: GONE_EVICTED,
    ClusterChangeKind.POD_TERMINATING: GONE_DELETED,
    ClusterChangeKind.POD_DELETED: GONE_DELETED,
    ClusterChangeKind.POD_SUCCEEDED: GONE_SUCCEEDED,
}


class NodeAtStep(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    name: str
    labels: dict[str, str]
    unschedulable: bool
    added: bool  # added during this step


class PodAtStep(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    pod: str  # namespace/name
    node: Optional[str]  # None: pending
    mark: str  # MARK_*
    previous_node: Optional[str]  # at the end of the step before (None: pending or did not exist)
    labels: dict[str, str]  # as written or as created (a run stored before PodCreated carried them: its template's)
    claims: list[dict[str, str]] = []  # spec.resourceClaims: {name, resourceClaimName | resourceClaimTemplateName}


class GonePod(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    pod: str
    node: Optional[str]  # where it was when it left (None: it was pending)
    how: str  # GONE_*
    labels: dict[str, str]


class StepPlacement(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    step: int
    name: str
    nodes: list[NodeAtStep]  # the nodes at the end of the step, in the order they came
    deleted_nodes: list[str]  # nodes lost during the step
    pods: list[PodAtStep]  # every pod at the end of the step (first seen first)
    gone: list[GonePod]  # pods that left during the step, in the order they left


@dataclass(slots=True)
class _Cluster:
    """The cluster as the story tells it so far."""

    nodes: dict[str, NodeAtStep]  # insertion order: scenario order, then added
    pods: dict[str, Optional[str]]  # pod -> node (None pending)
    labels: dict[str, dict[str, str]]
    claims: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    added_nodes: list[str] = field(default_factory=list)
    deleted_nodes: list[str] = field(default_factory=list)
    gone: dict[str, GonePod] = field(default_factory=dict)


def step_placements(scenario: Scenario, events_json: Iterable[dict[str, Any]]) -> list[StepPlacement]:
    """One StepPlacement per step that ended (step 0 included); [] for a run without steps."""
    if scenario.changes is None:
        return []
    steps = {step.number: step for step in scenario.changes.steps}
    new_node_labels = _added_node_labels(scenario)
    owner_labels = _workload_pod_labels(scenario)
    cluster = _start(scenario)
    before = dict(cluster.pods)
    out: list[StepPlacement] = []
    for event in read_events(events_json):
        payload = event.payload
        if isinstance(payload, StepStarted):
            _cordon(cluster, steps.get(payload.step))
        elif isinstance(payload, ClusterChanged):
            _apply(cluster, event.pod, payload, new_node_labels, owner_labels)
        elif isinstance(payload, StepEnded):
            out.append(_at_end(cluster, payload, before))
            before = dict(cluster.pods)
            cluster.added_nodes, cluster.deleted_nodes, cluster.gone = [], [], {}
    return out


def _start(scenario: Scenario) -> _Cluster:
    nodes = {n.name: NodeAtStep(n.name, dict(n.labels), n.unschedulable, False) for n in scenario.nodes}
    # The pods the scheduler sees: pending ones, and those bound to a node of the scenario (a pod on a
    # node the scenario lacks, or finished, is left out with a notice when the scenario loads).
    pods = [p for p in scenario.pods if not p.is_finished and (not p.node_name or p.node_name in nodes)]
    return _Cluster(
        nodes=nodes,
        pods={p.key: p.node_name or None for p in pods},
        labels={p.key: dict(p.labels) for p in pods},
        claims={p.key: [c.to_json() for c in p.claim_sources] for p in pods if p.claim_sources},
    )


def _cordon(cluster: _Cluster, step: Optional[Step]) -> None:
    """spec.unschedulable as the step's cordon, uncordon and drain operations write it (setting it
    gives the scheduler no event, so the story does not say it)."""
    for operation in step.operations if step is not None else ():
        spec = operation.spec
        if isinstance(spec, (CordonOp, DrainOp)) and spec.node in cluster.nodes:
            node = cluster.nodes[spec.node]
            unschedulable = spec.unschedulable if isinstance(spec, CordonOp) else True
            cluster.nodes[spec.node] = NodeAtStep(node.name, node.labels, unschedulable, node.added)


def _apply(
    cluster: _Cluster,
    pod: str,
    payload: ClusterChanged,
    node_labels: dict[str, dict[str, str]],
    owner_labels: dict[str, dict[str, str]],
) -> None:
    kind, node = payload.kind, payload.node
    if kind is ClusterChangeKind.POD_CREATED:
        cluster.pods[pod] = node
        if payload.labels is not None:  # the pod as created (a rollout's new template, a re-made pod's revision)
            cluster.labels[pod] = dict(payload.labels)
            cluster.claims[pod] = list(payload.claims or [])
        else:  # a run stored before PodCreated carried its labels
            cluster.labels.setdefault(pod, owner_labels.get(payload.detail, {}))
        cluster.gone.pop(pod, None)  # re-created under its name (a StatefulSet's pod)
    elif kind is ClusterChangeKind.POD_BOUND:
        cluster.pods[pod] = node
    elif kind is ClusterChangeKind.BINDING_FAILED:
        cluster.pods[pod] = None
    elif kind in _GONE_BY_KIND and pod not in cluster.gone:
        cluster.gone[pod] = GonePod(pod, cluster.pods.get(pod), _GONE_BY_KIND[kind], cluster.labels.get(pod, {}))
        if kind is not ClusterChangeKind.POD_EVICTED and kind is not ClusterChangeKind.POD_TERMINATING:
            cluster.pods.pop(pod, None)  # gone at once; a terminating pod holds its node until removed
    elif kind is ClusterChangeKind.POD_REMOVED:
        cluster.pods.pop(pod, None)
    elif kind is ClusterChangeKind.NODE_ADDED:
        name = payload.object
        cluster.nodes[name] = NodeAtStep(name, node_labels.get(name, {LABEL_HOSTNAME: name}), False, True)
        cluster.added_nodes.append(name)
    elif kind is ClusterChangeKind.NODE_DELETED:
        cluster.nodes.pop(payload.object, None)
        cluster.deleted_nodes.append(payload.object)


def _at_end(cluster: _Cluster, payload: StepEnded, before: dict[str, Optional[str]]) -> StepPlacement:
    pods = [
        PodAtStep(
            pod,
            node,
            _mark(pod, node, before),
            before.get(pod),
            cluster.labels.get(pod, {}),
            cluster.claims.get(pod, []),
        )
        for pod, node in cluster.pods.items()
    ]
    gone = [g for g in cluster.gone.values() if g.pod not in cluster.pods]
    return StepPlacement(
        payload.step, payload.name, list(cluster.nodes.values()), list(cluster.deleted_nodes), pods, gone
    )


def _mark(pod: str, node: Optional[str], before: dict[str, Optional[str]]) -> str:
    if pod not in before:
        return MARK_NEW
    if node is None:
        return MARK_PENDING
    if before[pod] is None:
        return MARK_PLACED
    return MARK_MOVED if before[pod] != node else MARK_SAME


def _added_node_labels(scenario: Scenario) -> dict[str, dict[str, str]]:
    """The labels of every node an addNodes operation makes: its model's, the operation's, and
    the hostname label set to the new name (as scheduler_core.run.steps.nodes writes them)."""
    labels = {n.name: dict(n.labels) for n in scenario.nodes}
    for step in scenario.changes.steps if scenario.changes is not None else ():
        for operation in step.operations:
            spec = operation.spec
            if isinstance(spec, AddNodesOp) and spec.like in labels:
                for number in range(1, spec.count + 1):
                    name = f"{spec.prefix}{number}"
                    labels[name] = {**labels[spec.like], **dict(spec.labels), LABEL_HOSTNAME: name}
    return labels


def _workload_pod_labels(scenario: Scenario) -> dict[str, dict[str, str]]:
    """The labels a controller's pods carry, keyed by who created them as the PodCreated event's
    detail names it ("ReplicaSet default/web-5d8f7c9b6f"): each workload's template labels, and
    for a Deployment the ReplicaSet the stand-in makes for it (with pod-template-hash)."""
    out: dict[str, dict[str, str]] = {}
    for workload in scenario.changes.workloads if scenario.changes is not None else ():
        template_labels = dict(((workload.template.get("metadata") or {}).get("labels")) or {})
        out[f"{workload.kind} {workload.key}"] = template_labels
        if workload.kind == KIND_DEPLOYMENT:
            hash_ = template_hash(workload.template)
            out[f"ReplicaSet {workload.namespace}/{workload.name}-{hash_}"] = {
                **template_labels,
                POD_TEMPLATE_HASH: hash_,
            }
    return out
