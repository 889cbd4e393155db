"""JSON Lists tidied an item at a time: exactly the whole-text path's text, or not taken."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webui.services import imports, listtidy

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"


def whole_text_path(text: str) -> str | None:
    """What imports._reformat_list wrote before this module: every value decoded, then dumped."""
    documents = imports._json_values(text)
    if documents is None or not documents or not all(isinstance(doc, dict) for doc in documents):
        return None
    if not any(map(imports._is_list, documents)):
        return None
    items = [item for doc in documents for item in (doc.get("items") or [] if imports._is_list(doc) else [doc])]
    return imports._dump_items(items, None)


def streamed(text: str) -> str | None:
    return listtidy.tidied_lists(text, imports._json_decoder(), imports.DUMPER, imports._without_server_fields)


# Strings that YAML or Kubernetes read as something else when plain, that need quotes or escapes,
# or that a block scalar or folding writes over several lines.
TRICKY = [
    "",
    "y",
    "n",
    "on",
    "null",
    "~",
    "true",
    "1e3",
    "0o17",
    "0x1F",
    ".5",
    "1:30",
    "<<",
    "- a",
    "a: b",
    "#x",
    " lead",
    "trail ",
    "line\nbreak",
    "ends\n\n",
    "tab\there",
    "quote'\"",
    "ünï",
    "emoji \U0001f600",
    "x" * 100,
    "word " * 30,
    "\u2028",
    "\x85",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(TRICKY),
    st.text(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.one_of(st.sampled_from(TRICKY), st.text(max_size=8)), inner, max_size=4)
    ),
    max_leaves=25,
)
objects = st.dictionaries(st.sampled_from(["kind", "metadata", "spec", "status", "items", "x"]), values, max_size=5)
metadata = st.fixed_dictionaries(
    {"name": st.text(max_size=8)},
    optional={
        "uid": st.text(max_size=4),
        "managedFields": st.lists(values, max_size=2),
        "annotations": st.dictionaries(st.sampled_from(["a", imports.LAST_APPLIED]), st.text(max_size=8), max_size=2),
        "labels": st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
    },
)
items = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["Node", "Pod"]), "metadata": metadata}, optional={"spec": values}),
    objects,
    values,
)
lists = st.fixed_dictionaries(
    {"kind": st.sampled_from(["List", "List", "Other"]), "items": st.one_of(st.lists(items, max_size=5), st.none())},
    optional={"apiVersion": st.just("v1"), "metadata": st.just({"resourceVersion": ""})},
)


def layouts(documents: list[object]) -> list[str]:
    """The documents back to back as kubectl writes them (4 spaces), compact, and on one line."""
    return [
        "\n".join(json.dumps(doc, indent=4) for doc in documents) + "\n",
        "".join(json.dumps(doc, separators=(",", ":")) for doc in documents),
        " \n".join(json.dumps(doc, indent=1, ensure_ascii=False) for doc in documents),
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(lists, objects), min_size=1, max_size=3))
def test_any_json_stream_is_tidied_as_the_whole_text_path_tidies_it_or_is_not_taken(documents):
    for text in layouts(documents):
        fast = streamed(text)
        if fast is not None:
            assert fast == whole_text_path(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(items, max_size=6))
def test_every_kubectl_list_is_taken(listed):
    text = json.dumps(
        {"apiVersion": "v1", "items": listed, "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4
    )
    fast = streamed(text)
    assert fast is not None and fast == whole_text_path(text)


@pytest.mark.parametrize("dump", sorted(DUMPS.glob("*.yaml")), ids=lambda path: path.name)
def test_real_dumps_as_kubectl_json_are_tidied_as_before(dump):
    import yaml

    documents = [doc for doc in yaml.load_all(dump.read_text(), Loader=imports.LOADER) if doc is not None]
    text = json.dumps({"apiVersion": "v1", "items": documents, "kind": "List", "metadata": {}}, indent=4)
    fast = streamed(text)
    assert fast is not None and fast == whole_text_path(text)


@pytest.mark.parametrize(
    "text",
    [
        '[{"kind": "List", "items": []}]',  # an array at the top
        '{"kind": "List", "items": [{"a": 1}], "items": [{"b": 2}]}',  # items twice
        '{"items": [{"a": 1}], "kind": "Other"}',  # streamed items of an object that is not a List
        '{"kind": "Pod"}',  # no List
        '{"kind": "List", "items": [1, 2',  # cut short
        '{"kind": "List", "items": [NaN]}',  # not JSON
        '{"kind": "List", "items": []} x',  # something after the values
        '\ufeff{"kind": "List", "items": []}',  # a byte order mark: the YAML parser's
    ],
)
def test_what_it_does_not_take_is_left_to_the_whole_text_path(text):
    assert streamed(text) is None


def test_the_progress_is_told_every_so_many_items_and_at_the_end(monkeypatch):
    monkeypatch.setattr(listtidy, "PROGRESS_EVERY", 2)
    told: list[tuple[int, int]] = []
    text = json.dumps({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(5)]})
    listtidy.tidied_lists(
        text,
        imports._json_decoder(),
        imports.DUMPER,
        imports._without_server_fields,
        lambda *told_now: told.append(told_now),
    )
    assert [done for done, _percent in told] == [2, 4, 5]
    assert [percent for _done, percent in told] == sorted(percent for _done, percent in told) and told[-1][1] == 100


def test_the_remembered_scalars_are_forgotten_past_their_bound_with_the_same_text(monkeypatch):
    text = json.dumps({"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(50)]})
    whole = streamed(text)
    monkeypatch.setattr(listtidy, "REMEMBERED", 3)
    assert streamed(text) == whole == whole_text_path(text)


# --- a big List's items in two processes ---------------------------------------------------------


def in_two_processes(text: str) -> str | None:
    return listtidy.tidied_lists(
        text, imports._json_decoder(), imports.DUMPER, imports._without_server_fields, second_process=True
    )


@pytest.fixture
def every_list_split(monkeypatch):
    monkeypatch.setattr(listtidy, "TWO_PROCESSES_FROM", 0)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(lists, objects), min_size=1, max_size=3))
def test_a_list_split_between_two_processes_is_the_same_text(every_list_split, documents):
    for text in layouts(documents):
        assert in_two_processes(text) == streamed(text)


@pytest.mark.parametrize("dump", sorted(DUMPS.glob("*.yaml")), ids=lambda path: path.name)
def test_real_dumps_split_between_two_processes_are_the_same_text(every_list_split, monkeypatch, dump):
    import yaml

    appended = []
    append_half = listtidy._Writer.append_half
    monkeypatch.setattr(listtidy._Writer, "append_half", lambda *args: appended.append(1) or append_half(*args))

    documents = [doc for doc in yaml.load_all(dump.read_text(), Loader=imports.LOADER) if doc is not None]
    documents = [item for doc in documents for item in (doc.get("items") or [] if imports._is_list(doc) else [doc])]
    text = json.dumps({"apiVersion": "v1", "items": documents, "kind": "List", "metadata": {}}, indent=4)
    split = in_two_processes(text)
    assert split is not None and split == streamed(text)
    assert appended == [1]  # the second half came from the child


def test_the_documents_at_the_boundary_keep_the_emitters_separators(every_list_split):
    # A scalar item is a document that starts on its "---" line; a mapping's "---" stands alone.
    for count in range(1, 7):
        for where in range(count):
            listed: list[object] = [{"kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(count)]
            listed[where] = ["plain", "a\nb\n\n", 1, None, ""][where % 5]
            text = json.dumps({"kind": "List", "items": listed}, indent=4)
            split = in_two_processes(text)
            assert split == streamed(text) == whole_text_path(text)
            assert split is not None and ("--- " in split or where == 0)


def test_a_child_that_fails_leaves_its_half_to_the_parent(every_list_split, monkeypatch):
    def fails(self, at, middle):
        raise RuntimeError("the child's half")

    monkeypatch.setattr(listtidy._SecondHalf, "half", fails)
    text = json.dumps({"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(9)]})
    assert in_two_processes(text) == streamed(text) == whole_text_path(text)


def test_what_the_parent_does_not_take_is_not_taken_with_the_child_stopped(every_list_split):
    text = '{"kind": "List", "items": [{"a": 1}, NaN, ' + ", ".join(['{"b": 2}'] * 20) + "]}"
    assert in_two_processes(text) is None
