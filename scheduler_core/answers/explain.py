"""Explanations of one scheduling cycle, read from its events' JSON (the wire form of ``Event``).

Pure and read-only: every fact comes from what the engine emitted for the cycle — PreFilter's
statuses and result, each Filter plugin's verdicts, PodTopologySpread's per-constraint picture,
the weighted scores and the Total — and is only regrouped and put into words here. It answers:

- why nothing fits: PreFilter rejected the pod, or narrowed the nodes to ones that do not exist,
  or (PodTopologySpread) each hard constraint allows some domains but no node is allowed by all,
  or else the Filter reasons grouped as the FailedScheduling message counts them;
- why the chosen node won: its margin over the runner-up, plugin by plugin, in weighted points;
- for a pod with claims (DynamicResources), per request what each node has free of its class and
  who holds the rest (the plugin's node pictures), and which node comes closest.

It reads typed events (live, or read back from their wire form at ``explain_cycle``). The numbers behind Filter reasons (requests against free room, the taint, the port, the label, the
skew) are not in the events: ``scheduler_core.answers.filter_details`` replays the run for them, and
``explain_cycle`` puts them into the sentences when it is given them.

The web app serves these with a cycle (GET /api/runs/{id}/cycles/{n}/explain); the browser only
draws them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Mapping, Optional, Sequence, Union, cast

from scheduler_core.encoding.events import (
    CycleEnd,
    CycleStart,
    Event,
    ExtensionPoint,
    FilterPluginResult,
    FilterSummary,
    NormalizeResult,
    Payload,
    PreFilterPluginResult,
    PreFilterSummary,
    StoredFilterVerdicts,
    TotalResult,
    read_events,
)
from scheduler_core.util.wire import Wire
from scheduler_core.framework.diagnosis import pre_filter_absent_reason
from scheduler_core.framework.filter_facts import CycleDetails, FilterDetails, FilterFact, NodeDetail
from scheduler_core.framework.preemption.candidates import PreemptionRanking
from scheduler_core.model.names import DYNAMIC_RESOURCES, POD_TOPOLOGY_SPREAD

OUTCOME_SCHEDULED = "scheduled"
OUTCOME_UNSCHEDULABLE = "unschedulable"
OUTCOME_ERROR = "error"
OUTCOME_RUNNING = "running"

_QUIET_CODES = ("Success", "Skip")
MAX_NAMED = 5  # names a sentence lists before "and N more"; the typed fields keep them all
MAX_WITH_NUMBERS = 2  # nodes a reason's sentence gives numbers for; filterDetails has every node's


# ---------------------------------------------------------------------------- typed answers


class ReasonGroup(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """Nodes whose first failing Filter plugin gave ``reason`` (how FailedScheduling counts them).

    ``outside_pre_filter``: the nodes a PreFilterResult left out; the events count them but do not
    name them, so ``nodes`` is empty and ``count`` is their number.
    """

    reason: str
    count: int
    plugins: tuple[str, ...]
    nodes: tuple[str, ...]
    outside_pre_filter: bool = False


class PreFilterExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    rejected: bool  # PreFilter stopped the cycle: Filter did not run
    plugins: tuple[str, ...]  # the plugins that rejected (rejected) or narrowed the nodes
    reasons: tuple[str, ...]  # the merged status's reasons when rejected
    narrowed_to: Optional[tuple[str, ...]]  # the PreFilterResult's nodes; None: every node went to Filter
    missing_nodes: tuple[str, ...]  # narrowed-to names that are not nodes of the cluster
    sentence: str


class FilterExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    evaluated: int
    feasible: int
    groups: tuple[ReasonGroup, ...]  # most nodes first
    sentence: str


class AllowedDomain(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    value: str
    nodes: tuple[str, ...]


class ConstraintAllowance(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """What one hard constraint alone allows: its domains within maxSkew, and their nodes."""

    topology_key: str
    max_skew: int
    allowed: tuple[AllowedDomain, ...]
    sentence: str  # "zone allows zoneB (node3)"

    @property
    def allowed_nodes(self) -> set[str]:
        return {node for domain in self.allowed for node in domain.nodes}


class SpreadExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    constraints: tuple[ConstraintAllowance, ...]
    allowed_by_all: tuple[str, ...]  # Filter's candidate nodes every hard constraint allows
    sentence: str


class PluginMargin(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    plugin: str
    weight: int
    winner: int  # the winner's weighted score
    runner_up: int
    difference: int  # winner - runner_up


class WinnerExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    node: str
    total: int
    runner_up: Optional[str]  # None when a single node was scored
    runner_up_total: Optional[int]
    margin: int
    plugins: tuple[PluginMargin, ...]  # every score plugin, in Score order
    ties: tuple[str, ...]
    sentence: str


class ScoringExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """Whether kube-scheduler scored this cycle. With one feasible node it does not (schedulePod:
    "When only one node after predicate, just use it"): PreScore, Score and NormalizeScore never
    run. The spec's trace still lists scores for such a cycle, so the engine computes them; they
    decided nothing and are shown as skipped."""

    skipped: bool
    node: Optional[str]  # the one feasible node, when skipped
    sentence: str


def skipped_scoring_sentence(node: str) -> str:
    """Why a cycle's scores are shown as skipped (also said by compare)."""
    return (
        f"Skipped by kube-scheduler: only {node} passed Filter, and with one feasible node the release runs no "
        f'PreScore, Score or NormalizeScore ("When only one node after predicate, just use it"). The numbers '
        f"shown are SchedLab's, computed because the trace lists them; they decided nothing."
    )


