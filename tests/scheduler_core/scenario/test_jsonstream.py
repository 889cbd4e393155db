"""Several JSON values in one file become one YAML document each, with their lines kept."""

from __future__ import annotations

import json

import pytest

from scheduler_core.scenario import load_scenario
from scheduler_core.scenario.jsonstream import as_yaml_stream, blank_container_logs, value_starts
from tests.scheduler_core.scenario.support import errors_of

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]},
}


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


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": 1}', id="one value"),
        pytest.param("kind: Pod\n", id="YAML"),
        pytest.param('{"a": 1} x {"b": 2}', id="text between values"),
        pytest.param('{"a": 1}\n"loose"\n{"b": 2}', id="a bare string between values"),
        pytest.param('{"a": [1}', id="unbalanced"),
    ],
)
def test_anything_else_is_left_to_the_yaml_reader(text):
    assert as_yaml_stream(text) == text


def test_brackets_inside_strings_do_not_count():
    text = '{"a": "}{[\\"]"}\n{"b": 2}'
    assert value_starts(text) == [0, text.index('{"b"')]
    assert as_yaml_stream(text) == '{"a": "}{[\\"]"}\n--- {"b": 2}'


def test_two_values_on_one_line_are_split():
    assert as_yaml_stream('{"a": 1}{"b": 2}') == '{"a": 1}\n--- {"b": 2}'


def logs(pod: str, container: str, *lines: str) -> str:
    """A container's log as `kubectl cluster-info dump` frames it between its lists."""
    return (
        f"==== START logs for container {container} of pod {pod} ====\n"
        + "".join(f"{line}\n" for line in lines)
        + f"==== END logs for container {container} of pod {pod} ====\n"
    )


def test_container_logs_between_the_lists_are_blanked_keeping_every_line():
    text = (
        json.dumps(listed(NODE), indent=4)
        + "\n"
        + logs("kube-system/dns-1", "dns", '{"json": "in a log"', "[")
        + json.dumps(listed(POD), indent=4)
        + "\n"
    )
    blanked, skipped = blank_container_logs(text)
    assert skipped == ["kube-system/dns-1 dns"] and len(blanked) < len(text)
    assert blanked.splitlines() == [
        line if "logs for" not in line and "in a log" not in line and line != "[" else "" for line in text.splitlines()
    ]
    assert value_starts(blanked) is not None


def test_a_log_without_its_end_runs_to_the_end_of_the_text():
    text = json.dumps(listed(NODE)) + "\n==== START logs for container c of pod ns/p ====\n{ not json\n"
    blanked, skipped = blank_container_logs(text)
    assert skipped == ["ns/p c"] and blanked == json.dumps(listed(NODE)) + "\n\n\n"


def test_a_dump_with_its_logs_loads_and_errors_keep_their_lines():
    bad_pod = {**POD, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}
    text = (
        json.dumps(listed(NODE), indent=2)
        + "\n"
        + logs("ns/p", "c", "line 1", "line 2")
        + json.dumps(bad_pod, indent=2)
        + "\n"
    )
    [error] = errors_of(text)
    assert error.line == next(i for i, line in enumerate(text.splitlines(), 1) if '"lots"' in line)


def test_text_without_logs_is_returned_as_it_is():
    text = json.dumps(listed(NODE))
    assert blank_container_logs(text) == (text, [])
