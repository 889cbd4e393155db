"""The line composer for plain block YAML (yamlfast): on any text it answers exactly what the event
composer (yamltree.Composer) answers — documents, their lines, values with their Python types, key
order, the line of every key and item — or declines. Held against the corpora, the examples and the
fixtures, dumps of random data (as they are and hand-edited), each rule of lines and each reason to
decline."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scheduler_core.scenario import yamltree
from scheduler_core.scenario.goyaml import resolve_plain
from scheduler_core.scenario.jsonstream import as_yaml_stream
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamlfast import compose_block
from scheduler_core.scenario.yamltree import Composer, compose
from tests.scheduler_core.scenario.support import documents_shape

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared"
BIG = 1_000_000  # bytes: files above it are composed twice only in the slow run


def _fast(text: str, limits: Limits = Limits()):
    return compose_block(text, limits, Composer(limits))


def _same_or_declined(text: str, limits: Limits = Limits()) -> bool:
    """True when the line composer answers (then exactly as the event composer, which finds no
    problem), False when it declines."""
    text = as_yaml_stream(text)  # what yamltree.compose hands both
    fast = _fast(text, limits)
    if fast is None:
        return False
    composer = Composer(limits)
    documents = composer.compose(text)
    assert composer.problems == []
    assert documents_shape(fast) == documents_shape(documents)
    return True


def _files(*roots: Path) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())
    return found


CORPUS = _files(*sorted(SHARED.glob("conformance*")), SHARED / "bench", ROOT / "examples", ROOT / "tests")
BENCH = [p for p in _files(SHARED / "bench") if p.stat().st_size <= BIG]  # generated: each must be answered
SMALL = [p for p in CORPUS if p.stat().st_size <= BIG and p not in BENCH]
LARGE = [p for p in CORPUS if p.stat().st_size > BIG]


def _name(path: Path) -> str:
    return str(path.relative_to(SHARED if SHARED in path.parents else ROOT))


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("path", SMALL, ids=_name)
def test_it_answers_as_the_event_composer_or_declines_on_every_file(path):
    _same_or_declined(path.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("path", LARGE, ids=_name)
def test_it_answers_every_big_file_as_the_event_composer_does(path):
    assert _same_or_declined(path.read_text(encoding="utf-8")), "a big file declined: the speed-up is lost"


@pytest.mark.parametrize("path", BENCH, ids=_name)
def test_it_answers_the_generated_benchmark_files(path):
    assert _same_or_declined(path.read_text(encoding="utf-8"))


KUBECTL_DUMPS = [
    "tests/fixtures/dumps/aks_mid_preemption.yaml",
    "tests/fixtures/dumps/rollout_match_label_keys.yaml",
    "tests/fixtures/statefulset_ebs.yaml",
    "tests/fixtures/dumps/forms/sonobuoy/plugins/e2e/sonobuoy_results.yaml",
]


@pytest.mark.parametrize("name", KUBECTL_DUMPS)
def test_it_answers_kubectl_style_dumps(name):
    assert _same_or_declined((ROOT / name).read_text(encoding="utf-8"))


KUBECTL_OUTPUT = """\
apiVersion: v1
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    annotations:
      deployment.kubernetes.io/revision: "3"
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"}}
    creationTimestamp: "2025-01-02T03:04:05Z"
    generation: 3
    labels:
      app: web
    name: web
    namespace: prod
  spec:
    replicas: 3
    selector:
      matchLabels:
        app: web
    template:
      metadata:
        creationTimestamp: null
        labels:
          app: web
      spec:
        containers:
        - args:
          - --port=8080
          - --verbose
          image: registry.example.com/web:1.2.3
          name: web
          ports:
          - containerPort: 8080
            protocol: TCP
          resources:
            limits:
              memory: 512Mi
            requests:
              cpu: 250m
              memory: 256Mi
        nodeSelector: {}
        tolerations: []
  status:
    conditions:
    - lastTransitionTime: "2025-01-02T03:04:05Z"
      message: 'ReplicaSet "web-6b7f6d9f4c" has timed out progressing: 0/3 nodes are available:
        3 Insufficient cpu.'
      reason: ProgressDeadlineExceeded
      status: "False"
      type: Progressing
    - message: Deployment does not have minimum availability because too few of its pods
        are ready yet
      type: Available
kind: List
metadata:
  resourceVersion: ""