class RequestShortfall(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One request of a claim across the nodes DynamicResources looked at: the most devices of its
    class any one node has free, and where."""

    claim: str
    request: str
    device_class: str
    wanted: str  # a count, or "all"
    most_free: int
    best_nodes: tuple[str, ...]  # the nodes with that many free


class ClaimsExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """DynamicResources' per-node verdicts put into words: ``per_node`` holds the plugin's sentences
    (one per request), ``sentence`` sums up the requests no node could serve."""

    per_node: dict[str, tuple[str, ...]]
    shortfalls: tuple[RequestShortfall, ...]
    sentence: str


class CycleExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    cycle: int
    pod: str
    outcome: str  # scheduled | unschedulable | error | running
    node: Optional[str]
    headline: str  # the one sentence that answers "why here?" or "why nowhere?"
    pre_filter: Optional[PreFilterExplanation]
    filter: Optional[FilterExplanation]
    spread: Optional[SpreadExplanation]
    winner: Optional[WinnerExplanation]
    # The facts behind each rejection (None: not asked for, or not available: see the note).
    filter_details: Optional[FilterDetails]
    filter_details_note: Optional[str]
    # DefaultPreemption's ranking of its candidates (from the replay), when it picked among some.
    preemption: Optional[PreemptionRanking]
    scoring: Optional[ScoringExplanation]  # None: the cycle reached no scoring
    claims: Optional[ClaimsExplanation]


# ---------------------------------------------------------------------------- reading the events


FilterResult = Union[FilterPluginResult, StoredFilterVerdicts]  # live, or read back


class _Cycle:
    """One cycle's events by extension point: plugin payloads in event order, and the summary (a
    later pass's event replaces an earlier one's: the nominated node alone, then every node)."""

    def __init__(self, events: Iterable[Event]) -> None:
        self.index = -1
        self.pod = ""
        self.start: Optional[CycleStart] = None
        self.end: Optional[CycleEnd] = None
        self.plugins: dict[ExtensionPoint, OrderedDict[str, Payload]] = {}
        self.summaries: dict[ExtensionPoint, Payload] = {}
        for event in events:
            self._add(event)

    def _add(self, event: Event) -> None:
        self.index = event.cycle
        self.pod = self.pod or event.pod
        point, plugin, payload = event.extension_point, event.plugin, event.payload
        if isinstance(payload, CycleStart):
            self.start = payload
        elif isinstance(payload, CycleEnd):
            self.end = payload
        elif plugin is None:
            self.summaries[point] = payload
        else:
            self.plugins.setdefault(point, OrderedDict())[plugin] = payload

    def pre_filter_results(self) -> OrderedDict[str, PreFilterPluginResult]:
        return cast(
            "OrderedDict[str, PreFilterPluginResult]", self.plugins.get(ExtensionPoint.PRE_FILTER, OrderedDict())
        )

    def filter_results(self) -> OrderedDict[str, FilterResult]:
        return cast("OrderedDict[str, FilterResult]", self.plugins.get(ExtensionPoint.FILTER, OrderedDict()))

    def weighted_scores(self) -> OrderedDict[str, NormalizeResult]:
        return cast(
            "OrderedDict[str, NormalizeResult]", self.plugins.get(ExtensionPoint.NORMALIZE_SCORE, OrderedDict())
        )

    def pre_filter(self) -> Optional[PreFilterSummary]:
        return cast(Optional[PreFilterSummary], self.summaries.get(ExtensionPoint.PRE_FILTER))

    def filter(self) -> Optional[FilterSummary]:
        return cast(Optional[FilterSummary], self.summaries.get(ExtensionPoint.FILTER))

    def total(self) -> Optional[TotalResult]:
        return cast(Optional[TotalResult], self.summaries.get(ExtensionPoint.TOTAL))


def explain_cycle(
    events_json: Iterable[dict[str, Any]], details: Optional[CycleDetails] = None, details_note: Optional[str] = None
) -> CycleExplanation:
    """The explanation of one stored cycle from its events' JSON (``Event.to_json()``), in stream order."""
    return explain_events(read_events(events_json), details, details_note)


