"""The CEL interpreter behind DRA's selectors (cel-python): the Kubernetes library's functions, the
``device`` variable, compiling (parse, type check, cost estimate, ``cel.bind``) and evaluating with
cel-go's error texts. Imported by scheduler_core.dra.cel when the first expression is compiled:
cel-python and its Lark parser take ~0.05 s to import, which a run without DRA never needs."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, NoReturn, Optional

import celpy
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError
from lark import Token, Tree

from scheduler_core.dra.celcheck import check_selector
from scheduler_core.dra.celcost import estimate_selector_cost
from scheduler_core.dra.celvalues import CelRuntimeError, Quantity, Semver, parse_semver
from scheduler_core.model import Device, Version
from scheduler_core.model.quantity import QuantityError, parse_quantity


def _fail(message: str) -> NoReturn:
    raise CelRuntimeError(message)


def _quantity(text: Any) -> Quantity:
    try:
        return Quantity(parse_quantity(str(text)))
    except QuantityError as err:
        _fail(f"quantities must match the regular expression: {err}")


def _is_quantity(text: Any) -> celtypes.BoolType:
    try:
        parse_quantity(str(text))
        return celtypes.BoolType(True)
    except QuantityError:
        return celtypes.BoolType(False)


def _semver(text: Any, normalize: Any = False) -> Semver:
    value = str(text)
    if normalize:
        value = _normalize_semver(value)
    parsed = parse_semver(value)
    if parsed is None:
        _fail(f"invalid semver: {text}")
    return parsed


def _normalize_semver(text: str) -> str:
    """semver(s, true): a leading "v" dropped, missing minor/patch added, leading zeros removed."""
    stripped = text.removeprefix("v")
    digits = re.match(r"^[0-9.]*", stripped)
    core = digits.group(0) if digits else ""
    rest = stripped[len(core) :]
    parts = [part.lstrip("0") or "0" for part in core.split(".")] if core else []
    while len(parts) < 3:
        parts.append("0")
    return ".".join(parts) + rest


def _is_semver(text: Any, normalize: Any = False) -> celtypes.BoolType:
    value = _normalize_semver(str(text)) if normalize else str(text)
    return celtypes.BoolType(parse_semver(value) is not None)


def _compare(a: Any, b: Any) -> int:
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return (a.value > b.value) - (a.value < b.value)
    if isinstance(a, Semver) and isinstance(b, Semver):
        return (a.key() > b.key()) - (a.key() < b.key())
    _fail(f"no such overload: compareTo({type(a).__name__}, {type(b).__name__})")


def _compare_to(a: Any, b: Any) -> celtypes.IntType:
    return celtypes.IntType(_compare(a, b))


def _is_less_than(a: Any, b: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_compare(a, b) < 0)


def _is_greater_than(a: Any, b: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_compare(a, b) > 0)


def _operand(value: Any) -> Fraction:
    if isinstance(value, Quantity):
        return value.value
    if isinstance(value, int):
        return Fraction(int(value))
    _fail(f"no such overload: {type(value).__name__}")


def _add(a: Any, b: Any) -> Quantity:
    return Quantity(_operand(a) + _operand(b))


def _sub(a: Any, b: Any) -> Quantity:
    return Quantity(_operand(a) - _operand(b))


def _sign(a: Quantity) -> celtypes.IntType:
    return celtypes.IntType((a.value > 0) - (a.value < 0))


def _is_integer(a: Quantity) -> celtypes.BoolType:
    return celtypes.BoolType(a.value.denominator == 1 and -(2**63) <= a.value <= 2**63 - 1)


def _as_integer(a: Quantity) -> celtypes.IntType:
    if a.value.denominator != 1 or not -(2**63) <= a.value <= 2**63 - 1:
        _fail("cannot convert value to integer")
    return celtypes.IntType(int(a.value))


def _as_approximate_float(a: Quantity) -> celtypes.DoubleType:
    return celtypes.DoubleType(float(a.value))


def _version_part(index: int) -> Callable[[Semver], celtypes.IntType]:
    def part(value: Semver) -> celtypes.IntType:
        return celtypes.IntType((value.major, value.minor, value.patch)[index])

    return part


# Not celpy's CELFunction: Quantity and Semver are extension values its Result union does not list.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "semver": _semver,
    "isSemver": _is_semver,
    "compareTo": _compare_to,
    "isLessThan": _is_less_than,
    "isGreaterThan": _is_greater_than,
    "add": _add,
    "sub": _sub,
    "sign": _sign,
    "isInteger": _is_integer,
    "asInteger": _as_integer,
    "asApproximateFloat": _as_approximate_float,
    "major": _version_part(0),
    "minor": _version_part(1),
    "patch": _version_part(2),
}


# ---------------------------------------------------------------------- the device variable


class _DomainMap(celtypes.MapType):
    """The outer attributes/capacity map: a domain the device lacks is an empty map."""

    def __getitem__(self, key: Any) -> Any:  # as celtypes.MapType declares it
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType()


def _attribute(value: Any) -> Any:
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, Version):
        parsed = parse_semver(value.text)
        if parsed is None:
            _fail(f"parse semantic version: invalid semver {value.text}")
        return parsed
    return celtypes.StringType(value)


def _by_domain(values: dict[str, Any], driver: str, convert: Callable[[Any], Any]) -> _DomainMap:
    """parseQualifiedName: "domain/id", or the driver's domain for a bare id."""
    domains: dict[str, dict[celtypes.StringType, Any]] = {}
    for name, value in values.items():
        domain, sep, ident = name.partition("/")
        if not sep:
            domain, ident = driver, name
        domains.setdefault(domain, {})[celtypes.StringType(ident)] = convert(value)
    return _DomainMap({celtypes.StringType(d): celtypes.MapType(m) for d, m in domains.items()})


