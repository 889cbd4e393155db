"""unschedulablePods (backend/queue/unschedulable_pods.go): pods waiting for a cluster event."""

from __future__ import annotations

from typing import Optional

from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo


class UnschedulablePods:
    def __init__(self) -> None:
        self.pod_infos: dict[str, QueuedPodInfo] = {}  # insertion order: the moves' order

    def add_or_update(self, info: QueuedPodInfo) -> None:
        self.pod_infos[info.key] = info

    def delete(self, key: str) -> None:
        self.pod_infos.pop(key, None)

    def get(self, key: str) -> Optional[QueuedPodInfo]:
        return self.pod_infos.get(key)

    def __len__(self) -> int:
        return len(self.pod_infos)
