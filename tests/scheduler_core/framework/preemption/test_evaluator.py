"""The preemption evaluator (framework/preemption/preemption.go's Evaluator): Preempt's flow with a
policy, SelectCandidate's tie-break from the framework's options, the pick handed to the executor
(its calls: test_executor.py) and, before v1.34, the nomination findCandidates clears itself."""

from __future__ import annotations

import dataclasses
from typing import Callable, Generator, Iterator

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.preemption.candidates import Candidate, DryRun
from scheduler_core.framework.preemption.evaluator import MESSAGE_PREFIX, TRACE_NO_POTENTIAL_NODES, Evaluator
from scheduler_core.framework.preemption.victims import Victims
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import Pod
from scheduler_core.release import release_named, rules_for
from tests.scheduler_core.builders import FakeHandle, make_node, make_snapshot, preemptor, running

UNSCHEDULABLE = NodeToStatus({}, Status(Code.UNSCHEDULABLE, ("Insufficient cpu",)))


class OneVictimPerNode:
    """A policy whose dry run makes every potential node a candidate with its first pod as victim."""

    def __init__(self, eligible: bool = True) -> None:
        self.eligible = eligible

    def eligible_to_preempt_others(self, pod: Pod, statuses: NodeToStatus) -> tuple[bool, str]:
        return (True, "") if self.eligible else (False, "not eligible")

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential: list[NodeInfo]) -> DryRun:
        return DryRun([Candidate(info.name, Victims((info.pods[0].pod,))) for info in potential if info.pods])


class RecordingAPI:
    """The run's side: records each call; ``go`` keeps the goroutine, ``now`` runs the calls at once."""

    def __init__(self, gone: frozenset[str] = frozenset()) -> None:
        self.gone = gone
        self.calls: list[str] = []
        self.started: list[tuple[Callable[[], None], Callable[[], Iterator[object]]]] = []

    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[object]]) -> None:
        self.started.append((begin, land))

    def now(self, calls: Callable[[], Generator[object, None, object]]):
        made = calls()
        while True:
            try:
                next(made)
            except StopIteration as done:
                return done.value

    def lower_priority_nominated_pods(self, preemptor: Pod, node: str) -> list[Pod]:
        return []

    def clear_nominated_node_name(self, pod: Pod) -> Iterator[object]:
        self.calls.append(f"clear {pod.key}")
        yield f"cleared {pod.key}"

    def preempt_in_memory(self, victim: Pod, cancel_pre_bind: bool) -> bool:
        return False

    def mark_disruption_target(self, preemptor: Pod, victim: Pod) -> Generator[object, None, bool]:
        if victim.key in self.gone:
            return False
        self.calls.append(f"patch {victim.key}")
        yield victim.key
        return True

    def delete_victim(self, preemptor: Pod, victim: Pod) -> Generator[object, None, bool]:
        self.calls.append(f"delete {victim.key}")
        yield victim.key
        return True

    def activate(self, preemptor: Pod) -> Iterator[object]:
        return iter(())

    def preemption_done(self, preemptor: Pod) -> Iterator[object]:
        return iter(())


def _evaluator(
    pods, options: FrameworkOptions = FrameworkOptions(), policy=None, nodes=("n1", "n2"), release="v1.35", **changed
) -> Evaluator:
    snapshot = make_snapshot([make_node(name, cpu=1000) for name in nodes], pods)
    fts = dataclasses.replace(rules_for(release_named(release)).features, **changed)
    return Evaluator(FakeHandle(snapshot, options=options), policy or OneVictimPerNode(), fts)


def test_an_ineligible_pod_gets_the_policys_reason_and_no_result():
    """Evaluator.Preempt step 1: PodEligibleToPreemptOthers false -> <nil, Unschedulable(msg)>."""
    evaluator = _evaluator([running("a", "n1", 1000, 0)], policy=OneVictimPerNode(eligible=False))
    result, status = evaluator.preempt(CycleState(), preemptor(), UNSCHEDULABLE)
    assert result is None and status.code == Code.UNSCHEDULABLE and status.message == MESSAGE_PREFIX + "not eligible"