"""


def test_it_answers_what_kubectl_prints():
    assert _same_or_declined(KUBECTL_OUTPUT)
    assert _same_or_declined(KUBECTL_OUTPUT.replace("\n", "\r\n"))


# ------------------------------------------------------------------ random data, dumped


class _LiteralDumper(yaml.SafeDumper):
    """Strings with line breaks as literal block scalars, as kubectl prints them."""


class _IndentedDumper(_LiteralDumper):
    """Sequences indented under their key (PyYAML's own dumper writes them indentless)."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def _literal(dumper, text):
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_LiteralDumper.add_representer(str, _literal)


def _words(text: str) -> list[str]:
    return text.split()


LOOKALIKES = [
    *_words("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF"),
    *_words("~ null Null NULL 0 -0 +1 017 0o17 0x1F 0b101 1_000 190:20:30 -1:30 .5 1. 1e3 1.0e+3 -1.5E-3"),
    *_words(".inf -.Inf +.INF .nan .NaN 2024-01-01 2001-12-14t21:59:43.10-05:00 2002-12-14 ._ 0x_ 1__0 = <<"),
    "a: b",
    "a:b",
    "a #b",
    "a#b",
    "#c",
    " lead",
    "trail ",
    "it's",
    'say "hi"',
    "'q'",
    '"dq"',
    "- x",
    "-x",
    "?x",
    "? x",
    ":x",
    ": x",
    "*a",
    "&a",
    "!a",
    "%a",
    "@a",
    "`a",
    "|a",
    ">a",
    "{a}",
    "[a]",
    "a,b",
    "...",
    "---",
    "",
    " ",
    "é",
    "ü x",
    "日本",
    "\u00a0a",
    "line\nbreak",
    "two\n\nlines\n",
    "end\n",
    "back\\slash",
    "tab\there",
    "long " * 40,
]
TEXT = st.one_of(
    st.sampled_from(LOOKALIKES),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.lists(st.sampled_from(LOOKALIKES), min_size=1, max_size=12).map(" ".join),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)
KEYS = st.one_of(TEXT, st.integers(), st.booleans(), st.none())
DATA = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=24,
)
DUMPS = st.fixed_dictionaries(
    {
        "Dumper": st.sampled_from([yaml.SafeDumper, _LiteralDumper, _IndentedDumper]),
        "indent": st.sampled_from([2, 3, 4]),
        "width": st.sampled_from([20, 60, 80, 10_000]),
        "explicit_start": st.booleans(),
        "allow_unicode": st.booleans(),
        "sort_keys": st.booleans(),
    }
)
# Hand edits: a line at a position gets a comment, a blank line, more or less indentation, a trailing
# comment, a stray line, or is gone.
EDITS = st.lists(
    st.tuples(
        st.integers(0, 200), st.sampled_from(["#", "", ">", "<", " #", "x", "- y", "z: 1", "'q", "|", "-", "del"])
    ),
    max_size=4,
)
EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dump(documents, options) -> str:
    return yaml.dump_all(documents, default_flow_style=False, **options)


def _edit(text: str, edits) -> str:
    lines = text.split("\n")
    for position, edit in edits:
        at = position % len(lines)
        indent = " " * (position % 7)
        if edit == ">":
            lines[at] = " " + lines[at]
        elif edit == "<":
            lines[at] = lines[at][1:] if lines[at].startswith(" ") else lines[at]
        elif edit == " #":
            lines[at] += " # c"
        elif edit == "del":
            del lines[at]
        else:
            lines.insert(at, indent + edit + ("c" if edit == "#" else ""))
        if not lines:
            lines = [""]
    return "\n".join(lines)


@EXAMPLES
@given(st.lists(DATA, min_size=1, max_size=3), DUMPS)
def test_a_dump_of_any_data_is_answered_as_the_event_composer_answers_it_or_declined(documents, options):
    event("answered" if _same_or_declined(_dump(documents, options)) else "declined")  # --hypothesis-show-statistics


@EXAMPLES
@given(st.lists(DATA, min_size=1, max_size=2), DUMPS, EDITS, st.booleans())
def test_a_hand_edited_dump_is_answered_as_the_event_composer_answers_it_or_declined(documents, options, edits, crlf):
    text = _edit(_dump(documents, options), edits)
    event("answered" if _same_or_declined(text.replace("\n", "\r\n") if crlf else text) else "declined")


@EXAMPLES
@given(st.lists(DATA, min_size=1, max_size=2), DUMPS, st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 3]))
def test_the_depth_and_document_limits_decline_where_the_event_composer_reports_them(documents, options, depth, count):
    answered = _same_or_declined(_dump(documents, options), Limits(max_depth=depth, max_documents=count))
    event("answered" if answered else "declined")


