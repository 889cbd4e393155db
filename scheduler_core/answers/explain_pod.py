"""Why is this running pod here? (`python -m scheduler_core explain-pod SCENARIO NS/POD`)

The bound pod is taken off its node and its scheduling cycle runs once more against the rest of
the cluster as the scenario holds it (its node included, the other pending pods left pending and
their nominations kept): the same Cycle a single pass runs, started as a fresh scheduler starts it.
The answer says whether its node would still win and by how much (the total scores of the best
nodes, its node's rank, plugin by plugin against the winner or the runner-up), where else it fits
(every feasible node, from a Filter pass over all nodes), and, when its node would no longer take
it, which plugin keeps it off. The cluster may have changed since the pod was placed; the answer
says so every time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import msgspec
import numpy as np
from msgspec.structs import force_setattr

from scheduler_core.encoding.events import CycleEnd, Event, NormalizeResult, TotalResult
from scheduler_core.util.wire import Wire
from scheduler_core.answers.explain import explain_events
from scheduler_core.framework.runtime import filter_failure_status
from scheduler_core.model import Pod, Scenario
from scheduler_core.run.schedule_one import Cycle, Scheduler, fresh_copy

TOP_NODES = 10  # totals listed, best first
MAX_FEASIBLE_LISTED = 50

OUTCOME_STAYS = "stays"  # its node wins alone
OUTCOME_TIE = "tie"  # its node ties for the top total
OUTCOME_MOVES = "moves"  # another node would win
OUTCOME_UNSCHEDULABLE = "unschedulable"  # it would fit nowhere now
OUTCOME_ERROR = "error"

CHANGED_CAVEAT = (
    "The cluster may have changed since the pod was placed: this re-runs its cycle against the "
    "cluster as the scenario holds it now (the pod itself taken off its node), not the cluster it met."
)


class NotBound(ValueError):
    """The pod is not a running pod this scheduler could have placed (unknown, pending, finished,
    on a node the scenario lacks, or for another scheduler)."""


class NodeTotal(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    node: str
    total: int  # the weighted total of the pod's re-run cycle


class PluginGap(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One score plugin's weighted points on the pod's node against the other node compared."""

    plugin: str
    own: int  # weighted points on the pod's node
    other: int  # on the node compared (the winner, or the runner-up when its node wins)
    difference: int = 0  # derived: own - other, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "difference", self.own - self.other)


