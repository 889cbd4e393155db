"""The preemption evaluator (framework/preemption/preemption.go's Evaluator): Preempt's flow with a
policy, SelectCandidate's tie-break from the framework's options, prepareCandidateAsync's preempting
set and its goroutine's API calls, IsPodRunningPreemption."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable, Generator, Iterator

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.preemption.candidates import Candidate, DryRun
from scheduler_core.framework.preemption.evaluator import MESSAGE_PREFIX, TRACE_NO_POTENTIAL_NODES, Evaluator
from scheduler_core.framework.preemption.victims import Victims
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import Pod
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot, preemptor, running

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
    """The run's side of the goroutine: records each call; ``go`` keeps the goroutine to run later."""

    def __init__(self, nominees: list[Pod] = ()) -> None:
        self.calls: list[str] = []
        self.started: list[tuple[Callable[[], None], Callable[[], Iterator[object]]]] = []
        self.nominees = list(nominees)

    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[object]]) -> None:
        self.started.append((begin, land))

    def lower_priority_nominated_pods(self, preemptor: Pod, node: str) -> list[Pod]:
        self.calls.append(f"nominees on {node}")
        return self.nominees

    def clear_nominated_node_name(self, pod: Pod) -> Iterator[object]:
        self.calls.append(f"clear {pod.key}")
        yield f"cleared {pod.key}"

    def preempt_pods(self, preemptor: Pod, victims: list[Pod]) -> Generator[object, None, list[Pod]]:
        for victim in victims:
            self.calls.append(f"preempt {victim.key}")
            yield f"deleted {victim.key}"
        return victims

    def preemption_done(self, preemptor: Pod, deleted: list[Pod]) -> Iterator[object]:
        self.calls.append(f"done {[victim.key for victim in deleted]}")
        return iter(())


def _evaluator(pods, options: FrameworkOptions = FrameworkOptions(), policy=None, nodes=("n1", "n2")) -> Evaluator:
    snapshot = make_snapshot([make_node(name, cpu=1000) for name in nodes], pods)
    return Evaluator(FakeHandle(snapshot, options=options), policy or OneVictimPerNode())


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
    assert result.victims == ["default/a"] and evaluator.preempting == {}
    assert not evaluator.is_pod_running_preemption(pod)


def test_prepare_candidate_async_marks_the_pod_then_its_goroutine_clears_nominations_and_deletes():
    """prepareCandidateAsync: the pod is preempting at once (PreEnqueue keeps it out); the goroutine
    clears lower-priority nominations, records the last victim, preempts, then leaves the set."""
    nominee = make_pod("nominee", priority=1)
    api = RecordingAPI([nominee])
    evaluator = _evaluator([running("a", "n1", 1000, 0)], FrameworkOptions(preemption_api=api), nodes=("n1",))
    pod = preemptor()
    evaluator.preempt(CycleState(), pod, UNSCHEDULABLE)
    assert evaluator.preempting == {pod.key: None} and evaluator.is_pod_running_preemption(pod)
    ((begin, land),) = api.started
    begin()
    writes = land()
    assert next(writes) == "cleared default/nominee"
    assert next(writes) == "deleted default/a"
    assert evaluator.preempting[pod.key].key == "default/a"  # the last victim, not yet being deleted
    assert list(writes) == []
    assert evaluator.preempting == {}
    assert api.calls == ["nominees on n1", "clear default/nominee", "preempt default/a", "done ['default/a']"]


def test_victims_already_being_deleted_get_no_goroutine():
    """prepareCandidateAsync skips a victim with a DeletionTimestamp; with none left nothing starts."""
    api = RecordingAPI()
    victim = running("a", "n1", 1000, 0, deletion_timestamp=datetime(2026, 1, 1, tzinfo=timezone.utc))
    evaluator = _evaluator([victim], FrameworkOptions(preemption_api=api), nodes=("n1",))
    evaluator.preempt(CycleState(), preemptor(), UNSCHEDULABLE)
    assert api.started == [] and evaluator.preempting == {}


def test_a_preemption_is_over_once_its_last_victim_is_terminating_or_gone():
    """IsPodRunningPreemption: the last victim being deleted, or gone from the lister, ends it."""
    victim = running("a", "n1", 1000, 0)
    evaluator = _evaluator([victim], nodes=("n1",))
    pod = preemptor()
    evaluator.preempting[pod.key] = victim
    assert evaluator.is_pod_running_preemption(pod)
    evaluator.preempting[pod.key] = running("b", "n1", 1000, 0)  # a pod the node does not hold
    assert not evaluator.is_pod_running_preemption(pod)
    terminating = running("a", "n1", 1000, 0, deletion_timestamp=datetime(2026, 1, 1, tzinfo=timezone.utc))
    evaluator._handle.snapshot.update_pod(victim, terminating)  # the lister's newer version of the victim
    evaluator.preempting[pod.key] = victim
    assert not evaluator.is_pod_running_preemption(pod)