def explain_events(
    events: Iterable[Event], details: Optional[CycleDetails] = None, details_note: Optional[str] = None
) -> CycleExplanation:
    """The explanation of one cycle from its events (live, or read back), in stream order.

    ``details``: the cycle's Filter facts (``filter_details.cycle_details``); with them each reason's
    sentence carries its numbers. ``details_note`` says why they are missing when they are.
    """
    cycle = _Cycle(events)
    if details is not None and details.cycle != cycle.index:
        raise ValueError(f"the details are of cycle {details.cycle}, the events of cycle {cycle.index}")
    pre_filter = _pre_filter(cycle)
    filtering = _filter(cycle, pre_filter, details)
    spread = _spread(cycle)
    winner = _winner(cycle)
    outcome, node = _outcome(cycle)
    claims = _claims(cycle)
    headline = _headline(cycle, outcome, pre_filter, filtering, spread, winner)
    if (
        outcome == OUTCOME_UNSCHEDULABLE
        and claims is not None
        and claims.shortfalls
        and filtering is not None
        and all(DYNAMIC_RESOURCES in g.plugins for g in filtering.groups)
    ):
        headline = f"{headline} {claims.sentence}"
    return CycleExplanation(
        cycle.index,
        cycle.pod,
        outcome,
        node,
        headline,
        pre_filter,
        filtering,
        spread,
        winner,
        details.facts if details else None,
        details_note,
        details.preemption if details else None,
        _scoring(cycle),
        claims,
    )


def _scoring(cycle: _Cycle) -> Optional[ScoringExplanation]:
    """Scoring covers the feasible nodes only, so one total means one feasible node: skipped."""
    total = cycle.total()
    if total is None or total.error:
        return None
    totals = total.totals_by_node()
    if len(totals) == 1:
        node = next(iter(totals))
        return ScoringExplanation(True, node, skipped_scoring_sentence(node))
    return ScoringExplanation(False, None, f"kube-scheduler scored the {len(totals)} feasible nodes.")


def _outcome(cycle: _Cycle) -> tuple[str, Optional[str]]:
    if cycle.end is None:
        return OUTCOME_RUNNING, None
    if cycle.end.error:
        return OUTCOME_ERROR, None
    if cycle.end.node_name:
        return OUTCOME_SCHEDULED, cycle.end.node_name
    return OUTCOME_UNSCHEDULABLE, None


def _headline(
    cycle: _Cycle,
    outcome: str,
    pre_filter: Optional[PreFilterExplanation],
    filtering: Optional[FilterExplanation],
    spread: Optional[SpreadExplanation],
    winner: Optional[WinnerExplanation],
) -> str:
    if cycle.end is None:  # OUTCOME_RUNNING
        return "This cycle has not finished yet."
    if outcome == OUTCOME_ERROR:
        return f"The cycle stopped on an error: {cycle.end.error}"
    if outcome == OUTCOME_SCHEDULED:
        return winner.sentence if winner else f"Bound to {cycle.end.node_name}."
    if pre_filter is not None and (
        pre_filter.rejected or pre_filter.missing_nodes and filtering and not filtering.evaluated
    ):
        return pre_filter.sentence
    if spread is not None and not spread.allowed_by_all:
        return spread.sentence
    if filtering is not None:
        return filtering.sentence
    return cycle.end.failed_scheduling_message or "No node fits."


