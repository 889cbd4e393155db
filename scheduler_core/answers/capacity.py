"""Capacity answers (issue 26): how many more fit, how many nodes are needed, which nodes can go,
and fragmentation — found by trial runs with steps (../shared/spec/CHANGES.md), not by arithmetic.

A trial is the scenario run to the end with one extra step (``run_trial``): a pure function of the
base scenario and the trial's changes, independent of every other trial, so a caller (the web app)
may fan trials out to workers. The searches (``how_many_fit``, ``removable_nodes``) are drivers over
it; ``fragmentation`` reads the baseline trial's placements. docs/CAPACITY.md says the search
strategies and what is exact. The same searches in rounds (``capacity_rounds.py``) use this module's
public pieces: how a trial's changes are made and how an answer is read from the trials run,
written once here. The nodes question is searched only there (``capacity_rounds.nodes_needed``, the
CLI's, drives its rounds one trial at a time); its answer and its trials are made here.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import yaml

from scheduler_core.encoding.events import CycleEnd, Event, ExtensionPoint, FilterPluginResult, RunEnd, StepEnded
from scheduler_core.answers.capacity_drains import NO_EVICTIONS, DrainForecaster
from scheduler_core.answers.capacity_json import (
    DrainVerdictJSON,
    FitAnswerJSON,
    FragmentationAnswerJSON,
    NodesAnswerJSON,
    RemovableAnswerJSON,
    ResourceFragmentationJSON,
    StrandedJSON,
    TemplateAnswerJSON,
    TrialJSON,
    TrialStepJSON,
    UnplaceableJSON,
)
from scheduler_core.answers.explain import CycleExplanation, explain_events
from scheduler_core.util.gcfreeze import frozen_after_first
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.run.kube_scheduler import KubeScheduler
from scheduler_core.run.loop import ClusterRun
from scheduler_core.model import (
    CPU,
    MEMORY,
    PODS,
    AddNodesOp,
    Changes,
    CreateOp,
    DrainOp,
    Manifest,
    ObjectRef,
    Operation,
    OperationSpec,
    ScaleOp,
    Scenario,
    Step,
)
from scheduler_core.model.quantity import format_amount
from scheduler_core.model.resources import pod_requests
from scheduler_core.scenario import manifests
from scheduler_core.scenario.changes import (
    API_VERSION,
    KIND as CHANGES_KIND,
    SCALABLE_KINDS,
    UNUSABLE_FIELD,
    UNUSABLE_IGNORE,
)
from scheduler_core.scenario.errors import ScenarioInvalid
from scheduler_core.scenario.loader import SourceText, load_sources, load_sources_or_with
from scheduler_core.scenario.limits import Limits
from scheduler_core.release.choice import ReleaseRequest

DELETED = "deleted"
LISTED = 20  # nodes or pods a readable answer lists (the JSON has them all)
CAPACITY_SOURCE = "capacity-changes.yaml"  # the name the trial's Changes document is read under
# A dump's workloads are read as kube-controller-manager would use them: one it could not use (a
# trimmed Deployment without its pod template) is set aside and named, not a refused question.
EMPTY_CHANGES = f"apiVersion: {API_VERSION}\nkind: {CHANGES_KIND}\n{UNUSABLE_FIELD}: {UNUSABLE_IGNORE}\nsteps: []\n"
BASELINE_LABEL = "the scenario's own run"  # the first trial of every question: no changes


class CapacityError(ValueError):
    """The question cannot be asked of this scenario (said in one sentence, no traceback)."""


# ---------------------------------------------------------------------- trials


@dataclass(frozen=True)
class TrialStep:
    """One step a trial adds after the scenario's own run: the operations, as the model reads them."""

    name: str
    operations: tuple[OperationSpec, ...]


@dataclass(frozen=True)
class TrialChanges:
    steps: tuple[TrialStep, ...] = ()

    def model_steps(self) -> tuple[Step, ...]:
        return tuple(
            Step(
                number,
                step.name,
                tuple(Operation(_verb(spec), spec, index) for index, spec in enumerate(step.operations)),
            )
            for number, step in enumerate(self.steps, start=1)
        )

    def to_yaml(self) -> str:
        """The Changes document of the trial (../shared/spec/CHANGES.md), as a scenario file would hold it.
        Written once per TrialChanges (an answer's JSON writes it in changesText and in scenarioText;
        a drain of thousands of nodes is a long document)."""
        written = self.__dict__.get("_yaml")
        if written is None:
            written = self._written_yaml()
            object.__setattr__(self, "_yaml", written)  # not a field: equality and hashing ignore it
        return written

    def _written_yaml(self) -> str:
        document = {
            "apiVersion": API_VERSION,
            "kind": CHANGES_KIND,
            UNUSABLE_FIELD: UNUSABLE_IGNORE,  # as the base was read (EMPTY_CHANGES): a saved trial loads alike
            "steps": [
                {"name": step.name, "operations": [{_verb(spec): _written(spec)} for spec in step.operations]}
                for step in self.steps
            ],
        }
        return yaml.safe_dump(document, sort_keys=False, default_flow_style=False)


def _verb(spec: OperationSpec) -> str:
    if isinstance(spec, ScaleOp):
        return "scale"
    if isinstance(spec, DrainOp):
        return "drain"
    if isinstance(spec, AddNodesOp):
        return "addNodes"
    if isinstance(spec, CreateOp):
        return "create"
    raise TypeError(f"a capacity trial does not write {type(spec).__name__}")


