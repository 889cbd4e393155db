"""The run to the end (scheduler_core.run.loop): what reaches the queue between attempts."""

from __future__ import annotations

import pytest

from scheduler_core import load_scenario
from scheduler_core.encoding.events import ClusterChanged, ClusterChangeKind, ExtensionPoint
from scheduler_core.backend.queue import QueueName
from scheduler_core.run.loop import ClusterRun, run_to_the_end
from scheduler_core.encoding.timeline import timeline_summary
from tests.scheduler_core.builders import (
    fill_one_node_each,
    gpu_devices_text,
    no_default_spreading,
    node_text,
    pod_text,
    scenario_text,
)

# A WaitForFirstConsumer claim on a node without a kubernetes.io/hostname label: the stand-in
# provisions a volume pinned to that label, so VolumeBinding's PreBind writes, then fails.
PREBIND_FAILS = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/os: linux}}
status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110'}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: wffc}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1, namespace: default, uid: u1}
spec: {accessModes: [ReadWriteOnce], storageClassName: wffc, resources: {requests: {storage: 1Gi}}}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: c1}}]
"""


def test_the_writes_of_a_prebind_that_failed_still_reach_the_queue_as_events():
    events = list(run_to_the_end(load_scenario(PREBIND_FAILS), tie_break="first"))
    first_end = next(i for i, e in enumerate(events) if e.extension_point is ExtensionPoint.ATTEMPT_END)
    second_start = next(
        i for i, e in enumerate(events) if e.extension_point is ExtensionPoint.CYCLE_START and i > first_end
    )
    between = [
        e.payload
        for e in events[first_end:second_start]
        if isinstance(e.payload, ClusterChanged) and e.payload.kind is ClusterChangeKind.STORAGE
    ]
    assert [(c.kind, c.object, c.detail) for c in between] == [
        (ClusterChangeKind.STORAGE, "default/c1", "PersistentVolumeClaimUpdate"),
        (ClusterChangeKind.STORAGE, "pvc-u1", "PersistentVolumeAdd"),
        (ClusterChangeKind.STORAGE, "pvc-u1", "PersistentVolumeUpdate"),
        (ClusterChangeKind.STORAGE, "default/c1", "PersistentVolumeClaimUpdate"),
    ]


def test_a_failed_binding_reports_the_node_and_wakes_the_pods_the_assumed_pod_kept_out():
    # `big` (priority 10) is tried first and does not fit next to the running `hog`; then `a` is
    # chosen for n1 and its PreBind fails. Forgetting the assumed `a` is an AssignedPodDelete
    # (handleBindingCycleError), which NodeResourcesFit's hint lets through for `big`; `a` itself
    # goes back as an error (no rejecting plugin), its attempt reporting the node and the error.
    text = (
        PREBIND_FAILS.replace("status: {allocatable: {cpu: '8'", "status: {allocatable: {cpu: '1'")
        + """\
