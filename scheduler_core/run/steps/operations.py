"""A step's operations as the API writes a user or `kubectl` makes (../shared/spec/CHANGES.md):
`kubectl scale`, `patch`, `create`, `delete` of workloads, pods, budgets, claims, volumes and
storage classes; a Job's pods completing; the node operations (nodes.py). An operation that
writes nothing says why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator, Optional, Sequence

from scheduler_core.cluster.controllers import deployment, job, ranking
from scheduler_core.cluster.controllers.pods import admit_priority
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.cluster.store import KIND_VOLUME
from scheduler_core.encoding.events import ClusterChangeKind, Event
from scheduler_core.model import (
    KIND_DAEMON_SET,
    KIND_DEPLOYMENT,
    KIND_JOB,
    PHASE_SUCCEEDED,
    AddNodesOp,
    CompleteOp,
    ControlledWorkload,
    CordonOp,
    CreateOp,
    DeleteNodesOp,
    DeleteOp,
    DrainOp,
    Manifest,
    ObjectRef,
    Operation,
    OperationSpec,
    PatchOp,
    Pod,
    ScaleOp,
)
from scheduler_core.run.steps.nodes import NodeOperations
from scheduler_core.run.steps.pod_control import PodControl, RunLoop, storage_classes
from scheduler_core.run.steps.rollout_status import ROLLOUT_KINDS, Rollouts
from scheduler_core.scenario import manifests
from scheduler_core.scenario.changes import workload_from_manifest
from scheduler_core.scenario.pods import refused_at_load, settle_gated_fields
from scheduler_core.scenario.storage import default_storage_class


class StepOperations:
    """Applies a step's operations. ``objects``: every object's manifest as the API server holds
    it (a patch merges into it); ``react``: the controllers' turn (a drain's evictions call it)."""

    def __init__(
        self,
        loop: RunLoop,
        state: ClusterState,
        objects: dict[ObjectRef, Manifest],
        rollouts: Rollouts,
        react: Callable[[], Iterator[Event]],
    ) -> None:
        self.loop = loop
        self.state = state
        self.manifests = objects
        self.rollouts = rollouts
        self.pods = PodControl(loop, state)
        self.nodes = NodeOperations(loop, state, objects, self.pods, react)

    def run(self, operations: Sequence[Operation], step: int) -> Iterator[Event]:
        """Step ``step``'s operations in order; one that wrote nothing says why."""
        for operation in operations:
            before = self._writes_made()
            yield from self._apply(operation, step)
            why = self._why_unchanged(operation.spec) if self._writes_made() == before else None
            if why is not None:
                yield self.loop.change_event(
                    operation.text, ClusterChangeKind.OPERATION_UNCHANGED, detail=f"wrote nothing: {why}"
                )

    def _writes_made(self) -> int:
        return self.loop.cluster.write_count

    def _apply(self, operation: Operation, step: int) -> Iterator[Event]:
        spec = operation.spec
        if isinstance(spec, ScaleOp):
            yield from self._scale(spec)
        elif isinstance(spec, DrainOp):
            yield from self.nodes.drain(spec.node, step)
        elif isinstance(spec, CordonOp):
            yield from self.nodes.cordon(spec.node, spec.unschedulable)
        elif isinstance(spec, AddNodesOp):
            yield from self.nodes.add_like(spec)
        elif isinstance(spec, DeleteNodesOp):
            yield from self.nodes.delete_matching(spec)
        elif isinstance(spec, PatchOp):
            yield from self._patch(spec, operation.line)
        elif isinstance(spec, CreateOp):
            yield from self._create(spec, operation.line)
        elif isinstance(spec, DeleteOp):
            yield from self._delete(spec.target)
        elif isinstance(spec, CompleteOp):
            yield from self._complete(spec.target)

    def _why_unchanged(self, spec: OperationSpec) -> Optional[str]:
        """Why an operation wrote nothing (None where that is no news: a create or a budget's spec,
        which the driver keeps, may write nothing and still act)."""
        if isinstance(spec, ScaleOp):
            workload = self.state.workload(spec.target)
            return f"no {spec.target}" if workload is None else f"it has {spec.replicas} replicas already"
        if isinstance(spec, (CordonOp, DrainOp, AddNodesOp, DeleteNodesOp)):
            return self.nodes.why_unchanged(spec)
        if isinstance(spec, CompleteOp):
            return f"no {spec.target}" if self.state.workload(spec.target) is None else "none of its pods is running"
        if isinstance(spec, DeleteOp):
            return f"no {spec.target}"
        if isinstance(spec, PatchOp) and spec.target.kind != "PodDisruptionBudget":
            return f"no {spec.target}" if self._patched_missing(spec.target) else "the patch changes nothing"
        return None

    def _patched_missing(self, ref: ObjectRef) -> bool:
        return self.state.node(ref.name) is None if ref.kind == "Node" else self.state.workload(ref) is None

    # ------------------------------------------------------------------ scale, patch

    def _scale(self, spec: ScaleOp) -> Iterator[Event]:
        """`kubectl scale`: spec.replicas written."""
        workload = self.state.workload(spec.target)
        if workload is None:
            return
        self.loop.cluster.update_workload(
            replace(workload, replicas=spec.replicas), f"{workload.kind} replicas {workload.replicas} → {spec.replicas}"
        )
        yield from self.loop.drain_moves()

    def _patch(self, spec: PatchOp, line: Optional[int]) -> Iterator[Event]:
        """`kubectl patch --type merge` of a node, a budget or a workload (a template change of a
        Deployment, StatefulSet or DaemonSet starts a rollout)."""
        ref = spec.target
        workload = self.state.workload(ref) if ref.kind not in ("Node", "PodDisruptionBudget") else None
        written = self.manifests.get(ref) or {}
        if workload is not None:  # a scale (the step's or a controller's) wrote the size since
            written = _with_replicas(written, workload)
        manifest = manifests.merge_patch(written, spec.patch)
        if ref.kind == "Node":
            old = self.state.node(ref.name)
            if old is not None:
                node = manifests.decode_node(manifest, old.doc_index, line)
                yield from self.nodes.update(old, node, manifest)
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        elif workload is not None:
            yield from self._patch_workload(ref, workload, manifest, line)

    def _patch_workload(
        self, ref: ObjectRef, workload: ControlledWorkload, manifest: Manifest, line: Optional[int]
    ) -> Iterator[Event]:
        patched = workload_from_manifest(manifest, line)
        if workload.kind in ROLLOUT_KINDS and manifests.plain(patched.template) != manifests.plain(workload.template):
            self.rollouts.start(workload)
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

    def _put_budget(self, ref: ObjectRef, manifest: Manifest, line: Optional[int]) -> Iterator[Event]:
        budget, _ = manifests.decode_budget(manifest, line)
        existing = self.loop.cluster.budget(budget.key)
        if existing is not None:  # the spec written; the status is the disruption controller's
            budget = replace(budget, disruptions_allowed=existing.disruptions_allowed)
        self.manifests[ref] = manifest
        self.loop.cluster.put_budget(budget, "written")
        yield from self.loop.drain_moves()

    # ------------------------------------------------------------------ create

    def _create(self, spec: CreateOp, line: Optional[int]) -> Iterator[Event]:
        """`kubectl create` of any object the steps know."""
        ref, manifest = spec.target, manifests.plain(spec.manifest)
        self.manifests[ref] = manifest
        if ref.kind == "Pod":
            yield from self._create_pod(ref, manifest, line)
        elif ref.kind == "Node":
            yield from self.nodes.create(manifests.decode_node(manifest, len(self.state.nodes), line), "by the step")
        elif ref.kind == "PodDisruptionBudget":
            yield from self._put_budget(ref, manifest, line)
        elif ref.kind == "PersistentVolumeClaim":
            claim = manifests.decode_claim(manifest, len(self.state.claims), line)
            claim = default_storage_class([claim], storage_classes(self.loop.cluster))[0]
            yield from self.pods.create_claim(claim, "by the step")
        elif ref.kind == "PersistentVolume":
            volume = manifests.decode_volume(manifest, len(self.loop.cluster.listed(KIND_VOLUME)), line)
            self.loop.writes.write_volume(volume)
            yield from self.loop.storage_changes("created by the step")
        elif ref.kind == "StorageClass":
            self.loop.writes.write_storage_class(manifests.decode_storage_class(manifest, line))
            yield from self.loop.storage_changes("created by the step")
        else:
            workload = workload_from_manifest(manifest, line)
            self.loop.cluster.create_workload(
                replace(workload, created_ms=self.loop.clock.ms), f"{workload.kind} created by the step"
            )
            yield from self.loop.drain_moves()

    def _create_pod(self, ref: ObjectRef, manifest: Manifest, line: Optional[int]) -> Iterator[Event]:
        """The pod as the API server admits it: gated fields settled, a uid when it has claims,
        its priority from its class."""
        self.state.deletion_costs.update(pod_deletion_costs({ref: manifest}))
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
        yield from self.pods.create_pod(pod, "by the step")

    def _step_pod_uid(self, pod: Pod) -> str:
        """The uid the API server gives a step's pod with claims, as the loader gives one to the
        scenario's (reservations and owner references name pods by uid): without it every such
        pod had the uid "", and the claim release of one removed pod released and deleted the
        claims of all of them. A pod made again under a name used before gets a uid of its own."""
        uid = f"uid-pod-{pod.namespace}-{pod.name}"
        earlier = sum(1 for known in self.state.pods if known.key == pod.key)
        return uid if not earlier else f"{uid}-{earlier + 1}"

    # ------------------------------------------------------------------ delete, complete

    def _delete(self, ref: ObjectRef) -> Iterator[Event]:
        """`kubectl delete` (a node deleted is a machine lost)."""
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
                yield from self.pods.delete_pod(pod, "by the step", graceful=True)
        elif ref.kind == "Node":
            node = self.state.node(ref.name)
            if node is not None:
                yield from self.nodes.lose(node)
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
        workload = self.state.workload(ref)
        if workload is None:
            return
        self.loop.cluster.delete_workload(ref.kind, ref.namespace, ref.name, f"{workload.kind} deleted")
        yield from self.loop.drain_moves()
        if workload.kind == KIND_DEPLOYMENT:
            for owned in deployment.owned_replica_sets(self.state, workload):
                yield from self._delete_workload(ObjectRef(owned.kind, owned.namespace, owned.name))
        for pod in self.state.owned_pods(workload):
            if not pod.is_terminating:
                yield from self.pods.delete_pod(
                    pod, f"garbage collector (owner {workload.kind} {workload.key} deleted)", graceful=True
                )

    def _complete(self, ref: ObjectRef) -> Iterator[Event]:
        """The Job's pods succeed (the kubelet reports them): the scheduler's informer drops
        finished pods (a delete)."""
        workload = self.state.workload(ref)
        if workload is None:
            return
        for pod in job.complete(self.state, workload):
            self.loop.cluster.patch_pod_status(
                pod.key, ClusterChangeKind.POD_SUCCEEDED, f"Job {workload.key} complete", phase=PHASE_SUCCEEDED
            )
            yield from self.loop.drain_moves()


def pod_deletion_costs(objects: dict[ObjectRef, Manifest]) -> dict[str, int]:
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