def _written(spec: OperationSpec) -> dict[str, Any]:
    if isinstance(spec, ScaleOp):
        target = spec.target
        return {"kind": target.kind, "namespace": target.namespace, "name": target.name, "replicas": spec.replicas}
    if isinstance(spec, DrainOp):
        return {"node": spec.node}
    if isinstance(spec, AddNodesOp):
        return {"like": spec.like, "count": spec.count, "prefix": spec.prefix}
    assert isinstance(spec, CreateOp)
    written: Manifest = manifests.plain(spec.manifest)
    return written


@dataclass(frozen=True)
class TrialBase:
    """The scenario a question starts from: loaded once with the stand-in controllers on (an empty
    Changes document when it has none), and its text, so a trial's scenario can be written out."""

    scenario: Scenario
    text: str

    @staticmethod
    def from_text(
        text: str, release: ReleaseRequest = ReleaseRequest(), limits: Optional[Limits] = None
    ) -> "TrialBase":
        return TrialBase.from_sources([SourceText(None, text)], release, limits)

    @staticmethod
    def from_sources(
        sources: Sequence[SourceText], release: ReleaseRequest = ReleaseRequest(), limits: Optional[Limits] = None
    ) -> "TrialBase":
        """``release``: the release asked for (unasked, what the dump says); every trial keeps it.
        ``limits``: the size limits the base is read under (the defaults unless raised)."""
        scenario, own_changes = _load_base(sources, release, limits)
        texts = [s.text.decode("utf-8") if isinstance(s.text, bytes) else s.text for s in sources]
        if own_changes:
            assert scenario.changes is not None
            if scenario.changes.steps:
                raise CapacityError(
                    "the scenario has its own steps (a Changes document with steps): capacity "
                    "questions start from the scenario's own run; remove its steps first"
                )
            texts = [_without_changes(text) for text in texts]  # an empty one: the trial's replaces it
        return TrialBase(scenario, "\n---\n".join(t.strip("\n") for t in texts if t.strip()))

    def trial_text(self, changes: TrialChanges) -> str:
        """The trial as one scenario file: the base and the trial's Changes document."""
        return f"{self.text}\n---\n{changes.to_yaml()}"


def _load_base(
    sources: Sequence[SourceText], release: ReleaseRequest, limits: Optional[Limits]
) -> tuple[Scenario, bool]:
    """The sources loaded with an empty Changes document after them when they hold none (the flag:
    they held one). Read once; an invalid scenario is loaded again the way it always was, so its
    problems are said as before (the sources' own, else those with the empty Changes added)."""
    empty = SourceText(CAPACITY_SOURCE, EMPTY_CHANGES)
    try:
        scenario, added = load_sources_or_with(sources, empty, limits=limits, release=release)
        return scenario, not added
    except ScenarioInvalid:
        scenario = load_sources(sources, limits=limits, release=release)
        if scenario.changes is not None:
            return scenario, True
        return load_sources([*sources, empty], limits=limits, release=release), False


def _without_changes(text: str) -> str:
    documents = [d for d in yaml.safe_load_all(text)]
    if not any(isinstance(d, dict) and d.get("kind") == CHANGES_KIND for d in documents):
        return text
    return yaml.safe_dump_all(
        [d for d in documents if not (isinstance(d, dict) and d.get("kind") == CHANGES_KIND)], sort_keys=False
    )


@dataclass
class NodeAtEnd:
    """A node when the trial ended: what it offers, what its pods request."""

    name: str
    allocatable: dict[str, int]
    requested: dict[str, int]
    pods: int
    unschedulable: bool
    pod_requests: list[dict[str, int]] = field(default_factory=list)

    def free(self, resource: str) -> int:
        used = self.pods if resource == PODS else self.requested.get(resource, 0)
        return max(0, self.allocatable.get(resource, 0) - used)


@dataclass
class TrialOutcome:
    """What a trial ended with: every pod's place (node, None pending, "deleted"), each step's
    summary, each pod's last FailedScheduling message and, for each pod, the Filter statuses of
    its last failed attempt (node -> reasons)."""

    final: dict[str, Optional[str]]
    steps: list[StepEnded]
    messages: dict[str, str] = field(default_factory=dict)
    last_rejections: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    nodes: list[NodeAtEnd] = field(default_factory=list)
    explanation: Optional[CycleExplanation] = None  # the last failed cycle of one pending pod (_pod_to_explain)

    def step(self, number: int) -> StepEnded:
        return next(s for s in self.steps if s.step == number)

    def pending(self, pods: Sequence[str]) -> list[str]:
        return [pod for pod in pods if self.final.get(pod, DELETED) is None]

    def placed(self) -> dict[str, str]:
        return {pod: node for pod, node in self.final.items() if node not in (None, DELETED)}


def run_trial(base: Union[TrialBase, str], changes: TrialChanges) -> TrialOutcome:
    """The base scenario run to the end with ``changes`` as its steps: independent of every other
    trial (the base is copied), so trials may run in any order or on other workers."""
    outcome = run_to_rest(base, changes)[1]
    # The trial's loop is garbage now, held in reference cycles the collector never saw: it was
    # built with the collector paused and frozen while it ran (run_to_rest). Freed here, once,
    # so a search's trials do not pile up (each is the size of the scenario).
    gc.collect()
    return outcome


