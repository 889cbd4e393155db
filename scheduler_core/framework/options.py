"""What a framework is built with (frameworkruntime.Option: WithPodNominator, WithClock, ...).

Everything the framework and its plugins need from the scheduler around them is handed in here,
once, when the framework is made: the nominator (the scheduling queue's, in a run to the end),
the clock OpportunisticBatching ages its batch on, whether that batching is on, the preemption
evaluator's tie-break, and the API server the framework's goroutines write through (their
writes come back into the run's event stream as informer events). A single pass builds its
frameworks with the defaults: its own nominator, time zero, no batching, preemption a dry run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Generator, Iterator, Optional, Protocol, TypeVar

from scheduler_core.model import (
    ExtendedResourceClaimStatus,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    ResourceClaim,
)


class NominatedPods(Protocol):
    """Where the framework learns which pending pods are nominated to a node (the PodNominator).
    ``version`` counts its changes: what is read from it is good while the count is the same;
    ``content_version`` counts those that change which pod object is nominated to which node."""

    version: int
    content_version: int

    def nominated_pods_for_node(self, node: str) -> list[Pod]: ...

    def nodes_with_nominated_pods(self) -> frozenset[str]: ...

    def node_of(self, pod: Pod) -> Optional[str]: ...

    def delete(self, pod: Pod) -> None: ...


class NoNominations:
    """A nominator that knows of no nomination (a framework built without one)."""

    version = 0
    content_version = 0

    def nominated_pods_for_node(self, node: str) -> list[Pod]:
        return []

    def node_of(self, pod: Pod) -> Optional[str]:
        return None

    def nodes_with_nominated_pods(self) -> frozenset[str]:
        return frozenset()

    def delete(self, pod: Pod) -> None:
        return None


class ObjectWriter(Protocol):
    """The API calls plugins make for storage and device objects (cluster.objects.ObjectWrites, on
    the run's cluster): VolumeBinding's and DynamicResources' PreBind, DynamicResources' PostFilter
    and Unreserve. Each returns the object as the cluster holds it after the write; the
    scheduler's caches hear of it through their informers, never from the plugin."""

    def write_claim(self, claim: PersistentVolumeClaim) -> PersistentVolumeClaim: ...

    def write_volume(self, volume: PersistentVolume) -> PersistentVolume: ...

    def write_resource_claim(self, claim: ResourceClaim) -> ResourceClaim: ...

    def delete_resource_claim(self, key: str) -> Optional[ResourceClaim]: ...

    def write_pod_extended_claim(self, pod_key: str, status: ExtendedResourceClaimStatus) -> Optional[Pod]: ...

    def await_volume_bindings(self, claim_keys: list[str]) -> None:
        """While BindPodVolumes polls (checkBindings), the PV controller and the provisioner act on
        these claims (``namespace/name``); the run's API lets its stand-ins act now."""


RunEvent = TypeVar("RunEvent")  # what a run records of an API write (its own type)
Result = TypeVar("Result")


class PreemptionAPI(Protocol[RunEvent]):
    """The API calls preemption makes once it has chosen its victims, and how they are made.

    Without SchedulerAsyncPreemption the scheduling cycle makes them itself, in PostFilter
    (prepareCandidate: ``now``); with it a goroutine makes them (prepareCandidateAsync: ``go``).
    Each write yields what the run records of it (its informer events, the queue's moves); the
    type is the run's own, the evaluator only passes it on."""

    def go(self, begin: Callable[[], None], land: Callable[[], Iterator[RunEvent]]) -> None:
        """Starts a goroutine: ``begin`` reads the scheduler's state when it starts, ``land`` makes
        its API writes, which come back as informer events later."""

    def now(self, calls: Callable[[], Generator[RunEvent, None, Result]]) -> Result:
        """The scheduling cycle's own API calls, made at once (their informer events are told
        after the cycle's); returns what ``calls`` returns."""

    def lower_priority_nominated_pods(self, preemptor: Pod, node: str) -> list[Pod]:
        """getLowerPriorityNominatedPods, as the run's queue answers it."""

    def clear_nominated_node_name(self, pod: Pod) -> Iterator[RunEvent]:
        """clearNominatedNodeName: the pod's status patch."""

    def preempt_in_memory(self, victim: Pod, cancel_pre_bind: bool) -> bool:
        """PreemptPod without an API call: a victim waiting at Permit is rejected, or (with
        ``cancel_pre_bind``) a victim in PreBind has its binding cancelled; False when it is neither."""

    def mark_disruption_target(self, preemptor: Pod, victim: Pod) -> Generator[RunEvent, None, bool]:
        """PreemptPod's status patch: the scheduler's DisruptionTarget condition (no write when the
        pod already has it); False when the pod is gone (NotFound)."""

    def delete_victim(self, preemptor: Pod, victim: Pod) -> Generator[RunEvent, None, bool]:
        """PreemptPod's delete (graceful; a pod already terminating is left as it is); False when
        the pod is gone (NotFound)."""

    def activate(self, preemptor: Pod) -> Iterator[RunEvent]:
        """Handle.Activate: the preemptor back to activeQ (a goroutine that failed)."""

    def preemption_done(self, preemptor: Pod) -> Iterator[RunEvent]:
        """What follows the preemption's API calls (the kubelet, the victims' controllers)."""


def _time_zero() -> int:
    return 0


# Where the run's wall clock starts when the scenario records no time of its own (run/epoch.py),
# and what a framework built without a clock reads as now.
DEFAULT_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _default_now() -> datetime:
    return DEFAULT_EPOCH


@dataclass(frozen=True)
class FrameworkOptions:
    """The framework's wiring, passed in when it is built (and to its plugins, on the handle)."""

    nominator: NominatedPods = field(default_factory=NoNominations)
    clock_ms: Callable[[], int] = _time_zero  # the run's logical clock
    # The wall clock (time.Now()): the run's epoch plus its logical clock; a single pass's is the
    # time the dump was taken (after everything it records). DynamicResources' binding timeout reads it.
    now: Callable[[], datetime] = _default_now
    # OpportunisticBatching (on by default in the release): each profile keeps its last cycle's
    # sorted nodes. A single pass, like the corpus it reproduces, calls the plugins without it.
    opportunistic_batching: bool = False
    # When preemption candidates tie after every criterion the real evaluator picks at random: a
    # single pass reports the tie, a run to the end takes the first in node order (the spec's rule).
    preemption_ties_in_node_order: bool = False
    # Where preemption's API calls go (prepareCandidate, prepareCandidateAsync); None: a dry run
    # (the result carries the victims, nothing is deleted). Any: the run's event type, which the
    # framework passes on unread (the options would otherwise be generic in it, and every handle).
    preemption_api: Optional[PreemptionAPI[Any]] = None
    # Where the plugins' storage and device writes go (None: the scheduler makes one on its cluster).
    object_writes: Optional[ObjectWriter] = None
