"""The preemption executor (prepareCandidate, prepareCandidateAsync, PreemptPod,
IsPodRunningPreemption; v1.36's executor.go) per release.

The tables are upstream's TestPrepareCandidate (framework/preemption/preemption_test.go) of each
release, run as the release runs them: in the cycle without SchedulerAsyncPreemption (the v1.32
default), in a goroutine with it. The fake API stands for the clientset: a victim "gone" is absent
from the API (NotFound), the others are there; it records every call.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Callable, Generator, Iterator, Optional

import pytest

from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.preemption.executor import Executor, in_deletion_order
from scheduler_core.framework.status import Code
from scheduler_core.model import Pod
from scheduler_core.release import Features, release_named, rules_for
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot, preemptor, running

DELETING = datetime(2026, 1, 1, tzinfo=timezone.utc)


def features(release: str, **changed: bool) -> Features:
    return dataclasses.replace(rules_for(release_named(release)).features, **changed)


class FakeAPI:
    """The run's side: records each call; ``go`` keeps the goroutine, ``now`` runs the calls at once."""

    def __init__(
        self,
        gone: frozenset[str] = frozenset(),
        nominees: tuple[Pod, ...] = (),
        in_memory: frozenset[str] = frozenset(),
        watch: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.gone = set(gone)
        self.nominees = list(nominees)
        self.in_memory = in_memory
        self.watch = watch or (lambda call: None)  # told each call as it is made
        self.calls: list[str] = []
        self.started: list[tuple[Callable[[], None], Callable[[], Iterator[object]]]] = []
        self.made_now: list[object] = []
        self.cancel_pre_bind: list[bool] = []

    def _call(self, call: str) -> str:
        self.calls.append(call)
        self.watch(call)
        return call

    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[object]]) -> None:
        self.started.append((begin, land))

    def now(self, calls: Callable[[], Generator[object, None, object]]):
        made = calls()
        while True:
            try:
                self.made_now.append(next(made))
            except StopIteration as done:
                return done.value

    def run_goroutines(self) -> list[object]:
        events: list[object] = []
        for begin, land in self.started:
            begin()
            events.extend(land())
        return events

    def lower_priority_nominated_pods(self, preemptor: Pod, node: str) -> list[Pod]:
        self._call(f"nominees on {node}")
        return self.nominees

    def clear_nominated_node_name(self, pod: Pod) -> Iterator[object]:
        yield self._call(f"clear {pod.key}")

    def preempt_in_memory(self, victim: Pod, cancel_pre_bind: bool) -> bool:
        self.cancel_pre_bind.append(cancel_pre_bind)
        if victim.key in self.in_memory:
            self._call(f"in memory {victim.key}")
            return True
        return False

    def mark_disruption_target(self, preemptor: Pod, victim: Pod) -> Generator[object, None, bool]:
        if victim.key in self.gone:
            self._call(f"patch {victim.key}: not found")
            return False
        yield self._call(f"patch {victim.key}")
        return True

    def delete_victim(self, preemptor: Pod, victim: Pod) -> Generator[object, None, bool]:
        if victim.key in self.gone:
            self._call(f"delete {victim.key}: not found")
            return False
        yield self._call(f"delete {victim.key}")
        return True

    def activate(self, preemptor: Pod) -> Iterator[object]:
        yield self._call(f"activate {preemptor.key}")

    def preemption_done(self, preemptor: Pod) -> Iterator[object]:
        self._call("done")
        return iter(())


def executor_for(victims, api: FakeAPI, fts: Features) -> Executor:
    snapshot = make_snapshot([make_node("node1", cpu=100_000)], [v for v in victims if v.key not in api.gone])
    return Executor(FakeHandle(snapshot, options=FrameworkOptions(preemption_api=api)), fts)


VICTIM1 = running("victim1", "node1", 100, 1)
VICTIM2 = running("victim2", "node1", 100, 1)
WITH_CONDITION = running("victim1", "node1", 100, 1, preempted_by_scheduler=True)
BEING_DELETED = running("victim1", "node1", 100, 1, deletion_timestamp=DELETING)
NOT_FOUND = 'pods "victim1" not found'  # the evaluator prefixes "preemption: "

