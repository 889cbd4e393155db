"""Label-selector and node-selector matching, written once for every plugin.

Semantics follow k8s.io/apimachinery/pkg/labels and component-helpers' nodeaffinity:
a nil ``LabelSelector`` selects nothing, an empty one selects everything; ``NotIn`` and
``DoesNotExist`` match a missing key; ``Gt``/``Lt`` compare integers and never match a value that is
not one. Selectors are compiled once into ``Matcher`` objects because plugins evaluate them
against thousands of pods per cycle.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping, Optional

from scheduler_core.model.validation import is_label_value
from scheduler_core.model import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)

Labels = Mapping[str, str]
Predicate = Callable[[Labels], bool]

FIELD_NODE_NAME = "metadata.name"


def _requirement_predicate(key: str, operator: str, values: tuple[str, ...]) -> Predicate:
    if operator in ("In", "="):
        allowed = frozenset(values)
        return lambda labels: labels.get(key) in allowed if key in labels else False
    if operator == "NotIn":
        banned = frozenset(values)
        return lambda labels: key not in labels or labels[key] not in banned
    if operator == "Exists":
        return lambda labels: key in labels
    if operator == "DoesNotExist":
        return lambda labels: key not in labels
    if operator in ("Gt", "Lt"):
        return _integer_predicate(key, operator, values)
    raise ValueError(f"unknown operator {operator!r}")


def _integer_predicate(key: str, operator: str, values: tuple[str, ...]) -> Predicate:
    bound = parse_int64(values[0]) if len(values) == 1 else None
    if bound is None:
        return lambda labels: False

    def compare(labels: Labels) -> bool:
        value = parse_int64(labels[key]) if key in labels else None
        if value is None:
            return False
        return value > bound if operator == "Gt" else value < bound

    return compare


def parse_int64(text: str) -> Optional[int]:
    """strconv.ParseInt(text, 10, 64): optional sign, decimal digits only."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


class Matcher:
    """A compiled selector: ``matches(labels)``. ``NOTHING`` and ``EVERYTHING`` are the two constants."""

    __slots__ = ("_predicates", "_nothing", "pairs", "exact")

    def __init__(
        self,
        predicates: list[Predicate],
        nothing: bool = False,
        pairs: tuple[tuple[str, str], ...] = (),
        exact: bool = False,
    ) -> None:
        self._predicates = predicates
        self._nothing = nothing
        # ``pairs`` are the selector's key=value equalities (matchLabels and single-valued In);
        # ``exact`` says they are the whole selector, which lets indexes look pods up by label.
        self.pairs = pairs
        self.exact = exact

    @property
    def is_nothing(self) -> bool:
        return self._nothing

    @property
    def is_everything(self) -> bool:
        return not self._nothing and not self._predicates

    def matches(self, labels: Labels) -> bool:
        if self._nothing:
            return False
        for predicate in self._predicates:
            if not predicate(labels):
                return False
        return True


NOTHING = Matcher([], nothing=True)
EVERYTHING = Matcher([], exact=True)


@lru_cache(maxsize=65536)
def compile_selector(selector: Optional[LabelSelector]) -> Matcher:
    """metav1.LabelSelectorAsSelector: nil selects nothing, empty selects everything."""
    if selector is None:
        return NOTHING
    predicates: list[Predicate] = []
    pairs: list[tuple[str, str]] = []
    exact = True
    for key, value in selector.match_labels:
        predicates.append(_requirement_predicate(key, "In", (value,)))
        pairs.append((key, value))
    for req in selector.match_expressions:
        predicates.append(_requirement_predicate(req.key, req.operator, req.values))
        if req.operator == "In" and len(req.values) == 1:
            pairs.append((req.key, req.values[0]))
        else:
            exact = False
    return Matcher(predicates, pairs=tuple(pairs), exact=exact)


def selector_matches(selector: Optional[LabelSelector], labels: Labels) -> bool:
    return compile_selector(selector).matches(labels)


def selector_from_map(labels: Mapping[str, str]) -> LabelSelector:
    """labels.SelectorFromSet as a LabelSelector (an empty map selects everything)."""
    return LabelSelector(match_labels=tuple(sorted(labels.items())))


def merge_match_label_keys(
    selector: Optional[LabelSelector], keys: tuple[str, ...], labels: Labels, operator: str = "In"
) -> Optional[LabelSelector]:
    """Add ``key In (labels[key])`` for each key the pod carries (matchLabelKeys / mismatchLabelKeys).

    A nil selector stays nil: it selects no pod, and the keys never turn it into one that does
    (mergeLabelSetWithSelector keeps labels.Nothing(); the API server skips a nil selector too).
    Merging a key the API server already merged at creation adds the same requirement twice,
    which selects the same pods."""
    extra = tuple(LabelSelectorRequirement(k, operator, (labels[k],)) for k in keys if k in labels)
    if not extra or selector is None:
        return selector
    return LabelSelector(selector.match_labels, selector.match_expressions + extra)


