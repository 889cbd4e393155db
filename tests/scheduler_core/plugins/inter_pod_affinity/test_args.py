"""InterPodAffinity: args and construction (its term builders are in tests/scheduler_core/builders.py)."""

from __future__ import annotations

import pytest

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.plugins.inter_pod_affinity import InterPodAffinityArgs
from tests.scheduler_core.builders import make_inter_pod_affinity


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(None, InterPodAffinityArgs(1, False), id="no args default hardPodAffinityWeight to 1"),
        pytest.param({}, InterPodAffinityArgs(1, False), id="empty args take the defaults"),
        pytest.param(
            {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True},
            InterPodAffinityArgs(0, True),
            id="a weight of 0 and the ignore flag are accepted",
        ),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "InterPodAffinityArgs",
                "hardPodAffinityWeight": 100,
            },
            InterPodAffinityArgs(100, False),
            id="type metadata is allowed and 100 is the largest weight",
        ),
    ],
)
def test_args_parse(raw, expected):
    assert InterPodAffinityArgs.parse(raw) == expected


@pytest.mark.parametrize(
    ("raw", "problems"),
    [
        pytest.param(
            {"hardPodAffinityWeight": 101},
            [ArgsProblem("hardPodAffinityWeight", "Invalid value: 101: not in valid range [0-100]")],
            id="a weight above 100 is rejected",
        ),
        pytest.param(
            {"hardPodAffinityWeight": -1},
            [ArgsProblem("hardPodAffinityWeight", "Invalid value: -1: not in valid range [0-100]")],
            id="a negative weight is rejected",
        ),
        pytest.param(
            {"hardPodAffinityWeight": "5", "ignorePreferredTermsOfExistingPods": "yes", "extra": 1},
            [
                ArgsProblem("extra", 'unknown field "extra"'),
                ArgsProblem("hardPodAffinityWeight", "Invalid value: '5': must be an integer"),
                ArgsProblem("ignorePreferredTermsOfExistingPods", "Invalid value: 'yes': must be a boolean"),
            ],
            id="every problem is reported, not only the first",
        ),
    ],
)
def test_args_reject(raw, problems):
    with pytest.raises(ArgsError) as caught:
        InterPodAffinityArgs.parse(raw)
    assert caught.value.problems == problems


def test_new_builds_the_plugin_with_parsed_args():
    plugin, _ = make_inter_pod_affinity(args={"hardPodAffinityWeight": 7})
    assert plugin.name == "InterPodAffinity"
    assert plugin.args == InterPodAffinityArgs(7, False)
