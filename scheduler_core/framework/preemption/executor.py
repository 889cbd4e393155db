"""Carrying out the chosen candidate: the victims' API calls and the preemptions under way.

Upstream's Evaluator did this itself up to v1.35 (prepareCandidate, prepareCandidateAsync,
IsPodRunningPreemption, the PreemptPod function); v1.36 moved it into framework/preemption's
executor.go. What each release does, by the switch that carries it:

- SchedulerAsyncPreemption off (the v1.32 default): the scheduling cycle makes the calls itself,
  in PostFilter, before the failure handler requeues the preemptor — every victim is preempted,
  then the lower-priority pods nominated to the node lose their nomination; a failed call makes
  PostFilter answer Error. Nothing holds the preemptor back.
- SchedulerAsyncPreemption on: the preemptor is marked as preempting at once (DefaultPreemption's
  PreEnqueue keeps it out of activeQ while ``is_pod_running_preemption``) and a goroutine clears
  the nominations, then preempts the victims, the last one last. Up to v1.34 the mark is dropped
  just before the last victim's calls; from v1.35 (``preemption_waits_for_last_victim``) the
  last victim is remembered and the preemption is over once it is being deleted or gone. A
  goroutine whose call failed activates its preemptor at the end.
- ``preemption_skips_terminating_victims`` (v1.35): a victim already being deleted gets no call,
  and with no victim left no goroutine starts at all.
- ``preemption_tolerates_gone_victim`` (v1.35): a victim gone before its status patch is not an
  error (up to v1.34 the NotFound fails the preemption).
- ``preemption_cancels_pre_bind`` (v1.36): a victim in PreBind has its binding cancelled instead
  of a delete. A run never meets one (see KubeScheduler.preempt_in_memory).

A failed call cancels the context the remaining calls run with: the calls after it fail too, so
the last victim is never deleted after another one failed (v1.36 skips that call outright; the
outcome is the same). The run makes the calls one at a time, the victims of one preemption in
namespace/name order (the order ../shared/spec/TIMELINE.md's kubelet removes them in), where
upstream makes all but the last in parallel; a call can fail only before v1.35, for a victim
that was deleted between the cycle that chose it and the goroutine.
"""

from __future__ import annotations

from typing import Any, Generator, Iterator, Optional, Sequence

from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.options import PreemptionAPI
from scheduler_core.framework.status import MaybeStatus, Status
from scheduler_core.model import Pod
from scheduler_core.release import DEFAULT_RULES, Features

API = PreemptionAPI[Any]  # the run's event type is passed on unread


def not_found(victim: Pod) -> str:
    """apierrors.NewNotFound(pods, name).Error()."""
    return f'pods "{victim.name}" not found'


def in_deletion_order(victims: Sequence[Pod]) -> list[Pod]:
    """The order the run preempts the victims of one preemption in: namespace/name."""
    return sorted(victims, key=lambda pod: pod.key)


