"""The DRA CEL environment (k8s.io/dynamic-resource-allocation/cel/compile.go) on cel-python.

A selector sees one variable, ``device``, with ``driver`` (string), ``attributes`` and
``capacity``: maps from a domain to maps from an id to the value (``device.attributes["gpu.example.com"].model``).
An attribute written without a domain belongs to the driver's domain. A domain the device does
not have is an empty map (compile.go's mapper with a default), so ``.model`` on it is the runtime
error ``no such key: model``. Capacities are quantities and attribute versions are semantic
versions, with the functions of k8s.io/apiserver/pkg/cel/library (quantity.go, semver.go):
``quantity("40Gi")``, ``isQuantity``, ``compareTo``, ``isLessThan``, ``isGreaterThan``, ``add``,
``sub``, ``sign``, ``isInteger``, ``asInteger``, ``asApproximateFloat``, ``semver("1.2.3")``,
``isSemver``, ``major``, ``minor``, ``patch``.

The cost limit (resourceapi.CELSelectorExpressionMaxCost) is applied where the API server applies
it, to the worst-case estimate at create (celcost.py); cel-python has no runtime cost accounting,
which is never reached here: a device has at most 32 attributes (validation), so an expression
within the estimate stays within the limit when it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from scheduler_core.model import Device, Version
from scheduler_core.model.quantity import QuantityError, parse_quantity

_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


class CelRuntimeError(Exception):
    """An evaluation error, with cel-go's wording where SchedLab knows it."""


# ---------------------------------------------------------------------- library types


@dataclass(frozen=True, slots=True)
class Quantity:
    """apiservercel.Quantity: an exact resource.Quantity."""

    value: Fraction


@dataclass(frozen=True, slots=True)
class Semver:
    """apiservercel.Semver (blang/semver): major, minor, patch and the pre-release parts."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()

    def key(self) -> tuple[int, int, int, bool, tuple[tuple[int, int, str], ...]]:
        # A version without a pre-release ranks above one with; numeric identifiers rank below
        # alphanumeric ones and compare as numbers (semver 2.0.0, section 11).
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, not self.pre, pre)


def parse_semver(text: str) -> Optional[Semver]:
    match = _SEMVER_RE.match(text)
    if match is None:
        return None
    pre = tuple(match.group(4).split(".")) if match.group(4) else ()
    return Semver(int(match.group(1)), int(match.group(2)), int(match.group(3)), pre)


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
        }
    )


# ---------------------------------------------------------------------- compile and evaluate


# The selector nearly every DeviceClass has: ``device.driver == "<driver>"`` (either way round).
# Its answer is a string comparison; cel-python's interpreter over a freshly built device variable
# takes ~0.15 ms for it, and a node picture asks it of every device of a cluster once.
_CEL_SPACE = "[ \\t\\n\\r\\f]*"  # the grammar's whitespace
_DRIVER_EQUALS = (
    re.compile(rf'{_CEL_SPACE}device\.driver{_CEL_SPACE}=={_CEL_SPACE}"([^"\\\n\r]*)"{_CEL_SPACE}'),
    re.compile(rf'{_CEL_SPACE}"([^"\\\n\r]*)"{_CEL_SPACE}=={_CEL_SPACE}device\.driver{_CEL_SPACE}'),
)


def _driver_equals(expression: str) -> Optional[str]:
    """The driver name when the whole expression is ``device.driver == "<name>"`` (a plain
    double-quoted literal, no escapes), else None."""
    for pattern in _DRIVER_EQUALS:
        match = pattern.fullmatch(expression)
        if match is not None:
            return match.group(1)
    return None


@dataclass(frozen=True, slots=True)
class CompiledSelector:
    expression: str
    program: Any = None
    error: Optional[str] = None  # "compilation failed: ..." when it does not compile
    max_cost: int = 0  # the API server's worst-case estimate (celcost), compared with its limit at create
    driver_equals: Optional[str] = None  # the expression is ``device.driver == "<this>"``

    def matches(self, driver: str, device: Device) -> bool:
        """CompilationResult.DeviceMatches; raises CelRuntimeError with the release's wording."""
        if self.driver_equals is not None:
            return driver == self.driver_equals
        try:
            result = self.program.evaluate({"device": device_variable(driver, device)})
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


@lru_cache(maxsize=256)
def compile_selector(expression: str) -> CompiledSelector:
    """GetOrCompile (the release keeps an LRU cache of compiled expressions too)."""
    try:
        ast = _environment().compile(expression)
    except CELParseError as err:
        return CompiledSelector(expression, None, f"compilation failed: {str(err).strip()}")
    checked = check_selector(ast, expression)  # the API server type-checks what it compiles
    if checked.error is not None:
        return CompiledSelector(expression, None, checked.error)
    max_cost = estimate_selector_cost(ast)
    runnable = _expand_binds(_environment().compile(expression))  # a fresh tree: the rewrite is in place
    program = _environment().program(runnable, functions=FUNCTIONS)
    return CompiledSelector(expression, program, max_cost=max_cost, driver_equals=_driver_equals(expression))


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
