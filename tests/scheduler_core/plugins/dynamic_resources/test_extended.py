"""The claim the scheduler makes for a pod's extended resources (extendeddynamicresources.go)."""

from __future__ import annotations

from scheduler_core.framework.dra_class_resolver import ExtendedResourceCache
from scheduler_core.plugins.dynamic_resources.extended import (
    CLAIM_ANNOTATION,
    created_name,
    find_claim,
    maps_to_class,
    requests_and_mappings,
)
from scheduler_core.plugins.node_resources.resource_names import is_dra_extended_resource_name
from scheduler_core.model import Container, DeviceClass, OwnerReference, Pod, ResourceClaim

GPU = "example.com/gpu"


def _cache() -> ExtendedResourceCache:
    cache = ExtendedResourceCache()
    cache.informed(None, DeviceClass("gpu", extended_resource_name=GPU))
    return cache


def test_dra_extended_names_are_extended_resources_or_a_class_implicit_name():
    assert is_dra_extended_resource_name(GPU)
    assert is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu")
    assert not is_dra_extended_resource_name("cpu") and not is_dra_extended_resource_name("kubernetes.io/x")


def test_only_a_non_zero_request_with_a_class_maps():
    assert maps_to_class({GPU: 1}, _cache())
    assert not maps_to_class({GPU: 0, "cpu": 1000}, _cache())
    assert not maps_to_class({"example.com/fpga": 1}, _cache())


def test_one_request_per_container_and_the_init_container_reuses_the_long_lived_ones():
    pod = Pod(
        "p",
        init_containers=(
            Container("init", requests={GPU: 2}),
            Container("sidecar", requests={GPU: 1}, restart_policy="Always"),
        ),
        containers=(Container("main", requests={"cpu": 1000, GPU: 1}),),
    )
    requests, mappings = requests_and_mappings(pod, {GPU: 2}, _cache())
    assert [(r.name, r.exactly.count, r.exactly.device_class_name) for r in requests] == [
        ("container-1-request-0", 1, "gpu"),
        ("container-2-request-1", 1, "gpu"),
    ]
    assert [(m.container_name, m.request_name) for m in mappings] == [
        ("sidecar", "container-1-request-0"),
        ("main", "container-2-request-1"),
        ("init", "container-1-request-0"),
        ("init", "container-2-request-1"),
    ]


def test_plain_init_containers_share_the_largest_of_their_requests():
    pod = Pod(
        "p",
        init_containers=(Container("a", requests={GPU: 1}), Container("b", requests={GPU: 3})),
        containers=(Container("main", requests={GPU: 1}),),
    )
    requests, mappings = requests_and_mappings(pod, {GPU: 1}, _cache())
    assert [(r.name, r.exactly.count) for r in requests] == [("container-1-request-0", 2), ("container-2-request-0", 1)]
    assert [(m.container_name, m.request_name) for m in mappings] == [
        ("main", "container-2-request-0"),
        ("a", "container-2-request-0"),
        ("b", "container-2-request-0"),
        ("b", "container-1-request-0"),
    ]


def test_the_pods_claim_is_found_by_annotation_and_controller_owner():
    pod = Pod("p", uid="u1")
    owned = ResourceClaim(
        "default",
        "c",
        annotations={CLAIM_ANNOTATION: "true"},
        owner_references=(OwnerReference("Pod", "p", "v1", True, "u1"),),
    )
    not_controller = ResourceClaim(
        "default",
        "d",
        annotations={CLAIM_ANNOTATION: "true"},
        owner_references=(OwnerReference("Pod", "p", "v1", False, "u1"),),
    )
    assert find_claim(pod, [not_controller, owned]) is owned
    assert find_claim(pod, [ResourceClaim("default", "e", owner_references=owned.owner_references)]) is None


def test_the_generated_name_is_cut_to_fit_and_stable():
    long_pod = Pod("x" * 60, uid="u")
    name = created_name(long_pod)
    assert len(name) == 63 and name[:58] == ("x" * 60 + "-extended-resources-")[:58]
    assert created_name(long_pod) == name and created_name(Pod("x" * 60, uid="v")) != name
