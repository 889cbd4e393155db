"""The stand-in for the kubelet (../shared/spec/TIMELINE.md, CHANGES.md): a pod deleted gracefully stays
on its node, terminating, until its kubelet is done with it.

It watches the cluster's pods: a bound pod that starts terminating (``deletionTimestamp`` set by
a graceful delete — a preemption's victim, an eviction, a controller's scale-down) is removed one
at a time, in the order the deletes came, each at least 300 ms after it was marked and at least
300 ms after the previous removal. Pods that were terminating in the scenario itself never start
terminating during the run, so they stay so. A pod gone otherwise (its node lost) is forgotten.
"""

from __future__ import annotations

from collections import deque
from typing import Optional

from scheduler_core.cluster.store import Action, Cluster, WatchEvent
from scheduler_core.model import Pod

GRACE_MS = 300


class StandInKubelet:
    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._terminating: deque[tuple[str, int]] = deque()  # (pod key, marked at ms)
        self._last_removal_ms: Optional[int] = None

    def on_pod(self, event: WatchEvent) -> None:
        old, new = event.old, event.new
        if event.action is Action.MODIFIED and new.is_terminating and not old.is_terminating and new.node_name:
            self._terminating.append((new.key, self._cluster.now_ms))
        elif event.action is Action.DELETED and self._terminating:
            self._terminating = deque(item for item in self._terminating if item[0] != old.key)

    def next_removal_ms(self) -> Optional[int]:
        if not self._terminating:
            return None
        _, marked = self._terminating[0]
        earliest = marked + GRACE_MS
        if self._last_removal_ms is not None:
            earliest = max(earliest, self._last_removal_ms + GRACE_MS)
        return earliest

    def remove_due(self, now_ms: int) -> Optional[Pod]:
        """Removes the next terminating pod at ``now_ms`` if its time has come; the pod removed."""
        due = self.next_removal_ms()
        if due is None or due > now_ms:
            return None
        key, _ = self._terminating.popleft()
        self._last_removal_ms = now_ms
        return self._cluster.remove_pod(key)
