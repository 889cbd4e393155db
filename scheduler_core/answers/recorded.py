"""The recorded answer beside the replay: what the real scheduler last said about each pending pod
(its ``PodScheduled`` condition) against what SchedLab's replay says, and whether they agree.

A pending pod in a dump carries ``status.conditions[type=PodScheduled]``: status False, reason
``Unschedulable`` with the FailedScheduling text (``0/N nodes are available: ...``) or
``SchedulingGated``. The replay agrees when it leaves the pod pending with exactly that text (a
gated pod: when the replay leaves it alone too). When they differ, the likely causes are named:
a preemption under way (the pod is nominated), a different node count (the text counts the
cluster's nodes when it tried), a host port held by a pod the dump lacks, the completeness
findings that concern the pod or every pod, and always that the cluster may have changed since
the condition was written.

The comparison reads the trace or timeline JSON (what the CLI prints and the web app stores), so
both build it the same way; it adds a top-level ``recorded`` object to that JSON only when some
pod carries such a condition.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from scheduler_core.answers.findings import (
    NO_CONFIG,
    NODE_TAINTS_MISSING,
    RELEASE_ASSUMED,
    RELEASE_FROM_KUBELETS,
    RELEASE_NEAREST,
    SERVICES_ABSENT,
    Finding,
    find_all,
)
from scheduler_core.util.wire import Wire
from scheduler_core.model import Pod, RecordedScheduling, Scenario

REASON_GATED = "SchedulingGated"
REASON_UNSCHEDULABLE = "Unschedulable"
# Findings that can change any pod's answer (the others name the pods they concern). A release that
# was assumed or guessed from the kubelets changes every FailedScheduling text that differs between
# releases (v1.33's TaintToleration reason, v1.34+'s "no new claims to deallocate," ...).
CLUSTER_WIDE = (
    NODE_TAINTS_MISSING,
    SERVICES_ABSENT,
    NO_CONFIG,
    RELEASE_ASSUMED,
    RELEASE_FROM_KUBELETS,
    RELEASE_NEAREST,
)
_NODE_COUNT = re.compile(r"^0/(\d+) nodes are available")
_PORTS_REASON = "didn't have free ports for the requested pod ports"


@dataclass(frozen=True, slots=True)
class Replayed:
    """What the replay did with one pod: the node it bound it to, or its last FailedScheduling text."""

    node: Optional[str] = None
    message: Optional[str] = None

    @property
    def text(self) -> str:
        return f"bound to {self.node}" if self.node else (self.message or "left pending")


@dataclass(frozen=True, slots=True)
class RecordedOutcome:
    pod: str
    reason: str
    message: str
    time: str  # lastTransitionTime as written ("" when absent)
    replayed: Optional[Replayed]  # None: the replay does not attempt the pod (gated)
    agrees: bool
    causes: tuple[str, ...] = ()  # when they differ: the likely causes, most specific first

    @property
    def replayed_text(self) -> str:
        return self.replayed.text if self.replayed is not None else "not attempted (scheduling gates)"

    def wire(self) -> RecordedOutcomeJSON:
        """Its wire form in the trace and timeline JSON (``recorded``, keyed by pod)."""
        node = self.replayed.node if self.replayed is not None else None
        return RecordedOutcomeJSON(
            self.reason, self.message, self.time or None, self.replayed_text, self.agrees, node or None, self.causes
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()


class RecordedOutcomeJSON(Wire, frozen=True):  # type: ignore[misc]
    """One pod under ``recorded`` in the trace and timeline JSON (``RecordedOutcome``'s wire form):
    ``replayedNode`` only when the replay bound the pod, ``causes`` only when they differ."""

    reason: str
    message: str
    time: Optional[str]  # lastTransitionTime as written, None when absent
    replayed: str  # the replay's FailedScheduling text, "bound to NODE", or "not attempted (scheduling gates)"
    agrees: bool
    replayed_node: Optional[str] = None
    causes: tuple[str, ...] = ()


@dataclass(slots=True)
class RecordedComparison:
    outcomes: list[RecordedOutcome] = field(default_factory=list)  # queue order
    without_condition: list[str] = field(default_factory=list)  # pending pods without a PodScheduled=False

    @property
    def agreeing(self) -> int:
        return sum(outcome.agrees for outcome in self.outcomes)

    @property
    def summary(self) -> str:
        line = (
            f"the replay agrees with your cluster on {self.agreeing} of {len(self.outcomes)} pending pod(s)"
            if self.outcomes
            else "no pending pod carries your cluster's PodScheduled condition"
        )
        if self.without_condition:
            line += f" ({len(self.without_condition)} more pending pod(s) carry no PodScheduled=False condition)"
        return line

    def to_json(self) -> dict[str, Any]:
        """The ``recorded`` object of the trace and timeline JSON: pod -> its comparison."""
        return {outcome.pod: outcome.to_json() for outcome in self.outcomes}

    def answers(self) -> RecordedAnswers:
        """The comparison as the web app serves it: every compared pod in queue order, with the counts."""
        pods = [
            RecordedPod(
                o.pod,
                o.reason,
                o.message,
                o.time or None,
                o.replayed_text,
                o.replayed.node if o.replayed else None,
                o.agrees,
                list(o.causes),
            )
            for o in self.outcomes
        ]
        return RecordedAnswers(len(pods), self.agreeing, len(self.without_condition), self.summary, pods)

    def lines(self) -> list[str]:
        """The readable account `trace` and `timeline` print after the run."""
        if not self.outcomes:
            return []
        out = ["", "== your cluster's last word (PodScheduled) beside the replay"]
        for outcome in self.outcomes:
            when = f", {outcome.time}" if outcome.time else ""
            out.append(f"  {outcome.pod}: {'agrees' if outcome.agrees else 'DIFFERS'}")
            out.append(f"    cluster ({outcome.reason}{when}): {outcome.message}")
            out.append(f"    replay: {outcome.replayed_text}")
            out.extend(f"    likely cause: {cause}" for cause in outcome.causes)
        out.append(self.summary)
        return out


class RecordedPod(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One pending pod: its PodScheduled condition as dumped (the real scheduler's last word) beside the replay."""

    pod: str
    reason: str  # Unschedulable, SchedulingGated
    message: str
    time: Optional[str]  # lastTransitionTime as written
    replayed: str  # the replay's FailedScheduling text, "bound to NODE", or "not attempted (scheduling gates)"
    replayed_node: Optional[str]  # where the replay bound it (None: left pending)
    agrees: bool
    causes: list[str]  # when they differ: the likely causes (the dump's findings first), most specific first


class RecordedAnswers(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """The recorded answers beside the replay, for every pending pod that carries one."""

    compared: int  # pending pods with a PodScheduled=False condition
    agree: int
    without_condition: int  # pending pods the dump gives no condition
    summary: str  # "the replay agrees with your cluster on 23 of 25 pending pod(s)"
    pods: list[RecordedPod]  # queue order


# ---------------------------------------------------------------------------- what the replay did


def replayed_from_trace(summary: dict[str, Any]) -> dict[str, Replayed]:
    """Each pod's outcome in a trace summary (one cycle per pod)."""
    return {
        cycle["pod"]: Replayed(cycle["nodeName"], cycle.get("failedSchedulingMessage") or cycle.get("error"))
        for cycle in summary["cycles"]
    }


def replayed_from_timeline(summary: dict[str, Any]) -> dict[str, Replayed]:
    """Each pod's outcome in a timeline summary: its final node, else its last attempt's text."""
    last: dict[str, dict[str, Any]] = {}
    for attempt in summary["attempts"]:
        last[attempt["pod"]] = attempt
    out = {}
    for pod, attempt in last.items():
        node = summary["final"].get(pod, attempt.get("nodeName"))
        out[pod] = Replayed(node, None if node else attempt.get("failedSchedulingMessage"))
    return out


# ---------------------------------------------------------------------------- the comparison


def compare_recorded(
    scenario: Scenario, replayed: dict[str, Replayed], findings: Optional[Iterable[Finding]] = None
) -> RecordedComparison:
    """Every pending pod of this scheduler that carries a PodScheduled=False condition, beside the
    replay's outcome for it. ``findings`` (the scenario's, for the likely causes) are computed only
    when None is given and some pod differs."""
    known = list(findings) if findings is not None else None
    comparison = RecordedComparison()
    for pod in _waiting(scenario):
        recorded = pod.recorded
        if recorded is None or recorded.status == "True":
            comparison.without_condition.append(pod.key)
            continue
        outcome = _outcome(pod, recorded, replayed.get(pod.key))
        if not outcome.agrees:
            known = find_all(scenario) if known is None else known
            outcome = dataclasses.replace(
                outcome, causes=_causes(pod, recorded, outcome.replayed, len(scenario.nodes), known)
            )
        comparison.outcomes.append(outcome)
    return comparison


def with_recorded(summary: dict[str, Any], comparison: RecordedComparison) -> dict[str, Any]:
    """The trace or timeline JSON with its ``recorded`` object, only when some pod has one (the
    JSON of a scenario without PodScheduled conditions stays exactly as the spec writes it)."""
    if comparison.outcomes:
        summary["recorded"] = comparison.to_json()
    return summary


def _waiting(scenario: Scenario) -> list[Pod]:
    """Pods without a node this scheduler would try or leaves gated, in queue order then the gated."""
    names = scenario.scheduler_names
    gated = [
        p
        for p in scenario.pods
        if not p.node_name and not p.is_finished and p.scheduler_name in names and p.scheduling_gates
    ]
    return [*scenario.pending_pods, *gated]


def _outcome(pod: Pod, recorded: RecordedScheduling, replayed: Optional[Replayed]) -> RecordedOutcome:
    """Agree or not; the causes of a difference are added by the caller."""
    if pod.scheduling_gates:
        replayed = None
        agrees = recorded.reason == REASON_GATED
    elif replayed is None:
        replayed = Replayed(message="not attempted by the replay")
        agrees = False
    else:
        agrees = replayed.node is None and replayed.message == recorded.message
    return RecordedOutcome(pod.key, recorded.reason, recorded.message, recorded.time_text, replayed, agrees)


def _causes(
    pod: Pod, recorded: RecordedScheduling, replayed: Optional[Replayed], node_count: int, findings: list[Finding]
) -> tuple[str, ...]:
    causes = []
    if pod.nominated_node_name:
        causes.append(
            f"your cluster nominated the pod to {pod.nominated_node_name} (a preemption under way): the "
            "condition was written by the attempt that preempted, before its victims were gone"
        )
    if recorded.reason == REASON_GATED and replayed is not None:
        causes.append("the pod's scheduling gates were removed after your cluster wrote the condition")
    counted = _NODE_COUNT.match(recorded.message)
    if counted and int(counted.group(1)) != node_count:
        causes.append(f"your cluster had {counted.group(1)} node(s) when it tried; the dump holds {node_count}")
    if _PORTS_REASON in recorded.message and (replayed is None or _PORTS_REASON not in (replayed.message or "")):
        causes.append(
            "a pod holding the host port(s) this pod asks for is not in the dump (NodePorts counts "
            "every pod bound to a node)"
        )
    concerned = f"Pod {pod.key}"
    for finding in findings:
        if concerned in finding.objects or finding.code in CLUSTER_WIDE:
            causes.append(f"{finding.code}: {finding.message}")
    causes.append(
        "the cluster may have changed since the condition was written (pods started, finished or "
        "were resized; nodes came and went)"
    )
    return tuple(causes)
