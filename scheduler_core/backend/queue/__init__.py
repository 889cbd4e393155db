"""The scheduling queue of kube-scheduler v1.35 (pkg/scheduler/backend/queue)."""

from scheduler_core.backend.queue.clock import Instant, LogicalClock
from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE, MODE_OVERRIDE, NominatingInfo, Nominator
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.backend.queue.scheduling_queue import (
    HintFunction,
    PodSigner,
    PreEnqueuePlugin,
    QueueingHintMap,
    QueueMove,
    QueueName,
    SchedulingQueue,
)

__all__ = [
    "CLEAR_NOMINATED_NODE",
    "MODE_OVERRIDE",
    "HintFunction",
    "Instant",
    "LogicalClock",
    "NominatingInfo",
    "Nominator",
    "PodSigner",
    "PreEnqueuePlugin",
    "QueueMove",
    "QueueName",
    "QueuedPodInfo",
    "QueueingHintMap",
    "SchedulingQueue",
]
