"""The stand-in resourceclaim controller of ../shared/spec/TIMELINE.md ("Dynamic resource allocation")."""

from __future__ import annotations

import hashlib

from scheduler_core.framework.cluster_events import ActionType
from scheduler_core.model import FINALIZER, POD_CLAIM_NAME_ANNOTATION, ClaimSpec, DraObjects, ResourceClaimTemplate
from scheduler_core.cluster.resourceclaim_controller import RELEASE_DELAY_MS, ResourceClaimController
from scheduler_core.cluster.store import KIND_RESOURCE_CLAIM, Cluster
from scheduler_core.dra.claims import generated_claim_name
from tests.scheduler_core.builders import claiming_pod, exact, make_resource_claim, make_snapshot


def _api(objects: DraObjects):
    """The controller on an API server holding ``objects``, and the scheduler's caches informed by
    it: the DRA state, and the ClusterChanges its handlers hear (the record of the writes)."""
    snapshot = make_snapshot([], dra=objects)
    return snapshot.api, snapshot.dra, snapshot.cluster_changes


TEMPLATE = ResourceClaimTemplate("default", "tpl", {"team": "ml"}, {"note": "x"}, ClaimSpec((exact(count=2),)))


def test_the_generated_name_is_the_cut_prefix_and_five_letters_from_the_digest():
    digest = hashlib.sha256(b"default/train/gpus").digest()
    suffix = "".join("bcdfghjklmnpqrstvwxz2456789"[digest[i] % 27] for i in range(5))
    assert generated_claim_name("default", "train", "gpus") == f"train-gpus-{suffix}"
    long_name = generated_claim_name("default", "p" * 60, "gpus")
    assert len(long_name) == 63 and long_name[57] == "-"


def test_the_corpus_names_are_reproduced():
    # dra_alloc_0: held-1's claim gpus from a template is held-1-gpus-95c2j.
    assert generated_claim_name("default", "held-1", "gpus") == "held-1-gpus-95c2j"


def test_claims_from_templates_are_owned_by_the_pod_and_named_in_its_status():
    api, state, changes = _api(DraObjects(templates=[TEMPLATE]))
    pod = claiming_pod("train", templates=("tpl",))
    assert ResourceClaimController(api).create_claims(pod)
    name = generated_claim_name("default", "train", "t0")
    claim = state.claim("default", name)
    assert pod.claim_statuses == (("t0", name),)
    assert claim.controlled_by(pod.uid) and claim.spec == TEMPLATE.spec and claim.allocation is None
    assert claim.labels == {"team": "ml"} and claim.annotations == {"note": "x", POD_CLAIM_NAME_ANNOTATION: "t0"}
    assert [c.event.action for c in changes] == [ActionType.ADD]
    assert not ResourceClaimController(api).create_claims(pod)  # already named: nothing more


def test_a_missing_template_creates_nothing():
    pod = claiming_pod("train", templates=("gone",))
    api, _, _ = _api(DraObjects())
    assert not ResourceClaimController(api).create_claims(pod)
    assert pod.claim_statuses == ()


def test_release_unreserves_deallocates_unfinalizes_and_deletes_the_pods_own_claim():
    pod = claiming_pod("train", templates=("tpl",), node="n1")
    own = make_resource_claim("own", on=("gpu-0",), node="n1", reserved_for=(pod,), owner=pod, finalizers=(FINALIZER,))
    other = claiming_pod("other", node="n1")
    shared = make_resource_claim("shared", on=("gpu-1",), node="n1", reserved_for=(pod, other), finalizers=(FINALIZER,))
    api, state, changes = _api(DraObjects(claims=[shared, own]))
    controller = ResourceClaimController(api)
    controller.pod_removed(pod, 1000)
    assert controller.next_release_ms() == 1000 + RELEASE_DELAY_MS
    assert controller.release_due(1099) == [] and controller.release_due(1100) == [pod]
    assert state.claim("default", "own") is None
    kept = state.claim("default", "shared")
    assert [ref.name for ref in kept.reserved_for] == ["other"] and kept.allocation is not None
    # own (name order first): reservation + allocation, finalizer, delete; then shared's reservation.
    assert [(c.old.name, c.event.action) for c in changes] == [
        ("own", ActionType.UPDATE),
        ("own", ActionType.UPDATE),
        ("own", ActionType.DELETE),
        ("shared", ActionType.UPDATE),
    ]
    assert changes[0].new.allocation is None and FINALIZER in changes[0].new.finalizers
    assert changes[1].new.finalizers == ()


def test_the_controller_reads_the_api_server_not_the_schedulers_caches():
    """Its listers are the cluster's: with no scheduler informed at all it finds the template."""
    api = Cluster([], [], dra=DraObjects(templates=[TEMPLATE]))
    pod = claiming_pod("train", templates=("tpl",))
    assert ResourceClaimController(api).create_claims(pod)
    assert list(api.listed(KIND_RESOURCE_CLAIM)) == [f"default/{generated_claim_name('default', 'train', 't0')}"]


def test_a_pod_whose_status_names_an_extended_resource_claim_has_it_released_and_deleted():
    """A pod without spec.resourceClaims but with status.extendedResourceClaimStatus (the claim the
    scheduler made for its extended resources): enqueuePod processes that claim too."""
    from dataclasses import replace

    from scheduler_core.model import ContainerExtendedResourceRequest, ExtendedResourceClaimStatus

    pod = claiming_pod("train", node="n1")
    mapping = ContainerExtendedResourceRequest("main", "example.com/gpu", "container-0-request-0")
    pod = replace(
        pod, resource_claims=(), claim_sources=(), extended_resource_claim=ExtendedResourceClaimStatus("x", (mapping,))
    )
    claim = make_resource_claim("x", on=("gpu-0",), node="n1", reserved_for=(pod,), owner=pod, finalizers=(FINALIZER,))
    api, state, _ = _api(DraObjects(claims=[claim]))
    controller = ResourceClaimController(api)
    controller.pod_removed(pod, 0)
    assert controller.release_due(RELEASE_DELAY_MS) == [pod]
    assert state.claim("default", "x") is None
    without = replace(pod, extended_resource_claim=None)
    controller.pod_removed(without, 0)
    assert controller.next_release_ms() is None  # nothing of its own to release
