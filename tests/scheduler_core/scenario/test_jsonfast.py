"""The line composer for pretty-printed JSON (jsonfast): on any text it answers exactly what the event
composer (yamltree.Composer) answers after ``as_yaml_stream`` and the scans before it — documents,
their lines, values with their Python types, key order, the line of every key and item — or declines.
Held against dumps of random JSON (every indentation, escapes, numbers of every shape, keys YAML reads
specially), several values back to back, kubectl-style dumps of the fixtures and the examples, the
depth and document limits, and texts it must decline; and ``compose``/``compose_runs`` answer as the
event composer alone does."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scheduler_core.scenario import yamltree
from scheduler_core.scenario.jsonfast import compose_json
from scheduler_core.scenario.jsonstream import as_yaml_stream
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamltree import Composer, compose
from tests.scheduler_core.scenario.support import documents_shape

ROOT = Path(__file__).resolve().parents[3]


def _fast(text: str, limits: Limits = Limits(), **options: Any):
    return compose_json(text, limits, Composer(limits), **options)


def _by_events(text: str, limits: Limits) -> tuple[list[Any], list[Any]]:
    """What yamltree.compose answered before the line composers: the scans, then the event composer."""
    text = as_yaml_stream(text)
    problem = yamltree._too_deep(text, limits)
    if problem is not None:
        return [], [problem]
    composer = Composer(limits)
    return documents_shape(composer.compose(text)), composer.problems


def _same_or_declined(text: str, limits: Limits = Limits()) -> bool:
    """True when the line composer answers (then exactly as the event composer, which finds no
    problem), False when it declines; and compose answers as the event composer does either way."""
    fast = _fast(text, limits)
    expected = _by_events(text, limits)
    documents, problems = compose(text, limits)
    assert (documents_shape(documents), problems) == expected
    if fast is None:
        return False
    assert expected == (documents_shape(fast), [])
    return True


# ------------------------------------------------------------------ random JSON
NUMBER = "@@number:"  # a string the dump turns into the number token after it: shapes json.dumps never writes
NUMBERS = ["1e5", "1E5", "-0", "-0.0", "1.0", "0.5e-3", "1e+2", "123456789012345678901234567890", "1.5E300", "1e400"]
SPECIAL_KEYS = ["true", "on", "On", "y", "n", "no", "null", "~", "<<", "", "1", "1e5", "0x1F", "-", "a: b", "#x", "[]"]
SPECIAL_TEXTS = ["{", "}", "[[", "]", "\\", '"', "/", "\b\f\n\r\t", "\x00\x1f\x7f", "\x85", "\u2028", "\ufeff", "😀"]
KEYS = st.one_of(st.sampled_from(SPECIAL_KEYS), st.text(max_size=8))
TEXTS = st.one_of(st.sampled_from(SPECIAL_TEXTS + SPECIAL_KEYS), st.text(max_size=12))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXTS,
    st.sampled_from(NUMBERS).map(lambda n: NUMBER + n),
)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=20,
)
DUMPS = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, 4, 8]),
        "ensure_ascii": st.booleans(),
        "sort_keys": st.booleans(),
        "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": ")]),
    }
)
EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dump(values: list[Any], options: dict[str, Any], marked: bool = False) -> str:
    texts = [json.dumps(value, **options) for value in values]
    text = ("\n--- " if marked else "\n").join(texts) + "\n"
    return re.sub('"' + NUMBER + '([^"]*)"', r"\1", text)


@EXAMPLES
@given(st.lists(DATA, min_size=1, max_size=3), DUMPS, st.booleans())
def test_a_dump_of_any_json_is_answered_as_the_event_composer_answers_it_or_declined(values, options, marked):
    event("answered" if _same_or_declined(_dump(values, options, marked)) else "declined")


@EXAMPLES
@given(st.lists(DATA, min_size=1, max_size=3), DUMPS, st.sampled_from([1, 2, 3, 64]), st.sampled_from([1, 2, 3]))
def test_the_depth_and_document_limits_decline_where_the_event_composer_reports_them(values, options, depth, count):
    answered = _same_or_declined(_dump(values, options), Limits(max_depth=depth, max_documents=count))
    event("answered" if answered else "declined")


@EXAMPLES
@given(
    st.lists(DATA, min_size=1, max_size=3),
    DUMPS,
    st.booleans(),
    st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 6)), min_size=1, max_size=3),
)
def test_a_hand_edited_dump_is_answered_as_the_event_composer_answers_it_or_declined(values, options, crlf, edits):
    lines = _dump(values, options).split("\n")
    for where, edit in edits:
        if not lines:
            break
        at = int(where * len(lines))
        line = lines[at]
        if edit == 5:
            del lines[at]  # a line less
        elif edit == 6:
            lines.insert(at, line)  # a line twice
        else:  # a comma less or more, spaces after, "---" before, a blank line
            lines[at] = [line.rstrip(","), line + ",", line + "  ", "--- " + line, line + "\n"][edit]
    text = "\n".join(lines)
    event("answered" if _same_or_declined(text.replace("\n", "\r\n") if crlf else text) else "declined")


# What kubectl and json.dumps(indent=...) write from plain objects: the line composer must answer it
# (or the speed-up is lost without a sign).
# (Brackets in strings balanced, as in a last-applied-configuration annotation: others may decline.)
WORDS = st.one_of(
    st.text('abcdefghijklmnopqrstuvwxyzABC0123456789-./: "\\é😀', max_size=12),
    st.sampled_from(["[a]", "{x}", '{"a":[1,{}]}']),
)
PLAIN_DATA = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), WORDS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(WORDS.filter(lambda k: k != "<<"), inner, max_size=4)
    ),
    max_leaves=20,
)


@EXAMPLES
@given(
    st.lists(PLAIN_DATA.filter(lambda v: isinstance(v, (dict, list))), min_size=1, max_size=3),
    st.sampled_from([1, 2, 4]),
    st.booleans(),
)
def test_a_pretty_dump_of_plain_objects_is_answered_not_declined(values, indent, marked):
    # The surrogate pairs ensure_ascii writes for "😀" decline: written as it is.
    assert _same_or_declined(_dump(values, {"indent": indent, "ensure_ascii": False}, marked))


def _envelope(dump: Path) -> str:
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools/envelope_dump.py"), str(dump), "--copies", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return run.stdout


@pytest.mark.parametrize("dump", sorted((ROOT / "tests/fixtures/dumps").glob("*.yaml")), ids=lambda p: p.name)
def test_kubectl_style_json_dumps_are_answered_as_the_event_composer_answers_them(dump):
    assert _same_or_declined(_envelope(dump))


JSON_FILES = sorted(p for root in ("examples", "tests/fixtures") for p in (ROOT / root).rglob("*.json"))


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_json_examples_and_fixtures_are_answered_as_the_event_composer_answers_them(path):
    text = path.read_text(encoding="utf-8")
    answered = _same_or_declined(text)
    if _pretty(text):
        assert answered, "a pretty-printed JSON file declined"


def _pretty(text: str) -> bool:
    """Whether ``text`` is what json.dumps (or kubectl) writes with an indentation."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    layouts = ({"indent": indent, "ensure_ascii": ascii} for indent in (2, 4) for ascii in (False, True))
    return any(text.strip() == json.dumps(value, **layout) for layout in layouts)


