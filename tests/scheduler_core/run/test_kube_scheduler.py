"""The kube-scheduler of a run (scheduler_core.run.kube_scheduler): its wiring, its informers, and
that it writes only through the cluster and acts on nothing but what the cluster delivers."""

from __future__ import annotations

from scheduler_core import load_scenario
from scheduler_core.cluster.store import KIND_POD
from scheduler_core.encoding.events import ClusterChangeKind, ExtensionPoint
from scheduler_core.model import names
from scheduler_core.run.kube_scheduler import NODE_TAINT_UPDATE
from scheduler_core.run.loop import ClusterRun
from tests.scheduler_core.builders import node_text, pod_text, scenario_text

TWO_NODES_ONE_POD = scenario_text(node_text("n1", cpu="2"), node_text("n2", cpu="2"), pod_text("p", cpu="1"))


def test_plugins_moved_by_node_add_are_also_moved_by_node_taint_updates():
    # buildQueueingHintMap's mitigation for kubernetes#109437, with the default (always Queue) hint.
    scheduler = ClusterRun(load_scenario(TWO_NODES_ONE_POD)).kube_scheduler
    hints = scheduler.queue.hint_maps["default-scheduler"][NODE_TAINT_UPDATE]
    assert {"NodeAffinity", "NodeName", "VolumeBinding", "VolumeZone"} <= {h.plugin for h in hints}
    assert all(h.fn is None for h in hints if h.plugin in ("NodeAffinity", "VolumeBinding"))
    assert "TaintToleration" not in {h.plugin for h in hints}  # it registers taint updates itself


def test_every_framework_is_built_with_the_runs_nominator_clock_batch_and_preemption_api():
    """scheduler.New + NewSchedulingQueue: the queue and the frameworks share one nominator, handed
    in when they are built; the frameworks read the run's clock, batch, and their preemption
    evaluator writes through this scheduler and breaks ties in node order."""
    run = ClusterRun(load_scenario(TWO_NODES_ONE_POD))
    scheduler = run.kube_scheduler
    framework = scheduler.scheduler.framework
    assert framework.nominator is scheduler.queue.nominator is scheduler.scheduler.nominator
    assert framework.batch is not None and framework.options.preemption_api is scheduler
    assert framework.options.preemption_ties_in_node_order
    run.clock.advance_to(1234)
    assert framework.clock_ms() == 1234
    assert framework.plugin(names.DEFAULT_PREEMPTION).executor.preempting == {}


def test_a_pod_written_by_another_component_reaches_the_queue_through_the_informer_alone():
    """Nobody calls the scheduler: a pod created through the cluster is queued by the informer's
    Add, and the write is told once, before the queue moves it caused."""
    run = ClusterRun(load_scenario(scenario_text(node_text("n1", cpu="2"))))
    scheduler = run.kube_scheduler
    assert not scheduler.has_work()
    created = load_scenario(scenario_text(node_text("n1", cpu="2"), pod_text("late", cpu="1"))).pods[0]
    run.cluster.create_pod(created, ClusterChangeKind.POD_CREATED, "by a test")
    told = list(scheduler.flush())
    assert scheduler.has_work()
    writes = [e for e in told if e.extension_point is ExtensionPoint.CLUSTER]
    assert [(e.pod, e.payload.kind) for e in writes] == [("default/late", ClusterChangeKind.POD_CREATED)]


def test_a_binding_is_written_through_the_cluster_and_then_the_others_get_their_turn():
    turns = []
    run = ClusterRun(load_scenario(TWO_NODES_ONE_POD))
    scheduler = run.kube_scheduler
    seen = []
    run.cluster.watch(KIND_POD, lambda event: seen.append((event.current.key, event.change)))
    scheduler.others_react = lambda: iter(turns.append(len(seen)) or ())
    scheduler.listed(run.cluster.pod("default/p"))
    list(scheduler.schedule_next())
    assert run.cluster.pod("default/p").node_name == ""  # the binding is a goroutine's: not landed yet
    assert scheduler.has_goroutines()
    list(scheduler.land_goroutines())
    assert run.cluster.pod("default/p").node_name in ("n1", "n2")
    assert seen == [("default/p", ClusterChangeKind.POD_BOUND)]
    assert turns == [1]  # the others acted once the binding had been delivered


def _claim_pod(name: str, claim: str) -> str:
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  containers:
  - name: c
    resources: {{requests: {{cpu: 100m}}, claims: [{{name: gpu}}]}}
  resourceClaims: [{{name: gpu, resourceClaimName: {claim}}}]
