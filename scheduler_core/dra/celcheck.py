"""The type check the API server runs when it compiles a DRA selector
(k8s.io/dynamic-resource-allocation/cel/compile.go, CompileCELExpression: ``env.Compile`` then
"must evaluate to bool or the unknown type").

cel-python parses but does not type-check, so this walks its parse tree with the declared
types of the DRA environment: ``device`` is ``kubernetes.DRADevice`` with ``driver`` (string),
``attributes`` (``map(string, map(string, dyn))``) and ``capacity``
(``map(string, map(string, kubernetes.Quantity))``). It refuses only what is certain to fail
cel-go's checker — an undeclared variable, a field ``device`` does not have, an operator applied
to two known types it has no overload for, a known result that is not bool — and treats anything
it cannot be sure of as ``dyn``, which cel-go accepts too, so that every expression the API
server accepts loads. The message is cel-go's issue text, located where cel-go locates it: at
the operator, the '.' of a field selection, the identifier.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Optional, Union

from lark import Token, Tree

DYN = "dyn"
BOOL, INT, UINT, DOUBLE, STRING, BYTES, NULL = "bool", "int", "uint", "double", "string", "bytes", "null_type"
QUANTITY, SEMVER, DEVICE = "kubernetes.Quantity", "kubernetes.Semver", "kubernetes.DRADevice"
ATTRIBUTES = f"map({STRING}, map({STRING}, {DYN}))"
CAPACITY = f"map({STRING}, map({STRING}, {QUANTITY}))"
_INNER = {ATTRIBUTES: f"map({STRING}, {DYN})", CAPACITY: f"map({STRING}, {QUANTITY})"}
_VALUES = {f"map({STRING}, {DYN})": DYN, f"map({STRING}, {QUANTITY})": QUANTITY, **_INNER}
DEVICE_FIELDS = {"driver": STRING, "attributes": ATTRIBUTES, "capacity": CAPACITY}
# With DRAConsumableCapacity on, the environment also declares device.allowMultipleAllocations.
SHARED_DEVICE_FIELDS = {**DEVICE_FIELDS, "allowMultipleAllocations": BOOL}
NUMBERS = (INT, UINT, DOUBLE)
_LITERALS = {
    "BOOL_LIT": BOOL,
    "INT_LIT": INT,
    "UINT_LIT": UINT,
    "FLOAT_LIT": DOUBLE,
    "STRING_LIT": STRING,
    "MLSTRING_LIT": STRING,
    "BYTES_LIT": BYTES,
    "NULL_LIT": NULL,
}
_RELATIONS = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_gt": "_>_",
    "relation_ge": "_>=_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "@in",
}
_ARITHMETIC = {
    "addition_add": "_+_",
    "addition_sub": "_-_",
    "multiplication_mul": "_*_",
    "multiplication_div": "_/_",
    "multiplication_mod": "_%_",
}
# Results of the Kubernetes library functions on a receiver (quantity.go, semver.go) and of
# the standard ones; a function not listed here is dyn.
_MEMBER_RESULTS = {
    "compareTo": INT,
    "isLessThan": BOOL,
    "isGreaterThan": BOOL,
    "add": QUANTITY,
    "sub": QUANTITY,
    "sign": INT,
    "isInteger": BOOL,
    "asInteger": INT,
    "asApproximateFloat": DOUBLE,
    "major": INT,
    "minor": INT,
    "patch": INT,
    "startsWith": BOOL,
    "endsWith": BOOL,
    "contains": BOOL,
    "matches": BOOL,
    "size": INT,
    "all": BOOL,
    "exists": BOOL,
    "exists_one": BOOL,
}
_GLOBAL_RESULTS = {
    "quantity": QUANTITY,
    "isQuantity": BOOL,
    "semver": SEMVER,
    "isSemver": BOOL,
    "size": INT,
    "has": BOOL,
    "matches": BOOL,
}
_MACROS = ("all", "exists", "exists_one", "map", "filter")
_ORDERED = (*NUMBERS, STRING, BYTES, BOOL)
_TYPE_NAMES = ("bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type", "type", "dyn")
_PRIMITIVES = (*_ORDERED, NULL)


class CelCheckError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset  # where cel-go locates it (0-based, in the text)


@dataclass(frozen=True, slots=True)
class CheckResult:
    output_type: str
    error: Optional[str] = None  # the API server's text ("compilation failed: ..." / "must evaluate ...")


Node = Union[Tree[Token], Token]


def check_selector(tree: Tree[Token], expression: str, shared_devices: bool = False) -> CheckResult:
    """The compile-time verdict on a parsed selector: its output type, or the error the API
    server answers with (``shared_devices``: DRAConsumableCapacity's field declared)."""
    try:
        output = _Checker({}, expression, SHARED_DEVICE_FIELDS if shared_devices else DEVICE_FIELDS).infer(tree)
    except CelCheckError as err:
        return CheckResult(DYN, "compilation failed: " + _issue(err, expression))
    if output not in (BOOL, DYN):
        return CheckResult(output, f"must evaluate to bool or the unknown type, not {output}")
    return CheckResult(output)


def _issue(err: CelCheckError, expression: str) -> str:
    """cel-go's issue: ``ERROR: <input>:line:col: message`` and the source line with a caret."""
    before = expression[: err.offset]
    line = before.count("\n") + 1
    column = err.offset - (before.rfind("\n") + 1)  # 0-based; cel-go prints it plus one
    source = expression.splitlines()[line - 1] if expression.strip() else ""
    return f"ERROR: <input>:{line}:{column + 1}: {err.message}\n | {source}\n | {'.' * column}^"


def _tokens(node: Node) -> list[Token]:
    tokens = [node] if isinstance(node, Token) else list(node.scan_values(lambda v: isinstance(v, Token)))
    return [token for token in tokens if token.start_pos is not None]


def _start(node: Node) -> int:
    # lark types start_pos/end_pos Optional; _tokens keeps only the tokens that have them.
    return min((token.start_pos for token in _tokens(node)), default=0)  # type: ignore[type-var, return-value]


def _no_overload(function: str, types: tuple[str, ...], at: int) -> CelCheckError:
    return CelCheckError(f"found no matching overload for '{function}' applied to '({', '.join(types)})'", at)


class _Checker:
    def __init__(self, bound: Mapping[str, str], text: str = "", fields: Mapping[str, str] = DEVICE_FIELDS) -> None:
        self.bound = bound  # variables a comprehension macro or cel.bind declared, with their types
        self.text = text  # the expression: cel-go locates an operator's error at the operator
        self.fields = fields  # the device's fields the environment declares

    def _after(self, node: Node) -> int:
        """The operator following ``node`` (a binary operator's left operand)."""
        # lark types start_pos/end_pos Optional; _tokens keeps only the tokens that have them.
        at: int = max((token.end_pos for token in _tokens(node)), default=0)  # type: ignore[type-var, assignment]
        while at < len(self.text) and self.text[at] in " \t\r\n)":
            at += 1
        return at

    def _before(self, node: Node) -> int:
        """The operator or '.' preceding ``node`` (a unary operand, a field name)."""
        at = _start(node) - 1
        while at > 0 and self.text[at : at + 1] in (" ", "\t", "\r", "\n", "("):
            at -= 1
        return max(at, 0)

    def _inner(self, bound: Mapping[str, str]) -> _Checker:
        return _Checker(bound, self.text, self.fields)

    def infer(self, node: Node) -> str:
        if isinstance(node, Token):
            return DYN
        handler: Optional[Callable[[Tree[Token]], str]] = getattr(self, f"_{node.data}", None)
        if handler is not None:
            return handler(node)
        if len(node.children) == 1:  # the grammar's pass-through levels (expr -> ... -> primary)
            return self.infer(node.children[0])
        return DYN

    # -------------------------------------------------------------- operators

    def _expr(self, node: Tree[Token]) -> str:
        if len(node.children) == 1:
            return self.infer(node.children[0])
        condition, when_true, when_false = node.children
        found, left, right = self.infer(condition), self.infer(when_true), self.infer(when_false)
        if found not in (BOOL, DYN):
            raise _no_overload("_?_:_", (found, left, right), self._after(condition))
        return left if left == right else DYN

    def _conditionalor(self, node: Tree[Token]) -> str:
        return self._logical_pair("_||_", node)

    def _conditionaland(self, node: Tree[Token]) -> str:
        return self._logical_pair("_&&_", node)

    def _logical_pair(self, function: str, node: Tree[Token]) -> str:
        if len(node.children) == 1:
            return self.infer(node.children[0])
        left, right = self.infer(node.children[0]), self.infer(node.children[1])
        if any(side not in (BOOL, DYN) for side in (left, right)):
            raise _no_overload(function, (left, right), self._after(node.children[0]))
        return BOOL

    def _relation(self, node: Tree[Token]) -> str:
        if len(node.children) == 1:
            return self.infer(node.children[0])
        operator, right_node = node.children
        assert isinstance(operator, Tree)
        function = _RELATIONS[operator.data]
        left, right = self.infer(operator.children[0]), self.infer(right_node)
        if DYN not in (left, right) and not _relation_fits(function, left, right):
            raise _no_overload(function, (left, right), self._after(operator.children[0]))
        return BOOL

    def _addition(self, node: Tree[Token]) -> str:
        return self._arithmetic(node)

    def _multiplication(self, node: Tree[Token]) -> str:
        return self._arithmetic(node)

    def _arithmetic(self, node: Tree[Token]) -> str:
        if len(node.children) == 1:
            return self.infer(node.children[0])
        operator, right_node = node.children
        assert isinstance(operator, Tree)
        function = _ARITHMETIC[operator.data]
        left, right = self.infer(operator.children[0]), self.infer(right_node)
        if DYN in (left, right):
            return DYN
        allowed = (INT, UINT, DOUBLE) + ((STRING, BYTES) if function == "_+_" else ())
        if left != right or left not in allowed:
            if not (function == "_+_" and left == right and left.startswith("list(")):
                raise _no_overload(function, (left, right), self._after(operator.children[0]))
        return left

    def _unary(self, node: Tree[Token]) -> str:
        if len(node.children) == 1:
            return self.infer(node.children[0])
        operator, operand = node.children
        assert isinstance(operator, Tree)
        found = self.infer(operand)
        if operator.data == "unary_not":
            if found not in (BOOL, DYN):
                raise _no_overload("!_", (found,), self._before(operand))
            return BOOL
        if found not in (INT, DOUBLE, DYN):
            raise _no_overload("-_", (found,), self._before(operand))
        return found

    # -------------------------------------------------------------- members and primaries

    def _member_dot(self, node: Tree[Token]) -> str:
        target, name = node.children
        receiver = self.infer(target)
        field = str(name)
        if receiver == DEVICE:
            if field not in self.fields:
                raise CelCheckError(f"undefined field '{field}'", self._before(name))
            return self.fields[field]
        if receiver in _VALUES:
            return _VALUES[receiver]
        if receiver in _PRIMITIVES:
            raise CelCheckError(f"type '{receiver}' does not support field selection", self._before(name))
        return DYN

    def _member_index(self, node: Tree[Token]) -> str:
        target, index = node.children
        receiver, key = self.infer(target), self.infer(index)
        if receiver in _VALUES:
            if key not in (STRING, DYN):
                raise _no_overload("_[_]", (receiver, key), self._after(target))
            return _VALUES[receiver]
        return DYN

    def _member_dot_arg(self, node: Tree[Token]) -> str:
        target, name, *rest = node.children
        method = str(name)
        if method in _MACROS:
            return self._macro(method, target, rest)
        if method == "bind" and _is_cel_namespace(target):
            return self._bind(_arguments(rest))
        if _is_namespace(target, self.bound):  # math.greatest(...), sets.contains(...): a library's function
            for argument in _arguments(rest):
                self.infer(argument)
            return DYN
        self.infer(target)
        for argument in _arguments(rest):
            self.infer(argument)
        return _MEMBER_RESULTS.get(method, DYN)

    def _macro(self, method: str, target: Node, rest: list[Node]) -> str:
        arguments = _arguments(rest)
        variable = _identifier(arguments[0]) if arguments else None
        receiver = self.infer(target)
        element = STRING if receiver in (ATTRIBUTES, CAPACITY, *_INNER.values()) else DYN  # a map's keys
        inner = self._inner({**self.bound, variable: element}) if variable else self
        for argument in arguments[1:]:
            inner.infer(argument)
        return BOOL if method in ("all", "exists", "exists_one") else DYN

    def _bind(self, arguments: list[Node]) -> str:
        """cel.bind(name, value, result) (ext.Bindings, in the Kubernetes base environment)."""
        variable = _identifier(arguments[0]) if len(arguments) == 3 else None
        if variable is None:
            return DYN
        return self._inner({**self.bound, variable: self.infer(arguments[1])}).infer(arguments[2])

    def _ident_arg(self, node: Tree[Token]) -> str:
        name, *rest = node.children
        function = str(name)
        if function == "has":
            return BOOL  # the macro's argument is a field selection, not evaluated for its type
        for argument in _arguments(rest):
            self.infer(argument)
        return _GLOBAL_RESULTS.get(function, DYN)

    def _ident(self, node: Tree[Token]) -> str:
        name = str(node.children[0])
        if name == "device":
            return DEVICE
        if name in self.bound:
            return self.bound[name]
        if name in _TYPE_NAMES:  # type(x) == string: types are values too
            return DYN
        raise CelCheckError(f"undeclared reference to '{name}' (in container '')", _start(node))

    def _literal(self, node: Tree[Token]) -> str:
        token = node.children[0]
        return _LITERALS.get(token.type, DYN) if isinstance(token, Token) else DYN

    def _paren_expr(self, node: Tree[Token]) -> str:
        return self.infer(node.children[0])

    def _list_lit(self, node: Tree[Token]) -> str:
        elements = [self.infer(child) for child in _arguments(node.children)]
        kinds = set(elements)
        return f"list({kinds.pop()})" if len(kinds) == 1 else "list(dyn)"

    def _map_lit(self, node: Tree[Token]) -> str:
        for child in node.children:
            if isinstance(child, Tree):
                for item in child.children:
                    self.infer(item)
        return DYN


def _arguments(children: list[Node]) -> list[Node]:
    """The expressions of an optional ``exprlist`` child."""
    for child in children:
        if isinstance(child, Tree) and child.data == "exprlist":
            return list(child.children)
    return []


def _identifier(node: Node) -> Optional[str]:
    """The variable a macro declares: its first argument must be a plain identifier."""
    idents = [child for child in node.iter_subtrees() if child.data == "ident"] if isinstance(node, Tree) else []
    return str(idents[0].children[0]) if len(idents) == 1 else None


def _is_namespace(node: Node, bound: Mapping[str, str]) -> bool:
    """A bare identifier that is not a variable, as the target of a call: a function namespace."""
    if not isinstance(node, Tree):
        return False
    idents = [sub for sub in node.iter_subtrees() if sub.data == "ident"]
    members = [sub for sub in node.iter_subtrees() if sub.data.startswith("member_")]
    return len(idents) == 1 and not members and str(idents[0].children[0]) not in ("device", *bound)


def _is_cel_namespace(node: Node) -> bool:
    """The target ``cel`` of ``cel.bind``: a bare identifier, not a variable."""
    if not isinstance(node, Tree):
        return False
    idents = [sub for sub in node.iter_subtrees() if sub.data == "ident"]
    selects = [sub for sub in node.iter_subtrees() if sub.data in ("member_dot", "member_index", "member_dot_arg")]
    return len(idents) == 1 and str(idents[0].children[0]) == "cel" and not selects


def _relation_fits(function: str, left: str, right: str) -> bool:
    """cel-go's overloads with the Kubernetes environment's cross-type numeric comparisons."""
    if function == "@in":
        return right.startswith(("list(", "map(")) or right == DYN
    if function in ("_==_", "_!=_"):
        return left == right or (left in NUMBERS and right in NUMBERS) or NULL in (left, right)
    if left in NUMBERS and right in NUMBERS:
        return True
    return left == right and left in _ORDERED
