"""scenario/fields.py: located, typed reads of a YAML value that record a problem instead of raising."""

from __future__ import annotations

from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field, describe
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.yamltree import compose

TEXT = """\
metadata:
  name: web
spec:
  replicas: 3
  paused: yes
  ratio: 2.0
  port: 70000
  names: [a, 5]
  size: 12
"""


def _root(text: str = TEXT) -> tuple[Field, list[ScenarioError]]:
    [document], problems = compose(text, Limits())
    assert problems == []
    errors: list[ScenarioError] = []
    return Field(document.value, "", 1, Context("Deployment web", errors, "app.yaml")), errors


def test_reads_know_their_path_and_line():
    root, errors = _root()
    spec = root.get_map("spec")
    replicas = spec.get("replicas")
    assert (replicas.value, replicas.path, replicas.line) == (3, "spec.replicas", 4)
    names = spec.get_list("names")
    assert [(n.path, n.line) for n in names] == [("spec.names[0]", 8), ("spec.names[1]", 8)]
    assert root.get("absent") is None and root.get_list("absent") == [] and errors == []


def test_typed_reads_accept_their_type_and_json_integers():
    root, errors = _root()
    spec = root.get("spec")
    assert spec.get_int("replicas") == 3
    assert spec.get_int("ratio") == 2  # JSON has one number type
    assert spec.get_bool("paused") is True  # go-yaml v2 (sigs.k8s.io/yaml): yes is a boolean
    assert root.get("metadata").get_str("name") == "web"
    assert spec.get_optional_int("absent") is None
    assert errors == []


def test_a_wrong_type_records_a_located_problem_and_returns_the_default():
    root, errors = _root()
    spec = root.get("spec")
    assert spec.get_str("size", "none") == "none"
    assert spec.get_int("port", 80, low=1, high=65535) == 80
    assert [value for value, _ in spec.get_str_list("names")] == ["a", ""]
    assert spec.get_map("replicas") is None
    assert [(e.path, e.line, e.message) for e in errors] == [
        ("spec.size", 9, 'expected a string, got an integer (12) (quote it: "12")'),
        ("spec.port", 7, "must be between 1 and 65535, inclusive (got 70000)"),
        ("spec.names[1]", 8, 'expected a string, got an integer (5) (quote it: "5")'),
        ("spec.replicas", 4, "expected a mapping, got an integer (3)"),
    ]
    assert {(e.object, e.file) for e in errors} == {("Deployment web", "app.yaml")}


def test_an_optional_int_out_of_range_is_none_with_a_problem():
    root, errors = _root()
    assert root.get("spec").get_optional_int("port", low=0, high=100) is None
    assert errors[0].message == "must be between 0 and 100, inclusive (got 70000)"
    assert root.get("spec").get_int("replicas", low=5) == 0
    assert errors[1].message == "must be greater than or equal to 5 (got 3)"


def test_error_at_an_absent_child_uses_the_parents_line():
    root, errors = _root()
    root.get("spec").error_at("template", "Required value")
    assert (errors[0].path, errors[0].line) == ("spec.template", 3)


def test_describe_names_the_kind_and_shortens_long_values():
    assert describe(None) == "null"
    assert describe(False) == "a boolean (false)"
    assert describe(1.5) == "a number (1.5)"
    assert describe("x" * 50) == f'a string ("{"x" * 40}...")'