"""


def _claim(name: str) -> str:
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {name}, namespace: default}}
spec:
  devices:
    requests: [{{name: gpu, exactly: {{deviceClassName: gpu}}}}]
"""


GPUS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: device.driver == "gpu.example.com"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]
"""


def test_each_binding_goroutine_delivers_its_own_prebind_writes_with_its_binding():
    """A claim's allocation is written by its pod's PreBind, in that pod's binding goroutine: it
    reaches the informers with that pod's binding (after the next pod's attempt), never earlier
    with another goroutine's (the release's dra_shared runs: a pod waiting on a claim change was
    re-queued one attempt too early when the writes of every PreBind so far were delivered at once)."""
    pods = [("a", "claim-a"), ("b", "claim-b"), ("c", "claim-c")]
    text = "---\n".join(
        [
            node_text("n1", cpu="4"),
            GPUS,
            *(_claim(claim) for _, claim in pods),
            *(_claim_pod(pod, claim) for pod, claim in pods),
        ]
    )
    run = ClusterRun(load_scenario(text))
    writes = [
        (e.payload.kind, e.pod)
        for e in run.run()
        if e.extension_point is ExtensionPoint.CLUSTER
        and e.payload.kind in (ClusterChangeKind.STORAGE, ClusterChangeKind.POD_BOUND)
    ]
    allocations = [(ClusterChangeKind.STORAGE, f"default/{claim}") for _, claim in pods]
    assert list(dict.fromkeys(w for w in writes if w in allocations)) == allocations
    for pod, claim in pods:  # each allocation told right before its own pod's binding
        bound_at = writes.index((ClusterChangeKind.POD_BOUND, f"default/{pod}"))
        assert writes[bound_at - 1] == (ClusterChangeKind.STORAGE, f"default/{claim}"), writes


# ---------------------------------------------------------------------------- releases

import pytest  # noqa: E402

from scheduler_core.backend.queue import QueueName  # noqa: E402
from scheduler_core.release.choice import ReleaseRequest  # noqa: E402
from scheduler_core.release.versions import release_named  # noqa: E402


def run_as(text: str, release: str) -> ClusterRun:
    return ClusterRun(load_scenario(text, release=ReleaseRequest(release_named(release))))


@pytest.mark.parametrize("release, batching", [("v1.34", False), ("v1.35", True), ("v1.36", True)])
def test_opportunistic_batching_follows_its_gate(release, batching):
    # C8: OpportunisticBatching is new in v1.35 (beta, on); before, no signature, no node hint.
    framework = run_as(TWO_NODES_ONE_POD, release).kube_scheduler.scheduler.framework
    assert (framework.batch is not None) is batching


@pytest.mark.parametrize("release, signs", [("v1.35", False), ("v1.36", True)])
def test_v1_36_queue_signs_the_pods_it_queues(release, signs):
    # A5: signPod at newQueuedPodInfo / Update (v1.36); the default profile signs nothing (its
    # PodTopologySpread default constraints), so the pod's signature is None either way.
    scheduler = run_as(TWO_NODES_ONE_POD, release).kube_scheduler
    assert (scheduler.queue.signers is not None) is signs
    scheduler.listed(scheduler.cluster.pod("default/p"))
    assert scheduler.queue.queued_info("default/p").signature is None


NOMINATED = scenario_text(
    node_text("n1", cpu="2"),
    pod_text("p", cpu="1").replace("spec:", "status: {nominatedNodeName: n1}\nspec:", 1),
)


@pytest.mark.parametrize("release, kept", [("v1.34", True), ("v1.35", False)])
def test_a_bound_pod_keeps_its_nomination_before_v1_35(release, kept):
    # C4: the binding subresource clears status.nominatedNodeName only with
    # ClearingNominatedNodeNameAfterBinding (beta, on in v1.35).
    run = run_as(NOMINATED, release)
    scheduler = run.kube_scheduler
    scheduler.listed(run.cluster.pod("default/p"))
    list(scheduler.schedule_next())
    list(scheduler.land_goroutines())
    bound = run.cluster.pod("default/p")
    assert bound.node_name == "n1" and (bound.nominated_node_name == "n1") is kept


TWO_TAKE_ONE_NODE = scenario_text(
    node_text("n1", cpu="2"),
    pod_text("a", cpu="1500m").replace("spec:", "spec:\n  priority: 10", 1),
    pod_text("b", cpu="1500m"),
)


@pytest.mark.parametrize("release, b_fits_at_once", [("v1.34", False), ("v1.35", True)])
def test_a_pod_deleted_while_its_binding_is_under_way(release, b_fits_at_once):
    # B3 and C10: a is assumed on n1 and deleted before its binding lands. v1.35 forgets it at
    # once (b fits in the next attempt); v1.34 keeps its room until the binding fails (b is
    # rejected, then the failed binding's forget is an AssignedPodDelete that moves b).
    run = run_as(TWO_TAKE_ONE_NODE, release)
    scheduler = run.kube_scheduler
    for key in ("default/a", "default/b"):
        scheduler.listed(run.cluster.pod(key))
    list(scheduler.schedule_next())  # a: assumed on n1, its binding goroutine started
    assert scheduler.snapshot.is_assumed(run.cluster.pod("default/a"))
    run.cluster.delete_pod("default/a", ClusterChangeKind.POD_DELETED, "by a test")
    list(scheduler.flush())
    events = list(scheduler.schedule_next())  # b's attempt; then a's binding lands and fails
    b = run.cluster.pod("default/b")
    assert scheduler.snapshot.is_assumed(b) is b_fits_at_once
    assert (scheduler.queue.queued_info("default/b") is None) is b_fits_at_once
    a_events = [e.payload.kind for e in events if e.extension_point is ExtensionPoint.CLUSTER and e.pod == "default/a"]
    assert a_events == [ClusterChangeKind.BINDING_FAILED]
    assert scheduler.snapshot.get("n1").requested.get("cpu", 0) == (1500 if b_fits_at_once else 0)
    if not b_fits_at_once:  # the failed binding's forget was an AssignedPodDelete: b went back
        assert scheduler.queue.where()[QueueName.UNSCHEDULABLE] == []


def test_v1_35_moves_the_waiting_pods_again_when_the_forgotten_pods_binding_fails():
    # C10: ForgetPod of a pod the cache no longer has succeeds from v1.35, so the binding of a pod
    # forgotten at its deletion still ends in an AssignedPodDelete that moves c (rejected meanwhile).
    text = scenario_text(
        node_text("n1", cpu="2"),
        pod_text("a", cpu="1500m").replace("spec:", "spec:\n  priority: 10", 1),
        pod_text("c", cpu="3"),
    )
    run = run_as(text, "v1.35")
    scheduler = run.kube_scheduler
    for key in ("default/a", "default/c"):
        scheduler.listed(run.cluster.pod(key))
    list(scheduler.schedule_next())  # a assumed
    run.cluster.delete_pod("default/a", ClusterChangeKind.POD_DELETED, "by a test")
    list(scheduler.flush())
    events = list(scheduler.schedule_next())  # c rejected; a's binding lands: not found
    moved = [(e.pod, e.payload.event) for e in events if e.extension_point is ExtensionPoint.QUEUE_MOVE]
    assert ("default/c", "AssignedPodDelete") in moved
    assert scheduler.queue.where()[QueueName.BACKOFF] == ["default/c"]


BIG_POD = scenario_text(
    node_text("n1", cpu="2"), pod_text("p", cpu="5").replace("metadata: {", "metadata: {uid: uid-1, ", 1)
)


@pytest.mark.parametrize("release, handled", [("v1.34", False), ("v1.35", True), ("v1.36", False)])
def test_a_pod_made_again_while_its_attempt_failed_is_left_to_its_new_self(release, handled):
    # C6 (kubernetes#138324, in v1.34.9 and v1.36.3, not in v1.35.4): the informer's pod has another
    # uid; the failure handler neither requeues, nominates nor patches the old one. v1.35.4 patches.
    run = run_as(BIG_POD, release)
    scheduler = run.kube_scheduler
    scheduler.listed(run.cluster.pod("default/p"))
    info = scheduler.queue.pop()
    run.cluster.remove_pod("default/p", ClusterChangeKind.POD_DELETED, "by a test")
    again = load_scenario(BIG_POD.replace("uid-1", "uid-2")).pods[0]
    run.cluster.create_pod(again, ClusterChangeKind.POD_CREATED, "by a test")
    list(scheduler.flush())
    list(scheduler._schedule_one(info))
    assert scheduler.has_goroutines() is handled  # the status patch
    list(scheduler.land_goroutines())
    assert (run.cluster.pod("default/p").scheduled_condition is not None) is handled


@pytest.mark.parametrize("release, nomination_after", [("v1.35", "n1"), ("v1.36", "")])
def test_v1_36_patches_against_the_informers_pod(release, nomination_after):
    # C7: while p was being scheduled another write nominated it to n1. Its attempt clears the
    # nomination: v1.35 compares with the popped copy (no nomination: only the condition is
    # patched, n1 stays); v1.36 with the informer's pod (n1: the patch clears it).
    run = run_as(BIG_POD, release)
    scheduler = run.kube_scheduler
    scheduler.listed(run.cluster.pod("default/p"))
    info = scheduler.queue.pop()
    run.cluster.patch_pod_status("default/p", ClusterChangeKind.POD_STATUS, "by a test", nominated_node_name="n1")
    list(scheduler.flush())
    list(scheduler._schedule_one(info))
    list(scheduler.land_goroutines())
    assert run.cluster.pod("default/p").nominated_node_name == nomination_after


def _victims_scenario() -> str:
    victim = """apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: default}
