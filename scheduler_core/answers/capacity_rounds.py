"""Capacity searches as proposers of rounds of independent trials (issue 26, item 5).

``capacity.py``'s searches run one trial after another. Here the same searches are written as
generators that yield a ``Round`` — trials that do not depend on each other — and receive their
outcomes back (same order), so a caller may run a round's trials at once on several workers (the
web app's Celery fan-out) or one by one (``answer_in_rounds`` with ``run_trial``). The searches stay
pure: no I/O, no clock; a round depends only on the outcomes of the rounds before it, so a caller
may rebuild a search and replay stored outcomes to reach the round it is at.

``width`` is how many trials a round of a narrowing search may hold (the workers' slots):
- how many fit: doubling probes (the next ``width`` powers of two at once), then k-ary bisection
  (``width`` counts spread evenly between the last count that fitted and the first that did not);
- nodes needed: every template's search in the same rounds, each one as above;
- which nodes can go: every node drained alone in one round, then the greedy set (one trial a round:
  each depends on the last);
- fragmentation: the baseline alone.
With ``width`` 1 each search runs exactly the trials of its sequential twin in ``capacity.py`` and
returns an equal answer; with more, the answer's count is the same whenever fitting is monotone
(docs/CAPACITY.md), and the rounds are fewer. The nodes question has no sequential twin: the CLI's
``nodes_needed`` is ``nodes_search`` driven one trial a round, in this process (``in_order``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generator, Optional, Sequence, TypeVar

from scheduler_core.answers.capacity import (
    BASELINE_LABEL,
    REMOVAL_ORDER,
    CapacityAnswer,
    CapacityError,
    DrainVerdict,
    NodesAnswer,
    Progress,
    RemovableAnswer,
    TemplateAnswer,
    Trial,
    TrialBase,
    TrialChanges,
    TrialFunction,
    TrialOutcome,
    TrialRunner,
    added_nodes,
    added_nodes_label,
    check_templates,
    copies_maker,
    drain_changes,
    drain_ok,
    fit_answer,
    fragmentation_answer,
    free_pod_slots,
    removal_order,
    run_trial,
    still_pending,
    template_answer,
)


@dataclass(frozen=True)
class Proposal:
    """One trial a round asks for."""

    label: str
    changes: TrialChanges


@dataclass(frozen=True)
class Round:
    """Trials independent of each other, and the search's current guess of its total trial count."""

    proposals: tuple[Proposal, ...]
    estimate: int


Answer = TypeVar("Answer", bound=CapacityAnswer)
Search = Generator[Round, list[TrialOutcome], CapacityAnswer]
Outcomes = Generator[Round, list[TrialOutcome], list[Trial]]


class _Rounds:
    """Counts the trials a search proposed and turns a round's outcomes into ``Trial``s."""

    def __init__(self, base: TrialBase) -> None:
        self.base = base
        self.count = 0

    def ask(self, proposals: Sequence[Proposal], estimate: int) -> Outcomes:
        self.count += len(proposals)
        outcomes = yield Round(tuple(proposals), max(estimate, self.count))
        if len(outcomes) != len(proposals):
            raise ValueError(f"a round of {len(proposals)} trial(s) got {len(outcomes)} outcome(s)")
        return [Trial(p.label, p.changes, outcome, self.base) for p, outcome in zip(proposals, outcomes)]