# ---------------------------------------------------------------------------- node selectors


@lru_cache(maxsize=65536)
def _compile_node_term(term: NodeSelectorTerm) -> Optional[Callable[[Node], bool]]:
    """One term: all its expressions and fields must match. An empty term matches nothing (None)."""
    if not term.match_expressions and not term.match_fields:
        return None
    labels_match = _compile_label_requirements(term.match_expressions)
    if labels_match is None:
        return None
    field_preds = [_field_predicate(r) for r in term.match_fields]

    def matches(node: Node) -> bool:
        return labels_match(node.labels) and all(p(node) for p in field_preds)

    return matches


@lru_cache(maxsize=65536)
def _compile_label_requirements(
    requirements: tuple[NodeSelectorRequirement, ...],
) -> Optional[Callable[[Labels], bool]]:
    """A term's matchExpressions on a node's labels: all must match; None when one does not parse
    (nodeaffinity: such a term never matches)."""
    if not all(map(_valid_node_requirement, requirements)):
        return None
    label_preds = [_requirement_predicate(r.key, r.operator, r.values) for r in requirements]

    def matches(labels: Labels) -> bool:
        return all(p(labels) for p in label_preds)

    return matches


def _valid_node_requirement(req: NodeSelectorRequirement) -> bool:
    """labels.NewRequirement's checks, which the API server makes only in part for node affinity
    (it counts values, but never parses Gt/Lt's as integers and lets any value through in preferred
    terms): value counts per operator, an integer for Gt/Lt, and every value a valid label value."""
    if req.operator in ("In", "NotIn"):
        counted = len(req.values) > 0
    elif req.operator in ("Exists", "DoesNotExist"):
        counted = len(req.values) == 0
    elif req.operator in ("Gt", "Lt"):
        counted = len(req.values) == 1 and parse_int64(req.values[0]) is not None
    else:
        return False
    return counted and not any(is_label_value(value) for value in req.values)


def _field_predicate(req: NodeSelectorRequirement) -> Callable[[Node], bool]:
    # Fields support only metadata.name with In/NotIn and exactly one value; anything else never matches.
    if req.key != FIELD_NODE_NAME or req.operator not in ("In", "NotIn") or len(req.values) != 1:
        return lambda node: False
    predicate = _requirement_predicate(FIELD_NODE_NAME, req.operator, req.values)
    return lambda node: predicate({FIELD_NODE_NAME: node.name})


def node_selector_term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    compiled = _compile_node_term(term)
    return compiled is not None and compiled(node)


def node_selector_matches(selector: NodeSelector, node: Node) -> bool:
    """Terms are ORed (nodeaffinity.NodeSelector.Match)."""
    return any(node_selector_term_matches(term, node) for term in selector.terms)


def node_selector_match_or_error(selector: NodeSelector, node: Node) -> tuple[bool, bool]:
    """LazyErrorNodeSelector.Match: (matched, a term failed to parse). Empty terms are dropped; a
    term that does not parse is an error, not a match, and the terms after it are still tried;
    the first matching term ends the search without an error."""
    errored = False
    for term in selector.terms:
        if not term.match_expressions and not term.match_fields:
            continue
        if not all(map(_valid_node_requirement, term.match_expressions)) or not all(
            map(_valid_field_requirement, term.match_fields)
        ):
            errored = True
            continue
        if node_selector_term_matches(term, node):
            return True, False
    return False, errored


def map_selector_matches(required: Mapping[str, str], labels: Labels) -> bool:
    """A pod's ``nodeSelector`` map: every pair must be present."""
    return all(labels.get(k) == v for k, v in required.items())


def node_selector_matches_labels(selector: NodeSelector, labels: Labels) -> bool:
    """A node known only by its labels, as volume.CheckNodeAffinity builds it: terms ORed, an empty
    term matches nothing, and with no node name there are no fields, so nodeSelectorTerm.match skips
    a term's matchFields (a malformed one still fails the term, as its parse error does)."""
    for term in selector.terms:
        if not term.match_expressions and not term.match_fields:
            continue
        if not all(map(_valid_field_requirement, term.match_fields)):
            continue
        if term.match_expressions:
            # the term's expressions alone, on the labels (no probe Node built per node checked)
            compiled = _compile_label_requirements(term.match_expressions)
            if compiled is None or not compiled(labels):
                continue
        return True
    return False


def _valid_field_requirement(req: NodeSelectorRequirement) -> bool:
    return req.key == FIELD_NODE_NAME and req.operator in ("In", "NotIn") and len(req.values) == 1
