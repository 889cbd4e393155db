"""The event-based composer: lines, duplicate keys, depth, aliases, tags."""

from __future__ import annotations

from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamltree import YList, YMap, compose


def test_it_records_the_line_of_every_key_and_item():
    [document], problems = compose("a: 1\nb:\n  - x\n  - {c: d}\n", Limits())
    root = document.value
    assert not problems
    assert isinstance(root, YMap) and root.lines == {"a": 1, "b": 2}
    assert isinstance(root["b"], YList) and root["b"].lines == [3, 4]


def test_it_resolves_plain_scalars_as_yaml_1_1_and_keeps_quoted_ones_as_strings():
    [document], _ = compose("a: 1\nb: '1'\nc: true\nd: null\ne: 1.5\nf: 2024-01-01\ng: 0x10\n", Limits())
    assert document.value == {"a": 1, "b": "1", "c": True, "d": None, "e": 1.5, "f": "2024-01-01", "g": 16}


def test_it_reports_duplicate_keys_with_both_lines():
    _, [problem] = compose("a: 1\nb: 2\na: 3\n", Limits())
    assert problem.line == 3 and "first at line 1" in problem.message


def test_it_stops_building_below_the_depth_limit_without_recursion():
    text = "[" * 100_000 + "]" * 100_000
    documents, [problem] = compose(text, Limits(max_depth=64))
    assert "Limits.max_depth" in problem.message


def test_it_refuses_undefined_and_recursive_aliases():
    _, problems = compose("a: *nothing\n", Limits())
    assert "undefined alias" in problems[0].message
    _, problems = compose("a: &x [*x]\n", Limits())
    assert "alias" in problems[0].message


def test_it_merges_merge_keys_without_overriding():
    [document], problems = compose("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n", Limits())
    assert not problems and document.value["d"] == {"x": 1, "y": 3}


def test_it_refuses_unknown_tags():
    _, [problem] = compose("a: !python/object 1\n", Limits())
    assert "unsupported YAML tag" in problem.message


def test_it_counts_documents_and_stops_at_the_limit():
    documents, [problem] = compose("a: 1\n---\nb: 2\n---\nc: 3\n", Limits(max_documents=2))
    assert len(documents) == 2 and "Limits.max_documents" in problem.message


def test_block_nesting_is_limited_too():
    text = "".join(" " * i + "a:\n" for i in range(70)) + " " * 70 + "b: 1\n"
    _, problems = compose(text, Limits(max_depth=64))
    assert any("Limits.max_depth" in p.message for p in problems)
