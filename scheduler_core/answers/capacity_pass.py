"""How many more copies of a pod fit, in one pass (issue 42): cluster-capacity's answer — the
scheduler places copies one at a time until the first one fails — found in one run.

The pass starts where the scenario's own run ends (``capacity.run_to_rest``) and goes on with that
loop's scheduler: its snapshot (each placed copy stays assumed there, as the binding cycle leaves it
for the next pod), its rotating start index, its OpportunisticBatching state, its clock moved on by
the gap a step would leave. Copy k meets what copy k of a trial's step meets, so the count is the
trial search's (``capacity.how_many_fit``) without log(N) runs of N copies each. When the copies
cannot change each other's verdicts but through a node's room, they are counted instead of placed
(capacity_count.py): the same count, per node, in one Filter pass.

The pass is the default only where it gives the trial search's answer; otherwise the trials answer
and ``FitAnswer`` says nothing new (``pass_refusal`` names why): pods still pending after the
scenario's run (a copy's binding can move them back to the queue and they take room), copies that
could preempt lower-priority pods (a trial lets them, the pass does not), claims and volumes that
bind (the pass does not run their controllers).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from scheduler_core.answers.capacity import (
    LISTED,
    CapacityAnswer,
    FitAnswer,
    PodCopies,
    Progress,
    TrialBase,
    TrialChanges,
    TrialOutcome,
    TrialStep,
    how_many_fit,
    pod_copies,
    run_to_rest,
)
from scheduler_core.answers.capacity_json import PassAnswerJSON, TrialJSON
from scheduler_core.answers.capacity_count import Counted, CountRefused
from scheduler_core.answers.capacity_domains import SpreadCounted, count_spreading
from scheduler_core.cluster.controllers.pods import admit_priority
from scheduler_core.encoding.events import CycleEnd
from scheduler_core.answers.explain import CycleExplanation, explain_events
from scheduler_core.run.kube_scheduler import KubeScheduler
from scheduler_core.model import CreateOp, Pod
from scheduler_core.run.outcomes import Bound, CycleEnding, FitError
from scheduler_core.scenario import manifests
from scheduler_core.scenario.pods import refused_at_load, settle_gated_fields
from scheduler_core.run.schedule_one import Cycle
from scheduler_core.run.steps.driver import STEP_GAP_MS

METHOD_AUTO = "auto"  # counted where copies are independent, else placed, else trials
METHOD_PLACE = "place"  # placed one by one even where counting applies (and where pods stay pending)
METHOD_TRIALS = "trials"  # the trial search (capacity.how_many_fit), as before issue 42
METHODS = (METHOD_AUTO, METHOD_PLACE, METHOD_TRIALS)
COUNTED = "counted"
PLACED = "placed"
PROGRESS_EVERY = 1000  # copies placed between two progress reports
DECIDING_TEXT_MOST = 2000  # the deciding trial's Changes text is written up to this many copies
# spec.volumes sources that bind nothing and that no Filter plugin reads across pods.
INLINE_VOLUMES = frozenset({"emptyDir", "configMap", "secret", "downwardAPI", "projected", "hostPath"})

CopyProgress = Callable[[int, float], None]  # (copies placed or counted, CPU seconds so far)


@dataclass
class PassAnswer:
    """How many more copies fit, by one pass: ``method`` is "placed" or "counted"; ``why`` says
    why that method answered. Its JSON has FitAnswer's keys where they mean the same."""

    target: str
    method: str
    why: str
    fits: int
    placements: dict[str, int]  # where the copies are (placed) or each node's room (counted)
    stopped_by: Optional[str]  # the copy that did not fit (None: stopped at --max)
    message: str  # its FailedScheduling message
    copies: PodCopies = field(repr=False)
    base: TrialBase = field(repr=False)
    max_count: Optional[int] = None
    explanation: Optional[CycleExplanation] = None  # the failed copy's cycle (placed answers)
    counted_total: Optional[int] = None  # what counting found when --max stopped the placing
    spread: Optional[SpreadCounted] = None  # counted per domain: each domain's copies (then placements
    # holds only the nodes whose count is certain, and message is exact only when spread.message_exact)
    seconds: float = field(default=0.0, repr=False, compare=False)  # CPU seconds of the pass after the
    # scenario's own run (placing or counting the copies, the failed copy's explanation); not in the JSON
    attempts_before: int = field(default=0, repr=False, compare=False)  # the scenario's own run's attempts

    @property
    def deciding_cycle(self) -> Optional[int]:
        """The cycle (0-based, as a run numbers them) in which the deciding trial's run tries the copy
        that did not fit: after the scenario's own run's attempts, each copy before it is placed at its
        first attempt (none stays pending, none is preempted). None when stopped at --max."""
        return self.attempts_before + self.fits if self.checked_next else None

    @property
    def copies_per_second(self) -> Optional[float]:
        """Copies placed (or counted) per CPU second of the pass; None when it took no measurable time."""
        return self.fits / self.seconds if self.seconds > 0 else None

    @property
    def checked_next(self) -> bool:
        return self.stopped_by is not None

    def deciding_changes(self) -> TrialChanges:
        """The trial that shows the answer as a run: fits + 1 copies, the last one stays pending."""
        count = self.fits + 1
        return TrialChanges(
            (
                TrialStep(
                    f"{count} copies of pod {self.copies.namespace}/{self.copies.name}",
                    tuple(CreateOp(self.copies.ref(k), self.copies.manifest(k)) for k in range(1, count + 1)),
                ),
            )
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> PassAnswerJSON:
        deciding = None
        if self.fits < DECIDING_TEXT_MOST:
            changes = self.deciding_changes()
            deciding = TrialJSON(f"{self.fits + 1} more", changes.to_yaml(), self.base.trial_text(changes), [])
        return PassAnswerJSON(
            self.target,
            self.method,
            self.why,
            self.fits,
            self.checked_next,
            self.max_count,
            self.placements,
            [self.stopped_by] if self.stopped_by else [],
            self.message,
            self.explanation,
            [],
            1,
            self.counted_total,
            deciding,
            self.spread.wire() if self.spread is not None else None,
            self.spread is None or self.spread.message_exact,
        )

    def lines(self) -> list[str]:
        how = (
            "placed one by one"
            if self.method == PLACED
            else ("counted per node" if self.spread is None else f"counted per {self.spread.topology_key} domain")
        )
        out = [f"{self.target}: {self.fits} more fit ({how}: {self.why})"]
        if self.placements:
            shown = list(self.placements.items())[:LISTED]
            more = len(self.placements) - len(shown)
            out.append(
                f"  per node ({len(self.placements)} node(s)): "
                + ", ".join(f"{node} {count}" for node, count in shown)
                + (f", … {more} more" if more > 0 else "")
            )
        if self.spread is not None:
            out += _domain_lines(self.spread)
        if self.stopped_by is not None:
            said = (
                ""
                if self.spread is None or self.spread.message_exact
                else " (per domain; --method place gives the FailedScheduling message)"
            )
            out.append(f"  copy {self.fits + 1} does not fit ({self.stopped_by}){said}: {self.message}")
            if self.explanation is not None:
                out.append(f"  why: {self.explanation.headline}")
        else:
            counted = f"; counting says {self.counted_total} fit" if self.counted_total is not None else ""
            out.append(f"  stopped at --max {self.max_count}: at least this many fit{counted}")
        return out


def _domain_lines(spread: SpreadCounted) -> list[str]:
    shown = spread.domains[:LISTED]
    out = [
        f"  per domain ({len(spread.domains)}): "
        + ", ".join(f"{d.domain} +{d.added}{' (full)' if d.full else ''}" for d in shown)
        + (f", … {len(spread.domains) - len(shown)} more" if len(spread.domains) > len(shown) else "")
    ]
    if not spread.nodes_exact:
        out.append(
            "  per node: only the nodes whose count is certain (full domains); where in a domain stopped "
            "by the skew the copies go is the scores' choice"
        )
    return out


@dataclass(frozen=True)
class NeedsTrials:
    """The pass cannot give the trial search's answer: ``why`` (``pass_refusal``'s sentence) says
    what only a trial run shows; the caller runs the trial search (``how_many_fit`` or its rounds)."""

    why: str


def copies_by_trials(answer: FitAnswer, why: str) -> PassAnswerJSON:
    """A pod-copies question the trial search answered (after NeedsTrials: ``why`` is its reason) in
    the pass's wire form, as the web app serves every pod-copies answer: method "trials", FitAnswer's
    values under the keys they share, nothing counted (the CLI prints the FitAnswer itself)."""
    return PassAnswerJSON(
        answer.target,
        METHOD_TRIALS,
        why,
        answer.fits,
        answer.checked_next,
        answer.bound,
        answer.placements,
        answer.stopped_by,
        answer.message,
        answer.explanation,
        answer.displaced,
        answer.trials,
        None,
        answer.deciding.wire() if answer.deciding is not None else None,
        None,
        True,
    )


def one_pass(
    base: TrialBase, pod: str, max_count: Optional[int] = None, progress: Optional[CopyProgress] = None
) -> Union[PassAnswer, NeedsTrials]:
    """How many more copies of ``pod`` fit, as ``--method auto`` answers it without trials: the
    pass's answer (counted or placed), or NeedsTrials when only the trial search gives the answer.
    ``progress(copies, cpu_seconds)`` is told every PROGRESS_EVERY copies placed (and once with the
    total when counted). CapacityError when the scenario has no such pod. For callers that run the
    trials elsewhere (the web app's workers); the CLI's ``how_many_copies`` answers the same way."""
    return _one_pass(base, pod_copies(base.scenario, pod), max_count, METHOD_AUTO, progress)


def _one_pass(
    base: TrialBase, copies: PodCopies, max_count: Optional[int], method: str, copy_progress: Optional[CopyProgress]
) -> Union[PassAnswer, NeedsTrials]:
    loop, outcome = run_to_rest(base, TrialChanges())
    placer = CopyPlacer(base, loop, copies)
    refusal = pass_refusal(outcome, loop, placer.copy(1))
    if refusal is not None and method == METHOD_AUTO:
        return NeedsTrials(refusal)
    why = "as asked (--method place)" if method == METHOD_PLACE else ""
    if refusal is not None:
        why += f"; the trial search could differ: {refusal}"
    return _answer(placer, max_count, method, why, copy_progress)


def how_many_copies(
    base: TrialBase,
    pod: str,
    max_count: Optional[int] = None,
    method: str = METHOD_AUTO,
    progress: Optional[Progress] = None,
    copy_progress: Optional[CopyProgress] = None,
) -> Union[PassAnswer, CapacityAnswer]:
    """How many more copies of ``pod`` fit: counted or placed in one pass where that is the trial
    search's answer (``method`` auto), else the trial search; ``method`` place forces the pass."""
    copies = pod_copies(base.scenario, pod)
    if method == METHOD_TRIALS:
        return how_many_fit(base, pod=pod, max_count=max_count, progress=progress)
    if progress is not None:
        progress(1, "the scenario's own run")
    answered = _one_pass(base, copies, max_count, method, copy_progress)
    if isinstance(answered, NeedsTrials):
        return how_many_fit(base, pod=pod, max_count=max_count, progress=progress)
    return answered


def _answer(
    placer: "CopyPlacer", max_count: Optional[int], method: str, why: str, copy_progress: Optional[CopyProgress]
) -> PassAnswer:
    counted: Union[Counted, SpreadCounted, CountRefused, None] = None
    if method == METHOD_AUTO:
        counted = count_spreading(placer.loop.scheduler, placer.copy(1), placer.loop.attempts + 1)
        if not isinstance(counted, CountRefused) and (max_count is None or counted.total <= max_count):
            if copy_progress is not None:
                copy_progress(counted.total, time.process_time() - placer.started)
            return _counted_answer(placer, counted, max_count)
        why = (
            "counting: more than --max fit, so the first --max are placed"
            if not isinstance(counted, CountRefused)
            else f"not counted: {counted.reason}"
        )
    answer = placer.place_until_failure(max_count, why.strip("; "), copy_progress)
    if counted is not None and not isinstance(counted, CountRefused):
        answer.counted_total = counted.total
    return answer


def _counted_answer(
    placer: "CopyPlacer", counted: Union[Counted, SpreadCounted], max_count: Optional[int]
) -> PassAnswer:
    if isinstance(counted, Counted):
        return placer.answer(
            COUNTED,
            "the copies are independent (resources, pod slots, ports, node constraints)",
            counted.total,
            counted.per_node,
            counted.message,
            max_count,
        )
    why = (
        f"one DoNotSchedule constraint over {counted.topology_key} counts the copies: each domain's total is "
        "decided by its room and maxSkew whatever node each copy takes"
    )
    if not counted.nodes_exact:
        why += "; per node only where certain (which nodes of a domain stopped by the skew take them is the scores' choice)"
    answer = placer.answer(COUNTED, why, counted.total, counted.per_node, counted.message, max_count)
    answer.spread = counted
    return answer


def pass_refusal(outcome: TrialOutcome, loop: KubeScheduler, copy: Pod) -> Optional[str]:
    """Why the pass might not give the trial search's answer (None: it gives it)."""
    pending = sorted(pod for pod, node in outcome.final.items() if node is None)
    if pending:
        return (
            f"{len(pending)} pod(s) stay pending after the scenario's run ({pending[0]}…): a copy's binding can "
            "send them back to the queue and they take room, which only a trial run shows"
        )
    if copy.resource_claims or copy.claim_sources:
        return "the pod has resource claims: their controller runs only in a trial"
    if any(volume.kind not in INLINE_VOLUMES for volume in copy.volumes):
        return "the pod has volumes that bind (claims, ephemeral or in-tree disks): only a trial runs their controllers"
    lower = _lower_priority_pod(loop, copy)
    if lower is not None:
        return f"the copies could preempt lower-priority pods ({lower}): a trial lets them, the pass does not"
    return None


def _lower_priority_pod(loop: KubeScheduler, copy: Pod) -> Optional[str]:
    if copy.preemption_policy == "Never":
        return None
    return next(
        (info.pod.key for node in loop.snapshot.node_infos for info in node.pods if info.pod.priority < copy.priority),
        None,
    )


class CopyPlacer:
    """The scheduler where the scenario's run left it, placing copies of one pod one at a time.
    Each copy gets a cycle of its own (PreFilter included, as the real scheduler gives each pod);
    what carries over is the scheduler: snapshot, start index, batching state, clock."""

    def __init__(self, base: TrialBase, loop: KubeScheduler, copies: PodCopies) -> None:
        self.base = base
        self.loop = loop
        self.copies = copies
        self.placed: Counter[str] = Counter()
        self.started = time.process_time()
        # A trial's step starts STEP_GAP_MS after the run went quiet: a batch kept from the
        # scenario's last cycle is as stale for the first copy here as there.
        loop.clock.advance_to(loop.clock.ms + STEP_GAP_MS)

    def copy(self, k: int) -> Pod:
        """Copy k as the step's create makes it (decoded, the release's drops made, the Priority
        admission applied)."""
        manifest = self.copies.manifest(k)
        pod = manifests.decode_pod(manifest, len(self.base.scenario.pods) + k, None)
        settle_gated_fields(pod, self.base.scenario.rules.gates, refused_at_load)  # a copy of a pod that loaded
        admit_priority(
            pod,
            manifests.pod_has_priority(manifest),
            "preemptionPolicy" in (manifest.get("spec") or {}),
            self.base.scenario.priority_classes,
        )
        return pod

    def place_until_failure(self, max_count: Optional[int], why: str, progress: Optional[CopyProgress]) -> PassAnswer:
        count = 0
        while max_count is None or count < max_count:
            pod = self.copy(count + 1)
            ending = self._cycle(pod, count + 1)
            if not isinstance(ending, Bound):
                message, explanation = self._explain(pod, count + 1, ending)
                return self.answer(
                    PLACED, why, count, dict(sorted(self.placed.items())), message, max_count, pod.key, explanation
                )
            count += 1
            self.placed[ending.node_name] += 1
            if progress is not None and count % PROGRESS_EVERY == 0:
                progress(count, time.process_time() - self.started)
        return self.answer(PLACED, why, count, dict(sorted(self.placed.items())), "", max_count)

    def _cycle(self, pod: Pod, k: int) -> CycleEnding:
        """Copy k's cycle, unrecorded: consecutive cycle counts, as a step's copies popped in a row."""
        index = self.loop.attempts + k
        cycle = Cycle(self.loop.scheduler, index, pod, queue_view=[pod.key], cycle_count=index)
        for _ in cycle.steps():
            pass
        assert cycle.outcome is not None
        return cycle.outcome

    def _explain(self, pod: Pod, k: int, ending: CycleEnding) -> tuple[str, Optional[CycleExplanation]]:
        """The failed copy's message, and its cycle run again recorded (nothing was placed: the
        snapshot is as the failed cycle saw it) for the explanation."""
        message = ending.message if isinstance(ending, FitError) else getattr(ending, "message", str(ending))
        index = self.loop.attempts + k
        events = list(Cycle(self.loop.scheduler, index, pod, queue_view=[pod.key], cycle_count=index).run())
        ended = next((e.payload for e in events if isinstance(e.payload, CycleEnd)), None)
        if ended is None or ended.node_name is not None:
            return message, None
        return message, explain_events(events)

    def answer(
        self,
        method: str,
        why: str,
        fits: int,
        placements: dict[str, int],
        message: str,
        max_count: Optional[int],
        stopped_by: Optional[str] = None,
        explanation: Optional[CycleExplanation] = None,
    ) -> PassAnswer:
        if method == COUNTED:
            stopped_by = self.copies.ref(fits + 1).namespace + "/" + self.copies.ref(fits + 1).name
        return PassAnswer(
            self.copies.target,
            method,
            why,
            fits,
            placements,
            stopped_by,
            message,
            self.copies,
            self.base,
            max_count,
            explanation,
            seconds=time.process_time() - self.started,
            attempts_before=self.loop.attempts,
        )
