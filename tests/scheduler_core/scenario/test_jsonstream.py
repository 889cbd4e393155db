"""Several JSON values in one file become one YAML document each, with their lines kept."""

from __future__ import annotations

import json

import pytest

from scheduler_core.scenario import load_scenario
from scheduler_core.scenario.jsonstream import as_yaml_stream, value_starts
from tests.scheduler_core.scenario.support import errors_of

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}


def listed(*items: dict) -> dict:
    return {"apiVersion": "v1", "kind": "List", "items": list(items), "metadata": {"resourceVersion": ""}}


def test_two_pretty_printed_lists_load_as_kubectl_prints_them():
    text = json.dumps(listed(NODE), indent=4) + "\n" + json.dumps(listed(POD), indent=4) + "\n"
    scenario = load_scenario(text)
    assert [n.name for n in scenario.nodes] == ["n1"] and [p.key for p in scenario.pending_pods] == ["default/web"]


def test_one_value_per_line_loads_too():
    text = "\n".join(json.dumps(obj) for obj in (NODE, POD))
    assert len(load_scenario(text).pods) == 1


def test_lines_stay_the_ones_in_the_file():
    bad_pod = {**POD, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}
    text = json.dumps(listed(NODE), indent=2) + "\n" + json.dumps(bad_pod, indent=2) + "\n"
    [error] = errors_of(text)
    wanted = next(i for i, line in enumerate(text.splitlines(), 1) if '"lots"' in line)
    assert error.line == wanted and error.object == "Pod default/web"


@pytest.mark.parametrize("text", [
    pytest.param('{"a": 1}', id="one value"),
    pytest.param("kind: Pod\n", id="YAML"),
    pytest.param('{"a": 1} x {"b": 2}', id="text between values"),
    pytest.param('{"a": 1}\n"loose"\n{"b": 2}', id="a bare string between values"),
    pytest.param('{"a": [1}', id="unbalanced"),
])
def test_anything_else_is_left_to_the_yaml_reader(text):
    assert as_yaml_stream(text) == text


def test_brackets_inside_strings_do_not_count():
    text = '{"a": "}{[\\"]"}\n{"b": 2}'
    assert value_starts(text) == [0, text.index('{"b"')]
    assert as_yaml_stream(text) == '{"a": "}{[\\"]"}\n--- {"b": 2}'


def test_two_values_on_one_line_are_split():
    assert as_yaml_stream('{"a": 1}{"b": 2}') == '{"a": 1}\n--- {"b": 2}'
