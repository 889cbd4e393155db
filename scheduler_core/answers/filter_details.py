"""The numbers behind a cycle's Filter reasons: for each rejected node, each rejecting plugin's facts
(``framework.filter_facts``) from the very state and NodeInfo the plugin judged.

The events do not carry them (a 5000-node cycle would store 5000 sets of numbers per plugin);
instead the run is replayed — the same engine, deterministic, so it reaches the same state — and
at the wanted cycle's Filter pass each rejected node is asked again, plugin by plugin, through the
plugin's ``filter_detail``. A node with nominated pods is asked as RunFilterPluginsWithNominatedPods
judged it: with those pods added when that pass rejected it. Each answer is checked against the
recorded verdict: a plugin's facts name only reasons its status gave, or the detail says that no
numbers could be given (never a guess).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import replace
from typing import Any, Optional

from scheduler_core.model import names
from scheduler_core.encoding.events import Event, ExtensionPoint
from scheduler_core.framework.preemption.candidates import PreemptionRanking
from scheduler_core.framework.filter_facts import CycleDetails, FilterDetails, NodeDetail, PluginDetail
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import Status, is_success
from scheduler_core.run.loop import ClusterRun
from scheduler_core.model import Pod, Scenario
from scheduler_core.run.outcomes import FilterPass
from scheduler_core.run.schedule_one import TIE_BREAK_FIRST, Cycle, Scheduler, fresh_copy
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.gcfreeze import frozen_after_first

MODE_SINGLE = "single"
MODE_TIMELINE = "timeline"


# ---------------------------------------------------------------------------- one Filter pass


def details_of_pass(cycle: Cycle, passed: FilterPass, per_plugin: Optional[int] = None) -> dict[str, NodeDetail]:
    """The facts behind every rejection of one Filter pass, asked while the cycle is at it.
    ``per_plugin``: only the first so many nodes each plugin rejected (evaluation order) are asked."""
    plugins = {plugin.name: plugin for plugin in cycle.fw.active_filter_plugins(cycle.state)}
    table = cycle.snapshot.table
    nominated_nodes = cycle.fw.nominator.nodes_with_nominated_pods()
    asked: dict[str, int] = {}
    out: dict[str, NodeDetail] = {}
    for i, position in enumerate(passed.evaluated.tolist()):
        failing = [
            (name, verdict.palette[int(verdict.choice[i])])
            for name, verdict in passed.verdicts
            if int(verdict.choice[i]) >= 0
        ]
        if not failing:
            continue
        if per_plugin is not None:
            if all(asked.get(name, 0) >= per_plugin for name, _ in failing):
                continue
            for name, _ in failing:
                asked[name] = asked.get(name, 0) + 1
        info = table.node_infos[position]
        state, judged, counted = _as_judged(cycle, info, info.name in nominated_nodes)
        details = tuple(
            _plugin_detail(plugins.get(name), name, status, state, cycle, judged) for name, status in failing
        )
        out[info.name] = NodeDetail({detail.plugin: detail for detail in details}, counted)
    return out


def _as_judged(cycle: Cycle, info: NodeInfo, has_nominated: bool) -> tuple[Any, NodeInfo, tuple[str, ...]]:
    """The state and node the verdict came from: with the nominated pods added when the first pass
    (RunFilterPluginsWithNominatedPods) rejected the node, else the node as it is."""
    if not has_nominated:
        return cycle.state, info, ()
    added, state, with_nominated = cycle.fw.add_nominated_pods(cycle.state, cycle.pod, info)
    if added is not True:
        return cycle.state, info, ()
    statuses = [
        plugin.filter(state, cycle.pod, with_nominated) for plugin in cycle.fw.active_filter_plugins(cycle.state)
    ]
    if all(is_success(status) for status in statuses):
        return cycle.state, info, ()
    before = {pod_info.pod.key for pod_info in info.pods}
    return state, with_nominated, tuple(p.pod.key for p in with_nominated.pods if p.pod.key not in before)


def _plugin_detail(plugin: Any, name: str, status: Status, state: Any, cycle: Cycle, info: NodeInfo) -> PluginDetail:
    reasons = tuple(status.reasons)
    describe = getattr(plugin, "filter_detail", None)
    facts = tuple(describe(state, cycle.pod, info)) if describe is not None else ()
    # Only facts for reasons the recorded status gave: anything else would explain another verdict.
    facts = tuple(fact for fact in facts if fact.reason in reasons)
    return PluginDetail(name, status.code.label, reasons, facts)


# ---------------------------------------------------------------------------- a replay


def collect_details(
    scenario: Scenario,
    *,
    mode: str = MODE_SINGLE,
    cycles: Optional[Collection[int]] = None,
    tie_break: str = TIE_BREAK_FIRST,
    seed: Optional[int] = None,
    per_plugin: Optional[int] = None,
) -> dict[int, CycleDetails]:
    """Replays the run (the single pass, or the run to the end) and returns, for each wanted cycle
    (every cycle when ``cycles`` is None), the facts behind its Filter rejections (of the first
    ``per_plugin`` nodes each plugin rejected, when given). The replay stops after the last wanted cycle."""
    scheduler, events = _replay(scenario, mode, tie_break, seed)
    wanted = None if cycles is None else set(cycles)
    found, current = _observed(scheduler, wanted, per_plugin)
    last = max(wanted) if wanted else None
    for event in events:
        if event.extension_point is ExtensionPoint.CYCLE_START:
            current["cycle"] = event.cycle
        if last is not None and event.extension_point is ExtensionPoint.CYCLE_END and event.cycle >= last:
            break
    return found


def cycles_with_details(
    scenario: Scenario,
    *,
    tie_break: str = TIE_BREAK_FIRST,
    seed: Optional[int] = None,
    per_plugin: Optional[int] = None,
) -> Iterator[tuple[list[Event], Optional[CycleDetails]]]:
    """The single pass's events a cycle at a time, each cycle's with the facts behind its Filter
    rejections, from one replay: what ``collect_details`` finds for every cycle, without holding every
    cycle's events and facts until the last (a 5,000-node dump's text trace grew past 8 GB that way)."""
    with collector_paused():  # the set-up builds the snapshot: nothing there for the collector (as simulate)
        scheduler, events = _replay(scenario, MODE_SINGLE, tie_break, seed)
    found, current = _observed(scheduler, None, per_plugin)
    held: list[Event] = []
    events = frozen_after_first(events)
    for event in events:
        if held and event.cycle != held[0].cycle:
            yield held, found.pop(held[0].cycle, None)  # the next cycle began: every observer of this one was told
            held = []
        if event.extension_point is ExtensionPoint.CYCLE_START:
            current["cycle"] = event.cycle
        held.append(event)
    if held:
        yield held, found.pop(held[0].cycle, None)


def _observed(
    scheduler: Scheduler, wanted: Optional[set[int]], per_plugin: Optional[int]
) -> tuple[dict[int, CycleDetails], dict[str, int]]:
    """The facts of each wanted cycle (every cycle when None), filled in as the scheduler runs, and
    the index of the cycle running (the caller sets it at each CycleStart) for the preemption ranking."""
    found: dict[int, CycleDetails] = {}

    def observe(cycle: Cycle, passed: FilterPass) -> None:
        if wanted is not None and cycle.index not in wanted:
            return
        known = found.get(cycle.index)
        nodes = {**(known.nodes if known else {}), **details_of_pass(cycle, passed, per_plugin)}
        facts = FilterDetails(cycle.index, cycle.pod.key, nodes)
        found[cycle.index] = CycleDetails(facts, known.preemption if known else None)

    current = {"cycle": -1}

    def ranked(pod: Pod, ranking: PreemptionRanking) -> None:
        index = current["cycle"]
        if wanted is not None and index not in wanted:
            return
        known = found.get(index)
        found[index] = (
            replace(known, preemption=ranking) if known else CycleDetails(FilterDetails(index, pod.key, {}), ranking)
        )

    scheduler.filter_observer = observe
    for framework in scheduler.frameworks.values():
        preemption = framework.plugin(names.DEFAULT_PREEMPTION)
        if preemption is not None:
            preemption.evaluator.ranking_observer = ranked
    scheduler.filter_observer = observe
    for framework in scheduler.frameworks.values():
        preemption = framework.plugin(names.DEFAULT_PREEMPTION)
        if preemption is not None:
            preemption.evaluator.ranking_observer = ranked
    return found, current


def cycle_details(
    scenario: Scenario,
    cycle: int,
    *,
    mode: str = MODE_SINGLE,
    tie_break: str = TIE_BREAK_FIRST,
    seed: Optional[int] = None,
    per_plugin: Optional[int] = None,
) -> Optional[CycleDetails]:
    """One cycle's facts (None when that cycle ran no Filter pass)."""
    return collect_details(
        scenario, mode=mode, cycles=(cycle,), tie_break=tie_break, seed=seed, per_plugin=per_plugin
    ).get(cycle)


def _replay(scenario: Scenario, mode: str, tie_break: str, seed: Optional[int]) -> tuple[Scheduler, Iterator[Event]]:
    if mode == MODE_TIMELINE:
        run = ClusterRun(scenario, tie_break=tie_break, seed=seed)
        return run.kube_scheduler.scheduler, run.run()
    if mode != MODE_SINGLE:
        raise ValueError(f"unknown mode {mode!r}: {MODE_SINGLE} or {MODE_TIMELINE}")
    scheduler = Scheduler(fresh_copy(scenario), tie_break, seed)
    return scheduler, scheduler.run()
