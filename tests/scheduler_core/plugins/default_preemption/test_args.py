"""DefaultPreemptionArgs: v1 defaults and ValidateDefaultPreemptionArgs."""

from __future__ import annotations

import pytest

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.plugins.default_preemption import DefaultPreemptionArgs

ZERO_PERCENTAGE = ArgsProblem(
    "minCandidateNodesPercentage", "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute"
)
ZERO_ABSOLUTE = ArgsProblem(
    "minCandidateNodesAbsolute", "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage"
)


@pytest.mark.parametrize(
    "raw, expected",
    [
        pytest.param(
            None, DefaultPreemptionArgs(10, 100), id="no args take the v1 defaults of 10 percent and 100 nodes"
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0},
            DefaultPreemptionArgs(0, 100),
            id="an explicit zero percentage is kept when the absolute number is not zero",
        ),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "DefaultPreemptionArgs",
                "minCandidateNodesAbsolute": 5,
            },
            DefaultPreemptionArgs(10, 5),
            id="apiVersion and kind are accepted beside the fields",
        ),
    ],
)
def test_it_parses_valid_args(raw, expected):
    assert DefaultPreemptionArgs.parse(raw) == expected


@pytest.mark.parametrize(
    "raw, problems",
    [
        pytest.param(
            {"minCandidateNodesPercentage": 101, "minCandidateNodesAbsolute": -1},
            [
                ArgsProblem("minCandidateNodesPercentage", "Invalid value: 101: not in valid range [0, 100]"),
                ArgsProblem("minCandidateNodesAbsolute", "Invalid value: -1: not in valid range [0, inf)"),
            ],
            id="every out-of-range field is reported",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            [ZERO_PERCENTAGE, ZERO_ABSOLUTE],
            id="both fields zero at once is rejected on both",
        ),
        pytest.param(
            {"minCandidateNodes": 3},
            [ArgsProblem("minCandidateNodes", 'unknown field "minCandidateNodes"')],
            id="an unknown field is rejected",
        ),
        pytest.param(
            {"minCandidateNodesAbsolute": "many"},
            [ArgsProblem("minCandidateNodesAbsolute", "Invalid value: 'many': must be an integer")],
            id="a non-integer value is rejected",
        ),
    ],
)
def test_it_rejects_invalid_args(raw, problems):
    with pytest.raises(ArgsError) as raised:
        DefaultPreemptionArgs.parse(raw)
    assert raised.value.problems == problems
