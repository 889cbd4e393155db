"""PodRequests and the scheduler's non-zero requests (component-helpers resource.PodRequests,
framework.PodInfo.CalculateResource), checked case by case against the release's rules."""

from __future__ import annotations

import pytest

from scheduler_core.model import CPU, MEMORY, Container, ContainerResourceStatus
from scheduler_core.model.resources import (
    DEFAULT_MEMORY_REQUEST,
    NON_ZERO_DEFAULTS,
    _pod_requests,
    non_zero_requests,
    pod_requests,
)
from tests.scheduler_core.builders import make_pod

MI = 1 << 20


def container(name: str, cpu: int | None = None, memory: int | None = None, sidecar: bool = False) -> Container:
    requests = {k: v for k, v in ((CPU, cpu), (MEMORY, memory)) if v is not None}
    return Container(name, requests=requests, restart_policy="Always" if sidecar else "")


@pytest.mark.parametrize(
    "fields, expected",
    [
        pytest.param(
            dict(containers=(container("a", 100, 10 * MI), container("b", 200, 20 * MI))),
            {CPU: 300, MEMORY: 30 * MI},
            id="containers add up",
        ),
        pytest.param(
            dict(containers=(container("a", 100),), init_containers=(container("init", 500),)),
            {CPU: 500},
            id="an init container counts as the peak it needs alone",
        ),
        pytest.param(
            dict(
                containers=(container("a", 100),),
                init_containers=(container("side", 200, sidecar=True), container("init", 300)),
            ),
            {CPU: 500},
            id="a sidecar keeps running: it adds to the containers and to later init containers",
        ),
        pytest.param(
            dict(
                containers=(container("a", 100),),
                init_containers=(container("init", 300), container("side", 200, sidecar=True)),
            ),
            {CPU: 300},
            id="a sidecar started after an init container does not add to it",
        ),
        pytest.param(
            dict(containers=(container("a", 100),), overhead={CPU: 50}), {CPU: 150}, id="overhead is added last"
        ),
        pytest.param(
            dict(containers=(container("a", 100, 10 * MI),), pod_level_requests={CPU: 1000}),
            {CPU: 1000, MEMORY: 10 * MI},
            id="pod-level requests replace the containers' sum for their resources",
        ),
        pytest.param(
            dict(containers=(container("a", 100),), pod_level_requests={CPU: 1000}, overhead={CPU: 50}),
            {CPU: 1050},
            id="overhead adds to pod-level requests too",
        ),
        pytest.param(
            dict(
                containers=(container("a", 500),),
                node="n1",
                container_statuses={"a": ContainerResourceStatus({CPU: 800}, {CPU: 700})},
            ),
            {CPU: 800},
            id="a resize under way counts the largest of spec, allocated and actuated",
        ),
        pytest.param(
            dict(
                containers=(container("a", 900),),
                node="n1",
                resize_infeasible=True,
                container_statuses={"a": ContainerResourceStatus({CPU: 500}, {CPU: 400})},
            ),
            {CPU: 500},
            id="an infeasible resize ignores the spec: allocated and actuated only",
        ),
        pytest.param(
            dict(
                containers=(container("a", 500),),
                node="n1",
                container_statuses={"a": ContainerResourceStatus({CPU: 800}, None)},
            ),
            {CPU: 500},
            id="without status resources the spec alone counts",
        ),
        pytest.param(
            dict(
                containers=(container("a", 100),),
                node="n1",
                init_containers=(container("init", 200),),
                container_statuses={"init": ContainerResourceStatus({CPU: 900}, {CPU: 900})},
            ),
            {CPU: 200},
            id="a plain init container's status is never read",
        ),
    ],
)
def test_pod_requests_follow_the_release(fields, expected):
    assert pod_requests(make_pod("p", **fields)) == expected


@pytest.mark.parametrize(
    "fields, expected",
    [
        pytest.param(
            dict(containers=(container("a"), container("b", 300))),
            {CPU: 400, MEMORY: 2 * DEFAULT_MEMORY_REQUEST},
            id="each container without a request gets 100m and 200Mi",
        ),
        pytest.param(
            dict(containers=(container("a", 0),)),
            {CPU: 0, MEMORY: DEFAULT_MEMORY_REQUEST},
            id="an explicit zero is a request: no default",
        ),
        pytest.param(
            dict(containers=(container("a"),), pod_level_requests={CPU: 2000}),
            {CPU: 2000, MEMORY: DEFAULT_MEMORY_REQUEST},
            id="with pod-level requests only a resource requested nowhere gets the default",
        ),
    ],
)
def test_non_zero_requests_fill_only_what_is_missing(fields, expected):
    assert non_zero_requests(make_pod("p", **fields)) == expected


@pytest.mark.parametrize(
    "containers",
    [
        pytest.param((container("a", 100, 10 * MI),), id="cpu and memory"),
        pytest.param((container("a", 100),), id="cpu only"),
        pytest.param((container("a"),), id="no request"),
        pytest.param((Container("a", requests={CPU: 0, "example.com/gpu": 2}),), id="a zero and an extended resource"),
    ],
)
@pytest.mark.parametrize(
    "non_missing", [None, NON_ZERO_DEFAULTS, {MEMORY: 7}], ids=["no defaults", "non-zero", "memory"]
)
def test_one_plain_container_reads_as_every_pod_does(containers, non_missing):
    pod = make_pod("p", containers=containers)
    fast = pod_requests(pod, non_missing)
    assert fast == _pod_requests(pod, non_missing) and list(fast) == list(_pod_requests(pod, non_missing))
    assert fast is not containers[0].requests  # a dict of its own, as the aggregate is
