"""Extended resources backed by devices (DRAExtendedResource, on by default from v1.36).

A DeviceClass stands for an extended resource: the one its ``spec.extendedResourceName`` names and,
always, ``deviceclass.resource.kubernetes.io/<class name>``. A pod requesting such a resource on a
node that does not advertise it (allocatable 0: no device plugin) gets it from devices of the class:
the scheduler asks for them in a claim of its own, made in memory at PreFilter, fitted per node at
Filter and created in the API at PreBind (pkg/scheduler/framework/plugins/dynamicresources/
extendeddynamicresources.go).

- Which class stands for which resource: ``framework/dra_class_resolver.py`` (the informer-fed cache).
- ``requests_and_mappings``: createRequestsAndMappings, the claim's requests for what the node must
  provide through devices and which request serves each container.
"""

from __future__ import annotations

from typing import Optional

from scheduler_core.model import (
    ALLOCATION_MODE_EXACT_COUNT,
    ContainerExtendedResourceRequest,
    Container,
    DeviceRequest,
    ExactRequest,
    Pod,
    ResourceClaim,
)
from scheduler_core.dra.claims import digest_suffix
from scheduler_core.framework.dra_class_resolver import ExtendedResourceCache
from scheduler_core.plugins.node_resources.resource_names import is_dra_extended_resource_name

CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"  # ExtendedResourceClaimAnnotation
IN_MEMORY_NAME = "<extended-resources>"  # specialClaimInMemName: never a valid claim name
RESTART_ALWAYS = "Always"


def maps_to_class(requests: dict[str, int], cache: ExtendedResourceCache) -> bool:
    """hasDeviceClassMappedExtendedResource: some non-zero request has a class standing for it."""
    return any(
        amount and is_dra_extended_resource_name(name) and cache.device_class(name) is not None
        for name, amount in requests.items()
    )


def find_claim(pod: Pod, claims: list[ResourceClaim]) -> Optional[ResourceClaim]:
    """findExtendedResourceClaim: a claim annotated as the pod's extended resource claim and
    controlled by it (by name and uid)."""
    for claim in claims:
        if claim.annotations.get(CLAIM_ANNOTATION) != "true":
            continue
        for ref in claim.owner_references:
            if ref.name == pod.name and ref.controller and ref.uid == pod.uid:
                return claim
    return None


def _partition(containers: list[Container], init_count: int) -> tuple[list[int], list[int]]:
    """partitionContainerIndices: long-lived (sidecars and containers) and short-lived (plain
    init containers) indices into init containers + containers."""
    long_lived: list[int] = []
    short_lived: list[int] = []
    for index, container in enumerate(containers):
        if index < init_count and container.restart_policy != RESTART_ALWAYS:
            short_lived.append(index)
        else:
            long_lived.append(index)
    return long_lived, short_lived


def _container_request(
    index: int,
    container: Container,
    resource: str,
    class_name: str,
    reusable: list[Optional[DeviceRequest]],
) -> tuple[Optional[DeviceRequest], list[ContainerExtendedResourceRequest]]:
    """createResourceRequestAndMappings: the container's own request of ``resource`` after what the
    long-lived containers' requests (``reusable``) already give it, and its mappings."""
    wanted = container.requests.get(resource, 0)
    if not wanted:
        return None, []
    mappings: list[ContainerExtendedResourceRequest] = []
    given = 0
    for request in reusable:
        if request is None or request.exactly is None:
            continue
        given += request.exactly.count
        mappings.append(ContainerExtendedResourceRequest(container.name, resource, request.name))
        if given >= wanted:
            return None, mappings
    position = sorted(container.requests).index(resource)  # the resource's place among the container's
    name = f"container-{index}-request-{position}"
    request = DeviceRequest(
        name, ExactRequest(class_name, allocation_mode=ALLOCATION_MODE_EXACT_COUNT, count=wanted - given)
    )
    mappings.append(ContainerExtendedResourceRequest(container.name, resource, name))
    return request, mappings


def requests_and_mappings(
    pod: Pod, extended: dict[str, int], cache: ExtendedResourceCache
) -> tuple[tuple[DeviceRequest, ...], tuple[ContainerExtendedResourceRequest, ...]]:
    """createRequestsAndMappings: per resource the node must provide through devices (name order),
    one request per long-lived container and the largest plain init container's, the requests
    sorted by name; the mappings per resource, long-lived containers' first."""
    containers = [*pod.init_containers, *pod.containers]
    long_lived, short_lived = _partition(containers, len(pod.init_containers))
    requests: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(extended):
        device_class = cache.device_class(resource)
        if device_class is None:
            continue
        long_requests: list[Optional[DeviceRequest]] = [None] * len(containers)
        long_mappings: list[ContainerExtendedResourceRequest] = []
        for index in long_lived:
            request, found = _container_request(index, containers[index], resource, device_class.name, [])
            long_requests[index] = request
            long_mappings.extend(found)
        largest: Optional[DeviceRequest] = None
        short_names: set[str] = set()
        short_mappings: list[ContainerExtendedResourceRequest] = []
        for index in short_lived:
            reusable = long_requests[index:]
            request, found = _container_request(index, containers[index], resource, device_class.name, reusable)
            if request is not None:
                short_names.add(request.name)
                if largest is None or _count(largest) < _count(request):
                    largest = request
            short_mappings.extend(found)
        if largest is not None and len(short_names) > 1:
            short_names.discard(largest.name)
            short_mappings = [
                ContainerExtendedResourceRequest(m.container_name, m.resource_name, largest.name)
                if m.request_name in short_names
                else m
                for m in short_mappings
            ]
        if largest is not None:
            requests.append(largest)
        requests.extend(request for request in long_requests if request is not None)
        mappings.extend(long_mappings)
        mappings.extend(short_mappings)
    requests.sort(key=lambda request: request.name)
    return tuple(requests), tuple(mappings)


def _count(request: DeviceRequest) -> int:
    return request.exactly.count if request.exactly is not None else 0


def created_name(pod: Pod) -> str:
    """The name the API server gives the claim created for ``pod`` (generateName
    ``<pod>-extended-resources-``, cut so the name fits 63 characters, and 5 characters). The real
    suffix is random; the replay takes it from the pod's uid so that a run replays the same."""
    return f"{pod.name}-extended-resources-"[:GENERATED_BASE_LIMIT] + digest_suffix(
        f"{pod.namespace}/{pod.name}/{pod.uid}"
    )


GENERATED_BASE_LIMIT = 58  # names.MaxGeneratedNameLength: 63 less the 5 random characters
