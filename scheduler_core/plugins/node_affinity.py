"""NodeAffinity (nodeaffinity): a pod's nodeSelector and node affinity, plus the profile's added one.

PreFilter skips a pod with nothing required; when every required term pins ``metadata.name``
it narrows the cycle to those nodes (a PreFilterResult), and rejects the pod outright when the
terms leave no name at all. Filter checks the nodeSelector and required terms. Score sums the
weights of the preferred terms a node matches, normalised to [0, 100].

Args (NodeAffinityArgs): ``addedAffinity`` — a required selector every pod must also match and
preferred terms added to every pod's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.batch import PASS, FilterVerdicts, default_normalize
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import LabelFact
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, NodeScore, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model.labels import FIELD_NODE_NAME, node_selector_matches, node_selector_term_matches, parse_int64
from scheduler_core.model import (
    Node,
    NodeAffinity as NodeAffinitySpec,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from scheduler_core.plugins.helper import (
    default_normalize_score,
    node_selector_mask,
    node_selector_term_mask,
    required_node_affinity_mask,
    required_node_affinity_match_or_error,
    required_node_affinity_matches,
)

REASON_POD = "node(s) didn't match Pod's node affinity/selector"
REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
REASON_CONFLICT = "pod affinity terms conflict"

_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPERATORS = ("In", "NotIn")


# ---------------------------------------------------------------------------- args


@dataclass(frozen=True)
class NodeAffinityArgs:
    added_affinity: Optional[NodeAffinitySpec] = None

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "NodeAffinityArgs":
        raw = raw or {}
        added = raw.get("addedAffinity")
        if added is None:
            return cls()
        problems: list[ArgsProblem] = []
        required = None
        raw_required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        if raw_required is not None:
            path = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            terms = raw_required.get("nodeSelectorTerms") or ()
            required = NodeSelector(
                tuple(_parse_term(t, f"{path}.nodeSelectorTerms[{i}]", problems) for i, t in enumerate(terms))
            )
        preferred = []
        path = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        for i, raw_term in enumerate(added.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
            term = _parse_term(raw_term.get("preference") or {}, f"{path}[{i}].preference", problems)
            preferred.append(PreferredSchedulingTerm(int(raw_term.get("weight", 0)), term))
        if problems:
            raise ArgsError(problems)
        return cls(NodeAffinitySpec(required, tuple(preferred)))


def _parse_term(raw: Mapping[str, Any], path: str, problems: list[ArgsProblem]) -> NodeSelectorTerm:
    expressions = tuple(
        _parse_requirement(r, f"{path}.matchExpressions[{i}]", False, problems)
        for i, r in enumerate(raw.get("matchExpressions") or ())
    )
    fields = tuple(
        _parse_requirement(r, f"{path}.matchFields[{i}]", True, problems)
        for i, r in enumerate(raw.get("matchFields") or ())
    )
    return NodeSelectorTerm(expressions, fields)


def _parse_requirement(
    raw: Mapping[str, Any], path: str, is_field: bool, problems: list[ArgsProblem]
) -> NodeSelectorRequirement:
    """nodeaffinity.NewNodeSelector's checks of one requirement."""
    key = str(raw.get("key", ""))
    operator = str(raw.get("operator", ""))
    values = tuple(str(v) for v in raw.get("values") or ())
    if is_field:
        if key != FIELD_NODE_NAME:
            problems.append(ArgsProblem(f"{path}.key", f'Invalid value: "{key}": not a valid field selector key'))
        if operator not in _FIELD_OPERATORS:
            problems.append(
                ArgsProblem(f"{path}.operator", f'Invalid value: "{operator}": not a valid selector operator')
            )
        elif len(values) != 1:
            problems.append(ArgsProblem(f"{path}.values", "Required value: must have one element"))
    elif operator not in _LABEL_OPERATORS:
        problems.append(ArgsProblem(f"{path}.operator", f'Unsupported value: "{operator}"'))
    elif operator in ("In", "NotIn") and not values:
        problems.append(
            ArgsProblem(f"{path}.values", "Required value: for 'in', 'notin' operators, values set can't be empty")
        )
    elif operator in ("Exists", "DoesNotExist") and values:
        problems.append(
            ArgsProblem(
                f"{path}.values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            )
        )
    elif operator in ("Gt", "Lt") and (len(values) != 1 or parse_int64(values[0]) is None):
        problems.append(
            ArgsProblem(
                f"{path}.values", "Invalid value: for 'Gt', 'Lt' operators, exactly one integer value is required"
            )
        )
    return NodeSelectorRequirement(key, operator, values)


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred: tuple[PreferredSchedulingTerm, ...]

    def clone(self) -> "_PreScoreState":
        return self


_PRE_SCORE = StateKey[_PreScoreState]("PreScore" + names.NODE_AFFINITY)


def _required_terms(pod: Pod) -> Optional[tuple[NodeSelectorTerm, ...]]:
    """The required node selector's terms, or None when the pod has no required node affinity."""
    affinity = pod.affinity
    if affinity is None or affinity.node_affinity is None or affinity.node_affinity.required is None:
        return None
    return affinity.node_affinity.required.terms


def _preferred_terms(pod: Pod) -> tuple[PreferredSchedulingTerm, ...]:
    affinity = pod.affinity
    if affinity is None or affinity.node_affinity is None:
        return ()
    return affinity.node_affinity.preferred


def preferred_score(terms: tuple[PreferredSchedulingTerm, ...], node: Node) -> int:
    """nodeaffinity.PreferredSchedulingTerms.Score: terms of weight 0 are dropped when parsed."""
    return sum(t.weight for t in terms if t.weight != 0 and node_selector_term_matches(t.preference, node))


def preferred_score_batch(
    terms: tuple[PreferredSchedulingTerm, ...], table: NodeTable[NodeInfo], positions: np.ndarray
) -> np.ndarray:
    """preferred_score over many nodes: one label-column mask per term."""
    total = np.zeros(len(positions), dtype=np.int64)
    for term in terms:
        if term.weight != 0:
            total += np.where(node_selector_term_mask(table, term.preference)[positions], term.weight, 0)
    return total


def _pinned_node_names(terms: tuple[NodeSelectorTerm, ...]) -> Optional[frozenset[str]]:
    """Node names the terms allow through ``metadata.name In``; None when some term allows any."""
    allowed: set[str] = set()
    for term in terms:
        term_names: Optional[set[str]] = None
        for req in term.match_fields:
            if req.key == FIELD_NODE_NAME and req.operator == "In":
                values = set(req.values)
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None  # terms are ORed: this one does not pin a name
        allowed |= term_names
    return frozenset(allowed)


# ---------------------------------------------------------------------------- plugin


class NodeAffinity:
    name: ClassVar[str] = names.NODE_AFFINITY

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        """The pod's node affinity and nodeSelector (addedAffinity is the profile's, not the pod's)."""
        return [
            (signers.NODE_AFFINITY, signers.node_affinity(pod)),
            (signers.NODE_SELECTOR, signers.node_selector(pod)),
        ]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (QueueingHints on): a node added or its labels updated (the queue adds
        taint updates, always queueing, as buildQueueingHintMap does for kubernetes#109437)."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.node_changed_hint,
            )
        ]

    def node_changed_hint(self, pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
        """isSchedulableAfterNodeChange: the node now matches the profile's added selector and the
        pod's required affinity, and did not before (an added node had not); a term that fails to
        parse (a kept invalid value) is an error, which queues."""
        if self._added_required is not None and not node_selector_matches(self._added_required, new):
            return QueueingHint.QUEUE_SKIP
        matched, errored = required_node_affinity_match_or_error(pod, new)
        if errored:
            return QueueingHint.QUEUE
        if not matched:
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        was_matched, errored = required_node_affinity_match_or_error(pod, old)
        return QueueingHint.QUEUE if errored or not was_matched else QueueingHint.QUEUE_SKIP

    def __init__(self, args: NodeAffinityArgs) -> None:
        added = args.added_affinity
        self._added_required: Optional[NodeSelector] = added.required if added else None
        self._added_preferred: tuple[PreferredSchedulingTerm, ...] = added.preferred if added else ()

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        terms = _required_terms(pod)
        if terms is None and self._added_required is None and not pod.node_selector:
            return None, SKIP
        if not terms:
            return None, None
        pinned = _pinned_node_names(terms)
        if pinned is None:
            return None, None
        if not pinned:
            return None, Status.unresolvable(REASON_CONFLICT)
        return PreFilterResult(pinned), None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        node = node_info.node
        if self._added_required is not None and not node_selector_matches(self._added_required, node):
            return Status.unresolvable(REASON_ENFORCED)
        if not required_node_affinity_matches(pod, node):
            return Status.unresolvable(REASON_POD)
        return None

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[LabelFact, ...]:
        """The requirements the node fails, with its own values, for the reason filter gave
        (explanations only): the profile's addedAffinity, else the pod's nodeSelector and each
        required term (terms are ORed: every term's failing requirements are listed)."""
        node = node_info.node
        if self._added_required is not None and not node_selector_matches(self._added_required, node):
            return _failed_terms(self._added_required.terms, node, "addedAffinity term", REASON_ENFORCED)
        facts = [
            LabelFact(REASON_POD, "nodeSelector", key, "In", (value,), node.labels.get(key))
            for key, value in pod.node_selector.items()
            if node.labels.get(key) != value
        ]
        terms = _required_terms(pod)
        if terms is not None and not any(node_selector_term_matches(term, node) for term in terms):
            facts.extend(_failed_terms(terms, node, "required term", REASON_POD))
        return tuple(facts)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> MaybeStatus:
        preferred = _preferred_terms(pod)
        if not preferred and not self._added_preferred:
            return SKIP
        state.write(_PRE_SCORE, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, MaybeStatus]:
        pre_score = state.read_optional(_PRE_SCORE)
        preferred = pre_score.preferred if pre_score is not None else _preferred_terms(pod)
        node = node_info.node
        return preferred_score(self._added_preferred, node) + preferred_score(preferred, node), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> MaybeStatus:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    # The fast path: each requirement becomes a lookup over its label column's value codes.

    def filter_batch(
        self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray
    ) -> Optional[FilterVerdicts]:
        choice = np.full(len(positions), PASS, dtype=np.int32)
        choice[~required_node_affinity_mask(pod, table)[positions]] = 1
        if self._added_required is not None:
            choice[~node_selector_mask(table, self._added_required)[positions]] = 0
        return FilterVerdicts([Status.unresolvable(REASON_ENFORCED), Status.unresolvable(REASON_POD)], choice)

    def score_batch(self, state: CycleState, pod: Pod, table: NodeTable[NodeInfo], positions: np.ndarray) -> np.ndarray:
        pre_score = state.read_optional(_PRE_SCORE)
        preferred = pre_score.preferred if pre_score is not None else _preferred_terms(pod)
        scores: np.ndarray = preferred_score_batch(self._added_preferred, table, positions) + preferred_score_batch(
            preferred, table, positions
        )
        return scores

    def normalize_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, MAX_NODE_SCORE, False)


