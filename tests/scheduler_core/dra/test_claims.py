"""A pod's claims as DynamicResources finds them (foreachPodResourceClaim), and which pending pods
its PreEnqueue holds once the stand-in controller made the template claims."""

from __future__ import annotations

from scheduler_core.dra.claims import pods_held_at_pre_enqueue
from scheduler_core.model import ClaimSpec, DraObjects, ResourceClaimTemplate
from tests.scheduler_core.builders import claiming_pod, exact, make_resource_claim


def test_pods_whose_template_or_claim_is_missing_are_held_and_the_others_are_not():
    template = ResourceClaimTemplate("default", "tpl", spec=ClaimSpec((exact(),)))
    objects = DraObjects(claims=[make_resource_claim("shared")], templates=[template])
    pods = [
        claiming_pod("from-template", templates=("tpl",)),
        claiming_pod("no-template", templates=("gone",)),
        claiming_pod("shared-user", "shared"),
        claiming_pod("lost", "nope"),
        claiming_pod("running", "nope", node="n1"),
    ]
    held = [(pod.name, reason) for pod, reason in pods_held_at_pre_enqueue(pods, objects)]
    assert held == [
        ("no-template", 'pod "default/no-template": ResourceClaim not created yet'),
        ("lost", 'could not find ResourceClaim "default/nope"'),
    ]
    assert pods[0].claim_statuses == ()  # the check works on copies