def device_variable(driver: str, device: Device) -> celtypes.MapType:
    try:
        attributes = _by_domain(device.attributes, driver, _attribute)
    except CelRuntimeError as err:
        raise CelRuntimeError(f"attribute: {err}") from None
    return celtypes.MapType(
        {
            celtypes.StringType("driver"): celtypes.StringType(driver),
            celtypes.StringType("attributes"): attributes,
            celtypes.StringType("capacity"): _by_domain(device.capacity, driver, Quantity),
            # set whatever the gate (cel/compile.go: ptr.Deref(AllowMultipleAllocations, false))
            celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(bool(device.allow_multiple_allocations)),
        }
    )


# ---------------------------------------------------------------------- compile and evaluate


def evaluate(program: Any, driver: str, device: Device) -> bool:
    """CompilationResult.DeviceMatches; raises CelRuntimeError with the release's wording."""
    try:
        result = program.evaluate({"device": device_variable(driver, device)})
    except CelRuntimeError:
        raise
    except CELEvalError as err:
        raise CelRuntimeError(_go_message(err)) from None
    if isinstance(result, CELEvalError):
        raise CelRuntimeError(_go_message(result))
    if not isinstance(result, (bool, celtypes.BoolType)):
        raise CelRuntimeError(f"CEL result of type {_type_name(result)} could not be converted to bool")
    return bool(result)


_NO_SUCH_MEMBER = re.compile(r"no such member in mapping: '(.*)'")


def _go_message(err: Exception) -> str:
    """cel-go's texts for the errors selectors meet: a missing map key, no matching overload."""
    text = str(err.args[0]) if err.args else str(err)
    member = _NO_SUCH_MEMBER.match(text)
    if member:
        return f"no such key: {member.group(1)}"
    if text == "no such key":
        key = err.args[2][0] if len(err.args) > 2 and err.args[2] else ""
        return f"no such key: {key}"
    if "no matching overload" in text or text.startswith("no such overload"):
        return "no such overload"
    if "divide by zero" in text:
        return "division by zero"
    return text


