"""The worst-case cost the API server estimates for a DRA selector at create
(k8s.io/dynamic-resource-allocation/cel/compile.go: ``env.EstimateCost`` with its size estimator;
pkg/apis/resource/validation: more than ``CELSelectorExpressionMaxCost`` is "too complex, exceeds
cost limit").

It follows cel-go's ``checker/cost.go`` (v0.26) over cel-python's parse tree: a literal costs 0,
an identifier 1, a field selection on a map or an object 1 (on ``dyn`` nothing), ``has()`` 1,
a call 1 plus its arguments, except: ``&&``/``||`` only their arguments, the conditional its
condition and the dearer branch, ``==``/``!=`` and string ordering a tenth of the smaller
operand's size, ``in`` on a list the list's size, ``startsWith``/``endsWith``/``contains``/
``matches`` by their strings' sizes, list and map literals 10 and 30. A comprehension (``all``,
``exists``, ``exists_one``, ``map``, ``filter``, ``cel.bind``) costs its range, its initial value
and result, plus the range's size times one loop step and condition, as the parser's macro
expansions spell them. Sizes come from compile.go's declarations (a driver 63, a domain 63, an
id 32, an attribute 64, each map 32 entries), literals and tracked results (a ``map`` or
``filter`` is as long as its range). A size cel-go would not know either counts as 0 here (cel-go
takes the largest number), so this estimate never exceeds the release's: an expression it
refuses, the API server refuses too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from lark import Token, Tree

from scheduler_core.dra import celcheck
from scheduler_core.dra.celcheck import ATTRIBUTES, CAPACITY, DEVICE, DYN, STRING

from scheduler_core.dra.celvalues import SELECTOR_MAX_COST  # resourceapi.CELSelectorExpressionMaxCost

MAX_COST = 2**64 - 1  # cel-go's costs saturate at math.MaxUint64
STRING_TRAVERSAL_FACTOR = 0.1  # common.StringTraversalCostFactor
REGEX_LENGTH_FACTOR = 0.25  # common.RegexStringLengthCostFactor
LIST_CREATE_COST, MAP_CREATE_COST = 10, 30  # common.ListCreateBaseCost, MapCreateBaseCost
DRIVER_SIZE, DOMAIN_SIZE, ID_SIZE, ATTRIBUTE_SIZE, MAP_ENTRIES = 63, 63, 32, 64, 32
_INNER_ATTRIBUTES = f"map({STRING}, {DYN})"
_INNER_CAPACITY = f"map({STRING}, {celcheck.QUANTITY})"
_SCALARS = (celcheck.BOOL, celcheck.INT, celcheck.UINT, celcheck.DOUBLE)
_LITERAL_ONE = ("BOOL_LIT", "INT_LIT", "UINT_LIT", "FLOAT_LIT", "NULL_LIT")


@dataclass(frozen=True, slots=True)
class _Estimate:
    cost: int
    size: Optional[int] = None  # the value's size (string length, list length), None when unknown


@dataclass(frozen=True, slots=True)
class _Variable:
    kind: str
    size: Optional[int]


def _add(*costs: int) -> int:
    return min(sum(costs), MAX_COST)


def _factor(size: int, factor: float) -> int:
    """multiplyByCostFactor: the product rounded up, saturating."""
    return min(math.ceil(size * factor), MAX_COST)


def estimate_selector_cost(tree: Tree[Token]) -> int:
    """The maximum of cel-go's CostEstimate for a selector that passed the type check."""
    return _Coster({}).estimate(tree).cost


def too_complex(tree: Tree[Token]) -> bool:
    """validateCELExpression: result.MaxCost > CELSelectorExpressionMaxCost."""
    return estimate_selector_cost(tree) > SELECTOR_MAX_COST


