"""The stand-in for the kubelet (spec/TIMELINE.md): preemption's victims are deleted gracefully.

A deleted victim stays on its node, terminating, until the kubelet is done with it. The stand-in
removes terminating victims one at a time, in the order they were marked (one preemption's
victims in namespace/name order), each at least 300 ms after it was marked and at least 300 ms
after the previous removal. Pods that were terminating in the scenario itself stay so.
"""

from __future__ import annotations

from collections import deque
from typing import Optional

from scheduler_core.model import Pod

GRACE_MS = 300


class StandInKubelet:
    def __init__(self) -> None:
        self._terminating: deque[tuple[Pod, int]] = deque()  # (victim, marked at ms)
        self._last_removal_ms: Optional[int] = None

    def mark(self, victims: list[Pod], now_ms: int) -> None:
        for victim in sorted(victims, key=lambda pod: pod.key):
            self._terminating.append((victim, now_ms))

    def next_removal_ms(self) -> Optional[int]:
        if not self._terminating:
            return None
        _, marked = self._terminating[0]
        earliest = marked + GRACE_MS
        if self._last_removal_ms is not None:
            earliest = max(earliest, self._last_removal_ms + GRACE_MS)
        return earliest

    def remove_due(self, now_ms: int) -> Optional[Pod]:
        """The next victim to remove at ``now_ms``, if its time has come."""
        due = self.next_removal_ms()
        if due is None or due > now_ms:
            return None
        victim, _ = self._terminating.popleft()
        self._last_removal_ms = now_ms
        return victim

    def forget(self, keys: set[str]) -> None:
        """Pods that are gone otherwise (their node was lost): nothing left to remove."""
        self._terminating = deque(item for item in self._terminating if item[0].key not in keys)