# ---------------------------------------------------------------------------- PreFilter


def _pre_filter(cycle: _Cycle) -> Optional[PreFilterExplanation]:
    summary = cycle.pre_filter()
    if summary is None:
        return None
    status = summary.status
    if status is not None and status["code"] not in _QUIET_CODES:
        rejecting = tuple(
            plugin
            for plugin, payload in cycle.pre_filter_results().items()
            if payload.status and payload.status["code"] not in _QUIET_CODES
        )
        plugins = rejecting or tuple(summary.narrowing_plugins)
        reasons = tuple(status.get("reasons") or ())
        sentence = f"PreFilter rejected the pod ({', '.join(plugins)}): {', '.join(reasons)}; Filter did not run."
        return PreFilterExplanation(True, plugins, reasons, _names(summary.node_names), (), sentence)
    narrowed = _names(summary.node_names)
    if narrowed is None:
        return PreFilterExplanation(False, (), (), None, (), "PreFilter passed every node on to Filter.")
    plugins = tuple(summary.narrowing_plugins)
    missing = _missing_nodes(cycle, narrowed)
    sentence = f"PreFilter ({', '.join(plugins)}) narrowed the nodes to {_named(narrowed)}"
    if missing and len(missing) == len(narrowed):
        sentence += (
            ", which "
            + ("is not a node" if len(missing) == 1 else "are not nodes")
            + " of the cluster: Filter had no node to check."
        )
    elif missing:
        sentence += f"; not nodes of the cluster: {_named(missing)}."
    else:
        sentence += "."
    return PreFilterExplanation(False, plugins, (), narrowed, missing, sentence)


def _names(value: Optional[Sequence[str]]) -> Optional[tuple[str, ...]]:
    return None if value is None else tuple(value)


def _missing_nodes(cycle: _Cycle, narrowed: tuple[str, ...]) -> tuple[str, ...]:
    """Narrowed-to names Filter never saw, when Filter is known to have checked every candidate.

    Filter stops early only once it has found numFeasibleNodesToFind nodes; short of that, its
    evaluated list is every candidate, so a name missing from it is not a node of the snapshot.
    """
    summary = cycle.filter()
    if summary is None or len(summary.feasible_nodes) >= summary.num_feasible_nodes_to_find > 0:
        return ()
    evaluated = set(summary.evaluated)
    return tuple(name for name in narrowed if name not in evaluated)


# ---------------------------------------------------------------------------- Filter


def _first_failures(cycle: _Cycle) -> OrderedDict[str, tuple[str, Mapping[str, Any]]]:
    """node -> (plugin, status) of its first failing Filter plugin, in Filter order (the verdict)."""
    first: OrderedDict[str, tuple[str, Mapping[str, Any]]] = OrderedDict()
    for plugin, payload in cycle.filter_results().items():
        for node, status in payload.statuses.items():
            if node not in first:
                first[node] = (plugin, status)
    return first


def _filter(
    cycle: _Cycle, pre_filter: Optional[PreFilterExplanation], details: Optional[CycleDetails] = None
) -> Optional[FilterExplanation]:
    summary = cycle.filter()
    if summary is None:
        return None
    evaluated = summary.evaluated
    order = {node: i for i, node in enumerate(evaluated)}
    groups: dict[str, tuple[list[str], list[str]]] = {}  # reason -> (plugins, nodes)
    for node, (plugin, status) in sorted(_first_failures(cycle).items(), key=lambda item: order.get(item[0], 0)):
        for reason in status.get("reasons") or ():
            plugins, nodes = groups.setdefault(reason, ([], []))
            if plugin not in plugins:
                plugins.append(plugin)
            nodes.append(node)
    found = [
        ReasonGroup(reason, len(nodes), tuple(plugins), tuple(nodes)) for reason, (plugins, nodes) in groups.items()
    ]
    outside = _outside_pre_filter(cycle, pre_filter, summary)
    if outside is not None:
        found.append(outside)
    found.sort(key=lambda g: (-g.count, g.reason))
    feasible = len(summary.feasible_nodes)
    sentence = _filter_sentence(len(evaluated), feasible, found, details)
    if summary.nominated_only and feasible:
        sentence = _one_node_sentence(summary.feasible_nodes[0], summary.batch_hint)
    return FilterExplanation(len(evaluated), feasible, tuple(found), sentence)


