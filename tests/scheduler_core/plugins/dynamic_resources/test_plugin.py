"""DynamicResources at each extension point (dynamicresources.go, v1.35.4); each test names the
release function it follows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.answers.filter_details import cycle_details
from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeScore, NodeToStatus
from scheduler_core.framework.signers import Unsignable
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.model import (
    FINALIZER,
    DeviceConstraint,
    DeviceRequest,
    PodResourceClaim,
    SubRequest,
)
from scheduler_core.plugins import dynamic_resources
from tests.scheduler_core.builders import (
    FakeHandle,
    claiming_pod,
    dra_snapshot,
    exact,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_pod,
    make_resource_claim,
)
from tests.scheduler_core.plugins.scoring import run_scoring

NODES = [make_node("n1"), make_node("n2")]


def plugin_for(snapshot):
    return dynamic_resources.new(None, FakeHandle(snapshot))


def cluster(*claims, pods=(), slices=None, classes=None):
    snapshot = dra_snapshot(
        NODES,
        pods,
        classes=classes if classes is not None else [make_device_class()],
        slices=slices if slices is not None else [make_gpu_slice("n1", 2), make_gpu_slice("n2", 1)],
        claims=claims,
    )
    return snapshot, plugin_for(snapshot)


def filter_all(plugin, state, pod, snapshot):
    return {info.name: plugin.filter(state, pod, info) for info in snapshot.node_infos}


# ---------------------------------------------------------------------- pods without claims


def test_pre_filter_skips_a_pod_without_claims():
    """PreFilter: claims.empty() -> Skip (after writing the empty state)."""
    _, plugin = cluster()
    assert plugin.pre_filter(CycleState(), make_pod("p"), []) == (None, SKIP)


def test_score_runs_without_pre_score_and_gives_zero_to_a_pod_without_claims():
    """Score: no PreScore in v1.35; state.claims.empty() -> 0."""
    snapshot, plugin = cluster()
    state = CycleState()
    plugin.pre_filter(state, make_pod("p"), [])
    assert not hasattr(plugin, "pre_score")
    assert run_scoring(plugin, make_pod("p"), snapshot.node_infos, state) == (None, [0, 0], [0, 0])


def test_post_filter_without_claims_has_no_new_claims_to_deallocate():
    """PostFilter: state.claims.empty() -> Unschedulable "no new claims to deallocate"."""
    _, plugin = cluster()
    state = CycleState()
    plugin.pre_filter(state, make_pod("p"), [])
    assert plugin.post_filter(state, make_pod("p"), NodeToStatus({}, Status(Code.UNSCHEDULABLE))) == (
        None,
        Status.unschedulable("no new claims to deallocate"),
    )


def test_post_filter_without_its_pre_filter_state_fails_with_not_found():
    """PostFilter: getStateData's cycleState.Read ErrNotFound, as an Error."""
    _, plugin = cluster()
    assert plugin.post_filter(CycleState(), make_pod("p"), None) == (None, Status.error("not found"))


# ---------------------------------------------------------------------- PreEnqueue


@pytest.mark.parametrize(
    "pod, claims, message",
    [
        (claiming_pod("p", "missing"), [], 'could not find ResourceClaim "default/missing"'),
        (claiming_pod("p", templates=("tpl",)), [], 'pod "default/p": ResourceClaim not created yet'),
        (claiming_pod("p", "c"), [make_resource_claim("c", terminating=True)], 'resourceclaim "c" is being deleted'),
        (
            replace(
                claiming_pod("p"),
                claim_sources=(PodResourceClaim("t0", template_name="tpl"),),
                claim_statuses=(("t0", "c"),),
            ),
            [make_resource_claim("c")],
            "ResourceClaim default/c was not created for pod default/p (pod is not owner)",
        ),
    ],
    ids=[
        "a claim that does not exist",
        "a template's claim not created yet",
        "a claim being deleted",
        "a generated claim the pod does not own",
    ],
)
def test_pre_enqueue_holds_the_pod_with_the_release_message(pod, claims, message):
    """PreEnqueue -> foreachPodResourceClaim / resourceclaim.Name / resourceclaim.IsForPod."""
    _, plugin = cluster(*claims)
    assert plugin.pre_enqueue(pod) == Status.unresolvable(message)


def test_pre_enqueue_lets_a_pod_with_its_own_generated_claim_in():
    pod = replace(
        claiming_pod("p"), claim_sources=(PodResourceClaim("t0", template_name="tpl"),), claim_statuses=(("t0", "c"),)
    )
    _, plugin = cluster(make_resource_claim("c", owner=pod))
    assert plugin.pre_enqueue(pod) is None


def test_a_generated_claim_status_without_a_name_is_skipped():
    """resourceclaim.Name returns nil (no claim needed): foreachPodResourceClaim continues."""
    pod = replace(
        claiming_pod("p"), claim_sources=(PodResourceClaim("t0", template_name="tpl"),), claim_statuses=(("t0", ""),)
    )
    _, plugin = cluster()
    assert plugin.pre_enqueue(pod) is None
    assert plugin.pre_filter(CycleState(), pod, []) == (None, SKIP)


