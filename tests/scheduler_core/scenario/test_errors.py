"""scenario/errors.py: a problem names its object, path, line and file; size limits are told apart;
ScenarioInvalid sorts problems file by file, then by line."""

from __future__ import annotations

import msgspec

from scheduler_core.scenario.errors import INVALID, LIMIT_EXCEEDED, ScenarioError, ScenarioErrorJSON, ScenarioInvalid


def test_a_problem_reads_as_where_what_and_why():
    error = ScenarioError("Pod default/web", "spec.nodeName", 7, "must be a string")
    assert str(error) == "line 7: Pod default/web: spec.nodeName: must be a string"
    located = ScenarioError("Node n1", "", None, "unknown", file="dir/nodes.yaml")
    assert str(located) == "dir/nodes.yaml: Node n1: unknown"


def test_a_size_limit_problem_names_its_limit():
    error = ScenarioError("document 3", "", None, "more than 10000 nodes (Limits.max_nodes)")
    assert (error.limit, error.code) == ("max_nodes", LIMIT_EXCEEDED)
    plain = ScenarioError("Pod default/p", "spec", 1, "Required value")
    assert (plain.limit, plain.code) == (None, INVALID)
    assert error.to_json() == {
        "object": "document 3",
        "path": "",
        "line": None,
        "message": "more than 10000 nodes (Limits.max_nodes)",
        "code": LIMIT_EXCEEDED,
        "limit": "max_nodes",
    }
    assert list(ScenarioError("x", "", 1, "m", file="a.yaml").to_json()) == [  # the file first, when there is one
        "file",
        "object",
        "path",
        "line",
        "message",
        "code",
        "limit",
    ]


def test_a_problem_s_wire_form_is_what_msgspec_writes_of_its_declaration():
    for error in (
        ScenarioError("Pod default/p", "spec", 1, "Required value"),
        ScenarioError("x", "", None, "m", "a.yaml"),
    ):
        wire = error.wire()
        assert error.to_json() == msgspec.json.decode(msgspec.json.encode(wire))
        assert ScenarioErrorJSON.from_json(error.to_json()) == wire


def test_invalid_sorts_by_file_read_order_then_line_with_whole_file_problems_first():
    b9 = ScenarioError("o", "", 9, "b9", file="b.yaml")
    a5 = ScenarioError("o", "", 5, "a5", file="a.yaml")
    b2 = ScenarioError("o", "", 2, "b2", file="b.yaml")
    b_whole = ScenarioError("o", "", None, "b whole", file="b.yaml")
    invalid = ScenarioInvalid([b9, a5, b2, b_whole])
    assert [e.message for e in invalid.errors] == ["b whole", "b2", "b9", "a5"]  # b.yaml was read first


def test_the_message_shows_three_problems_and_counts_the_rest():
    errors = [ScenarioError("o", "", line, f"p{line}") for line in (4, 3, 2, 1, 5)]
    assert str(ScenarioInvalid(errors)) == (
        "5 problem(s) in scenario: line 1: o: p1; line 2: o: p2; line 3: o: p3 (and 2 more)"
    )