def run_to_rest(base: Union[TrialBase, str], changes: TrialChanges) -> tuple[KubeScheduler, TrialOutcome]:
    """``run_trial``'s work with the scheduler kept as the run left it: the one pass
    (capacity_pass.py) goes on placing copies from there with the same scheduler."""
    trial_base = TrialBase.from_text(base) if isinstance(base, str) else base
    scenario = trial_base.scenario
    assert scenario.changes is not None
    trial_changes = Changes(
        changes.model_steps(),
        [copy.copy(w) for w in scenario.changes.workloads],
        dict(scenario.changes.budgets),
        dict(scenario.changes.manifests),
    )
    # The collector is paused while the snapshot is built and while the nodes' ends are read (about
    # a million objects, none of them garbage: each pass over them would find nothing), and kept
    # off the scenario and snapshot while the run streams (gcfreeze), as run_to_the_end does.
    with collector_paused():
        run = ClusterRun(dataclasses.replace(scenario, changes=trial_changes))
    outcome = _outcome(frozen_after_first(run.run()))
    with collector_paused():
        outcome.nodes = [
            NodeAtEnd(
                info.name,
                dict(info.allocatable),
                dict(info.requested),
                len(info.pods),
                info.node.unschedulable,
                [pod_requests(pod_info.pod) for pod_info in info.pods],
            )
            for info in run.kube_scheduler.snapshot.node_infos
        ]
    return run.kube_scheduler, outcome


def _outcome(events: Iterable[Event]) -> TrialOutcome:
    outcome = TrialOutcome({}, [])
    # The Filter results of the attempt, read into node -> reasons only for the attempts that
    # failed (most attempts bind: their statuses are never read).
    attempt: list[FilterPluginResult] = []
    rejections: dict[str, list[FilterPluginResult]] = {}
    cycle: list[Event] = []
    failed_cycles: dict[str, list[Event]] = {}  # each pod's last failed cycle, until the run ends
    start = ExtensionPoint.CYCLE_START
    for event in events:
        payload = event.payload
        cycle.append(event)
        if event.extension_point is start:
            attempt, cycle = [], [event]
        elif isinstance(payload, FilterPluginResult):
            attempt.append(payload)
        elif isinstance(payload, CycleEnd) and payload.node_name is None:
            message = payload.failed_scheduling_message or payload.error
            if message:
                outcome.messages[event.pod] = message
            rejections[event.pod] = attempt
            failed_cycles[event.pod] = cycle
        elif isinstance(payload, StepEnded):
            outcome.steps.append(payload)
        elif isinstance(payload, RunEnd):
            outcome.final = dict(payload.final)
    outcome.last_rejections = {pod: _rejections(results) for pod, results in rejections.items()}
    explained = _pod_to_explain(outcome)
    if explained is not None and explained in failed_cycles:
        outcome.explanation = explain_events(failed_cycles[explained])
    return outcome


def _pod_to_explain(outcome: TrialOutcome) -> Optional[str]:
    """One pod per trial is explained (the cycles of the others are not kept): the first pod the
    last step created that is pending at the end, else the first pending pod."""
    created = outcome.steps[-1].created if outcome.steps else []
    pending = outcome.pending(created) or sorted(pod for pod, node in outcome.final.items() if node is None)
    return pending[0] if pending else None


def _rejections(results: list[FilterPluginResult]) -> dict[str, list[str]]:
    """node -> the reasons of every Filter plugin that rejected it, in the attempt's order."""
    attempt: dict[str, list[str]] = {}
    for result in results:
        for node, status in result.statuses.items():
            attempt.setdefault(node, []).extend(_reasons(status))
    return attempt


def _reasons(status: object) -> list[str]:
    reasons = getattr(status, "reasons", None)
    if reasons is None and isinstance(status, dict):
        reasons = status.get("reasons")
    return list(reasons or [])


# ---------------------------------------------------------------------- shared pieces


Progress = Callable[[int, str], None]  # (trial number, what it tries), told as each trial starts
TrialFunction = Callable[[TrialBase, TrialChanges], TrialOutcome]


@dataclass
class Trial:
    """A trial a question ran: its changes, its outcome and its scenario text (open it as a run)."""

    label: str
    changes: TrialChanges
    outcome: TrialOutcome
    base: TrialBase = field(repr=False)

    @property
    def scenario_text(self) -> str:
        """Written only when asked for (a trial of thousands of copies is a long document)."""
        return self.base.trial_text(self.changes)

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> TrialJSON:
        steps = [TrialStepJSON(s.step, s.name, s.created, s.evicted, s.blocked, s.pending) for s in self.outcome.steps]
        return TrialJSON(self.label, self.changes.to_yaml(), self.scenario_text, steps)


class TrialRunner:
    """Runs and remembers trials for one question (a driver; ``run_trial`` does the work)."""

    def __init__(
        self,
        base: TrialBase,
        trial: Callable[[TrialBase, TrialChanges], TrialOutcome] = run_trial,
        progress: Optional[Progress] = None,
    ) -> None:
        self.base = base
        self._trial = trial
        self._progress = progress
        self.count = 0

    def run(self, label: str, changes: TrialChanges) -> Trial:
        self.count += 1
        if self._progress is not None:
            self._progress(self.count, label)
        return Trial(label, changes, self._trial(self.base, changes), self.base)


