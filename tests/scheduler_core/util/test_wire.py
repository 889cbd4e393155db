"""scheduler_core.util.wire: the JSON form derived from a payload's declaration, held to msgspec's
own reading of it (``msgspec.to_builtins``), without copying what the engine handed over."""

from __future__ import annotations

import typing
from typing import Any, Optional

import msgspec
import pytest

from scheduler_core.answers.capacity_json import FitAnswerJSON, NodesAnswerJSON, TemplateAnswerJSON, TrialJSON
from scheduler_core.answers.explain import CycleExplanation
from scheduler_core.encoding.events import (
    EVENT_KINDS,
    BlockedEviction,
    ClusterChanged,
    ClusterChangeKind,
    CycleEnd,
    CycleStart,
    FilterSummary,
    PreFilterPluginResult,
    StepEnded,
    WrittenJSON,
)
from scheduler_core.util.wire import Wire, holds, json_without, reaches, row_writer, rows_writer
from tests.scheduler_core.encoding.payload_examples import every_field_set

DECLARED = sorted(
    {t for kind in EVENT_KINDS.values() for t in (kind.by_plugin, kind.summary) if t is not None},
    key=lambda t: t.__name__,
)


@pytest.mark.parametrize("declared", DECLARED, ids=lambda t: t.__name__)
def test_every_field_set_writes_what_msgspec_writes(declared):
    payload = every_field_set(declared)
    expected = msgspec.to_builtins(payload)
    if isinstance(payload, PreFilterPluginResult):  # a picture is the plugin's typed object: its to_json writes it
        payload.picture = WrittenJSON(payload.picture)
    assert payload.to_json() == expected
    assert list(payload.to_json()) == [info.encode_name for info in msgspec.structs.fields(declared)]


@pytest.mark.parametrize("declared", DECLARED, ids=lambda t: t.__name__)
def test_a_payload_read_back_from_its_json_is_itself(declared):
    payload = every_field_set(declared)
    assert declared.from_json(msgspec.to_builtins(payload)) == payload


def test_a_field_at_its_default_is_left_out_and_one_without_a_default_always_written():
    assert CycleEnd(None).to_json() == {"nodeName": None}
    assert CycleEnd(None, failed_scheduling_message="0/3 nodes").to_json() == {
        "nodeName": None,
        "failedSchedulingMessage": "0/3 nodes",
    }
    summary = FilterSummary(["a"], [], 1, 0)
    assert (
        summary.to_json()
        == msgspec.to_builtins(summary)
        == {"evaluated": ["a"], "feasibleNodes": [], "numFeasibleNodesToFind": 1, "startIndex": 0}
    )
    assert FilterSummary(["a"], [], 1, 0, nominated_only=True).to_json()["nominatedNodeOnly"] is True


def test_every_list_of_a_step_end_is_written_even_empty_but_its_rollouts():
    written = StepEnded(1, "s", 0, 5, [], [], [], [], [BlockedEviction("default/p", "default/pdb")], [], []).to_json()
    assert written == {
        "step": 1,
        "name": "s",
        "startedMs": 0,
        "timeMs": 5,
        "created": [],
        "deleted": [],
        "evicted": [],
        "placed": [],
        "blocked": [{"pod": "default/p", "budget": "default/pdb"}],
        "pending": [],
        "succeeded": [],
    }


def test_an_enum_is_written_as_its_value():
    written = ClusterChanged(1, ClusterChangeKind.POD_BOUND, "default/p", "n1").to_json()
    assert written == {"timeMs": 1, "kind": "PodBound", "object": "default/p", "node": "n1"}
    assert type(written["kind"]) is str


def test_the_engines_lists_are_written_as_they_are_not_copied():
    queue = ["default/a", "default/b"]
    start = CycleStart("default/a", "default", "a", 0, {}, queue, 3, 2)
    assert start.to_json()["queue"] is queue


def test_a_node_list_kept_as_positions_is_written_as_its_names():
    import numpy as np

    from scheduler_core.framework.node_table import NodePositions

    table = ["n0", "n1", "n2", "n3"]
    summary = FilterSummary(NodePositions(np.array([2, 0, 3]), table), NodePositions(np.array([3]), table), 2, 1)
    written = summary.to_json()
    assert written["evaluated"] == ["n2", "n0", "n3"] and type(written["evaluated"]) is list
    assert written["feasibleNodes"] == ["n3"]
    column = {"$n": 7}  # what the columnar encoder puts in a list's place: left as it is
    assert msgspec.structs.replace(summary, evaluated=column).to_json()["evaluated"] is column


