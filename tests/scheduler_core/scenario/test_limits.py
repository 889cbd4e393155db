"""scenario/limits.py: the default size limits, and that a caller tightens one without the rest."""

from __future__ import annotations

import dataclasses

import pytest

from scheduler_core.scenario import ScenarioInvalid, load_scenario
from scheduler_core.scenario.limits import MIB, Limits
from tests.scheduler_core.builders import node_text, scenario_text


def test_the_defaults_bound_size_objects_and_yaml_shape():
    limits = Limits()
    assert (limits.max_bytes, limits.max_nodes, limits.max_pods, limits.max_pending_pods) == (
        32 * MIB,
        10_000,
        60_000,
        5_000,
    )
    assert (limits.max_depth, limits.max_aliases, limits.max_files) == (64, 100, 20_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_nodes = 1


def test_a_tightened_limit_names_itself_in_the_problem():
    text = scenario_text(node_text("n1"), node_text("n2"))
    load_scenario(text, limits=Limits(max_nodes=2))
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, limits=Limits(max_nodes=1))
    assert [e.limit for e in raised.value.errors] == ["max_nodes"]