def test_no_potential_node_clears_the_nomination():
    """Preempt with every node unresolvable: NewPostFilterResultWithNominatedNode("") and the FitError."""
    evaluator = _evaluator([running("a", "n1", 1000, 0)])
    unresolvable = NodeToStatus({}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had taints",)))
    result, status = evaluator.preempt(CycleState(), preemptor(), unresolvable)
    assert (result.nominated_node_name, result.summary) == ("", TRACE_NO_POTENTIAL_NODES)
    assert status.message == MESSAGE_PREFIX + "0/2 nodes are available: 2 Preemption is not helpful for scheduling."


def test_a_tie_is_left_open_without_the_options_tie_break_and_taken_in_node_order_with_it():
    """SelectCandidate: equal candidates are the release's random pick; the run's rule is node order."""
    pods = [running("a", "n1", 1000, 0), running("b", "n2", 1000, 0)]
    open_tie, _ = _evaluator(pods).preempt(CycleState(), preemptor(), UNSCHEDULABLE)
    assert (open_tie.nominated_node_name, open_tie.nomination_tie) == (None, True)
    ordered = _evaluator(pods, FrameworkOptions(preemption_ties_in_node_order=True))
    taken, status = ordered.preempt(CycleState(), preemptor(), UNSCHEDULABLE)
    assert (taken.nominated_node_name, taken.victims, status) == ("n1", ["default/a"], None)


def test_a_dry_run_marks_nothing_and_starts_no_goroutine():
    """Without a preemption API (a single pass) the result only reports the victims."""
    evaluator = _evaluator([running("a", "n1", 1000, 0)], nodes=("n1",))
    pod = preemptor()
    result, _ = evaluator.preempt(CycleState(), pod, UNSCHEDULABLE)
    assert result.victims == ["default/a"] and evaluator.executor.preempting == {}
    assert not evaluator.executor.is_pod_running_preemption(pod)


@pytest.mark.parametrize(
    "release, calls",
    [
        ("v1.32", ["clear default/incoming"]),
        ("v1.33", ["clear default/incoming"]),
        ("v1.34", []),
        ("v1.36", []),
    ],
    ids=[
        "v1.32: findCandidates clears the nomination itself, in the cycle",
        "v1.33: the same",
        "v1.34: left to the failure handler's patch (kubernetes#131278)",
        "v1.36: the same",
    ],
)
def test_no_potential_node_clears_the_nomination_in_the_cycle_before_v1_34(release, calls):
    api = RecordingAPI()
    evaluator = _evaluator([running("a", "n1", 1000, 0)], FrameworkOptions(preemption_api=api), release=release)
    unresolvable = NodeToStatus({}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had taints",)))
    result, _ = evaluator.preempt(CycleState(), preemptor(nominated_node_name="n1"), unresolvable)
    assert result.nominated_node_name == "" and api.calls == calls and api.started == []


def test_no_candidate_among_potential_nodes_leaves_the_nomination_to_the_failure_handler():
    """findCandidates clears only when no node is a potential one, not when the dry run finds none."""
    api = RecordingAPI()
    evaluator = _evaluator([], FrameworkOptions(preemption_api=api), release="v1.32")
    result, _ = evaluator.preempt(CycleState(), preemptor(nominated_node_name="n1"), UNSCHEDULABLE)
    assert result.nominated_node_name == "" and api.calls == []


@pytest.mark.parametrize("release", ["v1.32", "v1.34"])
def test_a_failed_call_in_the_cycle_is_postfilters_error_and_keeps_the_nomination(release):
    """prepareCandidate's error: <nil, Error> (the nomination is left as it was)."""
    api = RecordingAPI(gone=frozenset({"default/a"}))
    options = FrameworkOptions(preemption_api=api)
    pods = [running("a", "n1", 1000, 0)]
    evaluator = _evaluator(pods, options, nodes=("n1",), release=release, enable_async_preemption=False)
    result, status = evaluator.preempt(CycleState(), preemptor(), UNSCHEDULABLE)
    assert result is None
    assert (status.code, status.message) == (Code.ERROR, MESSAGE_PREFIX + 'pods "a" not found')


def test_the_pick_goes_to_the_executor_with_its_victims():
    """Preempt step 5: the chosen node's victims are preempted (here in a goroutine, v1.35)."""
    api = RecordingAPI()
    evaluator = _evaluator([running("a", "n1", 1000, 0)], FrameworkOptions(preemption_api=api), nodes=("n1",))
    pod = preemptor()
    result, status = evaluator.preempt(CycleState(), pod, UNSCHEDULABLE)
    assert (result.nominated_node_name, status) == ("n1", None)
    assert evaluator.executor.is_pod_running_preemption(pod)
    ((begin, land),) = api.started
    begin()
    list(land())
    assert api.calls == ["patch default/a", "delete default/a"]
