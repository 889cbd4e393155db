"""scenario/limits.py: the default size limits, and that a caller tightens one without the rest."""

from __future__ import annotations

import dataclasses

import pytest

from scheduler_core.scenario import ScenarioInvalid, load_scenario
from scheduler_core.scenario.limits import (
    ENVELOPE_NODES,
    ENVELOPE_PODS,
    MIB,
    Limits,
    in_own_words,
    megabytes,
    needed,
    setting_value,
)
from tests.scheduler_core.builders import node_text, scenario_text


def test_the_defaults_bound_size_objects_and_yaml_shape():
    limits = Limits()
    assert (limits.max_bytes, limits.max_nodes, limits.max_pods, limits.max_pending_pods) == (
        1024 * MIB,
        10_000,
        150_000,
        20_000,
    )
    assert (limits.max_depth, limits.max_aliases, limits.max_files) == (64, 100, 20_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_nodes = 1


def test_the_defaults_take_kubernetes_envelope_as_one_object_per_document():
    limits = Limits()
    assert limits.max_nodes >= ENVELOPE_NODES and limits.max_pods >= ENVELOPE_PODS
    # every node and pod a document of its own, with a workload, a claim or a service per two pods
    assert limits.max_documents >= ENVELOPE_NODES + ENVELOPE_PODS * 3 // 2


def test_a_tightened_limit_names_itself_in_the_problem():
    text = scenario_text(node_text("n1"), node_text("n2"))
    load_scenario(text, limits=Limits(max_nodes=2))
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, limits=Limits(max_nodes=1))
    assert [e.limit for e in raised.value.errors] == ["max_nodes"]


def test_a_size_reads_in_mb_and_a_small_one_in_bytes_never_as_zero_mb():
    assert (megabytes(8 * MIB), megabytes(18_301_790), megabytes(9263)) == ("8 MB", "17.5 MB", "9263 bytes")


@pytest.mark.parametrize(
    "message, limit, value",
    [
        ("the scenario is 17.5 MB, more than the limit of 8 MB", "max_bytes", 18 * MIB),
        ("the scenario's files hold 17.96 MB together, more than the limit of 8 MB", "max_bytes", 19 * MIB),
        ("x.tar: the archive unpacks to more than 256 MB", "max_unpacked_bytes", None),
        ("the scenario is 9263 bytes, more than the limit of 1000 bytes", "max_bytes", MIB),
        ("line 4: scenario: 3340 pending pods, more than 2000", "max_pending_pods", 3340),
        ("more than 10000 nodes", "max_nodes", None),
    ],
)
def test_the_value_that_takes_the_scenario_is_read_from_the_message_when_it_says_how_much(message, limit, value):
    assert needed(limit, message) == value


def test_a_limit_message_is_said_in_the_callers_words_once_and_other_messages_are_left_alone():
    def flag(limit: str, value: int | None) -> str:
        return f"raise it with --{limit} {setting_value(limit, value)}"

    said = in_own_words("the scenario is 17.5 MB, more than the limit of 8 MB (Limits.max_bytes)", flag)
    assert said == "the scenario is 17.5 MB, more than the limit of 8 MB; raise it with --max_bytes 18874368 (18 MB)"
    assert (
        in_own_words("more than 1 nodes (Limits.max_nodes)", flag) == "more than 1 nodes; raise it with --max_nodes N"
    )
    assert in_own_words("more than 1 nodes (Limits.max_nodes)", lambda limit, value: None) == "more than 1 nodes"
    assert in_own_words("Required value", flag) == "Required value"
