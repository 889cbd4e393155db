"""One pod's attempt (pkg/scheduler/schedule_one.go): ScheduleOne, its scheduling and binding cycles
and handleSchedulingFailure.

``Cycle`` is schedulingCycle + bindingCycle: PreFilter, Filter (findNodesThatFitPod: every plugin
on every candidate node, from the rotating start index, until ``numFeasibleNodesToFind`` nodes
fit), PostFilter when nothing fits, then PreScore, Score, NormalizeScore (prioritizeNodes), host
selection (selectHost) and the binding cycle; a bound pod joins the snapshot and counts as running
for every later cycle. Everything it learns goes out as ``Event``s. ``Scheduler`` is what the
cycles read off upstream's Scheduler (the profiles' frameworks over one snapshot, the start index);
``simulate`` runs one cycle per pending pod, in queue order (the single pass). ``ScheduleOne`` is
the run to the end's attempt around a cycle: the pod popped, its cycle, then the binding cycle's
writes or handleSchedulingFailure (the process it runs in is scheduler_core.run.kube_scheduler).
"""

from __future__ import annotations

import copy
import dataclasses
from abc import abstractmethod
import functools
import random
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterator, Optional, Sequence

import numpy as np

from scheduler_core.model import names

from scheduler_core.cluster import informers
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import Cluster
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint
from scheduler_core.framework.cluster_events import ClusterChange
from scheduler_core.backend.queue import MODE_OVERRIDE, LogicalClock, QueuedPodInfo, QueueName, SchedulingQueue
from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE, NominatingInfo, Nominator
from scheduler_core.framework.batch import PASS, FilterVerdicts, Palette
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.diagnosis import NO_NODES_AVAILABLE, fit_error_message, status_groups
from scheduler_core.util.gcfreeze import frozen_after_first
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.framework.interfaces import FilterPlugin, NodeToStatus, StatusesByPosition
from scheduler_core.framework.kept_verdicts import BoundVerdicts, filter_inputs
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.node_table import NodeList, NodePositions, NodeTable
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.profile import build_profile
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.runtime import Framework, NominatedVerdict, PreFilterOutcome, filter_failure_status
from scheduler_core.framework.signers import Signature
from scheduler_core.framework.status import Code, MaybeStatus, Status, is_failure, is_success
from scheduler_core.model import DEFAULT_SCHEDULER_NAME, Pod, PodScheduledCondition, Scenario
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.cluster.resourceclaim_controller import ResourceClaimController
from scheduler_core.plugins.node_resources.numeric import (
    Checked,
    fit_unresolvable,
    fit_verdicts_with_sums,
    numeric_fit_applies,
)
from scheduler_core.run.outcomes import (
    BindingFailed,
    BindingStepDone,
    Bound,
    CycleEnding,
    CycleStarted,
    CycleStep,
    FilterDone,
    FilterPass,
    FitError,
    HostSelected,
    PostFilterDone,
    PreemptionOutcome,
    PreFilterDone,
    PreScoreDone,
    SchedulingError,
    ScoreDone,
    ScoringFailed,
)
from scheduler_core.run.eventhandlers import EventHandlers, snapshot_of
from scheduler_core.run.epoch import run_epoch
from scheduler_core.run.recorder import Reads, RunRecorder, reads_queues, record_cycle

# The PreBind plugins whose PreBindPreFlight answers AllowParallel in v1.36 (VolumeBinding's and
# DynamicResources'): run side by side when both have work.
PARALLEL_PRE_BIND = frozenset({names.VOLUME_BINDING, names.DYNAMIC_RESOURCES})

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BASE_PERCENTAGE_OF_NODES_TO_SCORE = 50

TIE_BREAK_FIRST = "first"
TIE_BREAK_RANDOM = "random"


