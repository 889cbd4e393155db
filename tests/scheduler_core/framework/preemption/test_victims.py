"""Victim selection rules, after pkg/scheduler/framework/preemption and plugins/defaultpreemption
(v1.35.4): MoreImportantPod with GetPodStartTime, filterPodsWithPDBViolation, isPreemptionAllowed."""

from __future__ import annotations

import operator
import random
from datetime import datetime, timedelta, timezone

import pytest

from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.status import Status
from scheduler_core.framework.preemption.victims import (
    KeptBudgets,
    Budgets,
    may_preempt,
    more_important,
    split_by_pdb_violation,
    started_before,
)
from scheduler_core.model import LabelSelector, LabelSelectorRequirement, PodDisruptionBudget
from scheduler_core.model.labels import compile_selector
from tests.scheduler_core.builders import make_node, make_pod

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


def info(
    name: str, priority: int = 0, started: int | None = None, labels: dict | None = None, namespace: str = "default"
):
    start = None if started is None else T0 + timedelta(minutes=started)
    return PodInfo(make_pod(name, namespace, labels=labels or {"app": "web"}, priority=priority, start_time=start))


def names(infos) -> list[str]:
    return [i.pod.name for i in infos]


def test_only_strictly_lower_priority_pods_may_be_preempted():
    # isPreemptionAllowed (with the default IsEligiblePod): victim.priority < preemptor.priority.
    assert may_preempt(info("low", 1).pod, info("p", 2).pod)
    assert not may_preempt(info("same", 2).pod, info("p", 2).pod)


def test_more_important_is_higher_priority_then_the_earlier_start():
    # util.MoreImportantPod: priority first, then GetPodStartTime(a).Before(GetPodStartTime(b)).
    assert more_important(info("high", 5, started=10), info("low", 1, started=0))
    assert more_important(info("early", 1, started=0), info("late", 1, started=10))
    assert not more_important(info("late", 1, started=10), info("early", 1, started=0))


def test_a_pod_without_a_start_time_reads_now():
    # GetPodStartTime returns time.Now() for a pod without status.startTime: later than any start,
    # and two such pods are each "before" the other (the comparator reads a's Now first).
    no_start, started = info("new").pod, info("old", started=0).pod
    assert started_before(started, no_start) and not started_before(no_start, started)
    assert started_before(no_start, info("also-new").pod)


def test_pdb_allowance_is_spent_pod_by_pod_in_the_given_order():
    # filterPodsWithPDBViolation: each matching pod spends one of disruptionsAllowed; once it goes
    # below zero, that pod (and every later matching one) violates the budget.
    budget = PodDisruptionBudget("default", "web", LabelSelector((("app", "web"),)), disruptions_allowed=1)
    pods = [info("a"), info("b"), info("c", labels={"app": "db"}), info("d")]
    violating, fine = split_by_pdb_violation(pods, [budget])
    assert (names(violating), names(fine)) == (["b", "d"], ["a", "c"])


def test_a_pdb_counts_only_pods_of_its_namespace_and_not_those_already_disrupted():
    budget = PodDisruptionBudget(
        "default",
        "web",
        LabelSelector((("app", "web"),)),
        disruptions_allowed=0,
        disrupted_pods=frozenset({"evicting"}),
    )
    pods = [info("elsewhere", namespace="other"), info("evicting"), info("guarded")]
    violating, fine = split_by_pdb_violation(pods, [budget])
    assert (names(violating), names(fine)) == (["guarded"], ["elsewhere", "evicting"])


def test_a_pdb_with_an_empty_or_missing_selector_selects_nothing():
    # The release skips a budget whose selector is empty (selector.Empty()) or does not convert.
    for selector in (None, LabelSelector()):
        budget = PodDisruptionBudget("default", "all", selector, disruptions_allowed=0)
        violating, fine = split_by_pdb_violation([info("a")], [budget])
        assert (names(violating), names(fine)) == ([], ["a"])


