"""The DefaultPreemption plugin: the policy of preemption (defaultpreemption).

When no node fits, PostFilter hands the pod to its evaluator (``framework.preemption.evaluator``,
upstream's Evaluator.Preempt), which asks this policy whether the pod may preempt at all
(PodEligibleToPreemptOthers) and which victims each potential node would need
(SelectVictimsOnNode), picks the node and, in a run to the end, has its executor preempt the
victims (framework.preemption.executor); a single-pass ``trace`` only reports it. With
SchedulerAsyncPreemption (on by default from v1.33) PreEnqueue keeps a preemptor out of the active
queue while the executor says its preemption is under way; from v1.34 the plugin also registers
Pod/Delete for that (a hint that never queues), before it registered no event at all.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle, NodeToStatus, PostFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.kept_passes import RecentlyKept
from scheduler_core.framework.kept_verdicts import VerdictMemo, filter_inputs
from scheduler_core.framework.preemption.candidates import DryRun, NodeVerdict, dry_run_preemption
from scheduler_core.framework.preemption.evaluator import Evaluator
from scheduler_core.framework.preemption.executor import Executor
from scheduler_core.framework.preemption.victims import Budgets, KeptBudgets, may_preempt
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, MaybeStatus, Status
from scheduler_core.model import Pod
from scheduler_core.plugins.default_preemption.args import DefaultPreemptionArgs
from scheduler_core.plugins.default_preemption.batch import NodeVerdictMemo, numeric_dry_run, numeric_dry_run_applies
from scheduler_core.release import DEFAULT_RULES, Features

PREEMPT_NEVER = "Never"
REASON_NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never."
REASON_TERMINATING_VICTIM = "not eligible due to a terminating pod on the nominated node."
REASON_WAITING = "waiting for the preemption for this pod to be finished"


class DefaultPreemption:
    name: ClassVar[str] = names.DEFAULT_PREEMPTION

    def __init__(
        self, args: DefaultPreemptionArgs, handle: Handle, features: Features = DEFAULT_RULES.features
    ) -> None:
        self.args = args
        self._handle = handle
        self._features = features
        # The executor preempts the victims and keeps the preemptions under way; the evaluator runs
        # Preempt with this policy and hands its pick to the executor.
        self.executor = Executor(handle, features)
        self.evaluator = Evaluator(handle, self, features, self.executor)
        # The numeric dry run's per-node verdicts, kept across cycles (batch.NodeVerdictMemo).
        self._verdicts = NodeVerdictMemo()
        # The node-by-node dry run's, kept across cycles while their inputs are the same.
        self._node_verdicts: VerdictMemo[NodeVerdict] = VerdictMemo()
        self._budgets = KeptBudgets()  # the lister's budgets, looked up once while they are unchanged
        self._dry_runs: RecentlyKept[DryRun] = RecentlyKept()  # whole dry runs, by what they read

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[Optional[PostFilterResult], Optional[Status]]:
        """Evaluator.Preempt, with this plugin's policy; the result carries the victims."""
        return self.evaluator.preempt(state, pod, statuses)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential: list[NodeInfo]) -> DryRun:
        """DryRunPreemption with SelectVictimsOnNode: on numbers when only NodeResourcesFit decides
        (batch.py), else node by node; or the dry run an earlier attempt made with everything it
        reads the same (``_dry_run_key``): replicas that fit nowhere are retried one after the other
        with nothing changed in between."""
        framework, pdbs = self._handle.framework, self._budgets.of(self._handle.snapshot.pdbs)
        if not isinstance(framework, Framework):  # the paths below read the runtime's own plugin lists
            return dry_run_preemption(framework, state, pod, potential, pdbs)
        inputs = filter_inputs(framework, state, pod) if framework.vectorized else None
        if inputs is None:
            return self._dry_run(framework, state, pod, potential, pdbs, inputs)
        key = _dry_run_key(framework, pod, potential, pdbs, inputs)
        dry_run = self._dry_runs.get(key)
        if dry_run is None:
            dry_run = self._dry_run(framework, state, pod, potential, pdbs, inputs)
            self._dry_runs.put(key, dry_run)
        return dry_run

    def _dry_run(
        self,
        framework: Framework,
        state: CycleState,
        pod: Pod,
        potential: list[NodeInfo],
        pdbs: Budgets,
        inputs: Optional[tuple[Any, ...]],
    ) -> DryRun:
        checked = numeric_dry_run_applies(framework, state)
        if checked is not None:
            return numeric_dry_run(framework, state, pod, potential, checked, pdbs, self._verdicts)
        if inputs is None:
            return dry_run_preemption(framework, state, pod, potential, pdbs)
        inputs += (pdbs,)  # the victims that would break a budget (the same object while they are as they were)
        nominated_nodes = framework.nominator.nodes_with_nominated_pods()
        nominated = functools.partial(framework.nominated_pods_to_add, pod)  # a node's, for this pod
        kept = self._node_verdicts.bound(inputs, nominated, nominated_nodes, framework.snapshot.table)
        return dry_run_preemption(framework, state, pod, potential, pdbs, kept)

    def eligible_to_preempt_others(self, pod: Pod, statuses: NodeToStatus) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: preemptionPolicy Never never preempts; a pod whose
        nominated node still runs a victim it preempted (terminating) waits for it, unless that
        node is now unresolvable for it."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, REASON_NOT_ELIGIBLE
        nominated = pod.nominated_node_name
        if nominated:
            if statuses.get(nominated).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self._handle.snapshot.get(nominated)
            if node_info is not None and any(
                may_preempt(info.pod, pod) and _terminating_by_preemption(info.pod) for info in node_info.pods
            ):
                return False, REASON_TERMINATING_VICTIM
        return True, ""

    # ------------------------------------------------------------------ async preemption

    def pre_enqueue(self, pod: Pod) -> MaybeStatus:
        """Keeps a preemptor out of activeQ while its preemption's API calls are under way (never
        without SchedulerAsyncPreemption: the cycle made them)."""
        if self._features.enable_async_preemption and self.executor.is_pod_running_preemption(pod):
            return Status.unresolvable(REASON_WAITING)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deletion may end a preemption; the hint itself never requeues. Registered from
        v1.34 and only with asynchronous preemption (before: no event, as without it)."""
        if not (self._features.default_preemption_registers_pod_delete and self._features.enable_async_preemption):
            return []
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), _never_after_deletion)]


def _dry_run_key(
    framework: Framework, pod: Pod, potential: list[NodeInfo], pdbs: Budgets, inputs: tuple[Any, ...]
) -> tuple[Any, ...]:
    """What a dry run reads, comparable with another attempt's: the node table and its version
    (the pods that may be victims), the budgets (the same object while they are as they were),
    the nominated pods it adds for this pod (as a set), the potential nodes, and the pod's
    scheduling fields and PreFilter states (``inputs``: filter_inputs)."""
    table = framework.snapshot.table
    nominated = framework.nominated_content_seen_by(pod, table.index)
    return (table, table.version, pdbs, nominated, tuple(potential), inputs)


def _never_after_deletion(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """isPodSchedulableAfterPodDeletion."""
    return QueueingHint.QUEUE_SKIP


def _terminating_by_preemption(pod: Pod) -> bool:
    """podTerminatingByPreemption: being deleted, with the scheduler's DisruptionTarget condition."""
    return pod.is_terminating and pod.preempted_by_scheduler


def new(
    args: Optional[Mapping[str, Any]], handle: Handle, features: Features = DEFAULT_RULES.features
) -> DefaultPreemption:
    return DefaultPreemption(DefaultPreemptionArgs.parse(args), handle, features)
