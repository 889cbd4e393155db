"""The DRA CEL environment (dynamic-resource-allocation/cel/compile.go, apiserver cel/library)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.dra.cel import CelRuntimeError, compile_selector
from scheduler_core.model import Device, Version

DRIVER = "gpu.example.com"
DEVICE = Device(
    "gpu-0",
    {
        "model": "h100",
        "index": 3,
        "ecc": True,
        "gpu.example.com/driverVersion": Version("1.2.3"),
        "other.example.com/zone": "a",
    },
    {"memory": Fraction(80 << 30)},
)


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('device.driver == "gpu.example.com"', True),
        ('device.attributes["gpu.example.com"].model == "h100"', True),
        ('device.attributes["gpu.example.com"].index >= 4', False),
        ('device.attributes["gpu.example.com"].ecc', True),
        ('device.attributes["other.example.com"].zone == "a"', True),
        ('device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0', True),
        ('device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40Gi"))', True),
        ('device.capacity["gpu.example.com"].memory.isLessThan(quantity("40Gi"))', False),
        ('quantity("1Gi").add(quantity("1Gi")).compareTo(quantity("2Gi")) == 0', True),
        ('quantity("1500m").isInteger()', False),
        ('quantity("2").asInteger() == 2', True),
        ('isQuantity("2Gi") && !isQuantity("two")', True),
        ('device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))', True),
        ('device.attributes["gpu.example.com"].driverVersion.major() == 1', True),
        ('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', True),
        ('semver("v1.2", true).compareTo(semver("1.2.0")) == 0', True),
        ('"model" in device.attributes["unknown.example.com"]', False),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_selectors_see_the_device_as_the_release_binds_it(expression, expected):
    """DeviceMatches: driver, attributes and capacity by domain (a bare id is the driver's domain)."""
    assert compile_selector(expression).matches(DRIVER, DEVICE) is expected


def test_a_missing_domain_is_an_empty_map_so_its_attribute_is_no_such_key():
    """compile.go's mapper default: device.attributes["x"] is {} and .index fails at run time."""
    with pytest.raises(CelRuntimeError, match="^no such key: index$"):
        compile_selector('device.attributes["x.example.com"].index >= 1').matches(DRIVER, DEVICE)


def test_an_expression_that_does_not_parse_reports_a_compile_error():
    assert compile_selector("device.driver ==").error.startswith("compilation failed")


def test_a_non_boolean_result_of_the_unknown_type_is_an_error_at_evaluation():
    """DeviceMatches: an attribute is dyn at compile time, so a string only shows when evaluated."""
    with pytest.raises(CelRuntimeError, match="CEL result of type string could not be converted to bool"):
        compile_selector('device.attributes["gpu.example.com"].model').matches(DRIVER, DEVICE)


def test_a_result_known_not_to_be_bool_does_not_compile():
    """CompileCELExpression: "must evaluate to bool or the unknown type" (celcheck.check_selector)."""
    assert compile_selector("device.driver").error == "must evaluate to bool or the unknown type, not string"


def test_cel_bind_binds_a_name_for_the_result_as_the_kubernetes_environment_does():
    """ext.Bindings (cel.bind), part of the environment compile.go builds on: compile_test.go's
    "bind" case, nested binds, and a bound value the result rejects."""
    bound = 'cel.bind(dra, device.attributes["gpu.example.com"], dra.model == "h100")'
    assert compile_selector(bound).matches(DRIVER, DEVICE) is True
    assert compile_selector("cel.bind(a, 1, cel.bind(b, a + 1, b == 2))").matches(DRIVER, DEVICE) is True
    assert (
        compile_selector('cel.bind(d, device.attributes["gpu.example.com"], d.index > 5)').matches(DRIVER, DEVICE)
        is False
    )


def test_the_interpreter_is_loaded_by_the_first_compile_not_by_importing_the_engine():
    import subprocess
    import sys

    code = (
        "import sys, scheduler_core.cli, scheduler_core.dra.cel as cel; "
        "assert 'celpy' not in sys.modules and 'lark' not in sys.modules; "
        "assert cel.compile_selector('device.driver == \"x\"').error is None; "
        "import scheduler_core.dra.celprogram as program; "
        "assert program._environment.cache_info().currsize == 1"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "expression, fast",
    [
        ('device.driver == "gpu.example.com"', "gpu.example.com"),
        ('  "gpu.example.com"==device.driver\n', "gpu.example.com"),
        ('device.driver == ""', ""),
        ('device.driver == "gpu.example.com" || false', None),
        ('device.driver == "gpu\\u002eexample.com"', None),  # an escape: the interpreter decodes it
        ("device.driver == 'gpu.example.com'", None),
        ('device.driver == r"gpu.example.com"', None),
        ('device.driver == "gpu.example.com" // a comment', None),
        ('device.driver != "gpu.example.com"', None),
    ],
)
def test_a_driver_equality_is_a_string_comparison_with_the_interpreter_s_answer(expression, fast):
    """``device.driver == "<name>"`` alone is answered without the interpreter, and gives the
    interpreter's answer for any driver; any other expression goes to the interpreter."""
    compiled = compile_selector(expression)
    assert compiled.error is None and compiled.driver_equals == fast
    interpreted = type(compiled)(compiled.expression, compiled.program, max_cost=compiled.max_cost)
    for driver in ("gpu.example.com", "other.example.com", "", "gpu.example.co"):
        assert compiled.matches(driver, DEVICE) == interpreted.matches(driver, DEVICE)


def test_allow_multiple_allocations_is_declared_with_consumable_capacity_and_false_when_unset():
    """compile.go: the field is declared only with DRAConsumableCapacity; its value is always bound
    (ptr.Deref(AllowMultipleAllocations, false))."""
    expression = "device.allowMultipleAllocations"
    assert "undefined field 'allowMultipleAllocations'" in (
        compile_selector(expression, shared_devices=False).error or ""
    )
    compiled = compile_selector(expression)
    assert compiled.error is None
    assert compiled.matches(DRIVER, Device("nic", allow_multiple_allocations=True)) is True
    assert compiled.matches(DRIVER, DEVICE) is False