# ---------------------------------------------------------------------- PreFilter


def test_pre_filter_fails_when_a_request_names_a_class_that_does_not_exist():
    """PreFilter -> validateDeviceClass: "request <req>: device class <class> does not exist"."""
    pod = claiming_pod("p", "c")
    _, plugin = cluster(make_resource_claim("c", exact("gpu", "tpu")))
    assert plugin.pre_filter(CycleState(), pod, []) == (
        None,
        Status.unresolvable("request gpu: device class tpu does not exist"),
    )


def test_pre_filter_checks_every_first_available_subrequest_class():
    """PreFilter: firstAvailable subrequests are validated as "<request>/<subrequest>"."""
    pod = claiming_pod("p", "c")
    request = DeviceRequest("gpu", first_available=(SubRequest("big", "gpu"), SubRequest("small", "nope")))
    _, plugin = cluster(make_resource_claim("c", request))
    assert plugin.pre_filter(CycleState(), pod, []) == (
        None,
        Status.unresolvable("request gpu/small: device class nope does not exist"),
    )


def test_pre_filter_fails_while_a_claims_allocation_is_in_flight():
    """PreFilter: ClaimHasPendingAllocation -> "resource claim <ns>/<name> is in the process of being allocated"."""
    claim = make_resource_claim("c")
    snapshot, plugin = cluster(claim)
    snapshot.dra.in_flight[claim.uid] = claim
    assert plugin.pre_filter(CycleState(), claiming_pod("p", "c"), []) == (
        None,
        Status.unresolvable("resource claim default/c is in the process of being allocated"),
    )


# ---------------------------------------------------------------------- Filter


def test_filter_keeps_a_pod_with_an_allocated_claim_to_the_allocations_node():
    """Filter: availableOnNodes (the allocation's node selector) -> "resourceclaim not available on the node"."""
    holder = claiming_pod("holder", "c", node="n1")
    snapshot, plugin = cluster(
        make_resource_claim("c", on=("gpu-0",), node="n1", reserved_for=(holder,)), pods=[holder]
    )
    state = CycleState()
    pod = claiming_pod("p", "c")
    assert plugin.pre_filter(state, pod, []) == (None, None)
    assert filter_all(plugin, state, pod, snapshot) == {
        "n1": None,
        "n2": Status.unresolvable("resourceclaim not available on the node"),
    }


def test_filter_runs_the_allocator_per_node_with_devices_in_use_taken():
    """Filter -> Allocator.Allocate; devices of allocated claims are in use (ListAllAllocatedDevices)."""
    held = make_resource_claim("held", on=("gpu-0",), node="n2")
    snapshot, plugin = cluster(held, make_resource_claim("c", exact(count=2)))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert filter_all(plugin, state, pod, snapshot) == {
        "n1": None,
        "n2": Status.unresolvable("cannot allocate all claims"),
    }


def test_a_cel_runtime_error_is_the_filters_error_with_the_release_text():
    """selectorsMatch: "claim <ns>/<name>: selector #0: CEL runtime error: no such key: <id>"."""
    request = exact(selectors=('device.attributes["other.example.com"].size > 1',))
    snapshot, plugin = cluster(make_resource_claim("c", request))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.node_infos[0]) == Status.error(
        "claim default/c: selector #0: CEL runtime error: no such key: size"
    )


# ---------------------------------------------------------------------- PostFilter


def test_post_filter_deallocates_an_unreserved_claim_that_was_unavailable():
    """PostFilter: an unavailable claim reserved by nobody gets its allocation cleared (UpdateStatus)."""
    snapshot, plugin = cluster(make_resource_claim("c", on=("gpu-0",), node="n2"))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    statuses = {
        name: status.with_plugin("DynamicResources")
        for name, status in filter_all(plugin, state, pod, snapshot).items()
        if status is not None
    }
    assert plugin.post_filter(state, pod, NodeToStatus(statuses, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))) == (
        None,
        Status.unschedulable("deallocation of ResourceClaim completed"),
    )
    assert snapshot.dra.claim("default", "c").allocation is None
    [change] = snapshot.cluster_changes
    assert change.event.resource is EventResource.RESOURCE_CLAIM and change.new.allocation is None


def test_post_filter_leaves_a_claim_another_pod_holds():
    """PostFilter: a claim reserved by another pod is not deallocated: "still not schedulable"."""
    other = claiming_pod("other", "c", node="n2")
    snapshot, plugin = cluster(make_resource_claim("c", on=("gpu-0",), node="n2", reserved_for=(other,)), pods=[other])
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    statuses = {"n1": Status.unresolvable("resourceclaim not available on the node").with_plugin("DynamicResources")}
    assert plugin.post_filter(state, pod, NodeToStatus(statuses, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))) == (
        None,
        Status.unschedulable("still not schedulable"),
    )
    assert snapshot.dra.claim("default", "c").allocation is not None