# What kubectl and safe_dump write from plain data: the line composer must answer it (or the speed-up
# is lost without a sign).
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Keys kubectl writes plain: a word go-yaml would read as something else (n, Y, off: booleans) it
# quotes; written plain, "n" and "N" are the same key, false, and a dump holding both is a problem.
WORD = st.builds(str.__add__, st.sampled_from(LETTERS), st.text(LETTERS + "0123456789._/-", max_size=15)).filter(
    lambda word: resolve_plain(word) == word
)
LINE = st.lists(st.text(LETTERS, min_size=1, max_size=8), min_size=1, max_size=5).map(" ".join)
PLAIN_TEXT = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters="\\"), max_size=90),
    st.lists(LINE, min_size=2, max_size=4).map("\n".join),
    st.sampled_from(LOOKALIKES[:60]),
)
PLAIN_DATA = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), PLAIN_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(WORD, inner, min_size=1, max_size=4)),
    max_leaves=24,
)


@EXAMPLES
@given(st.lists(st.dictionaries(WORD, PLAIN_DATA, min_size=1, max_size=5), min_size=1, max_size=3), DUMPS)
def test_a_dump_of_plain_objects_is_answered_not_declined(documents, options):
    options = {**options, "Dumper": _LiteralDumper if options["Dumper"] is yaml.SafeDumper else options["Dumper"]}
    assert _same_or_declined(_dump(documents, options))


# ------------------------------------------------------------------ rules of lines, each answered

RULES = {
    "the first document starts on its first line that is no comment": "# c\n\n  # d\na: 1\n",
    "an explicit document starts at its ---": "# c\n---\na: 1\n---\nb: 2\n",
    "an empty explicit document is null, at its ---": "---\n---\n# c\n",
    "a --- at the end opens one more, empty, document": "a: 1\n---\n",
    "a document may hold only a scalar, plain or quoted": "---\nfoo # c\n# c\n---\n'bar'\n",
    "a document may start with a plain scalar over several lines": "foo\n  bar\n\nbaz\n---\nx\n",
    "a root mapping may be indented": "  a: 1\n  b: 2\n",
    "an indentless sequence starts at its first -, an empty item is null at its -": "k:\n- a\n-\nz: 1\n",
    "an item whose node starts below its - has that node's line": "-\n  a: 1\n-\n  - b\n- c\n",
    "a compact mapping starts on its - line": "- a: 1\n  b:\n  - c\n  d: 2\n- e: 3\n",
    "entries nest on one line": "- - a\n  - b\n-   - c\n    - d: 1\n      e: 2\n",
    "an empty value is null, a key below it starts a mapping": "a:\nb:\n  c:\n  d: 1\ne: {}\nf: []\n",
    "keys read as JSON keys, quoted or plain, with spaces before the colon": "1: a\ntrue: b\n~: c\n'x y'  : d\ne : f\n",
    "plain scalars read as Kubernetes reads them (go-yaml v2)": "- 017\n- 0x1F\n- 1_000\n- 190:20:30\n- .5\n- 1e3\n- yes\n- Off\n- ~\n",
    "a quoted scalar reads as written, '' a quote": "- '1'\n- \"yes\"\n- 'it''s'\n- ''\n- \"\"\n- 'a # b'\n",
    "a comment may follow a value": "a: b # c\nd: 'e'  # f\ng: # h\n  i: j\nk:\n- # l\n  m: n\n",
    "a plain scalar folds the deeper lines below it": "a: x\n\n  y\n   z # c\nb: 1\n",
    "a plain scalar folds an entry-like line": "a: x\n  - y\n",
    "a quoted scalar folds its lines": "a: 'x  \n\n   y '' z '\nb: \"p\n  q\"\nc: '\n  r'\n",
    "a quoted scalar's lines may be less indented": "a:\n  b: 'x\ny'\n  c: 1\n",
    "a literal block scalar keeps its lines": "a: |\n  x\n   y\n\n  z\n\n\nb: 1\n",
    "a literal block scalar chomps its end": "a: |-\n  x\n\nb: |+\n  y\n\n\nc: |\n  z\n",
    "a literal block scalar may be empty": "a: |\nb: |+\n\nc: 1\n",
    "a literal block scalar's indentation may be given": "- a: |2\n     x\n    y\n",
    "a literal block scalar's first lines may be empty": "a: |\n\n  \n  x\n",
    "a literal block scalar may end the stream without a line break": "a: |\n  x",
    "a literal block scalar in a sequence": "k:\n- |\n  x\n- y\n",
    "CRLF ends lines as LF does": "a: 1\r\nb:\r\n- x\r\n",
}


@pytest.mark.parametrize("text", RULES.values(), ids=RULES.keys())
def test_it_answers_by_each_rule_of_lines_as_the_event_composer_does(text):
    assert _same_or_declined(text)


def test_an_item_s_line_is_its_node_s_and_a_document_s_the_first_after_comments():
    [first, second] = _fast("# c\n\nk:\n-\n  a: 1\n-\n---\n- x\n")
    assert (first.index, first.line, first.value.line) == (1, 3, 3)
    assert first.value["k"].line == 4 and first.value["k"].lines == [5, 6]
    assert first.value["k"] == [{"a": 1}, None]
    assert (second.index, second.line, second.value.lines) == (2, 7, [8])