def _spread(lo: int, hi: int, width: int) -> list[int]:
    """Up to ``width`` counts strictly between lo and hi, evenly spaced; width 1 is the midpoint."""
    return sorted({lo + (hi - lo) * i // (width + 1) for i in range(1, width + 1)} - {lo, hi})


def _log2(n: int) -> int:
    return max(1, n).bit_length()


# ---------------------------------------------------------------------- 1. how many more fit


def fit_search(
    base: TrialBase,
    workload: Optional[str] = None,
    pod: Optional[str] = None,
    max_count: Optional[int] = None,
    width: int = 1,
) -> Search:
    """``capacity.how_many_fit`` in rounds: the probe sequence 1, 2, 4, … (then the bound) taken
    ``width`` at a time; the first count that does not fit closes the bracket, as one at a time."""
    rounds = _Rounds(base)
    make, target = copies_maker(base.scenario, workload, pod)
    (baseline,) = yield from rounds.ask([Proposal(BASELINE_LABEL, TrialChanges())], 2)
    bound = free_pod_slots(base.scenario, baseline.outcome) if max_count is None else max_count
    trials: dict[int, Trial] = {0: baseline}
    tried: dict[int, bool] = {}

    def fits(count: int) -> bool:
        created = trials[count].outcome.step(1).created if count else []
        tried[count] = not trials[count].outcome.pending(created) and len(created) >= count
        return tried[count]

    def run(counts: list[int], estimate: int) -> Outcomes:
        done = yield from rounds.ask([Proposal(f"{n} more", make(n)) for n in counts], estimate)
        trials.update(zip(counts, done))
        return done

    probes = [1 << k for k in range(_log2(bound)) if 1 << k <= bound]
    if probes and probes[-1] < bound:
        probes.append(bound)
    lo, hi = 0, None
    while probes and hi is None:
        batch, probes = probes[:width], probes[width:]
        yield from run(batch, rounds.count + len(batch) + len(probes) + 1 + _log2(bound))
        for count in batch:
            if not fits(count):
                hi = count
                break
            lo = count
        for count in batch:  # probes past the first failure are not part of the sequential search
            if hi is not None and count > hi:
                tried.pop(count, None)
                trials.pop(count, None)
    if hi is None:  # every count up to the bound fits: one more shows what stops the next copy
        hi = lo + 1
        yield from run([hi], rounds.count + 1)
        if fits(hi):
            return fit_answer(target, hi, False, bound, trials, tried, rounds.count, None)
    while hi - lo > 1:
        counts = _spread(lo, hi, width)
        yield from run(counts, rounds.count + len(counts) * max(1, _log2(hi - lo) // _log2(width + 1)))
        for count in counts:
            if fits(count):
                lo = count
            else:
                hi = count
                break
        for passed in [n for n in trials if n not in (0, lo, hi)]:  # only the baseline and the bracket are read later
            del trials[passed]
    return fit_answer(target, lo, True, bound, trials, tried, rounds.count, trials[hi])


# ---------------------------------------------------------------------- 2. how many nodes are needed


def nodes_needed(
    base: TrialBase,
    likes: Sequence[str],
    max_count: Optional[int] = None,
    trial: TrialFunction = run_trial,
    progress: Optional[Progress] = None,
) -> NodesAnswer:
    """The CLI's nodes question: ``nodes_search`` one trial a round (width 1), each round's trials
    run here one after another by ``trial`` and told to ``progress`` as each starts (``in_order``).
    The app runs the same search in wider rounds on its workers."""
    return answer_in_rounds(nodes_search(base, likes, max_count, 1), base, in_order(base, trial, progress))


def nodes_search(
    base: TrialBase, likes: Sequence[str], max_count: Optional[int] = None, width: int = 1
) -> Generator[Round, list[TrialOutcome], NodesAnswer]:
    """For each template node: the fewest copies that leave no pending pod pending that any number
    of copies could place. One node per pending pod is the most tried: with that many, each pod met
    a node no other pending pod had taken (docs/CAPACITY.md). The baseline first; then every
    template's search advances in the same rounds, each one doubling then bisecting (``width``
    counts a round)."""
    check_templates(base.scenario, likes)
    rounds = _Rounds(base)
    (baseline,) = yield from rounds.ask([Proposal(BASELINE_LABEL, TrialChanges())], 1 + 5 * len(likes))
    pending = sorted(still_pending(baseline))
    if not pending:
        return NodesAnswer(pending, [], rounds.count)
    searches = [_template_search(baseline, like, pending, max_count, width) for like in likes]
    answers: list[Optional[TemplateAnswer]] = [None] * len(searches)
    asked: list[Optional[Round]] = [_first(search, answers, i) for i, search in enumerate(searches)]
    while any(r is not None for r in asked):
        live = [(i, r) for i, r in enumerate(asked) if r is not None]
        proposals = [p for _, r in live for p in r.proposals]
        estimate = rounds.count + sum(r.estimate for _, r in live)
        done = yield from rounds.ask(proposals, estimate)
        at = 0
        for i, r in live:
            outcomes = [t.outcome for t in done[at : at + len(r.proposals)]]
            at += len(r.proposals)
            asked[i] = _next(searches[i], outcomes, answers, i)
    return NodesAnswer(pending, [a for a in answers if a is not None], rounds.count)


TemplateSearch = Generator[Round, list[TrialOutcome], TemplateAnswer]


def _first(search: TemplateSearch, answers: list[Optional[TemplateAnswer]], index: int) -> Optional[Round]:
    try:
        return next(search)
    except StopIteration as stop:
        answers[index] = stop.value
        return None


def _next(
    search: TemplateSearch, outcomes: list[TrialOutcome], answers: list[Optional[TemplateAnswer]], index: int
) -> Optional[Round]:
    try:
        return search.send(outcomes)
    except StopIteration as stop:
        answers[index] = stop.value
        return None


def _template_search(
    baseline: Trial, like: str, pending: list[str], max_count: Optional[int], width: int
) -> TemplateSearch:
    """One template's search; its rounds' estimates are the trials it still expects, the caller adds
    them up. Width 1: doubling 1, 2, 4, … below the most tried, then bisection, one count a round."""
    rounds = _Rounds(baseline.base)
    trials: dict[int, Trial] = {0: baseline}

    def proposal(count: int) -> Proposal:
        return Proposal(added_nodes_label(like, count), added_nodes(like, count))

    def run(counts: list[int], estimate: int) -> Outcomes:
        counts = [n for n in counts if n not in trials]
        if counts:
            trials.update(zip(counts, (yield from rounds.ask([proposal(n) for n in counts], estimate))))
        return []

    def left(count: int) -> list[str]:
        return still_pending(trials[count])

    most = len(pending) if max_count is None else max(1, max_count)
    yield from run([most], 1 + _log2(most))
    never = left(most)
    lo, hi = 0, most
    if len(left(0)) == len(never):
        hi = 0
    probes = [1 << k for k in range(_log2(most)) if 1 << k < most] if hi > 0 else []
    extra: set[int] = set()  # probes run past the one that decided their round: not the sequential search's

    def decide(counts: list[int], below: int) -> tuple[int, Optional[int]]:
        """(the last count still leaving more pending, the first leaving only ``never``)"""
        for position, count in enumerate(counts):
            if len(left(count)) == len(never):
                extra.update(counts[position + 1 :])
                return below, count
            below = count
        return below, None

    while probes:
        batch, probes = probes[:width], probes[width:]
        yield from run(batch, len(batch) + len(probes) + _log2(most))
        lo, found = decide(batch, lo)
        if found is not None:
            hi, probes = found, []
    while hi - lo > 1:
        counts = _spread(lo, hi, width)
        yield from run(counts, len(counts) * max(1, _log2(hi - lo) // _log2(width + 1)))
        lo, found = decide(counts, lo)
        hi = found if found is not None else hi
    kept = {n: t for n, t in trials.items() if n not in extra}
    return template_answer(like, kept, lo, hi, most, pending, never)


# ---------------------------------------------------------------------- 3. which nodes can go


def removable_search(
    base: TrialBase, max_count: Optional[int] = None, nodes: Optional[Sequence[str]] = None, width: int = 1
) -> Search:
    """``capacity.removable_nodes`` in rounds: every node's drain at once, then the greedy set one
    node a round. ``nodes`` (optional) asks about those nodes only ("can this node go?")."""
    del width  # the drains are one round whatever the width; the greedy set is sequential by nature
    rounds = _Rounds(base)
    known = {node.name for node in base.scenario.nodes}
    for name in nodes or ():
        if name not in known:
            raise CapacityError(f"no node {name} in the scenario")
    (baseline,) = yield from rounds.ask([Proposal(BASELINE_LABEL, TrialChanges())], 1 + 2 * len(known))
    order = removal_order(baseline.outcome)
    if nodes:
        order = [node for node in order if node.name in set(nodes)]
    if max_count is not None:
        order = order[:max_count]
    done = yield from rounds.ask(
        [Proposal(f"drain {node.name}", drain_changes([node.name])) for node in order], 1 + 2 * len(order)
    )
    drains = {node.name: trial for node, trial in zip(order, done)}
    verdicts = [DrainVerdict(node.name, *drain_ok(base.scenario, baseline, drains[node.name])) for node in order]
    removable = [v.node for v in verdicts if v.removable]
    together: list[str] = removable[:1]
    together_trial: Optional[Trial] = drains[removable[0]] if removable else None
    for position, node in enumerate(removable[1:], start=1):
        chosen = together + [node]
        (attempt,) = yield from rounds.ask(
            [Proposal(f"drain {', '.join(chosen)}", drain_changes(chosen))], rounds.count + len(removable) - position
        )
        if drain_ok(base.scenario, baseline, attempt)[0]:
            together, together_trial = chosen, attempt
    return RemovableAnswer(REMOVAL_ORDER, verdicts, together, rounds.count, together_trial, drains)


# ---------------------------------------------------------------------- 4. fragmentation


def fragmentation_search(base: TrialBase) -> Search:
    """``capacity.fragmentation_of`` in rounds: the baseline is its one trial."""
    rounds = _Rounds(base)
    (baseline,) = yield from rounds.ask([Proposal(BASELINE_LABEL, TrialChanges())], 1)
    return fragmentation_answer(baseline.outcome, rounds.count)


# ---------------------------------------------------------------------- questions and the local driver


@dataclass(frozen=True)
class Question:
    """A capacity question as the app stores it: its kind and parameters."""

    kind: str  # fit | nodes | removable | fragmentation
    workload: Optional[str] = None
    pod: Optional[str] = None
    likes: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()
    max_count: Optional[int] = None


KINDS = ("fit", "nodes", "removable", "fragmentation")


def search_for(base: TrialBase, question: Question, width: int = 1) -> Search:
    """The proposer that answers ``question``; raises CapacityError when it cannot be asked."""
    width = max(1, width)
    if question.kind == "fit":
        if question.workload is None and question.pod is None:
            raise CapacityError("name a workload (NS/NAME) or a pod (NS/NAME)")
        copies_maker(base.scenario, question.workload, question.pod)  # refuses a missing target before any trial
        return fit_search(base, question.workload, question.pod, question.max_count, width)
    if question.kind == "nodes":
        if not question.likes:
            raise CapacityError("name at least one node to add copies of")
        return nodes_search(base, question.likes, question.max_count, width)
    if question.kind == "removable":
        return removable_search(base, question.max_count, question.nodes or None, width)
    if question.kind == "fragmentation":
        return fragmentation_search(base)
    raise CapacityError(f"no capacity question {question.kind!r}; ask one of {', '.join(KINDS)}")


RoundRunner = Callable[[TrialBase, tuple[Proposal, ...]], list[TrialOutcome]]


def one_by_one(base: TrialBase, proposals: tuple[Proposal, ...]) -> list[TrialOutcome]:
    return [run_trial(base, proposal.changes) for proposal in proposals]


def in_order(base: TrialBase, trial: TrialFunction = run_trial, progress: Optional[Progress] = None) -> RoundRunner:
    """The CLI's way to run rounds: each round's trials one after another in this process by
    ``trial``, numbered from 1 across the rounds and told to ``progress`` as each starts
    (``capacity.TrialRunner``, as the CLI's other searches run theirs)."""
    runner = TrialRunner(base, trial, progress)

    def run_round(_: TrialBase, proposals: tuple[Proposal, ...]) -> list[TrialOutcome]:
        return [runner.run(proposal.label, proposal.changes).outcome for proposal in proposals]

    return run_round


def answer_in_rounds(
    search: Generator[Round, list[TrialOutcome], Answer], base: TrialBase, run_round: RoundRunner = one_by_one
) -> Answer:
    """Drive a search to its answer, each round run by ``run_round`` (in this process by default)."""
    try:
        asked = next(search)
        while True:
            asked = search.send(run_round(base, asked.proposals))
    except StopIteration as stop:
        answer: Answer = stop.value  # what the search returned (StopIteration.value is untyped)
        return answer


def replay(
    search: Search, outcomes: Sequence[Sequence[TrialOutcome]]
) -> tuple[Optional[Round], Optional[CapacityAnswer]]:
    """Feed the stored outcomes of the rounds run so far: the round to run next, or the answer."""
    try:
        asked = next(search)
        for done in outcomes:
            asked = search.send(list(done))
        return asked, None
    except StopIteration as stop:
        return None, stop.value
