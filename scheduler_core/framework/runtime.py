"""Framework: runs the profile's plugins at each extension point (framework/runtime/framework.go).

It returns what every plugin said, not only the verdict, because SchedLab shows each step.
Two behaviours deliberately differ from the real framework, both for pictures only and both
outcome-preserving: Filter runs EVERY plugin on a node (the verdict is still the first failure),
and scoring also runs when a single node is feasible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

from scheduler_core.framework.batch import (
    FilterVerdicts,
    filter_per_node,
    normalize_per_node,
    score_per_node,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.kept_passes import RecentlyKept
from scheduler_core.framework.kept_verdicts import VerdictMemo
from scheduler_core.framework.interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    FilterPlugin,
    NodeToStatus,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterResult,
    ScorePlugin,
)
from scheduler_core.framework.listers import SharedLister
from scheduler_core.framework.node_info import NodeInfo, PodInfo, PodInfoCache
from scheduler_core.framework.nominated_additions import Additions, NominatedAdditions
from scheduler_core.framework.opportunistic_batch import OpportunisticBatch
from scheduler_core.framework.options import FrameworkOptions, NominatedPods
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.signers import RefusingSigner, Signature, SignPlugin, Unsignable, sign_pod
from scheduler_core.framework.status import Code, MaybeStatus, Status, is_failure, is_success
from scheduler_core.model import Pod

# One PreFilter extension's add_pod or remove_pod.
ExtensionCall = Callable[[CycleState, Pod, PodInfo, NodeInfo], MaybeStatus]


@dataclass(slots=True)
class PluginPreFilter:
    plugin: str
    result: Optional[PreFilterResult]
    status: MaybeStatus


@dataclass(slots=True)
class PreFilterOutcome:
    """RunPreFilterPlugins: the merged result and the status PreFilter stopped on, if any."""

    per_plugin: list[PluginPreFilter]
    result: PreFilterResult
    status: MaybeStatus
    narrowing_plugins: list[str]
    skipped: list[str]
    ran: list[str] = field(default_factory=list)  # plugins whose PreFilter returned Success

    @property
    def unschedulable_plugins(self) -> list[str]:
        """RunPreFilterPlugins' third value, which seeds Diagnosis.UnschedulablePlugins: the plugins
        that narrowed the nodes — none when a plugin's UnschedulableAndUnresolvable or error
        stopped PreFilter (that plugin alone is recorded, from its status)."""
        stopped_by_plugin = self.status is not None and self.status.code != Code.UNSCHEDULABLE and self.status.plugin
        return [] if stopped_by_plugin else list(self.narrowing_plugins)


@dataclass(slots=True)
class PluginPostFilter:
    plugin: str
    result: Optional[PostFilterResult]
    status: MaybeStatus


@dataclass(slots=True)
class PostFilterRun:
    """RunPostFilterPlugins: what each plugin said, the result that nominates, the joined status."""

    per_plugin: list[PluginPostFilter]
    result: Optional[PostFilterResult]
    status: MaybeStatus

    @property
    def message(self) -> str:
        """The FitError's PostFilterMsg: the joined status's message, empty on success."""
        return self.status.message if is_failure(self.status) else ""


@dataclass(slots=True)
class ScoreOutcome:
    """One score plugin over the feasible nodes (arrays aligned with the scored positions)."""

    plugin: str
    raw: np.ndarray
    normalized: np.ndarray
    weight: int
    weighted: np.ndarray


_NOMINATED_INFOS_KEPT = 10_000
# The first pass of RunFilterPluginsWithNominatedPods on one node: each active Filter plugin's
# answer (None: no nominated pod to add there), in a 1-tuple so that a kept None reads as found.
NominatedVerdict = tuple[Optional[list[MaybeStatus]]]


class Framework:
    def __init__(
        self,
        profile: Profile,
        snapshot: SharedLister,
        vectorized: bool = True,
        options: FrameworkOptions = FrameworkOptions(),
    ) -> None:
        self.profile = profile
        self.snapshot = snapshot
        # False forces every plugin through its per-node methods: the reference path tests compare with.
        self.vectorized = vectorized
        self.options = options
        self.nominator: NominatedPods = options.nominator
        self.clock_ms = options.clock_ms
        self._nominated_infos = PodInfoCache(_NOMINATED_INFOS_KEPT)
        # nominated_pods_to_add's answers per node, for what they were asked with
        self._to_add_asked: Optional[tuple[int, int, Optional[str]]] = None
        self._to_add: dict[str, tuple[Pod, ...]] = {}
        # The pod and nominations version _to_add_asked was last worked out for (an attempt asks
        # for dozens of nodes in a row: the key is not made again for each).
        self._to_add_for: tuple[Optional[Pod], int] = (None, -1)
        # nominated_additions' answers, shared by pods of one priority (framework/nominated_additions.py)
        self._additions = NominatedAdditions(self.nominator, self.nominated_pod_info)
        self._nominated_nodes_asked: Optional[tuple[int, object]] = None
        self._nominated_nodes: set[str] = set()
        # The nominated pass's per-node answers, kept across cycles while their inputs are the same.
        self.nominated_verdicts: VerdictMemo[NominatedVerdict] = VerdictMemo()
        # Whole Filter passes, kept across cycles for attempts that read the same (the cycle's own
        # record of a pass: run/schedule_one.py says what it is kept under).
        self.kept_passes: RecentlyKept[Any] = RecentlyKept()
        # The Filter plugins' verdicts before the nominated pass, kept the same way.
        self.kept_filter_verdicts: RecentlyKept[list[tuple[str, FilterVerdicts]]] = RecentlyKept()
        self.signing_plugins, self.signatures_enabled = _signing_plugins(profile)
        self.signing_refusers = [plugin for plugin in self.signing_plugins if isinstance(plugin, RefusingSigner)]
        # The PreFilter plugins with extensions, in order, each with them (PreFilterExtensions() is
        # the plugin's constant): preemption's dry run runs them for every pod it takes off a node.
        self._pre_filter_extensions: list[tuple[str, PreFilterExtensions]] = [
            (plugin.name, extensions)
            for plugin in profile.pre_filter
            if (extensions := plugin.pre_filter_extensions()) is not None
        ]
        # _extension_calls' answers for removing (False) and adding (True), each with the skipped
        # plugins it was made for (None: not made yet).
        self._extension_memo: dict[bool, tuple[Optional[set[str]], list[tuple[str, ExtensionCall]]]] = {
            False: (None, []),
            True: (None, []),
        }
        # Each plugin's fast path and NormalizeScore, found once (capabilities.py).
        self._filter_batch = profile.capabilities.filter_batch
        self._filter_batch_when = profile.capabilities.filter_batch_when
        self._score_batch = profile.capabilities.score_batch
        self._normalize_batch = profile.capabilities.normalize_batch
        self._normalize_score = profile.capabilities.normalize_score
        # OpportunisticBatching's kept results, when the options turn it on.
        self.batch: Optional[OpportunisticBatch] = OpportunisticBatch() if options.opportunistic_batching else None

    # The Handle protocol, so plugins can reach the framework (preemption re-runs filters).
    @property
    def framework(self) -> "Framework":
        return self

    @property
    def percentage_of_nodes_to_score(self) -> Optional[int]:
        return self.profile.percentage_of_nodes_to_score

    def plugin(self, name: str) -> Any:
        return self.profile.instances.get(name)

    # ------------------------------------------------------------------ PreFilter

    def run_pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterOutcome:
        outcome = PreFilterOutcome([], PreFilterResult(), None, [], [])
        for plugin in self.profile.pre_filter:
            result, status = plugin.pre_filter(state, pod, nodes)
            outcome.per_plugin.append(PluginPreFilter(plugin.name, result, status))
            if status is not None and status.is_skip:
                state.skip_filter_plugins.add(plugin.name)
                outcome.skipped.append(plugin.name)
                continue
            if is_failure(status):
                status = status.with_plugin(plugin.name)
                if status.code == Code.UNSCHEDULABLE:
                    outcome.status = status  # later PreFilters still run (kubernetes#119770)
                    continue
                if status.code != Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    status = Status(
                        Code.ERROR, (f'running PreFilter plugin "{plugin.name}": {status.message}',), plugin.name
                    )
                outcome.status = status
                return outcome
            outcome.ran.append(plugin.name)
            if result is not None and not result.all_nodes:
                outcome.narrowing_plugins.append(plugin.name)
            outcome.result = outcome.result.merge(result)
            if not outcome.result.all_nodes and not outcome.result.node_names:
                outcome.status = Status.unresolvable(_narrowed_to_nothing(outcome.narrowing_plugins))
                return outcome
        return outcome

    def run_pre_filter_add_pod(self, state: CycleState, pod: Pod, added: PodInfo, node_info: NodeInfo) -> MaybeStatus:
        return self._tell_extensions(state, pod, (added,), node_info, adding=True)

    def run_pre_filter_remove_pod(
        self, state: CycleState, pod: Pod, removed: PodInfo, node_info: NodeInfo
    ) -> MaybeStatus:
        return self._tell_extensions(state, pod, (removed,), node_info, adding=False)

    def run_pre_filter_remove_pods(
        self, state: CycleState, pod: Pod, removed: Sequence[PodInfo], node_info: NodeInfo
    ) -> MaybeStatus:
        """``run_pre_filter_remove_pod`` for each of ``removed`` in turn, until one fails: the
        extensions looked up once for all of them (preemption's dry run removes every
        lower-priority pod of thousands of nodes)."""
        return self._tell_extensions(state, pod, removed, node_info, adding=False)

    def _tell_extensions(
        self, state: CycleState, pod: Pod, others: Sequence[PodInfo], node_info: NodeInfo, adding: bool
    ) -> MaybeStatus:
        """Every PreFilter extension not skipped told of each of ``others`` (added or removed) in
        turn, stopping at the first failure: the one place its error is written."""
        calls = self._extension_calls(state.skip_filter_plugins, adding)
        for other in others:
            for name, call in calls:
                status = call(state, pod, other, node_info)
                if is_failure(status):
                    method = "add_pod" if adding else "remove_pod"
                    return Status.error(f'running {method} on PreFilter plugin "{name}": {status.message}')
        return None

    def _extension_calls(self, skipped: set[str], adding: bool) -> list[tuple[str, ExtensionCall]]:
        """The extensions' add_pod (or remove_pod) calls of the plugins not skipped, in order: the
        same list while the skipped plugins are the same (a preemption's dry run asks it for every
        pod it takes off or puts back on thousands of nodes, each with its clone of one state)."""
        kept_for, calls = self._extension_memo[adding]
        if kept_for is None or kept_for != skipped:
            calls = [
                (name, extensions.add_pod if adding else extensions.remove_pod)
                for name, extensions in self._pre_filter_extensions
                if name not in skipped
            ]
            self._extension_memo[adding] = (set(skipped), calls)  # a copy: the state's set is its own
        return calls

    # ------------------------------------------------------------------ Filter

    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        """RunFilterPlugins: stops at the first failure, as the real framework (and preemption) does."""
        for plugin in self.profile.filter:
            if plugin.name in state.skip_filter_plugins:
                continue
            status = plugin.filter(state, pod, node_info)
            if status is not None and status.code != Code.SUCCESS:
                return filter_failure_status(plugin.name, status)
        return None

    def run_filter_with_nominated_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        """RunFilterPluginsWithNominatedPods: when nominated pods of equal or higher priority are
        added to the node, the pod must fit with them (first pass) and without them (second pass:
        affinity to a nominated pod must not count)."""
        added, state_with, info_with = self.add_nominated_pods(state, pod, node_info)
        if isinstance(added, Status):
            return added
        status = self.run_filter(state_with, pod, info_with)
        if added and is_success(status):
            status = self.run_filter(state, pod, node_info)
        return status

    def add_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple["bool | Status", CycleState, NodeInfo]:
        """addGENominatedPods: clones of the state and the node with the nominated pods of equal
        or higher priority (the pod itself excluded) added; (False, state, node) when there are none."""
        nominated = self.nominated_pods_to_add(pod, node_info.name)
        if not nominated:
            return False, state, node_info
        state_out, info_out = state.clone(), node_info.clone()
        for other in nominated:
            added = self.nominated_pod_info(other)
            info_out.add_pod(added)
            status = self.run_pre_filter_add_pod(state_out, pod, added, info_out)
            if is_failure(status):
                return Status.error(status.message), state, node_info
        return True, state_out, info_out

    def nominated_pods_to_add(self, pod: Pod, node: str) -> tuple[Pod, ...]:
        """addGENominatedPods' choice: the node's nominated pods of equal or higher priority, not
        the pod itself. Every attempt asks it of every node with nominated pods: the answers are
        kept while the nominations are the same (a nominator that counts its changes) for pods of
        the same priority (and the pod itself when it is one of the nominated); a kept tuple, not
        a copy (the dry runs' stamps hold it and compare it by identity first)."""
        version = self.nominator.version
        if self._to_add_for[0] is not pod or self._to_add_for[1] != version:
            asked = self._nominations_as_seen_by(pod)
            if asked != self._to_add_asked:
                self._to_add_asked, self._to_add = asked, {}
            self._to_add_for = (pod, version)
        found = self._to_add.get(node)
        if found is None:
            priority, key = pod.priority, pod.key
            found = self._to_add[node] = tuple(
                p for p in self.nominator.nominated_pods_for_node(node) if p.priority >= priority and p.key != key
            )
        return found

    def nominated_nodes_in(self, index: dict[str, int]) -> set[str]:
        """The nodes of ``index`` (a node table's) some pending pod is nominated to. The nominator
        also keeps pods whose nomination was cleared (under "", as the release's does) and
        nominations to nodes that are gone: the first filter pass has nothing to add on those.
        Asked by every attempt: kept while the nominations and the table are the same. Read only."""
        asked = (self.nominator.version, index)
        if asked != self._nominated_nodes_asked:
            nodes = {node for node in self.nominator.nodes_with_nominated_pods() if node in index}
            self._nominated_nodes_asked, self._nominated_nodes = asked, nodes
        return self._nominated_nodes

    def nominated_additions(self, pod: Pod, index: dict[str, int]) -> list[tuple[str, tuple[Pod, ...]]]:
        """Each node of ``index`` (a node table's) where nominated_pods_to_add has pods for ``pod``,
        with them, in an order of their own: its callers count the pods in, so the answer is kept
        while which pods are nominated where is the same (framework/nominated_additions.py). Read only."""
        return self._additions_of(pod, index).entries

    def nominated_addition_requests(
        self, pod: Pod, index: dict[str, int], resources: tuple[str, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """What the pods of each nominated_additions entry request of ``resources`` together (a row
        per entry, in its order) and how many they are, kept with that answer. Read only."""
        return self._additions.requests(self._additions_of(pod, index), resources)

    def nominated_addition_positions(self, pod: Pod, index: dict[str, int]) -> np.ndarray:
        """The positions in ``index`` of nominated_additions' nodes, in its order (kept with it). Read only."""
        return self._additions_of(pod, index).positions

    def _additions_of(self, pod: Pod, index: dict[str, int]) -> Additions:
        return self._additions.of(pod, index, lambda: self.nominated_nodes_in(index))

    def nominated_content_seen_by(self, pod: Pod, index: dict[str, int]) -> tuple[int, int, Optional[str]]:
        """What the nominated pods to add for ``pod`` on the nodes of ``index`` (a node table's)
        hold, as a set: the nominator's count of its changes of which pod is nominated where (a
        pod nominated again where it was moves only in its node's order), the pod's priority, and
        the pod itself when it is nominated to one of those nodes (it is not added there)."""
        node = self.nominator.node_of(pod)
        return self.nominator.content_version, pod.priority, pod.key if node is not None and node in index else None

    def _nominations_as_seen_by(self, pod: Pod) -> tuple[int, int, Optional[str]]:
        """What the nominated pods to add for ``pod`` depend on: the nominations (the nominator's
        count of its changes), the pod's priority, and the pod itself when it is one of the nominated."""
        nominated = self.nominator.node_of(pod) is not None
        return self.nominator.version, pod.priority, pod.key if nominated else None

    def nominated_pod_info(self, pod: Pod) -> PodInfo:
        """PodInfo of a nominated pod, built once while nothing it is computed from changed (the
        run updates pending pods in place: their spec's parts and labels are compared)."""
        return self._nominated_infos.of(pod)

    def sign_pod(self, pod: Pod) -> Optional[Signature | Unsignable]:
        """SignPod; None when the profile cannot sign any pod (a plugin there has no signer)."""
        if not self.signatures_enabled:
            return None
        return sign_pod(pod, self.signing_plugins, self.signing_refusers)

    def rejects_on(self, state: CycleState, pod: Pod, node: str) -> bool:
        """RunFilterPlugins on one node (nominated pods not added) and IsRejected of the result."""
        position = self.snapshot.table.index.get(node)
        if position is None or self.snapshot.get(node) is None:
            return False
        positions = np.asarray([position], dtype=np.int64)
        for plugin in self.active_filter_plugins(state):
            verdict = self.filter_verdicts(plugin, state, pod, positions)
            choice = int(verdict.choice[0])
            if choice >= 0:
                return verdict.palette[choice].is_rejected
        return False

    def active_filter_plugins(self, state: CycleState) -> list[FilterPlugin]:
        return [p for p in self.profile.filter if p.name not in state.skip_filter_plugins]

    def judges_in_batch(self, plugin: FilterPlugin, state: CycleState, pod: Pod) -> bool:
        """Whether filter_verdicts judges the plugin's nodes all at once for this pod (else one by one)."""
        if not self.vectorized or plugin.name not in self._filter_batch:
            return False
        sometimes = self._filter_batch_when.get(plugin.name)
        return sometimes is None or sometimes.judges_in_batch(state, pod)

    def filter_verdicts(
        self, plugin: FilterPlugin, state: CycleState, pod: Pod, positions: np.ndarray
    ) -> FilterVerdicts:
        """One filter plugin over many nodes: its batch method when it judges this pod in batch,
        else node by node."""
        table = self.snapshot.table
        if self.judges_in_batch(plugin, state, pod):
            verdicts = self._filter_batch[plugin.name].filter_batch(state, pod, table, positions)
            return verdicts if verdicts is not None else FilterVerdicts.all_pass(len(positions))
        return filter_per_node(plugin, state, pod, table, positions)

    @property
    def has_filter_plugins(self) -> bool:
        return bool(self.profile.filter)

    # ------------------------------------------------------------------ PostFilter

    def run_post_filter(self, state: CycleState, pod: Pod, statuses: NodeToStatus) -> PostFilterRun:
        """RunPostFilterPlugins: plugins run in turn until one succeeds or fails hard.

        Success ends PostFilter (earlier reasons are dropped); UnschedulableAndUnresolvable ends it
        with that plugin's status alone; any other non-rejection is an Error and ends it; an
        Unschedulable answer keeps its reasons and the next plugin runs. The joined status carries
        every kept reason and the first rejecting plugin; the result is the last one that nominates.
        """
        outcome = PostFilterRun([], None, None)
        reasons: list[str] = []
        rejector = ""
        for plugin in self.profile.post_filter:
            result, status = plugin.post_filter(state, pod, statuses)
            outcome.per_plugin.append(PluginPostFilter(plugin.name, result, status))
            if not is_failure(status):
                outcome.result, outcome.status = result, None
                return outcome
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                outcome.result, outcome.status = result, status.with_plugin(plugin.name)
                return outcome
            if not status.is_rejected:
                outcome.result, outcome.status = None, Status(Code.ERROR, (status.message,), plugin.name)
                return outcome
            if result is not None and result.nominates:
                outcome.result = result
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        outcome.status = Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)
        return outcome

    @property
    def has_post_filter_plugins(self) -> bool:
        return bool(self.profile.post_filter)

    # ------------------------------------------------------------------ PreScore / Score

    def run_pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[str, MaybeStatus]]:
        results: list[tuple[str, MaybeStatus]] = []
        for plugin in self.profile.pre_score:
            status = plugin.pre_score(state, pod, nodes)
            if status is not None and status.is_skip:
                state.skip_score_plugins.add(plugin.name)
            results.append((plugin.name, status))
        return results

    def has_score_plugins(self) -> bool:
        """HasScorePlugins: the profile scores at all (whatever PreScore skips in a cycle)."""
        return bool(self.profile.score)

    def score_plugins(self, state: CycleState) -> list[ScorePlugin]:
        return [p for p in self.profile.score if p.name not in state.skip_score_plugins]

    def run_score_plugin(
        self, plugin: ScorePlugin, state: CycleState, pod: Pod, positions: np.ndarray, names: Sequence[str]
    ) -> tuple[Optional[ScoreOutcome], MaybeStatus]:
        """Score, NormalizeScore and weight for one plugin over the feasible nodes."""
        raw = self._raw_scores(plugin, state, pod, positions)
        if isinstance(raw, Status):
            return None, Status.error(f'plugin "{plugin.name}" failed with: {raw.message}')
        normalized = self._normalized_scores(plugin, state, pod, names, raw)
        if isinstance(normalized, Status):
            return None, Status.error(f'plugin "{plugin.name}" failed with: {normalized.message}')
        # the ufuncs' reduce: ndarray.min/max go through a Python wrapper first (five plugins an attempt)
        if len(normalized) and (
            np.minimum.reduce(normalized) < MIN_NODE_SCORE or np.maximum.reduce(normalized) > MAX_NODE_SCORE
        ):
            bad = int(normalized[(normalized < MIN_NODE_SCORE) | (normalized > MAX_NODE_SCORE)][0])
            return None, Status.error(
                f'plugin "{plugin.name}" returns an invalid score {bad}, '
                f"it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
            )
        weight = self.profile.weights.get(plugin.name, 1)
        # Weight 1: the same array (no score array changes once made; the hand-over sends it once).
        weighted = normalized if weight == 1 else normalized * weight
        return ScoreOutcome(plugin.name, raw, normalized, weight, weighted), None

    def _raw_scores(
        self, plugin: ScorePlugin, state: CycleState, pod: Pod, positions: np.ndarray
    ) -> np.ndarray | Status:
        table = self.snapshot.table
        batch = self._score_batch.get(plugin.name) if self.vectorized else None
        if batch is not None:
            return batch.score_batch(state, pod, table, positions)
        return score_per_node(plugin, state, pod, table, positions)

    def _normalized_scores(
        self, plugin: ScorePlugin, state: CycleState, pod: Pod, names: Sequence[str], raw: np.ndarray
    ) -> np.ndarray | Status:
        batch = self._normalize_batch.get(plugin.name) if self.vectorized else None
        if batch is not None:
            return batch.normalize_batch(state, pod, raw)
        normalize = self._normalize_score.get(plugin.name)
        if normalize is not None:
            return normalize_per_node(normalize, state, pod, names, raw)
        return raw

    # ------------------------------------------------------------------ binding cycle

    def run_reserve(self, state: CycleState, pod: Pod, node: str) -> list[tuple[str, MaybeStatus]]:
        return _run_each([(p.name, p.reserve) for p in self.profile.reserve], state, pod, node)

    def run_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        for plugin in reversed(self.profile.reserve):
            plugin.unreserve(state, pod, node)

    def run_permit(self, state: CycleState, pod: Pod, node: str) -> list[tuple[str, MaybeStatus]]:
        return _run_each([(p.name, p.permit) for p in self.profile.permit], state, pod, node)

    def run_pre_bind(
        self, state: CycleState, pod: Pod, node: str, parallel: frozenset[str] = frozenset()
    ) -> list[tuple[str, MaybeStatus]]:
        """PreBind in profile order until one fails. ``parallel`` (v1.36, RunPreBindPlugins' groups):
        consecutive plugins named there run side by side, so each of them makes its writes even
        when another of the group fails; the group's first failure, in profile order, stops it."""
        steps: list[tuple[str, BindingStep]] = [(p.name, p.pre_bind) for p in self.profile.pre_bind]
        if not parallel:
            return _run_each(steps, state, pod, node)
        results: list[tuple[str, MaybeStatus]] = []
        i = 0
        while i < len(steps):
            group = [steps[i]]
            while steps[i][0] in parallel and i + 1 < len(steps) and steps[i + 1][0] in parallel:
                i += 1
                group.append(steps[i])
            i += 1
            ran = [(name, step(state, pod, node)) for name, step in group]
            results.extend(ran)
            if any(is_failure(status) and not status.is_skip for _, status in ran):
                return results
        return results

    def run_bind(self, state: CycleState, pod: Pod, node: str) -> list[tuple[str, MaybeStatus]]:
        """Bind plugins run until one does not Skip."""
        results: list[tuple[str, MaybeStatus]] = []
        for plugin in self.profile.bind:
            status = plugin.bind(state, pod, node)
            results.append((plugin.name, status))
            if status is None or not status.is_skip:
                break
        return results

    def run_post_bind(self, state: CycleState, pod: Pod, node: str) -> list[tuple[str, MaybeStatus]]:
        results: list[tuple[str, MaybeStatus]] = []
        for plugin in self.profile.post_bind:
            plugin.post_bind(state, pod, node)
            results.append((plugin.name, None))
        return results


BindingStep = Callable[[CycleState, Pod, str], MaybeStatus]


def _run_each(
    steps: list[tuple[str, BindingStep]], state: CycleState, pod: Pod, node: str
) -> list[tuple[str, MaybeStatus]]:
    """Reserve, Permit or PreBind: each plugin's step in turn until one fails (a Skip goes on)."""
    results: list[tuple[str, MaybeStatus]] = []
    for name, step in steps:
        status = step(state, pod, node)
        results.append((name, status))
        if is_failure(status) and not status.is_skip:
            break
    return results


def filter_failure_status(plugin: str, status: Status) -> Status:
    """A Filter plugin's failure as RunFilterPlugins reports it: a rejection keeps its code and
    names the plugin; anything else becomes an Error naming it."""
    if status.is_rejected:
        return status.with_plugin(plugin)
    return Status(Code.ERROR, (f'running "{plugin}" filter plugin: {status.message}',), plugin)


def _narrowed_to_nothing(plugins: list[str]) -> str:
    if len(plugins) == 1:
        return f"node(s) didn't satisfy plugin {plugins[0]}"
    return f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"


def _signing_plugins(profile: Profile) -> tuple[list[SignPlugin], bool]:
    """computeBatchablePlugins: every plugin at PreFilter, Filter, PreScore or Score, once, in that
    order; signatures are off for the profile when one of them cannot sign."""
    plugins: dict[str, object] = {}
    for point in (profile.pre_filter, profile.filter, profile.pre_score, profile.score):
        for plugin in point:
            plugins.setdefault(plugin.name, plugin)
    signing = [plugin for plugin in plugins.values() if isinstance(plugin, SignPlugin)]
    return signing, len(signing) == len(plugins)