# ------------------------------------------------------------------ reasons to decline

DECLINES = {
    "a tab in the indentation": ("a:\n\tb: 1\n", Limits()),
    "a tab in a value": ("a: x\ty\n", Limits()),
    "a flow mapping": ("a: {b: 1}\n", Limits()),
    "a flow sequence": ("a: [1, 2]\n", Limits()),
    "JSON": ('{"a": 1}\n', Limits()),
    "a folded block scalar": ("a: >\n  x\n", Limits()),
    "a literal block scalar as the document": ("|\n  x\n", Limits()),
    "a literal block scalar with a header libyaml reads otherwise": ("a: |#c\n  x\n", Limits()),
    "an anchor": ("a: &x 1\nb: 2\n", Limits()),
    "an alias": ("a: &x 1\nb: *x\n", Limits()),
    "a tag": ("a: !!str 1\n", Limits()),
    "a complex key": ("? a\n: b\n", Limits()),
    "a merge key": ("a:\n  <<:\n    b: 1\n", Limits()),
    "a duplicate key": ("a: 1\nb: 2\na: 3\n", Limits()),
    "two keys that read alike": ("1: a\n'1': b\n", Limits()),
    "a scalar alone below its key": ("a:\n  b\n", Limits()),
    "a document end": ("a: 1\n...\n", Limits()),
    "a directive": ("%YAML 1.1\n---\na: 1\n", Limits()),
    "content after ---": ("--- a: 1\n", Limits()),
    "a byte order mark": ("\ufeffa: 1\n", Limits()),
    "a key too long for a simple key": ("k" * 300 + ": 1\n", Limits()),
    "a next line character": ("a: x\x85y\n", Limits()),
    "a control character": ("a: x\x07y\n", Limits()),
    "a lone CR": ("a: 1\rb: 2\n", Limits()),
    "escapes in a double-quoted scalar": ('a: "x\\ty"\n', Limits()),
    "an escaped line break in a double-quoted scalar": ('a: "x\\\n  y"\n', Limits()),
    "a mapping on a value's line": ("a: b: c\n", Limits()),
    "a sequence on a value's line": ("a: - b\n", Limits()),
    "a quoted scalar the stream ends in": ("a: 'x\n", Limits()),
    "a document marker in a quoted scalar": ("a: 'x\n---\ny'\n", Limits()),
    "a comment right after a quoted scalar": ("a: 'x'#c\n", Limits()),
    "text after a quoted scalar": ("a: 'x' y\n", Limits()),
    "a line after a comment that ends a plain scalar": ("a: x\n  # c\n  y\n", Limits()),
    "a key after a plain scalar over several lines": ("a: x\n  y: 1\n", Limits()),
    "a key indented unlike its mapping": ("a: 1\n b: 2\n", Limits()),
    "an entry in a mapping": ("a: 1\n- b\n", Limits()),
    "a key in a sequence": ("- a\nb: 1\n", Limits()),
    "a line deeper than a quoted scalar": ("a: 'x'\n  b: 1\n", Limits()),
    "nesting deeper than Limits.max_depth": ("a:\n  b:\n    c: 1\n", Limits(max_depth=2)),
    "an empty mapping deeper than Limits.max_depth": ("a: {}\n", Limits(max_depth=1)),
    "more documents than Limits.max_documents": ("a: 1\n---\nb: 2\n", Limits(max_documents=1)),
}


@pytest.mark.parametrize("text, limits", DECLINES.values(), ids=DECLINES.keys())
def test_it_declines_and_compose_answers_as_the_event_composer(text, limits):
    assert _fast(as_yaml_stream(text), limits) is None
    composer = Composer(limits)
    documents = composer.compose(as_yaml_stream(text))
    composed, problems = compose(text, limits)
    assert (documents_shape(composed), problems) == (documents_shape(documents), composer.problems)


# ------------------------------------------------------------------ in compose


def test_compose_answers_plain_block_yaml_without_the_event_composer(monkeypatch):
    def no_events(self, text):
        raise AssertionError("the event composer ran")

    monkeypatch.setattr(yamltree.Composer, "compose", no_events)
    [document], problems = compose("a: 1\nb:\n- x\n", Limits())
    assert (document.value, problems) == ({"a": 1, "b": ["x"]}, [])


def test_every_plain_scalar_reads_as_go_yaml_reads_it_never_as_a_problem():
    """YAML 1.1 could not read "0x_" as the int its pattern says; go-yaml keeps such a text a string."""
    [document], problems = compose("a: 0x_\nb: 1:30\n", Limits())
    assert (document.value, problems) == ({"a": "0x_", "b": "1:30"}, [])
