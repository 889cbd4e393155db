"""node_resources/resource_allocation.py: the (allocatable, requested) pairs a strategy scores
(noderesources/resource_allocation.go: resourceAllocationScorer.score,
calculateResourceAllocatableRequest, calculatePodResourceRequestList)."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.args_errors import ArgsProblem
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.status import Code
from scheduler_core.model import CPU, MEMORY
from scheduler_core.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    parse_resource_specs,
    weighted_average,
    weighted_average_batch,
)
from scheduler_core.model.resources import NON_ZERO_DEFAULTS
from tests.scheduler_core.builders import make_node, make_pod

GPU = "example.com/gpu"


def _pairs(requested, allocatable):
    """A strategy that shows what it was handed."""
    return (tuple(requested), tuple(allocatable))


def _node(*pods, **allocatable):
    info = NodeInfo(make_node("n", cpu=4000, memory=1 << 30, allocatable=allocatable))
    for pod in pods:
        info.add_pod(PodInfo(pod))
    return info


def test_resources_default_to_cpu_and_memory_and_weight_zero_means_one():
    problems: list[ArgsProblem] = []
    assert parse_resource_specs(None, "args.resources", problems) == DEFAULT_RESOURCES
    assert parse_resource_specs([{"name": GPU, "weight": 0}, {"name": CPU, "weight": 5}], "r", problems) == (
        ResourceSpec(GPU, 1),
        ResourceSpec(CPU, 5),
    )
    assert problems == []


def test_a_weight_that_is_no_integer_is_a_problem_at_its_path():
    problems: list[ArgsProblem] = []
    assert parse_resource_specs([{"name": CPU, "weight": "heavy"}], "args.resources", problems) == (
        ResourceSpec(CPU, 1),
    )
    assert problems == [ArgsProblem("args.resources[0].weight", "Invalid value: 'heavy': must be an integer")]


def test_fit_scores_with_non_zero_requests_and_balanced_with_plain_ones():
    """A container without requests counts as 100m cpu / 200Mi memory for Fit (use_requested False)."""
    empty = make_pod("p", requests={})
    fit = ResourceAllocationScorer(DEFAULT_RESOURCES, _pairs, use_requested=False)
    balanced = ResourceAllocationScorer(DEFAULT_RESOURCES, _pairs, use_requested=True)
    assert fit.pod_request_list(empty) == (NON_ZERO_DEFAULTS[CPU], NON_ZERO_DEFAULTS[MEMORY])
    assert balanced.pod_request_list(empty) == (0, 0)
    bound = make_pod("b", node="n", requests={})
    assert fit.score(_node(bound), fit.pod_request_list(empty)) == (
        ((200, 2 * NON_ZERO_DEFAULTS[MEMORY]), (4000, 1 << 30)),
        None,
    )
    assert balanced.score(_node(bound), (0, 0)) == (((0, 0), (4000, 1 << 30)), None)


def test_a_scalar_resource_is_skipped_when_not_requested_or_not_offered():
    scorer = ResourceAllocationScorer((ResourceSpec(CPU), ResourceSpec(GPU)), _pairs, use_requested=True)
    bound = make_pod("b", node="n", requests={GPU: 1})
    assert scorer.score(_node(bound, **{GPU: 4}), (1000, 0))[0] == ((1000, 0), (4000, 0))
    assert scorer.score(_node(bound, **{GPU: 4}), (1000, 2))[0] == ((1000, 3), (4000, 4))
    assert scorer.score(_node(), (1000, 2))[0] == ((1000, 0), (4000, 0))


def test_no_resources_is_an_error():
    score, status = ResourceAllocationScorer((), _pairs, use_requested=True).score(_node(), ())
    assert (score, status.code, status.reasons) == (0, Code.ERROR, ("resources not found",))


def test_the_weighted_average_divides_as_go_does_and_skips_absent_resources():
    average = weighted_average((ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 2)), lambda req, cap: req * 100 // cap)
    assert average([1, 1], [2, 4]) == 33  # (50 + 25*2) / 3 = 33.3
    assert average([1, 1], [2, 0]) == 50
    batch = weighted_average_batch(
        (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 2)),
        [np.array([1, 1, 0]), np.array([1, 1, 0])],
        [np.array([2, 2, 0]), np.array([4, 0, 0])],
        lambda req, cap: req * 100 // cap,
    )
    assert batch.tolist() == [33, 50, 0]