# Upstream's TestPrepareCandidate rows: (victims, the victims the API no longer has) -> per group of
# releases, the calls made and the cycle's status (prepareCandidate, without async preemption).
PREPARE = [
    pytest.param(
        (VICTIM1,),
        frozenset(),
        {r: (["patch default/victim1", "delete default/victim1"], None) for r in ("v1.32", "v1.34", "v1.35", "v1.36")},
        id="one victim without condition: its condition, then its delete, in every release",
    ),
    pytest.param(
        (WITH_CONDITION,),
        frozenset(),
        {r: (["delete default/victim1"], None) for r in ("v1.32", "v1.34", "v1.35", "v1.36")},
        id="one victim with same condition: only the delete",
    ),
    pytest.param(
        (BEING_DELETED,),
        frozenset(),
        {
            "v1.32": (["patch default/victim1", "delete default/victim1"], None),
            "v1.34": (["patch default/victim1", "delete default/victim1"], None),
            "v1.35": ([], None),
            "v1.36": ([], None),
        },
        id="one victim already being deleted: calls up to v1.34, none from v1.35 (kubernetes#134927)",
    ),
    pytest.param(
        (VICTIM1,),
        frozenset({"default/victim1"}),
        {
            "v1.32": (["patch default/victim1: not found"], NOT_FOUND),
            "v1.34": (["patch default/victim1: not found"], NOT_FOUND),
            "v1.35": (["patch default/victim1: not found"], None),
            "v1.36": (["patch default/victim1: not found"], None),
        },
        id="one victim already deleted: the status patch's NotFound fails it up to v1.34, not from v1.35",
    ),
    pytest.param(
        (WITH_CONDITION,),
        frozenset({"default/victim1"}),
        {r: (["delete default/victim1: not found"], None) for r in ("v1.32", "v1.34", "v1.35", "v1.36")},
        id="not-found victim error is ignored when deleting, in every release",
    ),
    pytest.param(
        (VICTIM1, VICTIM2),
        frozenset({"default/victim1"}),
        {
            "v1.32": (["patch default/victim1: not found"], NOT_FOUND),
            "v1.34": (["patch default/victim1: not found"], NOT_FOUND),
            "v1.35": (["patch default/victim1: not found", "patch default/victim2", "delete default/victim2"], None),
            "v1.36": (["patch default/victim1: not found", "patch default/victim2", "delete default/victim2"], None),
        },
        id="two victims, the first already deleted: up to v1.34 the failure cancels the second's calls",
    ),
]


@pytest.mark.parametrize("victims, gone, expected", PREPARE)
@pytest.mark.parametrize("release", ["v1.32", "v1.34", "v1.35", "v1.36"])
def test_prepare_candidate_in_the_cycle(victims, gone, expected, release):
    """Without SchedulerAsyncPreemption the cycle makes the calls (``now``), then clears the
    lower-priority nominations unless a call failed; nothing is marked as preempting."""
    calls, status = expected[release]
    api = FakeAPI(gone, nominees=(make_pod("nominee", priority=0),))
    executor = executor_for(victims, api, features(release, enable_async_preemption=False))
    got = executor.actuate(preemptor(), "node1", victims)
    nominees = [] if status else ["nominees on node1", "clear default/nominee"]
    assert api.calls == [*calls, *nominees, "done"]
    assert (got.code, got.message) == (Code.ERROR, status) if status else got is None
    assert api.started == [] and executor.preempting == {}


@pytest.mark.parametrize("victims, gone, expected", PREPARE)
@pytest.mark.parametrize("release", ["v1.33", "v1.34", "v1.35", "v1.36"])
def test_prepare_candidate_async_in_a_goroutine(victims, gone, expected, release):
    """With SchedulerAsyncPreemption a goroutine clears the nominations first, then makes the same
    calls; a failed one activates the preemptor; with no call to make (v1.35+) none starts."""
    calls, status = expected["v1.34" if release == "v1.33" else release]
    api = FakeAPI(gone, nominees=(make_pod("nominee", priority=0),))
    executor = executor_for(victims, api, features(release))
    pod = preemptor()
    assert executor.actuate(pod, "node1", victims) is None
    if not calls:
        assert api.started == [] and executor.preempting == {} and api.calls == []
        return
    assert executor.preempting == {pod.key: None} and executor.is_pod_running_preemption(pod)
    api.run_goroutines()
    activation = ["activate default/incoming"] if status else []
    assert api.calls == ["nominees on node1", "clear default/nominee", *calls, *activation, "done"]
    assert executor.preempting == {} and not executor.is_pod_running_preemption(pod)