spec:
  nodeName: n1
  terminationGracePeriodSeconds: %d
  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
"""
    return scenario_text(node_text("n1", cpu="2"), victim % ("graceful", 30), victim % ("at-once", 0))


def test_the_preemption_api_patches_then_deletes_through_the_cluster_and_says_when_a_pod_is_gone():
    """PreemptPod's calls (framework.options.PreemptionAPI): the DisruptionTarget condition (no write
    when it is there), the delete (graceful, or at once with a zero grace period; nothing more for a
    pod already terminating), and NotFound as False for a pod gone."""
    run = ClusterRun(load_scenario(_victims_scenario()))
    scheduler = run.kube_scheduler
    preemptor = load_scenario(scenario_text(node_text("n1"), pod_text("p"))).pods[0]
    graceful, at_once = run.cluster.pod("default/graceful"), run.cluster.pod("default/at-once")

    def calls(made):
        events = []
        while True:
            try:
                events.append(next(made))
            except StopIteration as done:
                return done.value, [e.payload.kind for e in events if e.extension_point is ExtensionPoint.CLUSTER]

    assert calls(scheduler.mark_disruption_target(preemptor, graceful)) == (True, [ClusterChangeKind.POD_STATUS])
    assert calls(scheduler.mark_disruption_target(preemptor, graceful)) == (True, [])  # already has it
    assert calls(scheduler.delete_victim(preemptor, graceful)) == (True, [ClusterChangeKind.POD_TERMINATING])
    assert calls(scheduler.delete_victim(preemptor, graceful)) == (True, [])  # already terminating
    assert calls(scheduler.delete_victim(preemptor, at_once)) == (True, [ClusterChangeKind.POD_REMOVED])
    assert calls(scheduler.mark_disruption_target(preemptor, at_once)) == (False, [])
    assert calls(scheduler.delete_victim(preemptor, at_once)) == (False, [])
    assert not scheduler.preempt_in_memory(graceful, cancel_pre_bind=True)  # no pod of a run waits there


def test_the_cycles_own_calls_are_made_at_once_and_told_after_the_cycle():
    """PreemptionAPI.now: the writes happen (and reach the informers) at once; their events wait
    for the cycle's, then go out before the failure handler's."""
    run = ClusterRun(load_scenario(_victims_scenario()))
    scheduler = run.kube_scheduler
    preemptor = load_scenario(scenario_text(node_text("n1"), pod_text("p"))).pods[0]
    victim = run.cluster.pod("default/at-once")
    assert scheduler.now(lambda: scheduler.delete_victim(preemptor, victim)) is True
    assert run.cluster.pod("default/at-once") is None
    assert scheduler.snapshot.get("n1").pods and all(i.pod.key != victim.key for i in scheduler.snapshot.get("n1").pods)
    held = list(scheduler._cycle_writes())
    assert [e.payload.kind for e in held if e.extension_point is ExtensionPoint.CLUSTER] == [
        ClusterChangeKind.POD_REMOVED
    ]
    assert list(scheduler._cycle_writes()) == []


def test_the_other_components_act_after_the_cycles_own_preemption_is_told():
    """prepareCandidate's calls are the cycle's: the controllers get their turn once those writes
    were told after the cycle, not while the pod is still in its cycle."""
    run = ClusterRun(load_scenario(_victims_scenario()))
    scheduler = run.kube_scheduler
    turns = []
    scheduler.others_react = lambda: iter(turns.append("others") or ())
    preemptor = load_scenario(scenario_text(node_text("n1"), pod_text("p"))).pods[0]
    scheduler.now(lambda: scheduler.preemption_done(preemptor))
    assert turns == []
    list(scheduler._cycle_writes())
    assert turns == ["others"]
    list(scheduler.preemption_done(preemptor))  # a goroutine's: at once
    assert turns == ["others", "others"]


# ---------------------------------------------------------------------------- bindings blocked in PreBind

from pathlib import Path  # noqa: E402

from scheduler_core.encoding.timeline import StoryBuilder, TimelineBuilder  # noqa: E402

BINDING_EXAMPLE = (Path(__file__).resolve().parents[3] / "examples" / "dra_binding_conditions.yaml").read_text()


def _run(text: str):  # type: ignore[no-untyped-def]
    run = ClusterRun(load_scenario(text))
    return run, list(run.run())


def test_a_pod_waiting_in_prebind_counts_on_its_node_until_the_wait_ends():
    """The binding cycle blocks in PreBind: the pod stays assumed (its node's room and its devices
    taken) until bindingTimeout, then Unreserve, ForgetPod and the failure handler."""
    run, events = _run(BINDING_EXAMPLE)
    failed = next(
        e
        for e in events
        if e.extension_point is ExtensionPoint.CLUSTER and e.payload.kind is ClusterChangeKind.BINDING_FAILED
    )
    assert (failed.pod, failed.payload.node, failed.payload.time_ms) == ("default/train-1", "node-1", 600_000)
    ends = [e for e in events if e.extension_point is ExtensionPoint.ATTEMPT_END and e.pod == "default/train-1"]
    assert ends[0].payload.time_ms == 0 and ends[0].payload.binding_wait_ms == 600_000
    assert run.kube_scheduler.still_retrying_errors() == ["default/train-1"]
    assert set(run.kube_scheduler._waiting) == {"default/train-1"}  # its third attempt waits as the run stops


PREEMPTING = (
    BINDING_EXAMPLE
    + """---
