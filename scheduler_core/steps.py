"""The step driver of a run with steps (../shared/spec/CHANGES.md): operations and controllers as API writes.

Step 0 is the scenario itself; the stand-in controllers are active from the start. Each later step
begins 1 s after the previous one went quiet: its operations are applied in order, each as the API
writes it makes, and every write reaches the scheduler as its informers deliver it (the cache,
then ``MoveAllToActiveOrBackoffQueue`` with the event the release derives from the change, through
the rejecting plugins' queueing hints). Then the controllers react (Deployment, ReplicaSet,
StatefulSet, DaemonSet, Job, disruption), and again after every change the run makes (a binding,
a pod removed, an eviction), until the step goes quiet.

The driver owns no scheduling: ``loop.SchedulerLoop`` calls ``begin``, ``react``, ``next_wake``,
``wake``, ``quiet`` and ``next_step_ms`` at the points where the run would otherwise stop.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Iterator, Optional, Protocol

from scheduler_core.cluster.controllers import daemonset, deployment, disruption, job, ranking, replicaset, statefulset
from scheduler_core.cluster.controllers.pods import admit_priority
from scheduler_core.cluster.controllers.drain import GIVE_UP_MS, RETRY_MS, Drain, evict, pods_to_evict
from scheduler_core.cluster.controllers.state import ClusterState, CreateClaim, CreatePod, DeletePod, Write
from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_NODE, KIND_POD, Cluster
from scheduler_core.eventhandlers import node_scheduling_properties_change
from scheduler_core.events import (
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
from scheduler_core.labels import compile_selector
from scheduler_core.model import (
    KIND_DAEMON_SET,
    KIND_DEPLOYMENT,
    KIND_JOB,
    KIND_REPLICA_SET,
    KIND_STATEFUL_SET,
    PHASE_SUCCEEDED,
    AddNodesOp,
    Changes,
    CompleteOp,
    ControlledWorkload,
    CordonOp,
    CreateOp,
    DeleteNodesOp,
    DeleteOp,
    DrainOp,
    LABEL_HOSTNAME,
    Node,
    ObjectRef,
    Operation,
    PatchOp,
    Pod,
    PodDisruptionBudget,
    ScaleOp,
    Scenario,
    Step,
    Workload,
)
from scheduler_core.scenario import manifests
from scheduler_core.scenario.changes import workload_from_manifest
from scheduler_core.scenario.storage import default_storage_class


class RunLoop(Protocol):
    """What the driver uses of the run loop (``loop.SchedulerLoop``; named here, not imported,
    so the loop can import the driver without a cycle)."""

    clock: LogicalClock
    scenario: Scenario
    snapshot: Snapshot
    cluster: Cluster
    writes: ObjectWrites

    def drain_moves(self) -> Iterator[Event]: ...

    def storage_changes(self, detail: str = "") -> Iterator[Event]: ...

    def claims_for_new_pod(self, pod: Pod) -> Iterator[Event]: ...

    def event(self, pod: Optional[str], point: ExtensionPoint, payload: Payload) -> Event: ...

    def change_event(self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = "") -> Event: ...


SUCCEEDED = "succeeded"  # final: a pod a `complete` made succeed
STEP_GAP_MS = 1000  # step k starts 1 s after step k-1 went quiet
MAX_CONTROLLER_PASSES = 10000  # every pass writes something or the controllers have settled
ALL_CONTROLLERS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB)
# The kinds the default spreading reads as workloads (PodTopologySpread's system defaults).
_SPREADING_KINDS = (KIND_REPLICA_SET, KIND_STATEFUL_SET)
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
        workloads = [copy.copy(w) for w in changes.workloads]
        self.state = ClusterState(list(scenario.nodes), scenario.pods, workloads, dict(scenario.priority_classes),
                                  epoch, created_at=_creation_times(changes, scenario.pods, epoch))
        self.state.claims = {claim.key for claim in scenario.storage.claims}
        self.state.clock_ms = lambda: loop.clock.ms
        self.state.deletion_costs = _deletion_costs(changes.manifests)
        # The controllers' informers: every pod and node write reaches their cache.
        loop.cluster.watch(KIND_POD, self.state.track)
        loop.cluster.watch(KIND_NODE, self.state.track)
        self.manifests = dict(changes.manifests)
        self.budgets = dict(changes.budgets)
        self.drains: list[Drain] = []
        self.next_step = 0  # index into changes.steps of the step to start next
        self.record = StepRecord(0, "scenario", 0)
        self.last_activity_ms = 0
        self._step_due: Optional[int] = None
        self._finished: set[str] = set()  # pods a `complete` made succeed
        self._pending_workload_events: list[Event] = []  # ReplicaSets a Deployment made, told before its pods
        self._rollouts: list[ObjectRef] = []  # workloads whose rollout the next StepEnd reports (until complete)

    # ------------------------------------------------------------------ hooks the loop calls

    def begin(self) -> Iterator[Event]:
        yield self._event("", ExtensionPoint.STEP_START, StepStarted(0, "scenario", 0, []))

    def react(self, initial: bool = False, kinds: tuple[str, ...] = ALL_CONTROLLERS,
              changed: Optional[Pod] = None) -> Iterator[Event]:
        """The controllers, in the spec's order, until none has more to write; then the budgets
        (at the very start only if the controllers wrote: until a change, the dump's status holds).
        ``kinds`` and ``changed`` narrow a reaction to a binding (see ``pod_bound``)."""
        self.state.now_ms = self.loop.clock.ms
        wrote = False
        for _ in range(MAX_CONTROLLER_PASSES):
            writes = self._controller_writes(kinds)
            yield from self._flush_workload_events()
            if not writes:
                break
            wrote = True
            for write in writes:
                yield from self._apply(write)
        else:  # the controllers never settled: a bug of the stand-ins, not an answer to give
            raise RuntimeError(f"the stand-in controllers did not settle after {MAX_CONTROLLER_PASSES} passes")
        if wrote or not initial:
            yield from self._recompute_budgets(None if wrote else changed)

    def pod_bound(self, pod: Pod) -> Iterator[Event]:
        """A binding changes only what depends on pods running: a StatefulSet's OrderedReady
        progress and the budgets that select the pod (the other controllers count pending and
        bound pods alike, so they would write nothing)."""
        self.record.placed.append(pod.key)
        self.last_activity_ms = self.loop.clock.ms
        yield from self.react(kinds=self._bound_reactors(), changed=pod)

    def _bound_reactors(self) -> tuple[str, ...]:
        """The controllers a binding can move: a StatefulSet's OrderedReady progress; during a
        rollout, availability moves the Deployment (and so its ReplicaSets) and a DaemonSet."""
        kinds = [KIND_STATEFUL_SET]
        if self.state.rolling:
            kinds[:0] = [KIND_DEPLOYMENT, KIND_REPLICA_SET]
        if any(ref.kind == KIND_DAEMON_SET for ref in self._rollouts):
            kinds.append(KIND_DAEMON_SET)
        return tuple(kinds)

    def pod_removed(self, pod: Pod) -> Iterator[Event]:
        self.last_activity_ms = self.loop.clock.ms
        yield from self.react()

    def pods_preempted(self, victims: list[Pod]) -> Iterator[Event]:
        """The scheduler deleted preemption victims (terminating now): deleted in this step."""
        self.record.deleted.extend(victim.key for victim in victims)
        yield from self.react()

    def attempted(self) -> None:
        self.last_activity_ms = self.loop.clock.ms

    def next_wake(self) -> Optional[int]:
        """The next refused eviction to try again."""
        times = [d.retry_at for d in self.drains if d.retry_at is not None]
        return min(times) if times else None

    def wake(self) -> Iterator[Event]:
        now = self.loop.clock.ms
        self.state.now_ms = now
        for drain in list(self.drains):
            if drain.retry_at is not None and drain.retry_at <= now:
                yield from self._retry(drain)
        if self.next_step < len(self.changes.steps) and self._step_due == now:
            yield from self._start(self.changes.steps[self.next_step])

    def quiet(self) -> Iterator[Event]:
        """The current step went quiet: its summary (called once per step)."""
        record = self.record
        pending = [pod.key for pod in self.state.pods if self.state.live(pod) and not pod.node_name
                   and pod.scheduler_name in self.loop.scenario.scheduler_names]
        yield self._event("", ExtensionPoint.STEP_END, StepEnded(
            record.number, record.name, record.started_ms, self.loop.clock.ms, record.created, record.deleted,
            record.evicted, record.placed, record.blocked, pending, record.succeeded, self._rollout_statuses()))

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
        yield self._event("", ExtensionPoint.STEP_START,
                          StepStarted(step.number, step.name or step.title, now, [op.text for op in step.operations]))
        for operation in step.operations:
            yield from self._operation(operation)
        yield from self.react()

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
            chosen = [node for node in self.state.nodes
                      if (spec.selector and all(node.labels.get(k) == v for k, v in spec.selector)) or node.name in spec.names]
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
        return next((w for w in self.state.workloads
                     if w.kind == ref.kind and w.namespace == ref.namespace and w.name == ref.name), None)

    def _scale(self, spec: ScaleOp) -> Iterator[Event]:
        workload = self._workload(spec.target)
        if workload is None:
            return
        before, workload.replicas = workload.replicas, spec.replicas
        yield self._cluster(workload.key, ClusterChangeKind.WORKLOAD_CHANGED,
                            detail=f"{workload.kind} replicas {before} → {spec.replicas}")

    def _add_workload(self, workload: ControlledWorkload, by: str) -> Iterator[Event]:
        workload.created_ms = self.loop.clock.ms
        self.state.workloads.append(workload)
        if workload.kind in _SPREADING_KINDS:
            self.loop.snapshot.workloads.append(Workload(workload.kind, workload.namespace, workload.name,
                                                         workload.selector))
        yield self._cluster(workload.key, ClusterChangeKind.WORKLOAD_CHANGED, detail=f"{workload.kind} created {by}")

    def _controller_writes(self, kinds: tuple[str, ...]) -> list[Write]:
        """One pass of the controllers of ``kinds`` over their workloads, in the spec's order."""
        state = self.state
        for workload in [w for w in state.workloads if w.kind == KIND_DEPLOYMENT and KIND_DEPLOYMENT in kinds]:
            before = {rs.key: rs.replicas for rs in deployment.owned_replica_sets(state, workload)}
            for created in deployment.reconcile(state, workload):
                state.workloads.remove(created)
                self._pending_workload_events.extend(self._add_workload(created, f"by Deployment {workload.key}"))
            if workload.key in state.rolling:
                self._pending_workload_events.extend(self._rollout_scales(workload, before))
        writes: list[Write] = []
        classes = list(self.loop.snapshot.storage.classes.values())
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

    def _rollout_scales(self, workload: ControlledWorkload, before: dict[str, int]) -> Iterator[Event]:
        """How a rollout moved: each ReplicaSet the Deployment scaled (told only for a rollout,
        so the story of a run without one keeps its events)."""
        for rs in deployment.owned_replica_sets(self.state, workload):
            if rs.key in before and before[rs.key] != rs.replicas:
                yield self._cluster(rs.key, ClusterChangeKind.WORKLOAD_CHANGED,
                                    detail=f"ReplicaSet replicas {before[rs.key]} → {rs.replicas} "
                                           f"(rollout of Deployment {workload.key})")

    # ------------------------------------------------------------------ writes reaching the scheduler

    def _apply(self, write: Write) -> Iterator[Event]:
        yield from self._flush_workload_events()
        if isinstance(write, CreatePod):
            yield from self._pod_created(write.pod, write.by)
        elif isinstance(write, DeletePod):
            yield from self._delete_pod(write.pod, write.by, write.graceful)
        elif isinstance(write, CreateClaim):
            yield from self._claim_created(write.claim, write.by)

    def _flush_workload_events(self) -> Iterator[Event]:
        events, self._pending_workload_events = self._pending_workload_events, []
        yield from events

    def _pod_created(self, pod: Pod, by: str) -> Iterator[Event]:
        """The pod informer's Add: a pending pod enters the queue (UnschedulablePodAdd); one
        written with a node is an assigned pod (AssignedPodAdd)."""
        if not self.state.knows(pod):  # a step's own pod (the controllers' are known already)
            self.state.created_ms[pod.key] = self.loop.clock.ms
            self.state.add_pod(pod)
        self.record.created.append(pod.key)
        created = self.loop.cluster.create_pod(pod, ClusterChangeKind.POD_CREATED, by)
        yield from self.loop.drain_moves()
        if not created.node_name and created.scheduler_name in self.loop.scenario.scheduler_names:
            # As for the scenario's pending pods: the resourceclaim controller makes the claims of
            # the pod's templates, then names them in the pod's status (PreEnqueue held it till then).
            yield from self.loop.claims_for_new_pod(created)
            yield from self.loop.drain_moves()

    def _delete_pod(self, pod: Pod, by: str, graceful: bool, evicted: bool = False) -> Iterator[Event]:
        """A delete: a pending pod goes at once (no kubelet to wait for); a bound one is marked
        terminating (AssignedPodUpdate) and the stand-in kubelet removes it later — unless the
        delete has no grace (its node is lost), then it goes at once (AssignedPodDelete)."""
        (self.record.evicted if evicted else self.record.deleted).append(pod.key)
        kind = ClusterChangeKind.POD_EVICTED if evicted else ClusterChangeKind.POD_TERMINATING
        self.loop.cluster.delete_pod(pod.key, kind, by, graceful=graceful)
        yield from self.loop.drain_moves()

    def _claim_created(self, claim, by: str) -> Iterator[Event]:
        self.loop.writes.write_claim(claim)
        self.state.claims.add(claim.key)
        yield from self.loop.storage_changes(f"created {by}")

    def _recompute_budgets(self, changed: Optional[Pod] = None) -> Iterator[Event]:
        """Every budget's status; with ``changed``, only the budgets that select that pod."""
        snapshot = self.loop.snapshot
        for index, budget in enumerate(snapshot.pdbs):
            if changed is not None and not _selects(budget, changed):
                continue
            updated = disruption.recompute(self.state, budget, self.budgets.get(f"{budget.namespace}/{budget.name}"))
            if updated.disruptions_allowed != budget.disruptions_allowed:
                snapshot.pdbs[index] = updated
                yield self._cluster(f"{budget.namespace}/{budget.name}", ClusterChangeKind.BUDGET_CHANGED,
                                    detail=f"disruptionsAllowed {budget.disruptions_allowed} → {updated.disruptions_allowed}")

    # ------------------------------------------------------------------ nodes

    def _node(self, name: str) -> Optional[Node]:
        return self.state.node(name)

    def _update_node(self, old: Node, node: Node, new_manifest: dict) -> Iterator[Event]:
        self.manifests[ObjectRef("Node", "", node.name)] = new_manifest
        self.loop.cluster.update_node(node, _node_change_labels)
        yield from self.loop.drain_moves()

    def _set_unschedulable(self, name: str, unschedulable: bool) -> Iterator[Event]:
        old = self._node(name)
        if old is None or old.unschedulable == unschedulable:
            return
        manifest = manifests.merge_patch(self.manifests.get(ObjectRef("Node", "", name)) or {},
                                         {"spec": {"unschedulable": True if unschedulable else None}})
        yield from self._update_node(old, replace(old, unschedulable=unschedulable), manifest)

    def _add_nodes(self, spec: AddNodesOp) -> Iterator[Event]:
        like = self._node(spec.like)
        if like is None:
            return
        like_manifest = self.manifests.get(ObjectRef("Node", "", like.name)) or {}
        taints = [t for t in ((like_manifest.get("spec") or {}).get("taints") or [])
                  if not any(t.get("key") == n.key and t.get("effect") == n.effect for n in spec.taints)]
        taints += [{"key": t.key, "value": t.value, "effect": t.effect} if t.value else {"key": t.key, "effect": t.effect}
                   for t in spec.taints]
        for number in range(1, spec.count + 1):
            name = f"{spec.prefix}{number}"
            labels = {**like.labels, **dict(spec.labels), LABEL_HOSTNAME: name}
            manifest = manifests.merge_patch(like_manifest, {
                "metadata": {"name": name, "labels": None, "uid": None, "annotations": None},
                "spec": {"taints": None, "unschedulable": None, "providerID": None},
                "status": {"images": None, "conditions": None}})
            manifest = {**manifest, "metadata": {**manifest["metadata"], "labels": labels},
                        "spec": {**(manifest.get("spec") or {}), **({"taints": taints} if taints else {})}}
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
        pod_manifests = {pod.key: m for pod in pods_on_node
                         if (m := self.manifests.get(ObjectRef("Pod", pod.namespace, pod.name))) is not None}
        drain = Drain(name, self.record.number, pods_to_evict(pods_on_node, pod_manifests))
        self.drains.append(drain)
        yield from self._evict_all(drain)

    def _evict_all(self, drain: Drain) -> Iterator[Event]:
        still: list[Pod] = []
        for pod in drain.waiting:
            if not self.state.live(pod):
                continue
            answer = evict(pod, self.loop.snapshot.pdbs)
            if answer.allowed:
                self.loop.snapshot.pdbs[:] = list(answer.budgets)
                drain.refused_by.pop(pod.key, None)
                yield from self._delete_pod(pod, f"drain of {drain.node}", graceful=True, evicted=True)
            else:
                drain.refused_by[pod.key] = answer.budget
                still.append(pod)
                yield self._cluster(pod.key, ClusterChangeKind.EVICTION_REFUSED, node=drain.node,
                                    detail=f"budget {answer.budget}")
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
                yield self._cluster(pod.key, ClusterChangeKind.DRAIN_BLOCKED, node=drain.node,
                                    detail=f"budget {blocked.budget}")
            if drain in self.drains:
                self.drains.remove(drain)

    # ------------------------------------------------------------------ patch, create, delete, complete

    def _patch(self, spec: PatchOp, line: Optional[int]) -> Iterator[Event]:
        ref = spec.target
        manifest = manifests.merge_patch(self.manifests.get(ref) or {}, spec.patch)
        if ref.kind == "Node":
            old = self._node(ref.name)
            if old is not None:
                node = manifests.decode_node(manifest, old.doc_index, line)
                yield from self._update_node(old, node, manifest)
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        else:
            workload = self._workload(ref)
            if workload is not None:
                patched = workload_from_manifest(manifest, line)
                if workload.kind in _ROLLOUT_KINDS and manifests.plain(patched.template) != manifests.plain(workload.template):
                    self._start_rollout(workload)
                for name in ("replicas", "template", "selector", "labels", "pod_management_policy", "claim_templates"):
                    setattr(workload, name, getattr(patched, name))
                workload.manifest = manifest
                self.manifests[ref] = manifest
                yield self._cluster(workload.key, ClusterChangeKind.WORKLOAD_CHANGED, detail=f"{workload.kind} patched")

    def _start_rollout(self, workload: ControlledWorkload) -> None:
        """A Deployment's, StatefulSet's or DaemonSet's template changed: a Deployment is synced as
        the release syncs it from now on; each StepEnd reports the rollout until it is complete."""
        if workload.kind == KIND_DEPLOYMENT:
            self.state.rolling.add(workload.key)
        ref = ObjectRef(workload.kind, workload.namespace, workload.name)
        if ref not in self._rollouts:
            self._rollouts.append(ref)

    def _put_budget(self, ref: ObjectRef, manifest: dict, line: Optional[int]) -> Iterator[Event]:
        budget, budget_spec = manifests.decode_budget(manifest, line)
        key = f"{ref.namespace}/{ref.name}"
        pdbs = self.loop.snapshot.pdbs
        index = next((i for i, b in enumerate(pdbs) if f"{b.namespace}/{b.name}" == key), None)
        if index is None:
            pdbs.append(budget)
        else:
            pdbs[index] = replace(budget, disruptions_allowed=pdbs[index].disruptions_allowed)
        self.budgets[key] = budget_spec
        self.manifests[ref] = manifest
        yield self._cluster(key, ClusterChangeKind.BUDGET_CHANGED, detail="written")

    def _create(self, spec: CreateOp, line: Optional[int]) -> Iterator[Event]:
        ref, manifest = spec.target, manifests.plain(spec.manifest)
        self.manifests[ref] = manifest
        if ref.kind == "Pod":
            self.state.deletion_costs.update(_deletion_costs({ref: manifest}))
            pod = manifests.decode_pod(manifest, len(self.state.pods), line)
            admit_priority(pod, manifests.pod_has_priority(manifest), "preemptionPolicy" in (manifest.get("spec") or {}),
                           self.state.priority_classes)
            yield from self._pod_created(pod, "by the step")
        elif ref.kind == "Node":
            yield from self._node_added(manifests.decode_node(manifest, len(self.state.nodes), line), "by the step")
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        elif ref.kind == "PersistentVolumeClaim":
            claim = manifests.decode_claim(manifest, len(self.state.claims), line)
            claim = default_storage_class([claim], list(self.loop.snapshot.storage.classes.values()))[0]
            yield from self._claim_created(claim, "by the step")
        elif ref.kind == "PersistentVolume":
            volume = manifests.decode_volume(manifest, len(self.loop.snapshot.storage.volumes), line)
            self.loop.writes.write_volume(volume)
            yield from self.loop.storage_changes("created by the step")
        elif ref.kind == "StorageClass":
            self.loop.writes.write_storage_class(manifests.decode_storage_class(manifest, line))
            yield from self.loop.storage_changes("created by the step")
        else:
            yield from self._add_workload(workload_from_manifest(manifest, line), "by the step")

    def _delete(self, ref: ObjectRef) -> Iterator[Event]:
        if ref.kind == "Pod":
            pod = next((p for p in self.state.pods if p.namespace == ref.namespace and p.name == ref.name
                        and self.state.live(p)), None)
            if pod is not None:
                yield from self._delete_pod(pod, "by the step", graceful=True)
        elif ref.kind == "Node":
            node = self._node(ref.name)
            if node is not None:
                yield from self._lose_node(node)
        elif ref.kind == "PodDisruptionBudget":
            self.loop.snapshot.pdbs[:] = [b for b in self.loop.snapshot.pdbs
                                          if (b.namespace, b.name) != (ref.namespace, ref.name)]
            yield self._cluster(f"{ref.namespace}/{ref.name}", ClusterChangeKind.BUDGET_CHANGED, detail="deleted")
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
        self.state.workloads.remove(workload)
        self.loop.snapshot.workloads[:] = [w for w in self.loop.snapshot.workloads
                                           if (w.kind, w.namespace, w.name) != (ref.kind, ref.namespace, ref.name)]
        yield self._cluster(workload.key, ClusterChangeKind.WORKLOAD_CHANGED, detail=f"{workload.kind} deleted")
        if workload.kind == KIND_DEPLOYMENT:
            for owned in deployment.owned_replica_sets(self.state, workload):
                yield from self._delete_workload(ObjectRef(owned.kind, owned.namespace, owned.name))
        for pod in self.state.owned_pods(workload):
            if not pod.is_terminating:
                yield from self._delete_pod(pod, f"garbage collector (owner {workload.kind} {workload.key} deleted)",
                                            graceful=True)

    def _complete(self, ref: ObjectRef) -> Iterator[Event]:
        """The Job's pods succeed: the scheduler's informer drops finished pods (a delete)."""
        workload = self._workload(ref)
        if workload is None:
            return
        for pod in job.complete(self.state, workload):
            self._finished = self._finished | {pod.key}
            self.record.succeeded.append(pod.key)
            self.loop.cluster.patch_pod_status(pod.key, ClusterChangeKind.POD_SUCCEEDED, f"Job {workload.key} complete",
                                               phase=PHASE_SUCCEEDED)
            yield from self.loop.drain_moves()

    # ------------------------------------------------------------------ events

    def _event(self, pod: str, point: ExtensionPoint, payload) -> Event:
        return self.loop.event(pod, point, payload)

    def _cluster(self, key: str, kind: ClusterChangeKind, node: Optional[str] = None, detail: str = "") -> Event:
        return self.loop.change_event(key, kind, node, detail)


_ROLLOUT_STATUS = {KIND_DEPLOYMENT: deployment.rollout_status, KIND_STATEFUL_SET: statefulset.rollout_status,
                   KIND_DAEMON_SET: daemonset.rollout_status}


def _node_change_labels(old: Node, new: Node) -> str:
    """How the story tells a node update: the scheduling events it gave."""
    events = node_scheduling_properties_change(new, old)
    return ", ".join(event.label for event in events) or "no scheduling change"


def _selects(budget: PodDisruptionBudget, pod: Pod) -> bool:
    return budget.namespace == pod.namespace and budget.selector is not None \
        and compile_selector(budget.selector).matches(pod.labels)


def _creation_times(changes: Changes, pods: list[Pod], epoch: datetime) -> dict[str, datetime]:
    """metadata.creationTimestamp of the scenario's pods; without one, a pod is older than the
    pods after it in the file (one second apart, before the run)."""
    times: dict[str, datetime] = {}
    for pod in pods:
        manifest = changes.manifests.get(ObjectRef("Pod", pod.namespace, pod.name)) or {}
        parsed = _parse_time((manifest.get("metadata") or {}).get("creationTimestamp"))
        times[pod.key] = parsed or (epoch - timedelta(seconds=len(pods) - pod.doc_index))
    return times



def _deletion_costs(objects: dict[ObjectRef, dict]) -> dict[str, int]:
    """The pod-deletion-cost annotation of every pod manifest that carries one."""
    costs: dict[str, int] = {}
    for ref, manifest in objects.items():
        if ref.kind == "Pod":
            cost = ranking.deletion_cost(((manifest or {}).get("metadata") or {}).get("annotations") or {})
            if cost:
                costs[f"{ref.namespace}/{ref.name}"] = cost
    return costs


def _parse_time(value) -> Optional[datetime]:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