# ---------------------------------------------------------------------- Reserve, PreBind, Unreserve


def test_reserve_marks_the_allocation_in_flight_and_pre_bind_writes_it():
    """Reserve -> SignalClaimPendingAllocation; PreBind -> bindClaim: finalizer update, then status update."""
    snapshot, plugin = cluster(make_resource_claim("c"))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.node_infos[0]) is None
    assert plugin.reserve(state, pod, "n1") is None
    assert snapshot.dra.has_pending_allocation("uid-claim-c")
    assert plugin.pre_bind(state, pod, "n1") is None
    claim = snapshot.dra.claim("default", "c")
    assert not snapshot.dra.has_pending_allocation("uid-claim-c")
    assert FINALIZER in claim.finalizers and [r.device for r in claim.allocation.results] == ["gpu-0"]
    assert [ref.uid for ref in claim.reserved_for] == ["uid-p"]
    finalizer, status = snapshot.cluster_changes
    assert finalizer.new.allocation is None and status.new.allocation is not None


def test_pre_bind_appends_the_pod_to_an_allocated_claims_reservations():
    """bindClaim for an allocated claim: only reservedFor grows."""
    holder = claiming_pod("holder", "c", node="n1")
    snapshot, plugin = cluster(
        make_resource_claim("c", on=("gpu-0",), node="n1", reserved_for=(holder,)), pods=[holder]
    )
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert plugin.reserve(state, pod, "n1") is None
    assert plugin.pre_bind(state, pod, "n1") is None
    assert [ref.name for ref in snapshot.dra.claim("default", "c").reserved_for] == ["holder", "p"]
    assert len(snapshot.cluster_changes) == 1


def test_unreserve_takes_the_allocation_in_flight_back():
    """Unreserve -> RemoveClaimPendingAllocation."""
    snapshot, plugin = cluster(make_resource_claim("c"))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    plugin.filter(state, pod, snapshot.node_infos[0])
    plugin.reserve(state, pod, "n1")
    plugin.unreserve(state, pod, "n1")
    assert not snapshot.dra.has_pending_allocation("uid-claim-c")


# ---------------------------------------------------------------------- Score


def test_score_rewards_the_first_available_subrequest_that_was_chosen():
    """computeScore: FirstAvailableDeviceRequestMaxSize - index of the chosen subrequest; normalized."""
    request = DeviceRequest("gpu", first_available=(SubRequest("two", "gpu", count=2), SubRequest("one", "gpu")))
    snapshot, plugin = cluster(make_resource_claim("c", request))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    filter_all(plugin, state, pod, snapshot)
    assert run_scoring(plugin, pod, snapshot.node_infos, state) == (None, [8, 7], [100, 87])


def test_score_of_a_pod_with_allocated_and_new_claims_is_the_release_error():
    """computeScore indexes all claims against the allocations of the unallocated ones only."""
    holder = claiming_pod("holder", "a", node="n1")
    snapshot, plugin = cluster(
        make_resource_claim("a", on=("gpu-0",), node="n1", reserved_for=(holder,)),
        make_resource_claim("b"),
        pods=[holder],
    )
    state = CycleState()
    pod = claiming_pod("p", "a", "b")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.node_infos[0]) is None
    assert plugin.score(state, pod, snapshot.node_infos[0]) == (
        0,
        Status.error("number of allocations 1 is smaller than number of claims"),
    )


def test_score_batch_matches_score():
    request = DeviceRequest("gpu", first_available=(SubRequest("two", "gpu", count=2), SubRequest("one", "gpu")))
    snapshot, plugin = cluster(make_resource_claim("c", request))
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    filter_all(plugin, state, pod, snapshot)
    positions = snapshot.table.positions(["n1", "n2"])
    assert plugin.score_batch(state, pod, snapshot.table, positions).tolist() == [
        plugin.score(state, pod, info)[0] for info in snapshot.node_infos
    ]


@given(st.lists(st.integers(min_value=0, max_value=8), max_size=30))
def test_normalize_batch_matches_normalize_score(raw):
    """helper.DefaultNormalizeScore (maxPriority 100, not reversed): the batch form against NodeScores."""
    plugin = plugin_for(dra_snapshot(NODES, ()))
    pod = claiming_pod("p", "c")
    scores = [NodeScore(f"n{i}", value) for i, value in enumerate(raw)]
    assert plugin.normalize_score(CycleState(), pod, scores) is None
    fast = plugin.normalize_batch(CycleState(), pod, np.asarray(raw, dtype=np.int64))
    assert fast.dtype == np.int64
    assert fast.tolist() == [score.score for score in scores]


# ---------------------------------------------------------------------- events, hints, signature