def _every_budget_in_order(infos, pdbs):
    """filterPodsWithPDBViolation as written upstream: every budget asked about every pod, in order."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating, fine = [], []
    for one in infos:
        pod, violated = one.pod, False
        for index, pdb in enumerate(pdbs):
            if not pod.labels or pdb.selector is None or pdb.selector.is_empty or pdb.namespace != pod.namespace:
                continue
            if not compile_selector(pdb.selector).matches(pod.labels) or pod.name in pdb.disrupted_pods:
                continue
            allowed[index] -= 1
            violated = violated or allowed[index] < 0
        (violating if violated else fine).append(one)
    return violating, fine


def test_kept_budgets_are_one_object_while_the_budgets_are_the_same_or_equal():
    # The dry runs' kept verdicts hold the Budgets in their keys, compared by identity: the same
    # object while the lister's budgets are as they were (the same or equal objects), a new one
    # when one changes, comes or goes.
    kept = KeptBudgets()
    low = PodDisruptionBudget("default", "low", LabelSelector((("app", "low"),)), 1)
    first = kept.of([low])
    assert first.pdbs == (low,)
    assert kept.of([low]) is first
    assert kept.of([PodDisruptionBudget("default", "low", LabelSelector((("app", "low"),)), 1)]) is first
    spent = kept.of([PodDisruptionBudget("default", "low", LabelSelector((("app", "low"),)), 0)])
    assert spent is not first and spent.pdbs[0].disruptions_allowed == 0
    assert kept.of([]) is not spent and len(kept.of([])) == 0


def test_budgets_looked_up_by_label_answer_as_every_budget_asked_in_order():
    # Budgets asks a budget only about pods carrying its selector's first equality (or, without one,
    # every pod of its namespace), and budgets sharing a selector at once: random budgets and pods,
    # the same split as asking every budget.
    rng = random.Random(7)
    values = ("a", "b", "c")

    def selector():
        kind = rng.randrange(5)
        if kind == 0:
            return None if rng.random() < 0.5 else LabelSelector()
        labels = tuple(sorted({(rng.choice(("app", "tier")), rng.choice(values)) for _ in range(rng.randint(0, 2))}))
        operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
        chosen = tuple(rng.sample(values, rng.randint(1, 2))) if operator in ("In", "NotIn") else ()
        expressions = (LabelSelectorRequirement(rng.choice(("app", "tier")), operator, chosen),) if kind > 2 else ()
        return LabelSelector(labels, expressions)

    for _ in range(600):
        # Budgets often share a selector (a workload copied with its budget): they are spent as a
        # group, those listing disrupted pods one by one.
        selectors = [selector() for _ in range(rng.randint(1, 4))]
        pdbs = [
            PodDisruptionBudget(
                rng.choice(("default", "shop")),
                f"b{i}",
                rng.choice(selectors),
                rng.randint(0, 2),
                frozenset(rng.sample(["p0", "p1", "p2"], rng.randint(0, 1))),
            )
            for i in range(rng.randint(0, 10))
        ]
        pods = [
            info(
                f"p{i}",
                namespace=rng.choice(("default", "shop")),
                labels={k: rng.choice(values) for k in ("app", "tier") if rng.random() < 0.7},
            )
            for i in range(rng.randint(0, 6))
        ]
        expected = _every_budget_in_order(pods, pdbs)
        assert split_by_pdb_violation(pods, pdbs) == expected
        assert split_by_pdb_violation(pods, Budgets(pdbs)) == expected


class _Recording:
    """A PluginsRunner whose PreFilter extensions record what they are told; the pod fits once the
    node's requested CPU is at most ``room``; an extension fails on the pod named ``refuse``."""

    def __init__(self, room: int, refuse: str = "") -> None:
        self.room, self.refuse = room, refuse
        self.told: list[tuple[str, str, str]] = []

    def _told(self, what: str, info: PodInfo, node_info) -> object:
        self.told.append((what, info.pod.name, node_info.node.name))
        return Status.error("refused") if info.pod.name == self.refuse else None

    def run_pre_filter_add_pod(self, state, pod, added, node_info):
        return self._told("add", added, node_info)

    def run_pre_filter_remove_pod(self, state, pod, removed, node_info):
        return self._told("remove", removed, node_info)

    def run_pre_filter_remove_pods(self, state, pod, removed, node_info):
        for info in removed:
            status = self._told("remove", info, node_info)
            if status is not None:
                return status
        return None

    def run_filter_with_nominated_pods(self, state, pod, node_info):
        return None if node_info.requested.get("cpu", 0) <= self.room else Status.unschedulable("no room")


