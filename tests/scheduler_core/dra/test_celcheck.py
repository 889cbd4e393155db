"""The API server's type check of DRA selectors (k8s.io/dynamic-resource-allocation/cel/compile.go,
CompileCELExpression: env.Compile's issues, then the output type must be bool or dyn)."""

from __future__ import annotations

import celpy
import pytest

from scheduler_core.dra.celcheck import check_selector

_ENV = celpy.Environment()


def verdict(expression: str):
    return check_selector(_ENV.compile(expression), expression)


@pytest.mark.parametrize(
    "expression",
    [
        'device.driver == "gpu.example.com"',
        'device.attributes["gpu.example.com"].model == "h100"',
        'device.attributes["gpu.example.com"].index > 1 && device.attributes["gpu.example.com"].ecc',
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
        'device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi"))',
        'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))',
        'has(device.attributes["gpu.example.com"].model)',
        '"gpu.example.com" in device.attributes',
        'device.attributes["gpu.example.com"].exists(k, k.startsWith("m"))',
        "[1, 2].all(x, x > 0) && 1 < 2.0",
        'device.attributes["gpu.example.com"].model',  # dyn: checked when evaluated
        'device.driver.startsWith("gpu") ? true : device.attributes["x"].y',
        'size(device.driver) > 3 || !(device.driver == "a")',
        "device.attributes['gpu.example.com'].someFunctionNotListed(1) == 2",
        'cel.bind(dra, device.attributes["dra.example.com"], dra.name)',  # compile_test.go "bind"
        'device.attributes["dra.example.com"].name.exists(x, x > 0)',  # a dyn range checks
        "type(device.driver) == string",  # type names are values
        'math.greatest(1, 2) > 1 && sets.contains(["a"], ["a"])',  # library namespaces
    ],
)
def test_what_cel_go_accepts_passes(expression):
    assert verdict(expression).error is None


@pytest.mark.parametrize(
    "expression, message",
    [
        ("device.driver", "must evaluate to bool or the unknown type, not string"),
        ("size(device.driver)", "must evaluate to bool or the unknown type, not int"),
        ('device.driver.startsWith("a") ? 1 : 2', "must evaluate to bool or the unknown type, not int"),
        ("device.driver == 1", "found no matching overload for '_==_' applied to '(string, int)'"),
        (
            'device.capacity["a"].memory > quantity("1")',
            "found no matching overload for '_>_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'",
        ),
        ("device.model == 'x'", "undefined field 'model'"),
        ("device.allowMultipleAllocations", "undefined field 'allowMultipleAllocations'"),  # DRAConsumableCapacity off
        ("gpu.model == 'x'", "undeclared reference to 'gpu' (in container '')"),
        ("device.driver.size", "type 'string' does not support field selection"),
        ("1u + 1 > 0", "found no matching overload for '_+_' applied to '(uint, int)'"),
        ("device.driver && true", "found no matching overload for '_&&_' applied to '(string, bool)'"),
        ("1 ? true : false", "found no matching overload for '_?_:_' applied to '(int, bool, bool)'"),
        ("1", "must evaluate to bool or the unknown type, not int"),  # compile_test.go "type-error"
        ("cel.bind(d, device.driver, d.size)", "type 'string' does not support field selection"),
    ],
)
def test_what_cel_go_refuses_is_the_api_servers_error(expression, message):
    error = verdict(expression).error
    assert error is not None and message in error


def test_a_compile_issue_reads_as_cel_go_prints_it():
    """issues.String(): ERROR: <input>:line:column: message, the source line and a caret at the
    expression's location (a selection's '.', an operator)."""
    assert verdict("device.model == 'x'").error == (
        "compilation failed: ERROR: <input>:1:7: undefined field 'model'\n | device.model == 'x'\n | ......^"
    )
    assert verdict("true &&\n  (device.driver) == 2").error == (
        "compilation failed: ERROR: <input>:2:19: found no matching overload for '_==_' applied to '(string, int)'"
        "\n |   (device.driver) == 2\n | ..................^"
    )
    assert verdict("!device.driver").error.startswith("compilation failed: ERROR: <input>:1:1: ")
    assert verdict("1 ? true : false").error.startswith("compilation failed: ERROR: <input>:1:3: ")