def test_events_to_register_are_the_releases_with_queueing_hints_on():
    """EventsToRegister (SchedulerQueueingHints GA): nodes, claims (hint), the pod's generated claims
    (hint), device classes, resource slices."""
    _, plugin = cluster()
    events = {(r.event.resource, r.event.action): r.hint is not None for r in plugin.events_to_register()}
    add_update = ActionType.ADD | ActionType.UPDATE
    assert events == {
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE): False,
        (EventResource.RESOURCE_CLAIM, add_update): True,
        (EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM): True,
        (EventResource.DEVICE_CLASS, add_update): False,
        (EventResource.RESOURCE_SLICE, add_update): False,
    }


def test_the_claim_hint_queues_on_the_pods_own_claim_and_on_any_deallocation():
    """isSchedulableAfterClaimChange."""
    mine, other = make_resource_claim("c"), make_resource_claim("d", on=("gpu-0",), node="n1")
    _, plugin = cluster(mine, other)
    pod = claiming_pod("p", "c")
    allocated = make_resource_claim("c", on=("gpu-1",), node="n1")
    assert plugin.claim_hint(pod, None, mine) == QueueingHint.QUEUE
    assert plugin.claim_hint(pod, mine, allocated) == QueueingHint.QUEUE
    assert plugin.claim_hint(pod, mine, replace(mine, finalizers=(FINALIZER,))) == QueueingHint.QUEUE_SKIP
    assert plugin.claim_hint(pod, other, other.deallocated()) == QueueingHint.QUEUE
    assert plugin.claim_hint(pod, None, other) == QueueingHint.QUEUE_SKIP


def test_the_pod_hint_queues_the_pod_once_its_generated_claim_is_named():
    """isSchedulableAfterPodChange."""
    pod = claiming_pod("p", templates=("tpl",))
    named = replace(pod, claim_statuses=(("t0", "c"),))
    _, plugin = cluster(make_resource_claim("c", owner=pod))
    assert plugin.pod_hint(pod, pod, pod) == QueueingHint.QUEUE_SKIP
    assert plugin.pod_hint(pod, pod, named) == QueueingHint.QUEUE
    assert plugin.pod_hint(pod, pod, replace(named, uid="someone-else")) == QueueingHint.QUEUE_SKIP


def test_a_pod_with_claims_is_not_signable():
    """SignPod: "pods with dra resource claims are not signable"."""
    _, plugin = cluster()
    assert plugin.sign_pod(claiming_pod("p", "c")) == Unsignable(
        "DynamicResources", "pods with dra resource claims are not signable"
    )
    assert plugin.sign_pod(make_pod("p")) == []


def test_a_same_numa_constraint_needs_devices_with_one_value():
    """matchAttributeConstraint: n1's two NUMA-1 devices fit, n2's split pair does not."""
    constraint = DeviceConstraint(("gpu",), "gpu.example.com/numa")
    slices = [make_gpu_slice("n1", 4, numa_split=1), make_gpu_slice("n2", 2, numa_split=1)]
    snapshot, plugin = cluster(make_resource_claim("c", exact(count=2), constraints=(constraint,)), slices=slices)
    state = CycleState()
    pod = claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert filter_all(plugin, state, pod, snapshot) == {
        "n1": None,
        "n2": Status.unresolvable("cannot allocate all claims"),
    }
    plugin.reserve(state, pod, "n1")
    plugin.pre_bind(state, pod, "n1")
    assert [r.device for r in snapshot.dra.claim("default", "c").allocation.results] == ["gpu-1", "gpu-2"]


def test_the_plugin_follows_the_release():
    from scheduler_core.framework.interfaces import ScorePlugin
    from scheduler_core.plugins.dynamic_resources.plugin import DisabledDynamicResources
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    def features(minor, gates=None):
        return rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == minor), gates).features

    handle = FakeHandle(dra_snapshot([make_node("n1")]))
    off = dynamic_resources.new(None, handle, features(33))
    assert isinstance(off, DisabledDynamicResources) and off.events_to_register() == []
    assert off.post_filter(CycleState(), make_pod("p"), None)[1] == Status.unschedulable("plugin disabled")
    assert not isinstance(dynamic_resources.new(None, handle, features(34)), ScorePlugin)
    assert isinstance(dynamic_resources.new(None, handle, features(35)), ScorePlugin)
    assert not isinstance(
        dynamic_resources.new(None, handle, features(33, {"DynamicResourceAllocation": True})), DisabledDynamicResources
    )


def test_v1_33_post_filter_answers_a_pod_without_claims_with_no_reason():
    """v1.33's PostFilter fast path (release/code.py dra_post_filter_passes_pods_without_claims):
    its FailedScheduling message has no "no new claims to deallocate,"; v1.32 and v1.34 read the
    cycle's claims first. Found by the v1.33.13 harness with DynamicResourceAllocation on."""
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    handle = FakeHandle(dra_snapshot([make_node("n1")]))
    gates = {"DynamicResourceAllocation": True}
    answers = {}
    for release in SUPPORTED_RELEASES:
        plugin = dynamic_resources.new(None, handle, rules_for(release, gates if release.minor < 34 else None).features)
        state, pod = CycleState(), make_pod("p")
        plugin.pre_filter(state, pod, handle.snapshot.node_infos)
        answers[release.minor] = plugin.post_filter(state, pod, None)[1]
    assert answers[33] == Status(Code.UNSCHEDULABLE)
    assert {minor: answer for minor, answer in answers.items() if minor != 33} == {
        minor: Status.unschedulable("no new claims to deallocate") for minor in (32, 34, 35, 36)
    }


