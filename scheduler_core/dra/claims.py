"""A pod's resource claims as DynamicResources finds them (foreachPodResourceClaim, resourceclaim.Name,
resourceclaim.IsForPod) and the queueing hints that depend on them. Shared by the plugin, the
single pass (which pods PreEnqueue holds) and the loader's notice."""

from __future__ import annotations

import copy
import hashlib
from typing import Iterator, Mapping, Optional, Protocol, Union

from scheduler_core.framework.dra_state import DraState
from scheduler_core.framework.cluster_events import QueueingHint
from scheduler_core.model import (
    POD_CLAIM_NAME_ANNOTATION,
    DraObjects,
    OwnerReference,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
)

# The resourceclaim controller's claims from templates (../shared/spec/TIMELINE.md): the names it
# gives them (the real controller's generateName suffix is random; ours is the digest's).
NAME_PREFIX_LIMIT = 57
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # utilrand.String's alphabet


class ClaimLister(Protocol):
    """Where claims and templates are read: the scheduler's caches (DraState), the API server's
    listers (the stand-in controller's), or a probe's own."""

    @property
    def claims(self) -> Mapping[str, ResourceClaim]: ...

    def claim(self, namespace: str, name: str) -> Optional[ResourceClaim]: ...

    def template(self, namespace: str, name: str) -> Optional[ResourceClaimTemplate]: ...


def generated_claim_name(namespace: str, pod: str, claim: str) -> str:
    return f"{f'{pod}-{claim}'[:NAME_PREFIX_LIMIT]}-{digest_suffix(f'{namespace}/{pod}/{claim}')}"


def digest_suffix(seed: str) -> str:
    """generateName's 5 random characters, taken from the SHA-256 digest of ``seed`` instead."""
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(SUFFIX_ALPHABET[byte % len(SUFFIX_ALPHABET)] for byte in digest[:5])


def claim_uid(namespace: str, name: str) -> str:
    """The uid the stand-in API server gives a claim it creates (deterministic)."""
    return f"uid-resourceclaim-{namespace}-{name}"


def missing_template_claims(pod: Pod, dra: ClaimLister) -> Iterator[tuple[str, ResourceClaim]]:
    """The claims the resourceclaim controller makes for the pod's template claims that have no
    ``status.resourceClaimStatuses`` entry yet, one at a time (the caller creates each before the
    next is made: its place in the claims follows the ones made before), with the pod's claim name.
    A missing template makes nothing."""
    known = {name for name, _ in pod.claim_statuses}
    for source in pod.claim_sources:
        if not source.template_name or source.name in known:
            continue
        template = dra.template(pod.namespace, source.template_name)
        if template is None:
            continue
        name = generated_claim_name(pod.namespace, pod.name, source.name)
        owner = OwnerReference("Pod", pod.name, "v1", True, pod.uid)
        yield (
            source.name,
            ResourceClaim(
                pod.namespace,
                name,
                claim_uid(pod.namespace, name),
                dict(template.labels),
                {**template.annotations, POD_CLAIM_NAME_ANNOTATION: source.name},
                (owner,),
                spec=template.spec,
                doc_index=len(dra.claims),
            ),
        )


class ClaimProblem(Exception):
    """Why the pod cannot be scheduled now (the release's error text)."""