# ------------------------------------------------------------------ what it answers, line by line
def test_documents_are_numbered_and_lined_as_the_event_composer_numbers_them():
    text = '\n\n  {\n  "a": [\n    1,\n    {},\n    []\n  ],\n  "b": {\n  }\n}\n\n[\n]\n[\n  "x"\n]\n'
    fast = _fast(text, Limits(), earlier=3, first_line=10)
    assert [(d.index, d.line) for d in fast] == [(4, 12), (5, 22), (6, 24)]
    assert fast[0].value.lines == {"a": 13, "b": 18} and fast[0].value["a"].lines == [14, 15, 16]
    assert _same_or_declined(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}\n',  # on one line
        '{\n  "a": 1,\n}\n',  # a trailing comma
        '{\n  "a": 1\n  "b": 2\n}\n',  # a comma missing: YAML reads one scalar over two lines
        '{\n  "a": 1,\n  "a": 2\n}\n',  # a duplicate key
        '{\n  "<<": {}\n}\n',  # a merge key
        '[\n  "\\ud83d\\ude00"\n]\n',  # a surrogate pair: libyaml refuses the escape
        '[\n  "\\x41"\n]\n',  # an escape JSON has not
        '[\n  "a\tb"\n]\n',  # a tab
        "[\n\t1\n]\n",
        '[\n  "\x85"\n]\n',  # a line break for libyaml
        "\ufeff[\n]\n",  # a BOM
        "[\n  1,\n  'a'\n]\n",  # not JSON
        "[\n  NaN\n]\n",
        "[\n  01\n]\n",
        "[\n  1\n",  # not closed
        "[\n]\n]\n",
        '"a"\n',  # a scalar at the top level
        "{\n}\n--- [\n]\n[\n]\n",  # "---" before some values only
        "[]\n--- [],\n",  # a comma after a top-level value
        '{\n  "a": [\n--- 1\n  ]\n}\n',
        '{\n  "' + "k" * 300 + '": 1\n}\n',  # a key too long for a simple key
        "[\n  1\r]\n",  # a lone CR
        "[\n  [\n    1\n  }\n]\n",  # a bracket closing what it did not open
    ],
)
def test_it_declines_what_it_does_not_read_as_the_event_composer_does(text):
    assert _fast(text) is None
    assert not _same_or_declined(text)