ALL_OF_A_CLASS_NOTHING_MATCHES = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-other}
spec:
  driver: other.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: dev-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: every-gpu, namespace: default}
spec:
  devices:
    requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
  resourceClaims: [{name: gpus, resourceClaimName: every-gpu}]
"""


def test_v1_32_allocates_all_of_a_class_that_nothing_matches_as_no_device():
    """v1.32's allocator has no at-least-one-device check for allocationMode All (release/code.py
    dra_allocator_all_mode_needs_a_device): the claim is allocated with no device and the pod
    scheduled; v1.33 on, it cannot be allocated. Found by the v1.32.13 harness (20 of its 24
    differing random DRA clusters)."""
    from scheduler_core.release import release_named
    from scheduler_core.release.choice import ReleaseRequest

    outcomes = {}
    for release in ("v1.32", "v1.33", "v1.35"):
        gates = {"DynamicResourceAllocation": True} if release < "v1.34" else None
        request = ReleaseRequest(release_named(release), gates)
        [cycle] = trace_summary(simulate(load_scenario(ALL_OF_A_CLASS_NOTHING_MATCHES, release=request)))["cycles"]
        outcomes[release] = cycle["nodeName"] or cycle["failedSchedulingMessage"]
    assert outcomes["v1.32"] == "n1"
    assert (
        outcomes["v1.33"]
        == outcomes["v1.35"]
        == (
            "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling."
        )
    )


def test_v1_36_says_pod_is_not_owner_with_a_capital():
    """resourceclaim.IsForPod, v1.36 (release/code.py claim_owner_message_capitalized)."""
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    pod = replace(
        claiming_pod("p"), claim_sources=(PodResourceClaim("t0", template_name="tpl"),), claim_statuses=(("t0", "c"),)
    )
    snapshot = dra_snapshot(NODES, (), classes=[make_device_class()], claims=[make_resource_claim("c")])
    messages = {}
    for release in SUPPORTED_RELEASES:
        if release.minor >= 34:  # DynamicResourceAllocation on by default
            plugin = dynamic_resources.new(None, FakeHandle(snapshot), rules_for(release).features)
            messages[release.minor] = plugin.pre_enqueue(pod).reasons[0]
    assert messages[35] == "ResourceClaim default/c was not created for pod default/p (pod is not owner)"
    assert messages[36] == "ResourceClaim default/c was not created for Pod default/p (Pod is not owner)"


# ---------------------------------------------------------------------- device taints, through a trace

TAINTED_SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: example.com/broken, value: "true", effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: plain, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tolerant, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        tolerations: [{key: example.com/broken, operator: Exists, effect: NoSchedule}]
---
apiVersion: v1
kind: Pod
metadata: {name: POD, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpu, resourceClaimName: CLAIM}]
"""


