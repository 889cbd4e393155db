"""unschedulablePods (backend/queue/unschedulable_pods.go): pods waiting for a cluster event."""

from __future__ import annotations

from typing import Iterable, Optional

from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo


class UnschedulablePods:
    """The pods by key, in the order they arrived (the order moves take them out), and which of
    them a cluster event may concern (``concerned_by``): every cluster event asks the hints of the
    plugins that rejected each pod, and most pods wait here for events none of their rejectors
    registered. The index reads a pod's rejectors and gate when it is added: the queue changes
    them only while the pod is out of unschedulablePods (popped, or on its way to another queue)."""

    def __init__(self, profiles: Optional[Iterable[str]] = None) -> None:
        self.pod_infos: dict[str, QueuedPodInfo] = {}  # insertion order: the moves' order
        self._profiles = frozenset(profiles) if profiles is not None else None  # None: every profile known
        self._by_rejector: dict[str, set[str]] = {}  # plugin -> the pods it rejected
        self._rejectors: dict[str, frozenset[str]] = {}  # the pods indexed under their rejectors
        # Pods every event looks at: gated ones, those no plugin rejected, those of no known profile.
        self._always: set[str] = set()

    def add_or_update(self, info: QueuedPodInfo) -> None:
        key = info.key
        self._unindex(key)
        self.pod_infos[key] = info
        rejectors = frozenset(info.unschedulable_plugins | info.pending_plugins)
        known = self._profiles is None or info.pod.scheduler_name in self._profiles
        if info.gating_plugin or not rejectors or not known:
            self._always.add(key)
            return
        self._rejectors[key] = rejectors
        for plugin in rejectors:
            self._by_rejector.setdefault(plugin, set()).add(key)

    def delete(self, key: str) -> None:
        if self.pod_infos.pop(key, None) is not None:
            self._unindex(key)

    def _unindex(self, key: str) -> None:
        self._always.discard(key)
        for plugin in self._rejectors.pop(key, ()):
            keys = self._by_rejector[plugin]
            keys.discard(key)
            if not keys:
                del self._by_rejector[plugin]

    def get(self, key: str) -> Optional[QueuedPodInfo]:
        return self.pod_infos.get(key)

    def concerned_by(self, plugins: Iterable[str]) -> list[QueuedPodInfo]:
        """The pods, in arrival order, that an event these plugins registered for may move: those
        one of them rejected, and those every event looks at. A pod left out is one whose
        rejectors all stay silent on the event (isPodWorthRequeuing would skip it)."""
        keys = set(self._always)
        for plugin in plugins:
            keys.update(self._by_rejector.get(plugin, ()))
        if len(keys) == len(self.pod_infos):
            return list(self.pod_infos.values())
        return [info for key, info in self.pod_infos.items() if key in keys]

    def __len__(self) -> int:
        return len(self.pod_infos)
