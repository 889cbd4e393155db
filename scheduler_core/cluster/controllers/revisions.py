"""The revisions of a StatefulSet's or DaemonSet's pod template (ControllerRevisions): which
template is current, which is the update, and which revision each pod was made with.

A revision is named by deployment.py's template hash. The current revision is the template as
the stand-in first saw it (the scenario's) until a rollout completes; the latest is the template
now. The scenario's own pods of the workload are taken as at the revision current when the
stand-in first saw them (the dump's ``controller-revision-hash`` is not read).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.cluster.controllers.deployment import template_hash
from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.model import ControlledWorkload, Pod


@dataclass
class Revisions:
    """status.currentRevision (hash and template), the latest template's hash, and the latest
    ControllerRevision's number (1 for the template as loaded, one more per change)."""

    current_hash: str
    current_template: Any
    latest_hash: str
    number: int = 1

    @property
    def updating(self) -> bool:
        return self.current_hash != self.latest_hash


def revisions(state: ClusterState, workload: ControlledWorkload) -> Revisions:
    """The workload's revisions, brought up to its template now; its pods seen so far are
    remembered at the current revision."""
    key = f"{workload.kind}/{workload.key}"
    found = state.set_revisions.get(key)
    latest = template_hash(workload.template)
    if found is None:
        found = state.set_revisions[key] = Revisions(latest, workload.template, latest)
    elif found.latest_hash != latest:
        found.latest_hash, found.number = latest, found.number + 1
    for pod in state.owned_pods(workload):
        state.initial_revisions.setdefault(pod.key, found.current_hash)
    return found


def pod_revision(state: ClusterState, pod: Pod) -> str:
    """The pod's controller-revision-hash: the one it was made with, or the revision current
    when its workload was first seen."""
    return state.pod_revisions.get(pod.key, state.initial_revisions.get(pod.key, ""))


def made_at(state: ClusterState, pod: Pod, revision_hash: str) -> None:
    """A pod the stand-in makes, at that revision."""
    state.pod_revisions[pod.key] = revision_hash


def complete(revs: Revisions, workload: ControlledWorkload) -> None:
    """The rollout is done: the latest revision becomes current (completeRollingUpdate)."""
    revs.current_hash, revs.current_template = revs.latest_hash, workload.template