def _trace(tmp_path, claim, release, *options):
    """`python -m scheduler_core trace FILE --release R`: its output (the JSON summary with --json)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    scenario = tmp_path / f"{claim}.yaml"
    scenario.write_text(TAINTED_SCENARIO.replace("POD", "p").replace("CLAIM", claim))
    root = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "trace", str(scenario), "--release", release, *options],
        cwd=root,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["cycles"][0] if "--json" in options else done.stdout.decode()


def test_a_tainted_device_is_allocated_in_v1_35_but_not_in_v1_36_unless_tolerated(tmp_path):
    """v1.35: DRADeviceTaints off, the API server dropped the taint (said in a note); v1.36: on,
    allocateDevice passes over the device its request does not tolerate."""
    assert _trace(tmp_path, "plain", "v1.35", "--json")["nodeName"] == "n1"
    notes = _trace(tmp_path, "plain", "v1.35")
    assert "off in v1.35 dropped" in notes and "spec.devices[0].taints (DRADeviceTaints)" in notes
    cycle = _trace(tmp_path, "plain", "v1.36", "--json")
    assert cycle["nodeName"] is None
    assert "cannot allocate all claims" in cycle["failedSchedulingMessage"]
    assert "dropped" not in _trace(tmp_path, "plain", "v1.36")
    assert _trace(tmp_path, "tolerant", "v1.36", "--json")["nodeName"] == "n1"
    # v1.36 with the gate turned off replays as v1.35 does
    assert _trace(tmp_path, "plain", "v1.36", "--json", "--feature-gates", "DRADeviceTaints=false")["nodeName"] == "n1"


@pytest.mark.parametrize(
    "minor, gates, pool",
    [
        (35, None, "b"),  # v1.35's incubating variant: pools in listing order
        (36, None, "a"),  # v1.36 picks incubating (ConsumableCapacity, DeviceBindingAndStatus on): sorted
        (36, {"DRAConsumableCapacity": False, "DRADeviceBindingConditions": False}, "b"),  # stable: not sorted
        (36, {"DRAConsumableCapacity": False}, "a"),
    ],
)
def test_the_allocator_variant_of_the_release_decides_the_pool_order(minor, gates, pool):
    """structured.NewAllocator picks the first variant whose supported features cover the enabled
    ones; from v1.36 the incubating one sorts pools by ID (release/code.py dra_allocator_sorts_pools)."""
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    release = next(r for r in SUPPORTED_RELEASES if r.minor == minor)
    slices = [replace(make_gpu_slice("n1", 1), name="b-1", pool="b"), replace(make_gpu_slice("n1", 1), pool="a")]
    snapshot = dra_snapshot(
        [make_node("n1")], (), classes=[make_device_class()], slices=slices, claims=[make_resource_claim("c")]
    )
    plugin = dynamic_resources.new(None, FakeHandle(snapshot), rules_for(release, gates).features)
    state, pod = CycleState(), claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.get("n1")) is None
    [result] = plugin.node_picture(state, pod, snapshot.get("n1")).requests
    assert result.allocated == ("gpu-0",)
    [allocation] = state.read_optional(dynamic_resources.plugin._STATE).node_allocations["n1"]
    assert [r.pool for r in allocation.results] == [pool]


def test_a_device_taint_rule_keeps_its_devices_from_being_allocated_where_its_gate_is_on(tmp_path):
    """With DRADeviceTaintRules on, the scheduler lists slices with the rules' taints (ListWithDeviceTaintRules)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    rule = (
        "---\napiVersion: resource.k8s.io/v1beta2\nkind: DeviceTaintRule\nmetadata: {name: broken}\n"
        "spec:\n  deviceSelector: {driver: gpu.example.com}\n  taint: {key: example.com/broken, effect: NoExecute}\n"
    )
    untainted = TAINTED_SCENARIO.replace(
        '    taints: [{key: example.com/broken, value: "true", effect: NoSchedule}]\n', ""
    )
    scenario = tmp_path / "rule.yaml"
    scenario.write_text(untainted.replace("POD", "p").replace("CLAIM", "plain") + rule)
    root = Path(__file__).resolve().parents[4]

    def node(*gates: str):
        done = subprocess.run(
            [sys.executable, "-m", "scheduler_core", "trace", str(scenario), "--json", "--release", "v1.36", *gates],
            cwd=root,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["cycles"][0]["nodeName"]

    assert node() == "n1"  # the gate is off by default in v1.36: the rule is not read
    assert node("--feature-gates", "DRADeviceTaintRules=true") is None


def test_filter_detail_says_what_each_request_finds_and_the_counters_left():
    """Explanations only (the trace's per-node line): the node's picture in words, for the reason
    Filter gave; a node it accepts has none. examples/dra_partitioned_gpu.yaml, infer-2's cycle (v1.36)."""
    example = Path(__file__).resolve().parents[4] / "examples" / "dra_partitioned_gpu.yaml"
    details = cycle_details(load_scenario(example.read_text()), 3)
    [fact] = details.nodes["gpu-node-1"].plugin("DynamicResources").facts
    assert fact.reason == "cannot allocate all claims"
    assert fact.text == (
        "request `gpu`: 1 device(s) of class `gpu-half` — gpu-node-1 has 2 free; "
        "counter set `gpu-0` of pool gpu.example.com/gpu-node-1: 0 of 40Gi memory left"
    )


# ---------------------------------------------------------------------- extended resources (v1.36)

EXTENDED_EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "dra_extended_gpu.yaml"


def _timeline(text, release=None):
    from scheduler_core.answers.report import render_timeline
    from scheduler_core.release import release_named
    from scheduler_core.release.choice import ReleaseRequest
    from scheduler_core.run.loop import run_to_the_end

    scenario = load_scenario(text, release=ReleaseRequest(release_named(release) if release else None))
    return scenario, render_timeline(run_to_the_end(scenario), scenario)


def test_a_pod_asking_for_a_class_backed_extended_resource_gets_devices_through_a_claim_of_its_own():
    from scheduler_core.run.loop import run_to_the_end
    from scheduler_core.plugins.dynamic_resources.extended import created_name

    scenario = load_scenario(EXTENDED_EXAMPLE.read_text())
    events = list(run_to_the_end(scenario))
    text = _timeline(EXTENDED_EXAMPLE.read_text())[1]
    train_0 = next(pod for pod in scenario.pods if pod.name == "train-0")
    name = created_name(train_0)
    assert name.startswith("train-0-extended-resources-") and len(name) == len("train-0-extended-resources-") + 5
    assert "default/train-0 (attempt 1): scheduled to node-1" in text
    assert f"default/{name}: resource.k8s.io/ResourceClaimAdd" in text
    assert "default/train-1 (attempt 1): scheduled to node-2" in text
    assert (
        "default/train-2 (attempt 1): unschedulable — 0/2 nodes are available: 1 Insufficient example.com/gpu, "
        "1 cannot allocate all claims. still not schedulable" in text
    )
    assert events


def test_without_the_gate_the_class_stands_for_nothing_and_fit_checks_the_resource():
    text = _timeline(EXTENDED_EXAMPLE.read_text(), "v1.35")[1]
    assert (
        "default/train-0 (attempt 1): unschedulable — 0/2 nodes are available: 2 Insufficient example.com/gpu" in text
    )
    assert "extended-resources" not in text


def test_a_claim_left_from_an_earlier_cycle_fails_every_node_and_postfilter_deletes_it():
    head = EXTENDED_EXAMPLE.read_text().split("---\napiVersion: v1\nkind: Pod")[0]
    stale = head + (
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-0, namespace: default, uid: uid-train-0}\n"
        "spec:\n  containers:\n  - name: main\n    resources:\n"
        "      requests: {cpu: '1', example.com/gpu: '2'}\n      limits: {example.com/gpu: '2'}\n"
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
        "  name: train-0-extended-resources-abcde\n  namespace: default\n  uid: uid-old\n"
        '  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}\n'
        "  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: train-0, uid: uid-train-0, controller: true}\n"
        "spec:\n  devices:\n    requests:\n    - name: container-0-request-1\n"
        "      exactly: {deviceClassName: gpu, count: 2}\n"
    )
    text = _timeline(stale)[1]
    assert (
        "unschedulable — 0/2 nodes are available: 1 Insufficient example.com/gpu, 1 cannot schedule extended "
        "resource claim. deletion of ResourceClaim completed" in text
    )
    assert "default/train-0-extended-resources-abcde: resource.k8s.io/ResourceClaimDelete" in text


