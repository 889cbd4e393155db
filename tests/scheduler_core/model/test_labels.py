"""Label and node selector matching against a plain reference implementation of the Kubernetes rules."""

from __future__ import annotations

import re
from typing import Mapping, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.model.labels import (
    compile_selector,
    map_selector_matches,
    merge_match_label_keys,
    node_selector_matches,
    node_selector_matches_labels,
    node_selector_term_matches,
    selector_from_map,
    selector_matches,
)
from scheduler_core.model import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)

KEYS = ["app", "tier", "zone", "cores"]
VALUES = ["a", "b", "c", "1", "10", "-3", "+4", "x1", ""]


def _reference_requirement(key: str, operator: str, values: tuple[str, ...], labels: Mapping[str, str]) -> bool:
    """k8s.io/apimachinery labels.Requirement.Matches, written out longhand."""
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if len(values) != 1 or not present:
        return False
    try:
        have, bound = int(labels[key]), int(values[0])
    except ValueError:
        return False
    return have > bound if operator == "Gt" else have < bound


def _reference_selector(selector: Optional[LabelSelector], labels: Mapping[str, str]) -> bool:
    if selector is None:
        return False
    pairs_ok = all(labels.get(k) == v for k, v in selector.match_labels)
    return pairs_ok and all(
        _reference_requirement(r.key, r.operator, r.values, labels) for r in selector.match_expressions
    )


label_maps = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=4)
values = st.lists(st.sampled_from(VALUES), max_size=3).map(tuple)
set_requirements = st.builds(
    LabelSelectorRequirement, st.sampled_from(KEYS), st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]), values
)
selectors = st.none() | st.builds(
    LabelSelector,
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2).map(lambda d: tuple(sorted(d.items()))),
    st.lists(set_requirements, max_size=3).map(tuple),
)
node_requirements = st.builds(
    NodeSelectorRequirement,
    st.sampled_from(KEYS),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    values,
)


@settings(max_examples=300, deadline=None)
@given(selectors, label_maps)
def test_compile_selector_agrees_with_the_reference(selector, labels):
    assert compile_selector(selector).matches(labels) == _reference_selector(selector, labels)


@settings(max_examples=300, deadline=None)
@given(st.lists(node_requirements, min_size=1, max_size=3), label_maps)
def test_node_selector_terms_agree_with_the_reference(requirements, labels):
    term = NodeSelectorTerm(tuple(requirements))
    node = Node("n1", labels=dict(labels))
    expected = all(_reference_parses(r) for r in requirements) and all(
        _reference_requirement(r.key, r.operator, r.values, labels) for r in requirements
    )
    assert node_selector_term_matches(term, node) == expected


LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _reference_parses(req: NodeSelectorRequirement) -> bool:
    """A node-selector term with a requirement that does not parse never matches (nodeaffinity).
    labels.NewRequirement: counts per operator, an integer for Gt/Lt, then every value must be a
    label value (so "-3" and "+4" never parse, even for Gt/Lt)."""
    if not all(LABEL_VALUE.match(value) and len(value) <= 63 for value in req.values):
        return False
    if req.operator in ("In", "NotIn"):
        return len(req.values) > 0
    if req.operator in ("Exists", "DoesNotExist"):
        return not req.values
    if len(req.values) != 1:
        return False
    try:
        int(req.values[0])
    except ValueError:
        return False
    return True


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(label_maps, label_maps)
def test_a_map_selector_matches_when_every_pair_is_present(required, labels):
    expected = all(k in labels and labels[k] == v for k, v in required.items())
    assert map_selector_matches(required, labels) == expected
    assert selector_matches(selector_from_map(required), labels) == expected


def test_a_nil_selector_selects_nothing_and_an_empty_one_everything():
    assert not selector_matches(None, {"app": "a"})
    assert not selector_matches(None, {})
    assert selector_matches(LabelSelector(), {})
    assert selector_matches(LabelSelector(), {"app": "a"})


