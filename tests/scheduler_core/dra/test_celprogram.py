"""The CEL interpreter behind DRA's selectors: compiling (errors, cost) and evaluating with cel-go's texts."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.dra.celprogram import compile_program, evaluate
from scheduler_core.dra.celvalues import CelRuntimeError
from scheduler_core.model import Device

DEVICE = Device("gpu-0", {"model": "h100", "index": 3}, {"memory": Fraction(80 << 30)})


def test_a_program_compiles_with_its_worst_case_cost():
    program, error, cost = compile_program('device.attributes["gpu.example.com"].index >= 2')
    assert error is None and cost > 0
    assert evaluate(program, "gpu.example.com", DEVICE) is True


def test_what_does_not_parse_or_type_check_has_no_program():
    assert compile_program("device.driver ==")[:2][0] is None
    assert compile_program("device.driver ==")[1].startswith("compilation failed")
    assert compile_program("device.driver")[1] == "must evaluate to bool or the unknown type, not string"


def test_a_missing_key_reads_as_cel_go_says_it():
    program, _, _ = compile_program('device.attributes["gpu.example.com"].absent == 1')
    with pytest.raises(CelRuntimeError, match="^no such key: absent$"):
        evaluate(program, "gpu.example.com", DEVICE)
