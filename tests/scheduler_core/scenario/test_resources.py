"""Resource lists: amounts the release's kube-scheduler cannot hold in int64 are located errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core import simulate
from scheduler_core.model.quantity import CPU_OVERFLOW
from scheduler_core.scenario import load_scenario
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.resources import (
    _read_allocatable,
    _read_container_resources,
    container_resources,
    node_allocatable,
)
from scheduler_core.scenario.yamltree import YMap

from tests.scheduler_core.scenario.support import errors_of, line_of, pod, stream

MEMORY_OVERFLOW = "must be at most 9223372036854775807: kube-scheduler counts memory in int64 units"


def node(resources: str) -> str:
    return f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable: {{{resources}}}\n"


def requesting(resources: str) -> str:
    return pod(f"containers:\n- name: c\n  resources:\n    requests: {{{resources}}}\n")


@pytest.mark.parametrize(
    "document, fragment, path, value, message",
    [
        pytest.param(
            node("cpu: '10000000000000000', pods: '110'"),
            "allocatable",
            "status.allocatable.cpu",
            "10000000000000000",
            CPU_OVERFLOW,
            id="a node's cpu of 10^16 cores is more millicores than int64 holds",
        ),
        pytest.param(
            node("cpu: '9223372036854776', pods: '110'"),
            "allocatable",
            "status.allocatable.cpu",
            "9223372036854776",
            CPU_OVERFLOW,
            id="one core above the int64 millicore limit is refused",
        ),
        pytest.param(
            node("cpu: '4', memory: '1e30'"),
            "allocatable",
            "status.allocatable.memory",
            "1e30",
            MEMORY_OVERFLOW,
            id="an uncapped decimal memory beyond int64 bytes is refused",
        ),
        pytest.param(
            node("cpu: '4', memory: '1e999999999'"),
            "allocatable",
            "status.allocatable.memory",
            "1e999999999",
            MEMORY_OVERFLOW,
            id="an absurd exponent is refused without building the number",
        ),
        pytest.param(
            requesting("cpu: '1e16'"),
            "requests",
            "spec.containers[0].resources.requests.cpu",
            "1e16",
            CPU_OVERFLOW,
            id="a container's cpu request beyond int64 millicores is refused",
        ),
    ],
)
def test_it_refuses_amounts_beyond_int64_with_object_path_and_line(document, fragment, path, value, message):
    text = stream(node("cpu: '4', memory: 8Gi, pods: '110'").replace("n1", "n0"), document)
    [error] = errors_of(text)
    kind = "Node n1" if document.startswith("apiVersion: v1\nkind: Node") else "Pod default/web-1"
    assert (error.object, error.path, error.line) == (kind, path, line_of(text, value))
    assert error.message == f'invalid value "{value}": {message}'


@pytest.mark.parametrize(
    "resources, expected",
    [
        pytest.param(
            "cpu: '9223372036854775.807'", {"cpu": 2**63 - 1}, id="the largest cpu the scheduler can hold is accepted"
        ),
        pytest.param(
            "cpu: '4', memory: 8Ei",
            {"cpu": 4000, "memory": 2**63 - 1},
            id="a binary-suffixed value above int64 is capped as ParseQuantity caps it, not refused",
        ),
        pytest.param(
            "cpu: '4', memory: '9223372036854775807'",
            {"cpu": 4000, "memory": 2**63 - 1},
            id="int64's maximum in bytes is accepted",
        ),
        pytest.param(
            "cpu: '4', example.com/gpu: 16Ei",
            {"cpu": 4000, "example.com/gpu": 2**63 - 1},
            id="a capped extended resource is accepted",
        ),
    ],
)
def test_it_accepts_amounts_the_scheduler_can_hold(resources, expected):
    scenario = load_scenario(node(resources))
    assert scenario.nodes[0].allocatable == expected


def test_a_node_at_the_cpu_limit_runs_without_overflow():
    text = stream(node("cpu: '9223372036854775.807', memory: 8Gi, pods: '110'"), requesting("cpu: '1', memory: 1Gi"))
    events = list(simulate(load_scenario(text)))
    [end] = [e for e in events if e.extension_point == "CycleEnd"]
    assert end.payload.node_name == "n1"


_NAMES = st.sampled_from(["cpu", "memory", "ephemeral-storage", "example.com/gpu", "hugepages-2Mi", "bad name", "pods"])
_AMOUNTS = st.one_of(
    st.sampled_from(["100m", "1", "1.5", "2Gi", "-1", "abc", "1e16", "0"]),
    st.integers(min_value=-2, max_value=2000),
    st.floats(allow_nan=False, width=32),
    st.booleans(),
)


def _ymap(entries: dict) -> YMap:
    mapping = YMap(1)
    for line, (key, value) in enumerate(entries.items(), start=2):
        mapping[key] = value
        mapping.lines[key] = line
    return mapping


def _read(reader, written: dict) -> tuple:
    errors: list = []
    field = Field(
        _ymap({section: _ymap(amounts) for section, amounts in written.items()}),
        "spec.containers[0].resources",
        1,
        Context("Pod default/p", errors),
    )
    requests, limits = reader(field)
    return requests, list(requests), limits, list(limits), errors


@given(
    st.dictionaries(st.sampled_from(["requests", "limits"]), st.dictionaries(_NAMES, _AMOUNTS, max_size=4), max_size=2)
)
def test_a_resources_mapping_read_again_answers_as_the_first_reading(written):
    # container_resources keeps the answers of mappings it read without error; the reference reads
    # every mapping field by field. Same amounts, same key order, same errors, however often asked.
    reference = _read(_read_container_resources, written)
    assert _read(container_resources, written) == reference
    assert _read(container_resources, written) == reference


def _read_status(reader, written: dict) -> tuple:
    errors: list = []
    sections = {
        section: _ymap(amounts) if isinstance(amounts, dict) else amounts for section, amounts in written.items()
    }
    allocatable = reader(Field(_ymap(sections), "status", 1, Context("Node n1", errors)))
    return allocatable, list(allocatable), errors


@given(
    st.dictionaries(
        st.sampled_from(["capacity", "allocatable", "conditions"]),
        st.dictionaries(_NAMES, _AMOUNTS, max_size=4) | st.just("x"),
        max_size=3,
    )
)
def test_a_node_status_read_again_answers_as_the_first_reading(written):
    # node_allocatable keeps the answers of capacity and allocatable it read without error (the
    # status's other fields do not matter to it); the reference reads them field by field.
    reference = _read_status(_read_allocatable, written)
    assert _read_status(node_allocatable, written) == reference
    assert _read_status(node_allocatable, written) == reference
