"""The scheduling loop: numFeasibleNodesToFind, the rotating start index, host selection."""

from __future__ import annotations

import pytest

from scheduler_core.model import Scenario, SchedulerConfig, SchedulerConfiguration
from scheduler_core.scheduler import Scheduler, num_feasible_nodes_to_find, simulate
from scheduler_core.trace import trace_summary
from tests.scheduler_core.builders import make_node, make_pod


@pytest.mark.parametrize("percentage, nodes, expected", [
    pytest.param(0, 50, 50, id="under 100 nodes every node is checked"),
    pytest.param(0, 100, 100, id="at 100 nodes adaptive 50 percent is raised to the 100-node minimum"),
    pytest.param(0, 1000, 420, id="at 1000 nodes adaptive is 50 minus 1000/125 = 42 percent"),
    pytest.param(0, 6250, 312, id="at 6250 nodes adaptive bottoms out at 5 percent"),
    pytest.param(0, 5000, 500, id="at 5000 nodes adaptive is 10 percent"),
    pytest.param(100, 6250, 6250, id="100 percent checks every node"),
    pytest.param(30, 1000, 300, id="an explicit percentage is used as given"),
    pytest.param(1, 1000, 100, id="an explicit percentage never goes under 100 nodes"),
])
def test_num_feasible_nodes_to_find(percentage, nodes, expected):
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def _cluster(count: int, pending: int, percentage: int = 0) -> Scenario:
    nodes = [make_node(f"n{i:04d}", {"kubernetes.io/hostname": f"n{i:04d}"}, doc_index=i) for i in range(count)]
    pods = [make_pod(f"p{i}", requests={"cpu": 100}, doc_index=i) for i in range(pending)]
    return Scenario(nodes, pods, {}, config=SchedulerConfiguration((SchedulerConfig(percentage_of_nodes_to_score=percentage),)))


def test_it_evaluates_only_num_feasible_nodes_and_rotates_the_start_index():
    scheduler = Scheduler(_cluster(1000, 2))
    events = list(scheduler.run())
    summaries = [e.payload for e in events if e.extension_point.value == "Filter" and e.plugin is None]
    assert [len(s.evaluated) for s in summaries] == [420, 420]
    assert summaries[0].evaluated[0] == "n0000"
    assert summaries[1].start_index == 420 and summaries[1].evaluated[0] == "n0420"
    assert scheduler.next_start_node_index == 840


def test_it_breaks_ties_by_document_order_by_default():
    trace = trace_summary(simulate(_cluster(3, 1, percentage=100)))
    cycle = trace["cycles"][0]
    assert len(set(cycle["totalScores"].values())) == 1
    assert cycle["nodeName"] == "n0000"


def test_random_tie_break_is_reproducible_with_a_seed():
    picks = {trace_summary(simulate(_cluster(20, 1, 100), tie_break="random", seed=7))["cycles"][0]["nodeName"]
             for _ in range(3)}
    assert len(picks) == 1


def test_a_bound_pod_counts_in_later_cycles_and_the_scenario_is_left_untouched():
    scenario = _cluster(2, 2, percentage=100)
    trace = trace_summary(simulate(scenario))
    first, second = (c["nodeName"] for c in trace["cycles"])
    assert first == "n0000" and second == "n0001"  # n0000 is busier after the first bind
    assert all(p.node_name == "" for p in scenario.pods)


def test_it_reports_no_nodes_available_with_an_empty_cluster():
    scenario = Scenario([], [make_pod("lonely")], {})
    cycle = trace_summary(simulate(scenario))["cycles"][0]
    assert cycle["nodeName"] is None
    assert cycle["failedSchedulingMessage"] == "no nodes available to schedule pods"