def _one_node_sentence(node: str, batch_hint: bool) -> str:
    """A cycle that tried one node alone and took it (evaluateNominatedNode)."""
    if batch_hint:
        return (
            f"OpportunisticBatching: the previous pod had the same signature and its node can take no "
            f"more, so this pod was offered {node}, the next node of that cycle's ranking; {node} passed "
            f"every Filter plugin and was taken without filtering or scoring any other node."
        )
    return (
        f"Only its nominated node {node} was checked first; it passed every Filter plugin, so no other "
        f"node was looked at."
    )


def _outside_pre_filter(
    cycle: _Cycle, pre_filter: Optional[PreFilterExplanation], summary: FilterSummary
) -> Optional[ReasonGroup]:
    """The nodes a PreFilterResult kept from Filter, counted under one reason as FailedScheduling does.

    Counted only when Filter checked every candidate (then the candidates are the evaluated nodes).
    """
    if pre_filter is None or pre_filter.narrowed_to is None or cycle.start is None:
        return None
    if len(summary.feasible_nodes) >= summary.num_feasible_nodes_to_find > 0:
        return None
    count = cycle.start.node_count - len(summary.evaluated)
    if count <= 0:
        return None
    return ReasonGroup(pre_filter_absent_reason(pre_filter.plugins), count, pre_filter.plugins, (), True)


def _filter_sentence(
    evaluated: int, feasible: int, groups: Sequence[ReasonGroup], details: Optional[CycleDetails] = None
) -> str:
    if not evaluated and not groups:
        return "Filter had no node to check."
    parts = "; ".join(_group_text(g, details) for g in groups)
    if feasible:
        head = f"{feasible} of {evaluated} node(s) passed every Filter plugin"
        return f"{head}; rejected: {parts}." if parts else f"{head}."
    return f"No node passed every Filter plugin: {parts}."


def _group_text(group: ReasonGroup, details: Optional[CycleDetails] = None) -> str:
    if group.outside_pre_filter:
        return f"{group.count} {group.reason} (outside the PreFilter result)"
    if details is None:
        return f"{group.count} {group.reason} ({_named(group.nodes)})"
    shown = [_node_numbers(node, group, details.nodes.get(node)) for node in group.nodes[:MAX_WITH_NUMBERS]]
    more = len(group.nodes) - len(shown)
    return f"{group.count} {group.reason} ({'; '.join(shown)}{f'; and {more} more' if more else ''})"


def _node_numbers(node: str, group: ReasonGroup, detail: Optional[NodeDetail]) -> str:
    """``node: <the facts behind the group's reason>`` from the plugin that decided the node."""
    facts: tuple[FilterFact, ...] = ()
    if detail is not None:
        facts = next((p.facts_for(group.reason) for p in detail.plugins.values() if group.reason in p.reasons), ())
    return f"{node}: {', '.join(f.text for f in facts)}" if facts else node


# ---------------------------------------------------------------------------- DynamicResources


def _claims(cycle: _Cycle) -> Optional[ClaimsExplanation]:
    payload = cycle.filter_results().get(DYNAMIC_RESOURCES)
    pictures = payload.pictures_json() if payload is not None else {}
    if not pictures:
        return None
    per_node = {node: tuple(picture.get("sentences") or ()) for node, picture in pictures.items()}
    shortfalls = _shortfalls(pictures)
    sentence = _claims_sentence(shortfalls, _counters_short(pictures), _shares_short(pictures))
    return ClaimsExplanation(per_node, shortfalls, sentence)


def _counters_short(pictures: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The counters (DRAPartitionableDevices) the devices allocated have used up in part, node by
    node, in the picture's words (its sentences after the requests')."""
    found = []
    for node, picture in pictures.items():
        said = (picture.get("sentences") or ())[len(picture.get("requests") or ()) :]
        for counter, sentence in zip(picture.get("counters") or (), said):
            if counter["left"] != counter["total"]:
                found.append(f"{node}: {sentence}")
    return found


def _shares_short(pictures: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The capacities of shared devices (DRAConsumableCapacity) that shares have used in part, node
    by node, in the picture's words (its sentences after the requests' and the counters')."""
    found = []
    for node, picture in pictures.items():
        skipped = len(picture.get("requests") or ()) + len(picture.get("counters") or ())
        said = (picture.get("sentences") or ())[skipped:]
        for share, sentence in zip(picture.get("shares") or (), said):
            if share["left"] != share["total"]:
                found.append(f"{node}: {sentence}")
    return found