class PodPlacementExplanation(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """Why is this running pod here: its cycle re-run now, the pod taken off its node, against the
    rest of the cluster (its node included)."""

    pod: str
    node: str  # where the pod runs
    outcome: str  # stays | tie | moves | unschedulable | error
    chosen: Optional[str]  # where the cycle would bind it now
    own_node_fits: bool
    own_node_rejection: Optional[str]  # "Plugin: reason" when its node would no longer take it
    own_rank: Optional[int]  # 1 = best total (ties share a rank); None when its node was not scored
    own_total: Optional[int]
    compared_with: Optional[str]  # the winner (or, when its node wins, the runner-up)
    margin: Optional[int]  # own total minus compared_with's total
    top: list[NodeTotal]  # best first
    scored: int  # nodes the cycle scored
    feasible: list[str]  # the nodes it fits now: the first MAX_FEASIBLE_LISTED, document order
    feasible_count: int  # every node it fits
    plugins: list[PluginGap]
    failed_scheduling_message: Optional[str]  # when it fits nowhere
    placed_at: Optional[str]  # its PodScheduled=True lastTransitionTime, when dumped
    caveats: list[str]  # always first: the cluster may have changed since the pod was placed
    summary: str = ""

    def lines(self) -> list[str]:
        """The readable answer `explain-pod` prints."""
        out = [self.summary]
        if self.top:
            out.append(
                "top totals: " + ", ".join(f"{t.node}={t.total}" for t in self.top) + f" ({self.scored} node(s) scored)"
            )
        if self.plugins:
            out.append(
                f"{self.node} against {self.compared_with}, plugin by plugin (weighted): "
                + ", ".join(f"{p.plugin} {p.own}-{p.other}={p.difference:+d}" for p in self.plugins)
            )
        shown = ", ".join(self.feasible[:20]) + (", …" if self.feasible_count > 20 else "")
        out.append(f"fits on {self.feasible_count} node(s): {shown or '(none)'}")
        out.extend(f"note: {caveat}" for caveat in self.caveats)
        return out


def explain_pod(scenario: Scenario, pod_key: str) -> PodPlacementExplanation:
    pod = _bound_pod(scenario, pod_key)
    copied = fresh_copy(scenario)
    moved = next(p for p in copied.pods if p.key == pod_key)
    moved.node_name, moved.nominated_node_name = "", ""  # off its node: pending again, nominated nowhere
    scheduler = Scheduler(copied)
    index = next(i for i, queued in enumerate(scheduler.queue) if queued is moved)
    feasible, rejection = _feasibility(scheduler, moved, pod.node_name)
    events = list(Cycle(scheduler, index, moved).run())
    return _answer(pod, events, feasible, rejection)


def _bound_pod(scenario: Scenario, pod_key: str) -> Pod:
    pod = next((p for p in scenario.pods if p.key == pod_key), None)
    if pod is None:
        raise NotBound(f"no pod {pod_key} in the scenario")
    if not pod.node_name:
        raise NotBound(f"{pod_key} is pending, not running on a node (ask `whatif` what would let it in)")
    if pod.is_finished:
        raise NotBound(f"{pod_key} has finished (phase {pod.phase}): the scheduler no longer sees it")
    if pod.node_name not in {node.name for node in scenario.nodes}:
        raise NotBound(f"{pod_key} is bound to {pod.node_name}, a node the scenario does not hold")
    if pod.scheduler_name not in scenario.scheduler_names:
        raise NotBound(f"{pod_key} is for scheduler {pod.scheduler_name}, which no profile of the scenario is")
    static_on = next((ref.name for ref in pod.owner_references if ref.kind == "Node"), None)
    if static_on is not None:
        # A mirror pod: the kubelet runs a static pod from a file and writes this pod owned by its Node.
        raise NotBound(
            f"{pod_key} is a static pod: the kubelet of {static_on} runs it from a manifest on that node "
            "and the API server shows its mirror pod; the scheduler never placed it"
        )
    return pod


def _feasibility(scheduler: Scheduler, pod: Pod, own: str) -> tuple[list[str], Optional[str]]:
    """Every node the pod fits (all nodes filtered, nominated pods counted), and what keeps it off
    its own node when it does not fit there: the first failing plugin, as the scheduler reports it."""
    pre, passed = Cycle(scheduler, 0, pod).feasibility()
    table = scheduler.snapshot.table
    if pre.status is not None:
        return [], f"{pre.status.plugin or 'PreFilter'} (PreFilter): {', '.join(pre.status.reasons)}"
    feasible = table.names_at(passed.feasible)
    if own in feasible:
        return feasible, None
    position = table.positions([own])[0]
    where = np.flatnonzero(passed.evaluated == position)
    if not len(where):
        return feasible, "PreFilter: its node is outside the nodes PreFilter left (PreFilterResult)"
    for plugin, verdict in passed.verdicts:
        choice = int(verdict.choice[where[0]])
        if choice >= 0:
            status = filter_failure_status(plugin, verdict.palette[choice])
            return feasible, f"{plugin}: {', '.join(status.reasons)}"
    return feasible, "a nominated pod's reservation leaves no room"


@dataclass(frozen=True, slots=True)
class _CycleResult:
    """What the re-run cycle's events say: its end, the totals (best first) and the tied nodes."""

    end: CycleEnd
    ranked: list[tuple[str, int]]
    ties: list[str]

    @classmethod
    def read(cls, events: list[Event]) -> "_CycleResult":
        total = next((e.payload for e in events if isinstance(e.payload, TotalResult)), None)
        end = next(e.payload for e in events if isinstance(e.payload, CycleEnd))
        totals = total.totals_by_node() if total and not total.error else {}
        return cls(end, sorted(totals.items(), key=lambda kv: -kv[1]), list(total.ties or []) if total else [])

    def total_of(self, node: Optional[str]) -> Optional[int]:
        return next((value for name, value in self.ranked if name == node), None)


def _answer(pod: Pod, events: list[Event], feasible: list[str], rejection: Optional[str]) -> PodPlacementExplanation:
    result = _CycleResult.read(events)
    own, chosen = pod.node_name, result.end.node_name
    own_total = result.total_of(own)
    own_rank = 1 + sum(1 for _, value in result.ranked if value > own_total) if own_total is not None else None
    compared = _compared_with(own, chosen, result.ranked) if own_total is not None else None
    compared_total = result.total_of(compared)
    margin = own_total - compared_total if own_total is not None and compared_total is not None else None
    answer = PodPlacementExplanation(
        pod.key,
        own,
        _outcome(own, chosen, result.ties, result.end),
        chosen,
        own in feasible,
        rejection,
        own_rank,
        own_total,
        compared,
        margin,
        [NodeTotal(n, v) for n, v in result.ranked[:TOP_NODES]],
        len(result.ranked),
        feasible[:MAX_FEASIBLE_LISTED],
        len(feasible),
        _gaps(events, own, compared) if compared is not None else [],
        result.end.failed_scheduling_message or result.end.error,
        _placed_at(pod),
        _caveats(pod, own in feasible and own_total is None, len(result.ranked), len(result.ties) > 1),
    )
    return _with_summary(answer, explain_events(events).headline)


def _placed_at(pod: Pod) -> Optional[str]:
    recorded = pod.recorded
    return recorded.time_text or None if recorded is not None and recorded.status == "True" else None


def _outcome(own: str, chosen: Optional[str], ties: list[str], end: CycleEnd) -> str:
    if chosen is None:
        return OUTCOME_ERROR if end.error else OUTCOME_UNSCHEDULABLE
    if own in ties and len(ties) > 1:
        return OUTCOME_TIE
    return OUTCOME_STAYS if chosen == own else OUTCOME_MOVES


def _compared_with(own: str, chosen: Optional[str], ranked: list[tuple[str, int]]) -> Optional[str]:
    """The winner when another node wins; the best other node when the pod's own node does."""
    if chosen is not None and chosen != own:
        return chosen
    return next((node for node, _ in ranked if node != own), None)


def _gaps(events: list[Event], own: str, other: str) -> list[PluginGap]:
    gaps = []
    for event in events:
        if isinstance(event.payload, NormalizeResult):
            weighted = event.payload.weighted_by_node()
            gaps.append(PluginGap(event.plugin or "", weighted[own], weighted[other]))
    return gaps


def _caveats(pod: Pod, feasible_not_scored: bool, scored: int, tied: bool) -> list[str]:
    caveats = [CHANGED_CAVEAT]
    if pod.recorded is not None and pod.recorded.status == "True" and pod.recorded.time_text:
        caveats.append(f"It was placed at {pod.recorded.time_text} (its PodScheduled condition).")
    if any(ref.kind == "Node" and ref.controller for ref in pod.owner_references):
        caveats.append(
            "It is a static (mirror) pod: the kubelet runs it where its manifest is; the scheduler never placed it."
        )
    if feasible_not_scored:
        caveats.append(
            f"Its node fits but was not among the {scored} node(s) this cycle scored "
            "(percentageOfNodesToScore stops Filter once enough nodes fit)."
        )
    if tied:
        caveats.append("SchedLab takes the first tied node in node order; kube-scheduler picks one of them at random.")
    return caveats


def _with_summary(answer: PodPlacementExplanation, headline: str) -> PodPlacementExplanation:
    pod, own = answer.pod, answer.node
    if answer.outcome == OUTCOME_UNSCHEDULABLE:
        text = f"{pod} would fit on no node now ({answer.own_node_rejection or 'see the message'}): {answer.failed_scheduling_message}"
    elif answer.outcome == OUTCOME_ERROR:
        text = f"{pod}'s cycle stops on an error now: {answer.failed_scheduling_message}"
    elif not answer.own_node_fits:
        text = f"{pod} would no longer fit on {own} ({answer.own_node_rejection}); it would go to {answer.chosen}."
    elif answer.outcome == OUTCOME_STAYS:
        lead = (
            f" by {answer.margin} over {answer.compared_with}" if answer.compared_with else " (the only node that fits)"
        )
        text = f"{own} would still win for {pod}{lead}. {headline}"
    elif answer.outcome == OUTCOME_TIE:
        text = f"{own} would tie for the top total ({answer.own_total}) for {pod}. {headline}"
    elif answer.own_rank is None:
        text = f"{pod} would go to {answer.chosen}; {own} fits but was not scored in this cycle."
    else:
        behind = -(answer.margin or 0)
        text = (
            f"{pod} would go to {answer.chosen} now: {own} ranks {answer.own_rank} of {answer.scored}, "
            f"{behind} point(s) behind."
        )
    return msgspec.structs.replace(answer, summary=text)
