"""The recorded answer beside the replay: each pending pod's PodScheduled condition (kept by the
loader) against the replay's outcome, agree or differ, the likely causes and the summary line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.answers.findings import NODE_TAINTS_MISSING, find_all
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.model import RecordedScheduling
from scheduler_core.cluster.node_lifecycle import with_controller_taints
from scheduler_core.answers.recorded import (
    Replayed,
    compare_recorded,
    replayed_from_timeline,
    replayed_from_trace,
    with_recorded,
)
from scheduler_core.encoding.timeline import timeline_summary
from tests.scheduler_core.builders import node_text, pod_text

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"
EKS = "eks_notready_recorded.yaml"
API, GPU, ETL, CANARY = (
    "shop/api-7c9d8b6f5d-q4wzp",
    "analytics/gpu-report-28890120-x7k2p",
    "analytics/etl-backfill",
    "shop/api-canary-0",
)
NOT_READY = "ip-10-0-3-77.eu-west-1.compute.internal"


def load(name: str):
    return load_scenario((DUMPS / name).read_bytes())


def single_pass(scenario):
    return compare_recorded(scenario, replayed_from_trace(trace_summary(simulate(scenario))), find_all(scenario))


def test_the_loader_keeps_the_pod_scheduled_condition():
    pods = {p.key: p for p in load(EKS).pods}
    assert pods[ETL].recorded == RecordedScheduling(
        "False",
        "Unschedulable",
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
        pods[ETL].recorded.time,
        "2026-11-23T08:12:30Z",
    )
    assert pods[ETL].recorded.time.isoformat() == "2026-11-23T08:12:30+00:00"
    assert pods[CANARY].recorded.reason == "SchedulingGated"
    assert pods["shop/api-7c9d8b6f5d-h5m2c"].recorded.status == "True"
    assert pods["kube-system/aws-node-x7q2w"].recorded is None


def test_a_pod_without_status_and_a_null_transition_time_load():
    text = (
        pod_text("p") + "status:\n  conditions:\n  - {type: PodScheduled, status: 'False', lastTransitionTime: null}\n"
    )
    [pod] = load_scenario(node_text("n1") + "---\n" + text).pods
    assert pod.recorded == RecordedScheduling("False", "", "", None, "")
    assert load_scenario(pod_text("q")).pods[0].recorded is None


def test_without_the_not_ready_taint_the_replay_differs_on_two_pods_and_says_why():
    """The dump lacks node.kubernetes.io/not-ready on ip-10-0-3-77 (Ready=False): the replay puts the
    api pod there (1805m free of 1930m, it asks 1500m) and counts the node among those that did not
    match the gpu report's selector; the etl pod (tolerates everything, asks 1900m) and the gated
    canary agree whatever the taints."""
    comparison = single_pass(load(EKS))
    outcomes = {o.pod: o for o in comparison.outcomes}
    assert [o.pod for o in comparison.outcomes] == [API, GPU, ETL, CANARY]
    assert {pod: o.agrees for pod, o in outcomes.items()} == {API: False, GPU: False, ETL: True, CANARY: True}
    assert outcomes[API].replayed == Replayed(NOT_READY, None)
    assert outcomes[GPU].replayed.message.startswith("0/3 nodes are available: 3 node(s) didn't match")
    assert any(cause.startswith(NODE_TAINTS_MISSING) for cause in outcomes[API].causes)
    assert outcomes[ETL].causes == ()
    assert comparison.summary == "the replay agrees with your cluster on 2 of 4 pending pod(s)"


def test_with_the_controllers_taints_the_replay_agrees_on_every_pending_pod():
    comparison = single_pass(with_controller_taints(load(EKS)))
    assert all(o.agrees for o in comparison.outcomes)
    assert comparison.summary == "the replay agrees with your cluster on 4 of 4 pending pod(s)"


def test_a_run_to_the_end_is_compared_by_each_pods_last_attempt():
    scenario = with_controller_taints(load(EKS))
    replayed = replayed_from_timeline(timeline_summary(run_to_the_end(scenario)))
    assert compare_recorded(scenario, replayed).agreeing == 4


def test_the_json_gets_a_recorded_object_only_when_a_pod_carries_a_condition():
    scenario = load(EKS)
    summary = trace_summary(simulate(scenario))
    out = with_recorded(dict(summary), compare_recorded(scenario, replayed_from_trace(summary), find_all(scenario)))
    assert set(out) == {"cycles", "recorded"}
    causes = out["recorded"][API].pop("causes")
    assert out["recorded"][API] == {
        "reason": "Unschedulable",
        "message": scenario_message(scenario, API),
        "time": "2026-11-23T09:41:12Z",
        "replayed": f"bound to {NOT_READY}",
        "replayedNode": NOT_READY,
        "agrees": False,
    }
    assert causes[0].startswith(f"{NODE_TAINTS_MISSING}: 1 node(s) do not carry") and len(causes) == 4
    assert causes[2].startswith("release-assumed: replayed as kube-scheduler v1.35.4")  # the dump names none
    assert out["recorded"][CANARY]["replayed"] == "not attempted (scheduling gates)"
    plain = load_scenario(node_text("n1") + "---\n" + pod_text("p"))
    plain_summary = trace_summary(simulate(plain))
    assert (
        with_recorded(dict(plain_summary), compare_recorded(plain, replayed_from_trace(plain_summary))) == plain_summary
    )


def scenario_message(scenario, key: str) -> str:
    return next(p.recorded.message for p in scenario.pods if p.key == key)


def test_a_different_node_count_is_named_as_a_likely_cause():
    text = pod_text("p", cpu="8") + (
        "status:\n  conditions:\n  - {type: PodScheduled, status: 'False', reason: "
        "Unschedulable, message: '0/5 nodes are available: 5 Insufficient cpu.'}\n"
    )
    scenario = load_scenario(node_text("n1") + "---\n" + text)
    [outcome] = single_pass(scenario).outcomes
    assert not outcome.agrees
    assert outcome.causes[0] == "your cluster had 5 node(s) when it tried; the dump holds 1"


def test_free_ports_in_the_recorded_text_point_at_a_pod_the_dump_lacks():
    spec = "  containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}]}]\n"
    text = (
        pod_text("p").split("  containers:")[0]
        + spec
        + "status:\n  conditions:\n  - {type: PodScheduled, status: 'False', reason: Unschedulable, message: "
        '"0/1 nodes are available: 1 node(s) didn\'t have free ports for the requested pod ports."}\n'
    )
    [outcome] = single_pass(load_scenario(node_text("n1") + "---\n" + text)).outcomes
    assert outcome.replayed == Replayed("n1", None)
    assert outcome.causes[0].startswith("a pod holding the host port(s) this pod asks for is not in the dump")


def test_pending_pods_without_a_condition_are_counted_apart():
    comparison = single_pass(load_scenario(node_text("n1") + "---\n" + pod_text("p")))
    assert comparison.outcomes == [] and comparison.without_condition == ["default/p"]
    assert comparison.lines() == []
    assert comparison.summary == (
        "no pending pod carries your cluster's PodScheduled condition "
        "(1 more pending pod(s) carry no PodScheduled=False condition)"
    )


def test_a_nominated_pod_names_the_preemption_under_way():
    """aks_mid_preemption.yaml: month-end-close was nominated to vmss000001 and its victim is
    terminating; the condition is the preempting attempt's text, the replay's says the nominated
    node has a terminating pod."""
    scenario = load("aks_mid_preemption.yaml")
    [outcome] = single_pass(scenario).outcomes
    assert outcome.pod == "batch/month-end-close-29377890-h7j2k" and not outcome.agrees
    assert outcome.causes[0].startswith("your cluster nominated the pod to aks-nodepool1-27318453-vmss000001")


def _cli(*args: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[3]
    return subprocess.run([sys.executable, "-m", "scheduler_core", *args], cwd=root, capture_output=True, timeout=120)


def test_the_cli_shows_the_comparison_and_the_taint_flag_brings_agreement():
    dump = str(DUMPS / EKS)
    plain = _cli("trace", dump)
    assert plain.returncode == 0
    assert "the replay agrees with your cluster on 2 of 4 pending pod(s)" in plain.stdout.decode()
    fixed = _cli("timeline", dump, "--json", "--add-node-taints")
    assert fixed.returncode == 0
    recorded = json.loads(fixed.stdout)["recorded"]
    assert sorted(recorded) == sorted([API, GPU, ETL, CANARY]) and all(r["agrees"] for r in recorded.values())
    readable = _cli("timeline", dump, "--add-node-taints").stdout.decode()
    assert readable.splitlines()[0].startswith(
        "note: --add-node-taints: ip-10-0-3-77.eu-west-1.compute.internal +node.kubernetes.io/not-ready:NoSchedule"
    )
    assert readable.rstrip().endswith("the replay agrees with your cluster on 4 of 4 pending pod(s)")


EXAMPLE_DUMP = Path(__file__).resolve().parents[3] / "examples" / "cluster-info-dump"


def test_a_dump_of_an_older_release_is_compared_with_what_that_release_writes():
    """examples/cluster-info-dump's kubelets are v1.32 and its pending pod's condition has no
    "no new claims to deallocate," (v1.32 has no DynamicResources plugin): replayed as v1.35 every
    such pod differed; replayed as the release the dump names, it agrees."""
    from scheduler_core.release.choice import ReleaseRequest
    from scheduler_core.release.versions import release_named
    from scheduler_core.scenario.sources import load_paths

    def compared(release: ReleaseRequest):
        scenario = load_paths([EXAMPLE_DUMP], release=release)
        return compare_recorded(scenario, replayed_from_trace(trace_summary(simulate(scenario))))

    [as_dumped] = compared(ReleaseRequest()).outcomes
    assert as_dumped.agrees and "no new claims to deallocate" not in as_dumped.message
    [as_v135] = compared(ReleaseRequest(release=release_named("v1.35"))).outcomes
    assert not as_v135.agrees and "no new claims to deallocate," in as_v135.replayed.message


def test_a_release_read_off_the_kubelets_is_named_among_the_causes_of_a_difference():
    node = node_text("n1").replace("status: {", "status: {nodeInfo: {kubeletVersion: v1.33.2}, ")
    scenario = load_scenario(
        node
        + "---\n"
        + pod_text("p", cpu="64")
        + "status:\n  conditions:\n  - {type: PodScheduled, status: 'False', reason: Unschedulable, "
        "message: 'something else'}\n"
    )
    [outcome] = single_pass(scenario).outcomes
    assert not outcome.agrees
    assert any(cause.startswith("release-from-kubelets: replayed as kube-scheduler v1.33") for cause in outcome.causes)


def test_each_outcome_in_the_trace_json_is_written_as_its_declaration_says():
    """RecordedOutcomeJSON: what msgspec writes of it, ``replayedNode`` only for a pod the replay
    bound and ``causes`` only when they differ, in declaration order."""
    comparison = single_pass(load(EKS))
    for outcome in comparison.outcomes:
        written = outcome.to_json()
        assert written == msgspec.json.decode(msgspec.json.encode(outcome.wire()))
        keys = ["reason", "message", "time", "replayed", "agrees", "replayedNode", "causes"]
        assert list(written) == [key for key in keys if key in written]
        assert ("replayedNode" in written) == bool(outcome.replayed and outcome.replayed.node)
        assert ("causes" in written) == bool(outcome.causes)
    assert {"replayedNode" in o.to_json() for o in comparison.outcomes} == {True, False}
