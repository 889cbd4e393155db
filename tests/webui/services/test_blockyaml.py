"""Decoded JSON as block YAML: exactly the dumper's text, or ``Unwritten`` (then the dumper's own)."""

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webui.services import blockyaml, engine

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"


def writer() -> blockyaml.BlockWriter:
    return blockyaml.BlockWriter(engine.YAML_DUMPER, engine.resolve_plain_scalar)


def dumped(value: object) -> str:
    return yaml.dump(value, Dumper=engine.YAML_DUMPER, sort_keys=False, default_flow_style=False)


def written(value: dict) -> str | None:
    try:
        return writer().document(value)
    except blockyaml.Unwritten:
        return None


# Words that make a string plain, quoted, escaped, resolved as something else, or foldable.
WORDS = [
    "a",
    "word",
    "x" * 30,
    "-",
    ":",
    "#",
    "'",
    '"',
    "yes",
    "no",
    "1",
    "0x1F",
    "1:30",
    "2026-11-24T16:39:12Z",
    "<<",
    "=",
    "~",
    "null",
    ".5",
    "-Xmx",
    "a: b",
    "[x]",
    "{y}",
    "---",
    "...",
    "?",
    ",",
    "!",
    "&",
    "*",
    "%",
    "@",
    "`",
    "|",
    ">",
    "a#b",
    "k8s.io/name",
    "10.0.0.1:80",
    "aws:///x",
    "\\",
    "é",
    "\t",
    "\n",
]
strings = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(["", " ", " ", "  "])), max_size=30).map(
    lambda pairs: "".join(word + space for word, space in pairs)
)
scalars = st.one_of(
    strings,
    strings,
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
keys = st.one_of(strings.map(lambda text: text[:40]), st.text(max_size=8), st.just("x" * 129))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=30,
)
documents = st.dictionaries(keys, values, min_size=1, max_size=5)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_a_document_is_written_as_the_dumper_writes_it_or_left_to_the_dumper(document):
    text = written(document)
    assert text is None or text == dumped(document)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=90), st.integers(min_value=0, max_value=6), strings)
def test_a_long_string_folds_where_libyaml_folds_it_at_any_column_and_depth(key_length, depth, text):
    document: dict = {"k" * max(key_length, 1): text}
    for level in range(depth):
        document = {"m": document} if level % 2 else {"s": [document, [text]]}
    out = written(document)
    assert out is None or out == dumped(document)


@pytest.mark.parametrize("dump", sorted(DUMPS.glob("*.yaml")), ids=lambda path: path.name)
def test_the_objects_of_the_real_dumps_are_written_as_the_dumper_writes_them_nearly_all_by_the_writer(dump):
    documents = [doc for doc in yaml.load_all(dump.read_text(), Loader=engine.YAML_LOADER) if doc]
    objects = [item for doc in documents for item in (doc["items"] if doc.get("kind") == "List" else [doc])]
    texts = [written(value) for value in objects]
    assert all(text is None or text == dumped(value) for text, value in zip(texts, objects))
    # (ConfigMaps' multi-line files are the dumper's: kubeadm's calico dump has a few)
    assert sum(text is not None for text in texts) >= 0.9 * len(objects)


@pytest.mark.parametrize(
    "document",
    [
        {"k" * 129: 1},  # a key past 128 characters: "? key" (complex) in the dumper's text
        {"a": "line\nbreak"},  # written over several lines
        {"a": "ünï " * 30},  # double-quoted with escapes, long enough to fold
        {"a": {}, "b": []},  # (written: empty collections as {} and [])
        {1: "a key that is not a string"},
    ],
)
def test_what_it_does_not_write_is_unwritten_and_what_it_writes_is_the_dumpers(document):
    out = written(document)
    if document == {"a": {}, "b": []}:
        assert out == dumped(document) == "a: {}\nb: []\n"
    else:
        assert out is None


def test_a_plain_string_past_the_width_is_folded_at_its_first_single_space_past_column_80():
    text = " ".join(["abcdefghi"] * 12)  # 10 characters a word with its space
    assert (
        written({"key": text})
        == dumped({"key": text})
        == ("key: " + " ".join(["abcdefghi"] * 8) + "\n  " + " ".join(["abcdefghi"] * 4) + "\n")
    )


def test_the_learnt_texts_are_forgotten_past_their_bound_with_the_same_text(monkeypatch):
    monkeypatch.setattr(blockyaml, "REMEMBERED", 3)
    block = writer()
    document = {f"key{i}": f"value {i}" for i in range(10)} | {"quoted": "yes", "n": [1, 2.5, None, True]}
    assert block.document(document) == block.document(document) == dumped(document)
    assert len(block.values) <= 3 and len(block.keys) <= 3


def test_every_first_character_either_resolver_reads_specially_is_asked_of_the_resolvers():
    from scheduler_core.scenario import goyaml

    special = [word for name in ("_NULL", "_TRUE", "_FALSE", "_SPECIAL_FLOATS") for word in getattr(goyaml, name)]
    firsts = {word[0] for word in special if word} | {key for key in engine.YAML_DUMPER.yaml_implicit_resolvers if key}
    assert firsts <= blockyaml._MAY_RESOLVE
