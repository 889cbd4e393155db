"""Label selectors, node selectors and affinity, validated as the API server validates them."""

from __future__ import annotations

from typing import Iterator, Optional

from scheduler_core.model import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    WeightedPodAffinityTerm,
)
from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.validation import (
    check,
    check_str_enum,
    is_dns1123_label,
    is_label_value,
    is_qualified_name,
    label_map,
)

SET_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_OPERATORS = SET_OPERATORS + ("Gt", "Lt")
FIELD_NODE_NAME = "metadata.name"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _values(req: Field) -> tuple[str, ...]:
    return tuple(value for value, _ in req.get_str_list("values"))


def _check_operator_values(req: Field, operator: str, values: tuple[str, ...]) -> None:
    if operator in ("In", "NotIn") and not values:
        req.error_at("values", "must be specified when `operator` is 'In' or 'NotIn'")
    elif operator in ("Exists", "DoesNotExist") and values:
        req.error_at("values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif operator in ("Gt", "Lt") and len(values) != 1:
        # The API server checks the count only: a value that is no integer is stored, and the
        # scheduler's node selector then matches nothing with that term (labels.py).
        req.error_at("values", "must be specified single value when `operator` is 'Lt' or 'Gt'")


def _key(req: Field) -> str:
    key_field = req.get("key")
    if key_field is None:
        req.error_at("key", "Required value")
        return ""
    key = key_field.as_str()
    check(key_field, key, is_qualified_name(key))
    return key


def _operator(req: Field, allowed: tuple[str, ...]) -> str:
    op_field = req.get("operator")
    if op_field is None:
        req.error_at("operator", "Required value")
        return ""
    operator = op_field.as_str()
    return operator if check_str_enum(op_field, operator, allowed) else ""


# ---------------------------------------------------------------------- label selectors


def _label_requirement(req: Field) -> Optional[LabelSelectorRequirement]:
    if not req.expect_map():
        return None
    key, operator, values = _key(req), _operator(req, SET_OPERATORS), _values(req)
    for (value, item) in req.get_str_list("values"):
        check(item, value, is_label_value(value))
    if not operator:
        return None
    _check_operator_values(req, operator, values)
    return LabelSelectorRequirement(key, operator, values)


def label_selector(field: Optional[Field]) -> Optional[LabelSelector]:
    """metav1.LabelSelector; absent/null stays None (nil: selects nothing)."""
    if field is None or not field.expect_map():
        return None
    match_labels = label_map(field.get("matchLabels"))
    expressions = [_label_requirement(req) for req in field.get_list("matchExpressions")]
    return LabelSelector(tuple(sorted(match_labels.items())), tuple(r for r in expressions if r is not None))


# ---------------------------------------------------------------------- node selectors


def _node_requirement(req: Field) -> Optional[NodeSelectorRequirement]:
    if not req.expect_map():
        return None
    key, operator, values = _key(req), _operator(req, NODE_OPERATORS), _values(req)
    if not operator:
        return None
    _check_operator_values(req, operator, values)
    return NodeSelectorRequirement(key, operator, values)


def _field_requirement(req: Field) -> Optional[NodeSelectorRequirement]:
    if not req.expect_map():
        return None
    key = req.get_str("key")
    if key != FIELD_NODE_NAME:
        req.error_at("key", f'unsupported value "{key[:80]}": supported values: "{FIELD_NODE_NAME}"')
    # The API server allows one value only; the corpus (no API server) uses several, so they are kept.
    operator, values = _operator(req, ("In", "NotIn")), _values(req)
    return NodeSelectorRequirement(key, operator, values) if operator else None


def node_selector_term(term: Field) -> NodeSelectorTerm:
    if not term.expect_map():
        return NodeSelectorTerm()
    expressions = [_node_requirement(r) for r in term.get_list("matchExpressions")]
    fields = [_field_requirement(r) for r in term.get_list("matchFields")]
    return NodeSelectorTerm(tuple(e for e in expressions if e), tuple(f for f in fields if f))


def node_selector(field: Field) -> Optional[NodeSelector]:
    if not field.expect_map():
        return None
    terms_field = field.get("nodeSelectorTerms")
    terms = terms_field.items() if terms_field is not None else []
    if not terms:
        field.error_at("nodeSelectorTerms", "Required value: must have at least one node selector term")
    return NodeSelector(tuple(node_selector_term(t) for t in terms))


def _weight(item: Field) -> int:
    weight_field = item.get("weight")
    if weight_field is None:
        item.error_at("weight", "Required value: must be in the range 1-100")
        return 1
    return weight_field.as_int(1, 1, 100)


def node_affinity(field: Field) -> Optional[NodeAffinity]:
    if not field.expect_map():
        return None
    required_field = field.get(REQUIRED)
    required = node_selector(required_field) if required_field is not None else None
    preferred = [PreferredSchedulingTerm(weight, node_selector_term(preference))
                 for weight, preference in _weighted_terms(field, "preference")]
    return NodeAffinity(required, tuple(preferred))


def _weighted_terms(field: Field, inner: str) -> Iterator[tuple[int, Field]]:
    """The preferred list's items as (weight, the term under ``inner``), each problem reported once."""
    for item in field.get_list(PREFERRED):
        if not item.expect_map():
            continue
        weight = _weight(item)
        term = item.get(inner)
        if term is None:
            item.error_at(inner, "Required value")
            continue
        yield weight, term


# ---------------------------------------------------------------------- pod affinity


def _label_keys(term: Field, name: str) -> tuple[str, ...]:
    keys = []
    for key, item in term.get_str_list(name):
        check(item, key, is_qualified_name(key))
        keys.append(key)
    return tuple(keys)


def _check_label_keys(term: Field, match: tuple[str, ...], mismatch: tuple[str, ...]) -> None:
    for key in sorted(set(match) & set(mismatch)):
        term.error_at("matchLabelKeys", f'invalid value "{key}": exists in both matchLabelKeys and mismatchLabelKeys')


def pod_affinity_term(term: Field) -> Optional[PodAffinityTerm]:
    if not term.expect_map():
        return None
    selector = label_selector(term.get("labelSelector"))
    topology_field = term.get("topologyKey")
    topology_key = topology_field.as_str() if topology_field is not None else ""
    if not topology_key:
        term.error_at("topologyKey", "Required value: can not be empty")
    else:
        check(topology_field, topology_key, is_qualified_name(topology_key))
    namespaces = []
    for namespace, item in term.get_str_list("namespaces"):
        check(item, namespace, is_dns1123_label(namespace))
        namespaces.append(namespace)
    match, mismatch = _label_keys(term, "matchLabelKeys"), _label_keys(term, "mismatchLabelKeys")
    _check_label_keys(term, match, mismatch)
    namespace_selector = label_selector(term.get("namespaceSelector"))
    return PodAffinityTerm(selector, topology_key, tuple(namespaces), namespace_selector, match, mismatch)


def pod_affinity(field: Field) -> Optional[PodAffinity]:
    if not field.expect_map():
        return None
    required = [pod_affinity_term(t) for t in field.get_list(REQUIRED)]
    preferred = []
    for weight, term_field in _weighted_terms(field, "podAffinityTerm"):
        term = pod_affinity_term(term_field)
        if term is not None:
            preferred.append(WeightedPodAffinityTerm(weight, term))
    return PodAffinity(tuple(t for t in required if t is not None), tuple(preferred))


def affinity(field: Optional[Field]) -> Optional[Affinity]:
    if field is None or not field.expect_map():
        return None
    node = field.get("nodeAffinity")
    pod = field.get("podAffinity")
    anti = field.get("podAntiAffinity")
    return Affinity(
        node_affinity(node) if node is not None else None,
        pod_affinity(pod) if pod is not None else None,
        pod_affinity(anti) if anti is not None else None,
    )