def test_prebind_names_the_claim_in_the_pods_status_once_the_claim_is_written():
    from scheduler_core.encoding.events import ClusterChanged, ClusterChangeKind
    from scheduler_core.run.loop import run_to_the_end

    scenario = load_scenario(EXTENDED_EXAMPLE.read_text())
    changes = [event.payload for event in run_to_the_end(scenario) if isinstance(event.payload, ClusterChanged)]
    objects = [(change.kind, change.object, change.detail) for change in changes]
    status = (ClusterChangeKind.POD_STATUS, "default/train-0", "extendedResourceClaimStatus")
    assert objects.count(status) == 1
    claim_writes = [index for index, item in enumerate(objects) if "extended-resources" in item[1]]
    assert len(claim_writes) == 3 and claim_writes[-1] < objects.index(status)  # create, finalizer, status


def test_score_from_v1_36_reads_an_allocated_claims_own_allocation():
    """computeScore with unallocatedIndex (release/code.py dra_score_reads_allocated_claims)."""
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    holder = claiming_pod("holder", "a", node="n1")
    snapshot = dra_snapshot(
        NODES,
        [holder],
        classes=[make_device_class()],
        slices=[make_gpu_slice("n1", 2), make_gpu_slice("n2", 1)],
        claims=[make_resource_claim("a", on=("gpu-0",), node="n1", reserved_for=(holder,)), make_resource_claim("b")],
    )
    v136 = next(r for r in SUPPORTED_RELEASES if r.minor == 36)
    plugin = dynamic_resources.new(None, FakeHandle(snapshot), rules_for(v136).features)
    state = CycleState()
    pod = claiming_pod("p", "a", "b")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.node_infos[0]) is None
    assert plugin.score(state, pod, snapshot.node_infos[0]) == (0, None)


# ---------------------------------------------------------------------- DRADeviceBindingConditions (v1.36)


def _attached_slice(node: str):
    """``node``'s GPU pool, its devices attached before use (binding conditions)."""
    gpus = make_gpu_slice(node, 1)
    devices = tuple(
        replace(d, binding_conditions=("Attached",), binding_failure_conditions=("AttachFailed",)) for d in gpus.devices
    )
    return replace(gpus, devices=devices)


def _binding_plugin(*claims, now):
    from datetime import timedelta

    from scheduler_core.framework.options import FrameworkOptions
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    features = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == 36)).features
    snapshot = dra_snapshot(
        NODES, classes=[make_device_class()], slices=[_attached_slice("n1"), _attached_slice("n2")], claims=claims
    )
    handle = FakeHandle(snapshot, options=FrameworkOptions(now=lambda: now + timedelta(0)))
    return snapshot, dynamic_resources.new({"bindingTimeout": "90s"}, handle, features)


def _with_binding_conditions(claim, timestamp, *conditions):
    import msgspec

    from scheduler_core.model import AllocatedDeviceStatus

    results = tuple(
        msgspec.structs.replace(r, binding_conditions=("Attached",), binding_failure_conditions=("AttachFailed",))
        for r in claim.allocation.results
    )
    statuses = tuple(AllocatedDeviceStatus(r.driver, r.pool, r.device, conditions=conditions) for r in results)
    allocation = replace(claim.allocation, results=results, allocation_timestamp=timestamp)
    return replace(claim, allocation=allocation, device_statuses=statuses if conditions else ())