def test_brackets_in_strings_count_towards_the_depth_as_the_scan_before_the_event_composer_counts_them():
    limits = Limits(max_depth=3)
    assert _fast('[\n  "[[[[",\n  1\n]\n', limits) is None  # _too_deep reports it
    assert _fast('[\n  "]]]]",\n  1\n]\n', limits) is None  # the scan's depth falls below the nesting
    assert _fast('[\n  "[[]]",\n  {\n    "[": "]"\n  }\n]\n', limits) is not None
    for text in ('[\n  "[[[[",\n  1\n]\n', '[\n  "[[",\n  [\n    []\n  ]\n]\n', '[\n  "[]",\n  [\n    []\n  ]\n]\n'):
        _same_or_declined(text, limits)


def test_several_values_are_declined_when_a_single_one_is_asked_for():
    assert _fast("[\n]\n{\n}\n", single=True) is None
    assert _fast("\n[\n  1\n]\n", single=True) is not None


@pytest.mark.parametrize("dump", ["aks_mid_preemption.yaml", "kubeadm_calico.yaml"])
def test_compose_runs_answers_as_compose_on_json_values_big_or_not(dump, monkeypatch):
    one = _envelope(ROOT / "tests/fixtures/dumps" / dump)
    events: list[int] = []
    by_events = Composer.compose
    monkeypatch.setattr(Composer, "compose", lambda self, text: events.append(len(text)) or by_events(self, text))
    for text in (one, one + one, one + "\n" + one.replace("\n", "\n\n", 3) + one):
        expected = _by_events(text, Limits())
        for run_chars in (yamltree.RUN_CHARS, 4096, len(text) // 3):
            monkeypatch.setattr(yamltree, "RUN_CHARS", run_chars)
            documents: list[Any] = []
            problems: list[Any] = []
            for run_documents, run_problems in yamltree.compose_runs(text, Limits()):
                documents += documents_shape(run_documents)
                problems += run_problems
            assert (documents, problems) == expected
        assert events == [len(as_yaml_stream(text))]  # _by_events' own: every run was composed line by line
        events.clear()


def test_compose_answers_pretty_json_without_the_scans_or_the_event_composer(monkeypatch):
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not the fast path")

    monkeypatch.setattr(yamltree, "as_yaml_stream", fail)
    monkeypatch.setattr(yamltree, "_too_deep", fail)
    monkeypatch.setattr(Composer, "compose", fail)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "a": [1e5, None]}]}, indent=4)
    documents, problems = compose(text, Limits())
    assert problems == [] and documents[0].value["items"][0]["kind"] == "Node"
    assert [len(run) for run, _ in yamltree.compose_runs(text + "\n" + text, Limits())] == [2]