---
apiVersion: v1
kind: Pod
metadata: {name: hog, namespace: default}
spec: {nodeName: n1, priority: 100, containers: [{name: c, image: x, resources: {requests: {cpu: 800m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec: {priority: 10, containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}
"""
    )
    from scheduler_core.encoding.timeline import timeline_summary

    events = list(run_to_the_end(load_scenario(text), tie_break="first"))
    attempts = timeline_summary(events)["attempts"]
    assert attempts[0]["pod"] == "default/big" and attempts[0]["nodeName"] is None
    failed = attempts[1]
    assert (failed["pod"], failed["nodeName"]) == ("default/a", "n1") and "failedSchedulingMessage" not in failed
    assert failed["bindingError"].startswith('running PreBind plugin "VolumeBinding": binding volumes:')
    a_end = next(
        i for i, e in enumerate(events) if e.extension_point is ExtensionPoint.ATTEMPT_END and e.pod == "default/a"
    )
    after = [
        e for e in events[a_end + 1 :] if e.extension_point in (ExtensionPoint.CLUSTER, ExtensionPoint.QUEUE_MOVE)
    ][:2]
    assert (after[0].pod, after[0].payload.kind, after[0].payload.node) == (
        "default/a",
        ClusterChangeKind.BINDING_FAILED,
        "n1",
    )
    assert (after[1].pod, after[1].payload.event, after[1].payload.plugins) == (
        "default/big",
        "AssignedPodDelete",
        ["NodeResourcesFit"],
    )


# ---------------------------------------------------------------------------- OpportunisticBatching


def _attempts(text: str):
    """(pod, node, the Filter summaries' JSON) per attempt of the run to the end."""
    out, summaries = [], []
    for event in run_to_the_end(load_scenario(text), tie_break="first"):
        if event.extension_point is ExtensionPoint.FILTER and event.plugin is None:
            summaries.append(event.payload.to_json())
        if event.extension_point is ExtensionPoint.TOTAL:
            node = event.payload.node_name
        if event.extension_point is ExtensionPoint.ATTEMPT_END:
            out.append((event.pod, node, summaries))
            summaries = []
    return out


def test_a_pod_like_the_last_one_takes_the_next_node_of_its_ranking_without_a_new_pass():
    attempts = _attempts(no_default_spreading() + fill_one_node_each())
    (p0, node0, f0), (p1, node1, f1), (p2, node2, f2) = attempts
    # p0 filters n000..n099 and takes n010; n020 comes next in its ranking, then the rest in order.
    assert (node0, len(f0[0]["evaluated"]), f0[0].get("batchHint")) == ("n010", 100, None)
    # p1 does not fit n010 any more: it is offered n020 alone and takes it, although a fresh pass
    # (from n100 on) would have found n120, preferred as much as n010.
    assert node1 == "n020"
    assert f1 == [
        {
            "evaluated": ["n020"],
            "feasibleNodes": ["n020"],
            "numFeasibleNodesToFind": 1,
            "startIndex": 0,
            "nominatedNodeOnly": True,
            "batchHint": True,
        }
    ]
    # p2 is offered the next one; the hinted cycles left the rotating start index alone.
    assert node2 == "n000" and f2[0]["evaluated"] == ["n000"] and f2[0]["batchHint"]


def test_the_default_profile_never_batches():
    attempts = _attempts(fill_one_node_each())
    # Without a configuration the release's adaptive share applies (100 of 150 nodes): p2's fresh pass
    # walks n051..n149, n000, n001, so it never sees n020 and takes the first of the equal rest.
    assert [node for _, node, _ in attempts] == ["n010", "n120", "n000"]
    assert [summaries[0]["startIndex"] for _, _, summaries in attempts] == [0, 100, 51]
    assert not any(s.get("batchHint") for _, _, summaries in attempts for s in summaries)


def test_a_pod_that_still_fits_the_last_node_gets_a_fresh_pass():
    # 8 CPUs per node: the node p0 took still fits p1, so the kept ranking says nothing about it.
    text = (no_default_spreading() + fill_one_node_each()).replace("cpu: '4'", "cpu: '8'")
    attempts = _attempts(text)
    assert [node for _, node, _ in attempts][:2] == ["n010", "n120"]
    assert all(len(summaries) == 1 and not summaries[0].get("batchHint") for _, _, summaries in attempts)


def test_a_run_without_nodes_ends_after_the_first_attempt_instead_of_retrying_for_ever():
    """schedulePod returns ErrNoNodesAvailable (UnschedulableAndUnresolvable, no rejector plugin): the
    release puts the pod in backoffQ and retries it for ever; the run ends once only that is left."""
    scenario = load_scenario("""apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: pause}]
""")
    events = list(run_to_the_end(scenario))
    ends = [event.payload for event in events if event.extension_point is ExtensionPoint.CYCLE_END]
    assert [end.failed_scheduling_message for end in ends] == ["no nodes available to schedule pods"]
    assert events[-1].extension_point is ExtensionPoint.RUN_END
    assert events[-1].payload.final == {"default/p": None}


# A pod using a claim from a template, and a cpu-only pod of higher priority that must preempt the
# device holder on the only node: the stand-in resourceclaim controller (../shared/spec/TIMELINE.md) makes the
# claim, and releases the victim's claim 100 ms after the stand-in kubelet removed it.
DRA_RUN = scenario_text(
    """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}
""",
    gpu_devices_text(devices=1, template="one"),
    """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: held
  namespace: default
  finalizers: [resource.kubernetes.io/delete-protection]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}
  reservedFor: [{resource: pods, name: holder, uid: u-holder}]
---
apiVersion: v1
kind: Pod
metadata: {name: holder, namespace: default, uid: u-holder}
spec:
  nodeName: n1
  priority: 1
  containers: [{name: c, image: x, resources: {requests: {cpu: '2'}, claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimName: held}]
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, namespace: default, uid: u-urgent}
spec:
  priority: 100
  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default, uid: u-trainer}
spec:
  priority: 10
  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}, claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]
""",
)


def test_a_pod_with_a_template_claim_waits_at_pre_enqueue_until_its_claim_is_named():
    """The stand-in controller: the claim (an Add), then the pod's status update moves it to activeQ."""
    events = list(run_to_the_end(load_scenario(DRA_RUN), tie_break="first"))
    moves = [
        (e.payload.queue, e.payload.event)
        for e in events
        if e.extension_point is ExtensionPoint.QUEUE_MOVE and e.pod == "default/trainer"
    ]
    assert moves[:2] == [
        ("unschedulablePods", "UnschedulablePodAdd"),
        ("activeQ", "UnschedulablePodUpdatePodGeneratedResourceClaim"),
    ]


def test_a_victims_claim_is_released_100_ms_after_its_removal_and_the_waiting_pod_gets_the_device():
    events = list(run_to_the_end(load_scenario(DRA_RUN), tie_break="first"))
    changes = [
        (e.payload.time_ms, e.payload.kind, e.payload.object, e.payload.detail)
        for e in events
        if isinstance(e.payload, ClusterChanged)
    ]
    removed = next(
        at for at, kind, name, _ in changes if kind is ClusterChangeKind.POD_REMOVED and name == "default/holder"
    )
    released = [(at, name, detail) for at, kind, name, detail in changes if name == "default/held" and at > removed]
    assert released[0] == (removed + 100, "default/held", "resource.k8s.io/ResourceClaimUpdate")
    summary_final = events[-1].payload.final
    assert summary_final == {"default/holder": "deleted", "default/trainer": "n1", "default/urgent": "n1"}


def test_a_pod_failing_with_an_error_forever_stops_the_run_and_is_named():
    """A CEL runtime error is the plugin's Error: the release retries the pod every back-off
    forever; the run stops after a minute of nothing else and says which pods it gave up on."""
    broken = DRA_RUN.replace(
        """spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}""",
        """spec: {selectors: [{cel: {expression: 'device.attributes["x.example.com"].size > 1'}}]}""",
    )
    summary = timeline_summary(run_to_the_end(load_scenario(broken), tie_break="first"))
    error = 'running "DynamicResources" filter plugin: class gpu: selector #0: CEL runtime error: no such key: size'
    errors = [a for a in summary["attempts"] if a.get("failedSchedulingMessage") == error]
    assert len(errors) >= 6 and summary["attempts"][-1] == errors[-1] and errors[-1]["pod"] == "default/trainer"
    assert summary["stoppedRetrying"] == ["default/trainer"] and summary["final"]["default/trainer"] is None


def test_with_steps_a_step_where_only_errors_are_retried_goes_quiet_and_the_next_one_starts():
    """The same pod failing forever, in a run with steps: its step ends after a minute of nothing
    else, the next step runs, and the run ends after the last (before: it never ended)."""
    broken = DRA_RUN.replace(
        """spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}""",
        """spec: {selectors: [{cel: {expression: 'device.attributes["x.example.com"].size > 1'}}]}""",
    )
    steps = broken + (
        "---\napiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- name: cordon\n  operations:\n"
        "  - cordon: {node: n1}\n"
    )
    summary = timeline_summary(run_to_the_end(load_scenario(steps), tie_break="first"))
    assert [step["step"] for step in summary["steps"]] == [0, 1]
    assert summary["stoppedRetrying"] == ["default/trainer"]


# ---------------------------------------------------------------------------- preemption's victims deleted


def _four_victims(grace: str, finalizers: str = "[]") -> str:
    """n1 full of four low-priority 250m pods; `urgent` (1 CPU, priority 100) must preempt them all."""
    victims = "".join(
        f"""---
apiVersion: v1
kind: Pod
metadata: {{name: low-{i}, namespace: default, finalizers: {finalizers}}}
spec: {{nodeName: n1, {grace}containers: [{{name: c, image: x, resources: {{requests: {{cpu: 250m}}}}}}]}}
"""
        for i in range(4)
    )
    return f"""apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}
status: {{allocatable: {{cpu: '1', memory: 8Gi, pods: '110'}}}}
{victims}---
apiVersion: v1
kind: Pod
metadata: {{name: urgent, namespace: default}}
spec: {{priority: 100, containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]}}
"""


def _victim_changes(text: str) -> tuple[list[tuple[int, str, str]], list[tuple[str, object]]]:
    """(time, kind, pod) of every victim change, and (pod, time) per attempt, of the run to the end."""
    changes, attempts = [], []
    for event in run_to_the_end(load_scenario(text), tie_break="first"):
        payload = event.payload
        if isinstance(payload, ClusterChanged) and payload.kind in (
            ClusterChangeKind.POD_TERMINATING,
            ClusterChangeKind.POD_REMOVED,
        ):
            changes.append((payload.time_ms, payload.kind.value, payload.object))
        if event.extension_point is ExtensionPoint.ATTEMPT_END:
            attempts.append((event.pod, payload.time_ms))
    return changes, attempts


def test_victims_with_a_zero_grace_period_are_removed_when_the_scheduler_deletes_them():
    """../shared/spec/TIMELINE.md: the API server deletes a pod with grace period 0 and no finalizers at once
    (rest.BeforeDelete / store.Delete), so the victims never terminate and the preemptor binds as
    soon as its back-off is over."""
    changes, attempts = _victim_changes(_four_victims("terminationGracePeriodSeconds: 0, "))
    assert changes == [(0, "PodRemoved", f"default/low-{i}") for i in range(4)]
    # Nothing else is queued: the preemptor is popped from the back-off queue at once and binds.
    assert attempts == [("default/urgent", 0), ("default/urgent", 0)]


@pytest.mark.parametrize(
    "grace, finalizers",
    [
        pytest.param(
            "", "[]", id="the default grace period of 30 s keeps victims terminating for the stand-in kubelet"
        ),
        pytest.param(
            "terminationGracePeriodSeconds: 0, ",
            "[example.com/keep]",
            id="a finalizer keeps a zero-grace victim terminating for the stand-in kubelet",
        ),
    ],
)
def test_other_victims_wait_for_the_stand_in_kubelet(grace, finalizers):
    changes, attempts = _victim_changes(_four_victims(grace, finalizers))
    assert changes == [(0, "PodTerminating", f"default/low-{i}") for i in range(4)] + [
        (300 * (i + 1), "PodRemoved", f"default/low-{i}") for i in range(4)
    ]
    # Each removal moves the preemptor; it fails until the last victim is gone.
    assert attempts == [("default/urgent", ms) for ms in (0, 300, 600, 900, 1200)]


# ---------------------------------------------------------------------------- the wiring


def test_the_set_up_runs_with_the_collector_paused_and_it_resumes(monkeypatch):
    import gc

    from scheduler_core.run import kube_scheduler

    seen = []
    build = kube_scheduler.Scheduler

    def scheduler(*args, **kwargs):
        seen.append(gc.isenabled())
        return build(*args, **kwargs)

    monkeypatch.setattr(kube_scheduler, "Scheduler", scheduler)
    assert gc.isenabled()
    events = run_to_the_end(load_scenario(fill_one_node_each(1)))
    assert seen == [False] and gc.isenabled()
    assert list(events)


# ---------------------------------------------------------------------------- the run's clock


def _two_equal_victims(start_a: str) -> str:
    """Two full nodes whose one victim each ties on every preemption criterion but its start time:
    ``a``'s victim with ``start_a`` as status.startTime (none when empty), ``b``'s without one."""
    started = f"status: {{startTime: '{start_a}'}}\n" if start_a else ""
    return scenario_text(
        node_text("a", cpu="2"),
        node_text("b", cpu="2"),
        pod_text("low-a", cpu="2", node_name="a", spec="  priority: 10\n") + started,
        pod_text("low-b", cpu="2", node_name="b", spec="  priority: 10\n"),
        pod_text("urgent", cpu="2", spec="  priority: 100\n"),
    )


def _victims(text: str) -> list[str]:
    summary = timeline_summary(run_to_the_end(load_scenario(text)))
    return [victim for attempt in summary["attempts"] for victim in attempt.get("victims", [])]


@pytest.mark.parametrize(
    "start_a, victim",
    [
        pytest.param(
            "", "default/low-b", id="without start times the pods started in document order: the later one goes"
        ),
        pytest.param(
            "2026-06-01T00:00:00Z",
            "default/low-b",
            id="a pod without a start time started as the run began, after every start the scenario gives",
        ),
        pytest.param("2020-01-01T00:00:00Z", "default/low-b", id="an old start time keeps its node's victim older"),
    ],
)
def test_preemption_picks_the_node_whose_victims_started_last(start_a, victim):
    """pickOneNodeForPreemption's last criterion is the latest start among a node's victims; a run
    starts the second after the latest time its scenario records (run_epoch), as the references
    ran after every time their scenarios wrote (a fixed 2026-01-01 start took low-a for the second
    case: the harness against the release found it)."""
    assert _victims(_two_equal_victims(start_a)) == [victim]


# ---------------------------------------------------------------------------- releases
# Timelines of tests/fixtures/releases/ run as each release: the attempts (pod, time in ms, node or
# None; "error" for a failed binding) follow from the release's queue and handlers as derived here
# from each release's source (/work/notes/release-diffs.md §4-6), not from a reference run.

from pathlib import Path  # noqa: E402

from scheduler_core.release.choice import ReleaseRequest  # noqa: E402
from scheduler_core.release.versions import release_named  # noqa: E402

RELEASE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "releases"
ALL = ("v1.32", "v1.33", "v1.34", "v1.35", "v1.36")


def _timed_attempts(name: str, release: str):
    text = (RELEASE_FIXTURES / name).read_text()
    scenario = load_scenario(text, release=ReleaseRequest(release_named(release)))
    attempts, node = [], None
    for event in run_to_the_end(scenario, tie_break="first"):
        if event.extension_point is ExtensionPoint.TOTAL:
            node = event.payload.node_name
        if event.extension_point is ExtensionPoint.ATTEMPT_END:
            result = "error" if event.payload.binding_error is not None else node
            attempts.append((event.pod.split("/")[1], event.payload.time_ms, result))
            node = None
    return attempts


# backoff_flush.yaml (initial back-off 2 s): p is rejected at 0 ms; the step at 1000 ms deletes the
# hog (grace 0: gone at once), an AssignedPodDelete that NodeResourcesFit lets through while p still
# backs off (expiry 2000). v1.33 on (SchedulerPopFromBackoffQ): p enters backoffQ and, activeQ being
# empty, is popped at once (active_queue.go unlockedPop). v1.32: backoffQ is left only by the flush
# (wait.Until every 1 s from the start); the tick at 2000 comes before an expiry of 2000 + the
# moment p failed after 0 ms, so the tick at 3000 moves it (isPodBackingoff: boTime.After(now)).
BACKOFF_FLUSH = {
    "v1.32": [("p", 0, None), ("p", 3000, "n1")],
    **{release: [("p", 0, None), ("p", 1000, "n1")] for release in ALL[1:]},
}

# error_backoff_counts.yaml: p is rejected at 0 ms (n1 tainted), tried again at 1000 ms when the
# step removes the taint (v1.32: its exact 1 s back-off has just ended: activeQ; later releases pop
# it from backoffQ) and fails in PreBind (the provisioned volume needs a hostname label n1 lacks): an
# error, in the error heap (v1.32: the one heap), never popped early. v1.34 on back off the error
# streak: 1 error, 1 s, expiry 2000, flushed by the tick after it: 3000. v1.32 and v1.33 count
# Attempts: 2 attempts, 2 s, expiry 3000, flushed at 4000. The third attempt finds the volume's
# node affinity against n1.
ERROR_BACKOFF = {
    **{release: [("p", 0, None), ("p", 1000, "error"), ("p", 4000, None)] for release in ALL[:2]},
    **{release: [("p", 0, None), ("p", 1000, "error"), ("p", 3000, None)] for release in ALL[2:]},
}

# nominated_binding.yaml: "nominated" binds to its node at 0 ms; "low" was rejected meanwhile (the
# assumed pod fills n1). v1.33 and v1.34 have two pod informer handlers: the unscheduled-pod one
# sees the binding as OnDelete of the old object, which carried status.nominatedNodeName, so
# deletePodFromSchedulingQueue moves the pods of lower or equal priority (AssignedPodDelete, which
# NodeResourcesFit lets through for a nominated pod): low is tried again at once, and fails again.
# v1.32 has no such branch, v1.35 on one handler that only deletes.
NOMINATED_BINDING = {
    release: [("nominated", 0, "n1"), ("low", 0, None)] + ([("low", 0, None)] if release in ("v1.33", "v1.34") else [])
    for release in ALL
}

# no_post_filter_nomination.yaml: no PostFilter plugin, and "big" nominated to n1 fits nowhere.
# v1.35 on: clearNominatedNode, whose patch changes the nomination, and the handler's
# hasNominatedNodeNameChanged move brings big itself back once (its equal priority; the deleted
# object is nominated): a second attempt at 0 ms. v1.34 and earlier: ModeNoop, nothing changes.
NO_POST_FILTER = {release: [("big", 0, None)] * (2 if release >= "v1.35" else 1) for release in ALL}


@pytest.mark.parametrize("release", ALL)
@pytest.mark.parametrize(
    "fixture, expected",
    [
        pytest.param("backoff_flush.yaml", BACKOFF_FLUSH, id="backoff flush"),
        pytest.param("error_backoff_counts.yaml", ERROR_BACKOFF, id="error backoff counts"),
        pytest.param("nominated_binding.yaml", NOMINATED_BINDING, id="nominated binding"),
        pytest.param("no_post_filter_nomination.yaml", NO_POST_FILTER, id="no post filter"),
    ],
)
def test_each_release_runs_the_fixture_as_its_source_says(fixture, expected, release):
    assert _timed_attempts(fixture, release) == expected[release]


def test_the_nomination_stays_without_post_filter_before_v1_35():
    from scheduler_core.encoding.timeline import timeline_summary

    text = (RELEASE_FIXTURES / "no_post_filter_nomination.yaml").read_text()
    for release, nominated in (("v1.34", {"default/big": "n1"}), ("v1.35", None)):
        scenario = load_scenario(text, release=ReleaseRequest(release_named(release)))
        summary = timeline_summary(list(run_to_the_end(scenario, tie_break="first")))
        assert summary.get("nominated") == nominated, release


def test_before_v1_35_a_pod_like_the_last_one_gets_a_full_pass():
    # C8: no OpportunisticBatching before v1.35: p1 is not offered n020 (the last ranking's next
    # node) but walks the nodes from the rotating start index and takes n120.
    text = no_default_spreading() + fill_one_node_each()
    nodes = {}
    for release in ("v1.34", "v1.35"):
        scenario = load_scenario(text, release=ReleaseRequest(release_named(release)))
        events = run_to_the_end(scenario, tie_break="first")
        nodes[release] = [e.payload.node_name for e in events if e.extension_point is ExtensionPoint.TOTAL]
    assert nodes["v1.35"][1] == "n020" and nodes["v1.34"][1] == "n120"


# ---------------------------------------------------------------------------- the set-up's end


def test_the_pending_pods_are_in_the_queue_before_the_first_event_and_their_events_follow_it():
    run = ClusterRun(load_scenario(scenario_text(node_text("a"), pod_text("p1"), pod_text("p2"), pod_text("p3"))))
    events = run.run()
    first = next(events)
    assert first.extension_point is ExtensionPoint.RUN_START
    assert run.kube_scheduler.queue.where()[QueueName.ACTIVE] == ["default/p1", "default/p2", "default/p3"]
    rest = list(events)
    assert [event.pod for event in rest[:3]] == ["default/p1", "default/p2", "default/p3"]
    assert {event.extension_point for event in rest[:3]} == {ExtensionPoint.QUEUE_MOVE}
    assert rest[3].extension_point is ExtensionPoint.CYCLE_START