def _shortfalls(pictures: Mapping[str, Mapping[str, Any]]) -> tuple[RequestShortfall, ...]:
    """Requests that no node served (no node fit), with the most free any one node had."""
    if any(picture.get("status") is None for picture in pictures.values()):
        return ()
    best: OrderedDict[tuple[str, str], tuple[Mapping[str, Any], int, list[str]]] = OrderedDict()
    for node, picture in pictures.items():
        for request in picture.get("requests") or ():
            key = (request["claim"], request["request"])
            _, most, nodes = best.get(key, (request, -1, []))
            if request["free"] > most:
                best[key] = (request, request["free"], [node])
            else:
                if request["free"] == most:
                    nodes.append(node)
                best[key] = (request, most, nodes)
    return tuple(
        RequestShortfall(r["claim"], r["request"], r["deviceClass"], r["wanted"], most, tuple(nodes))
        for r, most, nodes in best.values()
    )


def _claims_sentence(
    shortfalls: Sequence[RequestShortfall], counters_short: Sequence[str] = (), shares_short: Sequence[str] = ()
) -> str:
    parts = []
    for s in shortfalls:
        if s.wanted.isdigit() and s.most_free >= int(s.wanted):
            continue  # this request alone fits somewhere: the claims together (or constraints) do not
        parts.append(
            f"request `{s.request}` of claim {s.claim} asks for {s.wanted} device(s) of class "
            f"`{s.device_class}`, and no node has more than {s.most_free} free ({_named(s.best_nodes)})"
        )
    if not parts and counters_short:
        return (
            "Each request alone finds free devices on some node, but the partitions draw on counters that "
            "allocated devices have used: " + "; ".join(counters_short) + "."
        )
    if not parts and shares_short:
        return (
            "Each request alone finds devices on some node, but a share of the devices that allow multiple "
            "allocations must fit what earlier shares left of their capacity: " + "; ".join(shares_short) + "."
        )
    if not parts:
        return "Each request alone finds devices on some node, but no node has devices for all of them together."
    return "; ".join(parts) + "."


# ---------------------------------------------------------------------------- PodTopologySpread


def _spread(cycle: _Cycle) -> Optional[SpreadExplanation]:
    payload = cycle.pre_filter_results().get(POD_TOPOLOGY_SPREAD)
    picture = payload.picture_json() if payload is not None else None
    if not picture or not picture.get("constraints"):
        return None
    constraints = picture["constraints"]
    domain_of = [{node: d["value"] for d in c["domains"] for node in d["nodes"]} for c in constraints]
    allowances = tuple(_allowance(c, i, domain_of) for i, c in enumerate(constraints))
    candidates = _candidates(cycle, domain_of)
    allowed = set.intersection(*(a.allowed_nodes for a in allowances)) if allowances else set()
    allowed_by_all = tuple(node for node in candidates if node in allowed)
    return SpreadExplanation(allowances, allowed_by_all, _spread_sentence(allowances, allowed_by_all))


def _candidates(cycle: _Cycle, domain_of: list[dict[str, str]]) -> list[str]:
    """Filter's candidates (the evaluated nodes), or every node of the picture before Filter ran."""
    summary = cycle.filter()
    if summary is not None:
        return list(summary.evaluated)
    seen: OrderedDict[str, None] = OrderedDict()
    for mapping in domain_of:
        for node in mapping:
            seen[node] = None
    return list(seen)


def _allowance(constraint: Mapping[str, Any], index: int, domain_of: list[dict[str, str]]) -> ConstraintAllowance:
    allowed = tuple(AllowedDomain(d["value"], tuple(d["nodes"])) for d in constraint["domains"] if d["allowed"])
    key, max_skew = constraint["topologyKey"], constraint["maxSkew"]
    if not allowed:
        sentence = f"{key} allows no domain (each would be above maxSkew {max_skew})"
    else:
        named = _named(
            [
                f"{d.value} ({_domain_nodes(d, index, domain_of)})" if _domain_nodes(d, index, domain_of) else d.value
                for d in allowed
            ]
        )
        sentence = f"{key} allows {named}"
    return ConstraintAllowance(key, max_skew, allowed, sentence)


