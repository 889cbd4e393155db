"""plugins/node_declared_features.py: NodeDeclaredFeatures as v1.35 (alpha, behind its gate) and v1.36
(on by default) build it: what a pod needs, the Filter's statuses, the hints and the signature; then
whole runs of a small scenario, single-pass and to the end, through the CLI."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.model import Container
from scheduler_core.plugins import node_declared_features as ndf
from scheduler_core.release import rules_for
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from tests.scheduler_core.builders import make_node, make_pod

ROOT = Path(__file__).resolve().parents[3]
RESTART_ALL = ndf.RESTART_ALL_CONTAINERS
HOST_NETWORK = ndf.USER_NAMESPACES_HOST_NETWORK
V1_36_REASON = Status.unresolvable("node(s) didn't match Pod's required features")


def features_of(release: str, **gates: bool):
    return rules_for(release_named(release), gates or None).features


def plugin_of(release: str, **gates: bool) -> ndf.NodeDeclaredFeatures:
    return ndf.new(None, None, features_of(release, **gates))


V1_35_ON = dict(NodeDeclaredFeatures=True)


def restarting_pod(name="restarter", init=False, **fields):
    container = Container("c", restart_policy="Never", restart_rule_actions=("Restart", "RestartAllContainers"))
    if init:
        return make_pod(name, containers=(Container("main"),), init_containers=(container,), **fields)
    return make_pod(name, containers=(container,), **fields)


def user_namespaced_host_network_pod(name="userns"):
    return make_pod(name, host_network=True, host_users=False)


def node_declaring(*features: str, name="n1"):
    return make_node(name, declared_features=tuple(features))


# ---------------------------------------------------------------------- what a pod needs


@pytest.mark.parametrize(
    "pod, v1_35, v1_36",
    [
        pytest.param(make_pod("plain"), (), (), id="a pod with nothing special needs nothing"),
        pytest.param(restarting_pod(), (RESTART_ALL,), (RESTART_ALL,), id="a RestartAllContainers rule needs it"),
        pytest.param(
            restarting_pod(init=True), (RESTART_ALL,), (RESTART_ALL,), id="an init container's rule needs it too"
        ),
        pytest.param(
            make_pod(
                "restart-only", containers=(Container("c", restart_policy="Never", restart_rule_actions=("Restart",)),)
            ),
            (),
            (),
            id="a plain Restart rule needs nothing",
        ),
        pytest.param(
            user_namespaced_host_network_pod(),
            (),
            (HOST_NETWORK,),
            id="host network in its own user namespace needs UserNamespacesHostNetworkSupport from v1.36",
        ),
        pytest.param(make_pod("hostnet", host_network=True), (), (), id="host network with host users needs nothing"),
        pytest.param(
            make_pod("userns-only", host_users=False), (), (), id="a user namespace without host network needs nothing"
        ),
        pytest.param(
            dataclasses.replace(restarting_pod(), host_network=True, host_users=False),
            (RESTART_ALL,),
            (RESTART_ALL, HOST_NETWORK),
            id="both, in the registry's order",
        ),
    ],
)
def test_what_a_pod_needs_for_scheduling(pod, v1_35, v1_36):
    assert plugin_of("v1.35", **V1_35_ON).required(pod) == v1_35
    assert plugin_of("v1.36").required(pod) == v1_36


def test_the_node_side_ignores_names_the_framework_does_not_know():
    node = node_declaring("AFeatureFromTheFuture", RESTART_ALL, "ZzzUnknown/sub")
    assert ndf.node_features(node) == frozenset({RESTART_ALL})


def test_the_node_side_walks_the_sorted_list_as_try_map_does():
    # The API server keeps the list sorted; TryMap's walk beside the sorted registry relies on it.
    node = node_declaring(HOST_NETWORK, RESTART_ALL)
    assert ndf.node_features(node) == frozenset({HOST_NETWORK})


# ---------------------------------------------------------------------- PreFilter and Filter


def run_filter(plugin, pod, node):
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [])
    if status is not None:
        return status
    return plugin.filter(state, pod, NodeInfo(node))


def test_a_pod_needing_nothing_is_skipped_at_pre_filter():
    assert plugin_of("v1.36").pre_filter(CycleState(), make_pod("plain"), []) == (None, SKIP)


def test_the_disabled_plugin_skips_every_pod_and_registers_no_event():
    plugin = plugin_of("v1.36", NodeDeclaredFeatures=False, RestartAllContainersOnContainerExits=False)
    assert plugin.pre_filter(CycleState(), restarting_pod(), []) == (None, SKIP)
    assert plugin.filter(CycleState(), restarting_pod(), NodeInfo(make_node("n1"))) is None
    assert plugin.events_to_register() == []


@pytest.mark.parametrize(
    "pod, declared, expected",
    [
        pytest.param(restarting_pod(), (), V1_36_REASON, id="a node declaring nothing is rejected"),
        pytest.param(restarting_pod(), (RESTART_ALL,), None, id="a node declaring the feature passes"),
        pytest.param(
            restarting_pod(), ("ExtendWebSocketsToKubelet", RESTART_ALL), None, id="more features than needed pass"
        ),
        pytest.param(
            user_namespaced_host_network_pod(),
            (RESTART_ALL,),
            V1_36_REASON,
            id="a node declaring another feature is rejected",
        ),
        pytest.param(
            user_namespaced_host_network_pod(), (HOST_NETWORK,), None, id="user namespaces with host network pass"
        ),
    ],
)
def test_v1_36_filter(pod, declared, expected):
    assert run_filter(plugin_of("v1.36"), pod, node_declaring(*declared)) == expected


def test_the_rejection_is_unresolvable_so_preemption_does_not_try():
    status = run_filter(plugin_of("v1.36"), restarting_pod(), make_node("n1"))
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_v1_35_names_the_missing_features_in_its_reason():
    status = run_filter(plugin_of("v1.35", **V1_35_ON), restarting_pod(), node_declaring("SomethingElse"))
    assert status == Status.unresolvable(
        "node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits"
    )


def test_filter_without_pre_filter_state_is_an_error():
    status = plugin_of("v1.36").filter(CycleState(), restarting_pod(), NodeInfo(make_node("n1")))
    assert status == Status.error('error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found')


# ---------------------------------------------------------------------- events, hints, signature


def test_it_registers_node_add_and_declared_feature_updates_and_pod_updates():
    registered = [(r.event.resource, r.event.action) for r in plugin_of("v1.36").events_to_register()]
    assert registered == [
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
        (EventResource.POD, ActionType.UPDATE),
    ]


def test_a_declared_feature_update_matches_the_node_registration():
    [node_registration, _] = plugin_of("v1.36").events_to_register()
    event = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_DECLARED_FEATURE)
    assert event.matches(node_registration.event)
    assert not ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL).matches(node_registration.event)


@pytest.mark.parametrize(
    "old, new, hint",
    [
        pytest.param(None, node_declaring(RESTART_ALL), QueueingHint.QUEUE, id="a node added queues"),
        pytest.param(node_declaring(), node_declaring(RESTART_ALL), QueueingHint.QUEUE, id="a feature declared queues"),
        pytest.param(
            node_declaring(RESTART_ALL),
            node_declaring(RESTART_ALL),
            QueueingHint.QUEUE_SKIP,
            id="the same features skip",
        ),
        pytest.param(
            node_declaring(RESTART_ALL), node_declaring(), QueueingHint.QUEUE, id="a feature withdrawn queues"
        ),
    ],
)
def test_node_change_hint(old, new, hint):
    assert ndf.node_changed_hint(restarting_pod(), old, new) is hint


def test_pod_update_hint_queues_only_the_pod_itself_when_what_it_needs_changed():
    plugin = plugin_of("v1.36")
    pod = restarting_pod(uid="u1")
    relabelled = dataclasses.replace(pod, labels={"a": "b"})
    other = restarting_pod("other", uid="u2")
    no_longer = dataclasses.replace(pod, containers=(Container("c"),))
    assert plugin.pod_updated_hint(pod, other, other) is QueueingHint.QUEUE_SKIP
    assert plugin.pod_updated_hint(pod, pod, relabelled) is QueueingHint.QUEUE_SKIP
    assert plugin.pod_updated_hint(pod, pod, no_longer) is QueueingHint.QUEUE


def test_pods_needing_the_same_features_sign_alike():
    plugin = plugin_of("v1.36")
    assert plugin.sign_pod(restarting_pod("a")) == plugin.sign_pod(restarting_pod("b", init=True))
    assert plugin.sign_pod(make_pod("plain")) == [(signers.REQUIRED_FEATURES, ())]
    assert plugin.sign_pod(restarting_pod()) != plugin.sign_pod(make_pod("plain"))


# ---------------------------------------------------------------------- whole runs

SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: plain}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: declaring}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  declaredFeatures: [RestartAllContainersOnContainerExits]
---
apiVersion: v1
kind: Pod
metadata: {name: restarter, namespace: default}
spec:
  containers:
  - name: main
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: RestartAllContainers
      exitCodes: {operator: In, values: [42]}
---
apiVersion: v1
kind: Pod
metadata: {name: ordinary, namespace: default}
spec:
  containers:
  - {name: main, image: busybox}
"""
NOWHERE = SCENARIO.replace("  declaredFeatures: [RestartAllContainersOnContainerExits]\n", "")


