"""DefaultPreemption: a dry run of preemption at PostFilter (victims, candidates, nomination, message)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import ClassVar

import pytest

from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.interfaces import NodeToStatus, PostFilterResult
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.status import Code, MaybeStatus, Status
from scheduler_core.model import Pod, Taint
from scheduler_core.encoding.trace import trace_summary
from scheduler_core.plugins.default_preemption import new
from scheduler_core.plugins.default_preemption import plugin as preemption_plugin
from scheduler_core.plugins.default_preemption.plugin import DefaultPreemption
from scheduler_core.run.schedule_one import simulate
from scheduler_core.scenario import load_scenario
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.release import release_named, rules_for
from tests.scheduler_core.builders import (
    FakeHandle,
    make_node,
    make_snapshot,
    node_text,
    pod_text,
    preemptor,
    run_post_filter,
    running,
)

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NO_SCHEDULE = Taint("dedicated", "gpu", "NoSchedule")


class LabelQuota:
    """A test PreFilter/Filter plugin: at most ``limit`` pods labelled app=web in the whole cluster.

    Its PreFilter state changes through add_pod/remove_pod, so preemption must clone it.
    """

    name: ClassVar[str] = "LabelQuota"
    KEY = StateKey["LabelQuota.State"]("PreFilterLabelQuota")
    REASON = "too many web pods"

    @dataclass
    class State:
        count: int

        def clone(self) -> "LabelQuota.State":
            return LabelQuota.State(self.count)

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]):
        count = sum(1 for n in nodes for info in n.pods if info.pod.labels.get("app") == "web")
        state.write(self.KEY, LabelQuota.State(count))
        return None, None

    def pre_filter_extensions(self) -> "LabelQuota":
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        state.read(self.KEY).count += pod_to_add.pod.labels.get("app") == "web"
        return None

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        state.read(self.KEY).count -= pod_to_remove.pod.labels.get("app") == "web"
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if state.read(self.KEY).count >= self.limit:
            return Status.unschedulable(self.REASON)
        return None


# ---------------------------------------------------------------------------- when preemption cannot help

CANNOT_HELP = [
    pytest.param(
        [make_node("n1", cpu=1000)],
        [running("low", "n1", 1000, 0)],
        preemptor(preemption_policy="Never"),
        ["preemption: not eligible due to preemptionPolicy=Never."],
        "preemption: not eligible due to preemptionPolicy=Never.",
        id="a pod with preemptionPolicy Never is not eligible even when a lower-priority pod is in the way",
    ),
    pytest.param(
        [make_node("n1", taints=[NO_SCHEDULE]), make_node("n2", unschedulable=True)],
        [],
        preemptor(),
        ["preemption: no potential nodes"],
        f"preemption: 0/2 nodes are available: 2 {NOT_HELPFUL}.",
        id="nodes rejected as unresolvable are not potential nodes and count as not helpful",
    ),
    pytest.param(
        [make_node("n1", cpu=1000), make_node("n2", cpu=1000)],
        [running("same", "n1", 1000, 10), running("higher", "n2", 1000, 50)],
        preemptor(),
        ["preemption: no candidates"],
        f"preemption: 0/2 nodes are available: 2 {NO_VICTIMS}.",
        id="a node running only pods of equal or higher priority has no victims",
    ),
    pytest.param(
        [make_node("n1", cpu=1000), make_node("n2", cpu=1000, taints=[NO_SCHEDULE]), make_node("n3", cpu=1000)],
        [running("low", "n1", 300, 0), running("high", "n1", 600, 50), running("peer", "n3", 1000, 10)],
        preemptor(cpu=500),
        ["preemption: no candidates"],
        f"preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}.",
        id="a node still too small without its lower-priority pods counts with the filter's reason",
    ),
    pytest.param(
        [make_node(f"n{i}", cpu=1000) for i in range(10)] + [make_node("small", cpu=1000)],
        [running(f"peer{i}", f"n{i}", 1000, 20) for i in range(10)]
        + [running("low", "small", 100, 0), running("high", "small", 400, 50)],
        preemptor(),
        ["preemption: no candidates"],
        f"preemption: 0/11 nodes are available: 1 Insufficient cpu, 10 {NO_VICTIMS}.",
        id="the message's fragments sort as plain strings",
    ),
]


@pytest.mark.parametrize("nodes, pods, pod, summary, message", CANNOT_HELP)
def test_preemption_that_cannot_help_says_why(nodes, pods, pod, summary, message):
    outcome = run_post_filter(nodes, pods, pod)
    assert (outcome.code, outcome.reasons) == ("Unschedulable", [message])
    if pod.preemption_policy == "Never":  # not eligible: no result, the nomination is left alone
        assert outcome.result is None and summary == [message]
    else:  # no candidate: the nomination is cleared
        assert outcome.result == PostFilterResult(nominated_node_name="", summary=summary[0])


def test_after_an_unschedulable_pre_filter_rejection_every_node_is_a_potential_node():
    nodes = [make_node("n1", cpu=1000), make_node("n2", cpu=1000, taints=[NO_SCHEDULE])]
    outcome = run_post_filter(nodes, [], preemptor(), pre_filter_status=Status.unschedulable("rejected"))
    assert outcome.result.summary == "preemption: no candidates"
    assert outcome.reasons == [f"preemption: 0/2 nodes are available: 2 {NO_VICTIMS}."]


# ---------------------------------------------------------------------------- victims and nomination

NOMINATIONS = [
    pytest.param(
        [make_node("n1", cpu=1000)],
        [running("low", "n1", 800, 0)],
        preemptor(),
        "n1",
        ["default/low"],
        {"n1": ["default/low"]},
        id="the only node with a lower-priority pod in the way is nominated",
    ),
    pytest.param(
        [make_node("n1", cpu=3000)],
        [running("a", "n1", 1000, 1), running("b", "n1", 1000, 5), running("c", "n1", 1000, 100)],
        preemptor(),
        "n1",
        ["default/a"],
        {"n1": ["default/a"]},
        id="the most important lower-priority pod is reprieved first so the least important is evicted",
    ),
    pytest.param(
        [make_node("n1", cpu=2000)],
        [running("first", "n1", 1000, 1), running("second", "n1", 1000, 1)],
        preemptor(),
        "n1",
        ["default/first"],
        {"n1": ["default/first"]},
        id="equal-priority pods are reprieved in reverse node order as Go's insertion sort leaves them",
    ),
    pytest.param(
        [make_node("n1", cpu=2000)],
        [running("z", "n1", 1000, 1), running("y", "n1", 1000, 1, namespace="apps")],
        preemptor(cpu=2000),
        "n1",
        ["apps/y", "default/z"],
        {"n1": ["apps/y", "default/z"]},
        id="victims are listed as sorted namespace slash name",
    ),
    pytest.param(
        [make_node("n1", cpu=1000), make_node("n2", cpu=1000)],
        [running("mid", "n1", 1000, 5), running("low", "n2", 1000, 1)],
        preemptor(),
        "n2",
        ["default/low"],
        {"n1": ["default/mid"], "n2": ["default/low"]},
        id="the node whose highest-priority victim is lowest wins",
    ),
    pytest.param(
        [make_node("n1", cpu=1000), make_node("n2", cpu=1000)],
        [
            running("a", "n1", 500, 3),
            running("b", "n1", 500, 3),
            running("c", "n2", 500, 3),
            running("d", "n2", 500, -5),
        ],
        preemptor(),
        "n2",
        ["default/c", "default/d"],
        {"n1": ["default/a", "default/b"], "n2": ["default/c", "default/d"]},
        id="with equal highest priorities the smaller sum of victim priorities wins",
    ),
    pytest.param(
        [make_node("n1", cpu=1000), make_node("n2", cpu=1000)],
        [running("a", "n1", 500, -3), running("b", "n1", 500, -3), running("c", "n2", 1000, -3)],
        preemptor(),
        "n2",
        ["default/c"],
        {"n1": ["default/a", "default/b"], "n2": ["default/c"]},
        id="negative priorities still prefer fewer victims through the sum",
    ),
]


@pytest.mark.parametrize("nodes, pods, pod, nominated, victims, candidates", NOMINATIONS)
def test_preemption_nominates_the_best_candidate(nodes, pods, pod, nominated, victims, candidates):
    outcome = run_post_filter(nodes, pods, pod)
    assert (outcome.code, outcome.reasons) == ("Success", [])
    assert outcome.result == PostFilterResult(nominated, candidates, victims)


def test_a_tie_after_every_criterion_is_reported_instead_of_a_random_pick():
    nodes = [make_node("n1", cpu=1000), make_node("n2", cpu=1000)]
    pods = [running("a", "n1", 1000, 1), running("b", "n2", 1000, 1)]
    outcome = run_post_filter(nodes, pods, preemptor())
    assert outcome.code == "Success"
    assert outcome.result == PostFilterResult(None, {"n1": ["default/a"], "n2": ["default/b"]}, [], nomination_tie=True)


def test_a_potential_node_that_needs_no_victim_is_an_error_when_no_node_is_a_candidate():
    nodes = [make_node("n1", cpu=4000)]
    outcome = run_post_filter(
        nodes, [running("low", "n1", 100, 1)], preemptor(), pre_filter_status=Status.unschedulable("rejected")
    )
    assert (outcome.code, outcome.reasons) == ("Error", ['preemption: expected at least one victim pod on node "n1"'])
    assert outcome.result is None


def test_unresolvable_nodes_are_never_candidates_even_with_victims():
    nodes = [make_node("n1", cpu=1000, taints=[NO_SCHEDULE]), make_node("n2", cpu=1000)]
    pods = [running("a", "n1", 1000, 1), running("b", "n2", 1000, 5)]
    outcome = run_post_filter(nodes, pods, preemptor())
    assert outcome.result.candidates == {"n2": ["default/b"]}


# ---------------------------------------------------------------------------- PreFilter state in the dry run


def test_pre_filter_state_follows_removed_pods_and_the_cycle_state_is_left_untouched():
    web = {"app": "web"}
    nodes = [make_node("n1", cpu=4000), make_node("n2", cpu=4000)]
    pods = [
        running("web-low", "n1", 100, 1, labels=web),
        running("web-high", "n2", 100, 50, labels=web),
        running("other-low", "n2", 100, 1),
    ]
    outcome = run_post_filter(nodes, pods, preemptor(), extra_plugins=[LabelQuota(limit=2)])
    assert outcome.result.candidates == {"n1": ["default/web-low"]}
    assert outcome.result.nominated_node_name == "n1"
    assert outcome.state.read(LabelQuota.KEY).count == 2


def test_a_node_where_the_pod_still_fails_reports_that_filter_once_victims_are_gone():
    web = {"app": "web"}
    nodes = [make_node("n1", cpu=4000)]
    pods = [
        running("web-a", "n1", 100, 50, labels=web),
        running("web-b", "n1", 100, 50, labels=web),
        running("low", "n1", 100, 1),
    ]
    outcome = run_post_filter(nodes, pods, preemptor(), extra_plugins=[LabelQuota(limit=2)])
    assert outcome.result.summary == "preemption: no candidates"
    assert outcome.reasons == ["preemption: 0/1 nodes are available: 1 too many web pods."]


# ---------------------------------------------------------------------------- PodEligibleToPreemptOthers

DELETED_AT = datetime(2026, 11, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "victim_fields, node_status, eligible",
    [
        pytest.param(
            {"deletion_timestamp": DELETED_AT, "preempted_by_scheduler": True},
            Status.unschedulable("Insufficient cpu"),
            False,
            id="a lower-priority victim the scheduler is deleting on the nominated node: wait for it",
        ),
        pytest.param(
            {"deletion_timestamp": DELETED_AT},
            Status.unschedulable("Insufficient cpu"),
            True,
            id="terminating for another reason (no DisruptionTarget from the scheduler): not a victim",
        ),
        pytest.param(
            {"deletion_timestamp": DELETED_AT, "preempted_by_scheduler": True},
            Status.unresolvable("node(s) had untolerated taint(s)"),
            True,
            id="the nominated node became unresolvable: preempt elsewhere",
        ),
        pytest.param({}, Status.unschedulable("Insufficient cpu"), True, id="nothing terminating: eligible"),
    ],
)
def test_a_terminating_victim_on_the_nominated_node_makes_the_pod_wait(victim_fields, node_status, eligible):
    # PodEligibleToPreemptOthers (defaultpreemption/default_preemption.go): with a nominated node,
    # a lower-priority pod there that is terminating by preemption (podTerminatingByPreemption:
    # DeletionTimestamp set and DisruptionTarget=PreemptionByScheduler) keeps the pod from preempting.
    snapshot = make_snapshot([make_node("n1", cpu=1000)], [running("victim", "n1", 1000, 0, **victim_fields)])
    plugin = new(None, FakeHandle(snapshot))
    pod = preemptor(nominated_node_name="n1")
    ok, reason = plugin.eligible_to_preempt_others(
        pod, NodeToStatus({"n1": node_status}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    )
    assert (ok, reason) == (
        (True, "") if eligible else (False, "not eligible due to a terminating pod on the nominated node.")
    )


def test_preemption_policy_never_never_preempts():
    plugin = new(None, FakeHandle(make_snapshot([make_node("n1")])))
    assert plugin.eligible_to_preempt_others(
        preemptor(preemption_policy="Never"), NodeToStatus({}, Status.unschedulable("x"))
    ) == (False, "not eligible due to preemptionPolicy=Never.")


# ---------------------------------------------------------------------------- per release: PreEnqueue, events


def _plugin(release: str, **changed: bool):
    fts = dataclasses.replace(rules_for(release_named(release)).features, **changed)
    return new(None, FakeHandle(make_snapshot([make_node("n1")])), fts)


WAITING = Status.unresolvable("waiting for the preemption for this pod to be finished")


# Upstream's TestPreEnqueue (v1.36), the pod-group rows left out (their gates are off).
@pytest.mark.parametrize(
    "release, asynchronous, preempting, expected",
    [
        ("v1.36", False, "default/incoming", None),
        ("v1.36", True, "default/incoming", WAITING),
        ("v1.36", True, "default/other", None),
        ("v1.32", False, "default/incoming", None),
        ("v1.33", True, "default/incoming", WAITING),
    ],
    ids=[
        "AsyncPreemption disabled, returns nil",
        "AsyncPreemption enabled, same pod, returns UnschedulableAndUnresolvable",
        "AsyncPreemption enabled, different pod, returns nil",
        "v1.32 (async off by default): PreEnqueue never holds a pod back",
        "v1.33 (async on by default): the preemptor is held back",
    ],
)
def test_pre_enqueue_holds_a_preemptor_back_only_with_async_preemption(release, asynchronous, preempting, expected):
    plugin = _plugin(release, enable_async_preemption=asynchronous)
    plugin.executor.preempting[preempting] = None
    assert plugin.pre_enqueue(preemptor()) == expected


@pytest.mark.parametrize(
    "release, asynchronous, registered",
    [
        ("v1.32", False, False),
        ("v1.33", True, False),
        ("v1.34", True, True),
        ("v1.34", False, False),
        ("v1.35", True, True),
        ("v1.36", True, True),
    ],
    ids=[
        "v1.32: no event (EventsToRegister returns nil)",
        "v1.33: no event either, even with async preemption",
        "v1.34: Pod/Delete with a hint that never queues, under async preemption",
        "v1.34 without async preemption: no event",
        "v1.35: Pod/Delete",
        "v1.36: Pod/Delete",
    ],
)
def test_events_to_register_per_release(release, asynchronous, registered):
    events = _plugin(release, enable_async_preemption=asynchronous).events_to_register()
    if not registered:
        assert events == []
        return
    (event,) = events
    assert event.event == ClusterEvent(EventResource.POD, ActionType.DELETE)
    assert event.hint(preemptor(), running("v", "n1", 1, 0), None) == QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize("release", ["v1.32", "v1.33", "v1.34", "v1.35", "v1.36"])
def test_the_registry_hands_the_plugin_its_releases_features(release):
    features = rules_for(release_named(release)).features
    plugin = in_tree_registry(features)["DefaultPreemption"](None, FakeHandle(make_snapshot([make_node("n1")])))
    assert plugin.executor._features is features and plugin.evaluator.executor is plugin.executor


# ---------------------------------------------------------------------------- dry runs kept across attempts


def _dry_runs(monkeypatch) -> list[str]:
    """The pods whose attempts ran a dry run (not one kept from an earlier attempt)."""
    ran: list[str] = []
    dry_run = DefaultPreemption._dry_run

    def counted(plugin, framework, state, pod, *rest):
        ran.append(pod.name)
        return dry_run(plugin, framework, state, pod, *rest)

    monkeypatch.setattr(DefaultPreemption, "_dry_run", counted)
    return ran


def _too_big_for_any_node(*pods: tuple[str, str]) -> bytes:
    """Two nodes of 2 CPUs, each running a pod of priority 0 (500m) and one of priority 200 (1
    CPU); pending pods of priority 100 (name, cpu): 1500m fits nowhere, with or without victims."""
    nodes = [node_text(f"n{i}", cpu="2") for i in (1, 2)]
    low = [pod_text(f"low-{i}", cpu="500m", node_name=f"n{i}") for i in (1, 2)]
    high = [pod_text(f"high-{i}", "  priority: 200\n", cpu="1", node_name=f"n{i}") for i in (1, 2)]
    pending = [pod_text(name, "  priority: 100\n", cpu=cpu, labels="{app: twin}") for name, cpu in pods]
    return "---\n".join([*nodes, *low, *high, *pending]).encode()


def test_a_replica_after_its_twin_reads_the_twins_dry_run_back(monkeypatch):
    ran = _dry_runs(monkeypatch)
    text = _too_big_for_any_node(("a", "1500m"), ("b", "1500m"), ("c", "1500m"))
    kept = trace_summary(simulate(load_scenario(text)))
    assert ran == ["a"], "b and c dry-run what a did: the same spec, the same cluster"
    assert {cycle["failedSchedulingMessage"] for cycle in kept["cycles"]} == {
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available:"
        " 2 Insufficient cpu."
    }
    monkeypatch.setattr(preemption_plugin, "filter_inputs", lambda *args: None)  # nothing is kept
    assert trace_summary(simulate(load_scenario(text))) == kept
    assert ran == ["a", "a", "b", "c"]


def test_a_pod_bound_between_two_replicas_makes_the_second_dry_run_again(monkeypatch):
    ran = _dry_runs(monkeypatch)
    trace = trace_summary(
        simulate(load_scenario(_too_big_for_any_node(("a", "1500m"), ("fits", "500m"), ("b", "1500m"))))
    )
    assert [cycle["nodeName"] for cycle in trace["cycles"]] == [None, "n1", None]
    assert ran == ["a", "b"]