def _domain_nodes(domain: AllowedDomain, index: int, domain_of: list[dict[str, str]]) -> str:
    """The parenthesis after a domain: its nodes, or — for a one-node domain named after its node
    (a per-node key such as hostname) — where that node sits under the other constraints' keys."""
    if list(domain.nodes) != [domain.value]:
        return _named(domain.nodes) if domain.nodes else "no node"
    node = domain.value
    elsewhere = [mapping[node] for i, mapping in enumerate(domain_of) if i != index and node in mapping]
    return ", ".join(elsewhere)


def _spread_sentence(allowances: Sequence[ConstraintAllowance], allowed_by_all: Sequence[str]) -> str:
    parts = "; ".join(a.sentence for a in allowances)
    if len(allowances) == 1:
        if allowed_by_all:
            return f"{parts}: {_named(allowed_by_all)} may take the pod."
        return f"{parts}: no node is allowed."
    together = "both" if len(allowances) == 2 else f"all {len(allowances)}"
    if allowed_by_all:
        verb = "is" if len(allowed_by_all) == 1 else "are"
        return f"{parts}: {_named(allowed_by_all)} {verb} allowed by {together}."
    return f"{parts}: no node is allowed by {together}."


# ---------------------------------------------------------------------------- the winner


def _winner(cycle: _Cycle) -> Optional[WinnerExplanation]:
    total = cycle.total()
    if total is None or total.error or not total.node_name:
        return None
    totals: Mapping[str, int] = total.totals_by_node()
    chosen = total.node_name
    ties = tuple(total.ties or ())
    runner_up = _runner_up(totals, chosen, ties)
    margins = tuple(
        _margin(plugin, payload.weight, payload.weighted_by_node(), chosen, runner_up)
        for plugin, payload in cycle.weighted_scores().items()
    )
    runner_total = totals[runner_up] if runner_up else None
    margin = totals[chosen] - runner_total if runner_total is not None else 0
    sentence = _winner_sentence(chosen, totals[chosen], runner_up, margin, margins, ties)
    return WinnerExplanation(chosen, totals[chosen], runner_up, runner_total, margin, margins, ties, sentence)


def _margin(
    plugin: str, weight: int, weighted: Mapping[str, int], chosen: str, runner_up: Optional[str]
) -> PluginMargin:
    other = weighted[runner_up] if runner_up else 0
    return PluginMargin(plugin, weight, weighted[chosen], other, weighted[chosen] - other)


def _runner_up(totals: Mapping[str, int], chosen: str, ties: Sequence[str]) -> Optional[str]:
    """The best other node: a tied one first (node order), else the highest total (node order on equals)."""
    for node in ties:
        if node != chosen:
            return node
    best: Optional[str] = None
    for node, value in totals.items():
        if node != chosen and (best is None or value > totals[best]):
            best = node
    return best


def _winner_sentence(
    chosen: str, total: int, runner_up: Optional[str], margin: int, margins: Sequence[PluginMargin], ties: Sequence[str]
) -> str:
    if runner_up is None:
        return (
            f"{chosen} was the only node that passed Filter, so it was chosen without scoring "
            f"(kube-scheduler runs no PreScore or Score for a single feasible node)."
        )
    if margin == 0:
        others = [n for n in ties if n != chosen]
        how = (
            "SchedLab takes the first of them in node order (kube-scheduler picks one at random)"
            if ties and ties[0] == chosen
            else "it was picked at random among them"
        )
        return f"{chosen} tied with {_named(others)} at {total}: {how}."
    reasons = sorted((m for m in margins if m.difference), key=lambda m: -abs(m.difference))
    detail = ", ".join(f"{m.plugin} {m.difference:+d}" for m in reasons)
    return f"{chosen} beat {runner_up} by {margin}: {detail}."


# ---------------------------------------------------------------------------- words


def _named(names: Sequence[str], limit: int = MAX_NAMED) -> str:
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"
