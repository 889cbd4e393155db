"""Pod resource requests as kube-scheduler computes them (component-helpers resource.PodRequests).

``pod_requests``: containers summed, init containers as the maximum they need at any moment
(sidecars — init containers with ``restartPolicy: Always`` — keep running and add up), plus overhead.
``non_zero_requests``: the same with cpu 100m and memory 200Mi for a container that does not
state them, which is what the scoring plugins use so best-effort pods still spread.
"""

from __future__ import annotations

from typing import Iterable, Optional

from scheduler_core.model import CPU, MEMORY, Container, Pod, ResourceList

DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
NON_ZERO_DEFAULTS: ResourceList = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


def _add(total: ResourceList, extra: ResourceList) -> None:
    for name, amount in extra.items():
        total[name] = total.get(name, 0) + amount


def _max_into(total: ResourceList, other: ResourceList) -> None:
    for name, amount in other.items():
        if amount > total.get(name, 0):
            total[name] = amount


def _container_requests(container: Container, defaults: Optional[ResourceList]) -> ResourceList:
    if not defaults:
        return container.requests
    merged = dict(container.requests)
    for name, amount in defaults.items():
        merged.setdefault(name, amount)
    return merged


def pod_requests(pod: Pod, defaults: Optional[ResourceList] = None) -> ResourceList:
    total: ResourceList = {}
    for container in pod.containers:
        _add(total, _container_requests(container, defaults))
    sidecars: ResourceList = {}
    init_peak: ResourceList = {}
    for container in pod.init_containers:
        requests = _container_requests(container, defaults)
        if container.restart_policy == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            at_start = dict(sidecars)
        else:
            at_start = dict(requests)
            _add(at_start, sidecars)
        _max_into(init_peak, at_start)
    _max_into(total, init_peak)
    _add(total, pod.overhead)
    return total


def non_zero_requests(pod: Pod) -> ResourceList:
    return pod_requests(pod, NON_ZERO_DEFAULTS)


def host_ports(pod: Pod) -> Iterable[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that asks for a host port.

    schedutil.GetHostPorts: the sidecar init containers (``restartPolicy: Always``, running for the
    pod's whole life) first, then the containers; ordinary init containers hold no port.
    """
    sidecars = tuple(c for c in pod.init_containers if c.restart_policy == "Always")
    for container in (*sidecars, *pod.containers):
        for port in container.ports:
            if port.host_port > 0:
                yield (port.host_ip or "0.0.0.0", port.protocol or "TCP", port.host_port)
