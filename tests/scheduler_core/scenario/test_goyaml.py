"""scenario/goyaml.py: plain scalars as sigs.k8s.io/yaml (go-yaml v2's resolve.go) reads them, where
YAML 1.1 (PyYAML) differs (issue 51 item 6), through the loader to the field's error."""

from __future__ import annotations

import math

import pytest

from scheduler_core.scenario import ScenarioInvalid, load_scenario
from scheduler_core.scenario.goyaml import parse_go_int, resolve_plain


@pytest.mark.parametrize(
    "text, value",
    [
        ("1:30", "1:30"),  # YAML 1.1 reads 90: go-yaml has no sexagesimal numbers
        ("190:20:30", "190:20:30"),
        ("1e3", 1000.0),  # YAML 1.1 wants a dot and a signed exponent
        (".5", 0.5),
        ("1.", 1.0),
        ("-1.5E-3", -0.0015),
        ("0o17", 15),  # Go's ParseInt with base 0
        ("017", 15),
        ("0x1F", 31),
        ("0b101", 5),
        ("-0b101", -5),
        ("1_000", 1000),
        ("09", 9.0),  # not octal: a float, as ParseFloat reads it
        ("+1", 1),
        ("-0", 0),
        ("18446744073709551615", 18446744073709551615),  # ParseUint
        ("y", True),  # YAML 1.1 (PyYAML): the string "y"
        ("N", False),
        ("yes", True),
        ("Off", False),
        ("~", None),
        ("NULL", None),
        ("2001-12-14", "2001-12-14"),  # a timestamp stays its text
        ("0x_", "0x_"),
        ("-", "-"),
        ("1e400", "1e400"),  # out of range: ParseFloat fails, the text stays
        ("v1.2.3", "v1.2.3"),
        ("<<", "<<"),
    ],
)
def test_it_reads_a_plain_scalar_as_go_yaml_does(text, value):
    got = resolve_plain(text)
    assert got == value and type(got) is type(value)


def test_special_floats():
    assert (
        math.isnan(resolve_plain(".NaN")) and resolve_plain("-.inf") == -math.inf and resolve_plain("+.INF") == math.inf
    )


def test_an_int_out_of_every_range_is_not_an_int():
    assert parse_go_int("-9223372036854775808") == -(2**63)
    assert parse_go_int("-9223372036854775809") is None
    assert parse_go_int("+18446744073709551615") is None  # ParseUint takes no sign


POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: %s\n  containers: [{name: c, image: x}]\n"


def test_a_duration_written_1_30_is_refused_as_the_api_server_refuses_it():
    with pytest.raises(ScenarioInvalid) as refused:
        load_scenario(POD % "1:30")
    [error] = refused.value.errors
    assert (error.path, error.line) == ("spec.terminationGracePeriodSeconds", 5)
    assert "expected an integer" in error.message


def test_1e3_and_0o17_are_read_where_kubernetes_reads_them():
    assert load_scenario(POD % "1e3").pods[0].termination_grace_period_seconds == 1000
    assert load_scenario(POD % "0o17").pods[0].termination_grace_period_seconds == 15


def test_a_document_loaded_and_written_again_means_what_it_meant():
    """The text edits load a document and write it again: "y" or "1e3" written plain would read back
    as true or 1000; "1:30" loaded as YAML 1.1 would be written 90."""
    import yaml

    from scheduler_core.scenario.goyaml import KubernetesDumper, KubernetesLoader

    document = yaml.load("a: 'y'\nb: '1e3'\nc: 1:30\nd: y\ne: x\n", Loader=KubernetesLoader)
    assert document == {"a": "y", "b": "1e3", "c": "1:30", "d": True, "e": "x"}
    written = yaml.dump(document, Dumper=KubernetesDumper, sort_keys=False)
    assert written == "a: 'y'\nb: '1e3'\nc: '1:30'\nd: true\ne: x\n"  # PyYAML quotes 1:30 too: harmless
    assert yaml.load(written, Loader=KubernetesLoader) == document