def claim_name(pod: Pod, source_name: str, claim_name_: str, template: str) -> tuple[Optional[str], bool]:
    """resourceclaim.Name: the claim's name (None: the controller made none, skip it) and whether
    the pod must own it; ClaimProblem when a template's claim is not created yet."""
    if claim_name_:
        return claim_name_, False
    for name, generated in pod.claim_statuses:
        if name == source_name:
            return (generated or None), True
    raise ClaimProblem(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')


def pod_claims(pod: Pod, dra: ClaimLister, capitalized: bool = False) -> list[ResourceClaim]:
    """foreachPodResourceClaim: every claim of the pod, in spec order, or ClaimProblem
    (``capitalized``: v1.36's "Pod is not owner", release/code.py claim_owner_message_capitalized)."""
    claims: list[ResourceClaim] = []
    for source in pod.claim_sources:
        name, must_own = claim_name(pod, source.name, source.claim_name, source.template_name)
        if name is None:
            continue
        claim = dra.claim(pod.namespace, name)
        if claim is None:
            raise ClaimProblem(f'could not find ResourceClaim "{pod.namespace}/{name}"')
        if claim.terminating:
            raise ClaimProblem(f'resourceclaim "{claim.name}" is being deleted')
        if must_own and (claim.namespace != pod.namespace or not claim.controlled_by(pod.uid)):
            kind = "Pod" if capitalized else "pod"
            raise ClaimProblem(
                f"ResourceClaim {claim.namespace}/{claim.name} was not created for {kind} "
                f"{pod.namespace}/{pod.name} ({kind} is not owner)"
            )
        claims.append(claim)
    return claims


def claims_or_problem(
    pod: Pod, dra: ClaimLister, capitalized: bool = False
) -> Union[list[ResourceClaim], ClaimProblem]:
    try:
        return pod_claims(pod, dra, capitalized)
    except ClaimProblem as problem:
        return problem


def after_claim_change(
    pod: Pod, dra: DraState, old: Optional[ResourceClaim], new: ResourceClaim, capitalized: bool = False
) -> QueueingHint:
    """isSchedulableAfterClaimChange: the pod's own claim created or its status changed, or any
    claim deallocated; not while the pod still misses a claim."""
    claims = claims_or_problem(pod, dra, capitalized)
    if isinstance(claims, ClaimProblem):
        return QueueingHint.QUEUE_SKIP
    if old is not None and old.allocation is not None and new.allocation is None:
        return QueueingHint.QUEUE
    if not any(claim.uid == new.uid for claim in claims):
        return QueueingHint.QUEUE_SKIP
    if old is None:
        return QueueingHint.QUEUE
    if (old.allocation, old.reserved_for) == (new.allocation, new.reserved_for):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def after_pod_change(pod: Pod, dra: DraState, new: Pod) -> QueueingHint:
    """isSchedulableAfterPodChange: the pod itself got its generated claims' names."""
    if pod.uid != new.uid or pod.key != new.key:
        return QueueingHint.QUEUE_SKIP
    if isinstance(claims_or_problem(new, dra), ClaimProblem):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def pods_held_at_pre_enqueue(pods: list[Pod], objects: DraObjects, capitalized: bool = False) -> list[tuple[Pod, str]]:
    """The pending pods among ``pods`` (document order) that DynamicResources' PreEnqueue would
    hold once the stand-in controller made the claims of every pod: with the reason."""
    state = _Probe(objects)
    held: list[tuple[Pod, str]] = []
    for pod in pods:
        if not pod.claim_sources:
            continue
        probe = copy.copy(pod)
        made = []
        for source_name, claim in missing_template_claims(probe, state):
            state.claims[claim.key] = claim  # the probe's own claims: no cluster, nobody hears these
            made.append((source_name, claim.name))
        probe.claim_statuses = (*probe.claim_statuses, *made)
        problem = claims_or_problem(probe, state, capitalized)
        if not pod.node_name and isinstance(problem, ClaimProblem):
            held.append((pod, str(problem)))
    return held


class _Probe:
    """The claims and templates of a probe (no cluster's objects, no scheduler's caches)."""

    def __init__(self, objects: DraObjects) -> None:
        self.claims: dict[str, ResourceClaim] = {claim.key: claim for claim in objects.claims}
        self._templates = {template.key: template for template in objects.templates}

    def claim(self, namespace: str, name: str) -> Optional[ResourceClaim]:
        return self.claims.get(f"{namespace}/{name}")

    def template(self, namespace: str, name: str) -> Optional[ResourceClaimTemplate]:
        return self._templates.get(f"{namespace}/{name}")