def cycles(text: str, release: str, **gates: bool) -> dict[str, dict]:
    request = ReleaseRequest(release_named(release), gates or None)
    events = list(simulate(load_scenario(text, release=request)))
    return {cycle["pod"]: cycle for cycle in trace_summary(events)["cycles"]}


def test_v1_36_sends_the_pod_to_the_declaring_node_and_leaves_others_untouched():
    by_pod = cycles(SCENARIO, "v1.36")
    restarter, ordinary = by_pod["default/restarter"], by_pod["default/ordinary"]
    assert restarter["filter"] == {
        "plain": {
            "NodeDeclaredFeatures": {"code": "UnschedulableAndUnresolvable", "reasons": [V1_36_REASON.reasons[0]]}
        }
    }
    assert (restarter["feasibleNodes"], restarter["nodeName"]) == (["declaring"], "declaring")
    assert "NodeDeclaredFeatures" not in json.dumps(ordinary)  # Skip at PreFilter: in no key


def test_v1_36_failed_scheduling_text_when_no_node_declares_the_feature():
    restarter = cycles(NOWHERE, "v1.36")["default/restarter"]
    assert restarter["nodeName"] is None
    assert restarter["failedSchedulingMessage"] == (
        "0/2 nodes are available: 2 node(s) didn't match Pod's required features. "
        "no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )


def test_v1_35_with_its_gates_on_names_the_feature_in_failed_scheduling():
    gates = dict(NodeDeclaredFeatures=True, RestartAllContainersOnContainerExits=True)
    restarter = cycles(NOWHERE, "v1.35", **gates)["default/restarter"]
    assert restarter["failedSchedulingMessage"] == (
        "0/2 nodes are available: 2 node declared features check failed - unsatisfied requirements: "
        "RestartAllContainersOnContainerExits. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling."
    )


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scheduler_core", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_trace_json_through_the_cli(tmp_path):
    path = tmp_path / "ndf.yaml"
    path.write_text(SCENARIO)
    done = cli("trace", str(path), "--json", "--release", "v1.36")
    assert done.returncode == 0, done.stderr
    by_pod = {c["pod"]: c for c in json.loads(done.stdout)["cycles"]}
    assert by_pod["default/restarter"]["nodeName"] == "declaring"
    assert "NodeDeclaredFeatures" in by_pod["default/restarter"]["filter"]["plain"]


def test_timeline_through_the_cli_binds_the_pod_to_the_declaring_node(tmp_path):
    path = tmp_path / "ndf.yaml"
    path.write_text(SCENARIO)
    done = cli("timeline", str(path), "--json", "--release", "v1.36")
    assert done.returncode == 0, done.stderr
    assert '"declaring"' in done.stdout and "default/restarter" in done.stdout


DECLARED_LATER = (
    NOWHERE
    + """---
apiVersion: schedlab.io/v1alpha1
kind: Changes
steps:
- name: the kubelet of plain declares the feature
  operations:
  - patch: {kind: Node, name: plain, patch: {status: {declaredFeatures: [RestartAllContainersOnContainerExits]}}}
"""
)


def test_a_node_declaring_the_feature_later_requeues_the_pod_through_its_hint(tmp_path):
    path = tmp_path / "ndf.yaml"
    path.write_text(DECLARED_LATER)
    done = cli("timeline", str(path), "--events", "--release", "v1.36")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    [updated] = [e for e in events if e["payload"].get("kind") == "NodeUpdated"]
    assert updated["payload"]["detail"] == "NodeUpdateNodeDeclaredFeature"
    moved = [e["payload"] for e in events if e["extensionPoint"] == "QueueMove" and e["pod"] == "default/restarter"]
    [by_hint] = [move for move in moved if move["event"] == "NodeUpdateNodeDeclaredFeature"]
    assert by_hint["plugins"] == ["NodeDeclaredFeatures"]
    [end] = [e for e in events if e["extensionPoint"] == "RunEnd"]
    assert end["payload"]["final"]["default/restarter"] == "plain"


NAMED_IN_CONFIG = """\
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: NodeDeclaredFeatures}]
"""


def test_v1_35_accepts_a_configuration_naming_the_plugin_with_its_gate_off_and_skips_every_pod():
    ordinary_only = SCENARIO[: SCENARIO.index("---\napiVersion: v1\nkind: Pod\nmetadata: {name: restarter")]
    ordinary_only += SCENARIO[SCENARIO.index("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ordinary") :]
    request = ReleaseRequest(release_named("v1.35"))
    events = list(simulate(load_scenario(ordinary_only + NAMED_IN_CONFIG, release=request)))
    [cycle] = trace_summary(events)["cycles"]
    assert cycle["nodeName"] == "plain" and "NodeDeclaredFeatures" not in json.dumps(cycle)
    skipped = [e for e in events if e.plugin == "NodeDeclaredFeatures"]
    assert [(e.extension_point.value, e.payload.status["code"]) for e in skipped] == [("PreFilter", "Skip")]


def test_the_explanation_names_what_the_node_lacks():
    plugin, pod = plugin_of("v1.36"), restarting_pod()
    state = CycleState()
    plugin.pre_filter(state, pod, [])
    [fact] = plugin.filter_detail(state, pod, NodeInfo(node_declaring("ExtendWebSocketsToKubelet")))
    assert fact.reason == V1_36_REASON.reasons[0]
    assert fact.text == (
        "the pod needs RestartAllContainersOnContainerExits; the node's status.declaredFeatures: "
        "ExtendWebSocketsToKubelet"
    )
    assert plugin.filter_detail(state, pod, NodeInfo(node_declaring(RESTART_ALL))) == ()