def _node_with(*pods):
    from scheduler_core.framework.node_info import NodeInfo

    node = NodeInfo(make_node("n1"))
    for pod in pods:
        node.add_pod(PodInfo(pod))
    return node


def _running(name: str, priority: int, cpu: int, started: int):
    return make_pod(
        name, node="n1", requests={"cpu": cpu}, priority=priority, start_time=T0 + timedelta(minutes=started)
    )


def test_every_lower_priority_pod_is_taken_off_and_each_extension_told_in_node_order():
    # The node's pods go at once (NodeInfo.remove_pods) and the PreFilter extensions are told of
    # the lower-priority pods in the node's order, then of each reprieve, as upstream's loop tells them.
    from scheduler_core.framework.cycle_state import CycleState
    from scheduler_core.framework.preemption.victims import select_victims_on_node

    node = _node_with(
        _running("low-a", 1, 300, 1),
        _running("high", 100, 200, 2),
        _running("low-b", 2, 300, 3),
        _running("low-c", 1, 300, 4),
    )
    runner = _Recording(room=500)
    preemptor = make_pod("p", priority=50, requests={"cpu": 300})
    victims, status = select_victims_on_node(runner, CycleState(), preemptor, node)
    assert status is None and victims is not None
    assert runner.told[:3] == [("remove", "low-a", "n1"), ("remove", "low-b", "n1"), ("remove", "low-c", "n1")]
    # Reprieved most important first: low-b (priority 2) fits back (200 + 300), the others do not.
    assert runner.told[3:] == [
        ("add", "low-b", "n1"),
        ("add", "low-a", "n1"),
        ("remove", "low-a", "n1"),
        ("add", "low-c", "n1"),
        ("remove", "low-c", "n1"),
    ]
    assert [pod.name for pod in victims.pods] == ["low-a", "low-c"]
    assert [info.pod.name for info in node.pods] == ["high", "low-b"]


def test_an_extension_that_fails_on_a_removed_pod_ends_the_node_with_its_status():
    from scheduler_core.framework.cycle_state import CycleState
    from scheduler_core.framework.preemption.victims import select_victims_on_node

    node = _node_with(_running("low-a", 1, 300, 1), _running("low-b", 1, 300, 2), _running("low-c", 1, 300, 3))
    runner = _Recording(room=1000, refuse="low-b")
    victims, status = select_victims_on_node(runner, CycleState(), make_pod("p", priority=50), node)
    assert victims is None and status is not None and status.message == "refused"
    assert runner.told == [("remove", "low-a", "n1"), ("remove", "low-b", "n1")]  # none after the failure


def test_kept_budgets_answer_a_tuple_they_were_given_by_identity(monkeypatch):
    # The snapshot's budgets are a tuple replaced at each change: given the same tuple again, the
    # kept Budgets come back without a budget being compared (none is asked for its equality).
    kept = KeptBudgets()
    budgets = tuple(PodDisruptionBudget("default", f"b{i}", LabelSelector((("app", "x"),)), 1) for i in range(50))
    first = kept.of(budgets)
    monkeypatch.setattr(operator, "is_", lambda a, b: pytest.fail("compared one by one"))
    assert kept.of(budgets) is first
    monkeypatch.undo()
    assert kept.of(list(budgets)) is first and kept.of(tuple(budgets[:49])) is not first
