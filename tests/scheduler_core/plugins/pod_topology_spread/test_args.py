"""PodTopologySpreadArgs: v1 defaulting and validation, every problem with its field path."""

from __future__ import annotations

import pytest

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.plugins.pod_topology_spread.args import (
    LIST_DEFAULTING,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    PodTopologySpreadArgs,
)

ZONE_HARD = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(None, id="no args default to System defaulting"),
        pytest.param({}, id="empty args default to System defaulting"),
        pytest.param(
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "PodTopologySpreadArgs"},
            id="apiVersion and kind are accepted",
        ),
    ],
)
def test_defaults_to_system_defaulting(raw):
    args = PodTopologySpreadArgs.parse(raw)
    assert args.defaulting_type == SYSTEM_DEFAULTING
    assert args.effective_default_constraints == SYSTEM_DEFAULT_CONSTRAINTS
    assert [(c.topology_key, c.max_skew) for c in SYSTEM_DEFAULT_CONSTRAINTS] == [
        ("kubernetes.io/hostname", 3),
        ("topology.kubernetes.io/zone", 5),
    ]


def test_list_defaulting_keeps_the_given_constraints():
    args = PodTopologySpreadArgs.parse({"defaultingType": "List", "defaultConstraints": [ZONE_HARD]})
    assert args.defaulting_type == LIST_DEFAULTING
    (constraint,) = args.effective_default_constraints
    assert (constraint.topology_key, constraint.max_skew, constraint.when_unsatisfiable) == (
        "topology.kubernetes.io/zone",
        1,
        "DoNotSchedule",
    )


INVALID_CASES = [
    pytest.param(
        {"defaultConstraints": [ZONE_HARD]},
        [ArgsProblem("defaultingType", 'Invalid value: "System": when .defaultConstraints are not empty')],
        id="default constraints without defaultingType List are rejected",
    ),
    pytest.param(
        {"defaultingType": "Custom"},
        [ArgsProblem("defaultingType", 'Unsupported value: "Custom": supported values: "System", "List"')],
        id="an unknown defaultingType is rejected",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [{**ZONE_HARD, "labelSelector": {}}]},
        [
            ArgsProblem(
                "defaultConstraints[0].labelSelector",
                "Forbidden: constraint must not define a selector, as they deduced for each pod",
            )
        ],
        id="a default constraint may not define a labelSelector",
    ),
    pytest.param(
        {
            "defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Sometimes"}],
        },
        [
            ArgsProblem("defaultConstraints[0].maxSkew", "Invalid value: 0: not in valid range (0, inf)"),
            ArgsProblem("defaultConstraints[0].topologyKey", "Required value: can not be empty"),
            ArgsProblem(
                "defaultConstraints[0].whenUnsatisfiable",
                'Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
            ),
        ],
        id="every problem of a constraint is reported, not only the first",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [ZONE_HARD, {**ZONE_HARD, "maxSkew": 2}]},
        [ArgsProblem("defaultConstraints[1]", 'Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"')],
        id="two constraints with the same key and action are duplicates",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [{**ZONE_HARD, "whenUnsatisfiable": ""}]},
        [ArgsProblem("defaultConstraints[0].whenUnsatisfiable", "Required value: can not be empty")],
        id="whenUnsatisfiable is required",
    ),
]


@pytest.mark.parametrize("raw, problems", INVALID_CASES)
def test_invalid_args(raw, problems):
    with pytest.raises(ArgsError) as caught:
        PodTopologySpreadArgs.parse(raw)
    assert caught.value.problems == problems


def test_an_invalid_topology_key_is_rejected():
    with pytest.raises(ArgsError) as caught:
        PodTopologySpreadArgs.parse(
            {"defaultingType": "List", "defaultConstraints": [{**ZONE_HARD, "topologyKey": "bad key!"}]}
        )
    assert [p.path for p in caught.value.problems] == ["defaultConstraints[0].topologyKey"]