@pytest.mark.parametrize(
    "release, held_during",
    [
        ("v1.33", [True, True, False, False]),
        ("v1.34", [True, True, False, False]),
        ("v1.35", [True, True, True, True]),
        ("v1.36", [True, True, True, True]),
    ],
    ids=[
        "v1.33: the preemptor is let go before its last victim's calls",
        "v1.34: the same",
        "v1.35: it is held until its last victim is being deleted (kubernetes#134730)",
        "v1.36: the same",
    ],
)
def test_when_the_goroutine_lets_its_preemptor_go(release, held_during):
    """IsPodRunningPreemption as each call is made (what an event delivered then would find). The
    last victim is the least important (victim2 here), preempted after victim1."""
    pod = preemptor()
    seen: list[bool] = []
    api = FakeAPI(watch=lambda call: seen.append(executor.is_pod_running_preemption(pod)))
    executor = executor_for((VICTIM1, VICTIM2), api, features(release))
    executor.actuate(pod, "node1", (VICTIM1, VICTIM2))
    api.run_goroutines()
    assert api.calls[1:5] == [
        "patch default/victim1",
        "delete default/victim1",
        "patch default/victim2",
        "delete default/victim2",
    ]
    assert seen[1:5] == held_during
    assert not executor.is_pod_running_preemption(pod)


def test_the_run_preempts_the_victims_of_one_preemption_in_namespace_name_order():
    """The spec's kubelet removes them in that order; the last victim is still the least important."""
    b, a = running("b", "node1", 100, 1), running("a", "node1", 100, 1)
    assert [pod.key for pod in in_deletion_order([b, a])] == ["default/a", "default/b"]
    api = FakeAPI()
    executor = executor_for((b, a), api, features("v1.35"))
    pod = preemptor()
    executor.actuate(pod, "node1", (b, a))
    begin, land = api.started[0]
    begin()
    writes = land()
    assert [next(writes), next(writes)] == ["patch default/a", "delete default/a"]
    assert executor.preempting[pod.key] is a  # the last victim: the last in the policy's order


@pytest.mark.parametrize(
    "release, calls, cancel_pre_bind",
    [
        ("v1.35", ["in memory default/victim1"], False),
        ("v1.36", ["in memory default/victim1"], True),
    ],
    ids=[
        "v1.35: a waiting pod is rejected without an API call",
        "v1.36: a pod in PreBind too has its binding cancelled (kubernetes#135502)",
    ],
)
def test_a_victim_preempted_in_memory_gets_no_api_call(release, calls, cancel_pre_bind):
    api = FakeAPI(in_memory=frozenset({"default/victim1"}))
    executor = executor_for((VICTIM1,), api, features(release, enable_async_preemption=False))
    assert executor.actuate(preemptor(), "node1", (VICTIM1,)) is None
    assert api.calls == [*calls, "nominees on node1", "done"]
    assert api.cancel_pre_bind == [cancel_pre_bind]


def test_a_dry_run_has_no_api_and_marks_nothing():
    executor = Executor(FakeHandle(make_snapshot([make_node("node1")], [VICTIM1])), features("v1.35"))
    assert executor.actuate(preemptor(), "node1", (VICTIM1,)) is None
    assert executor.preempting == {}
    executor.clear_nomination_now(preemptor())  # nothing to call


def test_the_cycles_nomination_clear_goes_through_now():
    """findCandidates' ClearNominatedNodeName (before v1.34) is a call of the cycle itself."""
    api = FakeAPI()
    executor = executor_for((), api, features("v1.33"))
    executor.clear_nomination_now(make_pod("p", nominated_node_name="node1"))
    assert api.calls == ["clear default/p"] and api.made_now == ["clear default/p"] and api.started == []


# Upstream's TestIsPodRunningPreemption (v1.35): the preempting set, the last victim, the lister.
@pytest.mark.parametrize(
    "marked, last_victim, in_lister, expected",
    [
        (False, None, (), False),
        (False, VICTIM1, (VICTIM1,), False),
        (True, None, (VICTIM1,), True),
        (True, VICTIM1, (), False),
        (True, VICTIM1, (VICTIM1, VICTIM2), True),
        (True, VICTIM1, (BEING_DELETED,), False),
    ],
    ids=[
        "preemptor not in preemptingSet",
        "preemptor not in preemptingSet, lastVictimSet not empty",
        "preemptor in preemptingSet, no lastVictim for preemptor",
        "preemptor in preemptingSet, victim in lastVictimSet, not in PodLister",
        "preemptor in preemptingSet, victim in lastVictimSet and in PodLister",
        "preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion timestamp",
    ],
)
def test_is_pod_running_preemption(marked, last_victim, in_lister, expected):
    executor = Executor(FakeHandle(make_snapshot([make_node("node1")], in_lister)), features("v1.35"))
    pod = preemptor()
    if marked:
        executor.preempting[pod.key] = last_victim
    assert executor.is_pod_running_preemption(pod) is expected