class _Coster:
    def __init__(self, variables: dict[str, _Variable]) -> None:
        self.variables = variables  # comprehension variables in scope

    def kind(self, node: Tree[Token] | Token) -> str:
        variables = {name: v.kind for name, v in self.variables.items()}
        return celcheck._Checker(variables, "", celcheck.SHARED_DEVICE_FIELDS).infer(node)  # checked already

    def estimate(self, node: Tree[Token] | Token) -> _Estimate:
        if isinstance(node, Token):
            return _Estimate(0)
        handler: Optional[Callable[[Tree[Token]], _Estimate]] = getattr(self, f"_{node.data}", None)
        if handler is not None:
            return handler(node)
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        return _Estimate(_add(*(self.estimate(child).cost for child in node.children)))

    # -------------------------------------------------------------- operators

    def _expr(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        condition, when_true, when_false = (self.estimate(child) for child in node.children)
        size = None if when_true.size is None or when_false.size is None else max(when_true.size, when_false.size)
        return _Estimate(_add(condition.cost, max(when_true.cost, when_false.cost)), size)

    def _conditionalor(self, node: Tree[Token]) -> _Estimate:
        return self._logical(node)

    def _conditionaland(self, node: Tree[Token]) -> _Estimate:
        return self._logical(node)

    def _logical(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        return _Estimate(_add(*(self.estimate(child).cost for child in node.children)), 1)

    def _relation(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        operator, right_node = node.children
        assert isinstance(operator, Tree)
        left, right = self.estimate(operator.children[0]), self.estimate(right_node)
        arguments = _add(left.cost, right.cost)
        if operator.data == "relation_in":
            if self.kind(right_node).startswith("list("):
                return _Estimate(_add(right.size or 0, arguments), 1)
            return _Estimate(_add(1, arguments), 1)
        by_size = _factor(_smallest(left.size, right.size), STRING_TRAVERSAL_FACTOR)
        if operator.data in ("relation_eq", "relation_ne"):
            return _Estimate(_add(by_size, arguments), 1)
        kind = self.kind(operator.children[0])
        if kind in (STRING, celcheck.BYTES):
            return _Estimate(_add(by_size, arguments), 1)
        # A dyn operand checks against every overload; cel-go takes the dearest (a number's is 1).
        return _Estimate(_add(max(1, by_size) if kind == DYN else 1, arguments), 1)

    def _addition(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        operator, right_node = node.children
        assert isinstance(operator, Tree)
        left, right = self.estimate(operator.children[0]), self.estimate(right_node)
        kind = self.kind(operator.children[0])
        size = None if left.size is None or right.size is None else _add(left.size, right.size)
        if operator.data == "addition_add" and kind in (STRING, celcheck.BYTES):
            return _Estimate(_add(_factor(size or 0, STRING_TRAVERSAL_FACTOR), left.cost, right.cost), size)
        if operator.data == "addition_add" and kind.startswith("list("):
            return _Estimate(_add(1, left.cost, right.cost), size)
        return _Estimate(_add(1, left.cost, right.cost), 1)

    def _multiplication(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        operator, right_node = node.children
        assert isinstance(operator, Tree)
        return _Estimate(_add(1, self.estimate(operator.children[0]).cost, self.estimate(right_node).cost), 1)

    def _unary(self, node: Tree[Token]) -> _Estimate:
        if len(node.children) == 1:
            return self.estimate(node.children[0])
        return _Estimate(_add(1, self.estimate(node.children[1]).cost), 1)

    # -------------------------------------------------------------- members

    def _member_dot(self, node: Tree[Token]) -> _Estimate:
        target, _ = node.children
        receiver = self.kind(target)
        own = 1 if receiver == DEVICE or receiver.startswith("map(") else 0
        return _Estimate(_add(own, self.estimate(target).cost), _selected_size(receiver, self.kind(node)))

    def _member_index(self, node: Tree[Token]) -> _Estimate:
        target, index = node.children
        receiver = self.kind(target)
        return _Estimate(
            _add(1, self.estimate(target).cost, self.estimate(index).cost), _selected_size(receiver, self.kind(node))
        )

    def _member_dot_arg(self, node: Tree[Token]) -> _Estimate:
        target, name, *rest = node.children
        method = str(name)
        arguments = celcheck._arguments(rest)
        if method in ("all", "exists", "exists_one", "map", "filter") and arguments:
            return self._comprehension(method, target, arguments)
        if method == "bind" and _is_ident(target, "cel") and len(arguments) == 3:
            return self._bind(arguments)
        namespace = celcheck._is_namespace(target, {name: v.kind for name, v in self.variables.items()})
        receiver = _Estimate(0) if namespace else self.estimate(target)  # math.greatest(...): a global call
        costs = [self.estimate(argument) for argument in arguments]
        paid = _add(receiver.cost, *(c.cost for c in costs))
        if method in ("startsWith", "endsWith") and len(costs) == 1:
            return _Estimate(_add(_factor(costs[0].size or 0, STRING_TRAVERSAL_FACTOR), paid), 1)
        if method == "contains" and len(costs) == 1:
            product = _factor(receiver.size or 0, STRING_TRAVERSAL_FACTOR) * _factor(
                costs[0].size or 0, STRING_TRAVERSAL_FACTOR
            )
            return _Estimate(_add(min(product, MAX_COST), paid), 1)
        if method == "matches" and len(costs) == 1:
            product = _factor((receiver.size or 0) + 1, STRING_TRAVERSAL_FACTOR) * _factor(
                costs[0].size or 0, REGEX_LENGTH_FACTOR
            )
            return _Estimate(_add(min(product, MAX_COST), paid), 1)
        return _Estimate(_add(1, paid), 1 if self.kind(node) in _SCALARS else None)

    def _ident_arg(self, node: Tree[Token]) -> _Estimate:
        name, *rest = node.children
        arguments = celcheck._arguments(rest)
        if str(name) == "has" and arguments:
            return _Estimate(_add(1, self._presence_operand(arguments[0])), 1)
        costs = [self.estimate(argument).cost for argument in arguments]
        return _Estimate(_add(1, *costs), 1 if self.kind(node) in _SCALARS else None)

    def _presence_operand(self, argument: Tree[Token] | Token) -> int:
        """has(a.b): the presence test costs 1 and the operand ``a`` what it costs."""
        selects = (
            [
                sub
                for sub in argument.iter_subtrees_topdown()  # type: ignore[no-untyped-call]  # lark leaves it unannotated
                if sub.data == "member_dot"
            ]
            if isinstance(argument, Tree)
            else []
        )
        return self.estimate(selects[0].children[0]).cost if selects else self.estimate(argument).cost

    def _ident(self, node: Tree[Token]) -> _Estimate:
        name = str(node.children[0])
        variable = self.variables.get(name)
        return _Estimate(1, variable.size if variable is not None else None)

    def _literal(self, node: Tree[Token]) -> _Estimate:
        token = node.children[0]
        if not isinstance(token, Token):
            return _Estimate(0)
        if token.type in _LITERAL_ONE:
            return _Estimate(0, 1)
        return _Estimate(0, len(_literal_text(token)))

    def _paren_expr(self, node: Tree[Token]) -> _Estimate:
        return self.estimate(node.children[0])

    def _list_lit(self, node: Tree[Token]) -> _Estimate:
        elements = [self.estimate(child) for child in celcheck._arguments(node.children)]
        return _Estimate(_add(LIST_CREATE_COST, *(e.cost for e in elements)), len(elements))

    def _map_lit(self, node: Tree[Token]) -> _Estimate:
        entries = [self.estimate(item) for child in node.children if isinstance(child, Tree) for item in child.children]
        return _Estimate(_add(MAP_CREATE_COST, *(e.cost for e in entries)), len(entries) // 2)

    # -------------------------------------------------------------- comprehensions

    def _comprehension(self, method: str, target: Tree[Token] | Token, arguments: list[celcheck.Node]) -> _Estimate:
        """costComprehension over the expansion parser/macro.go makes of the macro."""
        iteration = self.estimate(target)
        variable = celcheck._identifier(arguments[0])
        range_kind = self.kind(target)
        inner = _Coster(
            {**self.variables, variable: _iteration_variable(range_kind, target, self)} if variable else self.variables
        )
        body = [inner.estimate(argument).cost for argument in arguments[1:]]
        predicate = body[0] if body else 0
        count = iteration.size or 0
        if method == "all":  # @not_strictly_false(@result) ; @result && p ; @result
            loop, initial, result, size = 2 + 1 + predicate, 0, 1, 1
        elif method == "exists":  # @not_strictly_false(!@result) ; @result || p ; @result
            loop, initial, result, size = 3 + 1 + predicate, 0, 1, 1
        elif method == "exists_one":  # true ; p ? @result + 1 : @result ; @result == 1
            loop, initial, result, size = predicate + 2, 0, 2, 1
        elif method == "map" and len(body) == 2:  # map(x, p, f): p ? @result + [f] : @result
            loop, initial, result, size = body[0] + 1 + LIST_CREATE_COST + body[1] + 1, LIST_CREATE_COST, 1, count
        elif method == "map":  # true ; @result + [f] ; @result
            loop, initial, result, size = 1 + LIST_CREATE_COST + predicate + 1, LIST_CREATE_COST, 1, count
        else:  # filter: p ? @result + [x] : @result
            loop, initial, result, size = predicate + 1 + LIST_CREATE_COST + 1 + 1, LIST_CREATE_COST, 1, count
        return _Estimate(_add(iteration.cost, initial, result, min(count * loop, MAX_COST)), size)

    def _bind(self, arguments: list[celcheck.Node]) -> _Estimate:
        """costBind: the empty range (a list literal), the bound value and the result."""
        variable = celcheck._identifier(arguments[0])
        bound = self.estimate(arguments[1])
        inner = _Coster(
            {**self.variables, variable: _Variable(self.kind(arguments[1]), bound.size)} if variable else self.variables
        )
        result = inner.estimate(arguments[2])
        return _Estimate(_add(LIST_CREATE_COST, bound.cost, result.cost), result.size)


def _smallest(left: Optional[int], right: Optional[int]) -> int:
    known = [size for size in (left, right) if size is not None]
    return min(known) if len(known) == 2 else 0  # an unknown side: cel-go's bound is the other one or
    # math.MaxUint64; counting 0 keeps this estimate below the release's


def _selected_size(receiver: str, selected: str) -> Optional[int]:
    """The size estimator's answer for a field or an index of ``receiver``."""
    if receiver == DEVICE:
        return {STRING: DRIVER_SIZE, ATTRIBUTES: MAP_ENTRIES, CAPACITY: MAP_ENTRIES}.get(selected)
    if receiver in (ATTRIBUTES, CAPACITY):
        return MAP_ENTRIES
    if receiver == _INNER_ATTRIBUTES:
        return ATTRIBUTE_SIZE
    if receiver == _INNER_CAPACITY:
        return 0  # QuantityDeclType declares no elements
    return 1 if selected in _SCALARS else None


def _iteration_variable(range_kind: str, target: Tree[Token] | Token, coster: _Coster) -> _Variable:
    """The loop variable: a map's keys (a domain, an id), a literal list's elements."""
    if range_kind in (ATTRIBUTES, CAPACITY):  # domains
        return _Variable(STRING, DOMAIN_SIZE)
    if range_kind in (_INNER_ATTRIBUTES, _INNER_CAPACITY):
        return _Variable(STRING, ID_SIZE)
    elements = _list_elements(target)
    if elements:
        sizes = [coster.estimate(element).size for element in elements]
        return _Variable(DYN, None if None in sizes else max(s for s in sizes if s is not None))
    return _Variable(DYN, None)


def _list_elements(target: Tree[Token] | Token) -> list[celcheck.Node]:
    if not isinstance(target, Tree):
        return []
    lists = [sub for sub in target.iter_subtrees_topdown() if sub.data == "list_lit"]  # type: ignore[no-untyped-call]  # lark leaves it unannotated
    return celcheck._arguments(lists[0].children) if lists else []


def _is_ident(node: Tree[Token] | Token, name: str) -> bool:
    if not isinstance(node, Tree):
        return False
    idents = [sub for sub in node.iter_subtrees() if sub.data == "ident"]
    return (
        len(idents) == 1
        and str(idents[0].children[0]) == name
        and not any(sub.data in ("member_dot", "member_index") for sub in node.iter_subtrees())
    )


def _literal_text(token: Token) -> str:
    """The value of a string or bytes literal, for its size (runes, or bytes)."""
    text = str(token)
    body = text.lstrip("rRbB")
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    return body[len(quote) : len(body) - len(quote)]
