"""The step driver of a run with steps (../shared/spec/CHANGES.md): operations and controllers as API writes.

Step 0 is the scenario itself; the stand-in controllers are active from the start. Each later step
begins 1 s after the previous one went quiet: its operations are applied in order, each as the API
writes it makes, and every write reaches the scheduler as its informers deliver it (the cache,
then ``MoveAllToActiveOrBackoffQueue`` with the event the release derives from the change, through
the rejecting plugins' queueing hints). Then the controllers react (Deployment, ReplicaSet,
StatefulSet, DaemonSet, Job, disruption), and again after every change the run makes (a binding,
a pod removed, an eviction), until the step goes quiet.

Every write — of a pod, a node, a workload, a budget — goes through the run's cluster
(cluster/store.py); the driver and the controllers' caches hear them back as its watchers, the
step's account (created, deleted, evicted, succeeded, placed) included, whoever wrote.

The driver owns no scheduling and never calls the scheduler: it is one of the run's stand-ins
(``standins.StandIns``), whose ``begin``, ``react``, ``settle``, ``next_wake``, ``wake``, ``quiet``
and ``next_step_ms`` the run's loop reaches at the points where the run would otherwise stop or
the controllers get their turn.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Iterator, Optional, Protocol

from scheduler_core.cluster.controllers import (
    availability,
    daemonset,
    deployment,
    disruption,
    job,
    ranking,
    replicaset,
    statefulset,
)
from scheduler_core.cluster.controllers.pods import admit_priority
from scheduler_core.cluster.controllers.drain import GIVE_UP_MS, RETRY_MS, Drain, pods_to_evict
from scheduler_core.cluster.controllers.state import ClusterState, CreateClaim, CreatePod, DeletePod, Write
from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import (
    KIND_NODE,
    KIND_POD,
    KIND_STORAGE_CLASS,
    KIND_VOLUME,
    KIND_WORKLOAD,
    Action,
    Cluster,
    WatchEvent,
)
from scheduler_core.run.eventhandlers import node_scheduling_properties_change
from scheduler_core.encoding.events import (
    BlockedEviction,
    ClusterChangeKind,
    Event,
    ExtensionPoint,
    Payload,
    RolloutStatus,
    StepEnded,
    StepStarted,
)
from scheduler_core.framework.node_info import Snapshot
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import (
    KIND_DAEMON_SET,
    KIND_DEPLOYMENT,
    KIND_JOB,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    PHASE_SUCCEEDED,
    POLICY_PARALLEL,
    AddNodesOp,
    Changes,
    CompleteOp,
    ControlledWorkload,
    CordonOp,
    CreateOp,
    DeleteNodesOp,
    DeleteOp,
    DrainOp,
    Manifest,
    LABEL_HOSTNAME,
    Node,
    ObjectRef,
    Operation,
    OperationSpec,
    PatchOp,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    ScaleOp,
    Scenario,
    Step,
    StorageClass,
)
from scheduler_core.scenario import manifests
from scheduler_core.scenario.changes import workload_from_manifest
from scheduler_core.scenario.pods import refused_at_load, settle_gated_fields
from scheduler_core.scenario.storage import default_storage_class


class RunLoop(Protocol):
    """What the driver uses of the run's other components (``standins.StandIns``; named here,
    not imported, so they can import the driver without a cycle): the clock, the cluster (its
    listers too), the typed storage API calls on it, the informer cache of node infos it reads, and
    the deliveries of its writes."""

    clock: LogicalClock
    scenario: Scenario
    snapshot: Snapshot
    cluster: Cluster
    writes: ObjectWrites

    def drain_moves(self) -> Iterator[Event]: ...

    def storage_changes(self, detail: str = "") -> Iterator[Event]: ...

    def claims_for_new_pod(self, pod: Pod) -> Iterator[Event]: ...

    def event(self, pod: Optional[str], point: ExtensionPoint, payload: Payload) -> Event: ...

    def change_event(
        self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = ""
    ) -> Event: ...


SUCCEEDED = "succeeded"  # final: a pod a `complete` made succeed
STEP_GAP_MS = 1000  # step k starts 1 s after step k-1 went quiet
MAX_CONTROLLER_PASSES = 10000  # every pass writes something or the controllers have settled
ALL_CONTROLLERS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB)
_ROLLOUT_KINDS = (KIND_DEPLOYMENT, KIND_STATEFUL_SET, KIND_DAEMON_SET)  # a template change of these replaces pods


@dataclass
class StepRecord:
    """What happened during one step, for its StepEnd event."""

    number: int
    name: str
    started_ms: int
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    succeeded: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)
    blocked: list[BlockedEviction] = field(default_factory=list)


class StepDriver:
    def __init__(self, loop: RunLoop, changes: Changes, epoch: datetime) -> None:
        self.loop = loop
        self.changes = changes
        scenario = loop.scenario
        cluster = loop.cluster
        self.state = ClusterState(
            list(scenario.nodes),
            scenario.pods,
            cluster.workloads(),
            dict(scenario.priority_classes),
            epoch,
            created_at=_creation_times(changes, scenario.pods, epoch),
            gates=scenario.rules.gates,
        )
        self.state.claims = {claim.key for claim in scenario.storage.claims}
        self.state.clock_ms = lambda: loop.clock.ms
        self.state.deletion_costs = _deletion_costs(changes.manifests)
        self.state.api = cluster
        # The controllers' informers: every pod, node and workload write reaches their cache.
        cluster.watch(KIND_POD, self.state.track)
        cluster.watch(KIND_NODE, self.state.track)
        cluster.watch(KIND_WORKLOAD, self.state.track_workload)
        cluster.watch(KIND_POD, self._heard)
        self.manifests = dict(changes.manifests)
        self.drains: list[Drain] = []
        self.next_step = 0  # index into changes.steps of the step to start next
        self.record = StepRecord(0, "scenario", 0)
        self.last_activity_ms = 0
        self._step_due: Optional[int] = None
        self._finished: set[str] = set()  # pods a `complete` made succeed
        self._rollouts: list[ObjectRef] = []  # workloads whose rollout the next StepEnd reports (until complete)
        # What the controllers have not reacted to yet: pods bound, pods deleted or removed.
        self._bound: list[Pod] = []
        self._deleted = False
        # When controllers sync again to find pods available (minReadySeconds), soonest first.
        self._availability_wakes: list[int] = []

    # ------------------------------------------------------------------ hooks the loop calls

    def begin(self) -> Iterator[Event]:
        yield self._event("", ExtensionPoint.STEP_START, StepStarted(0, "scenario", 0, []))

    def react(
        self, initial: bool = False, kinds: tuple[str, ...] = ALL_CONTROLLERS, changed: Optional[Pod] = None
    ) -> Iterator[Event]:
        """The controllers, in the spec's order, until none has more to write; then the budgets
        (at the very start only if the controllers wrote: until a change, the dump's status holds).
        ``kinds`` and ``changed`` narrow a reaction to a binding (see ``settle``)."""
        self.state.now_ms = self.loop.clock.ms
        wrote = False
        for _ in range(MAX_CONTROLLER_PASSES):
            writes = self._controller_writes(kinds)
            yield from self.loop.drain_moves()  # the workloads they wrote, told before the pods
            if not writes:
                break
            wrote = True
            for write in writes:
                yield from self._apply(write)
        else:  # the controllers never settled: a bug of the stand-ins, not an answer to give
            raise RuntimeError(f"the stand-in controllers did not settle after {MAX_CONTROLLER_PASSES} passes")
        if wrote or not initial:
            yield from self._recompute_budgets(None if wrote else changed)
        if kinds == ALL_CONTROLLERS:  # every write heard so far has had its reaction
            self._bound, self._deleted = [], False

    def settle(self) -> Iterator[Event]:
        """The controllers' turn after writes of others (the scheduler's, the kubelet's) reached
        them. A pod deleted or removed: every controller. Only bindings: a binding changes only
        what depends on pods running — a StatefulSet's OrderedReady progress and the budgets that
        select the pod (the other controllers count pending and bound pods alike, so they would
        write nothing)."""
        if self._deleted:
            self.last_activity_ms = self.loop.clock.ms
            yield from self.react()
            return
        while self._bound:
            pod = self._bound.pop(0)
            self.last_activity_ms = self.loop.clock.ms
            yield from self.react(kinds=self._bound_reactors(), changed=pod)

    def _heard(self, event: WatchEvent) -> None:
        """Every pod write, whoever made it: the step's account, and what ``settle`` reacts to."""
        record, key, change = self.record, event.current.key, event.change
        if event.action is Action.ADDED:
            record.created.append(key)
        elif change is ClusterChangeKind.POD_EVICTED:
            record.evicted.append(key)
            self._deleted = True
        elif change is ClusterChangeKind.POD_BOUND:
            record.placed.append(key)
            self._bound.append(event.new)
            self._expect_available(event.new)
        elif change is ClusterChangeKind.POD_SUCCEEDED:
            record.succeeded.append(key)
            self._finished = self._finished | {key}
        elif event.action is Action.DELETED:
            self._deleted = True
            if change is ClusterChangeKind.POD_DELETED or not event.old.is_terminating:
                record.deleted.append(key)  # a delete, not the kubelet finishing one
        elif event.new.is_terminating and not event.old.is_terminating:
            record.deleted.append(key)
            self._deleted = True

    def _bound_reactors(self) -> tuple[str, ...]:
        """The controllers a binding can move: a StatefulSet's OrderedReady progress; during a
        rollout, availability moves the Deployment (and so its ReplicaSets) and a DaemonSet."""
        kinds = [KIND_STATEFUL_SET]
        if self.state.rolling:
            kinds[:0] = [KIND_DEPLOYMENT, KIND_REPLICA_SET]
        if any(ref.kind == KIND_DAEMON_SET for ref in self._rollouts):
            kinds.append(KIND_DAEMON_SET)
        return tuple(kinds)

    def _expect_available(self, pod: Pod) -> None:
        """A pod became ready (the kubelet stand-in: at its binding): when its availability can
        move its controller (a Deployment's or DaemonSet's rollout, a StatefulSet's OrderedReady
        progress), the controller's resync minReadySeconds + 1 s later is a time to wake up."""
        owner = self._availability_owner(pod)
        if owner is None:
            return
        self.state.now_ms = self.loop.clock.ms
        at = availability.resync_ms(self.state, pod, owner.min_ready_seconds)
        if at is not None and at > self.state.now_ms:
            heapq.heappush(self._availability_wakes, at)

    def _availability_owner(self, pod: Pod) -> Optional[ControlledWorkload]:
        ref = next((r for r in pod.owner_references if r.controller), None)
        owner = self._workload(ObjectRef(ref.kind, pod.namespace, ref.name)) if ref is not None else None
        if owner is None or owner.min_ready_seconds == 0:
            return None
        rolling = ObjectRef(owner.kind, owner.namespace, owner.name) in self._rollouts
        if owner.kind == KIND_REPLICA_SET:
            deploys = owner.owner is not None and f"{owner.namespace}/{owner.owner.name}" in self.state.rolling
            return owner if deploys else None
        if owner.kind == KIND_STATEFUL_SET:
            return owner if rolling or owner.pod_management_policy != POLICY_PARALLEL else None
        return owner if owner.kind == KIND_DAEMON_SET and rolling else None

    def attempted(self) -> None:
        self.last_activity_ms = self.loop.clock.ms

    def next_wake(self) -> Optional[int]:
        """The next refused eviction to try again, or the next pod to become available."""
        times = [d.retry_at for d in self.drains if d.retry_at is not None]
        if self._availability_wakes:
            times.append(self._availability_wakes[0])
        return min(times) if times else None

    def wake(self) -> Iterator[Event]:
        now = self.loop.clock.ms
        self.state.now_ms = now
        for drain in list(self.drains):
            if drain.retry_at is not None and drain.retry_at <= now:
                yield from self._retry(drain)
        if self._availability_wakes and self._availability_wakes[0] <= now:
            while self._availability_wakes and self._availability_wakes[0] <= now:
                heapq.heappop(self._availability_wakes)
            self.last_activity_ms = now
            yield from self.react()
        if self.next_step < len(self.changes.steps) and self._step_due == now:
            yield from self._start(self.changes.steps[self.next_step])

    def quiet(self) -> Iterator[Event]:
        """The current step went quiet: its summary (called once per step)."""
        record = self.record
        self.state.now_ms = self.loop.clock.ms  # the rollouts' availability and deadlines as of now
        pending = [
            pod.key
            for pod in self.state.pods
            if self.state.live(pod) and not pod.node_name and pod.scheduler_name in self.loop.scenario.scheduler_names
        ]
        yield self._event(
            "",
            ExtensionPoint.STEP_END,
            StepEnded(
                record.number,
                record.name,
                record.started_ms,
                self.loop.clock.ms,
                record.created,
                record.deleted,
                record.evicted,
                record.placed,
                record.blocked,
                pending,
                record.succeeded,
                self._rollout_statuses(),
            ),
        )

    def _rollout_statuses(self) -> list[RolloutStatus]:
        """The rollouts under way when the step went quiet; a complete one is reported once."""
        statuses: list[RolloutStatus] = []
        still: list[ObjectRef] = []
        for ref in self._rollouts:
            workload = self._workload(ref)
            if workload is None:
                continue
            status = _ROLLOUT_STATUS[ref.kind](self.state, workload)
            statuses.append(status)
            if not status.complete:
                still.append(ref)
        self._rollouts = still
        return statuses

    def next_step_ms(self) -> Optional[int]:
        if self.next_step >= len(self.changes.steps):
            return None
        self._step_due = self.loop.clock.ms + STEP_GAP_MS
        return self._step_due

    def final(self) -> dict[str, Optional[str]]:
        """Every pod that existed at any time: its node, None (pending), "succeeded" (a ``complete``
        finished it) or "deleted"."""
        out: dict[str, Optional[str]] = {}
        for pod in self.state.pods:
            if pod.key in self._finished:
                out[pod.key] = SUCCEEDED
            elif pod.key in self.state.gone:
                out[pod.key] = "deleted"
            elif not pod.is_finished:
                out[pod.key] = pod.node_name or None
        return dict(sorted(out.items()))

    # ------------------------------------------------------------------ a step

    def _start(self, step: Step) -> Iterator[Event]:
        self.next_step += 1
        now = self.loop.clock.ms
        self.record = StepRecord(step.number, step.name or step.title, now)
        self.last_activity_ms = now
        yield self._event(
            "",
            ExtensionPoint.STEP_START,
            StepStarted(step.number, step.name or step.title, now, [op.text for op in step.operations]),
        )
        for operation in step.operations:
            before = self._writes_made()
            yield from self._operation(operation)
            why = self._why_unchanged(operation.spec) if self._writes_made() == before else None
            if why is not None:
                yield self._cluster(
                    operation.text, ClusterChangeKind.OPERATION_UNCHANGED, detail=f"wrote nothing: {why}"
                )
        yield from self.react()

    def _writes_made(self) -> int:
        return self.loop.cluster.write_count

    def _why_unchanged(self, spec: OperationSpec) -> Optional[str]:
        """Why an operation wrote nothing (None where that is no news: a create or a budget's spec,
        which the driver keeps, may write nothing and still act)."""
        if isinstance(spec, ScaleOp):
            workload = self._workload(spec.target)
            return f"no {spec.target}" if workload is None else f"it has {spec.replicas} replicas already"
        if isinstance(spec, (CordonOp, DrainOp)):
            node = self._node(spec.node)
            if node is None:
                return f"no node {spec.node}"
            if isinstance(spec, DrainOp):
                waiting = any(drain.node == spec.node and drain.waiting for drain in self.drains)
                return (
                    "its node was cordoned already and its evictions wait on budgets"
                    if waiting
                    else "its node was cordoned already and has no pod to evict"
                )
            return "its node is unschedulable already" if spec.unschedulable else "its node is schedulable already"
        if isinstance(spec, AddNodesOp):
            return f"no node {spec.like} to copy"
        if isinstance(spec, DeleteNodesOp):
            return "no node matches"
        if isinstance(spec, CompleteOp):
            return f"no {spec.target}" if self._workload(spec.target) is None else "none of its pods is running"
        if isinstance(spec, DeleteOp):
            return f"no {spec.target}"
        if isinstance(spec, PatchOp) and spec.target.kind != "PodDisruptionBudget":
            return f"no {spec.target}" if self._patched_missing(spec.target) else "the patch changes nothing"
        return None

    def _patched_missing(self, ref: ObjectRef) -> bool:
        return self._node(ref.name) is None if ref.kind == "Node" else self._workload(ref) is None

    def _operation(self, operation: Operation) -> Iterator[Event]:
        spec = operation.spec
        if isinstance(spec, ScaleOp):
            yield from self._scale(spec)
        elif isinstance(spec, DrainOp):
            yield from self._drain(spec.node)
        elif isinstance(spec, CordonOp):
            yield from self._set_unschedulable(spec.node, spec.unschedulable)
        elif isinstance(spec, AddNodesOp):
            yield from self._add_nodes(spec)
        elif isinstance(spec, DeleteNodesOp):
            chosen = [
                node
                for node in self.state.nodes
                if (spec.selector and all(node.labels.get(k) == v for k, v in spec.selector)) or node.name in spec.names
            ]
            for node in chosen:
                yield from self._lose_node(node)
        elif isinstance(spec, PatchOp):
            yield from self._patch(spec, operation.line)
        elif isinstance(spec, CreateOp):
            yield from self._create(spec, operation.line)
        elif isinstance(spec, DeleteOp):
            yield from self._delete(spec.target)
        elif isinstance(spec, CompleteOp):
            yield from self._complete(spec.target)

    # ------------------------------------------------------------------ workloads

    def _workload(self, ref: ObjectRef) -> Optional[ControlledWorkload]:
        return next(
            (
                w
                for w in self.state.workloads
                if w.kind == ref.kind and w.namespace == ref.namespace and w.name == ref.name
            ),
            None,
        )

    def _scale(self, spec: ScaleOp) -> Iterator[Event]:
        workload = self._workload(spec.target)
        if workload is None:
            return
        self.loop.cluster.update_workload(
            replace(workload, replicas=spec.replicas), f"{workload.kind} replicas {workload.replicas} → {spec.replicas}"
        )
        yield from self.loop.drain_moves()

    def _add_workload(self, workload: ControlledWorkload, by: str) -> Iterator[Event]:
        self.loop.cluster.create_workload(
            replace(workload, created_ms=self.loop.clock.ms), f"{workload.kind} created {by}"
        )
        yield from self.loop.drain_moves()

    def _controller_writes(self, kinds: tuple[str, ...]) -> list[Write]:
        """One pass of the controllers of ``kinds`` over their workloads, in the spec's order (a
        Deployment writes its ReplicaSets through the cluster as it syncs; the pods the others
        want are returned, to be written in order)."""
        state = self.state
        for workload in [w for w in state.workloads if w.kind == KIND_DEPLOYMENT and KIND_DEPLOYMENT in kinds]:
            deployment.reconcile(state, workload)
        writes: list[Write] = []
        classes = self._storage_classes()
        for kind in (KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB):
            if kind not in kinds:
                continue
            for workload in [w for w in state.workloads if w.kind == kind]:
                if kind == KIND_REPLICA_SET:
                    writes.extend(replicaset.reconcile(state, workload))
                elif kind == KIND_STATEFUL_SET:
                    writes.extend(statefulset.reconcile(state, workload, classes))
                elif kind == KIND_DAEMON_SET:
                    writes.extend(daemonset.reconcile(state, workload))
                else:
                    writes.extend(job.reconcile(state, workload))
        return writes

    # ------------------------------------------------------------------ writes reaching the scheduler

    def _apply(self, write: Write) -> Iterator[Event]:
        if isinstance(write, CreatePod):
            yield from self._pod_created(write.pod, write.by)
        elif isinstance(write, DeletePod):
            yield from self._delete_pod(write.pod, write.by, write.graceful)
        elif isinstance(write, CreateClaim):
            yield from self._claim_created(write.claim, write.by)

    def _pod_created(self, pod: Pod, by: str) -> Iterator[Event]:
        """The pod informer's Add: a pending pod enters the queue (UnschedulablePodAdd); one
        written with a node is an assigned pod (AssignedPodAdd)."""
        if not self.state.knows(pod):  # a step's own pod (the controllers' are known already)
            self.state.created_ms[pod.key] = self.loop.clock.ms
            self.state.add_pod(pod)
        created = self.loop.cluster.create_pod(pod, ClusterChangeKind.POD_CREATED, by)
        yield from self.loop.drain_moves()
        if not created.node_name and created.scheduler_name in self.loop.scenario.scheduler_names:
            # As for the scenario's pending pods: the resourceclaim controller makes the claims of
            # the pod's templates, then names them in the pod's status (PreEnqueue held it till then).
            yield from self.loop.claims_for_new_pod(created)
            yield from self.loop.drain_moves()

    def _delete_pod(self, pod: Pod, by: str, graceful: bool) -> Iterator[Event]:
        """A delete: a pending pod goes at once (no kubelet to wait for); a bound one is marked
        terminating (AssignedPodUpdate) and the stand-in kubelet removes it later — unless the
        delete has no grace (its node is lost), then it goes at once (AssignedPodDelete)."""
        self.loop.cluster.delete_pod(pod.key, ClusterChangeKind.POD_TERMINATING, by, graceful=graceful)
        yield from self.loop.drain_moves()

    def _claim_created(self, claim: PersistentVolumeClaim, by: str) -> Iterator[Event]:
        self.loop.writes.write_claim(claim)
        self.state.claims.add(claim.key)
        yield from self.loop.storage_changes(f"created {by}")

    def _recompute_budgets(self, changed: Optional[Pod] = None) -> Iterator[Event]:
        """Every budget's status; with ``changed``, only the budgets that select that pod."""
        cluster = self.loop.cluster
        for budget in cluster.budgets():
            if changed is not None and not _selects(budget, changed):
                continue
            updated = disruption.recompute(self.state, budget, budget.spec)
            if updated.disruptions_allowed != budget.disruptions_allowed:
                cluster.put_budget(
                    updated, f"disruptionsAllowed {budget.disruptions_allowed} → {updated.disruptions_allowed}"
                )
                yield from self.loop.drain_moves()

    # ------------------------------------------------------------------ nodes

    def _node(self, name: str) -> Optional[Node]:
        return self.state.node(name)

    def _update_node(self, old: Node, node: Node, new_manifest: Manifest) -> Iterator[Event]:
        self.manifests[ObjectRef("Node", "", node.name)] = new_manifest
        declared_features = self.loop.scenario.rules.gates.enabled("NodeDeclaredFeatures")
        self.loop.cluster.update_node(node, lambda old, new: _node_change_labels(old, new, declared_features))
        yield from self.loop.drain_moves()

    def _set_unschedulable(self, name: str, unschedulable: bool) -> Iterator[Event]:
        old = self._node(name)
        if old is None or old.unschedulable == unschedulable:
            return
        manifest = manifests.merge_patch(
            self.manifests.get(ObjectRef("Node", "", name)) or {},
            {"spec": {"unschedulable": True if unschedulable else None}},
        )
        yield from self._update_node(old, replace(old, unschedulable=unschedulable), manifest)

    def _add_nodes(self, spec: AddNodesOp) -> Iterator[Event]:
        like = self._node(spec.like)
        if like is None:
            return
        like_manifest = self.manifests.get(ObjectRef("Node", "", like.name)) or {}
        taints = [
            t
            for t in ((like_manifest.get("spec") or {}).get("taints") or [])
            if not any(t.get("key") == n.key and t.get("effect") == n.effect for n in spec.taints)
        ]
        taints += [
            {"key": t.key, "value": t.value, "effect": t.effect} if t.value else {"key": t.key, "effect": t.effect}
            for t in spec.taints
        ]
        for number in range(1, spec.count + 1):
            name = f"{spec.prefix}{number}"
            labels = {**like.labels, **dict(spec.labels), LABEL_HOSTNAME: name}
            manifest = manifests.merge_patch(
                like_manifest,
                {
                    "metadata": {"name": name, "labels": None, "uid": None, "annotations": None},
                    "spec": {"taints": None, "unschedulable": None, "providerID": None},
                    "status": {"images": None, "conditions": None},
                },
            )
            manifest = {
                **manifest,
                "metadata": {**manifest["metadata"], "labels": labels},
                "spec": {**(manifest.get("spec") or {}), **({"taints": taints} if taints else {})},
            }
            node = manifests.decode_node(manifest, len(self.state.nodes), like.line)
            self.manifests[ObjectRef("Node", "", name)] = manifest
            yield from self._node_added(node, f"like {like.name}")

    def _node_added(self, node: Node, detail: str) -> Iterator[Event]:
        self.loop.cluster.create_node(node, detail)
        yield from self.loop.drain_moves()

    def _lose_node(self, node: Node) -> Iterator[Event]:
        """A machine lost: Node/Delete, then its pods are gone at once (the pod garbage collector)."""
        info = self.loop.snapshot.get(node.name)
        bound = sorted((i.pod for i in info.pods), key=lambda pod: pod.key) if info is not None else []
        self.loop.cluster.delete_node(node.name)
        yield from self.loop.drain_moves()
        for pod in bound:
            yield from self._delete_pod(pod, f"its node {node.name} was lost", graceful=False)
        self.drains = [d for d in self.drains if d.node != node.name]

    # ------------------------------------------------------------------ drain and eviction

    def _drain(self, name: str) -> Iterator[Event]:
        yield from self._set_unschedulable(name, True)
        info = self.loop.snapshot.get(name)
        pods_on_node = [i.pod for i in info.pods] if info is not None else []
        # The manifests of the pods on the node, by key (pods_to_evict reads no other): not every
        # pod's, which made draining many nodes quadratic.
        pod_manifests = {
            pod.key: m
            for pod in pods_on_node
            if (m := self.manifests.get(ObjectRef("Pod", pod.namespace, pod.name))) is not None
        }
        drain = Drain(name, self.record.number, pods_to_evict(pods_on_node, pod_manifests))
        self.drains.append(drain)
        yield from self._evict_all(drain)

    def _evict_all(self, drain: Drain) -> Iterator[Event]:
        still: list[Pod] = []
        for pod in drain.waiting:
            if not self.state.live(pod):
                continue
            answer = self.loop.cluster.evict_pod(pod.key, f"drain of {drain.node}")
            if answer.allowed:
                drain.refused_by.pop(pod.key, None)
                yield from self.loop.drain_moves()
            else:
                drain.refused_by[pod.key] = answer.budget
                still.append(pod)
                yield self._cluster(
                    pod.key, ClusterChangeKind.EVICTION_REFUSED, node=drain.node, detail=f"budget {answer.budget}"
                )
        drain.waiting = still
        drain.retry_at = self.loop.clock.ms + RETRY_MS if still else None
        if not still:
            self.drains.remove(drain)
        yield from self.react()

    def _retry(self, drain: Drain) -> Iterator[Event]:
        yield from self._evict_all(drain)
        if drain.waiting and self.loop.clock.ms - self.last_activity_ms >= GIVE_UP_MS:
            for pod in drain.waiting:
                blocked = BlockedEviction(pod.key, drain.refused_by.get(pod.key, ""))
                self.record.blocked.append(blocked)
                yield self._cluster(
                    pod.key, ClusterChangeKind.DRAIN_BLOCKED, node=drain.node, detail=f"budget {blocked.budget}"
                )
            if drain in self.drains:
                self.drains.remove(drain)

    # ------------------------------------------------------------------ patch, create, delete, complete

    def _patch(self, spec: PatchOp, line: Optional[int]) -> Iterator[Event]:
        ref = spec.target
        workload = self._workload(ref) if ref.kind not in ("Node", "PodDisruptionBudget") else None
        written = self.manifests.get(ref) or {}
        if workload is not None:  # a scale (the step's or a controller's) wrote the size since
            written = _with_replicas(written, workload)
        manifest = manifests.merge_patch(written, spec.patch)
        if ref.kind == "Node":
            old = self._node(ref.name)
            if old is not None:
                node = manifests.decode_node(manifest, old.doc_index, line)
                yield from self._update_node(old, node, manifest)
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        elif workload is not None:
            patched = workload_from_manifest(manifest, line)
            if workload.kind in _ROLLOUT_KINDS and manifests.plain(patched.template) != manifests.plain(
                workload.template
            ):
                self._start_rollout(workload)
            self.manifests[ref] = manifest
            self.loop.cluster.update_workload(
                replace(
                    workload,
                    replicas=patched.replicas,
                    template=patched.template,
                    selector=patched.selector,
                    labels=patched.labels,
                    pod_management_policy=patched.pod_management_policy,
                    claim_templates=patched.claim_templates,
                    min_ready_seconds=patched.min_ready_seconds,
                    manifest=manifest,
                ),
                f"{workload.kind} patched",
            )
            yield from self.loop.drain_moves()

    def _start_rollout(self, workload: ControlledWorkload) -> None:
        """A Deployment's, StatefulSet's or DaemonSet's template changed: a Deployment is synced as
        the release syncs it from now on; each StepEnd reports the rollout until it is complete."""
        if workload.kind == KIND_DEPLOYMENT:
            self.state.rolling.add(workload.key)
        ref = ObjectRef(workload.kind, workload.namespace, workload.name)
        if ref not in self._rollouts:
            self._rollouts.append(ref)
        for pod in self._pods_behind(workload):  # their availability now moves the rollout
            self._expect_available(pod)

    def _pods_behind(self, workload: ControlledWorkload) -> list[Pod]:
        """The workload's pods (a Deployment's: its ReplicaSets')."""
        if workload.kind != KIND_DEPLOYMENT:
            return self.state.owned_pods(workload)
        return [pod for rs in deployment.owned_replica_sets(self.state, workload) for pod in self.state.owned_pods(rs)]

    def _put_budget(self, ref: ObjectRef, manifest: Manifest, line: Optional[int]) -> Iterator[Event]:
        budget, _ = manifests.decode_budget(manifest, line)
        existing = self.loop.cluster.budget(budget.key)
        if existing is not None:  # the spec written; the status is the disruption controller's
            budget = replace(budget, disruptions_allowed=existing.disruptions_allowed)
        self.manifests[ref] = manifest
        self.loop.cluster.put_budget(budget, "written")
        yield from self.loop.drain_moves()

    def _create(self, spec: CreateOp, line: Optional[int]) -> Iterator[Event]:
        ref, manifest = spec.target, manifests.plain(spec.manifest)
        self.manifests[ref] = manifest
        if ref.kind == "Pod":
            self.state.deletion_costs.update(_deletion_costs({ref: manifest}))
            pod = manifests.decode_pod(manifest, len(self.state.pods), line)
            settle_gated_fields(pod, self.loop.scenario.rules.gates, refused_at_load)
            if pod.claim_sources and not pod.uid:
                pod.uid = self._step_pod_uid(pod)
            admit_priority(
                pod,
                manifests.pod_has_priority(manifest),
                "preemptionPolicy" in (manifest.get("spec") or {}),
                self.state.priority_classes,
            )
            yield from self._pod_created(pod, "by the step")
        elif ref.kind == "Node":
            yield from self._node_added(manifests.decode_node(manifest, len(self.state.nodes), line), "by the step")
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        elif ref.kind == "PersistentVolumeClaim":
            claim = manifests.decode_claim(manifest, len(self.state.claims), line)
            claim = default_storage_class([claim], self._storage_classes())[0]
            yield from self._claim_created(claim, "by the step")
        elif ref.kind == "PersistentVolume":
            volume = manifests.decode_volume(manifest, len(self.loop.cluster.listed(KIND_VOLUME)), line)
            self.loop.writes.write_volume(volume)
            yield from self.loop.storage_changes("created by the step")
        elif ref.kind == "StorageClass":
            self.loop.writes.write_storage_class(manifests.decode_storage_class(manifest, line))
            yield from self.loop.storage_changes("created by the step")
        else:
            yield from self._add_workload(workload_from_manifest(manifest, line), "by the step")

    def _storage_classes(self) -> list[StorageClass]:
        """The cluster's storage classes (its lister), in the order they were created."""
        return list(self.loop.cluster.listed(KIND_STORAGE_CLASS).values())

    def _step_pod_uid(self, pod: Pod) -> str:
        """The uid the API server gives a step's pod with claims, as the loader gives one to the
        scenario's (reservations and owner references name pods by uid): without it every such
        pod had the uid "", and the claim release of one removed pod released and deleted the
        claims of all of them. A pod made again under a name used before gets a uid of its own."""
        uid = f"uid-pod-{pod.namespace}-{pod.name}"
        earlier = sum(1 for known in self.state.pods if known.key == pod.key)
        return uid if not earlier else f"{uid}-{earlier + 1}"

    def _delete(self, ref: ObjectRef) -> Iterator[Event]:
        if ref.kind == "Pod":
            pod = next(
                (
                    p
                    for p in self.state.pods
                    if p.namespace == ref.namespace and p.name == ref.name and self.state.live(p)
                ),
                None,
            )
            if pod is not None:
                yield from self._delete_pod(pod, "by the step", graceful=True)
        elif ref.kind == "Node":
            node = self._node(ref.name)
            if node is not None:
                yield from self._lose_node(node)
        elif ref.kind == "PodDisruptionBudget":
            self.loop.cluster.delete_budget(f"{ref.namespace}/{ref.name}", "deleted")
            yield from self.loop.drain_moves()
        elif ref.kind == "PersistentVolumeClaim":
            old = self.loop.writes.delete_claim(f"{ref.namespace}/{ref.name}")
            if old is not None:
                self.state.claims.discard(old.key)
                yield from self.loop.storage_changes("deleted by the step")
        else:
            yield from self._delete_workload(ref)

    def _delete_workload(self, ref: ObjectRef) -> Iterator[Event]:
        """The workload goes; the garbage collector deletes what it owns (background propagation)."""
        workload = self._workload(ref)
        if workload is None:
            return
        self.loop.cluster.delete_workload(ref.kind, ref.namespace, ref.name, f"{workload.kind} deleted")
        yield from self.loop.drain_moves()
        if workload.kind == KIND_DEPLOYMENT:
            for owned in deployment.owned_replica_sets(self.state, workload):
                yield from self._delete_workload(ObjectRef(owned.kind, owned.namespace, owned.name))
        for pod in self.state.owned_pods(workload):
            if not pod.is_terminating:
                yield from self._delete_pod(
                    pod, f"garbage collector (owner {workload.kind} {workload.key} deleted)", graceful=True
                )

    def _complete(self, ref: ObjectRef) -> Iterator[Event]:
        """The Job's pods succeed: the scheduler's informer drops finished pods (a delete)."""
        workload = self._workload(ref)
        if workload is None:
            return
        for pod in job.complete(self.state, workload):
            self.loop.cluster.patch_pod_status(
                pod.key, ClusterChangeKind.POD_SUCCEEDED, f"Job {workload.key} complete", phase=PHASE_SUCCEEDED
            )
            yield from self.loop.drain_moves()

    # ------------------------------------------------------------------ events

    def _event(self, pod: str, point: ExtensionPoint, payload: Payload) -> Event:
        return self.loop.event(pod, point, payload)

    def _cluster(self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = "") -> Event:
        return self.loop.change_event(key, kind, node, detail)


_ROLLOUT_STATUS = {
    KIND_DEPLOYMENT: deployment.rollout_status,
    KIND_STATEFUL_SET: statefulset.rollout_status,
    KIND_DAEMON_SET: daemonset.rollout_status,
}


def _node_change_labels(old: Node, new: Node, declared_features: bool) -> str:
    """How the story tells a node update: the scheduling events it gave (the release's extractors)."""
    events = node_scheduling_properties_change(new, old, declared_features=declared_features)
    return ", ".join(event.label for event in events) or "no scheduling change"


def _selects(budget: PodDisruptionBudget, pod: Pod) -> bool:
    return (
        budget.namespace == pod.namespace
        and budget.selector is not None
        and compile_selector(budget.selector).matches(pod.labels)
    )


def recorded_creation_times(changes: Changes, pods: list[Pod]) -> dict[str, datetime]:
    """metadata.creationTimestamp of the scenario's pods that give one."""
    times: dict[str, datetime] = {}
    for pod in pods:
        manifest = changes.manifests.get(ObjectRef("Pod", pod.namespace, pod.name)) or {}
        parsed = manifests.creation_time(manifest)
        if parsed is not None:
            times[pod.key] = parsed
    return times


def _creation_times(changes: Changes, pods: list[Pod], epoch: datetime) -> dict[str, datetime]:
    """metadata.creationTimestamp of the scenario's pods; without one, a pod is older than the
    pods after it in the file (one second apart, just before the run)."""
    recorded = recorded_creation_times(changes, pods)
    return {pod.key: recorded.get(pod.key) or (epoch - timedelta(seconds=len(pods) - pod.doc_index)) for pod in pods}


def _deletion_costs(objects: dict[ObjectRef, Manifest]) -> dict[str, int]:
    """The pod-deletion-cost annotation of every pod manifest that carries one."""
    costs: dict[str, int] = {}
    for ref, manifest in objects.items():
        if ref.kind == "Pod":
            cost = ranking.deletion_cost(((manifest or {}).get("metadata") or {}).get("annotations") or {})
            if cost:
                costs[f"{ref.namespace}/{ref.name}"] = cost
    return costs


def _with_replicas(manifest: Manifest, workload: ControlledWorkload) -> Manifest:
    """The manifest as the API server holds it now: its size is the workload's (a scale writes
    ``spec.replicas``, a Job's ``spec.parallelism``; a DaemonSet has none), so a later patch of
    other fields keeps it, as a merge patch on the live object does."""
    field_name = {KIND_DAEMON_SET: None, KIND_JOB: "parallelism"}.get(workload.kind, "replicas")
    spec = manifest.get("spec")
    if field_name is None or not isinstance(spec, dict) or spec.get(field_name) == workload.replicas:
        return manifest
    return {**manifest, "spec": {**spec, field_name: workload.replicas}}