@pytest.mark.parametrize(
    "operator, values, labels, expected",
    [
        ("In", ("a",), {"app": "a"}, True),
        ("In", ("a",), {}, False),
        ("NotIn", ("a",), {}, True),
        ("NotIn", ("a",), {"app": "a"}, False),
        ("Exists", (), {"app": ""}, True),
        ("DoesNotExist", (), {"app": ""}, False),
        ("Gt", ("5",), {"app": "10"}, True),
        ("Gt", ("5",), {"app": "5"}, False),
        ("Lt", ("5",), {"app": "-7"}, True),
        ("Lt", ("5",), {"app": "x"}, False),
        ("Gt", ("x",), {"app": "10"}, False),
        ("Gt", ("1", "2"), {"app": "10"}, False),
        ("Gt", ("5",), {}, False),
        ("Gt", ("1",), {"app": "99999999999999999999"}, False),
    ],
    ids=lambda v: str(v),
)
def test_node_requirement_operators_follow_kubernetes(operator, values, labels, expected):
    term = NodeSelectorTerm((NodeSelectorRequirement("app", operator, values),))
    assert node_selector_term_matches(term, Node("n1", labels=labels)) == expected


def test_an_empty_node_selector_term_matches_nothing_and_terms_are_ored():
    node = Node("n1", labels={"zone": "a"})
    empty = NodeSelectorTerm()
    zone_a = NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),))
    assert not node_selector_term_matches(empty, node)
    assert node_selector_matches(NodeSelector((empty, zone_a)), node)
    assert not node_selector_matches(NodeSelector(()), node)


def test_match_fields_select_by_node_name_only():
    by_name = NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("n1",)),))
    other_field = NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.uid", "In", ("n1",)),))
    assert node_selector_term_matches(by_name, Node("n1"))
    assert not node_selector_term_matches(by_name, Node("n2"))
    assert not node_selector_term_matches(other_field, Node("n1"))


def test_match_label_keys_add_the_pods_own_values():
    merged = merge_match_label_keys(LabelSelector((("app", "a"),)), ("tier", "missing"), {"tier": "web"})
    assert selector_matches(merged, {"app": "a", "tier": "web"})
    assert not selector_matches(merged, {"app": "a", "tier": "db"})
    assert merge_match_label_keys(None, ("missing",), {}) is None


@pytest.mark.parametrize(
    "term, labels, expected",
    [
        pytest.param(
            NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),)),
            {"zone": "a"},
            True,
            id="a node known by its labels matches a term of expressions",
        ),
        pytest.param(
            NodeSelectorTerm((), (NodeSelectorRequirement("metadata.name", "In", ("n9",)),)),
            {},
            True,
            id="match fields are skipped for a node without a name, as CheckNodeAffinity's node has none",
        ),
        pytest.param(
            NodeSelectorTerm((), (NodeSelectorRequirement("metadata.name", "In", ("a", "b")),)),
            {},
            False,
            id="a malformed field requirement still fails its term",
        ),
        pytest.param(NodeSelectorTerm(), {"zone": "a"}, False, id="an empty term matches nothing"),
    ],
)
def test_node_selector_matches_labels(term, labels, expected):
    assert node_selector_matches_labels(NodeSelector((term,)), labels) is expected


def test_match_label_keys_never_turn_a_nil_selector_into_one_that_selects():
    # mergeLabelSetWithSelector on labels.Nothing() keeps Nothing: the pod's keys select no pod.
    assert merge_match_label_keys(None, ("tier",), {"tier": "web"}) is None


def test_a_key_merged_twice_selects_the_same_pods():
    once = merge_match_label_keys(LabelSelector((("app", "a"),)), ("tier",), {"tier": "web"})
    twice = merge_match_label_keys(once, ("tier",), {"tier": "web"})
    for labels in ({"app": "a", "tier": "web"}, {"app": "a", "tier": "db"}, {"app": "a"}):
        assert selector_matches(once, labels) == selector_matches(twice, labels)


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(NodeSelectorRequirement("cores", "Lt", ("four",)), id="Lt with a value that is no integer"),
        pytest.param(NodeSelectorRequirement("zone", "In", ("a b",)), id="In with a value that is no label value"),
        pytest.param(NodeSelectorRequirement("zone", "NotIn", ("x" * 64,)), id="a value over 63 characters"),
    ],
)
def test_a_term_whose_requirement_does_not_parse_matches_nothing_but_the_others_still_do(bad):
    node = Node("n1", labels={"cores": "8", "zone": "a"})
    broken = NodeSelectorTerm((bad,))
    fine = NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),))
    assert not node_selector_term_matches(broken, node)
    assert node_selector_term_matches(fine, node)
