"""The event-based composer: lines, duplicate keys, depth, aliases, tags."""

from __future__ import annotations

from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario import goyaml, yamltree
from scheduler_core.scenario.yamltree import RunComposer, YList, YMap, compose, compose_runs, halves


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
    [document], problems = compose("base: &b {x: 1, z: 2}\nd:\n  <<: *b\n  z: 3\n", Limits())
    assert not problems and document.value["d"] == {"x": 1, "z": 3}


def test_it_refuses_unknown_tags():
    _, [problem] = compose("a: !python/object 1\n", Limits())
    assert "unsupported YAML tag" in problem.message


def test_it_counts_documents_and_stops_at_the_limit():
    documents, [problem] = compose("a: 1\n---\nb: 2\n---\nc: 3\n", Limits(max_documents=2))
    assert len(documents) == 2 and "Limits.max_documents" in problem.message


def test_flow_nesting_is_limited_at_the_limit_itself_whether_or_not_the_bracket_scan_runs():
    # Three brackets may nest three deep: the scan runs (3 > 2) and finds it; two cannot (no scan).
    _, [problem] = compose("a: [[[x]]]\n", Limits(max_depth=2))
    assert (problem.line, "Limits.max_depth" in problem.message) == (1, True)
    [document], problems = compose("a: [[x]]\n", Limits(max_depth=3))
    assert (document.value, problems) == ({"a": [["x"]]}, [])


def test_it_composes_with_the_collector_paused_and_resumes_it(monkeypatch):
    import gc

    from scheduler_core.scenario import yamltree

    collecting = []
    line_composer = yamltree.compose_block

    def spy(text, limits, plain):
        collecting.append(gc.isenabled())
        return line_composer(text, limits, plain)

    monkeypatch.setattr(yamltree, "compose_block", spy)
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        compose("a: 1\n", Limits())
        assert (collecting, gc.isenabled()) == ([False], True)
    finally:
        if not was_enabled:
            gc.disable()


def test_block_nesting_is_limited_too():
    text = "".join(" " * i + "a:\n" for i in range(70)) + " " * 70 + "b: 1\n"
    _, problems = compose(text, Limits(max_depth=64))
    assert any("Limits.max_depth" in p.message for p in problems)


# ------------------------------------------------------------------ against PyYAML's own composer

EDGES = """\
plain: [1, 1.5, true, ~, null, 0x10, '1', "two", !!str 3]  # (timestamps stay strings: above)
base: &base {a: 1, b: [x, y]}
again: *base
merged: {<<: *base, b: 2}
nested: {k: {l: {m: [[], {}, [{n: o}]]}}}
anchored: &s scalar
seq: [*s, &m {p: q}, *m]
true: a boolean key
null: a null key
1: an integer key
? complex
: value
empty:
"""


def _scalar(node, constructor):
    """A plain scalar as Kubernetes reads it (go-yaml v2: scenario/goyaml.py), not as YAML 1.1; a
    quoted or explicitly tagged one as PyYAML constructs it. (libyaml marks a plain style '', PyYAML None.)"""
    import yaml

    plain = node.style in (None, "")
    if plain and yaml.resolver.Resolver().resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag:
        return goyaml.resolve_plain(node.value)
    return constructor.construct_object(node, deep=True)