apiVersion: schedlab.io/v1alpha1
kind: Changes
steps:
- name: urgent work on node-1
  operations:
  - create:
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent, namespace: default}
      spec:
        priority: 1000
        nodeSelector: {kubernetes.io/hostname: node-1}
        containers:
        - name: main
          resources: {requests: {cpu: '16'}}
"""
)


def test_a_preemption_cancels_a_binding_blocked_in_prebind_and_corrects_that_attempts_end():
    """v1.36's CancelPod: the victim is not deleted, its PreBind returns the cancellation's cause,
    and the attempt it belongs to is told again with that error."""
    _, events = _run(PREEMPTING)
    timeline, story = TimelineBuilder(), StoryBuilder()
    for event in events:
        timeline.add(event)
        story.add(event)
    train_1 = [a for a in timeline.attempts if a.pod == "default/train-1"]
    assert train_1[2].binding_error == 'running PreBind plugin "DynamicResources": preempted by DefaultPreemption'
    assert train_1[0].binding_error.endswith("device binding timeout: context deadline exceeded")
    corrected = next(a for a in story.attempts if a.pod == "default/train-1" and a.attempt == 3)
    assert corrected.text.endswith(
        'binding failed — running PreBind plugin "DynamicResources": preempted by DefaultPreemption'
    )
    assert not any(
        e.extension_point is ExtensionPoint.CLUSTER
        and e.pod == "default/train-1"
        and e.payload.kind is ClusterChangeKind.POD_TERMINATING
        for e in events
    )
    assert timeline.final["default/urgent"] == "node-1"


TURNS = (Path(__file__).resolve().parents[2] / "fixtures" / "dra" / "binding_turns.yaml").read_text()


def test_pods_taking_turns_at_a_device_nobody_attaches_end_the_run():
    """Two pods take turns at a fabric device nobody attaches (each wait ends in vain, the claim is
    deallocated, the other pod takes the device) while a third fails again exactly as before each
    time a deallocation requeues it: no progress, so the run stops a minute after the last change,
    naming the pods left looping (it used to go on for ever)."""
    _, events = _run(TURNS)
    end = events[-1].payload
    assert end.stopped_retrying == ["default/pod-4", "default/pod-3"]
    assert end.time_ms < 5 * 60_000
