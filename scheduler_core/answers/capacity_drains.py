"""A node's drain judged without a trial where the trial's verdict is certain (issue 42: --removable
on 5,000 nodes).

``capacity.removable_nodes`` drains each node in a trial of its own: the whole scenario run again,
then the drain as step 1 (seconds per node at 5,000 nodes). For two kinds of node the trial's
verdict and reasons follow from the baseline (the scenario's own run, at rest) alone:

- **nothing to evict** (no pod but DaemonSet and mirror pods, as ``pods_to_evict`` keeps them): the
  drain is a cordon. Nothing is evicted, so no budget blocks and nothing is deleted; cordoning takes
  a node away from future cycles only, so no pod that was placed becomes pending. The trial says
  "can go" with no reasons;
- **only pods without a controller, none selected by a budget**: each eviction is allowed at once
  (``evict``: no budget selects it), each evicted pod is deleted and nothing recreates it, so the
  trial says "must stay" with one reason per pod, in the drain's order (namespace/name) — and
  nothing becomes pending (deleting pods only frees room).

Every other node (pods with a controller, whose replacements must find room; pods a budget guards;
pods made during the run) is left to its trial (``None``), which stays the deciding check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from scheduler_core.cluster.controllers.drain import pods_to_evict
from scheduler_core.model.labels import compile_selector
from scheduler_core.model import Manifest, Pod, Scenario

NO_EVICTIONS = "nothing to evict: the drain is a cordon"
UNGUARDED_BARE_PODS = "only pods without a controller, no budget selecting them: each eviction deletes one"


@dataclass(frozen=True)
class DrainForecast:
    """The drain trial's verdict and reasons, known without running it, and why they are known."""

    removable: bool
    reasons: list[str]
    known_by: str


@dataclass
class DrainForecaster:
    """Forecasts drains from the scenario and where its own run left each pod (``final``)."""

    scenario: Scenario
    final: Mapping[str, Optional[str]]
    _on_node: dict[str, list[str]] = field(init=False, default_factory=dict)
    _own: dict[str, Pod] = field(init=False, default_factory=dict)
    _manifests: dict[str, Manifest] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for pod, node in self.final.items():
            if node is not None:
                self._on_node.setdefault(node, []).append(pod)
        self._own = {pod.key: pod for pod in self.scenario.pods}
        changes = self.scenario.changes
        manifests = changes.manifests if changes is not None else {}
        self._manifests = {f"{ref.namespace}/{ref.name}": m for ref, m in manifests.items() if ref.kind == "Pod"}

    def forecast(self, node: str) -> Optional[DrainForecast]:
        """The trial's verdict for draining ``node`` alone, or None when only the trial can tell."""
        keys = self._on_node.get(node, [])
        if any(key not in self._own for key in keys):
            return None  # made during the run (by a controller): the trial knows it
        pods = [self._own[key] for key in keys]
        if any(pod.is_finished or pod.is_terminating for pod in pods):
            return None
        evicted = pods_to_evict(pods, self._manifests)
        if not evicted:
            return DrainForecast(True, [], NO_EVICTIONS)
        if all(self._bare(pod) and not self._guarded(pod) for pod in evicted):
            return DrainForecast(
                False, [f"{pod.key} has no controller: evicting it deletes it" for pod in evicted], UNGUARDED_BARE_PODS
            )
        return None

    @staticmethod
    def _bare(pod: Pod) -> bool:
        return not any(ref.controller for ref in pod.owner_references)

    def _guarded(self, pod: Pod) -> bool:
        """A budget of its namespace selects it (or may: budgets written in the Changes count too)."""
        changes = self.scenario.changes
        if changes is not None and any(spec.namespace == pod.namespace for spec in changes.budgets.values()):
            return True
        return any(
            b.namespace == pod.namespace
            and b.selector is not None
            and not b.selector.is_empty
            and compile_selector(b.selector).matches(pod.labels)
            for b in self.scenario.pdbs
        )