def _type_name(value: Any) -> str:
    if isinstance(value, celtypes.IntType):
        return "int"
    if isinstance(value, celtypes.StringType):
        return "string"
    return type(value).__name__


@lru_cache(maxsize=1)
def _environment() -> celpy.Environment:
    """The one CEL environment, built when the first expression is compiled: building it builds
    cel-python's Lark parser (a tenth of a second), which a scenario without DRA never needs."""
    return celpy.Environment()


def compile_program(expression: str, shared_devices: bool = True) -> tuple[Any, Optional[str], int]:
    """The expression's program, or why it does not compile ("compilation failed: ...", or the
    type checker's error), and the API server's worst-case cost estimate (``shared_devices``:
    DRAConsumableCapacity's device.allowMultipleAllocations declared)."""
    try:
        ast = _environment().compile(expression)
    except CELParseError as err:
        return None, f"compilation failed: {str(err).strip()}", 0
    checked = check_selector(ast, expression, shared_devices)  # the API server type-checks what it compiles
    if checked.error is not None:
        return None, checked.error, 0
    max_cost = estimate_selector_cost(ast)
    runnable = _expand_binds(_environment().compile(expression))  # a fresh tree: the rewrite is in place
    return _environment().program(runnable, functions=FUNCTIONS), None, max_cost


_BIND_VALUE, _BIND_RESULT = "__schedlab_bind_value__", "__schedlab_bind_result__"


def _expand_binds(tree: Tree[Token]) -> Tree[Token]:
    """cel.bind(v, value, result) (cel-go's ext.Bindings, in the Kubernetes environment) is not
    known to cel-python: each one becomes ``[value].map(v, result)[0]``, which binds ``v`` to
    ``value`` for ``result`` alike (the value is computed even when ``result`` does not read it;
    cel-go computes it lazily, which only differs when computing it fails)."""
    for member in [node for node in tree.iter_subtrees() if node.data == "member"]:
        call = member.children[0] if len(member.children) == 1 else None
        if not isinstance(call, Tree) or call.data != "member_dot_arg" or str(call.children[1]) != "bind":
            continue
        arguments = _call_arguments(call)
        variable = _bound_name(arguments[0]) if len(arguments) == 3 else None
        if variable is None or not _is_cel_namespace(call.children[0]):
            continue
        template = _environment().compile(f"[{_BIND_VALUE}].map({variable}, {_BIND_RESULT})[0]")
        replacement = next(
            node
            for node in template.iter_subtrees_topdown()  # type: ignore[no-untyped-call]  # lark leaves it unannotated
            if node.data == "member"
        )
        for slot in [node for node in replacement.iter_subtrees() if node.data == "expr"]:
            names = [str(ident.children[0]) for ident in slot.iter_subtrees() if ident.data == "ident"]
            if names == [_BIND_VALUE]:
                slot.children = arguments[1].children
            elif names == [_BIND_RESULT]:
                slot.children = arguments[2].children
        member.children = replacement.children
    return tree


def _call_arguments(call: Tree[Token]) -> list[Tree[Token]]:
    lists = [child for child in call.children if isinstance(child, Tree) and child.data == "exprlist"]
    return [child for child in lists[0].children if isinstance(child, Tree)] if lists else []


def _bound_name(argument: Tree[Token]) -> Optional[str]:
    idents = [node for node in argument.iter_subtrees() if node.data == "ident"]
    return str(idents[0].children[0]) if len(idents) == 1 else None


def _is_cel_namespace(target: Any) -> bool:
    return (
        isinstance(target, Tree)
        and [str(n.children[0]) for n in target.iter_subtrees() if n.data == "ident"] == ["cel"]
        and not any(n.data.startswith("member_") for n in target.iter_subtrees())
    )