def test_pre_bind_stamps_the_allocation_and_waits_for_the_binding_conditions_until_the_timeout():
    """PreBind: allocationTimestamp set (to the second), then PollUntilContextTimeout(5 s, bindingTimeout)."""
    from datetime import datetime, timezone

    now = datetime(2026, 5, 1, 10, 0, 0, 400_000, tzinfo=timezone.utc)
    snapshot, plugin = _binding_plugin(make_resource_claim("c"), now=now)
    state, pod = CycleState(), claiming_pod("p", "c")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, snapshot.node_infos[0]) is None
    plugin.reserve(state, pod, "n1")
    status = plugin.pre_bind(state, pod, "n1")
    assert status == Status.error("device binding timeout: context deadline exceeded", after_ms=90_000)
    claim = snapshot.dra.claim("default", "c")
    assert claim.allocation.allocation_timestamp == now.replace(microsecond=0)
    assert claim.allocation.results[0].binding_conditions == ("Attached",)
    assert [ref.name for ref in claim.reserved_for] == ["p"]


def test_filter_finds_a_claim_whose_binding_failed_or_timed_out_unavailable_and_post_filter_deallocates_it():
    """Filter: isClaimReadyForBinding's error, or not ready and isClaimTimeout."""
    from datetime import datetime, timedelta, timezone

    from scheduler_core.model import DeviceCondition

    now = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    allocated = make_resource_claim("c", on=("gpu-0",), node="n1")
    failed = DeviceCondition("AttachFailed", "True", "NoPath")
    cases = {
        "ready": (_with_binding_conditions(allocated, now, DeviceCondition("Attached", "True", "Ok")), None),
        "failed": (_with_binding_conditions(allocated, now, failed), "resourceclaim not available on the node"),
        "waiting": (_with_binding_conditions(allocated, now - timedelta(seconds=60)), None),
        "timed out": (
            _with_binding_conditions(allocated, now - timedelta(seconds=91)),
            "resourceclaim not available on the node",
        ),
    }
    for name, (claim, verdict) in cases.items():
        snapshot, plugin = _binding_plugin(claim, now=now)
        state, pod = CycleState(), claiming_pod("p", "c")
        plugin.pre_filter(state, pod, [])
        status = plugin.filter(state, pod, snapshot.node_infos[0])
        assert (status.reasons[0] if status else None) == verdict, name
    statuses = {"n1": Status.unresolvable("resourceclaim not available on the node").with_plugin("DynamicResources")}
    assert plugin.post_filter(state, pod, NodeToStatus(statuses, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)))[1] == (
        Status.unschedulable("deallocation of ResourceClaim completed")
    )
    assert snapshot.dra.claim("default", "c").allocation is None


BINDING_EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "dra_binding_conditions.yaml"


def test_the_example_binds_an_attached_device_at_once_and_loops_on_one_nobody_attaches():
    scenario, text = _timeline(BINDING_EXAMPLE.read_text())
    assert "default/inference (attempt 1): scheduled to node-2" in text
    assert "default/train-0 (attempt 1): scheduled to node-1" in text
    assert (
        "default/train-1 (attempt 1): chose node-1, binding waits for device binding conditions and fails 10 min "
        'later — running PreBind plugin "DynamicResources": device binding timeout: context deadline exceeded'
    ) in text
    assert "10:00.000 default/train-1 no longer counted on node-1 (its binding failed)" in text
    assert "default/train-1 (attempt 2): unschedulable — 0/2 nodes are available: 2 resourceclaim not available" in text
    assert "run stopped after 5 attempt(s): default/train-1 kept failing" in text
    _, older = _timeline(BINDING_EXAMPLE.read_text(), "v1.35")
    assert "default/train-1 (attempt 1): scheduled to node-1" in older


def test_filter_detail_says_why_a_claim_whose_binding_failed_or_timed_out_is_unavailable():
    from datetime import datetime, timedelta, timezone

    from scheduler_core.model import DeviceCondition

    now = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    allocated = make_resource_claim("c", on=("gpu-0",), node="n1")
    failed = DeviceCondition("AttachFailed", "True", "NoPath", "switch down")
    for claim, fact in (
        (
            _with_binding_conditions(allocated, now, failed),
            'claim default/c: device binding failed: claim=c, reason=NoPath, message="switch down"',
        ),
        (
            _with_binding_conditions(allocated, now - timedelta(minutes=5)),
            "claim default/c: its devices' binding conditions were not all met within bindingTimeout (90 s) of its "
            "allocation at 2026-05-01T09:55:00Z; PostFilter deallocates it",
        ),
    ):
        snapshot, plugin = _binding_plugin(claim, now=now)
        state, pod = CycleState(), claiming_pod("p", "c")
        plugin.pre_filter(state, pod, [])
        [detail] = plugin.filter_detail(state, pod, snapshot.node_infos[1])
        assert (detail.reason, detail.text) == ("resourceclaim not available on the node", fact)