def _reference(node, constructor):
    """(value, lines) from PyYAML's composed nodes: what the composer must give (keys as JSON text)."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, constructor), None
    if isinstance(node, yaml.SequenceNode):
        items = [_reference(item, constructor) for item in node.value]
        return [value for value, _ in items], [item.start_mark.line + 1 for item in node.value]
    constructor.flatten_mapping(node)
    values, lines = {}, {}
    for key_node, value_node in node.value:
        key = _scalar(key_node, constructor) if isinstance(key_node, yaml.ScalarNode) else None
        key = (
            {True: "true", False: "false", None: "null"}.get(key, key)
            if not isinstance(key, int) or isinstance(key, bool)
            else str(key)
        )
        values[key] = _reference(value_node, constructor)[0]
        lines[key] = key_node.start_mark.line + 1
    return values, lines


def _lines_of(value):
    """Every container's own lines, in document order (merged keys have none: PyYAML's do, dropped)."""
    if isinstance(value, YMap):
        yield dict(value.lines)
        for item in value.values():
            yield from _lines_of(item)
    elif isinstance(value, YList):
        yield list(value.lines)
        for item in value:
            yield from _lines_of(item)


def _same_as_pyyaml(text: str) -> None:
    import yaml

    documents, problems = compose(text, Limits())
    assert not problems
    nodes = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    assert len(documents) == len(nodes)
    for document, node in zip(documents, nodes):
        value, lines = _reference(node, yaml.constructor.SafeConstructor())
        assert document.value == value
        assert getattr(document.value, "lines", None) == lines
        if "<<" not in text and "*" not in text:  # nested lines, where PyYAML's nodes are not shared
            assert list(_lines_of(document.value)) == list(_lines_of(_with_lines(value, node)))


def _with_lines(value, node):
    """PyYAML's value rebuilt as YMap/YList with its nodes' lines (to compare nested lines too)."""
    import yaml

    if isinstance(node, yaml.SequenceNode):
        out = YList(node.start_mark.line + 1)
        for item, item_node in zip(value, node.value):
            out.append(_with_lines(item, item_node))
            out.lines.append(item_node.start_mark.line + 1)
        return out
    if isinstance(node, yaml.MappingNode):
        out = YMap(node.start_mark.line + 1)
        for (key, item), (key_node, item_node) in zip(value.items(), node.value):
            out[key] = _with_lines(item, item_node)
            out.lines[key] = key_node.start_mark.line + 1
        return out
    return value


def test_it_composes_what_pyyaml_composes_on_edge_cases():
    _same_as_pyyaml(EDGES)
    _same_as_pyyaml(EDGES.replace("*base", "{a: 1}").replace("<<: ", "c: ").replace("*s", "s").replace("*m", "m"))


def test_it_composes_what_pyyaml_composes_on_every_corpus_file(corpus_files):
    for path in corpus_files:
        if path.stat().st_size < 100_000:  # the conformance corpus; the bench files are big
            _same_as_pyyaml(path.read_text(encoding="utf-8"))


def test_pyyaml_s_own_parser_composes_the_same_as_libyaml_s(monkeypatch):
    import yaml

    from scheduler_core.scenario import yamltree

    with_libyaml, problems = compose(EDGES, Limits())
    monkeypatch.setattr(yamltree, "_Loader", yaml.SafeLoader)  # the fallback without libyaml
    pure, pure_problems = compose(EDGES, Limits())
    assert [(d.index, d.line, d.value) for d in pure] == [(d.index, d.line, d.value) for d in with_libyaml]
    assert pure_problems == problems and len(pure) == 1


def _composed_in_runs(text: str, limits: Limits, run_chars: int, monkeypatch):
    from scheduler_core.scenario import yamltree

    monkeypatch.setattr(yamltree, "RUN_CHARS", run_chars)
    documents, problems, runs = [], [], 0
    for run_documents, run_problems in compose_runs(text, limits):
        documents += run_documents
        problems += run_problems
        runs += 1
    return documents, problems, runs


def _as_composed(documents):
    return [(d.index, d.line, d.value, list(_lines_of(d.value))) for d in documents]


STREAM = "".join(
    f"---\nkind: Pod\nmetadata:\n  name: p{i}\n  labels: {{app: a{i % 3}}}\nspec:\n  containers:\n  - name: c\n"
    f"    args:\n    - |\n      line one\n      line two\n"
    for i in range(60)
)


def test_a_text_composed_a_run_of_documents_at_a_time_is_the_text_composed_whole(monkeypatch):
    """Documents, their numbers, every line (moved to the whole text's) and problems, whichever
    composer each run takes: the line composer, or PyYAML's where a run has an anchor or a problem."""
    with_anchor = STREAM.replace("name: p30\n", "name: &n p30\n  alias: *n\n")
    with_duplicate = STREAM.replace("name: p45\n", "name: p45\n  name: again\n")
    json_values = "".join(f'{{"kind": "Pod", "metadata": {{"name": "j{i}"}}}}\n' for i in range(40))
    for text in (STREAM, with_anchor, with_duplicate, json_values):
        whole, whole_problems = compose(text, Limits())
        documents, problems, runs = _composed_in_runs(text, Limits(), 500, monkeypatch)
        assert runs > 3
        assert _as_composed(documents) == _as_composed(whole) and problems == whole_problems


def test_composing_in_runs_stops_where_a_syntax_error_stops_the_whole_text(monkeypatch):
    broken = STREAM.replace("name: p20\n", "name: [p20\n")
    whole, whole_problems = compose(broken, Limits())
    documents, problems, _ = _composed_in_runs(broken, Limits(), 500, monkeypatch)
    assert [d.index for d in documents] == [d.index for d in whole] and len(whole) < 60
    assert problems == whole_problems and problems[0].message.startswith("YAML syntax error")


def test_the_document_limit_counts_every_run(monkeypatch):
    whole, whole_problems = compose(STREAM, Limits(max_documents=25))
    documents, problems, _ = _composed_in_runs(STREAM, Limits(max_documents=25), 500, monkeypatch)
    assert len(documents) == len(whole) == 25
    assert problems == whole_problems and "more than 25 documents" in problems[0].message


def test_a_directive_stays_with_the_document_after_it(monkeypatch):
    text = STREAM.replace(
        "---\nkind: Pod\nmetadata:\n  name: p40\n", "...\n%YAML 1.1\n---\nkind: Pod\nmetadata:\n  name: p40\n"
    )
    whole, whole_problems = compose(text, Limits())
    documents, problems, _ = _composed_in_runs(text, Limits(), 500, monkeypatch)
    assert _as_composed(documents) == _as_composed(whole) and problems == whole_problems


def _composed_in_halves(text: str, limits: Limits, monkeypatch):
    """``text`` cut by ``halves`` and composed half after half by one RunComposer (runs of ~500 characters)."""
    monkeypatch.setattr(yamltree, "SPLIT_CHARS", 0)
    monkeypatch.setattr(yamltree, "RUN_CHARS", 500)
    cut = halves(text, limits)
    assert cut is not None
    composer = RunComposer(limits)
    documents, problems = [], []
    for half in (cut.first, cut.second):
        for composed, found in composer.runs(half):
            documents += composed
            problems += found
        if half is cut.first:
            first_documents = composer.documents
    return cut, first_documents, documents, problems


def test_a_text_composed_half_after_half_is_the_text_composed_whole(monkeypatch):
    with_anchor = STREAM.replace("name: p30\n", "name: &n p30\n  alias: *n\n")
    broken = STREAM.replace("name: p10\n", "name: [p10\n")
    limited = (STREAM, Limits(max_documents=45))
    for text, limits in ((STREAM, Limits()), (with_anchor, Limits()), (broken, Limits()), limited):
        whole, whole_problems = compose(text, limits)
        cut, _, documents, problems = _composed_in_halves(text, limits, monkeypatch)
        assert cut.first + cut.second == text and cut.second.startswith("---\n")
        assert _as_composed(documents) == _as_composed(whole) and problems == whole_problems


def test_a_halfs_documents_are_counted_from_its_lines_as_the_composer_numbers_them(monkeypatch):
    for text in (STREAM, "# a comment\n" + STREAM, "kind: Pod\n" + STREAM, STREAM.replace("---\n", "--- \n")):
        cut, first_documents, _, _ = _composed_in_halves(text, Limits(), monkeypatch)
        assert cut.documents_before == first_documents and cut.lines_before == cut.first.count("\n")
    # Written otherwise ("---" twice in a row), the count may differ: the loader then reads one process's way.
    doubled = STREAM.replace("name: p28\n", "name: p28\n---\n")
    cut, first_documents, _, _ = _composed_in_halves(doubled, Limits(), monkeypatch)
    assert cut.documents_before != first_documents


def test_only_a_long_block_yaml_stream_with_a_document_line_after_its_middle_is_cut(monkeypatch):
    assert halves(STREAM, Limits()) is None  # shorter than SPLIT_CHARS
    monkeypatch.setattr(yamltree, "SPLIT_CHARS", 0)
    json_values = "".join(f'{{"kind": "Pod", "metadata": {{"name": "j{i}"}}}}\n' for i in range(40))
    assert halves(json_values, Limits()) is None
    assert halves("kind: Pod\nmetadata:\n  name: one\n", Limits()) is None
    deep = STREAM + "---\nx: " + "[" * 10 + "]" * 10 + "\n"
    assert (
        halves(deep, Limits()) is not None and halves(deep, Limits(max_depth=5)) is None
    )  # its problem: one process's


def test_the_bracket_scan_finds_the_line_past_the_depth_with_any_characters_between_and_none_when_shallow():
    from scheduler_core.scenario.yamltree import deep_flow_line

    deep = "a: 'é ['\nb: " + "[ü" * 5 + "]" * 5 + "\n"
    assert deep_flow_line(deep, 5) == 2  # the quoted bracket counts too (the scan cannot tell)
    assert deep_flow_line(deep, 6) is None
    shallow = 's: \'{"x":["y"]}\'\n' * 1000  # many brackets, two deep at most
    assert deep_flow_line(shallow, 2) is None and deep_flow_line(shallow, 1) == 1
