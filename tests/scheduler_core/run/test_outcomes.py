"""A cycle's typed steps and ending (scheduler_core.run.outcomes), as Cycle.steps yields and returns
them: schedule_one.go's ScheduleResult (Bound), FitError with PostFilter's nomination, the errors."""

from __future__ import annotations

from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE, MODE_OVERRIDE
from scheduler_core.framework.diagnosis import NO_NODES_AVAILABLE
from scheduler_core.run.outcomes import (
    BindingFailed,
    BindingStepDone,
    Bound,
    CycleStarted,
    FilterDone,
    FitError,
    HostSelected,
    PostFilterDone,
    PreFilterDone,
    PreScoreDone,
    SchedulingError,
    ScoreDone,
)
from scheduler_core.scenario import load_scenario
from scheduler_core.run.schedule_one import Cycle, Scheduler
from tests.scheduler_core.builders import node_text, pod_text, preemption_scenario


def _steps(text: str, index: int = 0):
    scheduler = Scheduler(load_scenario(text))
    cycle = Cycle(scheduler, index, scheduler.queue[index])
    steps, generator = [], cycle.steps()
    while True:
        try:
            steps.append(next(generator))
        except StopIteration as done:
            return steps, done.value, cycle


def test_a_pod_that_fits_walks_every_step_and_ends_bound():
    """schedulingCycle then bindingCycle: start, PreFilter, Filter, PreScore/Score, selectHost, the binding steps."""
    steps, ending, cycle = _steps("---\n".join([node_text("n1"), node_text("n2", cpu="8"), pod_text("p")]))
    kinds = [type(step) for step in steps]
    assert kinds[:3] == [CycleStarted, PreFilterDone, FilterDone]
    assert PreScoreDone in kinds and ScoreDone in kinds
    selected = next(step for step in steps if isinstance(step, HostSelected))
    assert selected.chosen == "n2" and selected.names == ["n1", "n2"]
    assert isinstance(steps[-1], BindingStepDone) and steps[-1].node == "n2"
    assert ending == Bound("n2") and cycle.outcome is ending and ending.node_name == "n2"


def test_a_pod_that_must_preempt_ends_in_a_fit_error_carrying_the_nomination_and_victims():
    """FitError after PostFilter: DefaultPreemption nominates a (Override) with low-a as its victim."""
    steps, ending, _ = _steps(preemption_scenario())
    assert isinstance(steps[-1], PostFilterDone)
    assert isinstance(ending, FitError) and ending.node_name is None
    assert ending.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert ending.unschedulable_plugins == frozenset({"NodeResourcesFit"})
    assert (ending.nominating.nominated_node_name, ending.nominating.mode) == ("a", MODE_OVERRIDE)
    assert [victim.key for victim in ending.preemption.victims] == ["default/low-a"]
    assert not ending.after_host_selection


def test_no_node_at_all_is_a_fit_error_before_prefilter():
    """ErrNoNodesAvailable: no PreFilter, no PostFilter; the nomination is cleared."""
    steps, ending, _ = _steps(pod_text("p"))
    assert [type(step) for step in steps] == [CycleStarted]
    assert ending == FitError(NO_NODES_AVAILABLE, frozenset(), CLEAR_NOMINATED_NODE)


def test_the_failure_endings_name_no_node():
    """Only Bound carries a node; the other endings answer None (the pod stays pending)."""
    assert SchedulingError("boom").node_name is None
    assert BindingFailed("n1", "boom", rejected=False).node_name is None
    assert Bound("n1").node_name == "n1"
