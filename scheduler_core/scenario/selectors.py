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
    is_dns1123_label,
    is_dns1123_subdomain,
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
        req.error_at("values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif operator in ("Exists", "DoesNotExist") and values:
        req.error_at("values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif operator in ("Gt", "Lt") and len(values) != 1:
        # The API server checks the count only: a value that is no integer is stored, and the
        # scheduler's node selector then matches nothing with that term (labels.py).
        req.error_at("values", "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")


def _key(req: Field) -> str:
    """ValidateLabelName: a missing key is the empty name, which IsQualifiedName refuses."""
    key_field = req.get("key")
    if key_field is None:
        req.error_at("key", f'invalid value "": {is_qualified_name("")[0]}')
        return ""
    key = key_field.as_str()
    check(key_field, key, is_qualified_name(key))
    return key


def _operator(req: Field, allowed: tuple[str, ...]) -> str:
    """The operator switch's default case: anything else (a missing one too) is no selector operator."""
    op_field = req.get("operator")
    operator = op_field.as_str() if op_field is not None else ""
    if operator in allowed:
        return operator
    req.error_at("operator", f'invalid value "{operator[:80]}": not a valid selector operator')
    return ""


def _check_label_values(req: Field, kept: bool = False) -> None:
    """IsValidLabelValue on every value, each at values[i]; ``kept``: a value an existing pod may
    keep (allowInvalidLabelValueInRequiredNodeAffinity), said as a notice, not refused."""
    for value, item in req.get_str_list("values"):
        for message in is_label_value(value):
            if kept:
                item.keep(f'invalid value "{value[:80]}": {message} (kept on an existing pod: the term never matches)')
            else:
                item.error(f'invalid value "{value[:80]}": {message}')


# ---------------------------------------------------------------------- label selectors


def _label_requirement(req: Field) -> Optional[LabelSelectorRequirement]:
    if not req.expect_map():
        return None
    key, operator, values = _key(req), _operator(req, SET_OPERATORS), _values(req)
    _check_label_values(req)
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


def _node_requirement(req: Field, check_values: bool, values_kept: bool = False) -> Optional[NodeSelectorRequirement]:
    """ValidateNodeSelectorRequirement; ``check_values`` is false where the release allows any
    label value (preferred terms: they can still match when the cluster has one node);
    ``values_kept``: a pod's required term, whose invalid values an existing pod keeps."""
    if not req.expect_map():
        return None
    key, operator, values = _key(req), _operator(req, NODE_OPERATORS), _values(req)
    if check_values:
        _check_label_values(req, values_kept)
    if not operator:
        return None
    _check_operator_values(req, operator, values)
    return NodeSelectorRequirement(key, operator, values)


def _field_requirement(req: Field, value_lists_kept: bool) -> Optional[NodeSelectorRequirement]:
    """ValidateNodeFieldSelectorRequirement: metadata.name only, In/NotIn with exactly one value,
    a node name (a DNS subdomain). The scheduler cannot parse any other: a preferred term's makes
    NodeAffinity's PreScore fail; a required term holding one never matches (labels.py).

    ``value_lists_kept``: several values are let through in a pod's required node affinity only,
    because the conformance corpus (recorded by a scheduler with no API server in front) holds
    such pods, and there SchedLab already matches the release (the term never matches)."""
    if not req.expect_map():
        return None
    key, operator, values = req.get_str("key"), _operator(req, ("In", "NotIn")), _values(req)
    counted_right = bool(values) if value_lists_kept else len(values) == 1
    if operator and not counted_right:
        req.error_at(
            "values",
            "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )
    if key != FIELD_NODE_NAME:
        req.error_at("key", f'invalid value "{key[:80]}": not a valid field selector key')
    else:
        for value, item in req.get_str_list("values"):
            check(item, value, is_dns1123_subdomain(value))
    return NodeSelectorRequirement(key, operator, values) if operator else None


def node_selector_term(term: Field, check_values: bool = True, value_lists_kept: bool = False) -> NodeSelectorTerm:
    """ValidateNodeSelectorTerm (``check_values``: see _node_requirement; ``value_lists_kept``: a
    pod's required term — see _field_requirement — whose invalid label values a pod that already
    exists keeps, as the v1.35 API server lets it: said as a notice, and the term never matches)."""
    if not term.expect_map():
        return NodeSelectorTerm()
    expressions = [_node_requirement(r, check_values, value_lists_kept) for r in term.get_list("matchExpressions")]
    fields = [_field_requirement(r, value_lists_kept) for r in term.get_list("matchFields")]
    return NodeSelectorTerm(tuple(e for e in expressions if e), tuple(f for f in fields if f))


def node_selector(field: Field, value_lists_kept: bool = False) -> Optional[NodeSelector]:
    """ValidateNodeSelector as objects are created (label values checked): a pod's required node
    affinity, a PersistentVolume's spec.nodeAffinity.required, DRA's node selectors."""
    if not field.expect_map():
        return None
    terms_field = field.get("nodeSelectorTerms")
    terms = terms_field.items() if terms_field is not None else []
    if not terms:
        field.error_at("nodeSelectorTerms", "Required value: must have at least one node selector term")
    return NodeSelector(tuple(node_selector_term(t, value_lists_kept=value_lists_kept) for t in terms))


def _weight(item: Field) -> int:
    """A preferred term's weight, 1-100; a missing one is 0 (the int32's zero value), refused alike."""
    weight_field = item.get("weight")
    weight = weight_field.as_int(1) if weight_field is not None else 0
    if not 1 <= weight <= 100:
        item.error_at("weight", f"invalid value {weight}: must be in the range 1-100")
        return 1
    return weight


def node_affinity(field: Field) -> Optional[NodeAffinity]:
    if not field.expect_map():
        return None
    required_field = field.get(REQUIRED)
    required = node_selector(required_field, value_lists_kept=True) if required_field is not None else None
    preferred = [
        PreferredSchedulingTerm(weight, node_selector_term(preference, check_values=False))
        for weight, preference in _weighted_terms(field, "preference")
    ]
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


def _label_keys(term: Field, name: str, has_selector: bool) -> tuple[str, ...]:
    """validateLabelKeys: label names, and only beside a labelSelector (they extend it)."""
    items = term.get_str_list(name)
    if items and not has_selector:
        term.error_at(name, "Forbidden: must not be specified when labelSelector is not set")
    elif has_selector:
        for key, item in items:
            check(item, key, is_qualified_name(key))
    return tuple(key for key, _ in items)


def _check_label_keys(term: Field, match: tuple[str, ...], mismatch: tuple[str, ...]) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys step 3: each matchLabelKeys[i] also in mismatchLabelKeys."""
    both = set(match) & set(mismatch)
    if not both:
        return  # nothing to report; the list is not read twice (a second read would repeat its type error)
    for key, item in zip(match, term.get_list("matchLabelKeys")):
        if key in both:
            item.error(f'invalid value "{key[:80]}": exists in both matchLabelKeys and mismatchLabelKeys')


def _check_keys_against_selector(term: Field, match: tuple[str, ...], selector: LabelSelector) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys step 2: a matchLabelKeys key the labelSelector
    already names in an expression after naming it once (in matchLabels or an earlier expression).

    The API server runs it after creation appended ``key In (value)`` for each key the pod carries;
    that merge is not replayed here, because a pod read from a dump holds its merged selector
    already and replaying it would refuse a stored pod. Only what the selector alone shows is
    refused: it is refused with or without the merge, so nothing accepted is refused."""
    last_index = {key: index for index, key in enumerate(match)}
    seen = {key for key, _ in selector.match_labels}
    items = term.get_list("matchLabelKeys") if last_index else []
    for requirement in selector.match_expressions:
        key = requirement.key
        if key in last_index and key in seen:
            items[last_index[key]].error(f'invalid value "{key[:80]}": exists in both matchLabelKeys and labelSelector')
        seen.add(key)


def _check_namespaces(term: Field) -> list[str]:
    """ValidateNamespaceName on each entry; the release reports them at the term's ``namespace``."""
    namespaces = []
    for namespace, item in term.get_str_list("namespaces"):
        for message in is_dns1123_label(namespace):
            item.ctx.error(f"{term.path}.namespace", item.line, f'invalid value "{namespace[:80]}": {message}')
        namespaces.append(namespace)
    return namespaces


def pod_affinity_term(term: Field) -> Optional[PodAffinityTerm]:
    if not term.expect_map():
        return None
    selector = label_selector(term.get("labelSelector"))
    topology_field = term.get("topologyKey")
    topology_key = topology_field.as_str() if topology_field is not None else ""
    if topology_field is None or not topology_key:
        term.error_at("topologyKey", "Required value: can not be empty")
    else:
        check(topology_field, topology_key, is_qualified_name(topology_key))
    namespaces = _check_namespaces(term)
    has_selector = selector is not None
    match = _label_keys(term, "matchLabelKeys", has_selector)
    mismatch = _label_keys(term, "mismatchLabelKeys", has_selector)
    _check_label_keys(term, match, mismatch)
    if selector is not None:
        _check_keys_against_selector(term, match, selector)
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
