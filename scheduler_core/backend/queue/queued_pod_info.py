"""QueuedPodInfo (framework.QueuedPodInfo): a pending pod with what the queue knows about it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from scheduler_core.backend.queue.clock import Instant
from scheduler_core.framework.cluster_events import ClusterEvent
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.signers import Signature
from scheduler_core.model import Pod


@dataclass(eq=False, slots=True)
class QueuedPodInfo:
    pod_info: PodInfo
    timestamp: Instant  # when it was (re)added: the tie-break among equal priorities
    initial_attempt_timestamp: Optional[Instant] = None
    attempts: int = 0
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    # Plugins that rejected the pod in its last attempt: only their hints can move it back.
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""  # the PreEnqueue plugin keeping it out of activeQ
    gating_plugin_events: list[ClusterEvent] = field(default_factory=list)
    backoff_expiration_ms: Optional[int] = None  # cached, window-aligned; None = not computed
    # PodSignature, when the queue signs pods (v1.36 with OpportunisticBatching): None otherwise,
    # or when the pod cannot be signed.
    signature: Optional[Signature] = None

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def gated(self) -> bool:
        return bool(self.gating_plugin)

    @property
    def rejector_plugins(self) -> set[str]:
        return self.unschedulable_plugins | self.pending_plugins

    def __repr__(self) -> str:
        return f"QueuedPodInfo({self.key}, attempts={self.attempts})"