def _failed_terms(terms: tuple[NodeSelectorTerm, ...], node: Node, source: str, reason: str) -> tuple[LabelFact, ...]:
    """Each term's requirements (expressions, then metadata.name fields) the node fails; an empty
    term, which matches nothing, says so."""
    facts = []
    for number, term in enumerate(terms, 1):
        if not term.match_expressions and not term.match_fields:
            facts.append(LabelFact(reason, f"{source} {number}", "(empty term)", "matches no node", (), None))
            continue
        for requirement in term.match_expressions:
            if not node_selector_term_matches(NodeSelectorTerm(match_expressions=(requirement,)), node):
                value = node.labels.get(requirement.key)
                facts.append(
                    LabelFact(
                        reason,
                        f"{source} {number}",
                        requirement.key,
                        requirement.operator,
                        tuple(requirement.values),
                        value,
                        _plainly_matches(requirement, value),
                    )
                )
        for requirement in term.match_fields:
            if not node_selector_term_matches(NodeSelectorTerm(match_fields=(requirement,)), node):
                facts.append(
                    LabelFact(
                        reason,
                        f"{source} {number}",
                        requirement.key,
                        requirement.operator,
                        tuple(requirement.values),
                        node.name,
                        _plainly_matches(requirement, node.name),
                    )
                )
    return tuple(facts)


def _plainly_matches(requirement: NodeSelectorRequirement, value: Optional[str]) -> bool:
    """Whether the requirement would match ``value`` read plainly; when it does and yet failed, the
    release finds it malformed (a matchFields entry needs exactly one value, values must be label
    values): it matches no node."""
    operator, values = requirement.operator, requirement.values
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    return False


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> NodeAffinity:
    return NodeAffinity(NodeAffinityArgs.parse(args))