def _land(outcome: TrialOutcome, pods: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for pod in pods:
        node = outcome.final.get(pod)
        if node not in (None, DELETED):
            counts[node] = counts.get(node, 0) + 1
    return dict(sorted(counts.items()))


def free_pod_slots(scenario: Scenario, baseline: TrialOutcome) -> int:
    """Pods the schedulable nodes' ``pods`` allocatable could still hold after the scenario's run."""
    bound: dict[str, int] = {}
    for node in baseline.placed().values():
        bound[node] = bound.get(node, 0) + 1
    return sum(
        max(0, node.allocatable.get(PODS, 0) - bound.get(node.name, 0))
        for node in scenario.nodes
        if not node.unschedulable
    )


# ---------------------------------------------------------------------- 1. how many more fit


@dataclass
class FitAnswer:
    target: str  # "Deployment default/web" or "Pod default/p"
    fits: int  # N: the largest count checked to leave no new pod pending
    checked_next: bool  # N+1 was run and left a copy pending (False: the bound was reached)
    bound: int  # the most copies tried (free pod slots after the scenario's run)
    placements: dict[str, int]  # where the N copies land: node -> count
    stopped_by: list[str]  # the copies of trial N+1 left pending
    message: str  # the FailedScheduling message of the first of them
    trials: int
    tried: dict[int, bool]  # every count tried: did it fit?
    deciding: Optional[Trial]  # the trial of N+1 (its step 1 leaves ``stopped_by`` pending)
    fitting: Trial  # the trial of N
    displaced: list[str] = field(default_factory=list)  # pods placed before, pending or deleted in trial N (preempted)

    @property
    def explanation(self) -> Optional[CycleExplanation]:
        """The explanation of the first stopped copy's last failed cycle in the deciding trial."""
        if self.deciding is None or self.deciding.outcome.explanation is None or not self.stopped_by:
            return None
        explanation = self.deciding.outcome.explanation
        return explanation if explanation.pod == self.stopped_by[0] else None

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> FitAnswerJSON:
        return FitAnswerJSON(
            self.target,
            self.fits,
            self.checked_next,
            self.bound,
            self.placements,
            self.stopped_by,
            self.message,
            self.trials,
            {str(n): ok for n, ok in sorted(self.tried.items())},
            self.deciding.wire() if self.deciding else None,
            self.fitting.wire(),
            self.displaced,
            self.explanation,
        )

    def lines(self) -> list[str]:
        out = [
            f"{self.target}: {self.fits} more fit ({self.trials} trial runs; counts tried: "
            f"{', '.join(f'{n} ' + ('fits' if ok else 'does not') for n, ok in sorted(self.tried.items()))})"
        ]
        if self.placements:
            shown = list(self.placements.items())[:LISTED]
            more = len(self.placements) - len(shown)
            out.append(
                f"  where they land ({len(self.placements)} node(s)): "
                + ", ".join(f"{node} {count}" for node, count in shown)
                + (f", … {more} more" if more > 0 else "")
            )
        if self.checked_next:
            out.append(f"  copy {self.fits + 1} stays pending ({', '.join(self.stopped_by)}): {self.message}")
            if self.explanation is not None:
                out.append(f"  why: {self.explanation.headline}")
        else:
            out.append(
                f"  no count that fails was found: {self.fits} is one past the bound ({self.bound}: the pod "
                "slots the nodes have left, or --max); at least this many fit"
            )
        if self.displaced:
            out.append(f"  placing them preempts {len(self.displaced)} pod(s): {', '.join(self.displaced[:10])}")
        return out


def how_many_fit(
    base: TrialBase,
    workload: Optional[str] = None,
    pod: Optional[str] = None,
    max_count: Optional[int] = None,
    trial: TrialFunction = run_trial,
    progress: Optional[Progress] = None,
) -> FitAnswer:
    """The largest N such that N more copies (a workload scaled by N, or N copies of a pod) leave
    none of them pending: doubling from 1, then bisection (docs/CAPACITY.md)."""
    runner = TrialRunner(base, trial, progress)
    make, target = copies_maker(base.scenario, workload, pod)
    baseline = runner.run(BASELINE_LABEL, TrialChanges())
    bound = free_pod_slots(base.scenario, baseline.outcome) if max_count is None else max_count
    trials: dict[int, Trial] = {0: baseline}
    tried: dict[int, bool] = {}

    def fits(count: int) -> bool:
        if count not in trials:
            trials[count] = runner.run(f"{count} more", make(count))
        created = trials[count].outcome.step(1).created if count else []
        tried[count] = not trials[count].outcome.pending(created) and len(created) >= count
        return tried[count]

    lo, hi = 0, None
    count = 1
    while count <= bound:
        if not fits(count):
            hi = count
            break
        lo, count = count, count * 2
    if hi is None and lo < bound:
        if fits(bound):
            lo = bound
        else:
            hi = bound
    if hi is None:  # every count up to the bound fits: one more shows what stops the next copy
        hi = lo + 1
        if fits(hi):  # beyond the pod slots (preemption can make room): say it, do not search on
            return fit_answer(target, hi, False, bound, trials, tried, runner.count, None)
    while hi - lo > 1:
        for passed in [n for n in trials if n not in (0, lo, hi)]:  # only the baseline and the bracket are read later
            del trials[passed]
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return fit_answer(target, lo, True, bound, trials, tried, runner.count, trials[hi])


def fit_answer(
    target: str,
    fits: int,
    checked_next: bool,
    bound: int,
    trials: dict[int, Trial],
    tried: dict[int, bool],
    count: int,
    deciding: Optional[Trial],
) -> FitAnswer:
    """The answer once the search ends: ``trials`` holds the baseline (0) and the trial of ``fits``
    copies; ``deciding`` is the trial of the first count that did not fit (None: none was found)."""
    fitting = trials[fits]
    created = fitting.outcome.step(1).created if fits else []
    stopped, message = [], ""
    if deciding is not None:
        stopped = deciding.outcome.pending(deciding.outcome.step(1).created)
        message = deciding.outcome.messages.get(stopped[0], "") if stopped else ""
    placed_before = trials[0].outcome.placed()
    displaced = sorted(pod for pod in placed_before if fitting.outcome.final.get(pod, DELETED) in (None, DELETED))
    return FitAnswer(
        target,
        fits,
        checked_next,
        bound,
        _land(fitting.outcome, created),
        stopped,
        message,
        count,
        tried,
        deciding,
        fitting,
        displaced,
    )


def copies_maker(
    scenario: Scenario, workload: Optional[str], pod: Optional[str]
) -> tuple[Callable[[int], TrialChanges], str]:
    """The changes that add N more copies of the workload (scaled by N) or of the pod (N copies of
    its manifest), as a function of N, and the target's name; CapacityError when it is not there."""
    assert scenario.changes is not None
    if workload is not None:
        namespace, _, name = workload.rpartition("/")
        found = [
            w
            for w in scenario.changes.workloads
            if w.namespace == (namespace or "default") and w.name == name and w.kind in SCALABLE_KINDS
        ]
        if not found:
            unusable = [
                w
                for w in scenario.changes.unusable
                if w.namespace == (namespace or "default") and w.name == name and w.kind in SCALABLE_KINDS
            ]
            if unusable:
                raise CapacityError(f"{unusable[0].label} cannot be used by the controllers: {unusable[0].reason}")
            raise CapacityError(f"no Deployment, ReplicaSet, StatefulSet or Job {workload} in the scenario")
        chosen = found[0]
        ref = ObjectRef(chosen.kind, chosen.namespace, chosen.name)
        return (
            lambda n: TrialChanges(
                (TrialStep(f"scale {chosen.kind} {chosen.key} by {n}", (ScaleOp(ref, chosen.replicas + n),)),)
            ),
            f"{chosen.kind} {chosen.key}",
        )
    if pod is None:
        raise CapacityError("name a workload (--workload NS/NAME) or a pod (--pod NS/NAME)")
    copies = pod_copies(scenario, pod)
    return (
        lambda n: TrialChanges(
            (
                TrialStep(
                    f"{n} copies of pod {pod}",
                    tuple(CreateOp(copies.ref(k), copies.manifest(k)) for k in range(1, n + 1)),
                ),
            )
        ),
        copies.target,
    )


@dataclass(frozen=True)
class PodCopies:
    """Copies of a pod as a step creates them: ``<name>-copy-k``, its labels and spec, no node.
    Written once for the trials' steps and the one pass (capacity_pass.py)."""

    namespace: str
    name: str
    template: Manifest

    @property
    def target(self) -> str:
        return f"Pod {self.namespace}/{self.name}"

    def ref(self, k: int) -> ObjectRef:
        return ObjectRef("Pod", self.namespace, f"{self.name}-copy-{k}")

    def manifest(self, k: int) -> Manifest:
        return _named(self.template, f"{self.name}-copy-{k}")


def pod_copies(scenario: Scenario, pod: str) -> PodCopies:
    """The copies of pod ``NS/NAME``; CapacityError when the scenario has no such pod."""
    assert scenario.changes is not None
    namespace, _, name = pod.rpartition("/")
    manifest = scenario.changes.manifests.get(ObjectRef("Pod", namespace or "default", name))
    if manifest is None:
        raise CapacityError(f"no pod {pod} in the scenario")
    return PodCopies(namespace or "default", name, _pod_template(manifests.plain(manifest)))


def _pod_template(manifest: Manifest) -> Manifest:
    """A pod as a template for copies: no node, no status, no identity of its own."""
    metadata = {
        k: v for k, v in (manifest.get("metadata") or {}).items() if k in ("namespace", "labels", "annotations")
    }
    spec = {k: v for k, v in (manifest.get("spec") or {}).items() if k not in ("nodeName",)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _named(template: Manifest, name: str) -> Manifest:
    return {**template, "metadata": {**template["metadata"], "name": name}}


# ---------------------------------------------------------------------- the CLI's one entry


def answer(
    base: TrialBase,
    *,
    workload: Optional[str] = None,
    pod: Optional[str] = None,
    removable: bool = False,
    fragmentation: bool = False,
    max_count: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> "CapacityAnswer":
    """The question the CLI's flags ask (exactly one) of those searched here: ``--pod`` is
    ``capacity_pass.how_many_copies``'s and ``--add-like`` is ``capacity_rounds.nodes_needed``'s."""
    if workload is not None or pod is not None:
        return how_many_fit(base, workload=workload, pod=pod, max_count=max_count, progress=progress)
    if removable:
        return removable_nodes(base, max_count=max_count, progress=progress)
    if fragmentation:
        return fragmentation_of(base, progress=progress)
    raise CapacityError("ask one question: --workload, --pod, --removable or --fragmentation")


# ---------------------------------------------------------------------- 2. how many nodes are needed


@dataclass
class Unplaceable:
    pod: str
    reason: str  # why a node like the template does not take it (its rejection there, else the message)


@dataclass
class TemplateAnswer:
    like: str
    needed: int  # the fewest nodes like ``like`` that place every pod some number of them can place
    pods_per_node: dict[str, list[str]]  # each added node: the pending pods it takes
    unplaceable: list[Unplaceable]
    tried: dict[int, int]  # nodes added -> pods still pending
    deciding: Optional[Trial]  # the trial of needed-1 nodes (a pod still pending), None when needed is 0
    fitting: Trial
    most: int = 0  # the most nodes tried; below one per pending pod (--max), "unplaceable" means "not by that many"
    exhaustive: bool = True  # one node per pending pod was tried

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> TemplateAnswerJSON:
        return TemplateAnswerJSON(
            self.like,
            self.needed,
            self.most,
            self.exhaustive,
            self.pods_per_node,
            [UnplaceableJSON(u.pod, u.reason) for u in self.unplaceable],
            {str(n): left for n, left in sorted(self.tried.items())},
            self.deciding.wire() if self.deciding else None,
            self.fitting.wire(),
        )

    def lines(self) -> list[str]:
        out = [
            f"nodes like {self.like}: {self.needed} needed (nodes added → pods still pending: "
            f"{', '.join(f'{n} → {left}' for n, left in sorted(self.tried.items()))})"
        ]
        out += [f"  {node}: {', '.join(pods) or 'nothing'}" for node, pods in list(self.pods_per_node.items())[:LISTED]]
        unplaced = "no number of them takes" if self.exhaustive else f"{self.most} of them do not take"
        out += [f"  {unplaced} {u.pod}: {u.reason}" for u in self.unplaceable[:LISTED]]
        if len(self.pods_per_node) > LISTED or len(self.unplaceable) > LISTED:
            out.append(
                f"  … ({len(self.pods_per_node)} nodes added, {len(self.unplaceable)} pods no node takes; --json lists all)"
            )
        return out


@dataclass
class NodesAnswer:
    pending: list[str]  # the pods pending after the scenario's own run
    templates: list[TemplateAnswer]
    trials: int

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> NodesAnswerJSON:
        return NodesAnswerJSON(self.pending, [t.wire() for t in self.templates], self.trials)

    def lines(self) -> list[str]:
        if not self.pending:
            return ["no pod is pending after the scenario's run: no node is needed"]
        out = [f"{len(self.pending)} pod(s) pending after the scenario's run ({self.trials} trial runs)"]
        for template in self.templates:
            out += template.lines()
        return out


def check_templates(scenario: Scenario, likes: Sequence[str]) -> None:
    """CapacityError for the first template node the scenario does not have."""
    names = {node.name for node in scenario.nodes}
    for like in likes:
        if like not in names:
            raise CapacityError(f"no node {like} in the scenario")


def added_nodes_label(like: str, count: int) -> str:
    """How a trial of ``added_nodes(like, count)`` is named (its progress line and its label)."""
    return f"{count} node(s) like {like}"


def added_nodes(like: str, count: int) -> TrialChanges:
    """The trial that adds ``count`` copies of node ``like`` (named ``capacity-<like>-1`` on)."""
    return TrialChanges(
        (TrialStep(f"add {count} node(s) like {like}", (AddNodesOp(like, count, _added_prefix(like)),)),)
    )


def _added_prefix(like: str) -> str:
    return f"capacity-{like}-"


def still_pending(trial: Trial) -> list[str]:
    """The pods a trial left pending at its end."""
    return [pod for pod, node in trial.outcome.final.items() if node is None]


def template_answer(
    like: str, trials: dict[int, Trial], lo: int, hi: int, most: int, pending: list[str], never: list[str]
) -> TemplateAnswer:
    """The answer once one template's search ends: ``trials`` (nodes added -> trial) holds 0, ``lo``
    (still more pending than ``never``), ``hi`` (only ``never`` pending) and ``most``, the most tried."""
    prefix = _added_prefix(like)
    fitting = trials[hi]
    added = [f"{prefix}{n}" for n in range(1, hi + 1)]
    per_node = {
        node: sorted(pod for pod, at in fitting.outcome.final.items() if at == node and pod in pending)
        for node in added
    }
    unplaceable = [Unplaceable(pod, _reason_on(trials[most].outcome, pod, f"{prefix}1")) for pod in never]
    tried = {n: len(still_pending(trials[n])) for n in sorted(trials)}
    return TemplateAnswer(
        like, hi, per_node, unplaceable, tried, trials[lo] if hi > 0 else None, fitting, most, most >= len(pending)
    )


def _reason_on(outcome: TrialOutcome, pod: str, node: str) -> str:
    reasons = outcome.last_rejections.get(pod, {}).get(node)
    if reasons:
        return f"{node} (like the template): {', '.join(reasons)}"
    return outcome.messages.get(pod, "no FailedScheduling message recorded")


# ---------------------------------------------------------------------- 3. which nodes can go


@dataclass
class DrainVerdict:
    node: str
    removable: bool
    reasons: list[str]  # why it must stay (a budget blocking, a pod left pending, a pod with no controller)
    known_by: str = "trial"  # its drain trial, or why the trial's verdict is known without it (capacity_drains)

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> DrainVerdictJSON:
        return DrainVerdictJSON(self.node, self.removable, self.reasons, self.known_by)


@dataclass
class RemovableAnswer:
    order: str
    verdicts: list[DrainVerdict]
    together: list[str]  # the largest set found greedily, in the order tried
    trials: int
    together_trial: Optional[Trial]
    deciding: dict[str, Trial]  # node -> its own drain trial

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> RemovableAnswerJSON:
        return RemovableAnswerJSON(
            self.order,
            [v.wire() for v in self.verdicts],
            self.together,
            self.trials,
            self.together_trial.wire() if self.together_trial else None,
            {node: trial.wire() for node, trial in self.deciding.items()},
        )

    def lines(self) -> list[str]:
        out = [
            f"nodes that can go together ({self.order}; {self.trials} trial runs): {', '.join(self.together) or 'none'}"
        ]
        for verdict in self.verdicts:
            out.append(
                f"  {verdict.node}: " + ("can go" if verdict.removable else "must stay — " + "; ".join(verdict.reasons))
            )
        return out


REMOVAL_ORDER = (
    "least requested first (the largest share of allocatable CPU or memory requested, ascending; ties by name)"
)


JUDGED_EVERY = 1000  # nodes judged between two progress reports of --removable


def removable_nodes(
    base: TrialBase,
    max_count: Optional[int] = None,
    trial: TrialFunction = run_trial,
    progress: Optional[Progress] = None,
    forecast: bool = True,
) -> RemovableAnswer:
    """Each node drained alone; then the removable ones drained together, added one at a time in
    ``REMOVAL_ORDER`` and kept when everything still fits (a greedy set, not the largest possible).
    A drain whose trial verdict is certain from the baseline (capacity_drains.py) is not run
    (``forecast`` False: every drain is, as the tests compare)."""
    runner = TrialRunner(base, trial, progress)
    baseline = runner.run(BASELINE_LABEL, TrialChanges())
    order = removal_order(baseline.outcome)
    if max_count is not None:
        order = order[:max_count]
    forecaster = DrainForecaster(base.scenario, baseline.outcome.final)
    verdicts, drains = [], {}
    for i, node in enumerate(order, start=1):
        known = forecaster.forecast(node.name) if forecast else None
        if known is not None:
            verdicts.append(DrainVerdict(node.name, known.removable, known.reasons, known.known_by))
        else:
            drains[node.name] = runner.run(f"drain {node.name}", drain_changes([node.name]))
            verdicts.append(DrainVerdict(node.name, *drain_ok(base.scenario, baseline, drains[node.name])))
        if progress is not None and i % JUDGED_EVERY == 0:
            progress(runner.count, f"{i} of {len(order)} nodes judged ({len(drains)} by a drain trial)")
    together, together_trial = _together(runner, base, baseline, verdicts, drains)
    return RemovableAnswer(REMOVAL_ORDER, verdicts, together, runner.count, together_trial, drains)


def _together(
    runner: TrialRunner, base: TrialBase, baseline: Trial, verdicts: list[DrainVerdict], drains: dict[str, Trial]
) -> tuple[list[str], Optional[Trial]]:
    """The greedy set. Cordons (nodes with nothing to evict) join it without a trial while it holds
    nothing else — cordoning more empty nodes evicts nothing and leaves no placed pod pending — and
    the set so made is then run once as the deciding trial; should that trial not pass, the set is
    built again a trial at a time, as before."""
    together: list[str] = []
    together_trial: Optional[Trial] = None
    cordons = 0  # how many of ``together`` (its start) joined without a trial
    for verdict in (v for v in verdicts if v.removable):
        if verdict.known_by == NO_EVICTIONS and cordons == len(together):
            together.append(verdict.node)
            cordons += 1
        elif not together:
            together, together_trial = [verdict.node], drains[verdict.node]
        else:
            attempt = runner.run(
                f"drain {', '.join(together + [verdict.node])}", drain_changes(together + [verdict.node])
            )
            if drain_ok(base.scenario, baseline, attempt)[0]:
                together, together_trial = together + [verdict.node], attempt
    if together and together_trial is None:
        together_trial = runner.run(
            f"drain the {len(together)} node(s) that can go together ({together[0]}, …)", drain_changes(together)
        )
        if not drain_ok(base.scenario, baseline, together_trial)[0]:
            # The forecast was wrong: each cordon gets its own trial after all, and the set is built again.
            for verdict in verdicts:
                if verdict.known_by == NO_EVICTIONS:
                    drains[verdict.node] = runner.run(f"drain {verdict.node}", drain_changes([verdict.node]))
                    verdict.removable, verdict.reasons = drain_ok(base.scenario, baseline, drains[verdict.node])
                    verdict.known_by = "trial"
            return _together(runner, base, baseline, verdicts, drains)
    return together, together_trial


def removal_order(baseline: TrialOutcome) -> list[NodeAtEnd]:
    """The nodes at the end of the scenario's own run in ``REMOVAL_ORDER``."""
    return sorted(baseline.nodes, key=lambda node: (_share(node), node.name))


def _share(node: NodeAtEnd) -> float:
    return max(
        (node.requested.get(r, 0) / node.allocatable[r] for r in (CPU, MEMORY) if node.allocatable.get(r)), default=0.0
    )


def drain_changes(nodes: list[str]) -> TrialChanges:
    """The trial that drains ``nodes`` in one step."""
    return TrialChanges((TrialStep(f"drain {', '.join(nodes)}", tuple(DrainOp(node) for node in nodes)),))


def drain_ok(scenario: Scenario, baseline: Trial, drained: Trial) -> tuple[bool, list[str]]:
    """Whether the drain trial leaves the scenario whole (no eviction blocked, no pod newly left
    pending, no pod without a controller evicted) and, when not, each reason."""
    step = drained.outcome.step(1)
    reasons = [f"eviction of {b.pod} blocked by budget {b.budget}" for b in step.blocked]
    before = {pod for pod, node in baseline.outcome.final.items() if node is None}
    for pod in sorted(p for p, node in drained.outcome.final.items() if node is None and p not in before):
        reasons.append(f"{pod} left pending: {drained.outcome.messages.get(pod, '')}")
    own = {pod.key: pod for pod in scenario.pods}
    for pod in step.evicted:
        if pod in own and not any(ref.controller for ref in own[pod].owner_references):
            reasons.append(f"{pod} has no controller: evicting it deletes it")
    return not reasons, reasons


# ---------------------------------------------------------------------- 4. fragmentation


@dataclass
class Stranded:
    node: str
    free: int
    blocked_by: str  # the resource the node has too little of for the smallest request


@dataclass
class ResourceFragmentation:
    resource: str
    free_total: int
    largest_fit: int  # the largest request of this resource alone that still fits on one node
    largest_node: str
    smallest_request: int  # the smallest non-zero request of it among the pods placed
    stranded: list[Stranded]

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> ResourceFragmentationJSON:
        stranded_total = sum(s.free for s in self.stranded)
        return ResourceFragmentationJSON(
            self.resource,
            self.free_total,
            self.largest_fit,
            self.largest_node,
            self.smallest_request,
            [StrandedJSON(s.node, s.free, s.blocked_by, self.amount(s.free)) for s in self.stranded],
            stranded_total,
            self.amount(self.free_total),
            self.amount(self.largest_fit),
            self.amount(stranded_total),
        )

    def amount(self, value: int) -> str:
        """An amount of this resource for people, with its unit ("22Gi", "4000m")."""
        return format_amount(self.resource, value)


@dataclass
class FragmentationAnswer:
    resources: list[ResourceFragmentation]
    trials: int

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def wire(self) -> FragmentationAnswerJSON:
        return FragmentationAnswerJSON([r.wire() for r in self.resources], self.trials)

    def lines(self) -> list[str]:
        out = ["after the scenario's own run (schedulable nodes only):"]
        for r in self.resources:
            stranded = r.amount(sum(s.free for s in r.stranded))
            out.append(
                f"  {r.resource}: {r.amount(r.free_total)} free in total, the largest request that fits is "
                f"{r.amount(r.largest_fit)} (on {r.largest_node or 'no node'}); {stranded} stranded on "
                f"{len(r.stranded)} node(s)"
            )
            out += [
                f"    {s.node}: {r.amount(s.free)} free, but too little {s.blocked_by}" for s in r.stranded[:LISTED]
            ]
            if len(r.stranded) > LISTED:
                out.append(f"    … and {len(r.stranded) - LISTED} more")
        return out


FRAGMENTATION_RESOURCES = (CPU, MEMORY, PODS)


def fragmentation_of(
    base: TrialBase, trial: TrialFunction = run_trial, progress: Optional[Progress] = None
) -> FragmentationAnswer:
    """Per resource: free capacity in total against the largest single request that still fits,
    and the stranded remainders — free on a node that has less of another resource than the
    smallest request of it among the placed pods (so no such pod fits there)."""
    runner = TrialRunner(base, trial, progress)
    baseline = runner.run(BASELINE_LABEL, TrialChanges())
    return fragmentation_answer(baseline.outcome, runner.count)


def fragmentation_answer(baseline: TrialOutcome, trials: int) -> FragmentationAnswer:
    """The answer read from the baseline trial's nodes (schedulable ones only)."""
    nodes = [node for node in baseline.nodes if not node.unschedulable]
    smallest = {r: _smallest_request(baseline.nodes, r) for r in FRAGMENTATION_RESOURCES}
    return FragmentationAnswer([_resource(r, nodes, smallest) for r in FRAGMENTATION_RESOURCES], trials)


def _smallest_request(nodes: list[NodeAtEnd], resource: str) -> int:
    if resource == PODS:
        return 1
    amounts = [requests.get(resource, 0) for node in nodes for requests in node.pod_requests]
    return min((a for a in amounts if a > 0), default=0)


def _resource(resource: str, nodes: list[NodeAtEnd], smallest: dict[str, int]) -> ResourceFragmentation:
    largest = max(nodes, key=lambda node: node.free(resource), default=None)
    stranded = []
    for node in nodes:
        free = node.free(resource)
        short = next(
            (
                other
                for other in FRAGMENTATION_RESOURCES
                if other != resource and smallest[other] and node.free(other) < smallest[other]
            ),
            None,
        )
        if free > 0 and short is not None:
            stranded.append(Stranded(node.name, free, short))
    return ResourceFragmentation(
        resource,
        sum(node.free(resource) for node in nodes),
        largest.free(resource) if largest else 0,
        largest.name if largest else "",
        smallest[resource],
        stranded,
    )


CapacityAnswer = Union[FitAnswer, NodesAnswer, RemovableAnswer, FragmentationAnswer]