def test_a_field_of_open_type_holding_a_typed_value_writes_its_json():
    class Picture:
        def to_json(self) -> dict:
            return {"drawn": True}

    class Holder(Wire):
        picture: Any = None

    assert Holder(Picture()).to_json() == {"picture": {"drawn": True}}
    assert Holder().to_json() == {}


def test_a_payload_missing_a_field_it_always_has_does_not_read():
    with pytest.raises(msgspec.ValidationError, match="missing required field `nodeName`"):
        CycleEnd.from_json({"failedSchedulingMessage": "0/3 nodes"})


class Draft(Wire):
    text: str


class Verdict(Wire):
    node: str
    kind: ClusterChangeKind
    draft: Optional[Draft] = None


class Verdicts(Wire):
    verdicts: list[Verdict]
    drafts: dict[str, Draft]
    together: Optional[Draft]
    count: int = 0


def test_a_declared_type_holds_what_it_is_or_has_inside():
    assert holds(Draft, Draft) and holds(Optional[Draft], Draft) and holds(dict[str, list[Draft]], Draft)
    assert not holds(list[Verdict], Draft)  # inside a nested payload is that payload's business
    assert not holds(Optional[dict[str, Any]], Draft)


def test_the_json_without_a_kind_leaves_out_every_field_holding_it_at_any_depth():
    payload = Verdicts(
        [Verdict("n1", ClusterChangeKind.POD_BOUND, Draft("a")), Verdict("n2", ClusterChangeKind.POD_BOUND)],
        {"n1": Draft("b")},
        None,
    )
    assert json_without(payload, Draft) == {
        "verdicts": [{"node": "n1", "kind": "PodBound"}, {"node": "n2", "kind": "PodBound"}]
    }  # a default still left out (count), an enum written as its value
    assert json_without(Verdicts([], {}, None, count=2), Draft) == {"verdicts": [], "count": 2}
    assert json_without(payload, Verdict) == {"drafts": {"n1": {"text": "b"}}, "together": None}


class _Row(Wire, omit_defaults=False):
    name: str
    node_count: int
    nodes: list[str] = []


def test_rows_written_straight_from_their_values_are_the_payloads_json():
    nodes = ["n1"]
    assert (
        row_writer(_Row)("a", 2, nodes)
        == _Row("a", 2, nodes).to_json()
        == {"name": "a", "nodeCount": 2, "nodes": ["n1"]}
    )
    assert row_writer(_Row)("a", 2, nodes)["nodes"] is nodes  # handed over as it is (a column reference stays one)
    rows = [("a", 1, []), ("b", 2, ["n2"])]
    assert rows_writer(_Row)(iter(rows)) == [_Row(*row).to_json() for row in rows]


class _TaggedRow(Wire, omit_defaults=False, tag_field="kind", tag="row"):
    name: str


def test_a_payload_that_may_leave_a_key_out_has_no_row_writer():
    with pytest.raises(TypeError, match="leaves a key out"):
        rows_writer(CycleEnd)
    with pytest.raises(TypeError, match="tagged"):
        row_writer(_TaggedRow)


def test_a_declared_type_reaches_what_a_payload_it_holds_has_at_any_depth():
    assert not holds(NodesAnswerJSON, TrialJSON) and reaches(NodesAnswerJSON, TrialJSON)  # through its templates
    assert reaches(list[TemplateAnswerJSON], TrialJSON)
    assert not reaches(Optional[CycleExplanation], TrialJSON)
    assert typing.get_type_hints(FitAnswerJSON)["explanation"] == Optional[CycleExplanation]


def test_the_json_without_a_kind_writes_a_nested_payload_it_cannot_reach_as_to_json_does():
    """A frozen payload's tuples of tagged payloads (an explanation's facts) are not walked: to_json writes them."""
    answer = every_field_set(FitAnswerJSON)
    assert json_without(answer, TrialJSON)["explanation"] == answer.explanation.to_json()
