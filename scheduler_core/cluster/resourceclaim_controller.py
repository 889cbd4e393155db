"""The stand-in for kube-controller-manager's resourceclaim controller (../shared/spec/TIMELINE.md, "Dynamic
resource allocation").

- Claims from templates: for each claim of a pod that names a ResourceClaimTemplate and has no
  ``status.resourceClaimStatuses`` entry, a ResourceClaim is created in the pod's namespace, named
  ``<pod>-<claim>`` cut to 57 characters, ``-`` and 5 characters picked by the SHA-256 digest of
  ``<namespace>/<pod>/<claim>`` (the real controller's generateName suffix is random), owned by the
  pod, annotated with the pod's claim name, with the template's labels, annotations and spec. One
  status update of the pod then adds all their names. A missing template creates nothing.
- Release: 100 ms after a removed pod that had claims (or a claim the scheduler made for its
  extended resources, named in its status.extendedResourceClaimStatus), every claim of its namespace (name order)
  loses the pod's reservation (status update; with no reservation left and the delete-protection
  finalizer, the allocation goes too, then the finalizer in a second update); a claim the pod owns
  that is no longer reserved is then deleted.

It reads claims and templates from the API server (its listers), never from the scheduler's
caches, and writes through it (``cluster.objects.ObjectWrites``); the scheduler hears of the writes
through its informers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Optional

from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_CLAIM_TEMPLATE, KIND_RESOURCE_CLAIM, Action, Cluster, WatchEvent
from scheduler_core.dra.claims import missing_template_claims
from scheduler_core.model import FINALIZER, Pod, ResourceClaim, ResourceClaimTemplate

RELEASE_DELAY_MS = 100


@dataclass(slots=True)
class _Release:
    pod: Pod
    due_ms: int


class ClaimListers:
    """The controller's listers of claims and templates: the API server's current objects."""

    def __init__(self, api: Cluster) -> None:
        self._api = api

    @property
    def claims(self) -> Mapping[str, ResourceClaim]:
        return self._api.listed(KIND_RESOURCE_CLAIM)

    def claim(self, namespace: str, name: str) -> Optional[ResourceClaim]:
        claim: Optional[ResourceClaim] = self._api.object(KIND_RESOURCE_CLAIM, f"{namespace}/{name}")
        return claim

    def template(self, namespace: str, name: str) -> Optional[ResourceClaimTemplate]:
        template: Optional[ResourceClaimTemplate] = self._api.object(KIND_CLAIM_TEMPLATE, f"{namespace}/{name}")
        return template


class ResourceClaimController:
    def __init__(self, api: Cluster, clock_ms: Callable[[], int] = lambda: 0) -> None:
        self.listers = ClaimListers(api)  # what it reads: templates, claims
        self.writes = ObjectWrites(api)
        self._clock_ms = clock_ms
        self._releases: list[_Release] = []

    def on_pod(self, event: WatchEvent) -> None:
        """It watches pods: one gone from the API releases its claims a little later."""
        if event.action is Action.DELETED:
            self.pod_removed(event.old, self._clock_ms())

    # ------------------------------------------------------------------ claims from templates

    def create_claims(self, pod: Pod) -> bool:
        """Creates the pod's missing claims and writes the pod's resourceClaimStatuses at once
        (in place); True when the pod's status changed."""
        added = self.create_claim_objects(pod)
        self.write_pod_status(pod, added)
        return bool(added)

    @staticmethod
    def write_pod_status(pod: Pod, added: tuple[tuple[str, str], ...]) -> None:
        """The one status update naming the claims made for the pod."""
        if added:
            pod.claim_statuses = (*pod.claim_statuses, *added)

    def create_claim_objects(self, pod: Pod) -> tuple[tuple[str, str], ...]:
        """Creates the pod's missing claims (API writes); the (pod claim, claim name) pairs for the
        pod's status update, which the caller makes once the claims' events went out."""
        added: list[tuple[str, str]] = []
        for source_name, claim in missing_template_claims(pod, self.listers):
            self.writes.write_resource_claim(claim)
            added.append((source_name, claim.name))
        return tuple(added)

    # ------------------------------------------------------------------ release

    def pod_removed(self, pod: Pod, now_ms: int) -> None:
        if pod.claim_sources or pod.extended_resource_claim is not None:
            self._releases.append(_Release(pod, now_ms + RELEASE_DELAY_MS))

    def next_release_ms(self) -> Optional[int]:
        return min((release.due_ms for release in self._releases), default=None)

    def release_due(self, now_ms: int) -> list[Pod]:
        """Releases the claims of every removed pod whose time has come; the pods released."""
        due = [release for release in self._releases if release.due_ms <= now_ms]
        self._releases = [release for release in self._releases if release.due_ms > now_ms]
        for release in due:
            self._release(release.pod)
        return [release.pod for release in due]

    def _release(self, pod: Pod) -> None:
        in_namespace = sorted(
            (claim for claim in self.listers.claims.values() if claim.namespace == pod.namespace),
            key=lambda claim: claim.name,
        )
        for claim in in_namespace:
            if claim.is_reserved_for(pod.uid):
                claim = self._unreserve(claim, pod.uid)
            if claim.controlled_by(pod.uid) and not claim.reserved_for:
                if claim.allocation is not None or FINALIZER in claim.finalizers:
                    claim = self._deallocate(claim)
                self.writes.delete_resource_claim(claim.key)

    def _unreserve(self, claim: ResourceClaim, uid: str) -> ResourceClaim:
        kept = tuple(ref for ref in claim.reserved_for if ref.uid != uid)
        updated = replace(claim, reserved_for=kept)
        if not kept and FINALIZER in claim.finalizers:
            updated = replace(updated, allocation=None)
            updated = self.writes.write_resource_claim(updated)
            updated = replace(updated, finalizers=tuple(f for f in updated.finalizers if f != FINALIZER))
        updated = self.writes.write_resource_claim(updated)
        return updated

    def _deallocate(self, claim: ResourceClaim) -> ResourceClaim:
        updated = replace(claim, allocation=None, reserved_for=())
        if claim.allocation is not None:
            updated = self.writes.write_resource_claim(updated)
        if FINALIZER in updated.finalizers:
            updated = replace(updated, finalizers=tuple(f for f in updated.finalizers if f != FINALIZER))
            updated = self.writes.write_resource_claim(updated)
        return updated