def num_feasible_nodes_to_find(percentage: Optional[int], num_all_nodes: int) -> int:
    """How many feasible nodes Filter looks for before it stops (seed 002).

    Under 100 nodes, or at 100 %, every node. Percentage 0 is adaptive: 50 % minus 1 % per 125
    nodes, never under 5 %; and never fewer than 100 nodes.
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = percentage or 0
    if percentage >= 100:
        return num_all_nodes
    if percentage == 0:
        percentage = max(
            BASE_PERCENTAGE_OF_NODES_TO_SCORE - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
        )
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class FrameworkHandle:
    """What plugins get at construction: the live snapshot, the framework's options, and the
    framework once it exists."""

    def __init__(self, snapshot: Optional[Snapshot], options: FrameworkOptions = FrameworkOptions()) -> None:
        self.snapshot = snapshot
        self.options = options
        self.framework: Optional[Framework] = None


class Scheduler:
    """The frameworks of the scenario's profiles over one snapshot (scheduler.New + profile.NewMap).

    ``options`` is what every framework is built with; a run to the end passes its queue's
    nominator, its clock, OpportunisticBatching and the API its goroutines write through. Without
    them (a single pass) the nominator is the scheduler's own, holding the nominations the pods
    carry (status.nominatedNodeName reserves room on its node), and preemption is a dry run."""

    def __init__(
        self,
        scenario: Scenario,
        tie_break: str = TIE_BREAK_FIRST,
        seed: Optional[int] = None,
        vectorized: bool = True,
        registry: Optional[Registry] = None,
        options: Optional[FrameworkOptions] = None,
        hand_over_only: bool = False,
        api: Optional[Cluster] = None,
    ) -> None:
        self.snapshot = Snapshot.from_scenario(scenario)
        # The API server the scheduler's storage and device caches are informers of (the run's
        # cluster; a single pass's own, holding the scenario's nodes and storage and device
        # objects: it binds in its snapshot, so its pods stay out of an API server's keeping).
        self.api = (
            api
            if api is not None
            else Cluster([], scenario.nodes, run_epoch(scenario), storage=scenario.storage, dra=scenario.dra)
        )
        informers.start(self.api, self.snapshot)
        # ``hand_over_only``: the events go only to event_pipe's hand-over (the engine's process).
        self.snapshot.node_lists_as_positions = hand_over_only
        self.rules = scenario.rules
        features = self.rules.features
        # What the cycle does differently by release (release/code.py), read once.
        expectation = self.rules.gates.enabled("NominatedNodeNameForExpectation")
        # newFailureNominatingInfo: v1.34 with NominatedNodeNameForExpectation leaves the nomination.
        self.failure_nominating: Optional[NominatingInfo] = (
            None if features.failure_nomination_follows_expectation and expectation else CLEAR_NOMINATED_NODE
        )
        self.no_post_filter_nominating = self.failure_nominating if features.no_post_filter_clears_nomination else None
        self.pre_bind_rejection_is_fit_error = not features.pre_bind_after_done
        # PreBindPreFlight (with NominatedNodeNameForExpectation) groups the plugins that allow it.
        self.parallel_pre_bind = PARALLEL_PRE_BIND if features.parallel_pre_bind and expectation else frozenset()
        # With NominatedNodeNameForExpectation the binding cycle nominates the pod to its node before
        # a PreBind that has work to do (modelled where that PreBind blocks: docs/DRA.md).
        self.nominates_before_pre_bind = expectation
        registry = registry if registry is not None else in_tree_registry(features)
        single_pass = options is None
        # A single pass shows each pod's first cycle: a binding that waits in PreBind is still
        # waiting when the pass ends (the pod counts on its node), so the cycle's answer is the node.
        self.single_pass = single_pass
        if options is None:
            nominator = Nominator(lambda pod: bool(pod.node_name))
            for pod in scenario.pending_pods:
                nominator.add_nominated_pod(pod, None)
            options = FrameworkOptions(nominator=nominator)
        if options.object_writes is None:  # the plugins write through the API server
            options = dataclasses.replace(options, object_writes=ObjectWrites(self.api))
        api_now = self.api
        options = dataclasses.replace(options, now=lambda: api_now.now)  # time.Now(): the run's wall clock
        self.options = options
        self.nominator = options.nominator
        # One framework per profile, keyed by its schedulerName (profile.NewMap); every profile
        # sorts the queue the same way (validated), so the first one's QueueSort orders it.
        self.frameworks: dict[str, Framework] = {}
        for config in scenario.profile_configs:
            handle = FrameworkHandle(self.snapshot, options)
            profile = build_profile(config, handle, registry, features)
            handle.framework = Framework(profile, self.snapshot, vectorized, options)
            self.frameworks[config.scheduler_name if config else DEFAULT_SCHEDULER_NAME] = handle.framework
        self.framework = next(iter(self.frameworks.values()))
        _ = self.snapshot.table  # built now, not in the first timed cycle
        pending = scenario.pending_pods
        if single_pass:  # the run to the end creates claims and runs PreEnqueue in its queue
            pending = self._past_pre_enqueue(scenario, pending)
        self.queue = self._sorted_queue(pending)
        self.tie_break = tie_break
        self.rng = random.Random(seed)
        self.next_start_node_index = 0
        # Explanations only (scheduler_core.answers.filter_details): sees each Filter pass while the
        # snapshot and the cycle state are as the plugins judged them. Never set in a run.
        self.filter_observer: Optional[Callable[["Cycle", FilterPass], None]] = None

    def _past_pre_enqueue(self, scenario: Scenario, pending: list[Pod]) -> list[Pod]:
        """The single pass: the stand-in resourceclaim controller makes every pod's claims from
        templates first (../shared/spec/TIMELINE.md), then a pod that a PreEnqueue plugin holds (its
        claims missing) gets no cycle, as in the real queue (the loader's notice names it)."""
        controller = ResourceClaimController(self.api)
        for pod in scenario.pods:
            if not pod.is_finished:
                controller.create_claims(pod)
        self.snapshot.cluster_changes.clear()
        return [
            pod
            for pod in pending
            if all(is_success(plugin.pre_enqueue(pod)) for plugin in self.framework_for(pod).profile["preEnqueue"])
        ]

    @property
    def queue(self) -> list[Pod]:
        return self._queue

    @queue.setter
    def queue(self, pods: list[Pod]) -> None:
        """Setting the queue (bench's --limit truncates it) recomputes the keys events carry."""
        self._queue = pods
        self.queue_keys = [pod.key for pod in pods]

    def _sorted_queue(self, pending: list[Pod]) -> list[Pod]:
        sorter = self.framework.profile["queueSort"][0]
        return sorted(
            pending, key=functools.cmp_to_key(lambda a, b: -1 if sorter.less(a, b) else (1 if sorter.less(b, a) else 0))
        )

    def framework_for(self, pod: Pod) -> Framework:
        """The profile named by the pod's schedulerName (the queue holds only such pods)."""
        return self.frameworks[pod.scheduler_name]

    def run(self, reads: Reads = None) -> Iterator[Event]:
        """The single pass's cycles in queue order. A reader of ``reads`` alone (the trace's summary:
        no QueueSort) gets each cycle's CycleStart naming its pod only: the pass copies no queue
        tail per cycle (O(pending) each, quadratic over the pass)."""
        whole_queue = reads_queues(reads)
        for cycle, pod in enumerate(self.queue):
            view = None if whole_queue else [pod.key]
            yield from record_cycle(Cycle(self, cycle, pod, queue_view=view), reads)


class Cycle:
    """One scheduling cycle of one pod (schedulingCycle + bindingCycle). ``steps`` yields a typed
    record after each algorithm step and returns how the cycle ended; ``run`` is the same cycle
    recorded as events (scheduler_core.run.recorder), and leaves the ending in ``outcome``."""

    def __init__(
        self,
        scheduler: Scheduler,
        index: int,
        pod: Pod,
        queue_view: Optional[list[str]] = None,
        nominated_node: Optional[str] = None,
        queues: Optional[dict[str, list[str]]] = None,
        cycle_count: int = 0,
        queued_signature: Optional[tuple[Optional[Signature]]] = None,
    ) -> None:
        self.scheduler = scheduler
        self.fw = scheduler.framework_for(pod)
        self.snapshot = scheduler.snapshot
        self.index = index
        self.pod = pod
        self.state = CycleState()
        self.queue_view = queue_view if queue_view is not None else scheduler.queue_keys[index:]
        self.queues = queues  # the run to the end's three queues as the attempt starts
        # status.nominatedNodeName as the queue's copy of the pod has it (the run passes it: that
        # copy can be older than the pod itself); a single pass reads the pod's own.
        self.nominated_node = pod.nominated_node_name if nominated_node is None else nominated_node
        self.outcome: Optional[CycleEnding] = None  # set once the cycle has ended
        self.cycle_count = cycle_count  # the queue's scheduling cycle (pops so far), for OpportunisticBatching
        # v1.36: the signature the queue gave the pod (one element: it may be None); else signed here.
        self.queued_signature = queued_signature
        # Diagnosis.NodeToStatus entries found before the main Filter pass (the nominated node's).
        self._early_statuses: dict[str, Status] = {}
        # Diagnosis.UnschedulablePlugins as the cycle finds them.
        self._unschedulable_plugins: set[str] = set()
        # filter_inputs, once asked (the kept pass and the kept nominated verdicts both key on it).
        self._inputs: Optional[tuple[Any, ...]] | _Unasked = _UNASKED
        self._kept_pass: Optional[_KeptPass] = None  # the Filter pass as kept across attempts

    def run(self) -> Iterator[Event]:
        return record_cycle(self)

    def steps(self) -> Generator[CycleStep, None, CycleEnding]:
        self.outcome = yield from self._schedule()
        return self.outcome

    def _schedule(self) -> Generator[CycleStep, None, CycleEnding]:
        yield CycleStarted(self.queue_view, self.queues, len(self.scheduler.queue))
        nodes = self.snapshot.node_infos
        if not nodes:  # schedulePod returns ErrNoNodesAvailable before PreFilter; no PostFilter runs
            return FitError(NO_NODES_AVAILABLE, frozenset(), self.scheduler.failure_nominating)
        pre = self.fw.run_pre_filter(self.state, self.pod, nodes)
        self._unschedulable_plugins.update(pre.unschedulable_plugins)
        yield PreFilterDone(pre)
        if is_failure(pre.status):
            return (yield from self._unschedulable_after_pre_filter(pre.status))
        signature, hint = self._node_hint()
        nominated = yield from self._evaluate_nominated_node(hint)
        if nominated is not None:  # the nominated (or hinted) node fits: no other node is looked at
            return (yield from self._score_and_bind(nominated, signature, hint))
        absent = self._absent_status(pre)
        passed = self._kept_or_new_pass(nodes, pre)
        self._observe(passed)
        feasible = self.snapshot.table.node_list(passed.feasible)
        yield FilterDone(passed, feasible)
        if not len(passed.feasible):
            return (yield from self._unschedulable_after_filter(passed, absent))
        return (yield from self._score_and_bind(feasible, signature, hint))

    @staticmethod
    def _absent_status(pre: PreFilterOutcome) -> Status:
        if pre.result.all_nodes:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        plugins = " ".join(sorted(pre.narrowing_plugins))
        return Status.unresolvable(f"node(s) didn't satisfy plugin(s) [{plugins}]")

    # ------------------------------------------------------------------ Filter

    def _node_hint(self) -> tuple[Optional[Signature], Optional[str]]:
        """GetNodeHint (OpportunisticBatching, when the run has it on): the pod's signature and,
        when the last cycle's sorted nodes apply to this pod, the next of them to try alone."""
        batch = self.fw.batch
        if batch is None:
            return None, None
        if self.queued_signature is not None:
            signature = self.queued_signature[0]
        else:
            signed = self.fw.sign_pod(self.pod)
            signature = signed if isinstance(signed, tuple) else None
        hint = batch.node_hint(
            signature, self.cycle_count, self.fw.clock_ms(), lambda node: self.fw.rejects_on(self.state, self.pod, node)
        )
        return signature, hint

    def _evaluate_nominated_node(self, hint: Optional[str] = None) -> Generator[CycleStep, None, Optional[NodeList]]:
        """evaluateNominatedNode: a pod nominated by an earlier preemption tries that node alone
        first; if it passes every filter it is chosen without looking at other nodes. Its status
        stays in the Diagnosis when it fails (the full pass below evaluates it again). A pod with
        no nomination does the same with OpportunisticBatching's hint."""
        name = self.nominated_node or hint
        if not name or self.snapshot.get(name) is None:
            return None
        table = self.snapshot.table
        position = np.asarray([table.index[name]], dtype=np.int64)
        verdicts = [
            (p.name, self.fw.filter_verdicts(p, self.state, self.pod, position))
            for p in self.fw.active_filter_plugins(self.state)
        ]
        verdicts = self._with_nominated_pods(position, verdicts)
        first = self._first_failure_at(0, verdicts)
        feasible = position if first is None else position[:0]
        passed = FilterPass(position, verdicts, feasible, 0, 1)
        self._observe(passed)
        names = table.node_list(feasible)
        yield FilterDone(passed, names, nominated_only=True, batch_hint=not self.nominated_node)
        if first is not None:
            self._early_statuses[name] = first
            if self._unschedulable_plugins and first.is_rejected:
                # Diagnosis is passed by value: only an already existing plugin set sees this one.
                self._unschedulable_plugins.add(first.plugin)
            return None
        return names

    def _first_failure_at(self, i: int, verdicts: list[tuple[str, FilterVerdicts]]) -> Optional[Status]:
        for plugin, verdict in verdicts:
            choice = int(verdict.choice[i])
            if choice >= 0:
                return filter_failure_status(plugin, verdict.palette[choice])
        return None

    def _with_nominated_pods(
        self,
        positions: np.ndarray,
        verdicts: list[tuple[str, FilterVerdicts]],
        num_to_find: Optional[int] = None,
        slots_in_positions: Optional[Callable[[np.ndarray], np.ndarray]] = None,
    ) -> list[tuple[str, FilterVerdicts]]:
        """RunFilterPluginsWithNominatedPods' first pass: on a node where nominated pods of equal
        or higher priority wait, the pod is filtered with them added; where that fails, the node
        takes that pass's verdicts (every plugin, for the picture). Elsewhere, and where it
        passes, the verdicts are those without them (the second pass). With ``num_to_find`` (the
        walk stops after that many feasible nodes) the numeric pass may leave out the nodes the
        walk cannot reach. ``slots_in_positions``: where table positions stand in ``positions``
        (-1: absent), when the caller knows it without a search (``_slots_of``)."""
        table = self.snapshot.table
        infos = table.node_infos
        nominated_nodes = self._nominated_nodes()
        if not nominated_nodes:
            return verdicts  # no node has a nominated pod: the first pass is the second
        checked = numeric_fit_applies(self.fw, self.state)
        if checked is not None:
            return self._nominated_pass_on_numbers(positions, verdicts, checked, num_to_find, slots_in_positions)
        # Only the slots of nodes with nominated pods, in the order ``positions`` lists them.
        nominated_positions = [table.index[name] for name in nominated_nodes if name in table.index]
        slots = np.flatnonzero(np.isin(positions, np.asarray(nominated_positions, dtype=np.int64))).tolist()
        replaced: list[tuple[int, list[MaybeStatus]]] = []
        kept = self._kept_nominated_verdicts() if slots else None
        for i in slots:
            statuses = self._nominated_pass(infos[int(positions[i])], kept)
            if statuses is not None and not all(is_success(status) for status in statuses):
                replaced.append((i, statuses))
        return _with_verdicts(verdicts, replaced)

    def _filter_inputs(self) -> Optional[tuple[Any, ...]]:
        """What every node's verdict of this attempt depends on besides the node and the pods added
        there (framework/kept_verdicts.py), asked once after PreFilter; None when not comparable."""
        if isinstance(self._inputs, _Unasked):
            self._inputs = filter_inputs(self.fw, self.state, self.pod) if self.fw.vectorized else None
        return self._inputs

    def _kept_nominated_verdicts(self) -> Optional[BoundVerdicts[NominatedVerdict]]:
        """The nominated pass's verdicts an earlier attempt with the same inputs reached
        (framework/kept_verdicts.py), None when they cannot be kept."""
        inputs = self._filter_inputs()
        if inputs is None:
            return None
        return self.fw.nominated_verdicts.bound(inputs, lambda node: self.fw.nominated_pods_to_add(self.pod, node))

    def _nominated_pass_on_numbers(
        self,
        positions: np.ndarray,
        verdicts: list[tuple[str, FilterVerdicts]],
        checked: Checked,
        num_to_find: Optional[int],
        slots_in_positions: Optional[Callable[[np.ndarray], np.ndarray]] = None,
    ) -> list[tuple[str, FilterVerdicts]]:
        """The nominated pass when only NodeResourcesFit reads the node's pods
        (plugins/node_resources/numeric.py): the other plugins' answers are those already given,
        Fit's is judged with the nominated pods' requests added, on all those nodes at once.
        Every attempt runs it while pods wait nominated, so the nodes are found from the
        nominator's side (a few: those with pods to add for this pod) rather than by walking
        ``positions`` (thousands), and only the nodes the walk can reach are judged (``_reach``)."""
        table = self.snapshot.table
        adding = self.fw.nominated_additions(self.pod, table.index)
        if not adding:
            return verdicts  # no pod to add anywhere: the first pass is the second
        wanted = self.fw.nominated_addition_positions(self.pod, table.index)
        slots = (
            slots_in_positions(wanted) if slots_in_positions is not None else _slots_of(positions, wanted, table.size)
        )
        reach = (
            len(positions) if num_to_find is None else _reach(verdicts, len(positions), slots[slots >= 0], num_to_find)
        )
        found = np.flatnonzero((slots >= 0) & (slots < reach))  # entries of ``adding`` the walk reaches
        if not len(found):
            return verdicts
        found = found[np.argsort(slots[found])]  # in the order ``positions`` lists them
        kept = slots[found]
        resources = tuple(name for name, _ in checked)
        totals, counts = self.fw.nominated_addition_requests(self.pod, table.index, resources)
        unresolvable = fit_unresolvable(self.fw)
        fit = fit_verdicts_with_sums(checked, table, positions[kept], totals[found], counts[found], unresolvable)
        return _with_nominated_fit(verdicts, kept, fit)

    def _nominated_pass(
        self, node_info: NodeInfo, kept: Optional[BoundVerdicts[NominatedVerdict]] = None
    ) -> Optional[list[MaybeStatus]]:
        """Each active Filter plugin's answer on the node with its nominated pods added (None: none
        to add); ``kept``: the answers of an earlier attempt with the same inputs."""
        found = kept.get(node_info) if kept is not None else None
        if found is not None:
            return found[0]
        statuses = self._nominated_statuses(node_info)
        if kept is not None:
            kept.put(node_info, (statuses,))
        return statuses

    def _nominated_statuses(self, node_info: NodeInfo) -> Optional[list[MaybeStatus]]:
        added, state, info = self.fw.add_nominated_pods(self.state, self.pod, node_info)
        if added is False:
            return None
        plugins = self.fw.active_filter_plugins(self.state)
        if isinstance(added, Status):
            return [Status(Code.ERROR, (added.message,))] * len(plugins)
        return [p.filter(state, self.pod, info) for p in plugins]

    def feasibility(self) -> tuple[PreFilterOutcome, FilterPass]:
        """PreFilter, then every Filter plugin (nominated pods included) on every node the PreFilter
        result allows — no numFeasibleNodesToFind cut, no start index, nothing scheduled: which nodes
        the pod fits as the cluster stands (what-if questions re-ask it on modified input)."""
        nodes = self.snapshot.node_infos
        pre = self.fw.run_pre_filter(self.state, self.pod, nodes)
        table = self.snapshot.table
        if pre.status is not None:
            empty = np.zeros(0, dtype=np.int64)
            return pre, FilterPass(empty, [], empty, 0, 0)
        allowed = pre.result.node_names  # None: every node
        candidates = table.positions(None if allowed is None else [n.name for n in nodes if n.name in allowed])
        verdicts = [
            (p.name, self.fw.filter_verdicts(p, self.state, self.pod, candidates))
            for p in self.fw.active_filter_plugins(self.state)
        ]
        verdicts = self._with_nominated_pods(candidates, verdicts)
        fits = _fits(verdicts, len(candidates))
        return pre, FilterPass(candidates, verdicts, candidates[fits], 0, len(candidates))

    def _kept_or_new_pass(self, nodes: list[NodeInfo], pre: PreFilterOutcome) -> FilterPass:
        """``_filter``'s pass, or the one an earlier attempt made when everything a pass reads is
        the same (framework/kept_passes.py): a pod that fits nowhere is retried after every change
        that might help it, and its workload's other replicas after it, mostly with nothing changed
        in between but the failed pods' own statuses. The start index moves as that pass moved it."""
        key = self._pass_key(pre)
        if key is None:
            return self._filter(nodes, pre)
        kept: Optional[_KeptPass] = self.fw.kept_passes.get(key)
        if kept is None:
            passed = self._filter(nodes, pre)
            _read_only(passed)
            kept = _KeptPass(passed, self.scheduler.next_start_node_index)
            self.fw.kept_passes.put(key, kept)
        else:
            self.scheduler.next_start_node_index = kept.next_start
        self._kept_pass = kept
        return kept.passed

    def _pass_key(self, pre: PreFilterOutcome) -> Optional[tuple[Any, ...]]:
        """Everything ``_filter`` reads, comparable with another attempt's (the cheapest to tell
        apart first); None when a Filter plugin may read more than the node, the pod and its own
        PreFilter state. The node table is compared by identity (a node that changes, joins or
        leaves makes a new one) and its version (every pod added or removed moves it); the
        nominated pass sums and counts the nominated pods it adds, so their set is what counts, not
        their order in a node's list; the profile's own settings are the framework's, which keeps
        the passes."""
        inputs = self._filter_inputs()
        if inputs is None:
            return None
        table = self.snapshot.table
        allowed = pre.result.node_names
        return (
            table,
            table.version,
            self.scheduler.next_start_node_index,
            None if allowed is None else frozenset(allowed),
            self.fw.nominated_content_seen_by(self.pod, table.index),
            inputs,
        )

    def _filter(self, nodes: list[NodeInfo], pre: PreFilterOutcome) -> FilterPass:
        """findNodesThatPassFilters: from the rotating start index until enough nodes fit.

        The nodes are walked as the snapshot lists them (zones round-robin, backend/cache/node_tree.py).
        Each plugin judges every candidate at once (pure functions, so judging more nodes than the
        real scheduler does changes nothing); the evaluated prefix is then cut where the sequential
        loop would stop: just before the feasible node after the ``numFeasibleNodesToFind``-th. A
        profile without score plugins looks for one feasible node only.
        """
        table = self.snapshot.table
        allowed = pre.result.node_names  # None: every node
        candidates = (
            table.tree_order
            if allowed is None
            else table.in_tree_order(table.positions([n.name for n in nodes if n.name in allowed]))
        )
        total = len(candidates)
        num_to_find = (
            num_feasible_nodes_to_find(self.fw.percentage_of_nodes_to_score, total)
            if self.fw.has_score_plugins()
            else min(1, total)
        )
        start = self.scheduler.next_start_node_index
        rotated = _rotated(candidates, start % total) if total else candidates
        plugins = self.fw.active_filter_plugins(self.state)
        if self._walks_node_by_node(plugins):
            verdicts = self._walked_verdicts(plugins, rotated, num_to_find)
        else:
            verdicts = self._plugin_verdicts(plugins, rotated, pre, start)
            # Every node walked: the tree order rotated, whose slots the table's inverse of it gives.
            walk_slots = (
                functools.partial(_rotated_slots, table.tree_rank, start % total, total) if allowed is None else None
            )
            verdicts = self._with_nominated_pods(rotated, verdicts, num_to_find, walk_slots)
        fits = _fits(verdicts, total)
        # checkNode cancels the walk only when it finds one feasible node more than it needs (and
        # drops that one): the nodes failing before it are still evaluated and counted.
        evaluated = _walk_end(fits, num_to_find)
        processed = evaluated
        erring = _first_error(verdicts, total)
        if erring is not None and erring < evaluated:
            # checkNode sends a node's Error and cancels the walk: the cycle fails with it whatever
            # fitted before, and the start index moves past the nodes processed before it
            # (findNodesThatFitPod: len(feasibleNodes) + NodeToStatus.Len(), "regardless of whether
            # an error has occurred"). The erring node stays in the evaluated prefix so the
            # explanation shows its status.
            processed, evaluated = erring, erring + 1
            fits = np.zeros(total, dtype=bool)
        if nodes:
            self.scheduler.next_start_node_index = (start + processed) % len(nodes)
        verdicts = [(name, FilterVerdicts(v.palette, v.choice[:evaluated])) for name, v in verdicts]
        feasible = np.sort(rotated[:evaluated][fits[:evaluated]])
        return FilterPass(rotated[:evaluated], verdicts, feasible, start % total if total else 0, num_to_find)

    def _plugin_verdicts(
        self, plugins: list[FilterPlugin], rotated: np.ndarray, pre: PreFilterOutcome, start: int
    ) -> list[tuple[str, FilterVerdicts]]:
        """Each plugin's verdicts on ``rotated`` (the nodes from the start index), or those an
        earlier attempt reached with the same inputs (``_pass_key`` without the nominations):
        replicas nominated to nodes of their own read the same verdicts before the nominated pass."""
        inputs = self._filter_inputs()
        if inputs is None:
            return [(p.name, self.fw.filter_verdicts(p, self.state, self.pod, rotated)) for p in plugins]
        table, allowed = self.snapshot.table, pre.result.node_names
        key = (table, table.version, start, None if allowed is None else frozenset(allowed), inputs)
        verdicts: Optional[list[tuple[str, FilterVerdicts]]] = self.fw.kept_filter_verdicts.get(key)
        if verdicts is None:
            verdicts = [(p.name, self.fw.filter_verdicts(p, self.state, self.pod, rotated)) for p in plugins]
            for _, verdict in verdicts:
                verdict.choice.flags.writeable = False  # later attempts read them
            self.fw.kept_filter_verdicts.put(key, verdicts)
        return verdicts

    def _walks_node_by_node(self, plugins: list[FilterPlugin]) -> bool:
        """Whether the plugins judged one node at a time (DynamicResources, the volume plugins) are
        walked only as far as the walk goes (``_walked_verdicts``): on the vectorized path, with
        no nominated pods (their pass may move where the walk stops)."""
        return (
            self.fw.vectorized
            and any(not self.fw.judges_in_batch(p, self.state, self.pod) for p in plugins)
            and not self._nominated_nodes()
        )

    def _nominated_nodes(self) -> set[str]:
        """The nodes of the snapshot some pending pod is nominated to (read only)."""
        return self.fw.nominated_nodes_in(self.snapshot.table.index)

    def _walked_verdicts(
        self, plugins: list[FilterPlugin], rotated: np.ndarray, num_to_find: int
    ) -> list[tuple[str, FilterVerdicts]]:
        """The verdicts of every plugin on ``rotated``, the plugins without a batch method judging
        nodes in walk order only until findNodesThatPassFilters stops: one feasible node past
        ``num_to_find``, or a node whose first failing plugin answers Error. The nodes after that
        are cut from the evaluated prefix by ``_filter`` (which finds the same place), so their
        verdicts (left PASS) are never read. Judging a node costs these plugins far more than the
        batch plugins' arrays: a DRA allocation per node, where 230 of 500 nodes are enough."""
        total = len(rotated)
        batch = {
            p.name: self.fw.filter_verdicts(p, self.state, self.pod, rotated)
            for p in plugins
            if self.fw.judges_in_batch(p, self.state, self.pod)
        }
        one_by_one = [p for p in plugins if p.name not in batch]
        palettes = [Palette() for _ in one_by_one]
        choices = [np.full(total, PASS, dtype=np.int32) for _ in one_by_one]

        def verdicts() -> list[tuple[str, FilterVerdicts]]:
            walked = dict(
                zip(
                    (p.name for p in one_by_one),
                    (FilterVerdicts(palette.statuses, choice) for palette, choice in zip(palettes, choices)),
                )
            )
            return [(p.name, batch[p.name] if p.name in batch else walked[p.name]) for p in plugins]

        batch_fits = _fits(list(batch.items()), total)
        batch_errs = np.zeros(total, dtype=bool)
        for verdict in batch.values():
            is_error = [status.code == Code.ERROR for status in verdict.palette]
            if any(is_error):
                failing = verdict.choice >= 0
                batch_errs |= failing & np.asarray(is_error, dtype=bool)[np.where(failing, verdict.choice, 0)]
        infos = self.snapshot.table.node_infos
        fits_list, errs_list = batch_fits.tolist(), batch_errs.tolist()
        found = 0
        for i, position in enumerate(rotated.tolist()):
            fits, erring = fits_list[i], errs_list[i]
            info = infos[position]
            for k, plugin in enumerate(one_by_one):
                status = plugin.filter(self.state, self.pod, info)
                if status is not None and status.code != Code.SUCCESS:
                    choices[k][i] = palettes[k].add(status)
                    fits = False
                    erring = erring or status.code == Code.ERROR
            if erring and _first_error(verdicts(), total) == i:
                break  # checkNode's Error cancels the walk here
            if fits:
                found += 1
                if found > num_to_find:
                    break  # the feasible node after the numFeasibleNodesToFind-th: the walk stops
        return verdicts()

    def _observe(self, passed: FilterPass) -> None:
        observer = self.scheduler.filter_observer
        if observer is not None:
            observer(self, passed)

    def _first_failures(self, passed: FilterPass) -> _Judged:
        """Each evaluated node's first failing plugin in Filter order: the real scheduler's verdict;
        and each status object once (in the order the dict first holds it) with its count of nodes."""
        table = self.snapshot.table
        groups: list[tuple[Status, int]] = []
        undecided = np.ones(len(passed.evaluated), dtype=bool)
        group_of = np.full(len(passed.evaluated), -1, dtype=np.int64)  # each node's entry in groups
        failings: list[np.ndarray] = []  # per plugin, the nodes it was the first to fail
        for plugin, verdict in passed.verdicts:
            failing = np.flatnonzero(undecided & (verdict.choice >= 0))
            if not len(failing):
                continue
            undecided[failing] = False
            failings.append(failing)
            # One status per palette entry, shared by every node it judged (statuses are immutable),
            # handed out by NumPy: an unschedulable pod on 5,000 nodes is 5,000 entries per attempt.
            choices = verdict.choice[failing]
            used, met_at, counts = np.unique(choices, return_index=True, return_counts=True)
            status_of = np.empty(len(verdict.palette), dtype=object)
            group_at = np.full(len(verdict.palette), -1, dtype=np.int64)
            for slot in np.argsort(met_at, kind="stable").tolist():
                choice = int(used[slot])
                status_of[choice] = filter_failure_status(plugin, verdict.palette[choice])
                group_at[choice] = len(groups)
                groups.append((status_of[choice], int(counts[slot])))
            group_of[failing] = group_at[choices]
        # By name in the order the failing nodes were met, plugin by plugin: made when first asked.
        order = np.concatenate(failings) if failings else np.zeros(0, dtype=np.int64)
        by_position = StatusesByPosition(
            table.node_infos, table.names, table.names_array, passed.evaluated, group_of, [s for s, _ in groups], order
        )
        return _Judged(groups, len(order), None, by_position)

    def _judged(self, passed: FilterPass) -> _Judged:
        """The statuses of the Diagnosis (the nominated node's early one, then the full pass's, which
        wins for a node judged in both) and their status_groups, as ``{**early, **first}`` would give them."""
        kept = self._kept_pass
        if kept is not None and kept.passed is passed:
            if kept.first_failures is None:
                kept.first_failures = self._first_failures(passed)
            judged = kept.first_failures
        else:
            judged = self._first_failures(passed)
        early = self._early_statuses
        if not early:
            return judged
        assert judged.by_position is not None
        first, groups = judged.by_position.named(), judged.groups
        statuses = {**early, **first}
        # An early key keeps its place (with the full pass's status when it has one): those come first.
        merged: dict[int, tuple[Status, int]] = {id(statuses[name]): (statuses[name], 0) for name in early}
        only_early = [status for name, status in early.items() if name not in first]
        for status, count in [*groups, *status_groups(only_early)]:
            merged[id(status)] = (status, merged.get(id(status), (status, 0))[1] + count)
        return _Judged(list(merged.values()), len(statuses), statuses, None)

    # ------------------------------------------------------------------ no node fits

    def _unschedulable_after_pre_filter(self, status: Status) -> Generator[CycleStep, None, CycleEnding]:
        if status.code == Code.ERROR:
            return SchedulingError(status.message)
        if status.plugin:
            self._unschedulable_plugins.add(status.plugin)
        post = yield from self._post_filter(NodeToStatus({}, status))
        message = fit_error_message(
            len(self.snapshot.node_infos),
            pre_filter_message=status.message,
            post_filter_message=post.message if post is not None else None,
        )
        return self._fit_error(message, post)

    def _unschedulable_after_filter(
        self, passed: FilterPass, absent: Status
    ) -> Generator[CycleStep, None, CycleEnding]:
        judged = self._judged(passed)
        groups = judged.groups
        distinct = [status for status, _ in groups]
        errors = [s for s in distinct if s.code == Code.ERROR]
        if errors:
            return SchedulingError(errors[0].message)
        self._unschedulable_plugins.update(s.plugin for s in distinct if s.is_rejected and s.plugin)
        post = yield from self._post_filter(NodeToStatus(judged.statuses, absent, judged.by_position))
        message = fit_error_message(
            len(self.snapshot.node_infos),
            grouped=(groups, judged.count),
            absent_reasons=absent.reasons,
            post_filter_message=post.message if post is not None else None,
        )
        return self._fit_error(message, post)

    def _fit_error(self, message: str, post: Optional[PostFilterVerdict]) -> FitError:
        """The PostFilter's nomination (none: ModeNoop); without PostFilter plugins, v1.35 on clear
        the nomination (before, ModeNoop)."""
        preemption = post.preemption if post is not None else None
        nominating = preemption.nominating if preemption is not None else None
        if post is None:
            nominating = self.scheduler.no_post_filter_nominating
        return FitError(message, frozenset(self._unschedulable_plugins), nominating, preemption)

    def _post_filter(self, statuses: NodeToStatus) -> Generator[CycleStep, None, Optional[PostFilterVerdict]]:
        """Runs PostFilter (in a single pass a dry run: nothing is evicted); None without plugins."""
        if not self.fw.has_post_filter_plugins:
            return None
        run = self.fw.run_post_filter(self.state, self.pod, statuses)
        yield PostFilterDone(run)
        preemption = None
        result = run.result
        if result is not None and result.nominated_node_name is not None:  # result.nominates
            preemption = PreemptionOutcome(NominatingInfo(result.nominated_node_name), tuple(result.victim_pods))
        return PostFilterVerdict(run.message or None, preemption)

    # ------------------------------------------------------------------ scoring and binding

    def _score_and_bind(
        self, names: NodeList, signature: Optional[Signature] = None, hint: Optional[str] = None
    ) -> Generator[CycleStep, None, CycleEnding]:
        """Score, select, reserve, permit and bind over the feasible nodes: ``names`` is the list
        FilterDone carried (one list for both, so the hand-over and the encoder meet it once)."""
        table = self.snapshot.table
        feasible = names.positions
        infos = table.infos_at(feasible)
        for plugin, status in self.fw.run_pre_score(self.state, self.pod, infos):
            yield PreScoreDone(plugin, status)
            if is_failure(status) and not status.is_skip:
                return (yield from self._scoring_error(f'running PreScore plugin "{plugin}": {status.message}'))
        totals = np.zeros(len(names), dtype=np.int64)
        for score_plugin in self.fw.score_plugins(self.state):
            outcome, error = self.fw.run_score_plugin(score_plugin, self.state, self.pod, feasible, names)
            if error is not None:
                return (yield from self._scoring_error(error.message))
            assert outcome is not None  # no error: the plugin scored
            yield ScoreDone(names, outcome)
            totals += outcome.weighted
        chosen, ties, tie_positions = self._select_host(table, feasible, totals)
        self._store_batch(signature, hint, chosen, names, totals)
        yield HostSelected(names, totals, chosen, ties, tie_positions)
        return (yield from self._bind(chosen))

    def _store_batch(
        self, signature: Optional[Signature], hint: Optional[str], chosen: str, names: Sequence[str], totals: np.ndarray
    ) -> None:
        """StoreScheduleResults: the other feasible nodes best first (ties in document order, the
        spec's rule for the pick); a cycle with one feasible node keeps none (the release scores
        nothing then)."""
        batch = self.fw.batch
        if batch is None:
            return
        others = None
        # Without a signature, or when the hint was taken, the store keeps no list: none is built.
        if len(names) > 1 and signature is not None and not (hint is not None and hint == chosen):
            order = np.lexsort((np.arange(len(names)), -totals))
            others = [names[i] for i in order.tolist() if names[i] != chosen]
        batch.store(signature, hint, chosen, others, self.cycle_count, self.fw.clock_ms())

    def _scoring_error(self, message: str) -> Generator[CycleStep, None, CycleEnding]:
        yield ScoringFailed(message)
        return SchedulingError(message, after_host_selection=True)

    def _select_host(
        self, table: NodeTable[NodeInfo], feasible: np.ndarray, totals: np.ndarray
    ) -> tuple[str, Sequence[str], np.ndarray]:
        """The chosen node, the nodes with the top total (document order) and their positions among
        the feasible ones (``feasible``: the scored positions in the table). In the engine's own
        process (node lists kept as positions) the ties stay positions too: a uniform cluster ties
        thousands of nodes, whose names the hand-over never sends (the reader has the positions)."""
        positions = np.flatnonzero(totals == np.maximum.reduce(totals))
        tied = feasible[positions]
        ties: Sequence[str] = (
            NodePositions(tied, table.names)
            if self.snapshot.node_lists_as_positions
            else table.names_array[tied].tolist()
        )
        if self.scheduler.tie_break == TIE_BREAK_RANDOM:
            return self.scheduler.rng.choice(ties), ties, positions
        return ties[0], ties, positions

    def _bind(self, node: str) -> Generator[CycleStep, None, CycleEnding]:
        self.snapshot.bind(self.pod, node)  # assume: the pod counts on the node from now on
        self.scheduler.nominator.delete(self.pod)
        steps = (
            (ExtensionPoint.RESERVE, self.fw.run_reserve),
            (ExtensionPoint.PERMIT, self.fw.run_permit),
            (ExtensionPoint.PRE_BIND, self._run_pre_bind if self.scheduler.parallel_pre_bind else self.fw.run_pre_bind),
            (ExtensionPoint.BIND, self.fw.run_bind),
            (ExtensionPoint.POST_BIND, self.fw.run_post_bind),
        )
        for point, run in steps:
            failed: Optional[tuple[str, Status]] = None
            for plugin, status in run(self.state, self.pod, node):
                yield BindingStepDone(point, plugin, status, node)
                # the first failure in profile order, unless one run beside it fails sooner (a
                # PreBind that waits is cancelled when another fails: the instant failure is the result)
                if (
                    is_failure(status)
                    and not status.is_skip
                    and (failed is None or status.after_ms < failed[1].after_ms)
                ):
                    failed = (plugin, status)
            if failed is not None:
                return self._binding_failed(point, failed[0], failed[1], node)
        return Bound(node)

    def _run_pre_bind(self, state: CycleState, pod: Pod, node: str) -> list[tuple[str, MaybeStatus]]:
        """RunPreBindPlugins; v1.36 runs VolumeBinding and DynamicResources side by side (each
        plugin's writes are made, the first failure in profile order is the result)."""
        return self.fw.run_pre_bind(state, pod, node, self.scheduler.parallel_pre_bind)

    def _binding_failed(self, point: ExtensionPoint, plugin: str, status: Status, node: str) -> CycleEnding:
        """Unreserve and forget the assumed pod. A Reserve or Permit rejection is a FitError over
        the one node (schedulingCycle); a PreBind or Bind failure happens in the binding cycle,
        after Done, and goes back as an error whatever its code (handleBindingCycleError). The
        framework wraps an error's message, not a rejection's."""
        status = status.with_plugin(plugin)
        if status.after_ms:  # PreBind blocks this long first: the pod stays assumed until then
            if self.scheduler.single_pass:
                return Bound(node)
            message = f'running {point.value} plugin "{plugin}": {status.message}'
            return BindingFailed(node, message, False, after_ms=status.after_ms, plugin=plugin)
        self.fw.run_unreserve(self.state, self.pod, node)
        self.snapshot.unbind(self.pod)
        if point in (ExtensionPoint.PRE_BIND, ExtensionPoint.BIND):
            fit_error = self.scheduler.pre_bind_rejection_is_fit_error and point is ExtensionPoint.PRE_BIND
            if status.is_rejected and fit_error:
                # v1.32: a FitError over the one node, its plugin unschedulable (Done came after PreBind).
                message = fit_error_message(1, node_statuses={node: status})
                return BindingFailed(node, message, True, frozenset({plugin}))
            message = (
                status.message if status.is_rejected else f'running {point.value} plugin "{plugin}": {status.message}'
            )
            return BindingFailed(node, message, status.is_rejected)
        if not status.is_rejected:
            return SchedulingError(
                f'running {point.value} plugin "{plugin}": {status.message}', after_host_selection=True
            )
        self._unschedulable_plugins.add(plugin)
        return FitError(
            fit_error_message(1, node_statuses={node: status}),
            frozenset(self._unschedulable_plugins),
            self.scheduler.failure_nominating,
            after_host_selection=True,
        )


@dataclass(frozen=True, slots=True)
class _Judged:
    """A Diagnosis's statuses: grouped (each status object with its count of nodes), how many
    nodes have one, and by position when the full pass alone judged them (else by name)."""

    groups: list[tuple[Status, int]]
    count: int
    statuses: Optional[dict[str, Status]]
    by_position: Optional[StatusesByPosition]


@dataclass(slots=True)
class _KeptPass:
    """A Filter pass kept across attempts (``Cycle._kept_or_new_pass``): the pass, the start index
    it left, and its first failures once an attempt asked them (a function of the pass alone)."""

    passed: FilterPass
    next_start: int
    first_failures: Optional[_Judged] = None


class _Unasked:
    """Not asked yet (a cached answer may itself be None)."""


_UNASKED = _Unasked()


def _read_only(passed: FilterPass) -> None:
    """A kept pass is read by later attempts: no one may write into its arrays."""
    for array in (passed.evaluated, passed.feasible, *(verdict.choice for _, verdict in passed.verdicts)):
        array.flags.writeable = False


@dataclass(frozen=True, slots=True)
class PostFilterVerdict:
    """What PostFilter adds to a FitError: its message part and the preemption it chose."""

    message: Optional[str]
    preemption: Optional[PreemptionOutcome]


def _written_nomination(nominating: Optional[NominatingInfo]) -> Optional[str]:
    """The nomination a failure handler's patch writes: an override's node (None: left as it is)."""
    return nominating.nominated_node_name if nominating and nominating.mode == MODE_OVERRIDE else None


def _first_error(verdicts: list[tuple[str, FilterVerdicts]], total: int) -> Optional[int]:
    """The first position, in walk order, whose first failing Filter plugin answered Error
    (RunFilterPlugins stops a node at its first non-success status); None when there is none."""
    undecided = np.ones(total, dtype=bool)
    erring = np.zeros(total, dtype=bool)
    for _, verdict in verdicts:
        if not verdict.palette:
            continue  # every node passed (a choice indexes the palette)
        failing = undecided & (verdict.choice >= 0)
        if not np.logical_or.reduce(failing):
            continue
        is_error = np.fromiter(
            (status.code == Code.ERROR for status in verdict.palette), dtype=bool, count=len(verdict.palette)
        )
        if is_error.any():
            erring |= failing & is_error[np.where(failing, verdict.choice, 0)]
        undecided &= ~failing
    positions = np.flatnonzero(erring)
    return int(positions[0]) if len(positions) else None


def _fits(verdicts: list[tuple[str, FilterVerdicts]], count: int) -> np.ndarray:
    """Where every plugin passed. A verdict with an empty palette passed everywhere (its choices
    index the palette): most plugins on most attempts, skipped without touching their arrays."""
    fits = np.ones(count, dtype=bool)
    for _, verdict in verdicts:
        if verdict.palette:
            fits &= ~verdict.failed
    return fits


def _slots_of(positions: np.ndarray, wanted: np.ndarray, size: int) -> np.ndarray:
    """Where each of ``wanted`` (table positions) stands in ``positions`` (-1: absent): a few are
    looked for one by one, many through an inverse of ``positions`` (``size``: the table's)."""
    if len(wanted) <= 4:
        slots = np.full(len(wanted), -1, dtype=np.int64)
        for i, position in enumerate(wanted.tolist()):
            found = np.flatnonzero(positions == position)
            if len(found):
                slots[i] = found[0]
        return slots
    slot_of = np.full(size, -1, dtype=np.int64)
    slot_of[positions] = np.arange(len(positions), dtype=np.int64)
    found_slots: np.ndarray = slot_of[wanted]
    return found_slots


def _rotated_slots(rank: np.ndarray, first: int, total: int, wanted: np.ndarray) -> np.ndarray:
    """``_slots_of(_rotated(order, first), wanted, len(order))`` for a walk of every node, ``rank``
    being the inverse of ``order``: no inverse of the rotation made per attempt."""
    slots: np.ndarray = (rank[wanted] - first) % total
    return slots


def _rotated(candidates: np.ndarray, first: int) -> np.ndarray:
    """The candidates from index ``first`` on, then those before it: np.roll by -first (a new
    array either way), without np.roll's general-axis overhead."""
    return np.concatenate((candidates[first:], candidates[:first])) if first else candidates.copy()


def _reach(
    verdicts: list[tuple[str, FilterVerdicts]], count: int, nominated_slots: np.ndarray, num_to_find: int
) -> int:
    """How far the Filter walk can go at most: the slot where it would stop if every node with
    nominated pods failed. Those pods only add to what Fit counts, so a node failing without them
    fails with them (the first pass can only turn a fit into a failure, never raise an Error on
    numbers): the walk stops at or before that slot, and nominated nodes from there on are never
    evaluated."""
    fits = _fits(verdicts, count)
    fits[nominated_slots] = False
    return _walk_end(fits, num_to_find)


def _walk_end(fits: np.ndarray, num_to_find: int) -> int:
    """Where the walk over these verdicts stops: at the feasible node after the
    ``num_to_find``-th (not evaluated past it), or at the end."""
    feasible = fits.nonzero()[0]
    return len(fits) if len(feasible) <= num_to_find else int(feasible[num_to_find])


def _with_nominated_fit(
    verdicts: list[tuple[str, FilterVerdicts]], kept: np.ndarray, fit: Optional[FilterVerdicts]
) -> list[tuple[str, FilterVerdicts]]:
    """_with_verdicts for the nominated pass on numbers, on arrays: on the ``kept`` slots Fit's
    verdict is ``fit`` (one per kept slot; None: every one passes) and the other plugins' those
    already given; a kept node where any of them fails takes them all (replaced in slot order, a
    failing status appended to the plugin's palette each time, as _with_verdicts does)."""
    judged = []  # per plugin: the palette and choices on the kept slots, and which fail
    for plugin, verdict in verdicts:
        if plugin == names.NODE_RESOURCES_FIT:
            palette, choice = (
                (fit.palette, fit.choice) if fit is not None else ([], np.full(len(kept), PASS, dtype=np.int32))
            )
        else:
            palette, choice = verdict.palette, verdict.choice[kept]
        succeeds = np.asarray([is_success(status) for status in palette] + [True], dtype=bool)  # [-1]: PASS
        judged.append((palette, choice, ~succeeds[choice]))
    replaced = np.logical_or.reduce([failing for _, _, failing in judged])
    if not replaced.any():
        return verdicts
    slots = kept[replaced]
    out = []
    for (plugin, verdict), (palette, choice, failing) in zip(verdicts, judged):
        choice, failing = choice[replaced], failing[replaced]
        new_palette, new_choice = list(verdict.palette), verdict.choice.copy()
        new_choice[slots[~failing]] = PASS
        new_choice[slots[failing]] = np.arange(len(new_palette), len(new_palette) + int(failing.sum()))
        new_palette.extend(palette[index] for index in choice[failing].tolist())
        out.append((plugin, FilterVerdicts(new_palette, new_choice)))
    return out


def _with_verdicts(
    verdicts: list[tuple[str, FilterVerdicts]], replaced: list[tuple[int, list[MaybeStatus]]]
) -> list[tuple[str, FilterVerdicts]]:
    """Copies of the plugins' verdicts with the listed nodes' replaced, in that order (a failing
    status is appended to the plugin's palette each time)."""
    if not replaced:
        return verdicts
    out = []
    for index, (plugin, verdict) in enumerate(verdicts):
        palette, choice = list(verdict.palette), verdict.choice.copy()
        for i, statuses in replaced:
            status = statuses[index]
            if is_failure(status):
                choice[i] = len(palette)
                palette.append(status)
            else:
                choice[i] = PASS
        out.append((plugin, FilterVerdicts(palette, choice)))
    return out


def simulate(
    scenario: Scenario,
    *,
    tie_break: str = TIE_BREAK_FIRST,
    seed: Optional[int] = None,
    vectorized: bool = True,
    hand_over_only: bool = False,
    reads: Reads = None,
) -> Iterator[Event]:
    """Replays the scenario's scheduling cycles; the scenario's pods are not modified.

    ``vectorized=False`` runs every plugin node by node: the reference the fast path is tested against.
    ``reads``: for a reader of those points only (``TRACE_READS``), the cycles' other events unwritten.
    """
    with collector_paused():  # the set-up builds the snapshot: nothing there for the collector
        scheduler = Scheduler(fresh_copy(scenario), tie_break, seed, vectorized, hand_over_only=hand_over_only)
    return frozen_after_first(scheduler.run(reads))


def fresh_copy(scenario: Scenario) -> Scenario:
    """Binding sets ``pod.node_name``: work on copies so a Scenario can be simulated twice."""
    return dataclasses.replace(scenario, pods=[copy.copy(p) for p in scenario.pods])


@dataclass(slots=True)
class WaitingBinding:
    """A binding cycle blocked in PreBind: when its wait ends, the popped pod's queue entry, how it
    fails, its cycle (state and framework for Unreserve) and the attempt's index in the run."""

    due_ms: int
    info: QueuedPodInfo
    ending: BindingFailed
    cycle: Cycle
    attempt_index: int
    cancelled: bool = False  # by a preemption (its error replaced the wait's)


class ScheduleOne:
    """ScheduleOne and handleSchedulingFailure: one popped pod's attempt in the scheduler process
    (scheduler_core.run.kube_scheduler's ``KubeScheduler``, which is this class and scheduler.go's
    New and Run, as upstream's methods of one ``*Scheduler`` are spread over both files). What
    the attempt needs of the process is declared here: its cycle state (``Scheduler``), cache,
    queue, cluster, clock, recorder and event handlers, and how its writes are told."""

    scheduler: Scheduler
    snapshot: Snapshot
    queue: SchedulingQueue
    cluster: Cluster
    clock: LogicalClock
    recorder: RunRecorder
    handlers: EventHandlers
    others_react: Callable[[], Iterator[Event]]
    attempts: int
    _erroring: dict[str, None]
    _waited_out: set[str]  # pods whose binding waited for binding conditions in vain
    _last_failure: dict[str, object]  # each pod's last FitError (message, preemption)
    _last_progress_ms: int
    _clears_nomination_when_bound: bool
    _skips_recreated_pods: bool
    _patches_informer_pod: bool
    _forgets_absent_pods: bool

    @abstractmethod
    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[Event]]) -> None:
        """Hands work to a goroutine (it lands once the next pod's attempt is over)."""

    @abstractmethod
    def _wait_binding(self, waiting: "WaitingBinding") -> None:
        """Keeps a binding cycle blocked in PreBind until ``waiting.due_ms`` (or its cancellation)."""

    @abstractmethod
    def flush(self) -> Iterator[Event]:
        """The events of the writes delivered since the last flush (and any queue moves)."""

    @abstractmethod
    def storage_changes(self, changes: Optional[list[ClusterChange]] = None) -> Iterator[Event]:
        """The informers' notifications of storage and device writes, told and handed on."""

    @abstractmethod
    def moves(self) -> Iterator[Event]:
        """The queue moves since the last call, told."""

    @abstractmethod
    def _cycle_writes(self) -> Iterator[Event]:
        """The events of the API calls the cycle made itself."""

    def _schedule_one(self, info: QueuedPodInfo) -> Iterator[Event]:
        """ScheduleOne: a pod being deleted is skipped; otherwise its scheduling cycle, then the
        binding cycle's writes or the failure handler. The cycle's events come from the recorder."""
        pod = info.pod
        if pod.is_terminating:  # skipPodSchedule: a pod being deleted is not scheduled
            self.queue.done(pod)
            return
        pending_writes = self.snapshot.cluster_changes
        mark = len(pending_writes)
        cycle = self._scheduling_cycle(info)
        yield from record_cycle(cycle, self.recorder.reads)
        yield from self._cycle_writes()
        ending = cycle.outcome
        assert ending is not None  # the recorder ran the cycle to its end
        # The cycle's PreBind writes (claims, volumes) are its binding goroutine's: they reach the
        # informers when that goroutine lands, not with whichever write is delivered next.
        own_writes = pending_writes[mark:]
        del pending_writes[mark:]
        self._note_progress(pod, ending)
        if isinstance(ending, Bound):
            yield from self._binding_cycle(info, ending, own_writes, cycle)
        elif isinstance(ending, BindingFailed) and ending.after_ms:
            yield from self._binding_waits(info, ending, own_writes, cycle)
        else:
            yield from self._handle_scheduling_failure(info, ending, own_writes)

    def _scheduling_cycle(self, info: QueuedPodInfo) -> Cycle:
        """The cycle of the popped pod: the queues as they stand, the nomination its queue copy carries."""
        pod = info.pod
        index = self.attempts
        self.attempts += 1
        queues: Optional[dict[str, list[str]]] = None
        view = [pod.key]
        if reads_queues(self.recorder.reads):
            queues = {name.value: keys for name, keys in self.queue.where().items()}
            view.extend(queues[QueueName.ACTIVE.value])
        # The cycle assumes its own copy of the pod (AssumePod's DeepCopy): the queue's and the
        # cluster's versions stay as they are until the binding comes back.
        return Cycle(
            self.scheduler,
            index,
            copy.copy(pod),
            queue_view=view,
            nominated_node=pod.nominated_node_name,
            queues=queues,
            cycle_count=self.queue.active.scheduling_cycle,
            queued_signature=(info.signature,) if self.queue.signers is not None else None,
        )

    def _note_progress(self, pod: Pod, ending: CycleEnding) -> None:
        """Whether the attempt moved the run on: errors do not, nor does anything but a binding
        for a pod whose binding already waited in vain (it would wait, fail and be deallocated for
        ever), nor a pod failing again exactly as it last failed (such loops requeue it). A first
        wait does: the run goes on until it ends (``_waited_binding_fails``)."""
        if isinstance(ending, BindingFailed) and ending.after_ms and pod.key not in self._waited_out:
            return
        if isinstance(ending, (SchedulingError, BindingFailed)) or (
            pod.key in self._waited_out and not isinstance(ending, Bound)
        ):
            self._erroring[pod.key] = None
            return
        self._waited_out.discard(pod.key)
        self._erroring.pop(pod.key, None)
        if isinstance(ending, FitError):
            failure = (ending.message, ending.preemption)
            if self._last_failure.get(pod.key) == failure:
                return
            self._last_failure[pod.key] = failure
        else:
            self._last_failure.pop(pod.key, None)
        self._last_progress_ms = self.clock.ms

    def _binding_cycle(
        self, info: QueuedPodInfo, bound: Bound, prebind_writes: list[ClusterChange], cycle: Cycle
    ) -> Iterator[Event]:
        """The binding cycle calls Done before PreBind; its writes come back later."""
        pod = info.pod
        self.queue.done(pod)
        yield self.recorder.bound(pod.key, info.attempts)
        self.go(lambda: None, lambda: self._binding_done(cycle, bound.node_name, prebind_writes))

    def _binding_done(self, cycle: Cycle, node: str, prebind_writes: list[ClusterChange]) -> Iterator[Event]:
        """The informer events of a finished binding: its PreBind's storage writes, then the pod
        bound (the nomination cleared with ClearingNominatedNodeNameAfterBinding, on from v1.35);
        then the other components act on it. A pod deleted meanwhile cannot be bound."""
        yield from self.storage_changes(prebind_writes)
        if self.cluster.bind(cycle.pod.key, node, clear_nomination=self._clears_nomination_when_bound) is None:
            yield from self._bound_pod_gone(cycle, node)
        yield from self.flush()
        yield from self.others_react()

    def _binding_waits(
        self, info: QueuedPodInfo, ending: BindingFailed, prebind_writes: list[ClusterChange], cycle: Cycle
    ) -> Iterator[Event]:
        """PreBind blocks (DynamicResources waiting for binding conditions nobody sets in a
        replay): the binding cycle called Done before PreBind, the pod stays assumed on its node,
        PreBind's writes land as a binding goroutine's do, and the binding cycle fails when the
        wait ends — or sooner, when a preemption cancels it (``preempt_in_memory``). The
        attempt's end is told now, with the error it ends with unless cancelled."""
        pod = info.pod
        self.queue.done(pod)
        yield self.recorder.failed(pod.key, info.attempts, self._failure_nomination(), [], ending)
        if self.scheduler.nominates_before_pre_bind:
            # bindingCycle's updatePod before PreBind: the pod is assumed, so the queue skips the
            # Update; the failure handler's patch at the end of the wait clears it again
            self.cluster.patch_pod_status(pod.key, ClusterChangeKind.POD_STATUS, nominated_node_name=ending.node)
            yield from self.flush()
        self.go(lambda: None, lambda: self.storage_changes(prebind_writes))
        self._wait_binding(WaitingBinding(self.clock.ms + ending.after_ms, info, ending, cycle, self.attempts - 1))

    def _waited_binding_fails(self, waiting: "WaitingBinding") -> Iterator[Event]:
        """The wait is over: handleBindingCycleError (Unreserve, ForgetPod), then the failure
        handler; a pod deleted meanwhile is only forgotten."""
        cycle, node, info = waiting.cycle, waiting.ending.node, waiting.info
        key = info.pod.key
        if waiting.cancelled:  # the attempt's end was told with the wait's error: told again, as it ended
            yield self.recorder.failed(
                key, info.attempts, self._failure_nomination(), [], waiting.ending, waiting.attempt_index
            )
        if waiting.cancelled or key not in self._waited_out:  # the cluster moved on
            self._last_progress_ms = self.clock.ms
        if not waiting.cancelled:  # it waited in vain: from now on the pod only loops
            self._waited_out.add(key)
        self._erroring[key] = None
        cached = self.cluster.pod(key)
        if cached is None or cached.uid != info.pod.uid:
            yield from self._bound_pod_gone(cycle, node)
            return
        cycle.fw.run_unreserve(cycle.state, cycle.pod, node)
        if self.snapshot.is_assumed(cycle.pod):
            self.snapshot.unbind(self.snapshot.assumed_pod(cycle.pod.key) or cycle.pod)
        yield from self._handle_scheduling_failure(info, waiting.ending, [], told=True)

    def _bound_pod_gone(self, cycle: Cycle, node: str) -> Iterator[Event]:
        """The pod was deleted while its binding was under way: Bind fails (not found) and
        handleBindingCycleError unreserves and forgets it, which is an AssignedPodDelete for the
        pods waiting. v1.35 on forgot it when it was deleted (the handlers' assumed_pod_deleted)
        and ForgetPod of a pod no longer there succeeds, so the pods are moved a second time;
        before, ForgetPod fails then and moves nothing. The failure handler finds no pod to
        requeue or patch."""
        pod = cycle.pod  # the assumed copy, on the node
        cycle.fw.run_unreserve(cycle.state, pod, node)
        forgotten = snapshot_of(pod)
        forgotten.node_name = node
        was_assumed = self.snapshot.is_assumed(pod)
        if was_assumed:
            self.snapshot.unbind(self.snapshot.assumed_pod(pod.key) or pod)
        yield self.recorder.cluster(pod.key, ClusterChangeKind.BINDING_FAILED, node=node)
        if was_assumed or self._forgets_absent_pods:
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=False)
        yield from self.storage_changes()
        yield from self.moves()

    def _handle_scheduling_failure(
        self,
        info: QueuedPodInfo,
        ending: FitError | SchedulingError | BindingFailed,
        prebind_writes: list[ClusterChange],
        told: bool = False,
    ) -> Iterator[Event]:
        """handleSchedulingFailure (after handleBindingCycleError for a failed binding cycle): back
        to the queue, the nomination, the status patch. A preemption that chose victims already
        marked its pod as preempting and started its goroutine (the evaluator's
        prepareCandidateAsync, before PostFilter returned); its API calls land after this handler."""
        pod = info.pod  # the popped copy: the status patch is made against it
        binding = ending if isinstance(ending, BindingFailed) else None
        fit_error = ending if isinstance(ending, FitError) else None
        forgotten = self._forgotten(pod, binding)
        if forgotten is not None and binding is not None and not binding.rejected:
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=False)
        info.unschedulable_plugins = set(
            fit_error.unschedulable_plugins
            if fit_error is not None
            else binding.unschedulable_plugins
            if binding
            else ()
        )
        nominating = fit_error.nominating if fit_error is not None else self.scheduler.failure_nominating
        cached = self.cluster.pod(pod.key)  # the pod lister's version goes back to the queue
        pending = cached is not None and not cached.node_name
        # kubernetes#138324 (v1.34.9, v1.35.6, v1.36): a pod made again under its name while this
        # attempt ran is the new pod's business (its own Add queued it): no requeue, no nomination,
        # no status patch for the old one.
        recreated = pending and self._skips_recreated_pods and cached is not None and cached.uid != pod.uid
        if pending and not recreated:
            assert cached is not None
            if cached is not pod:
                info.pod_info = PodInfo(cached)
            self.queue.add_unschedulable_if_not_present(info)
        else:
            self.queue.done(pod)
        if not recreated:
            self.queue.add_nominated_pod(info.pod, nominating)
        if forgotten is not None and binding is not None and binding.rejected:  # deferred past the failure handler
            self.handlers.assumed_pod_forgotten(forgotten, skip_itself=True)
        written = None if recreated else _written_nomination(nominating)
        preemption = fit_error.preemption if fit_error is not None else None
        victims = sorted(victim.key for victim in preemption.victims) if preemption is not None else []
        if not told:  # a waited binding's attempt end was told when the wait began
            yield self.recorder.failed(pod.key, info.attempts, written, victims, binding)
        if forgotten is not None:  # told before the moves it caused
            yield self.recorder.cluster(pod.key, ClusterChangeKind.BINDING_FAILED, node=forgotten.node_name)
            yield from self.moves()
        # A PreBind that failed after writing (VolumeBinding's claim annotation, a provisioned volume)
        # leaves those writes: the API has no rollback, so their events still reach the queue.
        yield from self.storage_changes(prebind_writes)
        yield from self.moves()
        if recreated:
            return
        # The patch is sent now; its Update reaches the scheduler with the writes of goroutines
        # started in this attempt (after them, as the reference runs saw it: a preemptor's own
        # Update finds its victim already terminating). v1.36 patches against the informer's pod
        # the queue took back, earlier releases against the popped copy.
        condition = _failure_condition(ending)
        against = info.pod if self._patches_informer_pod and pending else pod
        self.go(lambda: None, lambda: self._patch_status(against, written, condition))

    def _patch_status(self, popped: Pod, written: Optional[str], condition: PodScheduledCondition) -> Iterator[Event]:
        """updatePod: one status patch with the PodScheduled condition and, when the nomination
        changes against ``popped`` (the popped copy; v1.36: the informer's pod), the nomination;
        none when neither changes against it. The write comes back to the scheduler as an Update
        of the pending pod."""
        nominating = written is not None and written != popped.nominated_node_name
        if not nominating and popped.scheduled_condition == condition:
            return
        fields = {"nominated_node_name": written} if nominating else {}
        self.cluster.patch_pod_status(
            popped.key, ClusterChangeKind.POD_STATUS, condition.reason, condition=condition, **fields
        )
        yield from self.flush()

    def _failure_nomination(self) -> Optional[str]:
        """The nomination the failure handler of a failed binding writes (None: left as it is)."""
        return _written_nomination(self.scheduler.failure_nominating)

    def _forgotten(self, pod: Pod, binding: Optional[BindingFailed]) -> Optional[Pod]:
        """The assumed pod a failed binding cycle forgets (on the node it was binding to), after
        the queue's Done that the binding cycle calls before PreBind; None when binding never began."""
        if binding is None:
            return None
        self.queue.done(pod)
        forgotten = snapshot_of(pod)
        forgotten.node_name = binding.node
        return forgotten


def _failure_condition(ending: FitError | SchedulingError | BindingFailed) -> PodScheduledCondition:
    """The PodScheduled condition handleSchedulingFailure writes: Unschedulable when a plugin
    rejected the pod (no nodes at all included), SchedulerError otherwise; the error's text."""
    rejected = isinstance(ending, FitError) or (isinstance(ending, BindingFailed) and ending.rejected)
    return PodScheduledCondition("False", "Unschedulable" if rejected else "SchedulerError", ending.message)
