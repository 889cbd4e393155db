"""Pod resource requests as kube-scheduler computes them (component-helpers resource.PodRequests).

``pod_requests``: containers summed, init containers as the maximum they need at any moment
(sidecars — init containers with ``restartPolicy: Always`` — keep running and add up); a running
container being resized in place counts the larger of spec, allocated and actuated requests
(InPlacePodVerticalScaling, GA); pod-level ``spec.resources.requests`` replace the containers'
sum for cpu, memory and hugepages (PodLevelResources, on by default); overhead is added last.
``non_zero_requests``: the same with cpu 100m and memory 200Mi for a container that does not
state them (and, with pod-level requests, only for a resource stated nowhere), which is what the
scoring plugins use so best-effort pods still spread (PodInfo.CalculateResource).
"""

from __future__ import annotations

from typing import Iterable, Optional

from scheduler_core.model import CPU, MEMORY, Container, Pod, ResourceList

DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
NON_ZERO_DEFAULTS: ResourceList = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
HUGEPAGES_PREFIX = "hugepages-"
SIDECAR_RESTART_POLICY = "Always"


def is_supported_pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and hugepages can be requested for the whole pod."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def has_pod_level_requests(pod: Pod) -> bool:
    """IsPodLevelRequestsSet."""
    return any(is_supported_pod_level_resource(name) for name in pod.pod_level_requests)


def _add(total: ResourceList, extra: ResourceList) -> None:
    for name, amount in extra.items():
        total[name] = total.get(name, 0) + amount


def _max_into(total: ResourceList, other: ResourceList) -> None:
    for name, amount in other.items():
        if amount > total.get(name, 0):
            total[name] = amount


def _with_missing(requests: ResourceList, non_missing: Optional[ResourceList]) -> ResourceList:
    """applyNonMissing: a default only for a resource the container does not name at all."""
    if not non_missing:
        return requests
    merged = dict(requests)
    for name, amount in non_missing.items():
        merged.setdefault(name, amount)
    return merged


def _effective(pod: Pod, container: Container) -> ResourceList:
    """determineEffectiveRequests: while an in-place resize is under way the scheduler counts the
    larger of what the spec asks, what the kubelet allocated and what is actuated."""
    status = pod.container_statuses.get(container.name)
    if status is None or status.actuated is None:
        return container.requests
    effective: ResourceList = {} if pod.resize_infeasible else dict(container.requests)
    _max_into(effective, status.actuated)
    _max_into(effective, status.allocated)
    return effective


def aggregate_container_requests(
    pod: Pod, non_missing: Optional[ResourceList] = None, use_status: bool = True
) -> ResourceList:
    """AggregateContainerRequests."""
    total: ResourceList = {}
    for container in pod.containers:
        _add(total, _with_missing(_effective(pod, container) if use_status else container.requests, non_missing))
    sidecars: ResourceList = {}
    init_peak: ResourceList = {}
    for container in pod.init_containers:
        sidecar = container.restart_policy == SIDECAR_RESTART_POLICY
        requests = _effective(pod, container) if use_status and sidecar else container.requests
        requests = _with_missing(requests, non_missing)
        if sidecar:
            _add(total, requests)
            _add(sidecars, requests)
            at_start = dict(sidecars)
        else:
            at_start = dict(requests)
            _add(at_start, sidecars)
        _max_into(init_peak, at_start)
    _max_into(total, init_peak)
    return total


def pod_requests(
    pod: Pod, non_missing: Optional[ResourceList] = None, *, pod_level: bool = True, use_status: bool = True
) -> ResourceList:
    """PodRequests. ``pod_level`` False is SkipPodLevelResources, ``use_status`` False leaves out the
    container statuses of an in-place resize (UseStatusResources false)."""
    if _one_plain_container(pod):
        # Most pods: nothing to aggregate, resize, replace or add (every running pod of a large
        # file is built into the snapshot through here).
        return dict(_with_missing(pod.containers[0].requests, non_missing))
    return _pod_requests(pod, non_missing, pod_level=pod_level, use_status=use_status)


def _one_plain_container(pod: Pod) -> bool:
    """One container, no init container, no resize under way, no pod-level requests, no overhead."""
    return (
        len(pod.containers) == 1
        and not pod.init_containers
        and not pod.container_statuses
        and not pod.pod_level_requests
        and not pod.overhead
    )


def _pod_requests(
    pod: Pod, non_missing: Optional[ResourceList] = None, *, pod_level: bool = True, use_status: bool = True
) -> ResourceList:
    """pod_requests for every pod."""
    total = aggregate_container_requests(pod, non_missing, use_status)
    if pod_level and has_pod_level_requests(pod):
        for name, amount in pod.pod_level_requests.items():
            if is_supported_pod_level_resource(name):
                total[name] = amount
    _add(total, pod.overhead)
    return total


def non_zero_requests(pod: Pod) -> ResourceList:
    """getNonMissingContainerRequests + PodRequests: defaults for missing cpu/memory."""
    if not has_pod_level_requests(pod):
        return pod_requests(pod, NON_ZERO_DEFAULTS)
    requests = pod_requests(pod)
    missing = {name: amount for name, amount in NON_ZERO_DEFAULTS.items() if name not in requests}
    return pod_requests(pod, missing) if missing else requests


def host_ports(pod: Pod) -> Iterable[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that asks for a host port.

    schedutil.GetHostPorts: the sidecar init containers (``restartPolicy: Always``, running for the
    pod's whole life) first, then the containers; ordinary init containers hold no port.
    """
    sidecars = tuple(c for c in pod.init_containers if c.restart_policy == SIDECAR_RESTART_POLICY)
    for container in (*sidecars, *pod.containers):
        for port in container.ports:
            if port.host_port > 0:
                yield (port.host_ip or "0.0.0.0", port.protocol or "TCP", port.host_port)