class Executor:
    """Preempts the chosen victims through the framework's PreemptionAPI (none: a dry run), and
    keeps the preemptions under way for IsPodRunningPreemption."""

    def __init__(self, handle: Handle, features: Features = DEFAULT_RULES.features) -> None:
        # The handle's options say where the calls go (a configuration being validated builds its
        # plugins without a handle: they are read on use).
        self._handle = handle
        self._features = features
        # preempting / lastVictimsPendingPreemption: preemptor -> its last victim, once recorded.
        self.preempting: dict[str, Optional[Pod]] = {}

    def actuate(self, preemptor: Pod, node: str, victims: Sequence[Pod]) -> MaybeStatus:
        """actuatePodPreemption: an Error status when the cycle's own calls failed."""
        api = self._handle.options.preemption_api
        if api is None:
            return None
        if self._features.enable_async_preemption:
            self._prepare_candidate_async(api, preemptor, node, victims)
            return None
        return self._prepare_candidate(api, preemptor, node, victims)

    def clear_nomination_now(self, pod: Pod) -> None:
        """util.ClearNominatedNodeName from the scheduling cycle (findCandidates before v1.34)."""
        api = self._handle.options.preemption_api
        if api is not None:
            api.now(lambda: _calls(api.clear_nominated_node_name(pod)))

    def is_pod_running_preemption(self, pod: Pod) -> bool:
        """IsPodRunningPreemption: marked, and (from v1.35) its last victim, once recorded, neither
        being deleted nor gone as the pod lister has it now (a victim with a zero grace period is
        gone at once)."""
        if pod.key not in self.preempting:
            return False
        last_victim = self.preempting[pod.key]
        if last_victim is None:
            return True
        current = self._current(last_victim)
        return current is not None and not current.is_terminating

    # ------------------------------------------------------------------ prepareCandidate

    def _to_preempt(self, victims: Sequence[Pod]) -> list[Pod]:
        """The victims that get API calls (from v1.35 not those already being deleted)."""
        if self._features.preemption_skips_terminating_victims:
            return [victim for victim in victims if not victim.is_terminating]
        return list(victims)

    def _prepare_candidate(self, api: API, preemptor: Pod, node: str, victims: Sequence[Pod]) -> MaybeStatus:
        """prepareCandidate: the cycle preempts every victim, then clears the lower-priority
        nominations on the node; a failed call is PostFilter's Error."""
        to_preempt = self._to_preempt(victims)
        error: Optional[str] = api.now(lambda: self._preempt_in_cycle(api, preemptor, node, to_preempt))
        return None if error is None else Status.error(error)

    def _preempt_in_cycle(
        self, api: API, preemptor: Pod, node: str, to_preempt: list[Pod]
    ) -> Generator[Any, None, Optional[str]]:
        error = yield from self._preempt_each(api, preemptor, to_preempt, last=None)
        if error is None:
            for nominee in api.lower_priority_nominated_pods(preemptor, node):
                yield from api.clear_nominated_node_name(nominee)
        yield from api.preemption_done(preemptor)
        return error

    # ------------------------------------------------------------------ prepareCandidateAsync

    def _prepare_candidate_async(self, api: API, preemptor: Pod, node: str, victims: Sequence[Pod]) -> None:
        """prepareCandidateAsync: with any victim to preempt, the pod is preempting at once and a
        goroutine clears the lower-priority nominations on the node (as the queue has them when
        it starts), then preempts the victims."""
        to_preempt = self._to_preempt(victims)
        if not to_preempt:
            return
        self.preempting[preemptor.key] = None
        nominees: list[Pod] = []
        api.go(
            lambda: nominees.extend(api.lower_priority_nominated_pods(preemptor, node)),
            lambda: self._preempt_in_goroutine(api, preemptor, nominees, to_preempt),
        )

    def _preempt_in_goroutine(
        self, api: API, preemptor: Pod, nominees: list[Pod], to_preempt: list[Pod]
    ) -> Iterator[Any]:
        """The goroutine's API calls; the preemption is over when they are, and a failed one
        activates the preemptor."""
        for nominee in nominees:
            yield from api.clear_nominated_node_name(nominee)
        last = to_preempt[-1]
        if self._features.preemption_waits_for_last_victim:
            self.preempting[preemptor.key] = last
        error = yield from self._preempt_each(api, preemptor, to_preempt, last)
        self.preempting.pop(preemptor.key, None)
        if error is not None:
            yield from api.activate(preemptor)
        yield from api.preemption_done(preemptor)

    def _preempt_each(
        self, api: API, preemptor: Pod, to_preempt: list[Pod], last: Optional[Pod]
    ) -> Generator[Any, None, Optional[str]]:
        """PreemptPod for each victim in the run's order, until one fails (the context the others
        run with is cancelled then). Before v1.35 the goroutine lets its preemptor go just before
        the ``last`` victim's calls."""
        for victim in in_deletion_order(to_preempt):
            if victim is last and not self._features.preemption_waits_for_last_victim:
                self.preempting.pop(preemptor.key, None)
            error = yield from self._preempt_pod(api, preemptor, victim)
            if error is not None:
                return error
        return None

    def _preempt_pod(self, api: API, preemptor: Pod, victim: Pod) -> Generator[Any, None, Optional[str]]:
        """PreemptPod: in memory when it can be; else the DisruptionTarget condition (unless the
        victim, as the cycle saw it, has it already), then the delete. None, or the error."""
        if api.preempt_in_memory(victim, self._features.preemption_cancels_pre_bind):
            return None
        if not victim.preempted_by_scheduler:
            found = yield from api.mark_disruption_target(preemptor, victim)
            if not found:
                return None if self._features.preemption_tolerates_gone_victim else not_found(victim)
        yield from api.delete_victim(preemptor, victim)  # NotFound: already deleted, not an error
        return None

    def _current(self, victim: Pod) -> Optional[Pod]:
        """The victim's version in the scheduler's cache (None: it left its node)."""
        node_info = self._handle.snapshot.get(victim.node_name)
        if node_info is None:
            return None
        return next((info.pod for info in node_info.pods if info.pod.key == victim.key), None)


def _calls(writes: Iterator[Any]) -> Generator[Any, None, None]:
    """Calls that return nothing, as ``PreemptionAPI.now`` takes them."""
    yield from writes
